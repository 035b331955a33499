#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# TAP 13 test of bloomctl on filters whose keys have their own timeouts
# (create --key-timeouts): create --exist and ipset's -exist, add --timeout
# and a second add, del and what it counts, del --exist, ipset save lines
# with "timeout N", keys that expire by themselves, and the refusals (a
# timeout that is no duration, one over the filter's largest, one for a
# filter without key timeouts) and what they say. Runs as root with
# bloom.ko loaded and bloomctl on PATH, e.g.
#   selftests/vm/run.sh -- selftests/cli/test_keytimes.sh
# Exits 0 iff every check passes; destroys every filter it made.

. "$(dirname "$0")/../tap.sh"
. "$(dirname "$0")/lib.sh"
cli_begin kt
PY=$(command -v /usr/bin/python3 || command -v python3)

# json KEY: a top-level field of the last command's JSON output
json() { "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$W/out" "$1"; }

# --- create, and create again -------------------------------------------------
B="${P}b"
opts="--capacity 1000 --fpp 1e-4 --key-timeouts --timeout 10m --max-timeout 1d --keys ipv4"
# shellcheck disable=SC2086 # $opts is a list of options
run create "$B" $opts
check "create --key-timeouts --timeout 10m --max-timeout 1d" [ "$rc" = 0 ]
run info --json "$B"
check "info --json: type timed, keys' default 600 s, largest 86400 s" \
	sh -c "[ '$(json type)' = timed ] && [ '$(json key_timeout_s)' = 600 ] && [ '$(json key_timeout_max_s)' = 86400 ]"
# shellcheck disable=SC2086
expect "create --exist of the same filter: exit 0 (fail2ban's actionstart)" 0 \
	create "$B" $opts --exist
# shellcheck disable=SC2086
expect "ipset's spelling, -exist: exit 0" 0 create "$B" $opts -exist
expect_err "create --exist with another default timeout: refused, saying what differs" 3 \
	"exists, but its keys' default timeout is 600s" \
	create "$B" --capacity 1000 --fpp 1e-4 --key-timeouts --timeout 1h --keys ipv4 --exist

# --- add, a second add, del -----------------------------------------------------
expect "add --ipv4 203.0.113.7 --timeout 10m" 0 add "$B" --ipv4 203.0.113.7 --timeout 10m
expect "test: present" 0 test "$B" --ipv4 203.0.113.7
expect "add it again with --timeout 1h --exist: exit 0" 0 \
	add "$B" --ipv4 203.0.113.7 --timeout 1h --exist
check "sysfs: one key in one cell after two adds (bits_set 1)" \
	[ "$(sysval "$B" bits_set)" = 1 ]
run del "$B" --ipv4 203.0.113.7
check "one del removes it, whatever was added before: 'removed 1 key, 0 not found'" \
	sh -c "[ $rc = 0 ] && grep -q 'removed 1 key, 0 not found' '$W/out'"
expect "test: absent" 1 test "$B" --ipv4 203.0.113.7
expect "del of a key not there: exit 1" 1 del "$B" --ipv4 203.0.113.7
expect "del --exist of a key not there: exit 0" 0 del "$B" --ipv4 203.0.113.7 --exist
expect "del -exist, ipset's spelling: exit 0" 0 del "$B" --ipv4 203.0.113.7 -exist
expect "add of a netblock takes the default timeout" 0 add "$B" --ipv4 198.51.100.0/24
expect "an address inside it: present" 0 test "$B" --ipv4 198.51.100.9

# --- refusals -------------------------------------------------------------------
expect_err "a negative timeout: refused, with the range" 2 \
	"bad timeout '-5': give 0 \\(no timeout\\) or whole seconds from 1 to 2147483647" \
	add "$B" --ipv4 203.0.113.8 --timeout -5
expect_err "a timeout that is no number: refused, with the range" 2 \
	"bad timeout 'soon': give 0 \\(no timeout\\) or whole seconds" \
	add "$B" --ipv4 203.0.113.8 --timeout soon
expect_err "a timeout over the filter's largest: refused, with its range" 2 \
	"bad timeout 172800s: $B takes timeouts from 0 \\(none\\) to 86400s" \
	add "$B" --ipv4 203.0.113.8 --timeout 2d
