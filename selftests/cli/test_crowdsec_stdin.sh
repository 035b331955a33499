#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# TAP 13 test of crowdsec-bloom-stdin (tools/clients/), crowdsec-custom-
# bouncer's program when it feeds decisions on standard input
# (feed_via_stdin: true), on lines the bouncer wrote (data/crowdsec-
# decisions.jsonl: Debian 12's crowdsec-custom-bouncer 0.0.15 and crowdsec
# 1.4.6, after cscli decisions add of a range, an address, a range with
# host bits set, an IPv6 address and an address it then deleted; the
# delete came three times) and on lines it never writes: adds and deletes
# of addresses, of ranges with host bits set (held as their networks, and
# deleted by the same value), of IPv6 addresses and ranges; durations as
# the keys' timeouts; an add and a delete of one address in the order they
# came; bad JSON, an overlong line, other scopes, values that are no
# address, expired decisions (none stops the stream, each is said);
# thousands of decisions in a few batches; filters made as crowdsec-bloom
# makes them (the per-decision program takes them as its own), deletes
# that make no filter, a filter destroyed while the program runs; and the
# exits of a program that cannot work (3). Runs as root with bloom.ko
# loaded and bloomctl on PATH, no firewall (BLOOM_CROWDSEC_RULE=0), e.g.
#   selftests/vm/run.sh -- selftests/cli/test_crowdsec_stdin.sh
# Exits 0 iff every check passes; destroys every filter it made.

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$repo/build}
. "$here/../tap.sh"
. "$here/lib.sh"
cli_begin cs
PY=$(command -v /usr/bin/python3 || command -v python3)
[ -x "$BUILD/clients/crowdsec-bloom-stdin" ] ||
	{ echo "Bail out! $BUILD/clients/crowdsec-bloom-stdin missing: make"; exit 1; }

# The two programs side by side, with this tree's bloomctl and the
# settings in $W/etc/default/crowdsec-bloom.
mkdir -p "$W/bin" "$W/etc/default"
sed -e "s|@SBINDIR@/bloomctl|$(command -v bloomctl)|g" -e "s|@SYSCONFDIR@|$W/etc|g" \
	"$repo/tools/clients/crowdsec-bloom.in" >"$W/bin/crowdsec-bloom"
cp "$BUILD/clients/crowdsec-bloom-stdin" "$W/bin/"
chmod 755 "$W/bin/crowdsec-bloom"
S4=${P}v4
S6=${P}v6
echo "BLOOM_CROWDSEC_SET=$S4 BLOOM_CROWDSEC_SET6=$S6 BLOOM_CROWDSEC_CAPACITY=30000 BLOOM_CROWDSEC_RULE=0" \
	>"$W/etc/default/crowdsec-bloom"

# dec ACTION SCOPE VALUE DURATION: a decision line as the bouncer writes it
dec() {
	printf '{"duration":"%s","id":%d,"origin":"cscli","scenario":"manual '"'"'ban'"'"' from '"'"'bloomtest'"'"'","scope":"%s","type":"ban","value":"%s","action":"%s"}\n' \
		"$4" "$$" "$2" "$3" "$1"
}
# feed FILE [OPTIONS]: crowdsec-bloom-stdin reads FILE; out, err, rc
feed() {
	f=$1
	shift
	timeout "$LIMIT" "$W/bin/crowdsec-bloom-stdin" "$@" <"$f" >"$W/out" 2>"$W/err"
	rc=$?
}
has4() { timeout "$LIMIT" bloomctl test "$S4" --ipv4 -q "$1"; }
has6() { timeout "$LIMIT" bloomctl test "$S6" --ipv6 -q "$1"; }
# said RE: the last run said RE on standard error
said() { grep -Eq -- "$1" "$W/err"; }
# json KEY: a top-level field of the last command's JSON output
json() { "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$W/out" "$1"; }

