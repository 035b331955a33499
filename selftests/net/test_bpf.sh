#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP 13 test of the kfuncs (module/bpf.c) and bloom-xdp (tools/xdp/):
# lookups through BPF_PROG_TEST_RUN (XDP and tc, keys and addresses,
# netblocks, every type, the counters, sizes the calls refuse, the id
# after swap and restore --replace, a destroyed filter, another network
# namespace), a program the verifier refuses, pings from listed and
# unlisted IPv4 and IPv6 sources through bloom-xdp attached alone
# (--direct: ip netns exec mounts no BPF filesystem, which libxdp's
# dispatcher needs; test_xdp_share.sh tests that path) in native and
# generic mode and through a tc program, destroy refused for a filter
# bloom-xdp holds (with a bloom-xdp built without holds: a filter
# destroyed under a running program), the filters looked up through the
# holds, rmmod refused while a program is
# attached, and a module without BTF. Runs as root in the VM with bloom.ko loaded:
#   selftests/vm/run.sh -- selftests/net/test_bpf.sh

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$repo/build}
. "$here/lib.sh"

MOD=${BLOOM_MODFILE:-/run/bloom-vm/bloom.ko}
RUN=$BUILD/selftests/bloom_bpf_run
BPFTOOL=$(command -v bpftool || echo /usr/sbin/bpftool)
XDP=$BUILD/bin/bloom-xdp
# namespaces $A and $B, filters named $P*: removed at exit (xt_cleanup)
xt_env bpf

# Only a machine that cannot build BPF programs skips (4: KSFT_SKIP) (tools/deps.sh
# installs clang, bpftool and libbpf-dev); a module without BTF fails.
skip_without "bloom_bpf_run or bloom-xdp not built (clang, bpftool, libbpf-dev: tools/deps.sh)" \
	"$RUN" "$XDP"
skip_without "the kernel has no BTF (CONFIG_DEBUG_INFO_BTF): no kfuncs" \
	/sys/kernel/btf/vmlinux

live0=$(settled $DBG/live_allocations)

id_of() { cat "$SYS/filters/$1/id"; }
sysv() { cat "$SYS/filters/$1/$2"; }

# is WANT CMD...: CMD prints WANT (a kfunc's result).
is() {
	local want=$1
	shift
	run "$@"
	[ "$rc" = 0 ] && [ "$(cat "$W/out")" = "$want" ]
}

check "bloom.ko has BTF (/sys/kernel/btf/bloom): built with tools/btf.sh" \
	test -e /sys/kernel/btf/bloom

# --- lookups through BPF_PROG_TEST_RUN ---------------------------------------
bloomctl create ${P}s --capacity 1000 --fpp 1e-6 >/dev/null &&
	bloomctl add ${P}s alpha >/dev/null
S=$(id_of ${P}s)
check "a filter has an id in sysfs, info and info --json" \
	eval '[ "$S" -ge 1 ] && bloomctl info ${P}s | grep -q "^id: *$S " &&
	      bloomctl info --json ${P}s | grep -q "\"id\": $S,"'
check "list --json has the id" \
	eval 'bloomctl list --json | grep -q "\"id\": $S,"'
check "xdp query: an added key is present (1)" is 1 "$RUN" run xdp query "$S" alpha
check "xdp query: a key never added is absent (0)" is 0 "$RUN" run xdp query "$S" beta
check "tc query: an added key is present (1)" is 1 "$RUN" run tc query "$S" alpha
check "tc query: a key never added is absent (0)" is 0 "$RUN" run tc query "$S" beta
check "bpf_calls 4, bpf_hits 2 (sysfs and info --json)" \
	eval '[ "$(sysv ${P}s bpf_calls)" = 4 ] && [ "$(sysv ${P}s bpf_hits)" = 2 ] &&
	      bloomctl info --json ${P}s | grep -q "\"bpf_calls\": 4," &&
	      bloomctl info --json ${P}s | grep -q "\"bpf_hits\": 2,"'
