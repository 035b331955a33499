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

# --- a feed is read whole or refused, by every verb that reads one ----------
# --prefix-feed skipped what it could not parse: a feed of "hello" (or of
# tor-geoipdb's integer ranges) gave a filter of capacity 1 that matches
# every address once fed.
printf 'hello\n' >"$W/hello"
printf '203.0.113.0/24\nhello\n198.51.100.0/24\n' >"$W/mixed"
run calc --prefix-feed "$W/mixed" --fpp 0.01
check "calc --prefix-feed of a feed with a bad line refuses it, naming FILE:LINE" \
	sh -c "[ $rc = 3 ] && grep -q 'mixed:2: not an IPv4' '$W/err' && grep -q 'mixed: 1 bad line of 3: nothing was planned (--skip-invalid' '$W/err' && [ ! -s '$W/out' ]"
run calc --prefix-feed "$W/mixed" --fpp 0.01 --skip-invalid
check "  --skip-invalid plans from the 2 good ones, naming the bad one" \
	sh -c "[ $rc = 0 ] && grep -q 'mixed:2:' '$W/err' && grep -q 'skipped 1 bad line' '$W/err' && grep -Eq 'netblocks given: *2' '$W/out'"
run calc --prefix-feed "$W/hello" --fpp 0.01 --skip-invalid
check "calc --prefix-feed of a feed of no addresses is refused even with --skip-invalid" \
	sh -c "[ $rc = 3 ] && grep -q 'no IPv4 addresses or netblocks in it' '$W/err' && [ ! -s '$W/out' ]"
run create ${P}pf --keys ipv4 --prefix-feed "$W/mixed" --fpp 0.01
check "create --prefix-feed refuses the same feed, nothing created" \
	sh -c "[ $rc = 3 ] && grep -q '1 bad line of 3: nothing was planned' '$W/err'"
check "  no filter ${P}pf" sh -c "! bloomctl info ${P}pf >/dev/null 2>&1"
expect_err "build --ipv4 refuses a bad line of its keys, naming --skip-invalid" 3 \
	"mixed:2: .*nothing was written \(--skip-invalid" \
	build "$W/snap" --name x --capacity 100 --fpp 0.01 --ipv4 -f "$W/mixed"
run build "$W/snap" --name x --capacity 100 --fpp 0.01 --ipv4 --skip-invalid -f "$W/mixed"
check "build --skip-invalid writes the good entries, naming the bad line" \
	sh -c "[ $rc = 0 ] && grep -q 'mixed:2:' '$W/err' && grep -q 'skipped 1 bad line' '$W/err' && [ -s '$W/snap' ]"

# --- ranges: A-B as ipset takes them, tor-geoipdb's by country -------------
# Each range is stored as the fewest netblocks that hold it exactly.
printf '192.0.2.0-192.0.3.255\n10.0.0.1-10.0.0.6 # four\n' >"$W/ranges"
run create ${P}r --capacity 100 --fpp 1e-6 --keys ipv4
run add ${P}r --ipv4 -v -f "$W/ranges"
check "add -f of two ranges stores 5 netblocks (192.0.2.0/23; .1, .2/31, .4/31, .6)" \
	sh -c "[ $rc = 0 ] && grep -q 'added 5 entries' '$W/err'"
run test ${P}r --ipv4 192.0.3.200 10.0.0.1 10.0.0.6 10.0.0.0 10.0.0.7
check "  the addresses inside test present, those just outside absent (each 1e-6 by chance)" \
	sh -c "printf '192.0.3.200: may be present\n10.0.0.1: may be present\n10.0.0.6: may be present\n10.0.0.0: absent\n10.0.0.7: absent\n' | cmp -s - '$W/out'"
printf '10.0.0.9-10.0.0.1\n' >"$W/backwards"
run add ${P}r --ipv4 -f "$W/backwards"
check "a range whose first address is after its last is refused" \
	sh -c "[ $rc = 3 ] && grep -q 'backwards:1: a range whose first address is after its last' '$W/err'"
