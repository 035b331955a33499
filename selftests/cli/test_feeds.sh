#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# TAP 13 test of what add, test and del --ipv4/--ipv6 take as an address:
# /0 refused, netblocks shorter than /8 only with --allow-short-prefixes,
# command-line keys that are keys (no blank or comment skipped as a feed
# line would be), and the progress and -v summary a feed gets as strings
# do. Runs as root with bloom.ko loaded and bloomctl on PATH, e.g.
#   selftests/vm/run.sh -- selftests/cli/test_feeds.sh
# Exits 0 iff every check passes; destroys every filter it made.

. "$(dirname "$0")/../tap.sh"
. "$(dirname "$0")/lib.sh"
cli_begin feed

# count NAME: the filter's adds (keys sent to it)
adds() { bloomctl info "$1" | sed -n 's/^adds: *\([0-9]*\).*/\1/p'; }

# --- /0 holds every address: refused, as ipset refuses it ----------------
run create ${P}4 --capacity 1000 --fpp 0.01 --keys ipv4
run create ${P}6 --capacity 1000 --fpp 0.01 --keys ipv6
printf '203.0.113.0/24\n0.0.0.0/0\n' >"$W/zero4"
run add ${P}4 --ipv4 -f "$W/zero4"
check "a feed line 0.0.0.0/0 refuses the feed, naming the line and why" \
	sh -c "[ $rc = 3 ] && grep -q 'zero4:2: a /0 netblock holds every address' '$W/err' && [ \"\$(bloomctl info ${P}4 | sed -n 's/^count: *\([0-9]*\).*/\1/p')\" = 0 ]"
run add ${P}4 --ipv4 --skip-invalid -f "$W/zero4"
check "under --skip-invalid the /0 is a bad line, skipped and named" \
	sh -c "[ $rc = 0 ] && grep -q 'zero4:2: a /0 netblock' '$W/err' && grep -q 'skipped 1 bad line, sending the 1 good entry' '$W/err'"
run test ${P}4 --ipv4 198.51.100.7 203.0.113.9
check "  so an unlisted address stays absent, a listed one present" \
	sh -c "[ $rc = 1 ] && printf '198.51.100.7: absent\n203.0.113.9: may be present\n' | cmp -s - '$W/out'"
expect_err "::/0 on the command line is refused, nothing added" 3 \
	"key 1 \('::/0'\): a /0 netblock holds every address.*nothing was added" \
	add ${P}6 --ipv6 ::/0
expect_err "  even with --allow-short-prefixes" 3 "a /0 netblock" \
	add ${P}6 --ipv6 --allow-short-prefixes ::/0
expect_err "  and 1.2.3.4/0 under --mask-host-bits" 3 "a /0 netblock" \
	add ${P}4 --ipv4 --mask-host-bits 1.2.3.4/0

# --- shorter than /8: only when said to be meant ----------------------------
printf '# level 1\n224.0.0.0/3\n10.0.0.0/8\n' >"$W/short4"
run add ${P}4 --ipv4 -f "$W/short4"
check "a /3 line refuses the feed, naming --allow-short-prefixes" \
	sh -c "[ $rc = 3 ] && grep -q 'short4:2: a netblock shorter than /8 .*--allow-short-prefixes' '$W/err'"
run test ${P}4 --ipv4 230.1.2.3
check "  and nothing of it was added" sh -c "[ $rc = 1 ]"
run add ${P}4 --ipv4 --allow-short-prefixes -f "$W/short4"
run test ${P}4 --ipv4 230.1.2.3 10.9.8.7
check "--allow-short-prefixes adds it: addresses under it test present" sh -c "[ $rc = 0 ]"
expect_err "--allow-short-prefixes without --ipv4/--ipv6 is a usage error" 2 \
	"go with --ipv4 or --ipv6" add ${P}4 --allow-short-prefixes x
printf '224.0.0.0/3\n' >"$W/b"
expect_err "build refuses the /3 too, naming the option" 3 \
	"b:1: a netblock shorter than /8 .*--allow-short-prefixes" \
	build "$W/b.bloom" --name ${P}b --capacity 10 --fpp 0.01 --ipv4 -f "$W/b"