check "key size 0: -EINVAL" is -22 "$RUN" run xdp query "$S" "" 0
check "key size BLOOM_KEY_MAX + 1: -EINVAL" is -22 "$RUN" run tc query "$S" "" 4097
check "key size BLOOM_KEY_MAX: looked up (0)" is 0 "$RUN" run xdp query "$S" "" 4096
check "an address of 5 bytes: -EINVAL" is -22 "$RUN" run xdp addr "$S" hex:0a00000108
check "refused sizes are not counted" \
	eval '[ "$(sysv ${P}s bpf_calls)" = 5 ]'
check "an id no filter has: -ENOENT" is -2 "$RUN" run xdp query 2147483647 alpha
check "id 0: -ENOENT" is -2 "$RUN" run tc query 0 alpha

bloomctl create ${P}n4 --capacity 1000 --fpp 1e-6 >/dev/null &&
	bloomctl add ${P}n4 --ipv4 10.0.0.0/8 192.0.2.1 >/dev/null
bloomctl create ${P}n6 --capacity 1000 --fpp 1e-6 >/dev/null &&
	bloomctl add ${P}n6 --ipv6 2001:db8::/32 fd00::1 >/dev/null
N4=$(id_of ${P}n4) N6=$(id_of ${P}n6)
check "xdp address: inside a listed /8 (1)" is 1 "$RUN" run xdp addr "$N4" 10.1.2.3
check "tc address: a listed address (1)" is 1 "$RUN" run tc addr "$N4" 192.0.2.1
check "xdp address: unlisted (0)" is 0 "$RUN" run xdp addr "$N4" 192.0.2.2
check "tc address: outside the /8 (0)" is 0 "$RUN" run tc addr "$N4" 11.0.0.1
check "xdp IPv6 address: inside a listed /32 (1)" is 1 "$RUN" run xdp addr "$N6" 2001:db8::1
check "tc IPv6 address: unlisted (0)" is 0 "$RUN" run tc addr "$N6" 2001:db9::1
check "a query of the address key itself, no netblocks (1)" \
	is 1 "$RUN" run xdp query "$N4" 192.0.2.1

for t in blocked counting dleft standard+scalable blocked+scalable \
	standard+expiring blocked+expiring timed; do
	case $t in
	*+scalable) opt="--type ${t%+*} --scalable" ;;
	*+expiring) opt="--type ${t%+*} --timeout 1h" ;;
	timed) opt="--key-timeouts" ;;
	*) opt="--type $t" ;;
	esac
	bloomctl create ${P}t $opt --capacity 100 --fpp 1e-6 >/dev/null &&
		bloomctl add ${P}t k1 k2 k3 >/dev/null
	T=$(id_of ${P}t)
	check "$t: added keys present, others absent (xdp and tc)" \
		eval 'is 1 "$RUN" run xdp query "$T" k2 && is 1 "$RUN" run tc query "$T" k3 &&
		      is 0 "$RUN" run xdp query "$T" k4'
	bloomctl destroy ${P}t
done

# --- the id names the filter: swap, restore --replace, destroy ----------------
bloomctl create ${P}s2 --capacity 1000 --fpp 1e-6 >/dev/null &&
	bloomctl add ${P}s2 gamma >/dev/null
S2=$(id_of ${P}s2)
check "two filters, two ids" test "$S" != "$S2"
run bloomctl swap ${P}s ${P}s2
check "swap: both keep their ids" \
	eval '[ "$rc" = 0 ] && [ "$(id_of ${P}s)" = "$S" ] && [ "$(id_of ${P}s2)" = "$S2" ]'
check "swap: the id answers for the new contents" \
	eval 'is 1 "$RUN" run xdp query "$S" gamma && is 0 "$RUN" run xdp query "$S" alpha &&
	      is 1 "$RUN" run tc query "$S2" alpha'
run bloomctl save ${P}s "$W/s.snap"
bloomctl add ${P}s delta >/dev/null
check "before the restore: delta present" is 1 "$RUN" run xdp query "$S" delta
run bloomctl restore "$W/s.snap" --replace
check "restore --replace: the id stays" \
	eval '[ "$rc" = 0 ] && [ "$(id_of ${P}s)" = "$S" ]'
check "restore --replace: the id answers for the restored contents" \
	eval 'is 0 "$RUN" run xdp query "$S" delta && is 1 "$RUN" run tc query "$S" gamma'
