# SPDX-License-Identifier: GPL-2.0
# Shared by the network tests (sourced): TAP helpers, in the style of
# selftests/cli/test_bloomctl.sh. Each test script runs as root in the VM
# with bloom.ko loaded and bloomctl on PATH.

LIMIT=${BLOOM_NET_TEST_TIMEOUT:-60}	# seconds per command
SYS=/sys/class/misc/bloom
DBG=/sys/kernel/debug/bloom		# live_allocations
[ -e $DBG ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
W=$(mktemp -d) || exit 1
n=0
failed=0

echo "TAP version 13"

. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"

# skip_all REASON: the TAP plan of a test that runs nothing, saying why,
# and exit 4 (KSFT_SKIP). For what a machine may lack: a program that
# could not be built, a tool not installed, BTF.
skip_all() {
	echo "1..0 # SKIP $1"
	exit 4
}

# skip_without REASON FILE...: skip_all REASON unless every FILE exists.
skip_without() {
	local reason=$1 f

	shift
	for f in "$@"; do
		[ -e "$f" ] || skip_all "$reason"
	done
}

# run CMD...: bounded in time, output in $W/out and $W/err, status in $rc.
# A shell function as CMD bounds its commands itself.
run() {
	if declare -F "$1" >/dev/null; then
		"$@" >"$W/out" 2>"$W/err"
	else
		timeout "$LIMIT" "$@" >"$W/out" 2>"$W/err"
	fi
	rc=$?
}

# expect_fail DESC REGEX CMD...: CMD fails and says something matching REGEX
# on stderr.
expect_fail() {
	desc=$1 re=$2
	shift 2
	run "$@"
	if [ "$rc" != 0 ] && grep -Eq -- "$re" "$W/err"; then
		ok "$desc"
	else
		not_ok "$desc (want failure, stderr matching /$re/)"
	fi
}

# json_field FILE KEY: a top-level number of bloomctl info --json.
json_field() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}

# now: seconds since the epoch, to the ns; sleep_until T: sleeps until then
# (at once when T has passed). For timeouts measured from an add. at T D:
# the time D seconds after T (printf: awk's print would round to 6 digits).
now() { date +%s.%N; }
sleep_until() {
	sleep "$(awk -v t="$1" -v n="$(now)" 'BEGIN { d = t - n; printf "%.3f", (d > 0 ? d : 0) }')"
}
at() { awk -v t="$1" -v d="$2" 'BEGIN { printf "%.3f", t + d }'; }
# before T: now is before T
before() { awk -v t="$1" -v n="$(now)" 'BEGIN { exit !(n < t) }'; }

# still_dropped DESC DEADLINE PING...: the ping PING (a function that
# succeeds when answered) from a listed address must go unanswered while
# the address is listed, until DEADLINE. Answered and back before DEADLINE,
# it was sent before then: not ok. Answered and back after it, it may have
# been sent after it (a slow machine): SKIP, it proves nothing.
still_dropped() {
	local desc=$1 deadline=$2

	shift 2
	if ! "$@"; then
		ok "$desc"
	elif before "$deadline"; then
		not_ok "$desc: answered, and back before the deadline"
	else
		ok "$desc # SKIP the ping came back only after the deadline: too slow to tell"
	fi
}

# file_is FILE VALUE: FILE (a number in sysfs or debugfs) reads VALUE. For
# wait_for, which calls it again at every poll: a "$(cat FILE)" written in
# wait_for's arguments is expanded once, before the first, and a value that
# was not yet back then never is (on the debug kernel, whose deferred frees
# come 1-4 s late, such waits failed after their whole bound).
file_is() {
	local v

	read -r v <"$1" 2>/dev/null && [ "$v" = "$2" ]
}