expect "and nothing was added" 1 test "$B" --ipv4 203.0.113.8
run create "${P}plain" --capacity 1000 --fpp 0.01 --keys ipv4
expect_err "a timeout for a filter without key timeouts: says how to create one" 2 \
	"${P}plain is a standard filter, whose keys have no timeouts of their own: create one with --key-timeouts" \
	add "${P}plain" --ipv4 203.0.113.8 --timeout 10m

# --- ipset save lines -----------------------------------------------------------
printf 'create x hash:ip timeout 0\nadd x 192.0.2.1 timeout 2\nadd x 192.0.2.2\n' >"$W/save"
run add "$B" --ipv4 -f "$W/save"
t1=$(date +%s.%N)
check "add -f of ipset save lines with and without 'timeout N'" [ "$rc" = 0 ]
expect "both present at once" 0 test "$B" --ipv4 192.0.2.1 192.0.2.2
# 2 s, in units of 1 s: absent from 2 + 1 s after the add on
sleep "$(awk -v t="$t1" -v n="$(date +%s.%N)" 'BEGIN { d = t + 3 - n; printf "%.3f", (d > 0 ? d : 0) }')"
expect "the line's 2 s have passed: absent" 1 test "$B" --ipv4 192.0.2.1
expect "the line without a timeout took the default (10 min): present" 0 \
	test "$B" --ipv4 192.0.2.2
printf 'add x 192.0.2.3 timeout 90000\n' >"$W/over"
run add "$B" --ipv4 -f "$W/over"
check "a save line's timeout over the filter's largest: refused, naming the line" \
	sh -c "[ $rc != 0 ] && grep -q 'over:1: ipset timeout 90000 over the filter.s largest, 86400 s' '$W/err'"
run add "${P}plain" --ipv4 -f "$W/save"
check "into a filter without key timeouts: added, and a note says the timeouts were not kept" \
	sh -c "[ $rc = 0 ] && grep -q 'note: ${P}plain: the timeouts of 1 ipset entry were not kept' '$W/err'"

# Timeout 0 is none, and --max-timeout does not bound it: such a key stays
# past the largest timeout, as bloomctl(8) says.
run create "${P}z" --capacity 100 --fpp 1e-4 --key-timeouts --max-timeout 2 --keys ipv4
run add "${P}z" --ipv4 --timeout 0 192.0.2.10
run add "${P}z" --ipv4 --timeout 2 192.0.2.11
sleep 5
run test "${P}z" --ipv4 192.0.2.10 192.0.2.11
check "under --max-timeout 2 s a key of timeout 0 is present after 5 s, one of 2 s gone" \
	sh -c "printf '192.0.2.10: may be present\n192.0.2.11: absent\n' | cmp -s - '$W/out'"

