#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# TAP 13 test of the bloomctl CLI: every verb, every documented exit status,
# the error messages, file input, addresses, JSON, sysfs and privileges.
# Runs as root with bloom.ko loaded and bloomctl on PATH, e.g.
#   selftests/vm/run.sh -- selftests/cli/test_bloomctl.sh
# Exits 0 iff every check passes; destroys every filter it made.

. "$(dirname "$0")/../tap.sh"
. "$(dirname "$0")/lib.sh"
cli_begin clitest
PY=$(command -v /usr/bin/python3 || command -v python3)

cleanup() {
	[ -n "${mode-}" ] && chmod "$mode" /dev/bloom
	[ -n "${group-}" ] && chgrp "$group" /dev/bloom
	[ -n "${maxmem-}" ] && echo "$maxmem" >/sys/module/bloom/parameters/max_memory
	cli_end
}
trap cleanup EXIT

# The module's live allocations (debugfs): what earlier programs destroyed
# is freed a grace period later, so wait for the count to settle at 0 (it
# stays above when filters were left on purpose: then that is the baseline).
DBG=/sys/kernel/debug/bloom
[ -e $DBG ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# wait_live N: polls up to 5 s for live_allocations to be N; prints it.
wait_live() {
	local v i
	for i in $(seq 50); do
		v=$(cat $DBG/live_allocations 2>/dev/null)
		[ "$v" = "$1" ] && break
		sleep 0.1
	done
	echo "$v"
}
live0=$(wait_live 0)
mem0=$(cat $SYS/memory_used 2>/dev/null)

# --- version, help, usage errors -------------------------------------------
run version
check "version exits 0, reports module ABI 1 and the five types by name" \
	sh -c "[ $rc = 0 ] && grep -q '^module ABI: *1$' '$W/out' && grep -Eq '^filter types: +standard blocked counting dleft timed$' '$W/out'"
check "version names the create options by name, scalable and like among them" \
	sh -c "grep -Eq '^create options: +bind hash-key geometry scalable size like$' '$W/out'"
run version --json
check "version --json parses and has abi_version, type names and limits" \
	sh -c "[ $rc = 0 ] && '$PY' -c 'import json,sys; d=json.load(sys.stdin); assert d[\"abi_version\"]==1 and d[\"types\"]==62 and d[\"type_names\"]==[\"standard\",\"blocked\",\"counting\",\"dleft\",\"timed\"] and d[\"key_max\"]==4096 and d[\"batch_max_keys\"]>0' <'$W/out'"
run help
check "help exits 0 and lists every verb" \
	sh -c "[ $rc = 0 ] && for v in create add test del info list destroy version help; do grep -q \"bloomctl \$v\" '$W/out' || exit 1; done"
run help create
check "help create describes --capacity and --fpp" \
	sh -c "[ $rc = 0 ] && grep -q -- --capacity '$W/out' && grep -q -- --fpp '$W/out'"
run test --help
check "test --help exits 0 and describes --absent" \
	sh -c "[ $rc = 0 ] && grep -q -- --absent '$W/out'"
expect_err "help for an unknown verb exits 2" 2 "no verb named 'nope'" help nope
expect_err "unknown verb exits 2 with a hint" 2 "unknown verb 'frobnicate'.*bloomctl help" frobnicate
expect_err "unknown option exits 2 naming it" 2 "unknown option '--bogus'.*bloomctl help create" create ${P}x --bogus
expect_err "unknown global option exits 2" 2 "unknown option '--nope'" --nope list
expect_err "option without its value exits 2" 2 "option '--capacity' needs a value" create ${P}x --fpp 0.01 --capacity
run
check "no verb at all exits 2 with the usage" sh -c "[ $rc = 2 ] && grep -q '^usage:' '$W/err'"

# --- create ------------------------------------------------------------------
expect "create a standard filter" 0 create ${P}s --capacity 10k --fpp 1e-6
check "sysfs shows it as standard, capacity 10000, fpp 1000 ppb" \
	sh -c "[ '$(sysval ${P}s type)' = standard ] && [ '$(sysval ${P}s capacity)' = 10000 ] && [ '$(sysval ${P}s fpp_ppb)' = 1000 ]"
expect "create a blocked filter" 0 create ${P}b --type blocked --capacity 1000 --fpp 0.01
check "sysfs shows the blocked type, bits a multiple of 512" \
	sh -c "[ '$(sysval ${P}b type)' = blocked ] && [ \$(( $(sysval ${P}b bits) % 512 )) = 0 ]"
expect_err "create with an existing name exits 3" 3 "a filter named ${P}s exists already" \
	create ${P}s --capacity 10 --fpp 0.1
expect_err "capacity 0 is refused" 2 "bad capacity '0'" create ${P}x --capacity 0 --fpp 0.01
expect_err "capacity with a bad suffix is refused" 2 "bad capacity '5X'" create ${P}x --capacity 5X --fpp 0.01
expect_err "capacity over 2^32-1 is refused" 2 "bad capacity '5G'" create ${P}x --capacity 5G --fpp 0.01
expect_err "fpp 0 is refused" 2 "bad false-positive rate '0'" create ${P}x --capacity 1 --fpp 0
expect_err "fpp over 0.5 is refused" 2 "bad false-positive rate '0.6'" create ${P}x --capacity 1 --fpp 0.6
expect_err "fpp that is no number is refused" 2 "bad false-positive rate 'abc'" create ${P}x --capacity 1 --fpp abc
run calc --capacity 1M --fpp 1% --json
check "calc --fpp 1% is the rate 0.01 (10000000 ppb)" \
	sh -c "[ $rc = 0 ] && grep -q '\"fpp_ppb\": 10000000,' '$W/out' && [ ! -s '$W/err' ]"
run calc --capacity 1M --fpp 0.1% --json
check "calc --fpp 0.1% is the rate 0.001, with no rounding note" \
	sh -c "[ $rc = 0 ] && grep -q '\"fpp_ppb\": 1000000,' '$W/out' && [ ! -s '$W/err' ]"
expect "create --fpp 1%" 0 create ${P}pc --capacity 1000 --fpp 1%
check "  makes a filter of 10000000 ppb" \
	sh -c "[ '$(sysval ${P}pc fpp_ppb)' = 10000000 ]"
run destroy ${P}pc
seq 1 100 >"$W/pckeys"
expect "build --fpp 0.5%" 0 \
	build "$W/pc.snap" --name ${P}pc --capacity 1000 --fpp 0.5% -f "$W/pckeys"
for bad in % 1%% abc% "1 %" 60%; do
	expect_err "fpp '$bad' is refused, naming percentages" 2 \
		"bad false-positive rate '$bad'.*percentage" \
		create ${P}x --capacity 1 --fpp "$bad"
done
expect_err "an unknown type is refused" 2 "unknown filter type 'cuckoo'" create ${P}x --type cuckoo --capacity 1 --fpp 0.1
expect_err "create without --capacity is refused" 2 "give two of --capacity" create ${P}x --fpp 0.1
expect_err "a name with a slash is refused" 2 "invalid filter name" create a/b --capacity 1 --fpp 0.1
expect_err "a 32-character name is refused" 2 "too long" create abcdefghijabcdefghijabcdefghij12 --capacity 1 --fpp 0.1
expect_err "a bad hash key is refused" 2 "bad hash key" create ${P}x --capacity 1 --fpp 0.1 --hash-key 0123
expect_err "--bits without --hashes is refused" 2 "go together" create ${P}x --capacity 1 --fpp 0.1 --bits 4096
expect_err "an unknown --hash is refused" 2 "unknown hash 'siphash-4-8': give siphash-1-3 or siphash-2-4" create ${P}x --capacity 1 --fpp 0.1 --hash siphash-4-8
check "no filter was left behind by the refused creates" \
	sh -c "! bloomctl list -n | grep -q '^${P}x$'"

# Explicit key and geometry: filters with the same hash key and geometry
# holding the same keys have identical bits, so they answer every query
# alike; under another key the answers to 200 queries differ (64 bits, 1
# hash, 8 keys: each answer agrees by chance with p ~ 0.8, all 200 ~ 1e-19).
K=000102030405060708090a0b0c0d0e0f
expect "create with --hash-key and --bits/--hashes" 0 \
	create ${P}g1 --capacity 8 --fpp 0.1 --hash-key $K --bits 64 --hashes 1
run create ${P}g2 --capacity 8 --fpp 0.1 --hash-key $K --bits 64 --hashes 1
run create ${P}g3 --capacity 8 --fpp 0.1 --hash-key f${K#0} --bits 64 --hashes 1
check "the explicit geometry is recorded (64 bits, 1 hash)" \
	sh -c "[ '$(sysval ${P}g1 bits)' = 64 ] && [ '$(sysval ${P}g1 hashes)' = 1 ]"
awk 'BEGIN { for (i = 0; i < 200; i++) print "q" i }' >"$W/q"
for g in g1 g2 g3; do
	run add ${P}$g k1 k2 k3 k4 k5 k6 k7 k8
	run test ${P}$g -f "$W/q"
	cp "$W/out" "$W/ans_$g"
done
check "same hash key and geometry: the same answers to 200 queries" \
	cmp -s "$W/ans_g1" "$W/ans_g2"
check "another hash key: other answers" sh -c "! cmp -s '$W/ans_g1' '$W/ans_g3'"

# --hash: SipHash-1-3 by default, SipHash-2-4 on request; info, its JSON and
# sysfs say which, --like keeps it, and the two hashes set other bits (the
# same key and geometry, other answers to 200 queries, by the argument
# above) so merging them is refused, saying why.
run create ${P}g4 --capacity 8 --fpp 0.1 --hash-key $K --bits 64 --hashes 1 --hash siphash-2-4
run create ${P}g5 --like ${P}g4
run add ${P}g4 k1 k2 k3 k4 k5 k6 k7 k8
run test ${P}g4 -f "$W/q"
cp "$W/out" "$W/ans_g4"
check "the default hash is siphash-1-3, --hash siphash-2-4 and --like give siphash-2-4 (sysfs)" \
	sh -c "[ '$(sysval ${P}g1 hash)' = siphash-1-3 ] && [ '$(sysval ${P}g4 hash)' = siphash-2-4 ] &&
	       [ '$(sysval ${P}g5 hash)' = siphash-2-4 ]"
check "info and info --json name the hash" \
	sh -c "bloomctl info ${P}g4 | grep -Eq '^hash: +siphash-2-4$' &&
	       bloomctl info --json ${P}g1 | '$PY' -c 'import json,sys; assert json.load(sys.stdin)[\"hash\"] == \"siphash-1-3\"'"
check "another hash, the same key and geometry: other answers" sh -c "! cmp -s '$W/ans_g1' '$W/ans_g4'"
expect_err "merge of two filters of different hashes is refused, saying why" 3 \
	"cannot merge ${P}g4 into ${P}g1: their hashes differ: ${P}g1 hashes keys with siphash-1-3, ${P}g4 with siphash-2-4" \
	merge ${P}g1 ${P}g4
expect "merge of the siphash-2-4 filter into one made --like it" 0 merge ${P}g5 ${P}g4
expect_err "create --like with --hash is a usage error" 2 "drop --hash" create ${P}x --like ${P}g4 --hash siphash-1-3

# --- add and test with keys on the command line ------------------------------
expect "add three keys" 0 add ${P}s alpha beta gamma
run test ${P}s alpha beta gamma
check "test of added keys exits 0 and says 'may be present' for each" \
	sh -c "[ $rc = 0 ] && printf 'alpha: may be present\nbeta: may be present\ngamma: may be present\n' | cmp -s - '$W/out'"
run test ${P}s alpha never-added-key
check "test with an absent key exits 1 and says 'absent'" \
	sh -c "[ $rc = 1 ] && grep -qx 'never-added-key: absent' '$W/out' && grep -qx 'alpha: may be present' '$W/out'"
run test -q ${P}s never-added-key
check "test -q prints nothing and exits 1 for an absent key" sh -c "[ $rc = 1 ] && [ ! -s '$W/out' ]"
check "sysfs counts 3 adds and 3 keys" \
	sh -c "[ '$(sysval ${P}s adds)' = 3 ] && [ '$(sysval ${P}s count)' = 3 ]"
expect_err "an empty key on the command line exits 3" 3 "key 2 .*empty key; nothing was added" add ${P}s delta ""
expect_err "a key of 4097 bytes on the command line exits 3" 3 "longer than 4096 bytes" \
	add ${P}s "$(head -c 4097 /dev/zero | tr '\0' x)"
check "nothing of a refused command line was added" \
	sh -c "! bloomctl test -q ${P}s delta"
expect "a key of exactly 4096 bytes is added" 0 add ${P}s "$(head -c 4096 /dev/zero | tr '\0' y)"
expect_err "add to a missing filter exits 3" 3 "no filter named ${P}none.*bloomctl list" add ${P}none k
expect_err "test on a missing filter exits 3" 3 "no filter named ${P}none" test ${P}none k
expect_err "info on a missing filter exits 3" 3 "no filter named ${P}none" info ${P}none
check "  naming the command that helps, and no library call" \
	sh -c "grep -q \"'bloomctl list' shows\" '$W/err' && ! grep -q 'bloom_[a-z]*()' '$W/err'"
expect_err "test without keys is a usage error" 2 "needs keys" test ${P}s

# --- files ------------------------------------------------------------------------
printf 'k1\r\nk2\nk3\r\nk4' >"$W/keys"	# CRLF, LF, and no final newline
expect "add -f with CRLF and LF lines and no final newline" 0 add ${P}s -f "$W/keys"
run test ${P}s k1 k2 k3 k4
check "every line of the file was added without its line ending" sh -c "[ $rc = 0 ]"
printf 'k1\nzz-absent-1\nk2\nzz-absent-2\nk3\nk4\nzz-absent-3\n' >"$W/mixed"
run test ${P}s -f "$W/mixed"
check "test -f prints the present lines in input order, exit 1 (some absent)" \
	sh -c "[ $rc = 1 ] && printf 'k1\nk2\nk3\nk4\n' | cmp -s - '$W/out'"
run test ${P}s --absent -f "$W/mixed"
check "test -f --absent prints the absent lines in input order, exit 1" \
	sh -c "[ $rc = 1 ] && printf 'zz-absent-1\nzz-absent-2\nzz-absent-3\n' | cmp -s - '$W/out'"
runin "$W/mixed" test ${P}s -f -
check "test -f - reads standard input" \
	sh -c "[ $rc = 1 ] && printf 'k1\nk2\nk3\nk4\n' | cmp -s - '$W/out'"
printf 'k1\nk2\n' >"$W/present"
run test ${P}s -f "$W/present"
check "test -f exits 0 when every line may be present" \
	sh -c "[ $rc = 0 ] && printf 'k1\nk2\n' | cmp -s - '$W/out'"
run test ${P}s --absent -f "$W/present"
check "test -f --absent exits 0 and prints nothing when every line may be present" \
	sh -c "[ $rc = 0 ] && [ ! -s '$W/out' ]"
printf 'zz-absent-9\nk4\n' >"$W/mixed2"
run test ${P}s -f "$W/present" -f "$W/mixed" -f "$W/mixed2"
check "repeated -f reads every file, in order, as grep -f does" \
	sh -c "[ $rc = 1 ] && printf 'k1\nk2\nk1\nk2\nk3\nk4\nk4\n' | cmp -s - '$W/out'"
run add ${P}s -f "$W/present" -f "$W/mixed2"
check "add with two -f adds the keys of both" \
	sh -c "[ $rc = 0 ] && bloomctl test -q ${P}s zz-absent-9"
printf 'e1\ne2\n\ne3\n' >"$W/empty"
expect_err "an empty line stops add -f with its line number, exit 3" 3 \
	"empty:3: empty key.*--skip-empty.*the 2 keys before it were added" add ${P}s -f "$W/empty"
check "the keys before the empty line were added, the one after not" \
	sh -c "bloomctl test -q ${P}s e1 e2 && ! bloomctl test -q ${P}s e3"
expect "--skip-empty skips empty lines" 0 add ${P}s --skip-empty -f "$W/empty"
check "with --skip-empty the key after the empty line is added" sh -c "bloomctl test -q ${P}s e3"
{ echo o1; head -c 4097 /dev/zero | tr '\0' z; echo; echo o3; } >"$W/long"
expect_err "a line over 4096 bytes stops add -f naming the line" 3 \
	"long:2: key longer than 4096 bytes" add ${P}s -f "$W/long"
expect_err "a missing file exits 3" 3 "cannot open $W/nofile" add ${P}s -f "$W/nofile"
expect_err "keys and -f together are a usage error" 2 "not both" add ${P}s k -f "$W/keys"

# A file of 100000 keys goes through batches; no progress on a non-tty.
# The filter is for 1000: --allow-overfill takes them past the bound.
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "user%d@example.org\n", i }' >"$W/big"
run add ${P}b --allow-overfill -f "$W/big"
check "add -f of 100000 keys exits 0, prints nothing but the one over-capacity warning (stderr no tty)" \
	sh -c "[ $rc = 0 ] && [ ! -s '$W/out' ] && [ \"\$(wc -l <'$W/err')\" = 1 ] && grep -q '^bloomctl: warning: ${P}b holds about' '$W/err'"
run test ${P}b -f "$W/big"
check "test -f finds all 100000 added keys, in order" sh -c "[ $rc = 0 ] && cmp -s '$W/big' '$W/out'"
check "sysfs adds of the big filter is 100000" sh -c "[ '$(sysval ${P}b adds)' = 100000 ]"
run test -v ${P}b -f "$W/big"
check "test -v prints a summary with the rate on stderr" \
	sh -c "[ $rc = 0 ] && grep -q 'tested 100000 keys.*keys/s' '$W/err'"

# --- addresses --------------------------------------------------------------------
# A filter of addresses knows it (its key kind): one for each family.
expect "create a filter for IPv4 addresses" 0 create ${P}a4 --capacity 1000 --fpp 1e-6
expect "add --ipv4 two addresses" 0 add ${P}a4 --ipv4 10.0.0.1 192.168.1.254
run test ${P}a4 --ipv4 10.0.0.1 192.168.1.254
check "test --ipv4 finds them" sh -c "[ $rc = 0 ]"
expect_err "a test without --ipv4 of a filter of IPv4 keys is refused, naming --ipv4" 3 \
	"holds IPv4 addresses.*give --ipv4" test ${P}a4 10.0.0.1
printf '192.168.1.254\n10.9.9.9\n10.0.0.1\n' >"$W/v4"
run test ${P}a4 --ipv4 -f "$W/v4"
check "test --ipv4 -f prints the present lines as given" \
	sh -c "[ $rc = 1 ] && printf '192.168.1.254\n10.0.0.1\n' | cmp -s - '$W/out'"
run add ${P}a4 --ipv4 10.0.0.256
check "a bad IPv4 address exits 3, naming it, and nothing is sent" \
	sh -c "[ $rc = 3 ] && grep -q 'not an IPv4 address' '$W/err' && grep -q 'nothing was added' '$W/err'"
expect "create a filter for IPv6 addresses" 0 create ${P}a6 --capacity 1000 --fpp 1e-6
expect "add --ipv6 two addresses" 0 add ${P}a6 --ipv6 2001:db8::1 ::1
run test ${P}a6 --ipv6 2001:0db8:0:0:0:0:0:1 0:0:0:0:0:0:0:1
check "test --ipv6 finds them in another spelling" sh -c "[ $rc = 0 ]"
run add ${P}a6 --ipv6 -f "$W/v4"
check "IPv4 lines in an --ipv6 file exit 3, naming file:line and --ipv4" \
	sh -c "[ $rc = 3 ] && grep -q '/v4:1: an IPv4 entry in an IPv6 feed (use --ipv4)' '$W/err'"
expect_err "--ipv4 and --ipv6 together are a usage error" 2 "not both" test ${P}a4 --ipv4 --ipv6 1.2.3.4
for f in a4 a6; do run destroy ${P}$f; done

# --- info, list, JSON ---------------------------------------------------------------
run info ${P}s
check "info prints name, type, capacity, bits, hashes, count" \
	sh -c "[ $rc = 0 ] && grep -q '^name: *${P}s$' '$W/out' && grep -q '^type: *standard$' '$W/out' && grep -q '^hashes:' '$W/out'"
run info --json ${P}s
check "info --json parses (json.tool)" sh -c "[ $rc = 0 ] && '$PY' -m json.tool <'$W/out' >/dev/null"
check "info --json has every required key with sane values" \
	"$PY" -c "
import json, sys
d = json.load(open('$W/out'))
need = ['name','type','capacity','fpp','fpp_ppb','bits','hashes','count','adds',
        'queries','hits','bits_set','memory_bytes','bits_per_key','fill_ratio',
        'estimated_fpp']
missing = [k for k in need if k not in d]
assert not missing, missing
assert d['name'] == '${P}s' and d['type'] == 'standard' and d['capacity'] == 10000
assert abs(d['fpp'] - 1e-6) < 1e-12 and d['fpp_ppb'] == 1000
assert 0 < d['fill_ratio'] < 1 and 0 <= d['estimated_fpp'] < 1e-6
assert abs(d['bits_per_key'] - d['bits'] / 10000) < 1e-3
"
run info --json ${P}s
check "info --json matches sysfs (bits, count, memory_bytes)" \
	sh -c "[ \"\$('$PY' -c 'import json,sys; d=json.load(sys.stdin); print(d[\"bits\"], d[\"count\"], d[\"memory_bytes\"])' <'$W/out')\" = '$(sysval ${P}s bits) $(sysval ${P}s count) $(sysval ${P}s memory_bytes)' ]"
run list -n
check "list -n shows the filters made here" \
	sh -c "[ $rc = 0 ] && grep -qx ${P}s '$W/out' && grep -qx ${P}b '$W/out' && grep -qx ${P}g1 '$W/out'"
run list
check "list prints a table with the type of each filter" \
	sh -c "[ $rc = 0 ] && grep -q '^NAME' '$W/out' && grep -Eq '^${P}b +blocked ' '$W/out'"
run list --json
check "list --json parses and holds the filters made here" \
	sh -c "[ $rc = 0 ] && '$PY' -c 'import json,sys; names=[d[\"name\"] for d in json.load(sys.stdin)]; assert \"${P}s\" in names and \"${P}b\" in names' <'$W/out'"

# --- estimates and capacity -------------------------------------------------------
# A filter for 100 keys gets 150: add warns once (exit 0), info says so.
# The keys are estimated from the bits set (k = 7 of 966 bits), whose count
# varies with the random hash key: 150 keys read as 150 +- 6 (one standard
# deviation); the checks take 120..199, five deviations either side, which a
# correct estimate leaves about once in two million runs.
awk 'BEGIN { for (i = 0; i < 150; i++) printf "cap%d\n", i }' >"$W/cap150"
run create ${P}o --capacity 100 --fpp 0.01
run add ${P}o cap-first
check "add under capacity prints no warning" sh -c "[ $rc = 0 ] && [ ! -s '$W/err' ]"
run add ${P}o -f "$W/cap150"
check "add past capacity exits 0 and warns once on stderr" \
	sh -c "[ $rc = 0 ] && [ \"\$(wc -l <'$W/err')\" = 1 ] && grep -q '^bloomctl: warning: ${P}o holds about 1[2-9][0-9] keys, more than its capacity of 100 (keys estimated): its false-positive rate is now about' '$W/err'"
run info ${P}o
check "info says the filter is over capacity" \
	sh -c "[ $rc = 0 ] && grep -q '^over capacity: *1[2-9][0-9] keys in a filter sized for 100' '$W/out' && grep -Eq '^estimated keys: *1[2-9][0-9] ' '$W/out'"
# 1000 keys into a filter for 10 would set every bit: a rule on it would
# match everything. Refused, nothing added, from a file, from standard
# input (its first batch) and as arguments, unless --allow-overfill.
awk 'BEGIN { for (i = 0; i < 1000; i++) printf "tiny%d\n", i }' >"$W/k1000"
run create ${P}z --capacity 10 --fpp 0.01
run add ${P}z -f "$W/k1000"
check "1000 keys into a filter for 10 are refused (exit 3), naming the rate and --allow-overfill" \
	sh -c "[ $rc = 3 ] && grep -q 'would take its false-positive rate to about 1, past 0.5.*nothing was added.*--allow-overfill' '$W/err' && [ '$(sysval ${P}z adds)' = 0 ]"
runin "$W/k1000" add ${P}z -f -
check "  from standard input too: the first batch is refused, nothing added" \
	sh -c "[ $rc = 3 ] && grep -q '0 keys before standard input:1 were added, none from it on' '$W/err' && [ '$(sysval ${P}z adds)' = 0 ]"
run add ${P}z $(head -n 100 "$W/k1000")
check "  as 100 arguments too" \
	sh -c "[ $rc = 3 ] && grep -q 'nothing was added' '$W/err' && [ '$(sysval ${P}z adds)' = 0 ]"
run test ${P}z --absent -f "$W/k1000"
check "  and the filter still finds none of them (all 1000 absent)" \
	sh -c "[ $rc = 1 ] && [ \"\$(wc -l <'$W/out')\" = 1000 ]"
# Standard input in batches of 65536 (BLOOM_BATCH_MAX_KEYS): into a filter
# for 32768 at 1%, the first batch (2x its capacity, a rate of about 0.16)
# is added, the second (4x, about 0.68) would pass 0.5: libbloom refuses
# it, the first stays. The estimate's error at this size is far below the
# margins either side.
awk 'BEGIN { for (i = 0; i < 131072; i++) printf "two%d\n", i }' >"$W/k131072"
run create ${P}y --capacity 32768 --fpp 0.01
runin "$W/k131072" add ${P}y -f -
check "  standard input: the batch that would pass the bound is refused, the one before stays" \
	sh -c "[ $rc = 3 ] && grep -q 'would take its false-positive rate to about 0.6.*past 0.5.*; 65536 keys before standard input:65537 were added, none from it on.*--allow-overfill' '$W/err' && [ '$(sysval ${P}y adds)' = 65536 ]"
run destroy ${P}y
rm -f "$W/k131072"
# With --allow-overfill: every bit is set, count (keys that set a new bit)
# is far below what went in; the load and the warning use the adds.
run add ${P}z --allow-overfill -f "$W/k1000"
check "1000 keys into a filter for 10 with --allow-overfill: the warning names the 1000 keys added" \
	sh -c "[ $rc = 0 ] && grep -q 'holds about 1000 keys, more than its capacity of 10 (keys added)' '$W/err'"
run info ${P}z
check "  info's load and over-capacity line say 1000 keys, not the count" \
	sh -c "[ $rc = 0 ] && grep -q '^load: *10000.0% of capacity (1000 keys, as added' '$W/out' && grep -q '^over capacity: *1000 keys in a filter sized for 10 (keys added)' '$W/out'"
run destroy ${P}z
# Addresses warn as strings do, and are refused past the bound the same way.
run create ${P}z --capacity 10 --fpp 0.001 --keys ipv4
awk 'BEGIN { for (i = 1; i <= 20; i++) printf "198.51.100.%d\n", i }' >"$W/a20"
run add ${P}z --ipv4 -f "$W/a20"
check "20 addresses into a filter for 10: added (exit 0) with the warning and the rate now" \
	sh -c "[ $rc = 0 ] && grep -q '^bloomctl: warning: ${P}z holds about .* keys, more than its capacity of 10 .*false-positive rate is now about' '$W/err'"
awk 'BEGIN { for (i = 0; i < 100; i++) printf "203.0.113.%d\n", i }' >"$W/a100"
run add ${P}z --ipv4 -f "$W/a100"
check "100 more are refused, nothing added" \
	sh -c "[ $rc = 3 ] && grep -q 'nothing was added.*--allow-overfill' '$W/err' && [ '$(sysval ${P}z adds)' = 20 ]"
run destroy ${P}z
run info --json ${P}o
check "info --json: over_capacity, estimated_keys and estimated_fpp_ppb as in sysfs" \
	"$PY" -c "
import json
d = json.load(open('$W/out'))
assert d['over_capacity'] is True, d
assert d['estimated_keys'] == $(sysval ${P}o estimated_keys), d
assert abs(d['estimated_keys'] - 151) <= 15, d['estimated_keys']
assert d['estimated_fpp_ppb'] == $(sysval ${P}o estimated_fpp_ppb) > 10000000, d
assert abs(d['estimated_fpp'] - d['estimated_fpp_ppb'] / 1e9) < 1e-12
"
run destroy ${P}o
# A blocked filter at capacity: the estimated rate (block-load model) is
# about the rate asked for (bloom_accuracy checks it against a measured
# rate); (fill ratio)^k, the old estimate, was 0.58 of it at p = 0.001.
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "in%d\n", i }' >"$W/in20k"
run create ${P}e --type blocked --capacity 20000 --fpp 0.001
run add ${P}e -f "$W/in20k"
check "add of exactly the capacity prints no warning" sh -c "[ $rc = 0 ] && [ ! -s '$W/err' ]"
run info --json ${P}e
check "blocked filter at capacity: estimated rate 0.8..1.25 x p, estimated keys within 2%" \
	"$PY" -c "
