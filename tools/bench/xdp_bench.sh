#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The XDP benchmark, run INSIDE the VM by run.sh ("xdp" part):
#   xdp_bench.sh DATA_DIR ROUNDS REPEAT > xdp.json
# DATA_DIR/listed.txt holds the listed IPv4 addresses, one per line, from
# 16.0.0.0 (written on the host by run.sh, as for the fw part).
#
# The BPF Bloom map takes K = 7 hashes and rounds its bits up to a power
# of two (kernel/bpf/bloom_filter.c: roundup_pow_of_two(N * K / 5 * 7)),
# which sets its false-positive rate; the bloom filters, a standard and a
# blocked one, are sized for that same rate, so every Bloom filter here
# answers alike. bench-xdp then runs the XDP programs (xdp_bench.bpf.c)
# with BPF_PROG_TEST_RUN and prints the JSON this script passes on, with
# the rate the three were set to.
#
# With XDP_BEFORE_KO=PATH, a bloom.ko of another build (the one a change
# starts from), the same programs run again with that module loaded, for
# the figures before and after in one run ("before" in the JSON); then
# the module of this tree (XDP_AFTER_KO, bloom.ko at its top) is loaded
# again.
set -euo pipefail

data=$1 rounds=$2 repeat=$3
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$top/build}
count=$(wc -l <"$data/listed.txt")
K=7

rate=$(python3 -c 'import math, sys
n, k = int(sys.argv[1]), int(sys.argv[2])
bits = n * k // 5 * 7
m = 64 if bits <= 64 else 1 << (bits - 1).bit_length()
print("%.6g" % (1 - math.exp(-k * n / m)) ** k)' "$count" $K)
# bench OUT: the filters made and filled, bench-xdp's JSON in OUT
bench() {
	local t
	for t in standard blocked; do
		bloomctl destroy xdpb_$t >/dev/null 2>&1 || true
		bloomctl create xdpb_$t --type $t --capacity "$count" \
			--fpp "$rate" >&2
		bloomctl add xdpb_$t --ipv4 -f "$data/listed.txt" >&2
	done
	"$BUILD/bench/bench-xdp" --count "$count" --hashes $K \
		--rounds "$rounds" --repeat "$repeat" xdpb_standard \
		xdpb_blocked >"$1"
	for t in standard blocked; do
		bloomctl destroy xdpb_$t
	done
}

rm -f "$data/before.json"
bench "$data/raw.json"
if [ -n "${XDP_BEFORE_KO:-}" ]; then
	rmmod bloom
	insmod "$XDP_BEFORE_KO"
	bench "$data/before.json"
	rmmod bloom
	insmod "${XDP_AFTER_KO:-$top/bloom.ko}"
fi
python3 -c 'import json, os, sys
d = json.load(open(sys.argv[1]))
d["fpp"] = float(sys.argv[2])
if os.path.exists(sys.argv[3]):
    d["before"] = json.load(open(sys.argv[3]))
print(json.dumps(d))' "$data/raw.json" "$rate" "$data/before.json"