# --- the bouncer's own lines ---------------------------------------------------
feed "$here/data/crowdsec-decisions.jsonl"
check "the bouncer's recorded lines: exit 0 at the end of input" [ "$rc" = 0 ]
check "their adds are held: 10.0.0.1, 192.0.2.0/24, 203.0.113.9/24 as 203.0.113.0/24, 2001:db8::1" \
	eval 'has4 10.0.0.1 && has4 192.0.2.77 && has4 203.0.113.200 && has6 2001:db8::1'
check "and their deletes: 10.0.0.2 (added, then deleted) is not" eval '! has4 10.0.0.2'
run info --json "$S4"
check "filter $S4 is crowdsec-bloom's: timed, IPv4 keys, capacity 30000" \
	eval '[ "$(json type)" = timed ] && [ "$(json key_kind)" = ipv4 ] && [ "$(json capacity)" = 30000 ]'
run_cs() { timeout "$LIMIT" "$W/bin/crowdsec-bloom" "$@" >"$W/out" 2>"$W/err"; rc=$?; }
run_cs add 10.9.9.9 3600 test '{"scope":"Ip"}'
check "crowdsec-bloom (per decision) takes the filter as its own: add exits 0" \
	eval '[ "$rc" = 0 ] && has4 10.9.9.9'

# --- adds and deletes ------------------------------------------------------------
{
	dec add Ip 198.51.100.7 4h0m0s
	dec add Range 198.51.100.130/25 3h59m59.5s
	dec add Ip 2001:db8::7 1h
	dec add Range 2001:db8:5:6:7::9/64 1h
	dec add Ip 198.51.100.8 -3s
	dec add Ip 198.51.100.9 0s
	# one address added and deleted, another deleted and added
	dec add Ip 198.51.100.11 1h
	dec del Ip 198.51.100.11 1h
	dec del Ip 198.51.100.12 1h
	dec add Ip 198.51.100.12 1h
} >"$W/adds.jsonl"
feed "$W/adds.jsonl" --verbose
check "adds: exit 0" [ "$rc" = 0 ]
check "an address, a /25 with host bits (198.51.100.200 held), IPv6 and an IPv6 /64 with host bits" \
	eval 'has4 198.51.100.7 && has4 198.51.100.200 && has6 2001:db8::7 && has6 2001:db8:5:6::1'
check "decisions that expired already (-3s, 0s) add nothing" \
	eval '! has4 198.51.100.8 && ! has4 198.51.100.9'
check "add then delete: gone; delete then add: held" \
	eval '! has4 198.51.100.11 && has4 198.51.100.12'
check "the summary counts them: 2 expired, 8 added and deleted" \
	said '2 expired already.*0 bad, 0 not applied'
# A short decision, on its own: held while it lasts (a machine too slow to
# feed and test it within its 10 s skips that check, saying so), then gone
# by itself.
t0=$(date +%s)
dec add Ip 198.51.100.10 10s >"$W/short.jsonl"
feed "$W/short.jsonl"
if has4 198.51.100.10; then
	ok "a 10 s decision is held"
elif [ $(($(date +%s) - t0)) -ge 9 ]; then
	ok "a 10 s decision is held # SKIP its feed and test took $(($(date +%s) - t0)) s"
else
	not_ok "a 10 s decision is held"
fi
check "and goes by itself within 30 s" wait_for 30 eval '! has4 198.51.100.10'
{
	dec del Range 198.51.100.130/25 1h
	dec del Range 2001:db8:5:6:7::9/64 1h
	dec del Ip 198.51.100.7 1h
	dec del Ip 198.51.100.99 1h
} >"$W/dels.jsonl"
feed "$W/dels.jsonl"
check "deletes by the values of the adds (host bits and all): gone" \
	eval '[ "$rc" = 0 ] && ! has4 198.51.100.200 && ! has6 2001:db8:5:6::1 && ! has4 198.51.100.7'
check "a delete of what is not there is no error: the summary is all that is said" \
	eval '[ "$(wc -l <"$W/err")" = 1 ] && said "^crowdsec-bloom-stdin: end of input after 4 lines: 0 added, 4 deleted"'

