#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# snap_bench.sh DIR [MIB] [ROUNDS]: snapshot benchmarks, run inside the VM by
# run.sh (part "snap"). DIR holds present.txt (keys, one a line).
#  - bench-snap: BLOOM_IOC_SAVE and BLOOM_IOC_RESTORE of a MIB MiB standard
#    filter against a plain memcpy() of the same bytes, in one process;
#  - "bloomctl build" of present.txt on all the guest's CPUs and on one,
#    against "bloomctl add -f" of the same keys into the kernel (a filter of
#    the same size), wall time of the whole command, tools taking turns.
# Prints JSON on stdout.
set -euo pipefail

dir=$1
mib=${2:-64}
rounds=${3:-3}
bin=$(dirname "$(command -v bloomctl)")
work=$(mktemp -d)
trap 'rm -rf "$work"; bloomctl destroy bench-snap-add 2>/dev/null || true' EXIT
cp "$dir/present.txt" "$work/"	# guest RAM, not 9p
keys=$work/present.txt
n=$(wc -l <"$keys")

timed() {
	local t0=$EPOCHREALTIME
	"$@" >/dev/null
	local t1=$EPOCHREALTIME
	echo "$t0 $t1" | awk '{ printf "%.6f", $2 - $1 }'
}

"$bin/../bench/bench-snap" "$mib" "$rounds" >"$work/ioctl.json"

b_all=() b_one=() add=()
for _ in $(seq "$rounds"); do
	b_all+=("$(timed bloomctl build "$work/b.snap" --name b --capacity "$n" \
		--fpp 0.01 -f "$keys")")
	b_one+=("$(timed bloomctl build "$work/b.snap" --name b --capacity "$n" \
		--fpp 0.01 -f "$keys" --threads 1)")
	bloomctl destroy bench-snap-add 2>/dev/null || true
	bloomctl create bench-snap-add --capacity "$n" --fpp 0.01
	add+=("$(timed bloomctl add bench-snap-add -f "$keys")")
done
join() { local IFS=,; echo "$*"; }
printf '{\n "ioctl": %s,\n "keys": %s,\n "cpus": %s,\n' \
	"$(cat "$work/ioctl.json")" "$n" "$(nproc)"
printf ' "build_all_cpus": [%s],\n "build_one_cpu": [%s],\n "add_f": [%s]\n}\n' \
	"$(join "${b_all[@]}")" "$(join "${b_one[@]}")" "$(join "${add[@]}")"
