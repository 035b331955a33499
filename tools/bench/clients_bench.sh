#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The clients benchmark, run INSIDE the VM by run.sh ("clients"): the ban
# tools at scale, each with bloom's backend against the backends its users
# run today, all as Debian 12 packages them.
#   clients_bench.sh DATA_DIR WAIT SECTION... > clients.json
# DATA_DIR: what clients_data.py gen wrote on the host. WAIT: the longest
# each client is given (seconds from its start) to enforce every ban; one
# that has not is reported as not done within WAIT. SECTION: crowdsec,
# fail2ban, sshguard. A section whose programs are missing is reported as
# skipped, with the reason.
#
# crowdsec: the local API (crowdsec -no-cs) with the decisions of
#   cs_ip.csv and cs_range.csv imported by "cscli decisions import"; the
#   LAPI's startup stream (/v1/decisions/stream?startup=true) timed alone
#   with curl, and what it holds; then, one at a time, from its start until
#   every decision the stream held (and not ended meanwhile) is enforced:
#   crowdsec-custom-bouncer feeding crowdsec-bloom-stdin (feed_via_stdin),
#   crowdsec-firewall-bouncer in mode iptables (an ipset set and its
#   iptables rule) and in mode nftables. Each runs in a cgroup of its own,
#   whose kernel memory (memory.stat) is read once it is done, beside
#   bloom's memory_bytes and ipset's "Size in memory".
# fail2ban: a jail whose database holds the bans of f2b.txt (made with
#   fail2ban's schema by clients_data.py f2b-db), started with action bloom,
#   iptables-ipset and nftables in turn: from fail2ban-client start until
#   every ban is enforced again.
# sshguard: sshguard (its script, with sshguard.conf bound over the one in
#   /etc) with BLACKLIST_FILE blacklist.db, BACKEND sshg-fw-bloom and
#   sshg-fw-nft-sets in turn: from its start until every address is blocked.
# Enforced means held by the kernel's set the client fills: bloomctl test,
# ipset list, nft list set (clients_poll.py). Each section reads its
# programs once first (warm), so that the first client does not pay alone
# for reading them over the guest's 9p root.
set -uo pipefail

data=$1 wait_s=$2
shift 2
# the clients' own output goes to the log: stdout is the JSON's alone
exec 3>&1 1>&2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$top/build}
W=$(mktemp -d)
poll() { python3 "$here/clients_poll.py" "$@"; }
now() { date +%s.%N; }
say() { echo "clients_bench: $*" >&2; }
# skipped SECTION WHY: the section's JSON
skipped() {
	say "$1 skipped: $2"
	python3 -c 'import json, sys; print(json.dumps({"skipped": sys.argv[1]}))' "$2" \
		>"$W/$1.json"
}
# The VM's overlay root only: this script binds files over /etc and loads
# modules, which it must never do on a real host.
[ "$(stat -f -c %T /)" = overlayfs ] || { say "not in the test VM: refusing"; exit 1; }

XTABLES_LIBDIR=$BUILD/xt:$(pkg-config --variable=xtlibdir xtables 2>/dev/null ||
	echo /usr/lib/x86_64-linux-gnu/xtables)
export XTABLES_LIBDIR
# The guest autoloads no module: what the three clients' firewalls use
for m in x_tables ip_tables ip6_tables iptable_filter ip6table_filter nf_tables \
	nft_compat nft_ct nft_reject nft_reject_inet nf_reject_ipv4 nf_reject_ipv6 \
	xt_multiport xt_set ip_set ip_set_hash_ip ip_set_hash_net; do
	modprobe "$m" 2>/dev/null || say "module $m not loaded"
done
grep -q '^xt_bloom ' /proc/modules || insmod "$top/xt_bloom.ko" ||
	{ say "cannot load xt_bloom.ko"; exit 1; }
ip link set lo up

# The backends with this tree's bloomctl, as selftests/net/test_clients.sh
# makes them; their settings file in $W/etc.
bc=$(command -v bloomctl)
mkdir -p "$W/bin" "$W/etc/default"
for f in bloom.conf crowdsec-bloom sshg-fw-bloom; do
	sed -e "s|@SBINDIR@/bloomctl|$bc|g" -e "s|@SYSCONFDIR@|$W/etc|g" \
		"$top/tools/clients/$f.in" >"$W/bin/$f"