import json
d = json.load(open('$W/out'))
r = d['estimated_fpp'] / 0.001
assert 0.8 <= r <= 1.25, (d['estimated_fpp'], r)
assert abs(d['estimated_keys'] - 20000) <= 400, d['estimated_keys']
assert d['over_capacity'] is False
"
run destroy ${P}e

# --- deletable filters: counting and d-left ---------------------------------------
# Few invocations: each costs a process start in the emulated guest.
expect "create a counting filter" 0 create ${P}c --type counting --capacity 100k --fpp 0.01
expect "create a dleft filter" 0 create ${P}d --type dleft --capacity 100k --fpp 0.001
check "sysfs shows the types counting and dleft" \
	sh -c "[ '$(sysval ${P}c type)' = counting ] && [ '$(sysval ${P}d type)' = dleft ]"
expect_err "dleft with --bits/--hashes is a usage error" 2 "sizes itself" \
	create ${P}x --type dleft --capacity 10 --fpp 0.1 --bits 4096 --hashes 4
run add ${P}c alpha beta gamma gamma
run del ${P}c alpha gamma
check "del of added keys exits 0 and reports 2 removed, 0 not found" \
	sh -c "[ $rc = 0 ] && [ \"\$(cat '$W/out')\" = '${P}c: removed 2 keys, 0 not found' ]"