# --- what is not a decision ---------------------------------------------------
"$PY" - "$W/bad.jsonl" <<-'EOF'
	import sys
	dec = '{"duration":"1h","id":1,"origin":"cscli","scenario":"s","scope":"%s","type":"ban","value":"%s","action":"%s"}'
	good = lambda n: dec % ("Ip", "10.20.0.%d" % n, "add")
	lines = [
	    "not json", good(1),
	    '{"action":"add","value":"10.20.1.1","duration":"1h"', good(2),
	    '{"action":"add","value":"10.20.1.2","duration":"1h"}' + " x" * 9000, good(3),
	    dec % ("Country", "DE", "add"), good(4),
	    dec % ("Ip", "10.20.1.256", "add"), good(5),
	    dec % ("Ip", "10.20.1.3", "ban"), good(6),
	    '{"action":"add","value":"10.20.1.4"}', good(7),
	    '{"action":"add","value":"10.20.1.5","duration":"forever"}', good(8),
	    dec % ("Range", "16.0.0.0/4", "add"), good(9),
	    '{"action":"add","value":"10.20.1.6\\u0000","duration":"1h"}', good(10),
	    "\x00\x01\xff", good(11),
	    "", good(12),
	]
	open(sys.argv[1], "w").write("\n".join(lines) + "\n")
EOF
feed "$W/bad.jsonl"
check "bad lines: exit 0 at the end of input" [ "$rc" = 0 ]
check "the good line after each bad one is applied (10.20.0.1 .. 12)" \
	eval 'for i in $(seq 1 12); do has4 10.20.0.$i || exit 1; done'
check "none of the bad ones is (10.20.1.1 .. 6)" \
	eval 'for i in $(seq 1 6); do ! has4 10.20.1.$i || exit 1; done'
check "each is said with its line number: line 1 not JSON" said '^crowdsec-bloom-stdin: line 1: not a JSON object'
check "line 3: JSON cut short" said 'line 3: an object without'
check "line 5: a line over 16384 bytes" said 'line 5: a line over 16384 bytes'
check "line 7: scope Country not applied" said "line 7: decision of scope 'Country' for 'DE' not applied"
check "line 9: 10.20.1.256 is not an address" said "line 9: '10.20.1.256': not an IPv4"
check "line 11: action ban" said 'line 11: an "action" other than'
check "line 13: an add without a duration" said "line 13: '10.20.1.4': an add without a \"duration\""
check "line 15: a duration that is none" said "line 15: '10.20.1.5': a duration that is none"
check "line 17: a /4 refused as bloomctl refuses it" said "line 17: '16.0.0.0/4': a netblock shorter than /8"
check "line 19: a NUL in the value" said 'line 19: a NUL character'
check "line 21: bytes that are no text" said 'line 21: not a JSON object'
check "the summary: 10 bad, 1 of another scope, 12 added" \
	said 'end of input after 24 lines: 12 added, 0 deleted, 0 expired already, 1 of other scopes, 10 bad'

