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
# destroyed and the live allocations come back. Runs as root in the VM
# with bloom.ko loaded:
#   selftests/vm/run.sh -- selftests/net/test_xdp_hold.sh

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$repo/build}
. "$here/lib.sh"

OBJ=$BUILD/selftests/bloom_xdp_hold.bpf.o
BPFTOOL=$(command -v bpftool || echo /usr/sbin/bpftool)
PIN=/sys/fs/bpf/bloom_hold_test$$
xt_env hold
cleanup() {
	rm -rf "$PIN" "${PIN}_maps"
	xt_cleanup
}
trap cleanup EXIT

skip_without "bloom_xdp_hold.bpf.o not built (clang 15 or later, bpftool: selftests/Makefile)" \
	"$OBJ" "$BPFTOOL"
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
check "live_allocations back to $live0" \
	wait_for 10 file_is $DBG/live_allocations "$live0"
finish
