#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP 13 test of snapshots through bloomctl, in the test VM as root with
# bloom.ko loaded:
#   selftests/vm/run.sh -- selftests/cli/test_snapshot.sh
#  - every type survives rmmod/insmod: save --all, unload, load, restore
#    --all; the answers on present and absent keys are identical;
#  - save --all replaces only what it writes; --prune removes only stale
#    snapshots;
#  - "bloomctl build" with the kernel filter's hash key writes the very
#    payload the kernel holds after "bloomctl add -f" of the same keys, for
#    every type, and the restored build answers like the kernel filter;
#    with --prefix-lengths as create's and add -f's of a feed, and the
#    restored build stores netblocks at those lengths;
#  - files are mode 0600; save - / restore - through a pipe; restore
#    --name; bad files are refused with the reason and create nothing;
#    endless or over-long input is refused after the header, and restore
#    --all skips a FIFO;
#  - create --like, merge, flush, swap and restore --replace from the CLI;
#  - a fixed snapshot of an expiring filter (data/expire.snap) restores
#    with its geometry, hash key, timeout and generations; saved long ago
#    it holds no key; re-stamped as saved now, every key and each
#    generation's key count and age are as the file records them;
#  - fixed snapshots of timed filters in the earlier four-subtable layout
#    (data/timed4-32.snap, data/timed4-64.snap): the one of 32-bit cells
#    restores converted, holding its keys without timeout when saved long
#    ago and every key kept with its expiry when re-stamped as saved now,
#    none deleted, and saves again in today's layout; the one of 64-bit
#    cells is refused with the reason and creates nothing.
# The module is reloaded from BLOOM_MODFILE (default: the copy run.sh
# loaded, /run/bloom-vm/bloom.ko). Exits 0 iff every check passes.

MOD=${BLOOM_MODFILE:-/run/bloom-vm/bloom.ko}
HK=00112233445566778899aabbccddeeff
TYPES="standard blocked counting dleft"

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tap.sh"
cli_begin snaptest 300

cleanup() {
	[ -c /dev/bloom ] || insmod "$MOD" 2>/dev/null
	cli_end
}
trap cleanup EXIT
bc() { timeout "$LIMIT" bloomctl "$@" 2>"$W/err"; }

# Keys: present ones and absent ones, made on the host side of the guest.
seq 1 4000 | sed 's/^/key-/' >"$W/keys"
seq 1 20000 | sed 's/^/other-/' >"$W/absent"

# answers NAME FILE: the lines of FILE that NAME says may be present
answers() { bc test "$1" -f "$2"; }

for t in $TYPES; do
	bc create "$P-$t" --type "$t" --capacity 10000 --fpp 0.01 \
		--hash-key "$HK" && bc add "$P-$t" -f "$W/keys" ||
		not_ok "$t: create and add"
	answers "$P-$t" "$W/keys" >"$W/$t.present.before"
	answers "$P-$t" "$W/absent" >"$W/$t.absent.before"
done
# a counting key added twice, so that a counter of 2 must survive
bc add "$P-counting" key-1 && bc add "$P-dleft" key-1

# 1. across rmmod/insmod
check "save --all writes one file per filter" bc save --all "$W/dir"
for t in $TYPES; do
	m=$(stat -c %a "$W/dir/$P-$t.bloom" 2>/dev/null)
	check "$t: snapshot file has mode 0600 (got ${m:-none})" test "$m" = 600
done
check "rmmod" rmmod bloom
check "insmod" insmod "$MOD"
check "restore --all" bc restore --all "$W/dir"
for t in $TYPES; do
	answers "$P-$t" "$W/keys" >"$W/$t.present.after"
	answers "$P-$t" "$W/absent" >"$W/$t.absent.after"
	check "$t: all $(wc -l <"$W/keys") keys present after reload" \
		cmp -s "$W/keys" "$W/$t.present.after"
	check "$t: the same $(wc -l <"$W/$t.absent.before") of 20000 absent keys answer present after reload" \
		cmp -s "$W/$t.absent.before" "$W/$t.absent.after"
done
# the counter of 2 holds after two deletes minus one: one delete leaves it
bc del "$P-counting" key-1 >/dev/null
check "counting: a key added twice survives one delete after reload" \
	bc test "$P-counting" -q key-1
bc del "$P-dleft" key-1 >/dev/null
check "dleft: a key added twice survives one delete after reload" \
	bc test "$P-dleft" -q key-1