bloomctl destroy ${P}s
check "a destroyed filter's id: -ENOENT (xdp and tc)" \
	eval 'is -2 "$RUN" run xdp query "$S" gamma && is -2 "$RUN" run tc query "$S" gamma'
bloomctl create ${P}s3 --capacity 10 --fpp 0.01 >/dev/null
check "a new filter does not get the destroyed filter's id" \
	eval '[ "$(id_of ${P}s3)" != "$S" ] && is -2 "$RUN" run xdp query "$S" gamma'

# --- network namespaces -------------------------------------------------------
modprobe veth 2>/dev/null
ip netns add "$A" && ip netns add "$B"
inA() { timeout "$LIMIT" ip netns exec "$A" "$@"; }
inB() { timeout "$LIMIT" ip netns exec "$B" "$@"; }
check "another namespace cannot reach a filter by its id (-ENOENT)" \
	eval 'is -2 inA "$RUN" run xdp addr "$N4" 10.1.2.3 && is -2 inA "$RUN" run tc query "$S2" alpha'
inA bloomctl create ${P}x --capacity 100 --fpp 1e-6 >/dev/null &&
	inA bloomctl add ${P}x --ipv4 10.1.2.3 >/dev/null
X=$(inA cat $SYS/filters/${P}x/id)
check "a filter of namespace a answers there by its id" \
	is 1 inA "$RUN" run xdp addr "$X" 10.1.2.3
check "namespace a's id in the initial namespace is not a's filter" \
	eval 'run "$RUN" run xdp addr "$X" 10.1.2.3; [ "$(cat $W/out)" != 1 ] || [ "$X" = "$N4" ]'

# --- pings through bloom-xdp and a tc program ----------------------------------
ip link add va netns "$A" type veth peer name vb netns "$B" &&
	inA ip addr add 10.9.0.1/24 dev va && inA ip addr add 10.9.0.3/24 dev va &&
	inB ip addr add 10.9.0.2/24 dev vb &&
	inA ip addr add fd09::1/64 dev va nodad && inA ip addr add fd09::3/64 dev va nodad &&
	inB ip addr add fd09::2/64 dev vb nodad &&
	inA ip link set va up && inB ip link set vb up &&
	inA ip link set lo up && inB ip link set lo up
check "veth pair between namespaces a and b" [ $? = 0 ]
# Permanent neighbours: no solicitation carries a listed source.
mac=$(inB cat /sys/class/net/vb/address)
inA ip -6 neigh replace fd09::2 lladdr "$mac" dev va nud permanent
inB bloomctl create ${P}d4 --capacity 1000 --fpp 1e-6 >/dev/null &&
	inB bloomctl add ${P}d4 --ipv4 10.9.0.1 >/dev/null &&
	inB bloomctl create ${P}d6 --capacity 1000 --fpp 1e-6 >/dev/null &&
	inB bloomctl add ${P}d6 --ipv6 fd09::1 >/dev/null