done
chmod 755 "$W/bin/crowdsec-bloom" "$W/bin/sshg-fw-bloom"

# Kernel memory charged to a cgroup of its own (cgroup v2's memory.stat),
# for each client: its sets are charged to it (GFP_KERNEL_ACCOUNT).
cg=/sys/fs/cgroup
[ -e $cg/cgroup.controllers ] || mount -t cgroup2 none $cg 2>/dev/null
echo +memory >$cg/cgroup.subtree_control 2>/dev/null
# cg_run NAME CMD...: CMD in the background, in a new cgroup NAME; $! its pid
cg_run() {
	local d=$cg/clients-$1

	shift
	mkdir -p "$d" 2>/dev/null
	# shellcheck disable=SC2016 # the inner shell expands them
	setsid sh -c 'echo $$ >"$0/cgroup.procs" 2>/dev/null; exec "$@"' "$d" "$@" &
}
# cg_kernel NAME: the kernel memory charged to cgroup NAME (bytes), or null
cg_kernel() {
	awk '$1 == "kernel" { k = $2 } END { print (k == "" ? "null" : k) }' \
		"$cg/clients-$1/memory.stat" 2>/dev/null || echo null
}
# cg_stop NAME PID: the session PID leads ends (TERM, then KILL), the cgroup goes
cg_stop() {
	kill -TERM -- -"$2" 2>/dev/null
	for _ in $(seq 100); do
		kill -0 "$2" 2>/dev/null || break
		sleep 0.2
	done
	kill -KILL -- -"$2" 2>/dev/null
	wait "$2" 2>/dev/null
	for _ in $(seq 50); do
		rmdir "$cg/clients-$1" 2>/dev/null && break
		sleep 0.2
	done
}
# clean_up TABLE TABLE6 FILTER FILTER6: what a client left: the nftables
# tables ip TABLE and ip6 TABLE6, the bloom filters and their rules
clean_up() {
	nft delete table ip "$1" 2>/dev/null
	nft delete table ip6 "$2" 2>/dev/null
	iptables -w -D INPUT -m bloom --bloom-set "$3" -j DROP 2>/dev/null
	ip6tables -w -D INPUT -m bloom --bloom-set "$4" -j DROP 2>/dev/null
	bloomctl destroy "$3" >/dev/null 2>&1
	bloomctl destroy "$4" >/dev/null 2>&1
}
# warm PROGRAM|DIR...: reads each program, the libraries it links and each
# directory's files once, so that no client pays for the first read of the
# files they share through the guest's 9p root (the first start of each
# would, and the clients run one after another)
warm() {
	local f

	for f in "$@"; do
		if [ -d "$f" ]; then
			find "$f" -type f -exec cat {} + >/dev/null 2>&1
			continue
		fi
		f=$(command -v "$f") || continue
		# shellcheck disable=SC2046 # library paths, one a word
		cat "$f" $(ldd "$f" 2>/dev/null | awk '$3 ~ /^\// { print $3 }') >/dev/null 2>&1
	done
}
json_num() { python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }

# ---- CrowdSec ----

