#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs the bloom selftests INSIDE the test VM, as root, with bloom.ko loaded
# (selftests/vm/run.sh -- selftests/run_tests.sh). Output is TAP 13 in the
# kselftest runner's shape:
#
#   TAP version 13
#   1..N
#   # selftests: bloom: bloom_ioctl_abi
#   # TAP version 13            <- the program's own TAP, prefixed with "# "
#   # ...
#   ok 1 selftests: bloom: bloom_ioctl_abi
#   ...
#   ok N-2 selftests: bloom: xt_bloom       <- selftests/net/
#   ok N-1 selftests: bloom: live_allocations
#   ok N selftests: bloom: rmmod          <- bloom_unload
#
# One top-level result per program (each run under timeout(1) with the
# timeout from ./settings), then two checks of the module itself: its count
# of live allocations is back at 0, and it unloads. Exits non-zero if any
# result is "not ok".
#
# Environment: BUILD (default: ../build next to this script);
# BLOOM_SELFTESTS="bloom_batch ..." runs only those programs (and not the
# CLI test), for quick iterations; BLOOM_TEST_TIMEOUT=SECONDS replaces the
# per-program timeout of ./settings (the debug kernel needs far longer).

set -u

here=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-$(cd "$here/.." && pwd)/build}
bindir=$BUILD/selftests

timeout_s=300
if [ -r "$here/settings" ]; then
	t=$(sed -n 's/^timeout=\([0-9]\+\)$/\1/p' "$here/settings")
	[ -n "$t" ] && timeout_s=$t
fi
if [ -n "${BLOOM_TEST_TIMEOUT:-}" ]; then
	case $BLOOM_TEST_TIMEOUT in
	*[!0-9]* | 0*) echo "run_tests.sh: BLOOM_TEST_TIMEOUT must be a positive number of seconds" >&2
		exit 2 ;;
	esac
	timeout_s=$BLOOM_TEST_TIMEOUT
fi

# Order: the fast, precise ABI checks first, the long measurement last.
progs=(bloom_ioctl_abi bloom_ioctl_names bloom_ioctl_types bloom_ioctl_perms
	bloom_batch bloom_rehash bloom_rules bloom_delete bloom_concurrency bloom_accuracy bloom_scale bloom_expire bloom_map
	bloom_prefix bloom_overfill bloom_limits bloom_stress bloom_fuzz bloom_snapshot bloom_faults bloom_soak)
cli=$here/cli/test_bloomctl.sh
cli_sizing=$here/cli/test_sizing.sh
# the verbs at their edges: refusals, scalable flush, inspect, calc
cli_edges=$here/cli/test_edges.sh
# what add/test/del --ipv4/--ipv6 take; help, man page, JSON and sysfs agree
cli_feeds=$here/cli/test_feeds.sh
# keys with their own timeouts: create --exist, add --timeout, del, refusals
cli_keytimes=$here/cli/test_keytimes.sh
cli_docs=$here/cli/test_docs.sh
# crowdsec-bloom-stdin on the bouncer's lines and on bad ones
cli_crowdsec=$here/cli/test_crowdsec_stdin.sh
# stats --prometheus: the text format, info's figures, promtool
cli_stats=$here/cli/test_stats.sh
# snapshots through bloomctl; it unloads and reloads the module
snapcli=$here/cli/test_snapshot.sh
# Network namespaces, then the firewall match (it loads the netfilter
# modules and xt_bloom.ko, and unloads xt_bloom.ko again).
net=("$here/net/test_netns.sh" "$here/net/test_rootless.sh"
     "$here/net/test_netblock.sh" "$here/net/test_xt_bloom.sh"
     "$here/net/test_xt_expire.sh" "$here/net/test_bpf.sh"
     "$here/net/test_xdp_share.sh" "$here/net/test_xdp_hold.sh"
     "$here/net/test_clients.sh")
# The Debian packages (make deb) installed with apt-get, the module built by
# DKMS, metrics through node-exporter, then purged; it unloads the module
# and loads it again. Skips, saying why, without packages or tools.
deb=$here/deb/test_deb.sh
if [ -n "${BLOOM_SELFTESTS:-}" ]; then
	read -r -a progs <<<"$BLOOM_SELFTESTS"
	cli=/nonexistent
	cli_sizing=/nonexistent
	cli_edges=/nonexistent
	cli_feeds=/nonexistent
	cli_keytimes=/nonexistent
	cli_docs=/nonexistent
	cli_crowdsec=/nonexistent
	cli_stats=/nonexistent
	deb=/nonexistent
	snapcli=/nonexistent
	net=()
fi

ntests=$((${#progs[@]} + ${#net[@]} + 2))
[ -e "$cli" ] && ntests=$((ntests + 1))
[ -e "$cli_sizing" ] && ntests=$((ntests + 1))
[ -e "$cli_edges" ] && ntests=$((ntests + 1))
[ -e "$cli_feeds" ] && ntests=$((ntests + 1))
[ -e "$cli_keytimes" ] && ntests=$((ntests + 1))
[ -e "$cli_docs" ] && ntests=$((ntests + 1))
[ -e "$cli_crowdsec" ] && ntests=$((ntests + 1))
[ -e "$cli_stats" ] && ntests=$((ntests + 1))
[ -e "$deb" ] && ntests=$((ntests + 1))
[ -e "$snapcli" ] && ntests=$((ntests + 1))

num=0
failed=0

result() {	# result OK|FAIL|SKIP|TIMEOUT NAME
	num=$((num + 1))
	case $1 in
	OK)	echo "ok $num selftests: bloom: $2" ;;
	SKIP)	echo "ok $num selftests: bloom: $2 # SKIP" ;;
	TIMEOUT) echo "not ok $num selftests: bloom: $2 # TIMEOUT ${run_timeout:-$timeout_s} seconds"
		failed=1 ;;
	*)	echo "not ok $num selftests: bloom: $2 # exit=$3"
		failed=1 ;;
	esac
}