# save --all replaces only the files it writes: a snapshot of a filter that
# is not here (another namespace's) and a file that is no snapshot stay;
# --prune removes only valid snapshots, named as their file, of filters
# that no longer exist.
mkdir "$W/own"
bc build "$W/own/$P-keep.bloom" --name "$P-keep" --capacity 1000 --fpp 0.01 \
	-f "$W/keys"
cp "$W/own/$P-keep.bloom" "$W/own/copy.bloom"
printf 'my notes\n' >"$W/own/notes.bloom"
cp -p "$W/own/$P-keep.bloom" "$W/own/notes.bloom" "$W/own/copy.bloom" "$W"
check "save --all into a directory that holds other files" \
	bc save --all "$W/own"
check "  leaves a snapshot of a filter that is not here" \
	cmp -s "$W/own/$P-keep.bloom" "$W/$P-keep.bloom"
check "  leaves a *.bloom file that is no snapshot" \
	cmp -s "$W/own/notes.bloom" "$W/notes.bloom"
check "  writes the filters' own" test -s "$W/own/$P-standard.bloom"
timeout "$LIMIT" bloomctl save --all --prune "$W/own" >"$W/out" 2>"$W/err"
rc=$?
check "save --all --prune (exit $rc)" test "$rc" = 0
check "  removes the snapshot of a filter that does not exist, and says so" \
	sh -c "[ ! -e '$W/own/$P-keep.bloom' ] && grep -q 'removed.*$P-keep.bloom' '$W/out'"
check "  keeps a snapshot whose header names another filter" \
	cmp -s "$W/own/copy.bloom" "$W/copy.bloom"
check "  keeps a file that is no snapshot" \
	cmp -s "$W/own/notes.bloom" "$W/notes.bloom"
check "  keeps the snapshots of the filters there are" \
	test -s "$W/own/$P-standard.bloom"

# 2. build offline == kernel's payload
for t in $TYPES; do
	bc create "$P-k$t" --type "$t" --capacity 10000 --fpp 0.01 \
		--hash-key "$HK" && bc add "$P-k$t" -f "$W/keys"
	bc save "$P-k$t" "$W/k$t.snap"
	echo "$HK" >"$W/hk"
	bc build "$W/b$t.snap" --name "$P-b$t" --type "$t" --capacity 10000 \
		--fpp 0.01 --hash-key-file "$W/hk" -f "$W/keys"
	# (files, not <(...): the guest has no /dev/fd)
	for s in k b; do
		tail -c +257 "$W/$s$t.snap" >"$W/$s$t.payload"
		# type .. payload checksum (bytes 28..87), hash key (120..135)
		{ head -c 88 "$W/$s$t.snap" | tail -c +29
		  head -c 136 "$W/$s$t.snap" | tail -c +121; } >"$W/$s$t.geo"
	done
	check "$t: build's payload is byte-identical to the kernel's ($(wc -c <"$W/k$t.payload") bytes)" \
		cmp -s "$W/k$t.payload" "$W/b$t.payload"
	check "$t: build's geometry, checksum and hash key equal the kernel's" \
		cmp -s "$W/k$t.geo" "$W/b$t.geo"
	bc restore "$W/b$t.snap"
	answers "$P-b$t" "$W/absent" >"$W/b$t.absent"
	answers "$P-k$t" "$W/absent" >"$W/k$t.absent"
	check "$t: the restored build answers like the kernel filter" \
		cmp -s "$W/b$t.absent" "$W/k$t.absent"
done

# --hash siphash-2-4: build and create agree under that hash too, the
# snapshot says scheme 2 (bytes 24..27) against the default's 3, inspect
# names the hash, and the restored filter keeps it
bc create "$P-k24" --type blocked --capacity 10000 --fpp 0.01 \
	--hash-key "$HK" --hash siphash-2-4 && bc add "$P-k24" -f "$W/keys"
bc save "$P-k24" "$W/k24.snap"
bc build "$W/b24.snap" --name "$P-b24" --type blocked --capacity 10000 \
	--fpp 0.01 --hash-key-file "$W/hk" --hash siphash-2-4 -f "$W/keys"
tail -c +257 "$W/k24.snap" >"$W/k24.payload"
tail -c +257 "$W/b24.snap" >"$W/b24.payload"
check "--hash siphash-2-4: build's payload is byte-identical to the kernel's" \
	cmp -s "$W/k24.payload" "$W/b24.payload"
check "--hash siphash-2-4: another payload than the default hash's" \
	sh -c "! cmp -s '$W/k24.payload' '$W/kblocked.payload'"