cs() { cscli -c "$W/cs/config.yaml" "$@"; }
# cs_expected STREAM AT OUT: what the startup stream held, "VALUE END" a
# line (END: AT plus the decision's remaining duration); prints the count
cs_expected() {
	python3 - "$@" <<-'EOF'
	import json, re, sys
	stream, at, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
	unit = {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}
	def secs(d):
	    return sum(float(n) * unit[u] for n, u in re.findall(r"([\d.]+)(h|ms|us|µs|ns|m|s)", d))
	new = json.load(open(stream)).get("new") or []
	ends = {}
	for x in new:
	    if x.get("type", "ban") == "ban":
	        ends[x["value"]] = max(ends.get(x["value"], 0), at + secs(x["duration"]))
	open(out, "w").write("".join(f"{v} {e:.3f}\n" for v, e in ends.items()))
	print(len(ends))
	EOF
}
# cs_bouncer MODE CMD...: runs a bouncer from its start until every expected
# decision is enforced; $W/cs_MODE.json: the poll, memory
cs_bouncer() {
	local mode=$1 kind since pid mem=null sizemem=null stream held

	shift
	case $mode in
	bloom) kind=(bloom crowdsec) ;;
	ipset) kind=(ipset crowdsec-blacklists) ;;
	nftables) kind=(nft ip crowdsec crowdsec-blacklists) ;;
	esac
	# what the LAPI holds now: the stream this bouncer will get, alone
	stream=$(curl -s -o "$W/cs/stream.json" -w '%{time_total} %{size_download}' \
		-H "X-Api-Key: $probe_key" "http://127.0.0.1:8080/v1/decisions/stream?startup=true")
	held=$(cs_expected "$W/cs/stream.json" "$(now)" "$W/cs_expected.txt")
	say "crowdsec $mode: the LAPI's startup stream alone: $stream (s, bytes), $held decisions"
	since=$(now)
	cg_run "cs-$mode" "$@"
	pid=$!
	poll "$W/cs_expected.txt" "$since" "$wait_s" "$pid" "${kind[@]}" >"$W/cs_poll_$mode.json"
	case $mode in
	bloom) sizemem=$(bloomctl info --json crowdsec | json_num memory_bytes) ;;
	ipset) sizemem=$(ipset list -t crowdsec-blacklists | sed -n 's/^Size in memory: //p') ;;
	esac
	mem=$(cg_kernel "cs-$mode")
	# what a set that missed decisions holds, for the log
	if ! grep -q '"done_s": [0-9]' "$W/cs_poll_$mode.json"; then
		case $mode in
		nftables) nft list set ip crowdsec crowdsec-blacklists ;;
		ipset) ipset list crowdsec-blacklists ;;
		bloom) bloomctl info crowdsec ;;
		esac 2>&1 | head -n 12 | sed "s/^/# $mode set: /" >&2
	fi
	say "crowdsec $mode: $(cat "$W/cs_poll_$mode.json") memory $sizemem, cgroup kernel $mem"
	cg_stop "cs-$mode" "$pid"
	cat "$W"/cs/crowdsec-*-bouncer.log 2>/dev/null | grep -E 'level=(error|fatal|warning)' |
		sed "s/^time=\"[^\"]*\" //" | sort | uniq -c | sort -rn | head -n 5 |
		sed "s/^/# $mode bouncer: /" >&2
	rm -f "$W"/cs/crowdsec-*-bouncer.log
	python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))