# tor-geoipdb as Debian ships it (tools/deps.sh), or a small one of its form
geo=/usr/share/tor/geoip
if [ ! -r "$geo" ]; then
	geo=$W/geoip
	printf '# tor-geoipdb form\n16777216,16777471,AU\n1347420160,1347421183,DE\n1347421184,1347421184,DE\n3758096128,3758096383,US\n' >"$geo"
fi
run calc --prefix-feed "$geo" --fpp 0.01
check "tor-geoipdb without --country is refused, naming --country" \
	sh -c "[ $rc = 3 ] && grep -q 'give --country CC' '$W/err'"
run create ${P}de --type blocked --keys ipv4 --prefix-feed "$geo" --country DE --fpp 1e-4
check "create --prefix-feed $geo --country DE plans from DE's ranges" [ "$rc" = 0 ]
run add ${P}de --ipv4 -v --geoip "$geo" --country DE
check "add --geoip FILE --country DE adds DE's ranges as netblocks, no warning" \
	sh -c "[ $rc = 0 ] && grep -q 'added [0-9]* entries' '$W/err' && ! grep -q warning '$W/err'"
de=$(awk -F, '$3 == "DE" { print $1; exit }' "$geo")
us=$(awk -F, '$3 == "US" { print $2; exit }' "$geo")
ip4() { echo "$(($1 >> 24 & 255)).$(($1 >> 16 & 255)).$(($1 >> 8 & 255)).$(($1 & 255))"; }
run test ${P}de --ipv4 "$(ip4 "$de")" "$(ip4 "$us")"
check "  DE's first address tests present, US's last absent (by chance at most 6e-4)" \
	sh -c "printf '$(ip4 "$de"): may be present\n$(ip4 "$us"): absent\n' | cmp -s - '$W/out'"
expect_err "--geoip without --country is a usage error" 2 "give --country CC" \
	add ${P}de --ipv4 --geoip "$geo"

# --- the rate an address gets, and what each packet pays -------------------
# --fpp is each stored key's rate; an address is tested once per length:
# create says what an address gets and the --fpp that asks for it.
run create ${P}pl --keys ipv4 --prefix-lengths 16,24 --capacity 1000 --fpp 0.003
check "create with 2 netblock lengths says an address is tested 3 times, up to 0.00897, and offers --fpp 0.001" \
	sh -c "[ $rc = 0 ] && grep -q 'tested up to 3 times.*up to 0.00897.*for an address rate of 0.003, create it with --fpp 0.001' '$W/err'"
# A filter of addresses without lengths of its own fed 8 lengths: said
# once, at the add that passes 6 tests, with what to do.
run create ${P}nl --capacity 1000 --fpp 0.001 --keys ipv4
awk 'BEGIN { for (l = 17; l <= 24; l++) printf "10.%d.0.0/%d\n", l, l }' >"$W/eight"
run add ${P}nl --ipv4 -f "$W/eight"
check "8 lengths into a filter without its own: a note of 9 tests a packet and --prefix-feed" \
	sh -c "[ $rc = 0 ] && grep -q 'now holds netblocks of 8 lengths.*tests it 9 times.*--prefix-feed FILE' '$W/err'"
printf '10.99.0.0/20\n' >"$W/one"
run add ${P}nl --ipv4 -f "$W/one"
check "  and not again at the next add" sh -c "[ $rc = 0 ] && ! grep -q 'now holds netblocks' '$W/err'"

for f in $(bloomctl list -n | grep "^$P"); do run destroy "$f"; done
check "every filter made here was destroyed" sh -c "! bloomctl list -n | grep -q '^$P'"

echo "1..$n"
[ "$failed" = 0 ] && echo "# all $n passed" || echo "# $failed of $n failed"
[ "$failed" = 0 ]