run_one() {	# run_one NAME CMD...
	local name=$1 rc
	shift
	echo "# selftests: bloom: $name"
	if [ ! -x "$1" ]; then
		echo "# Warning: $1 is missing or not executable (run 'make -C selftests')"
		result FAIL "$name" 127
		return
	fi
	# -k: a test stuck in the kernel still gets SIGKILL 10 s later.
	# Each line is prefixed as it comes, so a hang shows how far it got.
	timeout -k 10 "${run_timeout:-$timeout_s}" "$@" 2>&1 | sed -u 's/^/# /'
	rc=${PIPESTATUS[0]}
	case $rc in
	0)	result OK "$name" ;;
	4)	result SKIP "$name" ;;		# KSFT_SKIP
	124|137) result TIMEOUT "$name" ;;
	*)	result FAIL "$name" "$rc" ;;
	esac
}

echo "TAP version 13"
echo "1..$ntests"

if [ ! -c /dev/bloom ]; then
	echo "# /dev/bloom does not exist: is bloom.ko loaded?"
fi

start=$(date +%s)
for p in "${progs[@]}"; do
	t0=$(date +%s)
	run_one "$p" "$bindir/$p"
	echo "# $p took $(($(date +%s) - t0)) s"
done
if [ -e "$cli" ]; then
	# A process per check: under TCG on a loaded 2-core host the CLI test
	# alone took 243 s of 400 on a quiet machine and over 400 with load 14.
	# Each of its commands has its own limit (BLOOMCTL_TEST_TIMEOUT), so a
	# hang is still caught; the whole gets three times the programs' limit.
	prog_timeout=$timeout_s
	timeout_s=$((prog_timeout * 3))
	run_one bloomctl "$cli"
	timeout_s=$prog_timeout
fi
if [ -e "$cli_sizing" ]; then
	run_one bloomctl_sizing "$cli_sizing"
fi
if [ -e "$cli_edges" ]; then
	run_one bloomctl_edges "$cli_edges"
fi
if [ -e "$cli_feeds" ]; then
	run_one bloomctl_feeds "$cli_feeds"
fi
if [ -e "$cli_keytimes" ]; then
	run_one bloomctl_keytimes "$cli_keytimes"
fi
if [ -e "$cli_docs" ]; then
	run_one bloomctl_docs "$cli_docs"
fi
if [ -e "$cli_stats" ]; then
	run_one bloomctl_stats "$cli_stats"
fi
if [ -e "$cli_crowdsec" ]; then
	run_one crowdsec_stdin "$cli_crowdsec"
fi
if [ -e "$snapcli" ]; then
	t0=$(date +%s)
	run_one bloomctl_snapshot "$snapcli"
	echo "# bloomctl_snapshot took $(($(date +%s) - t0)) s"
fi
for t in ${net[@]+"${net[@]}"}; do
	t0=$(date +%s)
	name=$(basename "$t" .sh)
	# scenarios of many short commands and pings, and namespace teardowns
	# the kernel may take minutes over under TCG: three times the time
	run_timeout=$((timeout_s * 3)) run_one "${name#test_}" "$t"
	echo "# $name took $(($(date +%s) - t0)) s"
done
if [ -e "$deb" ]; then
	t0=$(date +%s)
	# DKMS compiles the module under TCG: over 15 minutes on a host with
	# load 10 to 15 on 2 cores (test_deb.sh prints the time it took)
	run_timeout=$((timeout_s * 9)) run_one deb_packages "$deb"
	echo "# test_deb took $(($(date +%s) - t0)) s"
fi
echo "# all programs took $(($(date +%s) - start)) s"

# The module's own leak accounting (debugfs), after every program closed its
# fds. Frees may be deferred past an RCU grace period and a deferred kobject
# release: poll, for up to a minute (a debug kernel under TCG is slow).
dbg=/sys/kernel/debug/bloom
[ -e $dbg ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
live=
for _ in $(seq 600); do
	live=$(cat $dbg/live_allocations 2>/dev/null)
	[ "$live" = 0 ] && break
	sleep 0.1
done
echo "# live_allocations=${live:-unreadable}"
if [ "$live" = 0 ]; then
	result OK live_allocations
else
	result FAIL live_allocations "${live:-unreadable}"
fi

# Unloading proves no reference (fd, filter, sysfs) is left behind;
# bloom_unload does it a moment after destroying filters, so that on a
# kernel that defers kobject releases the unload meets pending ones.
# BLOOM_UNLOAD_SETTLE: seconds it waits afterwards (guest.sh: 5).
run_one rmmod "$bindir/bloom_unload" "${BLOOM_UNLOAD_SETTLE:-0}"

exit $failed