p["memory_bytes"] = None if sys.argv[2] in ("", "null") else int(sys.argv[2])
p["cgroup_kernel_bytes"] = None if sys.argv[3] == "null" else int(sys.argv[3])
st, size = sys.argv[4].split()
p["lapi_held"] = int(sys.argv[5])
p["stream_s"], p["stream_bytes"] = float(st), int(size)
print(json.dumps(p))' "$W/cs_poll_$mode.json" "$sizemem" "$mem" "$stream" "$held" \
		>"$W/cs_$mode.json"
	# what each leaves behind (the firewall bouncer removes its own at TERM)
	clean_up crowdsec crowdsec6 crowdsec crowdsec6
	iptables -w -F INPUT 2>/dev/null
	ip6tables -w -F INPUT 2>/dev/null
	ipset destroy 2>/dev/null
	true
}
# fw_bouncer_conf MODE KEY: crowdsec-firewall-bouncer's shipped
# configuration with this run's paths, key, mode, and an ipset maxelem
# (ipset_size) of twice the decisions (past its maxelem ipset refuses adds,
# "Hash is full": the setting its users are told to raise)
fw_bouncer_conf() {
	sed -e "s|\${BACKEND}|$1|" -e "s|\${API_KEY}|$2|" -e "s|^pid_dir:.*|pid_dir: $W/cs/|" \
		-e "s|^log_dir:.*|log_dir: $W/cs/|" -e 's|^daemonize:.*|daemonize: false|' \
		-e '/^prometheus:/,/^  enabled:/s|enabled: true|enabled: false|' \
		/etc/crowdsec/bouncers/crowdsec-firewall-bouncer.yaml
	# (the shipped file ends without a newline)
	printf '\nipset_size: %d\n' $((2 * ncs))
}
crowdsec_part() {
	local key=0123456789abcdef0123456789abcdef t0 t1 t2 imp_ip imp_range
	local mode tool fwmode n

	probe_key=$key

	mkdir -p "$W/cs"
	python3 "$top/selftests/net/crowdsec_lapi.py" "$W/cs"
	# Debian's override (sqlite in WAL mode), as installed
	[ -r /etc/crowdsec/config.yaml.local ] && cp /etc/crowdsec/config.yaml.local "$W/cs/"
	cs machines add bench --auto -f "$W/cs/lapi.yaml" >/dev/null 2>&1 ||
		{ skipped crowdsec "cscli machines add failed"; return; }
	if ! { cs bouncers add bench-probe -k "$key" &&
		cs bouncers add bench-bloom -k "${key}01" &&
		cs bouncers add bench-ipset -k "${key}02" &&
		cs bouncers add bench-nftables -k "${key}03"; } >/dev/null 2>&1; then
		skipped crowdsec "cscli bouncers add failed"
		return
	fi
	crowdsec -c "$W/cs/config.yaml" -no-cs >"$W/cs/lapi.out" 2>&1 &
	lapi=$!
	for _ in $(seq 300); do
		cs decisions list >/dev/null 2>&1 && break
		sleep 1
	done
	cs decisions list >/dev/null 2>&1 ||
		{ skipped crowdsec "the local API did not answer in 300 s"; kill $lapi; return; }
	ncs=$(($(wc -l <"$data/cs_ip.csv") + $(wc -l <"$data/cs_range.csv") - 2))
	t0=$(now)
	cs decisions import -i "$data/cs_ip.csv" >"$W/cs/import.out" 2>&1
	t1=$(now)
	cs decisions import -i "$data/cs_range.csv" --scope Range >>"$W/cs/import.out" 2>&1
	t2=$(now)
	imp_ip=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
	imp_range=$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.3f", b - a }')
	say "crowdsec: imported $ncs decisions: $imp_ip s (addresses), $imp_range s (ranges)"
	sed 's/^/# import: /' "$W/cs/import.out" | tail -n 4 >&2
	warm crowdsec-custom-bouncer crowdsec-firewall-bouncer ipset nft iptables \
		bloomctl curl python3 "$BUILD/clients/crowdsec-bloom-stdin"
	# bloom: crowdsec-custom-bouncer fed on standard input, as make install
	# sets it up; the filter sized for the decisions (it grows past them)
	cp "$BUILD/clients/crowdsec-bloom-stdin" "$W/bin/"
	echo "BLOOM_CROWDSEC_CAPACITY=$ncs" >"$W/etc/default/crowdsec-bloom"
	sed -e "s|\${BINARY_PATH}|$W/bin/crowdsec-bloom-stdin|" -e "s|\${API_KEY}|${key}01|" \
		-e 's|^feed_via_stdin:.*|feed_via_stdin: true|' -e "s|^piddir:.*|piddir: $W/cs/|" \
		-e "s|^log_dir:.*|log_dir: $W/cs/|" -e 's|^daemonize:.*|daemonize: false|' \
		-e '/^prometheus:/,/^  enabled:/s|enabled: true|enabled: false|' \
		/etc/crowdsec/bouncers/crowdsec-custom-bouncer.yaml >"$W/cs/custom.yaml"
	cs_bouncer bloom crowdsec-custom-bouncer -c "$W/cs/custom.yaml"
	for mode in ipset nftables; do
		case $mode in
		ipset) tool=ipset fwmode=iptables n=02 ;;
		nftables) tool=nft fwmode=nftables n=03 ;;
		esac
		if command -v crowdsec-firewall-bouncer >/dev/null && command -v $tool >/dev/null; then
			fw_bouncer_conf $fwmode "${key}$n" >"$W/cs/fw-$mode.yaml"
			cs_bouncer $mode crowdsec-firewall-bouncer -c "$W/cs/fw-$mode.yaml"
		else
			printf '{"skipped": "%s is not installed (tools/deps.sh bench)"}\n' \
				"crowdsec-firewall-bouncer or $tool" >"$W/cs_$mode.json"
		fi
	done
	kill $lapi
	wait $lapi 2>/dev/null
	python3 -c 'import json, sys