check "filters of namespace b" [ $? = 0 ]
ping4() { inA ping -q -c1 -W2 -I "$1" 10.9.0.2 >/dev/null 2>&1; }
ping6() { inA ping -6 -q -c1 -W2 -I "$1" fd09::2 >/dev/null 2>&1; }
# stat DEV COLUMN: a counter of bloom-xdp show (5: packets ... 8: errors)
stat() { inB "$XDP" show | awk -v d="$1" -v c="$2" '$1 == d { print $(c + 3) }'; }
# Both pings from listed sources fail and both from unlisted ones get
# through, with DESC.
# Unlisted first: a neighbour solicitation for a queued packet from a
# listed source carries that source and is dropped, stalling what waits
# behind it.
pings() {
	check "$1: IPv4 from an unlisted source passes" ping4 10.9.0.3
	check "$1: IPv4 from a listed source dropped" eval '! ping4 10.9.0.1'
	check "$1: IPv6 from an unlisted source passes" ping6 fd09::3
	check "$1: IPv6 from a listed source dropped" eval '! ping6 fd09::1'
}
for mode in native generic; do
	run inB "$XDP" attach vb --set ${P}d4 --set ${P}d6 --mode $mode --direct
	check "bloom-xdp attach vb --mode $mode --direct" [ "$rc" = 0 ]
	# a bloom-xdp built without holds says so at attach
	nohold=$(grep -o "built without filter holds.*" "$W/err")
	if [ -z "$nohold" ]; then
		check "XDP $mode: both filters held, on vb (info: xdp holds)" \
			eval 'inB bloomctl info ${P}d4 | grep -q "^xdp holds: *1 .*on vb)" &&
			      inB bloomctl info ${P}d6 | grep -q "^xdp holds: *1 .*on vb)"'
	else
		ok "XDP $mode: both filters held # SKIP $nohold"
	fi
	# which path runs: the kfunc the loaded program calls (bpftool names
	# kernel calls from kallsyms), and what attach says
	if [ -z "$nohold" ]; then
		check "XDP $mode: the program looks its filters up through the holds" \
			eval 'grep -q "looked up through their holds" "$W/out" &&
			      "$BPFTOOL" prog dump xlated name bloom_xdp | grep -q "call bpf_bloom_hold_lookup_addr" &&
			      ! "$BPFTOOL" prog dump xlated name bloom_xdp | grep -q "call bpf_bloom_xdp_lookup_addr"'
	else
		ok "XDP $mode: looked up through the holds # SKIP $nohold"
	fi
	check "bloom-xdp show: vb, $mode, alone, both filters" \
		eval 'inB "$XDP" show | grep -Eq "^vb +$mode +alone +${P}d4\([0-9]+\) +${P}d6\([0-9]+\) +src +drop"'
	pings "XDP $mode"
	# IPv6 neighbour solicitations from the listed source are dropped too
	check "XDP $mode: listed frames counted and dropped, no lookup failed" \
		eval '[ "$(stat vb 6)" -ge 2 ] && [ "$(stat vb 7)" = "$(stat vb 6)" ] &&
		      [ "$(stat vb 8)" = 0 ]'
	run inB "$XDP" attach vb --set ${P}d4 --direct
	check "a second attach is refused while one is attached" \
		eval '[ "$rc" != 0 ] && grep -q "detach" "$W/err"'
	run inB "$XDP" detach vb
	check "bloom-xdp detach vb" [ "$rc" = 0 ]
	check "after detach: IPv4 from a listed source passes" ping4 10.9.0.1
done
check "the filters count the programs' hits (bpf_hits)" \
	eval '[ "$(inB cat $SYS/filters/${P}d4/bpf_hits)" -ge 2 ] &&
	      [ "$(inB cat $SYS/filters/${P}d6/bpf_hits)" -ge 2 ]'
# A timed filter: an address added with its own timeout T is dropped until
# at least T after the add, and passes from T + 2^j on, 2^j the largest
# power of two <= max(1 s, T / 16): for T = 16 s, 17 s.
TT=16
inB bloomctl create ${P}dt --capacity 1000 --fpp 1e-6 --key-timeouts --keys ipv4 >/dev/null
run inB "$XDP" attach vb --set ${P}dt --mode generic --direct
check "bloom-xdp attach vb on a timed filter" [ "$rc" = 0 ]
t0=$(now)
inB bloomctl add ${P}dt --ipv4 10.9.0.1 --timeout ${TT}s >/dev/null
t1=$(now)
DT=$(inB cat $SYS/filters/${P}dt/id)
check "timed: the kfunc finds an address added with --timeout ${TT}s (1)" \
	is 1 inB "$RUN" run xdp addr "$DT" 10.9.0.1
check "timed: bloom-xdp drops its IPv4" eval '! ping4 10.9.0.1'
# present until at least TT after the add began (t0)
sleep_until "$(at "$t0" $((TT - 3)))"
still_dropped "timed: still dropped shortly before its timeout" "$(at "$t0" $TT)" \
	ping4 10.9.0.1
sleep_until "$(at "$t1" $((TT + 1)))"
check "timed: passes once its timeout and the resolution (1 s) have passed" \
	ping4 10.9.0.1
check "timed: the kfunc finds it absent (0)" \
	is 0 inB "$RUN" run xdp addr "$DT" 10.9.0.1
run inB "$XDP" detach vb
inB bloomctl destroy ${P}dt

