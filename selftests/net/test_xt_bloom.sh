#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP 13 test of the firewall match: xt_bloom.ko with libxt_bloom.so, through
# iptables-nft (nft_compat) and iptables-legacy. Two network namespaces
# joined by veth; pings from listed and unlisted sources, IPv4 and IPv6,
# every filter type, rule and filter counters, an inverted rule, a dst rule,
# iptables -S / save / restore, bad rule arguments, destroy of a filter
# that rules use, and namespace teardown. Runs as root in the VM with
# bloom.ko loaded; loads the netfilter modules and xt_bloom.ko itself and
# unloads xt_bloom.ko at the end:
#   selftests/vm/run.sh -- selftests/net/test_xt_bloom.sh

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$repo/build}
. "$here/lib.sh"

xt_env xt

command -v iptables-nft >/dev/null && command -v iptables-legacy >/dev/null ||
	{ echo "Bail out! iptables (nft and legacy) missing: tools/deps.sh"; exit 1; }
xt_load ip6_tables ip6table_filter
run rmmod bloom
check "bloom.ko cannot be unloaded while xt_bloom.ko uses it" \
	eval '[ "$rc" != 0 ] && grep -q "^bloom " /proc/modules'

mem0=$(settled $SYS/memory_used)
live0=$(settled $DBG/live_allocations)

inA() { timeout "$LIMIT" ip netns exec "$A" "$@"; }
inB() { timeout "$LIMIT" ip netns exec "$B" "$@"; }

# ping4 SRC DST / ping6 SRC DST from namespace a: 0 iff answered.
ping4() { inA ping -q -c1 -W2 -I "$1" "$2" >/dev/null 2>&1; }
ping6() { inA ping -6 -q -c1 -W2 -I "$1" "$2" >/dev/null 2>&1; }

# rule_pkts IPT: packets counted by the first rule of INPUT.
rule_pkts() { inB "$1" -L INPUT -v -n -x | awk 'NR == 3 { print $1 }'; }

# info NAME FIELD: a field of bloomctl info --json in namespace b.
info() {
	inB bloomctl info --json "$1" >"$W/json" && json_field "$W/json" "$2"
}

setup() {
	ip netns add "$A" && ip netns add "$B" &&
	ip link add va netns "$A" type veth peer name vb netns "$B" &&
	ip -n "$A" addr add 10.0.0.1/24 dev va &&
	ip -n "$A" addr add 10.0.0.2/24 dev va &&
	ip -n "$A" addr add fd00::1/64 dev va nodad &&
	ip -n "$A" addr add fd00::2/64 dev va nodad &&
	ip -n "$B" addr add 10.0.0.254/24 dev vb &&
	ip -n "$B" addr add 10.0.0.253/24 dev vb &&
	ip -n "$B" addr add fd00::fe/64 dev vb nodad &&
	ip -n "$A" link set va up && ip -n "$B" link set vb up &&
	ip -n "$A" link set lo up && ip -n "$B" link set lo up
}