# Timed filters that grow (--key-timeouts --scalable): ten times the
# capacity with no failed add, every key present, the unlisted ones' rate
# under the one asked for, deletes and re-adds in whichever stage holds a
# key, and the stages of keys that expired freed by the sweep.
G=${P}grow
run create "$G" --capacity 1000 --fpp 0.001 --key-timeouts --scalable --keys ipv4
check "create --key-timeouts --scalable" [ "$rc" = 0 ]
"$PY" -c 'import sys
for i in range(10000): print("10.%d.%d.1" % (i // 250, i % 250))' >"$W/ten"
"$PY" -c 'import sys
for i in range(10000): print("172.%d.%d.9" % (16 + i // 250, i % 250))' >"$W/unlisted"
run add "$G" --ipv4 -f "$W/ten"
check "10,000 addresses into capacity 1,000: added, no error" \
	sh -c "[ $rc = 0 ] && ! grep -q . '$W/err'"
run info --json "$G"
stages=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["stage_count"])' "$W/out")
check "info shows the stages it grew ($stages: capacity 1,000 then 10,000, growth 10)" [ "${stages:-0}" -ge 2 ]
check "sysfs shows as many stages" \
	[ "$(sysval "$G" stage_capacity | wc -w)" = "$stages" ]
runin "$W/ten" test "$G" --ipv4 -q -f -
check "every one of the 10,000 present" [ "$rc" = 0 ]
run test "$G" --ipv4 -f "$W/unlisted"
fp=$(grep -c 'may be present' "$W/out")
# at most 1e-3 asked: mean under 10 of 10,000; 30 or more has a chance
# under 1e-7 (Poisson)
check "10,000 unlisted addresses: $fp false positives (under 30)" [ "$fp" -lt 30 ]
run del "$G" --ipv4 10.0.0.1 10.39.249.1
expect "deleted from the first stage and the newest: absent" 1 \
	test "$G" --ipv4 10.0.0.1
expect "the other deleted one absent too" 1 test "$G" --ipv4 10.39.249.1
run add "$G" --ipv4 10.0.0.1 10.39.249.1
expect "re-added: present" 0 test "$G" --ipv4 10.0.0.1 10.39.249.1
# keys of 2 s in a growing filter: once they expired the sweep (every 8 s)
# empties their stages and frees all but the newest
E=${P}gone
run create "$E" --capacity 500 --fpp 0.001 --key-timeouts --scalable --keys ipv4
run add "$E" --ipv4 --timeout 2 -f "$W/ten"
run info --json "$E"
before=$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["stage_count"], d["memory_bytes"])' "$W/out")
after=$before
for i in $(seq 1 30); do
	sleep 2
	run info --json "$E"
	after=$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["stage_count"], d["memory_bytes"])' "$W/out")
	[ "${after%% *}" = 1 ] && break
done
check "expired stages freed by the sweep: stages and memory $before -> $after" \
	sh -c "[ '${after%% *}' = 1 ] && [ '${after#* }' -lt '${before#* }' ]"
run add "$E" --ipv4 -f "$W/ten"
runin "$W/ten" test "$E" --ipv4 -q -f -
check "it grows again after: all 10,000 added and present" [ "$rc" = 0 ]
# a snapshot keeps the stages (their terms, what each holds, the timeouts)
run save "$G" "$W/grow.snap"
check "save of a timed filter that grew" [ "$rc" = 0 ]
run restore "$W/grow.snap" --name "${P}back"
check "restore of it" [ "$rc" = 0 ]
run info --json "${P}back"
back=$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["stage_count"], d["key_timeout_max"] if "key_timeout_max" in d else "")' "$W/out")
check "restored with its $stages stages ($back)" [ "${back%% *}" = "$stages" ]
runin "$W/ten" test "${P}back" --ipv4 -q -f -
check "every key present in the restored filter" [ "$rc" = 0 ]
run add "${P}back" --ipv4 -f "$W/unlisted"
runin "$W/unlisted" test "${P}back" --ipv4 -q -f -
check "the restored filter takes 10,000 more and grows on" [ "$rc" = 0 ]

# A suspend: CLOCK_BOOTTIME, the keys' clock, moves on while the sweep,
# which runs on jiffies, waits; debugfs' "slept" makes one. A key of 40 s
# (units of 2 s) 120 s later is 40 units past its expiry, where its cell's
# tick reads live again (module/core/timed.c): the first writer, or the
# sweep, decodes the cells against the time before the jump and empties
# what expired meanwhile; keys whose time is not up stay.
SL=/sys/kernel/debug/bloom/slept
if [ -w "$SL" ]; then
	S=${P}sleep
	run create "$S" --capacity 1000 --fpp 1e-4 --key-timeouts --keys ipv4
	run add "$S" --ipv4 --timeout 40 192.0.2.1
	run add "$S" --ipv4 --timeout 1d 192.0.2.2
	run add "$S" --ipv4 192.0.2.3
	echo 120 >"$SL"
	run add "$S" --ipv4 --timeout 40 192.0.2.4
	run test "$S" --ipv4 192.0.2.1 192.0.2.2 192.0.2.3 192.0.2.4
	check "after a 120 s suspend and a write: the 40 s key gone; the day's, the one without timeout and the new one present" \
		sh -c "printf '192.0.2.1: absent\n192.0.2.2: may be present\n192.0.2.3: may be present\n192.0.2.4: may be present\n' | cmp -s - '$W/out'"
	echo 120 >"$SL"
	gone=no
	for i in $(seq 1 30); do
		run test "$S" --ipv4 192.0.2.4
		[ "$rc" = 1 ] && gone=yes && break
		sleep 1
	done
	check "after another, with no writer: the sweep empties the new key within 30 s ($gone)" [ "$gone" = yes ]
	expect "the day's and the permanent key still present" 0 \
		test "$S" --ipv4 192.0.2.2 192.0.2.3
else
	ok "a suspend # SKIP no debugfs file $SL (debugfs not mounted)"
	ok "a suspend # SKIP no debugfs file $SL (debugfs not mounted)"
	ok "a suspend # SKIP no debugfs file $SL (debugfs not mounted)"
fi

echo "1..$n"
[ "$failed" = 0 ]