w, n, imp_ip, imp_range = sys.argv[1:5]
print(json.dumps({"decisions": int(n), "ranges": sum(1 for _ in open(sys.argv[5])) - 1,
    "import_s": {"addresses": float(imp_ip), "ranges": float(imp_range)},
    "bouncers": {m: json.load(open(f"{w}/cs_{m}.json")) for m in ("bloom", "ipset", "nftables")}}))' \
		"$W" "$ncs" "$imp_ip" "$imp_range" "$data/cs_range.csv" \
		>"$W/crowdsec.json"
}

# ---- fail2ban ----

f2b() { fail2ban-client -c "$W/f2b" "$@"; }
fail2ban_part() {
	local action kind since pid n
	local ok=

	n=$(wc -l <"$data/f2b.txt")
	mkdir -p "$W/f2b"
	cp -r /etc/fail2ban/. "$W/f2b/"
	rm -rf "$W/f2b/jail.d" "$W/f2b/fail2ban.d" "$W/f2b/jail.local"
	cp "$W/bin/bloom.conf" "$W/f2b/action.d/bloom.conf"
	cat >"$W/f2b/filter.d/benchnone.conf" <<-EOF
	[Definition]
	failregex = ^never from <HOST>\$
	datepattern = {NONE}
	EOF
	: >"$W/f2b/empty.log"
	awk '{ print $1, 0 }' "$data/f2b.txt" >"$W/f2b_expected.txt"
	warm /usr/bin/python3 /usr/lib/python3/dist-packages/fail2ban /etc/fail2ban \
		"$(/usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')" \
		ipset nft iptables bloomctl sh
	for action in bloom iptables-ipset nftables; do
		case $action in
		bloom) kind=(bloom f2b-bench) ;;
		iptables-ipset) kind=(ipset f2b-bench) ;;
		nftables) kind=(nft inet f2b-table addr-set-bench) ;;
		esac
		rm -f "$W/f2b/f2b.db" "$W/f2b/f2b.log"
		# a database of the jail's bans, as fail2ban leaves it at a stop
		/usr/bin/python3 "$here/clients_data.py" f2b-db "$W/f2b/f2b.db" bench \
			2592000 "$data/f2b.txt" >/dev/null ||
			{ skipped fail2ban "fail2ban's database could not be made"; return; }
		cat >"$W/f2b/fail2ban.local" <<-EOF
		[Definition]
		loglevel = INFO
		logtarget = $W/f2b/f2b.log
		socket = $W/f2b/f2b.sock
		pidfile = $W/f2b/f2b.pid
		dbfile = $W/f2b/f2b.db
		EOF
		cat >"$W/f2b/jail.local" <<-EOF
		[bench]
		enabled = true
		backend = polling
		filter = benchnone
		logpath = $W/f2b/empty.log
		bantime = 2592000
		action = $action
		EOF
		since=$(now)
		cg_run "f2b-$action" fail2ban-client -c "$W/f2b" -x -f start
		pid=$!
		poll "$W/f2b_expected.txt" "$since" "$wait_s" "$pid" "${kind[@]}" >"$W/f2b_$action.json"
		say "fail2ban $action: $(cat "$W/f2b_$action.json"); restored: $(grep -c 'Restore Ban' "$W/f2b/f2b.log")"
		grep -E 'ERROR' "$W/f2b/f2b.log" | head -n 3 | sed 's/^/# f2b: /' >&2
		f2b stop >/dev/null 2>&1
		cg_stop "f2b-$action" "$pid"
		ok=1
	done
	[ -n "$ok" ] && python3 -c 'import json, sys