run test ${P}c alpha beta gamma
check "the deleted key is absent, the others (gamma added twice) present" \
	sh -c "[ $rc = 1 ] && printf 'alpha: absent\nbeta: may be present\ngamma: may be present\n' | cmp -s - '$W/out'"
run del ${P}c gamma never-added-key alpha
check "del with keys not found exits 1, names them, counts them" \
	sh -c "[ $rc = 1 ] && printf 'never-added-key: not found\nalpha: not found\n${P}c: removed 1 key, 2 not found\n' | cmp -s - '$W/out'"
check "sysfs counts 3 deletes and 2 delete misses" \
	sh -c "[ '$(sysval ${P}c deletes)' = 3 ] && [ '$(sysval ${P}c delete_misses)' = 2 ]"
# A file: 1000 added keys, then 500 of them and 500 never-added ones
# deleted, with an empty line skipped. At 1% load the never-added ones are
# false positives with probability ~1e-15 each: all 500 must be misses.
awk 'BEGIN { for (i = 0; i < 1000; i++) printf "k%d\n", i }' >"$W/del_add"
awk 'BEGIN { for (i = 0; i < 1000; i += 2) printf "k%d\nnever%d\n", i, i; print "" }' >"$W/del_f"
run add ${P}c -f "$W/del_add"
run del ${P}c --skip-empty -f "$W/del_f"
check "del -f counts 500 removed and 500 not found, exit 1" \
	sh -c "[ $rc = 1 ] && [ \"\$(cat '$W/out')\" = '${P}c: removed 500 keys, 500 not found' ]"
