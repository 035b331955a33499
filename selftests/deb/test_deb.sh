#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP 13 test of bloom's Debian packages ("make deb", in $BUILD/deb), as an
# administrator uses them, in the test VM (its root is the host's userland
# under a tmpfs overlay, so dpkg and apt may write there):
#
# - "apt-get install ./*.deb" builds and installs the module through DKMS
#   for the running kernel (its headers are there), "modprobe bloom" loads
#   that module, the installed bloomctl creates and queries a filter, the
#   library is found through pkg-config, the group exists, and fail2ban's
#   own configuration reader finds action "bloom" where it looks;
# - the installed bloom-metrics.service's command writes bloomctl stats
#   --prometheus into a textfile directory, "promtool check metrics" finds
#   nothing to say, and Debian's prometheus-node-exporter, its textfile
#   collector pointed there, serves the filter's figures over HTTP;
# - "apt-get purge" removes every file the packages and their scripts put
#   there: the file system's paths (every directory a package file goes to,
#   the DKMS tree, the kernel's module directory, /etc, /var/lib, /var/cache)
#   are the same before and after, the group is gone.
#
# The module run.sh loaded is unloaded first and loaded again at the end,
# so the tests after this one find it as before. Exits 4 (KSFT_SKIP) when
# there are no packages or a tool is missing, saying which.
#   BLOOM_CHECK_DEB=1 selftests/vm/run.sh -- selftests/deb/test_deb.sh
# (make check runs it with BLOOM_CHECK_DEB=1 only: the DKMS build is slow
# under TCG).

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$repo/build}
VERSION=$(cat "$repo/VERSION")
KVER=$(uname -r)
LIMIT=${BLOOM_DEB_TEST_TIMEOUT:-3000}	# seconds for apt-get install (DKMS under TCG)
W=$(mktemp -d) || exit 1
n=0
failed=0
. "$here/../tap.sh"

skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

skip_all() {
	echo "1..0 # SKIP $1"
	exit 4
}

echo "TAP version 13"
# The DKMS build of bloom.ko under TCG took 50 minutes of wall time on a
# loaded host: make check runs this only when asked.
[ "${BLOOM_CHECK_DEB:-0}" = 1 ] ||
	skip_all "the packages' DKMS build under TCG takes tens of minutes: make check BLOOM_CHECK_DEB=1 runs it"
debs=()
for f in "$BUILD"/deb/*_"$VERSION"_*.deb; do
	case $f in *-dbgsym_*) ;; *) [ -e "$f" ] && debs+=("$f") ;; esac
done
[ ${#debs[@]} -gt 0 ] ||
	skip_all "no packages of $VERSION in $BUILD/deb: run make deb (tools/deps.sh deb installs debhelper, dh-dkms and lintian)"
for t in apt-get dkms; do
	command -v $t >/dev/null || skip_all "$t is not installed (tools/deps.sh deb)"
done
[ -d "/lib/modules/$KVER/build" ] ||
	skip_all "no headers of the running kernel $KVER (linux-headers-$KVER)"

# DKMS (and this script) read <(...) through /dev/fd, which udev or
# systemd make on a booted system; the VM's /dev is a bare devtmpfs.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd

# run CMD...: output in $W/out and $W/err, status in $rc.
run() {
	"$@" >"$W/out" 2>"$W/err"
	rc=$?
}

# The paths a purge must leave as they were: every directory a package
# file goes to (its nearest existing ancestor before the install), DKMS's
# tree, the kernel's modules, /etc, /var/lib and /var/cache; not the state
# of dpkg, apt, debconf and the logs, which record the install and purge.
# DKMS's own signing key (/var/lib/dkms/mok.*), made by the first DKMS
# build on a machine, is dkms's: every DKMS module is signed with it and
# Secure Boot trusts it once enrolled, so a module's purge must not take it.
snapshot() {
	find "${dirs[@]}" -xdev \( -path /var/lib/dpkg -o -path /var/lib/apt \
		-o -path /var/cache/apt -o -path /var/cache/debconf \
		-o -path /var/cache/ldconfig -o -path /var/log \
		-o -path '/var/lib/dkms/mok.*' \) -prune \
		-o -print 2>/dev/null | sort -u
}
dirs=(/etc /var/lib /var/cache /usr/src "/lib/modules/$KVER")
# (never shallower than /usr/sbin or /etc/fail2ban: a walk of all of /usr
# over 9p under TCG takes tens of minutes)
while read -r p; do
	d=/${p#./}
	d=${d%/}
	while [ ! -e "$d" ]; do d=$(dirname "$d"); done
	case $d in /*/*) dirs+=("$d") ;; esac
