#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cli_bench.sh DIR [ROUNDS]: the CLI against a real peer, run inside the VM
# by run.sh. DIR holds present.txt (keys to insert) and absent.txt (keys
# never inserted), one key a line. Per round, in turns, the same keys go
#   through bloomctl:  bloomctl add NAME -f present.txt
#                      bloomctl test NAME -f absent.txt   (prints the hits)
#   through DCSO bloom: bloom insert FILE < present.txt
#                      bloom check FILE < absent.txt      (prints the hits)
# both sized for the same capacity at p = 0.01, both printing the matching
# lines into "wc -l" (the false positives), so both pay the same output.
# The first round also checks present.txt (every key must come back).
# Prints JSON on stdout: every sample in seconds, the counts, the versions.
set -euo pipefail

dir=$1
rounds=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"; bloomctl destroy bench-cli 2>/dev/null || true' EXIT
# The guest's /tmp is RAM. Reading the host's files goes through 9p, slow
# and slower the first time: whichever tool read first would pay for it.
cp "$dir/present.txt" "$dir/absent.txt" "$work/"
present=$work/present.txt
absent=$work/absent.txt
npresent=$(wc -l < "$present")
nabsent=$(wc -l < "$absent")

# Seconds (with microseconds) the command "$@" takes; its stdout goes to
# $work/out.
timed() {
	local t0=$EPOCHREALTIME
	"$@" > "$work/out"
	local t1=$EPOCHREALTIME
	echo "$t0 $t1" | awk '{ printf "%.6f", $2 - $1 }'
}

ours_add() { bloomctl add bench-cli -f "$present"; }
ours_test() { bloomctl test bench-cli -f "$1" | wc -l; }
dcso_add() { bloom insert "$work/f.bloom" < "$present"; }
dcso_test() { bloom check "$work/f.bloom" < "$1" | wc -l; }

declare -A s
for k in ours_add ours_test dcso_add dcso_test; do s[$k]=; done
ours_fp= dcso_fp= ours_tp= dcso_tp= ours_tp_s= dcso_tp_s=
for ((r = 0; r < rounds; r++)); do
	bloomctl destroy bench-cli 2>/dev/null || true
	bloomctl create bench-cli --capacity "$npresent" --fpp 0.01 > /dev/null
	rm -f "$work/f.bloom"
	bloom create -n "$npresent" -p 0.01 "$work/f.bloom"
	# Turns: even rounds start with bloomctl, odd ones with DCSO.
	for who in $( ((r % 2)) && echo "dcso ours" || echo "ours dcso"); do
		s[${who}_add]+="$(timed ${who}_add) "
		s[${who}_test]+="$(timed ${who}_test "$absent") "
		eval "${who}_fp=$(cat "$work/out")"
		if ((r == 0)); then
			eval "${who}_tp_s=$(timed ${who}_test "$present")"
			eval "${who}_tp=$(cat "$work/out")"
		fi
	done
done

list() { echo "$1" | sed 's/ $//; s/ /, /g'; }
cat <<JSON
{
  "present_keys": $npresent,
  "absent_keys": $nabsent,
  "p": 0.01,
  "rounds": $rounds,
  "guest_kernel": "$(uname -r)",
  "dcso_version": "$(bloom --version 2>&1 | awk '{ print $NF }')",
  "seconds": {
    "bloomctl_add": [$(list "${s[ours_add]}")],
    "bloomctl_test_absent": [$(list "${s[ours_test]}")],
    "dcso_insert": [$(list "${s[dcso_add]}")],
    "dcso_check_absent": [$(list "${s[dcso_test]}")],
    "bloomctl_test_present": [$ours_tp_s],
    "dcso_check_present": [$dcso_tp_s]
  },
  "false_positives": { "bloomctl": $ours_fp, "dcso": $dcso_fp },
  "present_found": { "bloomctl": $ours_tp, "dcso": $dcso_tp }
}
JSON