# One round per iptables backend; the IPv4 and IPv6 filters' types differ
# between rounds, so that every type answers from softirq.
for round in "nft blocked standard" "legacy dleft counting"; do
	set -- $round
	be=$1 t4=$2 t6=$3
	ipt=iptables-$be ip6t=ip6tables-$be
	echo "# --- $ipt: IPv4 filter $t4, IPv6 filter $t6"
	setup || { echo "Bail out! cannot set up namespaces and veth"; exit 1; }
	check "$be: namespaces joined by veth answer pings before any rule" \
		eval 'ping4 10.0.0.1 10.0.0.254 && ping6 fd00::2 fd00::fe'

	inB bloomctl create ${P}v4 --type "$t4" --capacity 1000 --fpp 1e-6 &&
	inB bloomctl add ${P}v4 --ipv4 10.0.0.1 192.0.2.1 192.0.2.2 >/dev/null &&
	inB bloomctl create ${P}v6 --type "$t6" --capacity 1000 --fpp 1e-6 &&
	inB bloomctl add ${P}v6 --ipv6 fd00::1 2001:db8::1 >/dev/null &&
	inB bloomctl create ${P}allow --capacity 100 --fpp 1e-6 &&
	inB bloomctl add ${P}allow --ipv4 10.0.0.1 >/dev/null &&
	inB bloomctl create ${P}dst --capacity 100 --fpp 1e-6 &&
	inB bloomctl add ${P}dst --ipv4 10.0.0.253 >/dev/null
	check "$be: filters created and filled in namespace b" [ $? = 0 ]

	# --- IPv4, source address ---
	run inB $ipt -A INPUT -p icmp -m bloom --bloom-set ${P}v4 --bloom-dir src -j DROP
	check "$be: iptables -A INPUT -p icmp -m bloom --bloom-set ${P}v4 --bloom-dir src -j DROP" [ "$rc" = 0 ]
	check "$be: ping from a listed source (10.0.0.1) is dropped" eval '! ping4 10.0.0.1 10.0.0.254'
	check "$be: ping from an unlisted source (10.0.0.2) passes" ping4 10.0.0.2 10.0.0.254
	check "$be: the rule counted 1 packet" [ "$(rule_pkts $ipt)" = 1 ]
	check "$be: bloomctl info: packets 2, packet_hits 1, rules 1" \
		eval '[ "$(info ${P}v4 packets)" = 2 ] && [ "$(info ${P}v4 packet_hits)" = 1 ] && [ "$(info ${P}v4 rules)" = 1 ]'
	check "$be: sysfs in namespace b: rules 1, packets 2, packet_hits 1" \
		eval '[ "$(inB cat $SYS/filters/${P}v4/rules)" = 1 ] && [ "$(inB cat $SYS/filters/${P}v4/packets)" = 2 ] && [ "$(inB cat $SYS/filters/${P}v4/packet_hits)" = 1 ]'
	run inB bloomctl info ${P}v4
	check "$be: bloomctl info prints the rules and packets" \
		eval 'grep -q "^rules: *1 " "$W/out" && grep -q "^packets: *2 (1 may be present)" "$W/out"'
	run inB $ipt -S INPUT
	check "$be: iptables -S shows the rule as written" \
		grep -qx -- "-A INPUT -p icmp -m bloom --bloom-set ${P}v4 --bloom-dir src -j DROP" "$W/out"
	run inB $ipt -L INPUT -n
	check "$be: iptables -L shows the match" grep -q "bloom set ${P}v4 src" "$W/out"

	# --- destroy while a rule uses the filter ---
	run inB bloomctl destroy ${P}v4
	check "$be: destroy of a filter a rule uses fails and says why" \
		eval '[ "$rc" != 0 ] && grep -q "in use by firewall rules" "$W/err"'
	check "$be: and the filter is still there" inB test -e $SYS/filters/${P}v4

	# --- save and restore ---
	inB $ipt-save >"$W/saved"
	inB $ipt -S >"$W/before"
	inB $ipt -F INPUT
	run inB $ipt-restore "$W/saved"
	inB $ipt -S >"$W/after"
	check "$be: $ipt-save | $ipt-restore gives the same rules" \
		eval '[ "$rc" = 0 ] && cmp -s "$W/before" "$W/after" && grep -q -- "--bloom-set ${P}v4" "$W/after"'
	check "$be: the restored rule drops the listed source" eval '! ping4 10.0.0.1 10.0.0.254'
	check "$be: and passes the unlisted one" ping4 10.0.0.2 10.0.0.254

	# --- the filter can go once the rule has gone: nft releases it a
	# moment later, and the module's DESTROY waits for that (bloomctl
	# tries once, as any caller of the ioctl does) ---
	inB $ipt -F INPUT
	run inB bloomctl destroy ${P}v4
	check "$be: right after iptables -F, one destroy succeeds" \
		eval '[ "$rc" = 0 ] && ! inB bloomctl info ${P}v4 >/dev/null 2>&1'

	# --- a timed filter (keys with their own timeouts), one round: an
	# address added with timeout T is dropped until at least T after the
	# add and passes from T + 2^j on (2^j: the largest power of two
	# <= max(1 s, T / 16)): for T = 16 s, 17 s ---
	if [ "$be" = nft ]; then
		TT=16
		inB bloomctl create ${P}t4 --capacity 1000 --fpp 1e-6 --key-timeouts --keys ipv4 >/dev/null
		run inB $ipt -A INPUT -p icmp -m bloom --bloom-set ${P}t4 --bloom-dir src -j DROP
		check "$be: a rule on a timed filter" [ "$rc" = 0 ]
		t0=$(now)
		inB bloomctl add ${P}t4 --ipv4 10.0.0.1 --timeout ${TT}s >/dev/null
		t1=$(now)
		check "$be: timed: an address added with --timeout ${TT}s is dropped" \
			eval '! ping4 10.0.0.1 10.0.0.254'
		check "$be: timed: an unlisted one passes" ping4 10.0.0.2 10.0.0.254
		sleep_until "$(at "$t0" $((TT - 3)))"
		still_dropped "$be: timed: still dropped shortly before its timeout" \
			"$(at "$t0" $TT)" ping4 10.0.0.1 10.0.0.254
		sleep_until "$(at "$t1" $((TT + 1)))"
		check "$be: timed: passes once its timeout and the resolution (1 s) have passed" \
			ping4 10.0.0.1 10.0.0.254
		inB $ipt -F INPUT
		inB bloomctl destroy ${P}t4
	fi

	# --- inverted rule: drop everything not in the allow list ---
	run inB $ipt -A INPUT -p icmp -m bloom ! --bloom-set ${P}allow --bloom-dir src -j DROP
	check "$be: an inverted rule (! --bloom-set) is accepted" [ "$rc" = 0 ]
	check "$be: inverted: the listed source passes" ping4 10.0.0.1 10.0.0.254
	check "$be: inverted: the unlisted source is dropped" eval '! ping4 10.0.0.2 10.0.0.254'
	check "$be: inverted: the rule counted 1 packet" [ "$(rule_pkts $ipt)" = 1 ]
	check "$be: iptables -S shows the inversion" \
		eval 'inB $ipt -S INPUT | grep -qx -- "-A INPUT -p icmp -m bloom ! --bloom-set ${P}allow --bloom-dir src -j DROP"'
	inB $ipt -F INPUT

	# --- destination address ---
	run inB $ipt -A INPUT -p icmp -m bloom --bloom-set ${P}dst --bloom-dir dst -j DROP
	check "$be: a dst rule is accepted" [ "$rc" = 0 ]
	check "$be: dst: ping to the listed address (10.0.0.253) is dropped" eval '! ping4 10.0.0.2 10.0.0.253'
	check "$be: dst: ping to the unlisted address (10.0.0.254) passes" ping4 10.0.0.2 10.0.0.254
	inB $ipt -F INPUT

	# --- IPv6 ---
	run inB $ip6t -A INPUT -p ipv6-icmp --icmpv6-type echo-request -m bloom --bloom-set ${P}v6 --bloom-dir src -j DROP
	check "$be: ip6tables rule accepted" [ "$rc" = 0 ]
	check "$be: IPv6 ping from a listed source (fd00::1) is dropped" eval '! ping6 fd00::1 fd00::fe'
	check "$be: IPv6 ping from an unlisted source (fd00::2) passes" ping6 fd00::2 fd00::fe
	check "$be: the IPv6 rule counted 1 packet" [ "$(rule_pkts $ip6t)" = 1 ]
	check "$be: IPv6 filter: packets 2, packet_hits 1" \
		eval '[ "$(info ${P}v6 packets)" = 2 ] && [ "$(info ${P}v6 packet_hits)" = 1 ]'

	# --- a refused overfill: the rule still passes what is not listed ---
	# 50,000 addresses into a filter for 10 at 2e-5 would set every bit
	# (a rule on it would drop everything); the add is refused, nothing
	# is added, and the DROP rule still drops only 10.0.0.1.
	inB bloomctl create ${P}full --type blocked --capacity 10 --fpp 2e-5 --keys ipv4 >/dev/null
	inB bloomctl add ${P}full --ipv4 10.0.0.1 >/dev/null
	awk 'BEGIN { for (i = 0; i < 50000; i++) printf "100.%d.%d.1\n", i / 256, i % 256 }' >"$W/many4"
	run inB bloomctl add ${P}full --ipv4 -f "$W/many4"
	check "$be: 50,000 addresses into a filter for 10: refused (exit 3), nothing added" \
		eval '[ "$rc" = 3 ] && grep -q "nothing was added" "$W/err" && [ "$(info ${P}full adds)" = 1 ]'
	run inB $ipt -A INPUT -p icmp -m bloom --bloom-set ${P}full --bloom-dir src -j DROP
	check "$be: overfill refused: the listed source (10.0.0.1) is dropped" eval '! ping4 10.0.0.1 10.0.0.254'
	check "$be: overfill refused: the unlisted source (10.0.0.2) passes" ping4 10.0.0.2 10.0.0.254
	inB $ipt -F INPUT
	inB bloomctl destroy ${P}full

	# --- bad arguments ---
	bloomctl create ${P}initonly --capacity 10 --fpp 0.01 >/dev/null
	expect_fail "$be: a filter of another namespace is refused: no such filter here" \
		"no filter named \"${P}initonly\" in this network namespace" \
		ip netns exec "$B" $ipt -A INPUT -m bloom --bloom-set ${P}initonly -j DROP
	run bloomctl destroy ${P}initonly
	check "$be: the filter of the initial namespace is destroyed" [ "$rc" = 0 ]
	expect_fail "$be: an unknown filter is refused" \
		"no filter named \"nosuch\".*bloomctl create" \
		ip netns exec "$B" $ipt -A INPUT -m bloom --bloom-set nosuch -j DROP
	expect_fail "$be: a missing --bloom-set is refused" \
		'"--bloom-set" must be specified' \
		ip netns exec "$B" $ipt -A INPUT -m bloom --bloom-dir src -j DROP
	expect_fail "$be: a 32-character name is refused" \
		"too long: at most 31 characters" \
		ip netns exec "$B" $ipt -A INPUT -m bloom --bloom-set 0123456789abcdef0123456789abcdef -j DROP
	expect_fail "$be: an empty name is refused" "invalid filter name" \
		ip netns exec "$B" $ipt -A INPUT -m bloom --bloom-set "" -j DROP
	expect_fail "$be: an unknown direction is refused" \
		'unknown --bloom-dir "both": use src .* or dst' \
		ip netns exec "$B" $ip6t -A INPUT -m bloom --bloom-set ${P}v6 --bloom-dir both -j DROP
	check "$be: no rule was left behind by the refused ones" \
		eval '[ "$(inB $ipt -S INPUT | wc -l)" = 1 ] && [ "$(inB $ip6t -S INPUT | wc -l)" = 2 ]'

	# --- the namespace goes, with a rule still holding its filter ---
	check "$be: filters exist in b before its deletion" [ -n "$(inB bloomctl list -n)" ]
	ip netns del "$A"
	ip netns del "$B"
	# The kernel tears a namespace down in a work item of its own, after
	# nf_tables' and the devices' exits: say what it is doing if that
	# takes long.
	wait_for 30 file_is $SYS/memory_used "$mem0" || teardown_diag "$mem0"
	check "$be: deleting the namespaces frees the filters (memory_used back, within 300 s)" \
		wait_for 270 file_is $SYS/memory_used "$mem0"
done

check "live_allocations back to where they were" \
	wait_for 30 file_is $DBG/live_allocations "$live0"
run rmmod xt_bloom
check "rmmod xt_bloom" [ "$rc" = 0 ]

finish
