#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The bloom demo: a blacklist of 1,000,000 e-mail addresses in a kernel
# Bloom filter. Run it in the test VM with "make demo", or as root on a
# machine with bloom.ko loaded and $BUILD/bin on PATH.
#
# Exits non-zero if any added key is reported absent: that would break the
# one promise of a Bloom filter (no false negatives).
set -eu

N=${DEMO_KEYS:-1000000}
P=0.01
STD=demo_blacklist
BLK=demo_blacklist_blocked
SYS=/sys/class/misc/bloom
D=$(mktemp -d /tmp/bloom-demo.XXXXXX)

cleanup() {
	for f in $STD $BLK; do
		bloomctl info "$f" >/dev/null 2>&1 && bloomctl destroy "$f"
	done
	rm -rf "$D"
}
trap cleanup EXIT

for tool in bloomctl bloom-demo-gen; do
	command -v $tool >/dev/null || {
		echo "demo: $tool not on PATH: build first (make), then run 'make demo'" >&2
		exit 1
	}
done

now() { date +%s.%N; }
# elapsed START: seconds since START, 3 decimals
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
# per_sec COUNT SECONDS
# (parenthesised: in awk, "printf ... > 0" would redirect to a file named 0)
per_sec() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }'; }
# Bold headings on a terminal; plain text in logs.
if [ -t 1 ]; then
	step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
else
	step() { printf '\n== %s\n' "$*"; }
fi

step "1. A blacklist of $N e-mail addresses, and $N others never added"
t=$(now)
bloom-demo-gen 1 "$N" >"$D/blacklist"
bloom-demo-gen 2 "$N" >"$D/unknown"
echo "generated in $(elapsed "$t") s into $D ($(du -h "$D/blacklist" | cut -f1) each); a few of them:"
head -n 3 "$D/blacklist" | sed 's/^/    /'
echo "    ... and never added:"
head -n 2 "$D/unknown" | sed 's/^/    /'

step "2. Two filters for $N keys at a false-positive rate of $P"
bloomctl create $STD --capacity "$N" --fpp $P
bloomctl create $BLK --type blocked --capacity "$N" --fpp $P
printf '    %-24s %-9s %10s %7s %9s %12s\n' name type bits hashes bits/key memory
for f in $STD $BLK; do
	d=$SYS/filters/$f
	printf '    %-24s %-9s %10s %7s %9s %12s\n' "$f" "$(cat "$d"/type)" \
		"$(cat "$d"/bits)" "$(cat "$d"/hashes)" \
		"$(awk -v m="$(cat "$d"/bits)" -v n="$N" 'BEGIN { printf "%.2f", m / n }')" \
		"$(cat "$d"/memory_bytes)"
done
echo "    (theory for a standard filter at 1%: 9.59 bits per key)"
awk -v t="$(wc -c <"$D/blacklist")" -v m="$(cat "$SYS/filters/$STD/memory_bytes")" 'BEGIN {
	printf "    the blacklist as text takes %d bytes: the standard filter is %.0f times smaller\n", t, t / m }' 

fail=0
part=a
for f in $STD $BLK; do
	step "3$part. $f: add the blacklist, then ask about every key"
	part=b
	t=$(now)
	bloomctl add "$f" -f "$D/blacklist"
	s=$(elapsed "$t")
	echo "added $N keys in $s s: $(per_sec "$N" "$s") keys/s (batches of 65536 keys per ioctl)"

	# timed without printing (-q: the exit status only), as adds are;
	# the counts come from a second pass that prints the keys, untimed
	t=$(now)
	# exit 1 would be a false negative: the count below says so
	bloomctl test "$f" -q -f "$D/blacklist" || :
	s=$(elapsed "$t")
	present=$(bloomctl test "$f" -f "$D/blacklist" | wc -l)
	echo "known keys:   $present of $N may be present (tested at $(per_sec "$N" "$s") keys/s)"
	if [ "$present" -ne "$N" ]; then
		echo "FAIL: $((N - present)) added keys reported absent: a false negative" >&2
		fail=1
	fi

	t=$(now)
	# exit 1: some are absent, as they should be
	bloomctl test "$f" -q -f "$D/unknown" || :
	s=$(elapsed "$t")
	fp=$(bloomctl test "$f" -f "$D/unknown" | wc -l)
	awk -v fp="$fp" -v n="$N" -v p="$P" 'BEGIN {
		printf "unknown keys: %d of %d may be present: false-positive rate %.4f%% (asked for %.2f%%)\n",
			fp, n, 100 * fp / n, 100 * p }'
	echo "              (tested at $(per_sec "$N" "$s") keys/s)"
done

step "4. One key at a time, as a script would ask"
k=$(head -n 1 "$D/blacklist")
u=$(head -n 1 "$D/unknown")
bloomctl test $STD "$k" "$u" | sed 's/^/    /' || true

step "5. bloomctl info $STD"
bloomctl info $STD | sed 's/^/    /'

step "6. sysfs: $SYS/filters/$STD/"
for file in "$SYS/filters/$STD"/*; do
	[ -f "$file" ] && printf '    %-14s %s\n' "$(basename "$file")" "$(cat "$file")"
done
printf '    %-30s %s\n' "../../memory_used" "$(cat "$SYS"/memory_used)"
[ -r /sys/kernel/debug/bloom/live_allocations ] &&
	printf '    %-30s %s\n' "debugfs bloom/live_allocations" \
		"$(cat /sys/kernel/debug/bloom/live_allocations)"

step "7. bloomctl list"
bloomctl list | sed 's/^/    /'

step "8. Clean up"
for f in $STD $BLK; do
	bloomctl destroy "$f"
	echo "    destroyed $f"
done
echo "    memory used by all filters now: $(cat "$SYS"/memory_used) bytes"

if [ "$fail" -ne 0 ]; then
	echo "demo FAILED: false negatives (see above)" >&2
	exit 1
fi
printf '\nno false negatives: every one of the %d added keys was found in both filters\n' "$N"
