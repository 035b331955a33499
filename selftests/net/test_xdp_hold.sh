#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP 13 test of XDP programs' holds of filters (bpf_bloom_xdp_hold(),
# module/hold.c): a program run once through BPF_PROG_TEST_RUN, its frame
# saying which filter and which slot of its map, keeps a hold of the
# filter in that map (bloom-xdp's, tools/xdp/bloom_xdp_hold.bpf.c, loaded
# through bpftool). While the map is there, DESTROY fails with EBUSY after its wait, info
# shows the hold and the device, and bloomctl destroy says which device to
# detach the program from; a second hold in the same slot replaces the
# first (the program lets go of the old one); a hold of an id no filter
# has is refused; once the program and its map are gone, the filter can be
# destroyed and the live allocations come back. Queries through a hold
# (bpf_bloom_hold_query(), bpf_bloom_hold_lookup_addr(): a program of
# bpf/bloom_hold_test.bpf.c) answer as the calls by id do (bloom_bpf_run),
# for listed and unlisted keys and addresses, before and after swap and
# restore --replace; an empty slot gives -ENOENT, bad sizes -EINVAL, and
# letting go of the hold lets DESTROY go on. Runs as root in the VM with
# bloom.ko loaded:
#   selftests/vm/run.sh -- selftests/net/test_xdp_hold.sh

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$repo/build}
. "$here/lib.sh"

OBJ=$BUILD/selftests/bloom_xdp_hold.bpf.o
QOBJ=$BUILD/selftests/bloom_hold_test.bpf.o
RUN=$BUILD/selftests/bloom_bpf_run
BPFTOOL=$(command -v bpftool || echo /usr/sbin/bpftool)
PIN=/sys/fs/bpf/bloom_hold_test$$
QPIN=/sys/fs/bpf/bloom_hold_query$$
xt_env hold
cleanup() {
	rm -rf "$PIN" "${PIN}_maps" "$QPIN" "${QPIN}_maps"
	xt_cleanup
}
trap cleanup EXIT

skip_without "bloom_xdp_hold.bpf.o not built (clang 15 or later, bpftool: selftests/Makefile)" \
	"$OBJ" "$QOBJ" "$RUN" "$BPFTOOL"
skip_without "bloom.ko has no BTF: no kfuncs" /sys/kernel/btf/bloom
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf

live0=$(settled $DBG/live_allocations)

# hold ID SLOT: runs the program once on lo with a frame for ID and SLOT;
# prints its return value (2 XDP_PASS: held, 1 XDP_DROP: no such filter).
hold() {
	python3 -c 'import struct, sys
open(sys.argv[1], "wb").write(struct.pack("<II", int(sys.argv[2]), int(sys.argv[3])) + bytes(8))
# struct xdp_md: data, data_end, data_meta, ingress_ifindex (lo: 1), rx_queue_index, egress_ifindex
open(sys.argv[4], "wb").write(struct.pack("<6I", 0, 16, 0, 1, 0, 0))' \
		"$W/frame" "$1" "$2" "$W/ctx" &&
	"$BPFTOOL" prog run pinned "$PIN" data_in "$W/frame" ctx_in "$W/ctx" |
		sed -n 's/^Return value: \([0-9]*\),.*/\1/p'
}

bloomctl create ${P}f --capacity 1000 --fpp 0.01 >/dev/null
ID=$(cat "$SYS/filters/${P}f/id")
run "$BPFTOOL" prog load "$OBJ" "$PIN" type xdp pinmaps "${PIN}_maps"
check "the holding program loads (the verifier takes the kfuncs and the referenced pointer in its map)" \
	[ "$rc" = 0 ]
check "a hold of a filter that exists: XDP_PASS" eval '[ "$(hold "$ID" 0)" = 2 ]'
check "a hold of an id no filter has: XDP_DROP" eval '[ "$(hold 999999 1)" = 1 ]'
run bloomctl info ${P}f
check "info shows one hold and its device" \
	grep -q "^xdp holds: *1 .*latest on lo)" "$W/out"
check "a second hold in the same slot replaces the first: still one" \
	eval '[ "$(hold "$ID" 0)" = 2 ] &&
	      bloomctl info ${P}f | grep -q "^xdp holds: *1 "'
expect_fail "destroy of a held filter says which device to detach from" \
	"in use by an XDP program on lo \(detach it first: bloom-xdp detach lo\)" \
	bloomctl destroy ${P}f
check "the filter is still there" test -e "$SYS/filters/${P}f"

rm -rf "$PIN" "${PIN}_maps"
# the map goes in a work item after the last reference; DESTROY waits 2 s
run bloomctl destroy ${P}f
check "once the program and its map are gone, destroy works" [ "$rc" = 0 ]