done < <(for f in "${debs[@]}"; do dpkg-deb -c "$f" | awk '$6 !~ /\/$/ { print $6 }'; done |
	 sed 's|/[^/]*$||' | sort -u)
mapfile -t dirs < <(printf '%s\n' "${dirs[@]}" | sort -u)

# The module run.sh loaded goes, so that modprobe must find DKMS's.
rmmod xt_bloom 2>/dev/null
run rmmod bloom
check "the module run.sh loaded unloads" [ "$rc" = 0 ]
# tools/btf.sh's cache would outlive the purge only because it was there
# before; resolve_btfids is taken from a copy (building it under TCG
# takes minutes), man-db's index is not rebuilt (minutes under TCG too).
if [ -x /var/cache/bloom/btf/resolve_btfids ]; then
	cp /var/cache/bloom/btf/resolve_btfids "$W/"
	export RESOLVE_BTFIDS=$W/resolve_btfids
fi
rm -rf /var/cache/bloom
rm -f /var/lib/man-db/auto-update
getent group bloom >/dev/null && had_group=1
snapshot >"$W/before"

export DEBIAN_FRONTEND=noninteractive
t0=$(date +%s)
run timeout "$LIMIT" apt-get install -y --no-install-recommends "${debs[@]}"
t1=$(date +%s)
echo "# apt-get install took $((t1 - t0)) s (the DKMS build of bloom.ko and xt_bloom.ko in it)"
check "apt-get install of ${#debs[@]} packages succeeds" [ "$rc" = 0 ]
run dkms status -m bloom -v "$VERSION" -k "$KVER"
check "dkms status: bloom/$VERSION installed for $KVER" grep -q 'installed' "$W/out"
ko=$(modinfo -n bloom 2>/dev/null)
check "modinfo finds DKMS's bloom.ko ($ko), version $VERSION" \
	sh -c "case '$ko' in */updates/dkms/bloom.ko*) [ \"\$(modinfo -F version bloom)\" = '$VERSION' ] ;; *) false ;; esac"
run modprobe bloom
check "modprobe bloom loads it" sh -c "[ $rc = 0 ] && [ -c /dev/bloom ]"
check "the group bloom exists" getent group bloom
bc=/usr/sbin/bloomctl
# test through the ioctl, which counts queries (root's queries of a
# standard filter otherwise read its mapping in place, uncounted)
run sh -c "$bc create debtest --capacity 1000 --fpp 0.01 && $bc add debtest alpha beta &&
	BLOOM_NO_MAP=1 $bc test debtest alpha beta"
check "the installed bloomctl creates a filter, adds two keys and finds them" [ "$rc" = 0 ]
run "$bc" info debtest --json
check "its info counts 2 adds and 2 queries" \
	sh -c "grep -q '\"adds\": 2,' '$W/out' && grep -q '\"queries\": 2,' '$W/out'"
check "pkg-config finds the installed libbloom $VERSION" \
	sh -c "[ \"\$(pkg-config --modversion libbloom)\" = '$VERSION' ]"

# fail2ban reads action.d from /etc/fail2ban: a jail with action bloom, in
# the jail.d fail2ban reads, dumped by its own reader (-d).
if command -v fail2ban-client >/dev/null; then
	jail=/etc/fail2ban/jail.d/zz-bloom-debtest.local
	printf '[bloom-debtest]\nenabled = true\nfilter = sshd\nbackend = polling\nlogpath = %s\naction = bloom[capacity=1000]\n' \
		"$W/auth.log" >"$jail"
	: >"$W/auth.log"
	run timeout 120 fail2ban-client -d
	rm -f "$jail"
	check "fail2ban finds action bloom in /etc/fail2ban/action.d (fail2ban-client -d)" \
		grep -qF "'action', 'bloom', [['actionstart', \"/usr/sbin/bloomctl create" "$W/out"