run inB "$XDP" attach vb --set ${P}d4 --dir dst --pass --direct
check "attach --dir dst --pass" [ "$rc" = 0 ]
check "--pass drops nothing" ping4 10.9.0.1
run inB "$XDP" detach vb
# bloom-xdp holds the filters its program uses: destroy refuses them until
# detach. One built without holds lets destroy take the filter away from
# under its program, which then looks up a filter that is gone.
run inB "$XDP" attach vb --set ${P}d4 --mode generic --direct
if [ -z "$nohold" ]; then
	run inB bloomctl destroy ${P}d4
	check "a filter bloom-xdp uses: destroy refused, naming the device and bloom-xdp detach" \
		eval '[ "$rc" != 0 ] &&
		      grep -q "in use by an XDP program on vb (detach it first: bloom-xdp detach vb)" "$W/err"'
	check "... and the program drops on" eval '! ping4 10.9.0.1'
	skipped="bloom-xdp holds its filter: destroy refuses it"
	ok "a destroyed filter: the program runs on, frames pass # SKIP $skipped"
	ok "a destroyed filter: bloom-xdp show counts the errors # SKIP $skipped"
else
	ok "a filter bloom-xdp uses: destroy refused # SKIP $nohold"
	ok "... and the program drops on # SKIP $nohold"
	inB bloomctl destroy ${P}d4
	check "a destroyed filter: the program runs on, frames pass" ping4 10.9.0.1
	check "a destroyed filter: bloom-xdp show counts the errors" \
		eval '[ "$(stat vb 8)" -ge 1 ]'
fi
run rmmod bloom
check "rmmod bloom is refused while an XDP program uses its kfuncs" \
	eval '[ "$rc" != 0 ] && grep -q "^bloom " /proc/modules'
run inB "$XDP" detach vb
if [ -z "$nohold" ]; then
	run inB bloomctl destroy ${P}d4
	check "after detach, destroy works" [ "$rc" = 0 ]
else
	ok "after detach, destroy works # SKIP $nohold"
fi

run inB "$RUN" tc-attach vb "$(inB cat $SYS/filters/${P}d6/id)"
check "tc program on vb's ingress" [ "$rc" = 0 ]
check "tc: IPv6 from an unlisted source passes" ping6 fd09::3
check "tc: IPv6 from a listed source dropped" eval '! ping6 fd09::1'
check "tc: IPv4 passes (the filter holds IPv6 keys)" ping4 10.9.0.1
run rmmod bloom
check "rmmod bloom is refused while a tc program uses its kfuncs" \
	eval '[ "$rc" != 0 ] && grep -q "^bloom " /proc/modules'
run inB "$RUN" tc-detach vb
check "tc program removed" [ "$rc" = 0 ]

# --- the verifier ---------------------------------------------------------------
run "$RUN" bad
check "the verifier refuses 8 bytes of a 4-byte key" \
	eval '[ "$rc" = 0 ] && grep -q "invalid" "$W/out"'

# --- unload, a module without BTF, load again ----------------------------------
xt_cleanup
W=$(mktemp -d)
check "every filter and allocation is freed" \
	wait_for 30 file_is $DBG/live_allocations "$live0"
if grep -q '^xt_bloom ' /proc/modules; then
	ok "unload and a module without BTF # SKIP xt_bloom.ko holds bloom.ko"
else
	check "once every program is gone, rmmod bloom works" wait_for 30 rmmod bloom
	objcopy --remove-section=.BTF "$MOD" "$W/nobtf.ko" &&
		dmesg -C && insmod "$W/nobtf.ko"
	check "a module without BTF loads" [ $? = 0 ]
	check "... and says once that BPF programs cannot call its kfuncs" \
		eval '[ "$(dmesg | grep -c "without BTF.*kfuncs")" = 1 ]'
	bloomctl create ${P}z --capacity 10 --fpp 0.01 >/dev/null
	check "... and works: create, id" eval '[ "$(id_of ${P}z)" -ge 1 ]'
	run "$RUN" run xdp query "$(id_of ${P}z)" alpha
	check "... but a program calling the kfuncs does not load" [ "$rc" != 0 ]
	bloomctl destroy ${P}z
	check "rmmod and insmod the module with BTF" \
		eval 'rmmod bloom && insmod "$MOD" && [ -e /sys/kernel/btf/bloom ]'
fi

finish