run build "$W/b.bloom" --name ${P}b --capacity 10 --fpp 0.01 --ipv4 --allow-short-prefixes -f "$W/b"
check "  and builds it with --allow-short-prefixes" sh -c "[ $rc = 0 ] && [ -s '$W/b.bloom' ]"

# --- command-line keys are keys ------------------------------------------------
run create ${P}k --capacity 1000 --fpp 0.01 --keys ipv4
run add ${P}k --ipv4 10.9.9.9
expect_err "test --ipv4 '' 1.2.3.4 10.9.9.9: the empty key is refused, nothing tested" 3 \
	"key 1 \(''\): empty key; nothing was tested" test ${P}k --ipv4 '' 1.2.3.4 10.9.9.9
expect_err "test --ipv4 of only a '#' key exits 3, not 0" 3 \
	"key 1 \('# x'\): not an IPv4 address or netblock; nothing was tested" \
	test ${P}k --ipv4 '# x'
expect_err "test --ipv4 ';' is refused too" 3 "key 1 \(';'\)" test ${P}k --ipv4 ';'
before=$(adds ${P}k)
expect_err "add --ipv4 1.2.3.4 ' ' refuses the blank key" 3 \
	"key 2 \(' '\): not an IPv4 address or netblock; nothing was added" \
	add ${P}k --ipv4 1.2.3.4 ' '
check "  and adds nothing" sh -c "[ '$(adds ${P}k)' = '$before' ]"
expect_err "add --ipv4 of an entry with a comment in the argument is refused" 3 \
	"key 1 \('1.2.3.4 # c'\)" add ${P}k --ipv4 '1.2.3.4 # c'
run create ${P}d --type counting --capacity 1000 --fpp 0.01 --keys ipv4
expect_err "del --ipv4 '#' is refused" 3 "key 1 \('#'\): .*nothing was deleted" \
	del ${P}d --ipv4 '#'
run test ${P}k --ipv4 1.2.3.4 10.9.9.9
check "results print against their own keys" \
	sh -c "[ $rc = 1 ] && printf '1.2.3.4: absent\n10.9.9.9: may be present\n' | cmp -s - '$W/out'"

# --- refusals in an admin's words, said once ---------------------------------
run add ${P}4 --ipv6 2001:db8::1
check "IPv6 keys into a filter of ipv4 keys: refused naming the options, not the ioctl flag" \
	sh -c "[ $rc = 3 ] && grep -q 'holds keys of another kind .*with --ipv4' '$W/err' && ! grep -q BLOOM_ '$W/err'"
run test ${P}k 10.9.9.9
check "a string test of an ipv4 filter says 'nothing was tested' once" \
	sh -c "[ $rc = 3 ] && grep -q 'give --ipv4' '$W/err' && [ \"\$(grep -o 'nothing was tested' '$W/err' | wc -l)\" = 1 ]"

# --- progress and -v: a feed gets what strings get ---------------------------
i=0
while [ $i -lt 200 ]; do echo "10.$((i / 250)).$((i % 250)).0/24"; i=$((i + 1)); done >"$W/feed"
run add ${P}k --ipv4 -v -f "$W/feed"
check "add --ipv4 -v prints entries, time and rate" \
	sh -c "[ $rc = 0 ] && grep -Eq '^bloomctl: ${P}k: added 200 entries in [0-9.]+ s \([0-9]+ entries/s\)' '$W/err'"
run test ${P}k --ipv4 -v -q -f "$W/feed"
check "test --ipv4 -v too" \
	sh -c "[ $rc = 0 ] && grep -Eq '^bloomctl: ${P}k: tested 200 entries in [0-9.]+ s \([0-9]+ entries/s\): 200 may be listed' '$W/err'"
if command -v script >/dev/null; then
	# script(1) gives bloomctl a terminal for stderr
	timeout "$LIMIT" script -qec "bloomctl add ${P}k --ipv4 -f '$W/feed'" /dev/null >"$W/tty" 2>&1
	rc=$?
	check "on a terminal, add --ipv4 -f shows its progress" \
		sh -c "[ $rc = 0 ] && grep -aEq 'add ${P}k: 200 keys, [0-9]+ keys/s' '$W/tty'"
	run add ${P}k --ipv4 -f "$W/feed"
	check "  and not when stderr is no terminal" sh -c "[ $rc = 0 ] && [ ! -s '$W/err' ]"
