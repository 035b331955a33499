#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Keys with their own timeouts against ipset: N addresses (default
# 200000) with timeouts from 1 minute to 30 days, as ipset save lines, into
# a timed filter at p = 1e-4 (bloomctl add -f) and into ipset's hash:ip
# timeout (ipset restore; timeouts over its 2147483 s clamped, as CrowdSec
# does). Prints memory per entry (bloomctl info's memory_bytes, all of
# the filter; ipset list's "Size in memory"), the load times and the false
# negatives among the N. Run in the test VM (TCG: times are ratios only):
#   selftests/vm/run.sh -- tools/bench/bans_bench.sh [N]
set -u
n=${1:-200000}
w=$(mktemp -d) || exit 1
trap 'rm -rf "$w"; bloomctl destroy bansbench 2>/dev/null; ipset destroy bansbench 2>/dev/null' EXIT

python3 - "$n" >"$w/feed" <<'PY'
import random, sys
random.seed(7)
n, seen = int(sys.argv[1]), set()
while len(seen) < n:
    a = random.getrandbits(32)
    if a in seen or a >> 24 in (0, 10, 127) or a >> 24 >= 224:
        continue
    seen.add(a)
    print('add bansbench %d.%d.%d.%d timeout %d' % (a >> 24, a >> 16 & 255,
          a >> 8 & 255, a & 255, random.randint(60, 30 * 86400)))
PY
sed 's/^add bansbench //; s/ timeout.*//' "$w/feed" >"$w/addrs"

t0=$(date +%s.%N)
bloomctl create bansbench --capacity "$n" --fpp 1e-4 --key-timeouts --keys ipv4 &&
	bloomctl add bansbench --ipv4 -f "$w/feed" || exit 1
t1=$(date +%s.%N)
mem=$(bloomctl info --json bansbench |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["memory_bytes"])')
fn=$(bloomctl test bansbench --ipv4 --absent -f "$w/addrs" | wc -l)
echo "bloom: $n entries, $mem bytes, $(python3 -c "print(round($mem / $n, 2))") B/entry, loaded in $(python3 -c "print(round($t1 - $t0, 2))") s, $fn false negatives"

command -v ipset >/dev/null || { echo "ipset: not installed (tools/deps.sh bench)"; exit 0; }
modprobe -a ip_set ip_set_hash_ip 2>/dev/null
t0=$(date +%s.%N)
{ echo "create bansbench hash:ip timeout 0 maxelem $((2 * n))"
  awk '{ if ($5 > 2147483) $5 = 2147483; print }' "$w/feed"; } | ipset restore || exit 1
t1=$(date +%s.%N)
sz=$(ipset list bansbench -t | sed -n 's/^Size in memory: //p')
echo "ipset: $n entries, $sz bytes, $(python3 -c "print(round($sz / $n, 2))") B/entry, loaded in $(python3 -c "print(round($t1 - $t0, 2))") s"
echo "ipset / bloom bytes: $(python3 -c "print(round($sz / $mem, 2))")"