run test ${P}c --absent -f "$W/del_add"
check "exactly the deleted lines of the file are absent now" \
	sh -c "[ $rc = 1 ] && awk 'BEGIN { for (i = 0; i < 1000; i += 2) printf \"k%d\\n\", i }' | cmp -s - '$W/out'"
expect_err "an empty line stops del -f without --skip-empty" 3 \
	"del_f:1001: empty key.*the 1000 keys before it were deleted" del ${P}c -f "$W/del_f"
# "--" ends the options: what follows is keys, however they are spelled
# (the ban backends pass what a client gives after it). A file of keys
# named as such must not be read. Filters of their own: the counts below
# are of the ones above.
printf 'filekey\n' >"$W/dashkeys"
run create ${P}dc --type counting --capacity 1000 --fpp 0.01
run create ${P}d4 --key-timeouts --keys ipv4 --capacity 1000 --fpp 0.01
run add ${P}dc -- -f"$W/dashkeys" "--file=$W/dashkeys" -h --
check "add -- KEYS takes option-like keys as keys, no file read" \
	sh -c "[ $rc = 0 ] && bloomctl test -q ${P}dc -- -f'$W/dashkeys' '--file=$W/dashkeys' -h -- && ! bloomctl test -q ${P}dc filekey"
run del ${P}dc -- -f"$W/dashkeys" "--file=$W/dashkeys" -h --
check "del -- KEYS removes exactly those keys" \
	sh -c "[ $rc = 0 ] && [ \"\$(cat '$W/out')\" = '${P}dc: removed 4 keys, 0 not found' ]"