else
	ok "on a terminal, add --ipv4 -f shows its progress # SKIP no script(1)"
fi

# --- prefix expansion: the filter's own netblock lengths -------------------
# 20 lengths, /12 to /31, a block of each, and an address
: >"$W/plen"
for l in 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31; do
	case $l in
	1[2-5]) echo "$((l * 16)).0.0.0/$l" ;;
	*) echo "100.$l.0.0/$l" ;;
	esac >>"$W/plen"
done
echo 198.51.100.7 >>"$W/plen"
run calc --prefix-feed "$W/plen" --lookups 4 --fpp 0.001 --type blocked
check "calc --prefix-feed --lookups 4: 3 lengths, 21 netblocks over 21 lengths, the keys stored" \
	sh -c "[ $rc = 0 ] && grep -Eq '^prefix lengths: +ipv4 /[0-9]+ /[0-9]+ /[0-9]+, and the address: a lookup tests at most 4' '$W/out' && grep -q '^netblocks given: 21 over 21 lengths (as given, a lookup tests 21)' '$W/out' && grep -Eq '^keys stored: +[0-9]+ ' '$W/out'"
stored=$(sed -n 's/^keys stored: *\([0-9]*\).*/\1/p' "$W/out")
run create ${P}x --keys ipv4 --type counting --fpp 0.001 --prefix-feed "$W/plen" --lookups 4
check "create --prefix-feed without --capacity: the keys stored" \
	sh -c "[ $rc = 0 ] && grep -q 'capacity $stored, the keys' '$W/err' && bloomctl info ${P}x | grep -Eq '^capacity: +$stored'"
run create ${P}x --keys ipv4 --type counting --fpp 0.001 --prefix-feed "$W/plen" --lookups 4 --exist
check "create --exist of the same lengths succeeds" sh -c "[ $rc = 0 ]"
expect_err "create --exist of other lengths says so" 3 \
	"its netblock lengths are not those asked for" \
	create ${P}x --keys ipv4 --type counting --fpp 0.001 --capacity $stored --prefix-lengths 20,24 --exist
check "info shows the lengths" sh -c "bloomctl info ${P}x | grep -Eq '^prefix lengths: +ipv4( /[0-9]+){3} \(netblocks are stored at these only\)'"
run add ${P}x --ipv4 -f "$W/plen"
check "add -f of the 20 lengths: stored at 3 and the addresses" \
	sh -c "[ $rc = 0 ] && [ \"\$(bloomctl info ${P}x --json | sed -n 's/.*\"address_lookups\": \([0-9]*\).*/\1/p')\" -le 4 ] && [ \"\$(bloomctl info ${P}x | sed -n 's/^adds: *\([0-9]*\).*/\1/p')\" = $stored ]"
run test ${P}x --ipv4 -q -f "$W/plen"
check "test -f: every entry present" sh -c "[ $rc = 0 ]"
run test ${P}x --ipv4 100.31.0.0 100.31.0.1 100.25.0.127 192.0.0.1 208.7.255.255
check "addresses inside the blocks present" \
	sh -c "printf '100.31.0.0: may be present\n100.31.0.1: may be present\n100.25.0.127: may be present\n192.0.0.1: may be present\n208.7.255.255: may be present\n' | cmp -s - '$W/out'"
run del ${P}x --ipv4 100.20.0.0/20
check "del of a /20 removes what its add stored" \
	sh -c "[ $rc = 0 ] && grep -q 'removed 1 key, 0 not found' '$W/out'"
run test ${P}x --ipv4 100.21.0.0/21
check "  and the other blocks stay" sh -c "[ $rc = 0 ]"
expect_err "a /12 over 2^16 keys at /29 is refused at calc, saying what to do" 3 \
	"more than 2\\^16 keys" calc --prefix-feed "$W/plen" --prefix-lengths 29 --fpp 0.01

for f in $(bloomctl list -n | grep "^$P"); do run destroy "$f"; done
check "every filter made here was destroyed" sh -c "! bloomctl list -n | grep -q '^$P'"

echo "1..$n"
[ "$failed" = 0 ] && echo "# all $n passed" || echo "# $failed of $n failed"
[ "$failed" = 0 ]