check "the snapshots' scheme ids: 2 for siphash-2-4, 3 for the default" \
	sh -c "[ \"\$(od -A n -t u4 -j 24 -N 4 '$W/k24.snap' | tr -d ' ')\" = 2 ] &&
	       [ \"\$(od -A n -t u4 -j 24 -N 4 '$W/kblocked.snap' | tr -d ' ')\" = 3 ]"
check "inspect --json names each snapshot's hash" \
	sh -c "bloomctl inspect --json '$W/k24.snap' | grep -q '\"hash\": \"siphash-2-4\"' &&
	       bloomctl inspect --json '$W/kblocked.snap' | grep -q '\"hash\": \"siphash-1-3\"'"
bc restore "$W/b24.snap"
check "the restored siphash-2-4 build keeps its hash and answers like the kernel filter" \
	sh -c "[ \"\$(cat /sys/class/misc/bloom/filters/$P-b24/hash)\" = siphash-2-4 ] &&
	       [ \"\$(bloomctl test $P-b24 -f '$W/absent' | wc -l)\" = \"\$(bloomctl test $P-k24 -f '$W/absent' | wc -l)\" ] &&
	       [ \"\$(bloomctl test $P-b24 -f '$W/keys' | wc -l)\" = 4000 ]"

# the comparison can fail: another hash key gives another payload
bc build "$W/other.snap" --name "$P-o" --capacity 10000 --fpp 0.01 \
	--hash-key ffeeddccbbaa99887766554433221100 -f "$W/keys"
tail -c +257 "$W/other.snap" >"$W/other.payload"
check "another hash key gives another payload (negative control)" \
	test -s "$W/other.payload" -a -s "$W/kstandard.payload" -a \
	"$(cmp -s "$W/other.payload" "$W/kstandard.payload"; echo $?)" = 1

# build with netblock lengths (--prefix-lengths) == create with them, then
# add -f of the same feed: the same payload, and the restored filter
# stores netblocks at those lengths (a del of a /20 removes its /24s)
printf '10.1.0.0/20\n192.0.2.7\n10.9.9.0/26\n198.51.100.0/24\n' >"$W/nb"
bc create "$P-kp" --type counting --keys ipv4 --capacity 1000 --fpp 0.001 \
	--prefix-lengths 24 --hash-key "$HK" && bc add "$P-kp" --ipv4 -f "$W/nb"
bc save "$P-kp" "$W/kp.snap"
bc build "$W/bp.snap" --name "$P-bp" --type counting --capacity 1000 \
	--fpp 0.001 --ipv4 --prefix-lengths 24 --hash-key-file "$W/hk" -f "$W/nb"
for s in kp bp; do
	bytes=$(bloomctl inspect "$W/$s.snap" |
		sed -n 's/^format:.*payload \([0-9]*\) bytes/\1/p')
	tail -c "${bytes:-1}" "$W/$s.snap" >"$W/$s.payload"
done
check "build --prefix-lengths: payload byte-identical to create --prefix-lengths and add -f ($(wc -c <"$W/kp.payload") bytes)" \
	cmp -s "$W/kp.payload" "$W/bp.payload"
bc restore "$W/bp.snap"
check "the restored build has the lengths (info)" \
	sh -c "bloomctl info $P-bp | grep -Eq '^prefix lengths: +ipv4 /24 \(netblocks are stored at these only\)'"
check "... 82 keys stored: a /20 as 16 /24s, a /26 as 64 addresses, a /24, an address" \
	sh -c "bloomctl info $P-bp | grep -Eq '^adds: +82( |$)'"
bc test "$P-bp" --ipv4 10.1.15.200 10.9.9.63 192.0.2.7 >"$W/nbt"
check "addresses inside the netblocks are present" \
	sh -c "[ \$(grep -c 'may be present' '$W/nbt') = 3 ]"
bc del "$P-bp" --ipv4 10.1.0.0/20 >"$W/nbd"
check "del of the /20 on the restored build removes what build stored" \
	sh -c "grep -q 'removed 1 key, 0 not found' '$W/nbd'"
bc test "$P-bp" --ipv4 10.1.15.200 >"$W/nbt"
check "... and its addresses are absent" grep -q 'absent' "$W/nbt"
bc build "$W/bq.snap" --name "$P-bq" --type counting --fpp 0.001 --ipv4 \
	--prefix-feed "$W/nb" --hash-key-file "$W/hk" -f "$W/nb"
check "build --prefix-feed without --capacity: the keys the feed stores" \
	sh -c "grep -q 'capacity [0-9]*, the keys' '$W/err' && bloomctl inspect '$W/bq.snap' | grep -Eq '^capacity: +[0-9]+ keys'"
bc build "$W/bz.snap" --name "$P-bz" --capacity 10 --fpp 0.01 \
	--prefix-lengths 24 -f "$W/nb"
check "build --prefix-lengths without --ipv4/--ipv6 is refused" \
	sh -c "[ ! -e '$W/bz.snap' ] && grep -q 'give --ipv4 or --ipv6' '$W/err'"

# 3. pipes, --name, bad files
bc save "$P-standard" - | bc restore - --name "$P-piped"
check "save - | restore - --name" bc test "$P-piped" -q key-17
head -c 1000 "$W/kstandard.snap" >"$W/short.snap"
before=$(bloomctl list -n | wc -l)
bc restore "$W/short.snap" --name "$P-short"
rc=$?
check "a truncated file is refused (exit $rc)" test "$rc" = 3
check "  with the reason on stderr" grep -q "truncated" "$W/err"
printf 'hello\n' >"$W/text.snap"
bc restore "$W/text.snap" --name "$P-text"
check "a text file is refused as not a snapshot" grep -q "not a bloom snapshot" "$W/err"
check "  and nothing was created" test "$(bloomctl list -n | wc -l)" = "$before"
bc restore "$W/kstandard.snap"
check "restoring over an existing name is refused" grep -q "exists already" "$W/err"

# Input that never ends, or is longer than its header says, is refused
# after the header, without reading on; a FIFO in a directory is skipped
# rather than waited on. Each bounded: a hang fails as exit 124.
timeout 10 bloomctl restore /dev/zero --name "$P-zero" 2>"$W/err"
rc=$?
check "restore of /dev/zero is refused at once (exit $rc)" test "$rc" = 3
check "  as not a snapshot" grep -q "not a bloom snapshot" "$W/err"
timeout 10 bloomctl --device "$W/nodev" restore /dev/zero 2>"$W/err"
check "  the file is refused before the device is opened" \
	grep -q "not a bloom snapshot" "$W/err"
timeout 10 sh -c 'cat /dev/zero | bloomctl restore - --name "$1"' sh "$P-zero" \
	2>"$W/err"
rc=$?
check "restore - of an endless stream of zeros is refused at once (exit $rc)" \
	test "$rc" = 3
timeout 10 sh -c 'cat "$1" /dev/zero | bloomctl restore - --name "$2"' sh \
	"$W/kstandard.snap" "$P-tail" 2>"$W/err"
rc=$?
check "restore - of a snapshot followed by endless bytes is refused (exit $rc)" \
	test "$rc" = 3
check "  for its trailing bytes" grep -q "trailing bytes" "$W/err"
cat "$W/kstandard.snap" "$W/kstandard.snap" >"$W/long.snap"
timeout 10 bloomctl restore "$W/long.snap" --name "$P-long" 2>"$W/err"
rc=$?
check "a file longer than its header says is refused (exit $rc)" \
	sh -c "[ $rc = 3 ] && grep -q 'trailing bytes' '$W/err'"
check "  and nothing was created" test "$(bloomctl list -n | wc -l)" = "$before"
mkdir "$W/fifo" && mkfifo "$W/fifo/a.bloom" &&
	bc build "$W/fifo/z.bloom" --name "$P-fifo" --capacity 10000 \
		--fpp 0.01 -f "$W/keys"
timeout 20 bloomctl restore --all "$W/fifo" 2>"$W/err"
rc=$?
check "restore --all skips a FIFO named *.bloom without waiting (exit $rc)" \
	test "$rc" = 0
check "  and says so" grep -q "a.bloom' is a FIFO, not a regular file: skipped" "$W/err"
check "  and restores the other files" bc test "$P-fifo" -q key-17

# 4. --like, merge, flush
bc create "$P-m1" --capacity 5000 --fpp 0.01 &&
	bc create "$P-m2" --like "$P-m1" &&
	bc add "$P-m1" a b c && bc add "$P-m2" x y z
check "merge DST SRC" bc merge "$P-m1" "$P-m2"
check "  DST holds both key sets" bc test "$P-m1" -q a b c x y z
bc merge "$P-m1" "$P-standard"
check "merging filters of another hash key is refused with a hint" \
	grep -q -- "--like" "$W/err"
check "flush NAME" bc flush "$P-m1"
bc test "$P-m1" -q a
rc=$?
check "  the flushed filter answers absent (exit $rc)" test "$rc" = 1

# 5. swap and restore --replace
bc create "$P-s1" --capacity 5000 --fpp 0.01 && bc add "$P-s1" one
bc create "$P-s2" --capacity 9000 --fpp 0.01 && bc add "$P-s2" two
check "swap NAME1 NAME2" bc swap "$P-s1" "$P-s2"
check "  NAME1 holds NAME2's keys" bc test "$P-s1" -q two
check "  NAME2 holds NAME1's keys" bc test "$P-s2" -q one
bc save "$P-s2" "$W/s2.snap"
bc restore "$W/s2.snap" --name "$P-s1"
check "restore over an existing filter without --replace is refused" \
	grep -q "exists already" "$W/err"
check "restore --replace replaces the existing filter's contents" \
	bc restore "$W/s2.snap" --name "$P-s1" --replace
check "  it holds the snapshot's keys" bc test "$P-s1" -q one
check "restore --replace creates a missing filter" \
	bc restore "$W/s2.snap" --name "$P-s3" --replace
bc swap "$P-s1" "$P-counting"
check "swapping filters of different types is refused, naming both types" \
	grep -q "their types differ: $P-s1 is standard, $P-counting counting" "$W/err"

# build into a d-left filter too small: the line of the first key that did
# not fit, as add names lines (FILE:LINE), and how many keys fit before it
! bc build "$W/dl.snap" --name "$P-dl" --type dleft --capacity 10 \
	--fpp 0.01 -f "$W/keys"
check "build into a full dleft filter names FILE:LINE and the keys before it" \
	grep -Eq "^bloomctl: $W/keys:([0-9]+): the dleft filter is full: .*after the [0-9]+ keys before it" "$W/err"
check "  and the count is the line's number minus one (not 0)" \
	sh -c "sed -n 's/^bloomctl: .*:\([0-9]*\): the dleft .* after the \([0-9]*\) keys.*/\1 \2/p' '$W/err' | { read l k; [ \"\$k\" -gt 10 ] && [ \"\$l\" = \$((k + 1)) ]; }"
# past capacity, build warns as add does and still writes the snapshot
bc build "$W/over.snap" --name "$P-ov" --capacity 10 --fpp 0.01 -f "$W/keys" >/dev/null
check "build past capacity warns with the keys added, and writes the snapshot" \
	sh -c "grep -q '^bloomctl: warning: $P-ov holds more keys than its capacity of 10 (4000 keys added' '$W/err' && [ -s '$W/over.snap' ]"

# The fixed snapshot of an expiring filter (data/expire.snap, written once
# by data/gen_expire_snap.sh): 30 keys, 10 in each of three generations,
# G = 4, timeout 90 s, hash key $HK. data/snap_restamp.py reads its
# generation table and re-stamps its save time.
FX=$(dirname "$0")/data/expire.snap
RS=$(dirname "$0")/data/snap_restamp.py
for set in a b c; do seq 1 10 | sed "s/^/exp-$set-/"; done >"$W/fx.keys"
python3 "$RS" --table "$FX" >"$W/fx.table"
check "fixed expiring snapshot, saved long ago: restored" \
	bc restore "$FX" --name "$P-fx-old"
check "  every generation expired meanwhile: none of its 30 keys is left" \
	eval '[ -z "$(answers "$P-fx-old" "$W/fx.keys")" ]'
bc save "$P-fx-old" "$W/fx-old.snap"
check "  geometry, hash key, timeout and generations as recorded" \
	python3 -c 'import sys
a, b = (open(f, "rb").read() for f in sys.argv[1:])
sys.exit(a[24:72] != b[24:72] or a[120:136] != b[120:136] or a[208:224] != b[208:224])' \
	"$FX" "$W/fx-old.snap"
# A generation's age is kept on the boot clock, which cannot say "born
# before boot": wait until the guest has been up longer than the oldest
# age the file records (72 s), which it is already when run_tests.sh gets
# here, so that the ages below are the file's.
up=$(cut -d. -f1 /proc/uptime)
[ "$up" -ge 80 ] || sleep $((80 - up))
python3 "$RS" "$FX" "$W/fx-now.snap"
check "fixed expiring snapshot re-stamped as saved now: restored" \
	bc restore "$W/fx-now.snap" --name "$P-fx-now"
check "  all 30 keys are present (the file keeps the oldest for over 30 s)" \
	eval '[ "$(answers "$P-fx-now" "$W/fx.keys" | wc -l)" = 30 ]'
bc info --json "$P-fx-now" >"$W/fx-now.json"
# The generations as the file has them, oldest first, but for those whose
# keep time was 0 at the save: a restore clears them at once and makes them
# the newest (count 0, born now). Ages: the recorded ones plus the time
# since the re-stamp, well under 30 s.
check "  each generation's key count and age as recorded" \
	python3 -c 'import json, sys
info = json.load(open(sys.argv[1]))
rows = [list(map(int, l.split())) for l in open(sys.argv[2])]
timeout_ms, g = rows.pop()
gone = [r for r in rows if r[2] == 0]
want = [r for r in rows if r[2] != 0] + [[0, 0, 0]] * len(gone)
gens = info["generations"]
ok = info["timeout_ms"] == timeout_ms and len(gens) == g == len(want)
for gen, (keys, age, keep) in zip(gens, want):
    ok = ok and gen["count"] == keys and age <= gen["age_ms"] <= age + 30000
sys.exit(not ok)' "$W/fx-now.json" "$W/fx.table"

# The fixed snapshots of timed filters in the four-subtable layout
# (data/timed4-32.snap and data/timed4-64.snap, written once by that
# layout's own code: data/gen_timed4_snap.c): keys old-0 .. old-999 with
# timeouts by i mod 4 (none, 600 s, 1 day, 30 days), every tenth deleted
# again, saved 2026-11-27.
T4=$(dirname "$0")/data/timed4-32.snap
seq 0 999 | awk '$1 % 10' | sed 's/^/old-/' >"$W/t4.kept"
seq 0 10 999 | sed 's/^/old-/' >"$W/t4.deleted"
seq 0 999 | awk '$1 % 10 && $1 % 4 == 0' | sed 's/^/old-/' >"$W/t4.forever"
seq 0 999 | awk '$1 % 10 && ($1 % 4 == 1 || $1 % 4 == 2)' |
	sed 's/^/old-/' >"$W/t4.short"
bc inspect "$T4" >"$W/t4.inspect"
check "four-subtable timed snapshot: inspect says restore converts it" \
	grep -q '^layout: .*four-subtable.*restore converts it' "$W/t4.inspect"
check "  inspect --check --json: checked, earlier_layout true, hashes 2" \
	sh -c "bloomctl inspect --check --json '$T4' | python3 -c 'import json, sys
j = json.load(sys.stdin)
sys.exit(not (j[\"checked\"] and j[\"earlier_layout\"] and j[\"hashes\"] == 2))'"
check "  saved long ago: restored, converted" \
	bc restore "$T4" --name "$P-t4-old"
check "  its 200 keys without timeout are all present" \
	eval '[ "$(answers "$P-t4-old" "$W/t4.forever" | wc -l)" = 200 ]'
check "  its keys of 600 s and a day are gone (the save is days old)" \
	eval '[ -z "$(answers "$P-t4-old" "$W/t4.short")" ]'
python3 "$RS" "$T4" "$W/t4-now.snap"
check "  re-stamped as saved now: restored" \
	bc restore "$W/t4-now.snap" --name "$P-t4-now"
check "  all 900 keys kept are present" \
	eval '[ "$(answers "$P-t4-now" "$W/t4.kept" | wc -l)" = 900 ]'
check "  none of the 100 deleted keys is" \
	eval '[ -z "$(answers "$P-t4-now" "$W/t4.deleted")" ]'
bc save "$P-t4-now" "$W/t4-saved.snap"
check "  saved again: today's layout (no layout line, 2 subtables)" \
	sh -c "bloomctl inspect '$W/t4-saved.snap' >'$W/t4s.inspect' &&
	       ! grep -q '^layout:' '$W/t4s.inspect' &&
	       grep -q '^hashes: *2\$' '$W/t4s.inspect'"
check "  and that file restores with all 900 keys" \
	sh -c "bloomctl restore '$W/t4-saved.snap' --name '$P-t4-again' &&
	       [ \"\$(bloomctl test '$P-t4-again' -f '$W/t4.kept' | wc -l)\" = 900 ]"
! bc restore "$(dirname "$0")/data/timed4-64.snap" --name "$P-t4-64"
check "four-subtable timed snapshot of 64-bit cells: refused with the reason" \
	grep -q "timed4-64.snap: .*cannot hold exactly: create it anew and add its keys again; nothing was restored" "$W/err"
check "  and no filter was created" \
	eval '! bloomctl info "$P-t4-64" >/dev/null 2>&1'

echo "1..$n"
exit $((failed > 0))