run add ${P}d4 --ipv4 -- --file="$W/dashkeys"
check "add --ipv4 -- --file=FILE refuses the key as not an address, adds nothing" \
	sh -c "[ $rc = 3 ] && grep -q 'not an address' '$W/err' && [ '$(sysval ${P}d4 adds)' = 0 ]"
run destroy ${P}dc
run destroy ${P}d4
run add ${P}d --ipv4 10.0.0.1 10.0.0.2
run del ${P}d --ipv4 10.0.0.1
check "del --ipv4 removes the 4-byte form" \
	sh -c "[ $rc = 0 ] && ! bloomctl test -q ${P}d --ipv4 10.0.0.1 && bloomctl test -q ${P}d --ipv4 10.0.0.2"
# Pinned keys: taken to saturation (3 adds fill a d-left cell's count, 15 a
# counting filter's counters), a key cannot be deleted; del says so, exit 1.
run create ${P}p --type dleft --capacity 1000 --fpp 0.01
run add ${P}p sat sat sat once
run del ${P}p sat once
check "del of a pinned key exits 1, names it pinned, counts it" \
	sh -c "[ $rc = 1 ] && printf 'sat: pinned (a saturated counter keeps it)\n${P}p: removed 1 key, 0 not found, 1 pinned\n' | cmp -s - '$W/out'"
check "del explains on stderr what pinned means" \
	grep -q "^bloomctl: ${P}p: 1 key was pinned: it has a counter that is saturated (it counted more keys than it can hold), so the filter cannot forget it and it will still test present" "$W/err"
check "the pinned key still tests present; sysfs counts it in delete_pinned, the cell in saturated" \
	sh -c "bloomctl test -q ${P}p sat && [ '$(sysval ${P}p delete_pinned)' = 1 ] && [ '$(sysval ${P}p saturated)' = 1 ] && [ '$(sysval ${P}p deletes)' = 1 ]"
run create ${P}q --type counting --capacity 1000 --fpp 0.01
printf 'sat\n%.0s' $(seq 16) >"$W/sat16"
printf 'other\nsat\nnever\n' >"$W/del_sat"
run add ${P}q -f "$W/sat16"
run add ${P}q other
run del ${P}q -f "$W/del_sat"
check "del -f names the pinned line, counts removed, not found and pinned" \
	sh -c "[ $rc = 1 ] && printf 'sat: pinned (a saturated counter keeps it)\n${P}q: removed 1 key, 1 not found, 1 pinned\n' | cmp -s - '$W/out'"
run info --json ${P}q
check "info --json has delete_pinned as in sysfs" \
	"$PY" -c "
import json
d = json.load(open('$W/out'))
assert d['delete_pinned'] == $(sysval ${P}q delete_pinned) == 1, d
assert d['saturated'] == $(sysval ${P}q saturated) > 0, d
"
run info ${P}q
check "info shows delete pinned and what saturated counts" \
	sh -c "[ $rc = 0 ] && grep -q '^delete pinned: *1 ' '$W/out' && grep -Eq '^saturated: *[1-9][0-9]* \(counters at 15' '$W/out'"
run destroy ${P}p
run destroy ${P}q
expect_err "del on a standard filter says it cannot, exit 3" 3 \
	"filter ${P}b is a standard or blocked filter, which cannot delete keys: only counting and dleft filters can \\(create one with --type counting or --type dleft\\)" \
	del ${P}b alpha
expect_err "del without keys is a usage error" 2 "needs keys" del ${P}c
run info ${P}c
check "info of a counting filter shows deletes, delete misses, saturated" \
	sh -c "[ $rc = 0 ] && grep -q '^type: *counting$' '$W/out' && grep -q '^deletes: *503$' '$W/out' && grep -q '^delete misses: *1502 ' '$W/out' && grep -q '^saturated: *0 ' '$W/out'"
run info --json ${P}c
check "info --json of a counting filter: deletes, delete_misses, saturated as in sysfs" \
	"$PY" -c "
import json
d = json.load(open('$W/out'))
assert d['type'] == 'counting', d['type']
assert (d['deletes'], d['delete_misses'], d['saturated']) == ($(sysval ${P}c deletes), $(sysval ${P}c delete_misses), $(sysval ${P}c saturated)), d
assert 'insert_failures' not in d and 'subtable_used' not in d
assert d['memory_bits_per_key'] >= 4 * 9.5, d['memory_bits_per_key']
"
run info --json ${P}d
check "info --json of a dleft filter: fingerprint, subtables, loads as in sysfs" \
	"$PY" -c "
import json
d = json.load(open('$W/out'))
used = [int(x) for x in '$(sysval ${P}d subtable_used)'.split()]
assert d['type'] == 'dleft'
assert d['subtables'] == 4 and d['subtable_used'] == used, (d, used)
assert d['fingerprint_bits'] == $(sysval ${P}d fingerprint_bits) > 0
assert d['subtable_cells'] == $(sysval ${P}d subtable_cells) > 0
assert d['insert_failures'] == 0 and d['deletes'] == 1 and d['delete_misses'] == 0
assert all(abs(l - u / d['subtable_cells']) < 1e-6 for l, u in zip(d['subtable_load'], used))
assert sum(used) == d['bits_set'] == 1
"
run info ${P}d
check "info of a dleft filter shows fingerprint, subtable cells and 4 loads" \
	sh -c "[ $rc = 0 ] && grep -q '^fingerprint: *[0-9]* bits$' '$W/out' && grep -Eq '^subtable load: +[0-9.]+% [0-9.]+% [0-9.]+% [0-9.]+%$' '$W/out' && grep -q '^insert failures: *0 ' '$W/out'"
run list
check "list shows the counting and dleft types" \
	sh -c "[ $rc = 0 ] && grep -Eq '^${P}c +counting ' '$W/out' && grep -Eq '^${P}d +dleft ' '$W/out'"