else
	skip "fail2ban finds action bloom" "fail2ban is not installed (tools/deps.sh clients)"
fi

# --- metrics: the timer's service, promtool, node-exporter ----------------
unit=/usr/lib/systemd/system/bloom-metrics.service
tf=$W/textfile
mkdir -p "$tf"
# The service's command as systemd runs it: $$ is systemd's $, and the
# unit's environment with the directory changed as "systemctl edit" would.
cmd=$(sed -n 's/^ExecStart=//p' "$unit" | sed 's/\$\$/$/g')
run env BLOOM_METRICS_DIR="$tf" sh -c "eval \"\$1\"" sh "$cmd"
check "bloom-metrics.service's command writes $tf/bloom.prom and no temporary file" \
	sh -c "[ $rc = 0 ] && [ -s '$tf/bloom.prom' ] && [ \"\$(ls '$tf')\" = bloom.prom ]"
if command -v promtool >/dev/null; then
	run promtool check metrics <"$tf/bloom.prom"
	check "promtool check metrics finds nothing to say" \
		sh -c "[ $rc = 0 ] && [ ! -s '$W/out' ] && [ ! -s '$W/err' ]"
else
	skip "promtool check metrics" "promtool is not installed (Debian's prometheus: tools/deps.sh deb)"
fi
if command -v prometheus-node-exporter >/dev/null; then
	ip link set lo up
	prometheus-node-exporter --collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$tf" \
		--web.listen-address=127.0.0.1:9901 >"$W/exporter.log" 2>&1 &
	exporter=$!
	got=
	for _ in $(seq 300); do
		got=$(python3 - <<-'EOF' 2>/dev/null
		import urllib.request
		print(urllib.request.urlopen("http://127.0.0.1:9901/metrics", timeout=10).read().decode())
		EOF
		) && break
		sleep 0.2
	done
	kill "$exporter" 2>/dev/null
	wait "$exporter" 2>/dev/null
	printf '%s\n' "$got" >"$W/scraped"
	check "node-exporter serves bloom_filter_adds_total{filter=\"debtest\",type=\"standard\"} 2" \
		grep -qx 'bloom_filter_adds_total{filter="debtest",type="standard"} 2' "$W/scraped"
	check "node-exporter read the textfile without an error" \
		grep -qx 'node_textfile_scrape_error 0' "$W/scraped"
else
	skip "node-exporter serves the metrics" "prometheus-node-exporter is not installed (tools/deps.sh deb)"
fi

# --- purge -------------------------------------------------------------------
run "$bc" destroy debtest
rmmod xt_bloom 2>/dev/null
run rmmod bloom
check "the DKMS-built module unloads" [ "$rc" = 0 ]
pkgs=()
for f in "${debs[@]}"; do pkgs+=("$(dpkg-deb -f "$f" Package)"); done
t0=$(date +%s)
run timeout "$LIMIT" apt-get purge -y "${pkgs[@]}"
echo "# apt-get purge took $(($(date +%s) - t0)) s"
check "apt-get purge of ${pkgs[*]} succeeds" [ "$rc" = 0 ]
snapshot >"$W/after"
diff "$W/before" "$W/after" >"$W/diff"
sed 's/^/# /' "$W/diff" | head -n 40
check "after the purge the file system has the paths it had before" [ ! -s "$W/diff" ]
check "the group bloom is gone (it was ${had_group:+not }created by the package)" \
	sh -c "[ -n '${had_group:-}' ] || ! getent group bloom"

# The module run.sh loaded, for the tests after this one.
run insmod "/run/bloom-vm/bloom.ko"
check "run.sh's module loads again" [ "$rc" = 0 ]

echo "1..$n"
rm -rf "$W"
[ "$failed" = 0 ]