# settled FILE: what FILE (memory_used or live_allocations) reads once the
# tests before this one are done with it, for a test to compare with at its
# end. A destroyed filter's struct goes with its kobject's release, after an
# RCU grace period, and DEBUG_KOBJECT_RELEASE delays each release by 1-4 s;
# a filter a rule holds goes with its namespace, in the kernel's own time.
# A count read while such frees were pending would never come back.
# Returns as soon as FILE reads 0 (nothing left: the usual case), else once
# it has not changed for 8 s, at most 120 s.
settled() {
	local last now same=0 i=0

	read -r last <"$1"
	while [ "$last" != 0 ] && [ $same -lt 80 ] && [ $i -lt 1200 ]; do
		sleep 0.1
		read -r now <"$1"
		if [ "$now" = "$last" ]; then
			same=$((same + 1))
		else
			same=0
			last=$now
		fi
		i=$((i + 1))
	done
	echo "$last"
}

# teardown_diag WANT: what the kernel is doing when memory_used has not
# come back to WANT 30 s after a namespace was deleted (the kernel tears a
# namespace down in a work item of its own, after every pernet exit).
teardown_diag() {
	local t

	echo "# after 30 s: memory_used $(cat $SYS/memory_used), waiting for $1"
	echo "# filters of the initial namespace: $(bloomctl list -n | tr '\n' ' ')"
	echo "# network namespaces: $(ip netns | tr '\n' ' ')"
	for t in /proc/[0-9]*/task/[0-9]*; do
		grep -q 'cleanup_net\|netdev_wait\|rcu_barrier\|nf_tables' \
			"$t/stack" 2>/dev/null || continue
		echo "# task ${t##*/} ($(cat "$t/comm")):"
		sed 's/^/#   /' "$t/stack"
	done
	dmesg | tail -n 15 | sed 's/^/# dmesg: /'
}

# xt_env PREFIX: the firewall tests' setting: namespaces $A and $B and
# filters named PREFIX$$*, all removed at exit; xt_bloom.ko ($XTMOD) and
# libxt_bloom.so of this tree ($BUILD, set by the caller).
xt_env() {
	local sysdir

	P=$1$$
	A=${P}a B=${P}b
	XTMOD=${XT_BLOOM_KO:-$repo/xt_bloom.ko}
	sysdir=$(pkg-config --variable=xtlibdir xtables 2>/dev/null)
	export XTABLES_LIBDIR=$BUILD/xt:${sysdir:-/usr/lib/x86_64-linux-gnu/xtables}
	trap xt_cleanup EXIT
	trap 'exit 130' INT TERM
}

# xt_load [MODULE...]: what the match needs: libxt_bloom.so of this tree,
# the netfilter and veth modules (and MODULEs: ip6_tables ip6table_filter
# for IPv6 rules), then xt_bloom.ko. The VM does not autoload modules; the
# debug kernel (selftests/debug-kernel/) has them built in and no
# /lib/modules directory.
xt_load() {
	local t

	[ -e "$BUILD/xt/libxt_bloom.so" ] ||
		{ echo "Bail out! $BUILD/xt/libxt_bloom.so missing: run make"; exit 1; }
	if [ -d "/lib/modules/$(uname -r)" ]; then
		modprobe -a veth nf_tables nft_compat x_tables ip_tables iptable_filter \
			"$@" 2>"$W/err"
		check "netfilter and veth modules load" [ $? = 0 ]
	else
		for t in ip_tables $(printf '%s\n' "$@" | grep -x ip6_tables); do
			check "netfilter is built in ($t)" [ -e /proc/net/${t}_names ]
		done
	fi
	if ! grep -q '^xt_bloom ' /proc/modules; then
		insmod "$XTMOD" 2>"$W/err"
		check "insmod xt_bloom.ko" [ $? = 0 ]
	fi
}

xt_cleanup() {
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
	for f in $(bloomctl list -n 2>/dev/null | grep "^$P"); do
		bloomctl destroy "$f" >/dev/null 2>&1
	done
	rm -rf "$W"
}

finish() {
	echo "1..$n"
	[ "$failed" = 0 ]
	exit $?
}

[ -c /dev/bloom ] || { echo "Bail out! /dev/bloom missing: load bloom.ko first"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "Bail out! must run as root"; exit 1; }
command -v bloomctl >/dev/null || { echo "Bail out! bloomctl not on PATH"; exit 1; }