# A d-left filter for 16 keys cannot take 1000: it keeps the keys that fit
# and add names the first line not added, so that the user can resume.
run create ${P}t --type dleft --capacity 16 --fpp 0.01
run add ${P}t -f "$W/del_add"
check "a full dleft filter: add exits 3 saying it is full and what to do" \
	sh -c "[ $rc = 3 ] && grep -q 'filter ${P}t is full: .*create a larger filter (or delete keys) and add them again' '$W/err'"
fit=$(sed -n 's/.*; \([0-9]*\) keys were added, none from .*:\([0-9]*\) on (resume there)$/\1 \2/p' "$W/err")
check "  it says how many keys went in and the first line not added, file:line ($fit)" \
	sh -c "set -- $fit; [ \"\${1:-0}\" -gt 16 ] && [ \"\$2\" = \$((\$1 + 1)) ] && grep -q \" none from $W/del_add:\$2 on\" '$W/err'"
check "  those keys are in (their adds counted, every one present), one insert failure" \
	sh -c "set -- $fit; [ '$(sysval ${P}t adds)' = \"\$1\" ] && [ '$(sysval ${P}t insert_failures)' = 1 ] && head -n \"\$1\" '$W/del_add' | bloomctl test ${P}t -f - --absent | cmp -s - /dev/null"
for f in c d t; do run destroy ${P}$f; done

# --- privileges and the device -------------------------------------------------------
if command -v setpriv >/dev/null; then
	timeout "$LIMIT" setpriv --reuid=65534 --regid=65534 --clear-groups \
		bloomctl list >"$W/out" 2>"$W/err"
	rc=$?
	check "an unprivileged user gets a helpful permission message, exit 3" \
		sh -c "[ $rc = 3 ] && grep -q 'permission denied on /dev/bloom: run as root' '$W/err'"
else
	ok "# SKIP setpriv not installed"
fi
# With a readable device (0644), an unprivileged user may query but not add.
mode=$(stat -c %a /dev/bloom)
maxmem=$(cat /sys/module/bloom/parameters/max_memory)
if command -v setpriv >/dev/null && chmod 644 /dev/bloom; then
	timeout "$LIMIT" setpriv --reuid=65534 --regid=65534 --clear-groups \
		bloomctl test ${P}s alpha >"$W/out" 2>"$W/err"
	rc=$?
	check "an unprivileged user with read access can query (read-only open)" \
		sh -c "[ $rc = 0 ] && grep -qx 'alpha: may be present' '$W/out'"
	timeout "$LIMIT" setpriv --reuid=65534 --regid=65534 --clear-groups \
		bloomctl add ${P}s omega >"$W/out" 2>"$W/err"
	rc=$?
	check "an add through the read-only open is refused (EBADF), saying write access is needed, exit 3" \
		sh -c "[ $rc = 3 ] && grep -q 'needs write access to the bloom device' '$W/err'"
	chmod "$mode" /dev/bloom
fi
# The udev rule's model (group "bloom", 0640), with the user's own group
# standing in: a member opens read-only and queries, and may not add; with
# a node it may write (0660), an add still needs CAP_NET_ADMIN.
group=$(stat -c %g /dev/bloom)
rule_mode=$(sed -n 's/.*MODE="\([0-7]*\)".*/\1/p' "$(dirname "$0")/../../tools/udev/60-bloom.rules")
if command -v setpriv >/dev/null && chgrp 65534 /dev/bloom &&
   chmod "$rule_mode" /dev/bloom; then
	check "the udev rule gives the group read access only (0640)" \
		test "$rule_mode" = 0640
	timeout "$LIMIT" setpriv --reuid=65534 --regid=65534 --clear-groups \
		bloomctl test ${P}s alpha >"$W/out" 2>"$W/err"
	rc=$?
	check "a member of the device's group (the udev rule's mode) can query" \
		sh -c "[ $rc = 0 ] && grep -qx 'alpha: may be present' '$W/out'"
	timeout "$LIMIT" setpriv --reuid=65534 --regid=65534 --clear-groups \
		bloomctl add ${P}s omega >"$W/out" 2>"$W/err"
	rc=$?
	check "a member's add is refused (read-only open), exit 3" \
		sh -c "[ $rc = 3 ] && grep -q 'needs write access to the bloom device' '$W/err'"
	chmod 660 /dev/bloom
	timeout "$LIMIT" setpriv --reuid=65534 --regid=65534 --clear-groups \
		bloomctl add ${P}s omega >"$W/out" 2>"$W/err"
	rc=$?
	check "with write access, a member's add is refused, naming CAP_NET_ADMIN, exit 3" \
		sh -c "[ $rc = 3 ] && grep -q 'needs CAP_NET_ADMIN: run as root' '$W/err'"
	chgrp "$group" /dev/bloom
	chmod "$mode" /dev/bloom
fi
# Over the module's memory limit: the message says how to raise it.
echo 65536 >/sys/module/bloom/parameters/max_memory
expect_err "a filter over max_memory is refused with EDQUOT's advice" 3 \
	"memory limit.*/sys/module/bloom/parameters/max_memory" \
	create ${P}q --capacity 1M --fpp 0.01
echo "$maxmem" >/sys/module/bloom/parameters/max_memory
check "max_memory is restored" sh -c "[ \$(cat /sys/module/bloom/parameters/max_memory) = '$maxmem' ]"
# max_memory takes the suffixes --capacity takes (one parser, units.h).
mm=/sys/module/bloom/parameters/max_memory
check "max_memory takes 4Gi and reads back 4294967296" \
	sh -c "echo 4Gi >$mm && [ \$(cat $mm) = 4294967296 ]"
check "max_memory takes 3G and reads back 3000000000" \
	sh -c "echo 3G >$mm && [ \$(cat $mm) = 3000000000 ]"
check "max_memory refuses 3X and keeps its value" \
	sh -c "! echo 3X 2>/dev/null >$mm && [ \$(cat $mm) = 3000000000 ]"
echo "$maxmem" >$mm
expect "--capacity takes 2Ki" 0 create ${P}u --capacity 2Ki --fpp 0.01
check "--capacity 2Ki is 2048 keys" sh -c "[ '$(sysval ${P}u capacity)' = 2048 ]"
run destroy ${P}u
expect_err "a missing device says to load the module" 3 \
	"/nonexistent/bloom not found: is the bloom module loaded\\? \\(modprobe bloom\\)" \
	--device /nonexistent/bloom list

# --- output that cannot be written, input that cannot be a key -----------------
# Every output is checked, the final flush included: exit 3 with a message.
for args in "list" "list --json" "list -n" "info ${P}s" "info --json ${P}s" "version" \
	"test ${P}s alpha" "--version" "help"; do
	# shellcheck disable=SC2086 # the words of $args are the arguments
	timeout "$LIMIT" bloomctl $args >/dev/full 2>"$W/err"
	rc=$?
	check "bloomctl $args >/dev/full exits 3 saying it cannot write" \
		sh -c "[ $rc = 3 ] && grep -q '^bloomctl: cannot write the output: No space left on device$' '$W/err'"
done
timeout "$LIMIT" bloomctl test ${P}b -f "$W/big" >/dev/full 2>"$W/err"
rc=$?
check "test -f of 100000 keys into /dev/full exits 3 saying it cannot write" \
	sh -c "[ $rc = 3 ] && grep -q 'cannot write the output' '$W/err'"
