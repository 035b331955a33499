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
# starts from), the same programs run with that module loaded too, for the
# figures before and after in one run ("before" in the JSON): XDP_TURNS
# (default 2) turns of each, alternating, this tree's module first (so
# neither module has all the early or all the late minutes of the VM);
# each variant's median is the median of its turns' medians, its min the
# least of their minima. The module of this tree (XDP_AFTER_KO, bloom.ko at
# its top) is loaded again at the end.
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

# turn WHICH N: bench-xdp's JSON of turn N with this tree's module
# (after) or the other one (before)
turn() {
	if [ -n "${XDP_BEFORE_KO:-}" ]; then
		rmmod bloom
		insmod "$([ "$1" = before ] && echo "$XDP_BEFORE_KO" ||
			echo "${XDP_AFTER_KO:-$top/bloom.ko}")"
	fi
	bench "$data/$1.$2.json"
}

rm -f "$data"/after.*.json "$data"/before.*.json
turns=1
[ -z "${XDP_BEFORE_KO:-}" ] || turns=${XDP_TURNS:-2}
for i in $(seq 1 "$turns"); do
	turn after "$i"
	[ -z "${XDP_BEFORE_KO:-}" ] || turn before "$i"
done
[ -z "${XDP_BEFORE_KO:-}" ] || { rmmod bloom; insmod "${XDP_AFTER_KO:-$top/bloom.ko}"; }
python3 -c 'import glob, json, statistics, sys
def merged(paths):
    runs = [json.load(open(p)) for p in sorted(paths)]
    d = runs[0]
    for v in d["variants"]:
        for which in ("present", "absent"):
            s = [next(x for x in r["variants"] if x["name"] == v["name"])[which]
                 for r in runs]
            v[which]["ns_median"] = statistics.median(x["ns_median"] for x in s)
            v[which]["ns_min"] = min(x["ns_min"] for x in s)
            v[which]["hit_rate"] = statistics.mean(x["hit_rate"] for x in s)
    d["turns"] = len(runs)
    return d
data, rate = sys.argv[1], float(sys.argv[2])
d = merged(glob.glob(data + "/after.*.json"))
d["fpp"] = rate
if glob.glob(data + "/before.*.json"):
    d["before"] = merged(glob.glob(data + "/before.*.json"))
print(json.dumps(d))' "$data" "$rate"
