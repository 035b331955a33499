#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP 13 test of the firewall match on an expiring filter: a source listed
# with a timeout is dropped at every check until its timeout and passes
# once the bound (timeout x (1 + 1/(G-1))) is over; an unlisted source
# always passes; the namespace torn down with the rule, the filter and its
# running clock gives every byte back. Runs as root in the VM with bloom.ko
# loaded; loads the netfilter modules and xt_bloom.ko itself and unloads
# xt_bloom.ko at the end:
#   selftests/vm/run.sh -- selftests/net/test_xt_expire.sh

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$repo/build}
. "$here/lib.sh"

xt_env xe

command -v iptables-nft >/dev/null ||
	{ echo "Bail out! iptables-nft missing: tools/deps.sh"; exit 1; }
xt_load

mem0=$(settled $SYS/memory_used)
live0=$(settled $DBG/live_allocations)

inA() { timeout "$LIMIT" ip netns exec "$A" "$@"; }
inB() { timeout "$LIMIT" ip netns exec "$B" "$@"; }
ping4() { inA ping -q -c1 -W1 -I "$1" "$2" >/dev/null 2>&1; }
# NOW: centiseconds since boot (the module's clock counts the same way),
# without a process: under emulation every fork costs about a second
now() {
	local u
	read -r u _ </proc/uptime
	NOW=$((10#${u/./}))
}
# before T: is it before T (centiseconds)?
before() { now; [ "$NOW" -lt "$1" ]; }

ip netns add "$A" && ip netns add "$B" &&
ip link add va netns "$A" type veth peer name vb netns "$B" &&
ip -n "$A" addr add 10.0.0.1/24 dev va &&
ip -n "$A" addr add 10.0.0.2/24 dev va &&
ip -n "$B" addr add 10.0.0.254/24 dev vb &&
ip -n "$A" link set va up && ip -n "$B" link set vb up ||
	{ echo "Bail out! cannot set up namespaces and veth"; exit 1; }
check "namespaces joined by veth answer pings" ping4 10.0.0.1 10.0.0.254

# long enough for a few checks at a second or two each under emulation
T=20 G=3
run inB bloomctl create ${P}ban --type blocked --capacity 1000 --fpp 1e-6 \
	--timeout ${T}s --generations $G
check "an expiring filter (timeout $T s, $G generations) in namespace b" [ "$rc" = 0 ]
run inB iptables-nft -A INPUT -p icmp -m bloom --bloom-set ${P}ban --bloom-dir src -j DROP
check "iptables -A INPUT ... -m bloom --bloom-set ${P}ban --bloom-dir src -j DROP" [ "$rc" = 0 ]
now; t0=$NOW
run inB bloomctl add ${P}ban --ipv4 10.0.0.1
now; t1=$NOW
check "10.0.0.1 listed" [ "$rc" = 0 ]
low=$((t0 + T * 100))
# the bound, and what a late timer and the emulated VM may add
high=$((t1 + T * 100 + T * 100 / (G - 1) + 300))
dropped=0 passed=0 checks=0
while before "$low"; do
	ping4 10.0.0.1 10.0.0.254 && ok=1 || ok=0
	# a reply that came after the timeout proves nothing
	before "$low" || break
	checks=$((checks + 1))
	[ $ok = 1 ] && passed=$((passed + 1)) || dropped=$((dropped + 1))
	sleep 0.3
done
check "the listed source is dropped at every check before its timeout ($dropped of $checks)" \
	eval '[ $checks -ge 2 ] && [ $passed = 0 ]'
check "an unlisted source passes meanwhile" ping4 10.0.0.2 10.0.0.254
while before "$high" && ! ping4 10.0.0.1 10.0.0.254; do sleep 0.3; done
check "the listed source passes by the bound (timeout x (1 + 1/(G-1)) after its add)" \
	ping4 10.0.0.1 10.0.0.254
inB bloomctl info --json ${P}ban >"$W/json"
check "bloomctl info: the rule's packets were counted (packet_hits $(json_field "$W/json" packet_hits))" \
	eval '[ "$(json_field "$W/json" packet_hits)" -ge 2 ]'

# the namespace goes with its rule, its filter and the filter's clock
inB bloomctl create ${P}more --capacity 100000 --fpp 0.01 --timeout 4s --generations 16 >/dev/null
# a namespace's filters rotate 4 times a second at most
expect_fail "in a namespace, 1 s in 16 generations (66 ms periods) is refused" "." \
	inB bloomctl create ${P}fast --capacity 1000 --fpp 0.01 --timeout 1s --generations 16
ip netns del "$B"
# the kernel tears a namespace down in a work item of its own (test_xt_bloom.sh)
check "namespace teardown with running clocks gives the memory back (within 300 s)" \
	wait_for 300 file_is $SYS/memory_used "$mem0"
check "live_allocations back to where they were" \
	wait_for 30 file_is $DBG/live_allocations "$live0"
run rmmod xt_bloom
check "rmmod xt_bloom" [ "$rc" = 0 ]
finish