# A line longer than a key is found in bounded memory (the reader keeps one
# buffer): an endless line from /dev/zero is line 1, under a 64 MiB limit.
timeout "$LIMIT" sh -c "ulimit -v 65536; exec bloomctl test ${P}s -f /dev/zero" >"$W/out" 2>"$W/err"
rc=$?
check "test -f /dev/zero stops at line 1 (too long) in bounded memory, exit 3" \
	sh -c "[ $rc = 3 ] && [ ! -s '$W/out' ] && grep -q '^bloomctl: /dev/zero:1: key longer than 4096 bytes' '$W/err'"
{ echo ok1; echo ok2; head -c 100000 /dev/zero | tr '\0' z; echo; } >"$W/long3"
expect_err "a 100000-byte line 3 stops add -f naming file and line" 3 \
	"$W/long3:3: key longer than 4096 bytes.*the 2 keys before it were added" \
	add ${P}s -f "$W/long3"
{ head -c 4096 /dev/zero | tr '\0' w; printf '\r\n'; } >"$W/crlf4096"
expect "a 4096-byte key ending in CRLF is a key" 0 add ${P}s -f "$W/crlf4096"
expect_err "a read error is an error, not the end of the input" 3 \
	"cannot read / after line 0: Is a directory" test ${P}s -f /
expect_err "a missing second -f file stops after the first file's keys" 3 \
	"cannot open $W/nofile.*the 2 keys before it were added" add ${P}s -f "$W/present" -f "$W/nofile"

# Names: the rule (printable ASCII, no space, no '/') and one-line messages.
expect_err "a name with a newline gets a one-line message with it escaped" 2 \
	"invalid filter name 'a\\\\x0ab'" info "$(printf 'a\nb')"
expect_err "a name with a space is refused by the documented rule" 2 \
	"invalid filter name 'a b': use 1 to 31 printable ASCII characters other than space and '/'" info "a b"

# Rates the module cannot represent: refused, or the value used is said.
expect_err "fpp 5e-10 is refused (below one part per billion)" 2 \
	"bad false-positive rate '5e-10'" create ${P}x --capacity 10 --fpp 5e-10
run create ${P}r --capacity 10 --fpp 1.5e-9
check "fpp 1.5e-9 creates with 1 ppb and says the value used" \
	sh -c "[ $rc = 0 ] && [ '$(sysval ${P}r fpp_ppb)' = 1 ] && grep -q 'false-positive rate 1.5e-9 is used as 1e-09' '$W/err'"
run destroy ${P}r

# --hash-key-file: the same filter as --hash-key, without the key in ps.
echo "$K" >"$W/hk"
expect "create with --hash-key-file" 0 \
	create ${P}h --capacity 8 --fpp 0.1 --hash-key-file "$W/hk" --bits 64 --hashes 1
run add ${P}h k1 k2 k3 k4 k5 k6 k7 k8
run test ${P}h -f "$W/q"
check "--hash-key-file gives the filter --hash-key gives (same 200 answers)" \
	cmp -s "$W/ans_g1" "$W/out"
printf '0123\n' >"$W/hkbad"
expect_err "a hash key file without 32 hex digits is refused" 2 \
	"hash key file '$W/hkbad' holds neither 32 hexadecimal digits" create ${P}x --capacity 8 --fpp 0.1 --hash-key-file "$W/hkbad"
expect_err "a missing hash key file is an error" 3 \
	"cannot read hash key file '$W/nofile': No such file" create ${P}x --capacity 8 --fpp 0.1 --hash-key-file "$W/nofile"
run destroy ${P}h

# --version: this program's version, from the file VERSION.
run --version
check "bloomctl --version prints the version of the file VERSION" \
	sh -c "[ $rc = 0 ] && grep -q '^bloomctl $(cat "$(dirname "$0")/../../VERSION") (libbloom ' '$W/out'"

# version: this program's versions even when the module cannot answer.
run --device "$W/nodev" version
check "version without a device prints bloomctl's and libbloom's versions, then fails (exit $rc)" \
	sh -c "[ $rc = 3 ] && grep -q '^bloomctl: *$(cat "$(dirname "$0")/../../VERSION") (libbloom ' '$W/out' && grep -q 'nodev not found' '$W/err'"
run --device "$W/nodev" version --json
check "version --json without a device is still a JSON object with the versions (exit $rc)" \
	sh -c "[ $rc = 3 ] && '$PY' -c 'import json,sys; d=json.load(sys.stdin); assert d[\"bloomctl_version\"] and d[\"libbloom_version\"]' <'$W/out'"
run version --json
check "version --json names bloomctl's version when the module answers" \
	sh -c "[ $rc = 0 ] && '$PY' -c 'import json,sys; d=json.load(sys.stdin); assert d[\"bloomctl_version\"] and d[\"abi_version\"] > 0' <'$W/out'"

# --- scalable filters ------------------------------------------------------------
expect_err "a counting filter cannot be --scalable: usage error naming the types" 2 \
	"counting filter cannot be --scalable: only standard, blocked and timed" \
	create ${P}x --type counting --capacity 100 --fpp 0.01 --scalable
expect_err "--growth without --scalable is a usage error" 2 "go with --scalable" \
	create ${P}x --capacity 100 --fpp 0.01 --growth 4
expect_err "--growth 1 is refused with the bounds" 2 "from 2 to 16" \
	create ${P}x --capacity 100 --fpp 0.01 --scalable --growth 1
expect_err "--tightening 0.99 is refused with the bounds" 2 "from 0.50 to 0.95" \
	create ${P}x --capacity 100 --fpp 0.01 --scalable --tightening 0.99
check "no filter was left behind by the refused scalable creates" \
	sh -c "! bloomctl list -n | grep -qx ${P}x"
expect "create --scalable of capacity 1000 at 0.001" 0 \
	create ${P}g --capacity 1000 --fpp 0.001 --scalable
seq 1 5000 | sed 's/^/https:\/\/example.org\/page\//' >"$W/urls"
run add ${P}g -f "$W/urls"
check "add -f of 5000 keys (5x its capacity) exits 0" sh -c "[ $rc = 0 ]"
check "add -f of 5x the first stage's capacity gave no over-capacity warning" \
	sh -c "! grep -q 'more than its capacity' '$W/err'"
run info --json ${P}g
cp "$W/out" "$W/g.json"
run calc --scalable --type standard --capacity 1000 --fpp 0.001 --json
check "calc --scalable says what create built: each stage's capacity, rate, bits and hashes" \
	"$PY" -c "
import json
c = json.load(open('$W/out'))
d = json.load(open('$W/g.json'))
assert c['scalable'] is True and c['growth'] == 2 and c['type'] == 'standard', c
keys = ('capacity', 'fpp_ppb', 'bits', 'hashes')
for s, t in zip(d['stages'], c['stages']):
    assert all(s[k] == t[k] for k in keys), (s, t)
assert len(c['stages']) > len(d['stages']) == 3, c
t = c['stages'][2]
assert t['total_capacity'] == 7000 and t['total_memory_bytes'] == sum(x['memory_bytes'] for x in c['stages'][:3]), t
assert 1 < t['vs_optimal'] < 2, t
"
expect_err "calc --scalable of a counting filter is a usage error" 2 \
	"counting filter cannot be --scalable" calc --scalable --type counting --capacity 1000 --fpp 0.01
expect_err "calc --scalable with --memory is a usage error" 2 \
	"given by --capacity N" calc --scalable --memory 1M --fpp 0.01
run test ${P}g -f "$W/urls"
check "test -f finds all 5000 keys" sh -c "[ $rc = 0 ] && cmp -s '$W/urls' '$W/out'"
check "sysfs: 3 stages (1000 + 2000 + 4000 >= 5000), growth 2, tightening 850000" \
	sh -c "[ '$(sysval ${P}g stages) $(sysval ${P}g growth) $(sysval ${P}g tightening_ppm)' = '3 2 850000' ]"
check "sysfs stage 1: capacity 2000 at 127500 ppb (0.001 * 0.15 * 0.85)" \
	sh -c "[ '$(stageval ${P}g capacity 1) $(stageval ${P}g fpp_ppb 1)' = '2000 127500' ]"
run list
check "list marks the scalable filter and shows its stages' capacity (1000 + 2000 + 4000)" \
	sh -c "[ $rc = 0 ] && grep -Eq '^${P}g +standard \(scalable\) +[a-z0-9]+ +7000 ' '$W/out'"
