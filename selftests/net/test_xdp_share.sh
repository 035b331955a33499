#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP 13 test of bloom-xdp beside other XDP programs through libxdp's
# dispatcher, with Debian's xdp-tools: bloom-xdp and xdp-filter on one veth,
# each dropping the sources it lists (pings from an address bloom lists,
# one xdp-filter lists, one both list and one neither lists), attached and
# detached in every order, in native and in generic mode; xdp-loader status
# lists both; the filter bloom-xdp uses held while its program runs beside
# xdp-filter (destroy refused, saying where to detach; destroy works after
# the detach, and every allocation is freed); a program of bloom's name that is not bloom's (its read-only
# data larger than bloom's) left alone by show and detach, under the
# dispatcher and alone; the device moved to another namespace, noticed by
# show (a program that looks its filter up through its hold keeps that
# filter; one by id finds none). bloom-xdp under the dispatcher looks its
# filter up through its hold; run under ip netns exec, where the BPF
# filesystem is hidden, it says to use nsenter. Runs as root in the VM with
# bloom.ko loaded:
#   selftests/vm/run.sh -- selftests/net/test_xdp_share.sh
#
# libxdp pins its dispatcher in the BPF filesystem, which "ip netns exec"
# hides (it mounts a /sys of its own): the commands that attach run under
# nsenter --net, in this mount namespace, where the test mounts it.

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$repo/build}
. "$here/lib.sh"

XDP=$BUILD/bin/bloom-xdp
IMPOSTOR=$BUILD/selftests/bloom_xdp_impostor.bpf.o
BPFFS=/sys/fs/bpf
# namespaces $A and $B, filters named $P*: removed at exit (share_cleanup)
xt_env xdps

# What this test needs and a machine may lack: it skips, saying which.
skip_without "bloom-xdp or the impostor program not built (clang, bpftool, libbpf-dev, libxdp-dev: tools/deps.sh)" \
	"$XDP" "$IMPOSTOR"
command -v xdp-filter >/dev/null && command -v xdp-loader >/dev/null ||
	skip_all "xdp-filter and xdp-loader not installed (Debian's xdp-tools: tools/deps.sh)"
skip_without "no kernel or module BTF: no kfuncs, no dispatcher (freplace needs BTF)" \
	/sys/kernel/btf/vmlinux /sys/kernel/btf/bloom
mounted_bpffs=
if [ "$(stat -f -c %T $BPFFS 2>/dev/null)" != bpf_fs ]; then
	mount -t bpf bpf $BPFFS 2>"$W/err" ||
		skip_all "cannot mount the BPF filesystem at $BPFFS: $(cat "$W/err")"
	mounted_bpffs=1
fi
[ -d "/lib/modules/$(uname -r)" ] && modprobe veth 2>/dev/null

share_cleanup() {
	local ns dev

	for ns in "$A" "$B"; do
		for dev in va vb; do
			nsenter --net=/run/netns/$ns ip link set dev $dev xdp off 2>/dev/null
			nsenter --net=/run/netns/$ns ip link set dev $dev xdpgeneric off 2>/dev/null
		done
	done
	rm -rf $BPFFS/xdp-filter $BPFFS/xdp/dispatch-* 2>/dev/null
	xt_cleanup
	[ -n "$mounted_bpffs" ] && umount $BPFFS
}
trap share_cleanup EXIT

inA() { timeout "$LIMIT" nsenter --net=/run/netns/"$A" "$@"; }
inB() { timeout "$LIMIT" nsenter --net=/run/netns/"$B" "$@"; }

ip netns add "$A" && ip netns add "$B" &&
	ip link add va netns "$A" type veth peer name vb netns "$B" &&
	inA ip addr add 10.9.0.1/24 dev va && inA ip addr add 10.9.0.3/24 dev va &&
	inA ip addr add 10.9.0.4/24 dev va && inA ip addr add 10.9.0.5/24 dev va &&
	inB ip addr add 10.9.0.2/24 dev vb &&
	inA ip link set va up && inB ip link set vb up &&
	inA ip link set lo up && inB ip link set lo up
check "veth pair between namespaces a and b" [ $? = 0 ]
live0=$(settled $DBG/live_allocations)
# bloom lists .1 and .5, xdp-filter .3 and .5; nobody lists .4
new_filter() {
	inB bloomctl create ${P}d4 --capacity 1000 --fpp 1e-6 >/dev/null &&
		inB bloomctl add ${P}d4 --ipv4 10.9.0.1 10.9.0.5 >/dev/null
}
new_filter
check "a filter of namespace b" [ $? = 0 ]