# --- batches ----------------------------------------------------------------------
"$PY" - "$W/many.jsonl" <<-'EOF'
	import sys
	dec = '{"duration":"4h0m0s","id":%d,"origin":"CAPI","scenario":"crowdsecurity/ssh-bf","scope":"Ip","type":"ban","value":"%s","action":"add"}\n'
	with open(sys.argv[1], "w") as f:
	    for i in range(20000):
	        f.write(dec % (i, "10.%d.%d.%d" % (100 + i // 65536, i // 256 % 256, i % 256)))
	    for i in range(2000):
	        f.write(dec % (i, "2001:db8:99::%x" % i))
EOF
awk -F'"value":"' '{ split($2, v, "\""); print v[1] }' "$W/many.jsonl" >"$W/many.txt"
grep -v : "$W/many.txt" >"$W/many4.txt"
grep : "$W/many.txt" >"$W/many6.txt"
feed "$W/many.jsonl" --verbose
check "20000 IPv4 and 2000 IPv6 adds from one file: exit 0" [ "$rc" = 0 ]
nb=$(grep -c 'in one batch' "$W/err")
check "in at most 8 batches ($nb)" eval '[ "$nb" -ge 2 ] && [ "$nb" -le 8 ]'
run test "$S4" --ipv4 -f "$W/many4.txt" --absent
check "every IPv4 address is held" eval '[ "$rc" = 0 ] && [ ! -s "$W/out" ]'
run test "$S6" --ipv6 -f "$W/many6.txt" --absent
check "every IPv6 address is held" eval '[ "$rc" = 0 ] && [ ! -s "$W/out" ]'

# --- filters that are not there, or go --------------------------------------------
echo "BLOOM_CROWDSEC_SET=${P}n4 BLOOM_CROWDSEC_SET6=${P}n6 BLOOM_CROWDSEC_RULE=0" \
	>"$W/etc/default/crowdsec-bloom"
{ dec del Ip 10.0.0.1 1h; dec del Ip 2001:db8::1 1h; } >"$W/dels.jsonl"
feed "$W/dels.jsonl"
check "deletes with no filter made: exit 0, and no filter is made" \
	eval '[ "$rc" = 0 ] && ! bloomctl info ${P}n4 >/dev/null 2>&1 && ! bloomctl info ${P}n6 >/dev/null 2>&1'
# crowdsec-bloom without arguments (feed_via_stdin: true with its bin_path)
dec add Ip 10.30.0.1 1h | timeout "$LIMIT" "$W/bin/crowdsec-bloom" >"$W/out" 2>"$W/err"
rc=$?
check "crowdsec-bloom without arguments is crowdsec-bloom-stdin: ${P}n4 made, 10.30.0.1 held" \
	eval '[ "$rc" = 0 ] && timeout "$LIMIT" bloomctl test ${P}n4 --ipv4 -q 10.30.0.1'
# a filter destroyed while the program runs: made again at the next add
mkfifo "$W/fifo"
timeout "$LIMIT" "$W/bin/crowdsec-bloom-stdin" <"$W/fifo" >"$W/out" 2>"$W/err" &
pid=$!
exec 7>"$W/fifo"
dec add Ip 10.30.0.2 1h >&7
check "a running program applies an add" \
	wait_for 30 timeout "$LIMIT" bloomctl test ${P}n4 --ipv4 -q 10.30.0.2
timeout "$LIMIT" bloomctl destroy ${P}n4
dec add Ip 10.30.0.3 1h >&7
check "after ${P}n4 was destroyed, the next add makes it again and is held" \
	wait_for 30 timeout "$LIMIT" bloomctl test ${P}n4 --ipv4 -q 10.30.0.3
exec 7>&-
wait "$pid"
rc=$?
check "the program ends with its input: exit 0" [ "$rc" = 0 ]

# --- a program that cannot work ------------------------------------------------------
mkdir -p "$W/alone"
cp "$W/bin/crowdsec-bloom-stdin" "$W/alone/"
printf '' | timeout "$LIMIT" "$W/alone/crowdsec-bloom-stdin" >"$W/out" 2>"$W/err"
rc=$?
check "without crowdsec-bloom beside it: exit 3, saying it cannot run it" \
	eval '[ "$rc" = 3 ] && said "cannot run .*/alone/crowdsec-bloom"'
timeout "$LIMIT" "$W/bin/crowdsec-bloom-stdin" --bogus </dev/null >"$W/out" 2>"$W/err"
rc=$?
check "an unknown option: exit 2 with the usage" eval '[ "$rc" = 2 ] && said "^usage: crowdsec-bloom-stdin"'
run_cs setup ipv5
check "crowdsec-bloom setup of no family: exit 2" eval '[ "$rc" = 2 ] && said "usage: crowdsec-bloom setup ipv4.ipv6"'

echo "1..$n"
[ "$failed" = 0 ]