run info ${P}g
check "info: capacity is the stages' sum, the load against it (about 71%)" \
	sh -c "[ $rc = 0 ] && grep -q '^capacity: *7000 keys (its 3 stages so far; stage 0: 1000' '$W/out' && grep -Eq '^load: *(6[89]|7[0-4])\.[0-9]% of capacity' '$W/out'"
run info ${P}g
check "info shows 3 stages and a row per stage" \
	sh -c "[ $rc = 0 ] && grep -q '^scalable: *3 stages' '$W/out' && grep -Eq '^ +2 +4000 ' '$W/out'"
run info --json ${P}g
check "info --json: stages (one object per stage) and bits (their sum), as in sysfs" \
	"$PY" -c "
import json
d = json.load(open('$W/out'))
st = d['stages']
assert d['scalable'] is True and d['stage_count'] == len(st) == 3, d
assert [s['capacity'] for s in st] == [1000, 2000, 4000], st
assert d['bits'] == sum(s['bits'] for s in st) == $(sysval ${P}g bits), d
assert st[0]['count'] == 1000 and st[1]['count'] == 2000, st
assert d['count'] == sum(s['count'] for s in st), d
assert 0 < d['estimated_fpp'] < 0.001, d
assert d['estimated_fpp_ppb'] == $(sysval ${P}g estimated_fpp_ppb), d
assert 4750 <= d['estimated_keys'] <= 5250, d
assert d['over_capacity'] is False, d
assert d['growth'] == 2 and abs(d['tightening'] - 0.85) < 1e-9, d
"
check "create --like of a scalable filter: an empty scalable filter that merges with it" \
	sh -c "bloomctl create ${P}y --like ${P}g &&
	       [ \"\$(cat $SYS/filters/${P}y/stages)\" = 1 ] && [ \"\$(cat $SYS/filters/${P}y/count)\" = 0 ] &&
	       bloomctl merge ${P}y ${P}g && [ \"\$(cat $SYS/filters/${P}y/stages)\" = \"\$(cat $SYS/filters/${P}g/stages)\" ] &&
	       bloomctl destroy ${P}y"
expect_err "create --like with --scalable is a usage error" 2 \
	"drop --scalable" create ${P}y --like ${P}b --scalable
expect_err "merge into a scalable filter is refused, saying what differs" 3 \
	"cannot merge ${P}b into ${P}g: their types differ: ${P}g is standard, ${P}b blocked; ${P}g is scalable and ${P}b is not" \
	merge ${P}g ${P}b
expect_err "swap of a scalable and a plain filter is refused, saying why" 3 \
	"both scalable or neither" swap ${P}g ${P}s
check "the refused calls left the scalable filter's keys" \
	sh -c "[ '$(sysval ${P}g stages)' = 3 ] && bloomctl test -q ${P}g https://example.org/page/4999"
run save ${P}g "$W/g.bloom"
check "save of a scalable filter exits 0 and writes the snapshot" \
	sh -c "[ $rc = 0 ] && [ -s '$W/g.bloom' ]"
run restore "$W/g.bloom" --name ${P}r
check "restore --name of it exits 0" sh -c "[ $rc = 0 ]"
run test ${P}r -f "$W/urls"
check "the restored filter finds all 5000 keys" \
	sh -c "[ $rc = 0 ] && cmp -s '$W/urls' '$W/out'"
check "the restored filter has the stages of the saved one (count, bits, keys per stage)" \
	sh -c "for a in stages growth tightening_ppm bits bits_set stage_bits stage_count stage_fpp_ppb stage_capacity; do [ \"\$(cat $SYS/filters/${P}g/\$a)\" = \"\$(cat $SYS/filters/${P}r/\$a)\" ] || exit 1; done"
# A scalable filter that reaches max_memory keeps what went in and says
# how much that is and where to resume.
run create ${P}m --capacity 100 --fpp 0.01 --scalable
cat $SYS/memory_used >/sys/module/bloom/parameters/max_memory
run add ${P}m -f "$W/urls"
echo "$maxmem" >/sys/module/bloom/parameters/max_memory
fit=$(sed -n 's/.*; \([0-9]*\) keys were added, none from .*:\([0-9]*\) on (resume there)$/\1 \2/p' "$W/err")
check "a scalable filter at max_memory: add exits 3 with the keys added and the first line not added ($fit)" \
	sh -c "set -- $fit; [ $rc = 3 ] && grep -q 'memory' '$W/err' && [ \"\${1:-0}\" -ge 100 ] && [ \"\$2\" = \$((\$1 + 1)) ]"
check "  those keys are in, and the count is what the filter says it took" \
	sh -c "set -- $fit; [ '$(sysval ${P}m adds)' = \"\$1\" ] && head -n \"\$1\" '$W/urls' | bloomctl test ${P}m -f - --absent | cmp -s - /dev/null"
run destroy ${P}m
expect_err "restore --replace of the scalable snapshot onto a plain filter is refused, saying why" 3 \
	"cannot replace the contents of filter ${P}s: the snapshot .*g.bloom is scalable and ${P}s is not" \
	restore "$W/g.bloom" --name ${P}s --replace
run destroy ${P}r
expect "create --type blocked --scalable --growth 4 --tightening 0.75" 0 \
	create ${P}h --type blocked --capacity 1000 --fpp 0.01 --scalable --growth 4 --tightening 0.75
check "sysfs: blocked, growth 4, tightening 750000, stage 0 at 2500000 ppb" \
	sh -c "[ '$(sysval ${P}h type) $(sysval ${P}h growth) $(sysval ${P}h tightening_ppm) $(stageval ${P}h fpp_ppb 0)' = 'blocked 4 750000 2500000' ]"
# P = 20 ppb, r = 0.5: stages of 1, 2, 4, 8 keys at 10, 5, 2, 1 ppb, no fifth.
expect "create --scalable of capacity 1 at 2e-8 with --tightening 0.5" 0 \
	create ${P}l --capacity 1 --fpp 2e-8 --scalable --tightening 0.5
run add ${P}l -f "$W/urls"
check "add past the last possible stage exits 3 saying so, naming the fix" \
	sh -c "[ $rc = 3 ] && grep -q 'scalable filter ${P}l cannot grow: it has its last possible stage (4 of at most 32' '$W/err' && grep -q 'larger --capacity or --growth' '$W/err'"
check "the keys before it stay: 4 stages holding 15 keys" \
	sh -c "[ '$(sysval ${P}l stages)' = 4 ] && [ '$(stageval ${P}l count 3)' = 8 ] && bloomctl test -q ${P}l https://example.org/page/1"
run destroy ${P}l
run info --json ${P}b
check "info --json of a filter that is not scalable has no stages" \
	"$PY" -c "
import json
d = json.load(open('$W/out'))
assert 'stages' not in d and 'scalable' not in d, d
"
for f in g h; do run destroy ${P}$f; done
check "destroying the scalable filters removed their directories" \
	sh -c "[ ! -e $SYS/filters/${P}g ] && [ ! -e $SYS/filters/${P}h ]"

# --- destroy -----------------------------------------------------------------------
expect "destroy a filter" 0 destroy ${P}s
check "destroy removed its sysfs directory" sh -c "[ ! -e $SYS/filters/${P}s ]"
check "destroy removed it from list" sh -c "! bloomctl list -n | grep -qx ${P}s"
expect_err "destroy of a missing filter exits 3" 3 "no filter named ${P}s" destroy ${P}s
for f in b g1 g2 g3 g4 g5; do run destroy ${P}$f; done
check "every filter made here was destroyed" sh -c "! bloomctl list -n | grep -q '^$P'"
if [ -n "$live0" ]; then
	check "live_allocations is back where it started ($live0)" \
		sh -c "[ '$(wait_live "$live0")' = '$live0' ] && [ \$(cat $SYS/memory_used) = '$mem0' ]"
fi

echo "1..$n"
[ "$failed" = 0 ] && echo "# all $n passed" || echo "# $failed of $n failed"
[ "$failed" = 0 ]