ping4() { inA ping -q -c1 -W2 -I "$1" 10.9.0.2 >/dev/null 2>&1; }
# status: the programs xdp-loader status lists on vb, by name, sorted
status() {
	inB xdp-loader status vb | awk '/bloom_xdp|xdpfilt_/ {
		for (i = 1; i <= NF; i++) if ($i ~ /^(bloom_xdp|xdpfilt_)/) print $i }' |
		sed 's/^xdpfilt_.*/xdp-filter/' | sort | tr '\n' ' '
}

# state WHAT BLOOM FILTER: with bloom-xdp attached or not (1/0) and
# xdp-filter loaded or not, xdp-loader status lists what runs, and the
# pings from each source pass or are dropped as the programs list them.
state() {
	local what=$1 b=$2 f=$3 want= src

	[ "$b" = 1 ] && want="bloom_xdp "
	[ "$f" = 1 ] && want="${want}xdp-filter "
	check "$what: xdp-loader status lists '${want:-nothing}'" \
		eval '[ "$(status)" = "$want" ]'
	# unlisted first: its ARP exchange must not wait behind a drop
	check "$what: a source neither lists passes" ping4 10.9.0.4
	for src in 1:$b 3:$f 5:$((b | f)); do
		if [ "${src#*:}" = 1 ]; then
			check "$what: 10.9.0.${src%%:*} dropped" eval '! ping4 10.9.0.${src%%:*}'
		else
			check "$what: 10.9.0.${src%%:*} passes" ping4 10.9.0.${src%%:*}
		fi
	done
}

# under ip netns exec: the BPF filesystem hidden, the message says nsenter
netns_exec_hint() {
	run ip netns exec "$B" "$XDP" attach vb --set ${P}d4
	check "bloom-xdp under ip netns exec: refused, saying to use nsenter --net=/run/netns/$B" \
		eval '[ "$rc" != 0 ] && grep -q "nsenter --net=/run/netns/$B instead of ip netns exec $B" "$W/err"'
}

# nohold: why bloom-xdp does not hold its filters (it says so at attach
# when it was built without), else empty
bloom_on() {
	run inB "$XDP" attach vb --set ${P}d4 --mode "$1"
	check "bloom-xdp attach --mode $1 (beside: $2)" \
		eval '[ "$rc" = 0 ] && grep -q "libxdp.s dispatcher, priority 20" "$W/out"'
	nohold=$(grep -o "built without filter holds.*" "$W/err")
	byhold=$(grep -o "looked up through their holds" "$W/out")
	if [ -z "$nohold" ]; then
		check "bloom-xdp under the dispatcher looks its filter up through its hold ($2)" \
			grep -q "looked up through their holds" "$W/out"
	else
		ok "bloom-xdp looks its filter up through its hold # SKIP $nohold"
	fi
}
# held WHAT: bloom-xdp runs: destroy of its filter is refused (EBUSY, which
# bloomctl explains), naming the device and the command that detaches it
held() {
	if [ -n "$nohold" ]; then
		ok "$1: destroy of the filter bloom-xdp uses is refused # SKIP $nohold"
		return
	fi
	run inB bloomctl destroy ${P}d4
	check "$1: destroy of the filter bloom-xdp uses is refused: in use on vb, detach first" \
		eval '[ "$rc" != 0 ] &&
		      grep -q "filter ${P}d4 is in use by an XDP program on vb (detach it first: bloom-xdp detach vb)" "$W/err"'
}
# unheld WHAT: bloom-xdp was detached: destroy works, every allocation is
# freed; the filter is then made again
unheld() {
	if [ -n "$nohold" ]; then
		ok "$1: destroy works once bloom-xdp is detached # SKIP $nohold"
		return
	fi
	run inB bloomctl destroy ${P}d4
	check "$1: destroy works once bloom-xdp is detached" [ "$rc" = 0 ]
	check "$1: live_allocations back to $live0" \
		wait_for 10 file_is $DBG/live_allocations "$live0"
	new_filter
	check "$1: the filter made again" [ $? = 0 ]
}
bloom_off() {
	run inB "$XDP" detach vb
	check "bloom-xdp detach (beside: $1)" [ "$rc" = 0 ]
}
filter_on() {
	run inB xdp-filter load vb -f ipv4 -m "$1"
	check "xdp-filter load -m $1" [ "$rc" = 0 ]
	run inB xdp-filter ip 10.9.0.3 -m src
	check "xdp-filter lists 10.9.0.3" [ "$rc" = 0 ]
	run inB xdp-filter ip 10.9.0.5 -m src
	check "xdp-filter lists 10.9.0.5" [ "$rc" = 0 ]
}
filter_off() {
	run inB xdp-filter unload vb
	check "xdp-filter unload" [ "$rc" = 0 ]
}