print(json.dumps({"bans": int(sys.argv[2]), "bantime": 2592000,
    "actions": {a: json.load(open(f"{sys.argv[1]}/f2b_{a}.json"))
                for a in ("bloom", "iptables-ipset", "nftables")}}))' "$W" "$n" >"$W/fail2ban.json"
}

# ---- sshguard ----

sshguard_part() {
	local backend kind since pid n

	n=$(wc -l <"$data/sshguard.txt")
	awk '{ print $1, 0 }' "$data/sshguard.txt" >"$W/sg_expected.txt"
	: >"$W/sg_empty.log"
	warm /usr/libexec/sshguard /usr/sbin/sshguard nft iptables bloomctl sh
	for backend in bloom nft-sets; do
		case $backend in
		bloom) kind=(bloom sshguard) ;;
		nft-sets) kind=(nft ip sshguard attackers) ;;
		esac
		# sshguard appends to its blacklist: a fresh copy for each
		cp "$data/blacklist.db" "$W/sg_blacklist.db"
		cat >"$W/sshguard.conf" <<-EOF
		BACKEND=$([ $backend = bloom ] && echo "$W/bin/sshg-fw-bloom" || echo /usr/libexec/sshguard/sshg-fw-nft-sets)
		FILES=$W/sg_empty.log
		THRESHOLD=30
		BLOCK_TIME=120
		DETECTION_TIME=1800
		BLACKLIST_FILE=120:$W/sg_blacklist.db
		EOF
		mount --bind "$W/sshguard.conf" /etc/sshguard/sshguard.conf ||
			{ skipped sshguard "cannot bind its configuration over /etc/sshguard/sshguard.conf"; return; }
		since=$(now)
		cg_run "sg-$backend" /usr/sbin/sshguard
		pid=$!
		poll "$W/sg_expected.txt" "$since" "$wait_s" "$pid" "${kind[@]}" >"$W/sg_$backend.json"
		say "sshguard $backend: $(cat "$W/sg_$backend.json")"
		cg_stop "sg-$backend" "$pid"
		umount /etc/sshguard/sshguard.conf
		clean_up sshguard sshguard sshguard sshguard6
	done
	python3 -c 'import json, sys
print(json.dumps({"addresses": int(sys.argv[2]), "backends": {b: json.load(open(f"{sys.argv[1]}/sg_{b}.json"))
    for b in ("bloom", "nft-sets")}}))' "$W" "$n" >"$W/sshguard.json"
}

for s in "$@"; do
	case $s in
	crowdsec)
		if ! command -v crowdsec >/dev/null || ! command -v crowdsec-custom-bouncer >/dev/null; then
			skipped crowdsec "crowdsec or crowdsec-custom-bouncer is not installed (tools/deps.sh bench)"
		elif [ ! -x "$BUILD/clients/crowdsec-bloom-stdin" ]; then
			skipped crowdsec "crowdsec-bloom-stdin was not built (make)"
		else
			crowdsec_part
		fi
		;;
	fail2ban)
		if command -v fail2ban-client >/dev/null; then
			fail2ban_part
		else
			skipped fail2ban "fail2ban is not installed (tools/deps.sh bench)"
		fi
		;;
	sshguard)
		if [ -x /usr/sbin/sshguard ] && [ -x /usr/libexec/sshguard/sshg-fw-nft-sets ] &&
			command -v nft >/dev/null; then
			sshguard_part
		else
			skipped sshguard "sshguard or nftables is not installed (tools/deps.sh bench)"
		fi
		;;
	*)
		say "unknown section $s"
		exit 2
		;;
	esac
done

{
python3 - "$W" "$(uname -r)" "$wait_s" "$@" <<'EOF'
import json, os, sys
w, kernel, wait = sys.argv[1:4]
out = {"guest_kernel": kernel, "wait_s": float(wait)}
for s in sys.argv[4:]:
    p = os.path.join(w, s + ".json")
    out[s] = json.load(open(p)) if os.path.exists(p) else \
        {"failed": "no result: see the part's log"}
print(json.dumps(out, indent=1))
EOF
} >&3
rm -rf "$W"