# --- queries through a hold -------------------------------------------------
# hq OP SLOT ID KEY [LEN]: one run of bloom_hold_test.bpf.c's program (OP
# take, empty, query or addr; KEY an address, or a string as its bytes;
# LEN its length unless given). Prints the kfunc's result for query and
# addr, the program's return value (2 XDP_PASS, 1 XDP_DROP) otherwise.
hq() {
	python3 -c 'import ipaddress, struct, sys
op = ["take", "empty", "query", "addr"].index(sys.argv[1])
try:
	key = ipaddress.ip_address(sys.argv[4]).packed
except ValueError:
	key = sys.argv[4].encode()
n = int(sys.argv[5]) if sys.argv[5] else len(key)
open(sys.argv[6], "wb").write(struct.pack("<4Ii12x32s", op, int(sys.argv[2]),
	int(sys.argv[3]), n, 0, key))
# struct xdp_md: data, data_end, data_meta, ingress_ifindex (lo: 1), rx_queue_index, egress_ifindex
open(sys.argv[7], "wb").write(struct.pack("<6I", 0, 64, 0, 1, 0, 0))' \
		"$1" "$2" "$3" "$4" "${5:-}" "$W/qframe" "$W/qctx" &&
	"$BPFTOOL" prog run pinned "$QPIN" data_in "$W/qframe" \
		data_out "$W/qframe.out" ctx_in "$W/qctx" >"$W/qrun" || return 1
	case $1 in
	query|addr)
		python3 -c 'import struct, sys
print(struct.unpack_from("<i", open(sys.argv[1], "rb").read(), 16)[0])' \
			"$W/qframe.out" ;;
	*) sed -n 's/^Return value: \([0-9]*\),.*/\1/p' "$W/qrun" ;;
	esac
}

# same OP ID SLOT KEY [LEN]: the call through the hold in SLOT and the
# call by ID (bloom_bpf_run) answer WANT alike; "want" first.
same() {
	local want=$1 op=$2 id=$3 slot=$4 key=$5 len=${6:-} byhold byid

	byhold=$(hq "$op" "$slot" 0 "$key" $len)
	byid=$("$RUN" run xdp "$op" "$id" "$key" $len)
	[ "$byhold" = "$want" ] && [ "$byid" = "$want" ]
}

bloomctl create ${P}q --capacity 1000 --fpp 1e-6 >/dev/null &&
	bloomctl add ${P}q --ipv4 10.0.0.0/8 192.0.2.1 >/dev/null
bloomctl create ${P}q2 --capacity 1000 --fpp 1e-6 >/dev/null &&
	bloomctl add ${P}q2 --ipv4 198.51.100.7 >/dev/null
Q=$(cat "$SYS/filters/${P}q/id")
run "$BPFTOOL" prog load "$QOBJ" "$QPIN" type xdp pinmaps "${QPIN}_maps"
check "the querying program loads (KF_KPTR_GET: a map value at the referenced kptr)" \
	[ "$rc" = 0 ]
check "an empty slot: -ENOENT" eval '[ "$(hq query 0 0 192.0.2.1)" = -2 ] &&
	[ "$(hq addr 1 0 192.0.2.1)" = -2 ]'
check "a hold of the filter in slot 0" eval '[ "$(hq take 0 "$Q" -)" = 2 ]'
calls0=$(cat "$SYS/filters/${P}q/bpf_calls")
check "through the hold and by id: a listed address (1)" \
	same 1 addr "$Q" 0 192.0.2.1
check "... an address inside a listed /8 (1)" same 1 addr "$Q" 0 10.1.2.3
check "... an unlisted address (0)" same 0 addr "$Q" 0 192.0.2.2
check "... a query of a listed address's key (1)" same 1 query "$Q" 0 192.0.2.1
check "... a query of a key never added, no netblocks (0)" same 0 query "$Q" 0 10.1.2.3
check "... an address of 5 bytes: -EINVAL" same -22 addr "$Q" 0 10.1.2.3 5
check "... a key of 0 bytes: -EINVAL" same -22 query "$Q" 0 10.1.2.3 0
check "calls through the hold count as calls by id do (5 + 5; refused sizes not)" \
	eval '[ "$(cat "$SYS/filters/${P}q/bpf_calls")" = $((calls0 + 10)) ]'
check "the other slot is still empty: -ENOENT" \
	eval '[ "$(hq query 1 0 192.0.2.1)" = -2 ]'

# the hold names the filter: after swap, it answers with what ${P}q holds then
run bloomctl swap ${P}q ${P}q2
check "after swap: the swapped-in contents answer (1)" \
	eval '[ "$rc" = 0 ] && same 1 addr "$Q" 0 198.51.100.7'
check "after swap: the swapped-out ones do not (0)" \
	eval 'same 0 addr "$Q" 0 10.1.2.3 && same 0 addr "$Q" 0 192.0.2.1'
run bloomctl swap ${P}q ${P}q2
check "swapped back: the first contents answer again" \
	eval '[ "$rc" = 0 ] && same 1 addr "$Q" 0 10.1.2.3 && same 0 addr "$Q" 0 198.51.100.7'
bloomctl save ${P}q2 "$W/q2.snap" >/dev/null
run bloomctl restore "$W/q2.snap" --name ${P}q --replace
check "after restore --replace: the restored contents answer" \
	eval '[ "$rc" = 0 ] && same 1 addr "$Q" 0 198.51.100.7 && same 0 addr "$Q" 0 10.1.2.3'

check "letting go of the hold empties the slot: -ENOENT" \
	eval '[ "$(hq empty 0 0 -)" = 2 ] && [ "$(hq addr 0 0 198.51.100.7)" = -2 ]'
run bloomctl destroy ${P}q
check "... and destroy works with the program still loaded" [ "$rc" = 0 ]
check "a hold of the destroyed filter's id: XDP_DROP" \
	eval '[ "$(hq take 0 "$Q" -)" = 1 ]'
rm -rf "$QPIN" "${QPIN}_maps"
bloomctl destroy ${P}q2
check "live_allocations back to $live0" \
	wait_for 10 file_is $DBG/live_allocations "$live0"
finish