netns_exec_hint
for mode in native generic; do
	fmode=$mode
	[ $mode = generic ] && fmode=skb
	state "$mode: nothing attached" 0 0
	bloom_on $mode nothing
	filter_on $fmode
	want_held=yes
	[ -n "$nohold" ] && want_held=no
	check "$mode: bloom-xdp show lists its program, priority 20, held: $want_held, and no other" \
		eval '[ "$(inB "$XDP" show | grep -c "^vb ")" = 1 ] &&
		      inB "$XDP" show | grep -Eq "^vb +$mode +20 +${P}d4\([0-9]+\) +-\(0\) +src +drop .* $want_held +-$"'
	held "$mode: beside xdp-filter"
	state "$mode: bloom, then xdp-filter" 1 1
	bloom_off xdp-filter
	unheld "$mode: beside xdp-filter"
	state "$mode: bloom detached first, xdp-filter runs on" 0 1
	bloom_on $mode xdp-filter
	state "$mode: xdp-filter, then bloom" 1 1
	held "$mode: bloom added beside xdp-filter"
	filter_off
	state "$mode: xdp-filter unloaded first, bloom runs on" 1 0
	held "$mode: bloom moved to the dispatcher made without xdp-filter"
	filter_on $fmode
	state "$mode: bloom, then xdp-filter again" 1 1
	filter_off
	state "$mode: xdp-filter unloaded, bloom runs on" 1 0
	bloom_off nothing
	unheld "$mode: alone under the dispatcher"
	state "$mode: bloom detached last" 0 0
	filter_on $fmode
	bloom_on $mode xdp-filter
	state "$mode: xdp-filter, then bloom again" 1 1
	bloom_off xdp-filter
	state "$mode: bloom detached, xdp-filter runs on" 0 1
	filter_off
	state "$mode: xdp-filter unloaded last" 0 0
	check "$mode: nothing is left on vb" \
		eval '! inB ip link show vb | grep -q "prog/xdp"'
done

# --- a program of bloom's name that is not bloom's ----------------------------
run inB xdp-loader load -m native vb "$IMPOSTOR"
check "the impostor (named bloom_xdp, 1 KiB .rodata) loads under the dispatcher" \
	eval '[ "$rc" = 0 ] && [ "$(status)" = "bloom_xdp " ]'
bloom_on native impostor
run inB "$XDP" show
check "bloom-xdp show lists bloom's program only, and does not crash" \
	eval '[ "$rc" = 0 ] && [ "$(grep -c "^vb " "$W/out")" = 1 ]'
bloom_off impostor
run inB "$XDP" detach vb
check "bloom-xdp detach leaves the impostor alone and says so" \
	eval '[ "$rc" = 1 ] && grep -q "others" "$W/err" && [ "$(status)" = "bloom_xdp " ]'
run inB "$XDP" show
check "bloom-xdp show lists nothing beside the impostor" \
	eval '[ "$rc" = 0 ] && [ "$(grep -c "^vb " "$W/out")" = 0 ]'
inB xdp-loader unload vb --all >/dev/null 2>&1
run inB ip link set dev vb xdpgeneric obj "$IMPOSTOR" sec xdp
check "the impostor attached alone (generic)" [ "$rc" = 0 ]
run inB "$XDP" detach vb
check "bloom-xdp detach leaves the lone impostor alone" \
	eval '[ "$rc" = 1 ] && inB ip link show vb | grep -q "prog/xdp"'
run inB "$XDP" attach vb --set ${P}d4
check "attach beside a lone program is refused, naming xdpgeneric off (not xdp off)" \
	eval '[ "$rc" = 1 ] && grep -q "xdpgeneric off" "$W/err" && ! grep -q "xdp off" "$W/err"'
inB ip link set dev vb xdpgeneric off

# --- the device moves to another namespace -------------------------------------
bloom_on native "a move"
inB ip link set vb netns "$A"
run inA "$XDP" show
check "after a move: show marks the program as moved" \
	eval '[ "$rc" = 0 ] && grep -Eq "^vb .* moved-netns" "$W/out" &&
	      grep -q "moved here from the network namespace" "$W/err"'
if [ -n "$byhold" ]; then
	# through its hold it keeps the filter of the namespace it came from
	check "after a move: the program keeps the filter it holds, and show says so" \
		eval '! grep -Eq "^vb .*ipv4-gone" "$W/out" &&
		      grep -q "looks up the filters it holds there" "$W/err"'
else
	check "after a move: the filter id names no filter here, and show says so" \
		grep -Eq "^vb .*ipv4-gone" "$W/out"
fi
run inA "$XDP" detach vb
check "after a move: detach says what to do" \
	eval '[ "$rc" = 1 ] && grep -q "moved" "$W/err" && grep -q "xdpdrv off" "$W/err"'
inA ip link set dev vb xdpdrv off

finish
