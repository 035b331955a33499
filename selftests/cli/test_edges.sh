#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# TAP 13 test of bloomctl at the edges of its verbs: refusals of merge,
# swap and restore --replace that say what differs; merge and swap of a
# filter with itself; test -q with files; the KEYS column of list; flush
# and merge of scalable filters; inspect of a snapshot file; calc's
# wording, caps, tables and the rate of an address in a filter of
# netblocks; build's sizing options and feeds; bash completion; the boot
# order of the units. Runs as root with bloom.ko loaded and bloomctl on
# PATH, e.g.
#   selftests/vm/run.sh -- selftests/cli/test_edges.sh
# Exits 0 iff every check passes; destroys every filter it made.

. "$(dirname "$0")/../tap.sh"
. "$(dirname "$0")/lib.sh"
cli_begin edge
PY=$(command -v /usr/bin/python3 || command -v python3)
K=000102030405060708090a0b0c0d0e0f

cleanup() {
	[ -n "${maxmem-}" ] && echo "$maxmem" >/sys/module/bloom/parameters/max_memory
	cli_end
}
trap cleanup EXIT

# --- merge, swap, restore --replace: which of the properties differs -----
# a, b: alike but for the hash key; c: another geometry; d: counting;
# s: strings, v: IPv4 keys (both of a's geometry and hash key)
geo="--capacity 8 --fpp 0.1 --bits 64 --hashes 1"
run create ${P}a $geo --hash-key $K
run create ${P}b $geo --hash-key f${K#0}
run create ${P}c --capacity 8 --fpp 0.1 --bits 128 --hashes 2 --hash-key $K
run create ${P}d --type counting $geo --hash-key $K
run create ${P}s $geo --hash-key $K --keys strings
run create ${P}v $geo --hash-key $K --keys ipv4
expect_err "merge of filters that differ only in their hash key names the hash key" 3 \
	"cannot merge ${P}b into ${P}a: their type and geometry are alike, so their hash keys differ; .*create ${P}b --like ${P}a" \
	merge ${P}a ${P}b
expect_err "merge of filters of other geometries names both geometries" 3 \
	"cannot merge ${P}c into ${P}a: their geometries differ: ${P}a has 64 bits and 1 hashes, ${P}c 128 bits and 2 hashes" \
	merge ${P}a ${P}c
expect_err "merge of filters of other types names both types" 3 \
	"cannot merge ${P}d into ${P}a: their types differ: ${P}a is standard, ${P}d counting" \
	merge ${P}a ${P}d
expect_err "merge of filters of other key kinds names both kinds" 3 \
	"cannot merge ${P}v into ${P}s: their key kinds differ: ${P}s holds strings, ${P}v IPv4 addresses" \
	merge ${P}s ${P}v
run create ${P}l1 --type dleft --capacity 100 --fpp 0.01
run create ${P}l2 --like ${P}l1
expect_err "merge of two alike dleft filters says dleft filters cannot be merged" 3 \
	"cannot merge ${P}l2 into ${P}l1: dleft filters cannot be merged" merge ${P}l1 ${P}l2
expect_err "swap of filters of other key kinds names both kinds" 3 \
	"cannot swap ${P}s and ${P}v: their key kinds differ: ${P}s holds strings, ${P}v IPv4 addresses" \
	swap ${P}s ${P}v
run save ${P}d "$W/d.bloom"
expect_err "restore --replace of a counting snapshot onto a standard filter names both types" 3 \
	"d.bloom cannot replace the contents of filter ${P}a: their types differ: ${P}a is standard, the snapshot .*d.bloom counting" \
	restore "$W/d.bloom" --name ${P}a --replace
run save ${P}v "$W/v.bloom"
expect_err "restore --replace of a snapshot of IPv4 keys onto a filter of strings names both kinds" 3 \
	"cannot replace the contents of filter ${P}s: their key kinds differ: ${P}s holds strings, the snapshot .*v.bloom IPv4 addresses" \
	restore "$W/v.bloom" --name ${P}s --replace

# --- merge and swap of a filter with itself: one rule --------------------
expect_err "merge of a filter into itself is a usage error" 2 \
	"merge names filter ${P}a twice: merge takes two different filters" merge ${P}a ${P}a
expect_err "swap of a filter with itself is a usage error too" 2 \
	"swap names filter ${P}a twice: swap takes two different filters" swap ${P}a ${P}a

# --- test -q with files ---------------------------------------------------
run add ${P}a k1 k2 k3
printf 'k1\nk2\n' >"$W/present"
printf 'k1\nnever-added-1\nnever-added-2\n' >"$W/mixed"
run test -q ${P}a -f "$W/present"
check "test -q -f: every line present: exit 0, nothing printed" \
	sh -c "[ $rc = 0 ] && [ ! -s '$W/out' ] && [ ! -s '$W/err' ]"
run test -q ${P}a -f "$W/mixed"
check "test -q -f: a line absent: exit 1, nothing printed" \
	sh -c "[ $rc = 1 ] && [ ! -s '$W/out' ] && [ ! -s '$W/err' ]"
run test -q ${P}a --absent -f "$W/mixed"
check "test -q --absent -f: exit 1, nothing printed" \
	sh -c "[ $rc = 1 ] && [ ! -s '$W/out' ]"
run add ${P}v --ipv4 10.0.0.1 192.0.2.0/24
printf '10.0.0.1\n192.0.2.77\n' >"$W/v4"
run test -q ${P}v --ipv4 -f "$W/v4"
check "test -q --ipv4 -f: exit 0, nothing printed" \
	sh -c "[ $rc = 0 ] && [ ! -s '$W/out' ]"
printf '10.0.0.1\n10.9.9.9\n' >"$W/v4b"
run test -q ${P}v --ipv4 -f "$W/v4b"
check "test -q --ipv4 -f with an absent address: exit 1, nothing printed" \
	sh -c "[ $rc = 1 ] && [ ! -s '$W/out' ]"

# --- list: the key kind of each filter -------------------------------------
run list
check "list has a KEYS column: the kind of each filter" \
	sh -c "[ $rc = 0 ] && grep -Eq '^NAME +TYPE +KEYS +CAPACITY ' '$W/out' && grep -Eq '^${P}v +standard +ipv4 +8 ' '$W/out' && grep -Eq '^${P}s +standard +strings +8 ' '$W/out' && grep -Eq '^${P}a +standard +unknown +8 ' '$W/out'"

# --- flush of a scalable filter ---------------------------------------------
run create ${P}g --capacity 1000 --fpp 0.001 --scalable
seq 1 5000 | sed 's/^/url-/' >"$W/urls"
run add ${P}g -f "$W/urls"
mem3=$(sysval ${P}g memory_bytes)
check "a scalable filter fed 5x its capacity has 3 stages" \
	sh -c "[ '$(sysval ${P}g stages)' = 3 ]"
maxmem=$(cat /sys/module/bloom/parameters/max_memory)
cat $SYS/memory_used >/sys/module/bloom/parameters/max_memory
expect_err "flush without room for the new first stage fails, saying why, and changes nothing" 3 \
	"flush of a scalable filter makes its first stage anew.*nothing was changed" flush ${P}g
echo "$maxmem" >/sys/module/bloom/parameters/max_memory
check "  the filter still has its 3 stages and its keys" \
	sh -c "[ '$(sysval ${P}g stages)' = 3 ] && bloomctl test -q ${P}g -f '$W/urls'"
expect "flush of a scalable filter" 0 flush ${P}g
check "  leaves one stage, no keys, less memory" \
	sh -c "[ '$(sysval ${P}g stages)' = 1 ] && [ '$(sysval ${P}g count)' = 0 ] && [ '$(sysval ${P}g adds)' = 0 ] && [ '$(sysval ${P}g memory_bytes)' -lt '$mem3' ]"
run test ${P}g --absent -f "$W/urls"
check "  every key of before is absent" sh -c "[ $rc = 1 ] && cmp -s '$W/urls' '$W/out'"
run add ${P}g -f "$W/urls"
check "  and it grows again: 3 stages, every key present" \
	sh -c "[ $rc = 0 ] && [ '$(sysval ${P}g stages)' = 3 ] && bloomctl test -q ${P}g -f '$W/urls'"

# --- merge of scalable filters: stage by stage -------------------------------------
for m in 1 2; do run create ${P}m$m --capacity 1000 --fpp 0.001 --scalable --hash-key $K; done
run create ${P}m3 --capacity 1000 --fpp 0.001 --scalable --growth 4 --hash-key $K
run create ${P}m4 --capacity 1000 --fpp 0.001 --scalable --hash-key f${K#0}
run add ${P}m1 -f "$W/urls"
seq 1 300 | sed 's/^/other-/' >"$W/other"
run add ${P}m2 -f "$W/other"
expect "merge of two scalable filters of one hash key and parameters" 0 merge ${P}m2 ${P}m1
check "  the destination gets the source's 3 stages and holds the keys of both" \
	sh -c "[ '$(sysval ${P}m2 stages)' = 3 ] && bloomctl test -q ${P}m2 -f '$W/urls' && bloomctl test -q ${P}m2 -f '$W/other'"
expect_err "merge of scalable filters of another growth names the parameters of their stages" 3 \
	"cannot merge ${P}m3 into ${P}m1: their stages differ: ${P}m1 grows from 1000 keys at 0.001 by 2 \(tightening 0.85\), ${P}m3 from 1000 keys at 0.001 by 4" \
	merge ${P}m1 ${P}m3
expect_err "merge of scalable filters of another hash key names the hash key" 3 \
	"cannot merge ${P}m4 into ${P}m1: their type and the parameters of their stages are alike, so their hash keys differ" \
	merge ${P}m1 ${P}m4

# --- inspect: a snapshot's header, without the module ------------------------
run save ${P}v "$W/v.bloom"
run --device "$W/nodev" inspect "$W/v.bloom"
check "inspect reads a snapshot without the module: name, type, key kind, netblock lengths" \
	sh -c "[ $rc = 0 ] && grep -q '^name: *${P}v$' '$W/out' && grep -q '^type: *standard$' '$W/out' && grep -q '^keys: *ipv4$' '$W/out' && grep -q '^ipv4 netblocks: */24$' '$W/out' && grep -q '^file size: .*(complete)' '$W/out' && grep -q '^checked: *the header only' '$W/out'"
run info --json ${P}v
cp "$W/out" "$W/v.info"
run inspect --json "$W/v.bloom"
check "inspect --json agrees with info --json of the filter saved" \
	"$PY" -c "
import json
s = json.load(open('$W/out'))
i = json.load(open('$W/v.info'))
for k in ('name', 'type', 'key_kind', 'capacity', 'fpp_ppb', 'bits', 'hashes', 'count', 'adds', 'prefixes4'):
    assert s[k] == i[k], (k, s[k], i[k])
assert s['complete'] is True and s['checked'] is False, s
assert s['file_bytes'] == s['header_bytes'] + s['payload_bytes'], s
"
run save ${P}g "$W/g.bloom"
run inspect --json --check "$W/g.bloom"
check "inspect --json --check of a scalable snapshot: its stages, as sysfs has them" \
	"$PY" -c "
import json
s = json.load(open('$W/out'))
assert s['scalable'] is True and s['checked'] is True, s
assert s['stage_count'] == len(s['stages']) == $(sysval ${P}g stages), s
assert [t['capacity'] for t in s['stages']] == [int(x) for x in '$(sysval ${P}g stage_capacity)'.split()], s
"
ghb=$("$PY" -c "import json; print(json.load(open('$W/out'))['header_bytes'])")
head -c $((ghb + 10)) "$W/g.bloom" >"$W/short.bloom"
run inspect "$W/short.bloom"
check "inspect of a truncated snapshot shows its header and says it is truncated" \
	sh -c "[ $rc = 0 ] && grep -q '^file size: *$((ghb + 10)) bytes (truncated' '$W/out'"
expect_err "inspect --check of a truncated snapshot exits 3 saying so" 3 \
	"short.bloom: truncated snapshot" inspect --check "$W/short.bloom"
printf 'hello\n' >"$W/text.bloom"
expect_err "inspect of a file that is no snapshot exits 3 saying so" 3 \
	"text.bloom: .*not a bloom snapshot" inspect "$W/text.bloom"
runin "$W/v.bloom" inspect -
check "inspect - reads standard input" \
	sh -c "[ $rc = 0 ] && grep -q '^name: *${P}v$' '$W/out'"

# --- calc: numbers that add up, caps that are said, tables that align -------
expect_err "calc --memory 1 --capacity 10: the memory that fits, and its true bits per key" 2 \
	"10 keys do not fit .*give --memory 64 or more \(64 B, 51\.20 bits of memory per key\)" \
	calc --memory 1 --capacity 10 --type standard
expect_err "calc --bits-per-key 1 --capacity 10: the bits per key that fit" 2 \
	"10 keys do not fit .*give --bits-per-key [0-9.]+ or more \(a table of 64 bytes" \
	calc --bits-per-key 1 --capacity 10 --type standard
run calc --memory 100G --fpp 0.01
check "calc --memory 100G says the capacity is capped at the most keys a filter may have" \
	sh -c "[ $rc = 0 ] && grep -q '^standard  *4294967295 ' '$W/out' && grep -q '^note: --memory holds more keys than a filter may have (4294967295): CAPACITY is capped there' '$W/out'"
run calc --memory 100G --fpp 0.01 --type blocked --json
check "  and --json says capacity_capped" \
	"$PY" -c "import json; d = json.load(open('$W/out')); assert d['capacity_capped'] is True and d['capacity'] == 4294967295, d"
run calc --memory 1M --fpp 0.01 --type blocked --json
check "  (not capped when it is not)" \
	"$PY" -c "import json; d = json.load(open('$W/out')); assert d['capacity_capped'] is False, d"
expect_err "calc --scalable --fpp 1e-9 says which rate would work" 2 \
	"would be under 1 ppb; give --fpp 7e-09 or more" \
	calc --scalable --capacity 1000 --fpp 1e-9
run calc --scalable --capacity 1000 --fpp 7e-9 --type standard --json
check "  and that rate works" sh -c "[ $rc = 0 ]"
# a table whose numbers are as wide as they get: every row as long as the header
run calc --capacity 10 --bits-per-key 4000000
check "calc's table stays aligned for the widest numbers (every row as long as the header)" \
	sh -c "[ $rc = 0 ] && head -n 5 '$W/out' | awk '{ print length(\$0) }' | sort -u | wc -l | grep -qx 1"
run calc --scalable --capacity 4G --fpp 0.5 --growth 16
check "calc --scalable's table stays aligned for 10-digit capacities" \
	sh -c "[ $rc = 0 ] && sed -n '3,4p' '$W/out' | awk '{ print length(\$0) }' | sort -u | wc -l | grep -qx 1 && grep -q ' 1 stage at most' '$W/out'"

# --- calc --netblock-lengths: the rate of an address -----------------------------
run calc --capacity 1M --fpp 0.01 --netblock-lengths 12 --type standard --json
check "calc --netblock-lengths 12: 13 lookups, address rate 1 - 0.99^13, sizing rate 0.01/13" \
	"$PY" -c "
import json
d = json.load(open('$W/out'))
assert d['address_lookups'] == 13, d
assert abs(d['address_fpp'] - (1 - 0.99 ** 13)) < 1e-6, d
assert abs(d['address_sizing_fpp'] - 0.01 / 13) < 1e-9, d
"
run calc --capacity 1M --fpp 0.01 --netblock-lengths 12
check "  the table has ADDR FPP and says how to size for an address rate" \
	sh -c "[ $rc = 0 ] && grep -Eq '^TYPE .* ADDR FPP$' '$W/out' && grep -Eq '^standard .* 0\.1225$' '$W/out' && grep -q 'size with --fpp P/13 (for 0.01: --fpp 0.0007692)' '$W/out'"
expect_err "calc --netblock-lengths 200 is refused with the bounds" 2 \
	"bad number of netblock lengths '200': give 0 to 128" \
	calc --capacity 1M --fpp 0.01 --netblock-lengths 200
# what info says of a filter holding netblocks of 2 lengths: the same formula
run create ${P}n --capacity 1000 --fpp 0.01
run add ${P}n --ipv4 10.0.0.1 10.1.0.0/16 10.2.3.0/24
run info --json ${P}n
cp "$W/out" "$W/n.info"
run calc --capacity 1000 --fpp 0.01 --netblock-lengths 2 --type standard --json
check "  the lookups calc counts for 2 lengths are the ones info counts" \
	"$PY" -c "
import json
c = json.load(open('$W/out'))
i = json.load(open('$W/n.info'))
assert c['address_lookups'] == i['address_lookups'] == 3, (c, i)
"

# --- build: sizing by any two, feeds of addresses and netblocks -------------------
seq 1 3000 | sed 's/^/bk-/' >"$W/bkeys"
for sz in "--memory 64Ki --fpp 0.01" "--capacity 5000 --bits-per-key 12" \
	"--capacity 5000 --memory 8Ki"; do
	for t in standard blocked counting dleft; do
		# shellcheck disable=SC2086 # $sz holds two options and their values
		timeout "$LIMIT" bloomctl calc --type $t $sz --json >"$W/calc.json" 2>"$W/err"
		# shellcheck disable=SC2086
		run build "$W/sz.bloom" --name ${P}z --type $t $sz -f "$W/bkeys"
		brc=$rc
		run inspect --json "$W/sz.bloom"
		check "build --type $t $sz sizes as calc does" \
			"$PY" -c "
import json
c = json.load(open('$W/calc.json'))
s = json.load(open('$W/out'))
assert $brc == 0, 'build exit $brc'
for k in ('capacity', 'fpp_ppb', 'bits', 'hashes'):
    assert c[k] == s[k], (k, c[k], s[k])
"
	done
done
expect_err "build with three sizes is refused as create refuses it" 2 \
	"give two of --capacity, --fpp, --bits-per-key and --memory \(3 given\)" \
	build "$W/x.bloom" --name x --capacity 10 --fpp 0.01 --memory 1M -f "$W/bkeys"
# a feed with netblocks, comments and ipset lines: the very bits add puts in
cat >"$W/feed4" <<'FEED'
# a blocklist
203.0.113.7
198.51.100.0/24 ; a netblock
create drop hash:net family inet
add drop 192.0.2.0/25

10.0.0.0/8
FEED
run create ${P}f --capacity 1000 --fpp 0.001 --hash-key $K
run add ${P}f --ipv4 -f "$W/feed4"
run save ${P}f "$W/kf.bloom"
echo $K >"$W/hk"
run build "$W/bf.bloom" --name ${P}f --capacity 1000 --fpp 0.001 --hash-key-file "$W/hk" --ipv4 -f "$W/feed4"
check "build --ipv4 of a feed with netblocks, comments and ipset lines exits 0" sh -c "[ $rc = 0 ]"
run inspect --json "$W/bf.bloom"
cp "$W/out" "$W/bf.json"
run inspect --json "$W/kf.bloom"
cp "$W/out" "$W/kf.json"
check "  its key kind, netblock lengths and keys are the kernel filter's" \
	"$PY" -c "
import json
b = json.load(open('$W/bf.json'))
k = json.load(open('$W/kf.json'))
assert b['key_kind'] == k['key_kind'] == 'ipv4', (b, k)
assert b['prefixes4'] == k['prefixes4'] == [25, 24, 8], (b, k)
assert b['adds'] == k['adds'] == 4 and b['header_bytes'] == k['header_bytes'], (b, k)
"
hb=$("$PY" -c "import json; print(json.load(open('$W/bf.json'))['header_bytes'])")
tail -c +$((hb + 1)) "$W/bf.bloom" >"$W/bf.payload"
tail -c +$((hb + 1)) "$W/kf.bloom" >"$W/kf.payload"
check "  and its payload is byte for byte the kernel filter's" \
	sh -c "[ -s '$W/bf.payload' ] && cmp -s '$W/bf.payload' '$W/kf.payload'"
run restore "$W/bf.bloom" --name ${P}r
run test ${P}r --ipv4 198.51.100.200 10.200.1.1 192.0.2.100
check "  restored, it answers for addresses inside its netblocks" sh -c "[ $rc = 0 ]"
expect_err "  and refuses a test without --ipv4, as a filter fed by add does" 3 \
	"holds IPv4 addresses.*give --ipv4" test ${P}r 10.0.0.1
printf '10.0.0.1\n10.0.0.300\n' >"$W/bad4"
expect_err "build --ipv4 stops at a bad line, naming FILE:LINE, and writes nothing" 3 \
	"bad4:2: .*nothing was written" \
	build "$W/bad.bloom" --name x --capacity 10 --fpp 0.01 --ipv4 -f "$W/bad4"
check "  (no file)" test ! -e "$W/bad.bloom"

# build --scalable: the stages create --scalable grows, from a file
run build "$W/bs.bloom" --name ${P}bs --capacity 1000 --fpp 0.001 --scalable -f "$W/urls"
check "build --scalable of 5000 keys at capacity 1000 exits 0" sh -c "[ $rc = 0 ]"
run inspect --json --check "$W/bs.bloom"
cp "$W/out" "$W/bs.json"
run calc --scalable --type standard --capacity 1000 --fpp 0.001 --json
check "  its stages are the ones calc --scalable gives, 3 of them" \
	"$PY" -c "
import json
b = json.load(open('$W/bs.json'))
c = json.load(open('$W/out'))
assert b['scalable'] is True and b['stage_count'] == 3 and b['checked'] is True, b
for s, t in zip(b['stages'], c['stages']):
    assert all(s[k] == t[k] for k in ('capacity', 'fpp_ppb', 'bits', 'hashes')), (s, t)
"
run restore "$W/bs.bloom"
run test ${P}bs -f "$W/urls"
check "  restored, it finds all 5000 keys" sh -c "[ $rc = 0 ] && cmp -s '$W/urls' '$W/out'"
run create ${P}ks --capacity 1000 --fpp 0.001 --scalable --hash-key $K
run add ${P}ks -f "$W/urls"
run save ${P}ks "$W/ks.bloom"
run build "$W/kb.bloom" --name ${P}ks --capacity 1000 --fpp 0.001 --scalable --hash-key-file "$W/hk" -f "$W/urls"
brc=$rc
hb=$(bloomctl inspect --json "$W/ks.bloom" | "$PY" -c "import json, sys; print(json.load(sys.stdin)['header_bytes'])")
tail -c +$((hb + 1)) "$W/ks.bloom" >"$W/ks.payload"
tail -c +$((hb + 1)) "$W/kb.bloom" >"$W/kb.payload"
check "  with the kernel filter's hash key, its payload is the kernel's, byte for byte" \
	sh -c "[ $brc = 0 ] && [ -s '$W/ks.payload' ] && cmp -s '$W/ks.payload' '$W/kb.payload'"
expect_err "build --scalable of a counting filter is refused as create refuses it" 2 \
	"counting filter cannot be --scalable" \
	build "$W/x.bloom" --name x --type counting --capacity 10 --fpp 0.01 --scalable -f "$W/urls"

# --- bash completion ------------------------------------------------------------------
mkdir -p "$W/filters/spam" "$W/filters/seen" "$W/c/dir1"
: >"$W/c/snap.bloom"
comp=$(BLOOMCTL_FILTERS_DIR=$W/filters bash -c '
	. "$1"
	t() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _bloomctl; echo "${COMPREPLY[*]}"; }
	w=$2
	t bloomctl merge spam ""
	t bloomctl swap seen s
	t bloomctl save spam "$w/c/sn"
	t bloomctl restore "$w/c/sn"
	t bloomctl restore --name new "$w/c/sn"
	t bloomctl restore --all "$w/c/d"
	t bloomctl build "$w/c/sn"
	t bloomctl inspect "$w/c/sn"
	t bloomctl build x --type ""
	t bloomctl create x --keys ""
	t bloomctl calc --netb
	t bloomctl inspect --ch
	t bloomctl create s
	t bloomctl add s' sh "$(dirname "$0")/../../tools/bloomctl/bloomctl.bash-completion" "$W" 2>&1)
printf '%s\n' "$comp" >"$W/comp"
printf '%s\n' "seen spam" "seen spam" "$W/c/snap.bloom" "$W/c/snap.bloom" \
	"$W/c/snap.bloom" "$W/c/dir1" "$W/c/snap.bloom" "$W/c/snap.bloom" \
	"standard blocked counting dleft timed" "strings ipv4 ipv6" "--netblock-lengths" \
	"--check" "" "seen spam" >"$W/comp.want"
check "bash completion: second filter names, files, directories, --type and --keys values, new options" \
	sh -c "cmp -s '$W/comp.want' '$W/comp' || { diff '$W/comp.want' '$W/comp' | sed 's/^/# /'; false; }"

# --- the boot order of the units ------------------------------------------------------
unit=${BUILD:-$(dirname "$0")/../../build}/systemd/bloom-persistent.service
check "bloom-persistent.service runs before the services that load firewall rules" \
	sh -c "grep -q '^Before=.*netfilter-persistent.service' '$unit' && grep -q '^Before=.*nftables.service' '$unit' && grep -q '^Before=.*iptables.service' '$unit'"

# --- an expiring filter: capacity per timeout, taken evenly ------------------
run create ${P}x --capacity 20000 --fpp 0.001 --timeout 40s
seq 1 8000 | sed 's/^/burst-/' >"$W/burst"
run add ${P}x -f "$W/burst"
check "a burst of 8000 keys into 20000 per 40 s warns naming the generation and its share of 5000" \
	sh -c "[ $rc = 0 ] && grep -Eq 'warning: ${P}x: generation 4 of 5 .*holds about [0-9]+ keys, more than its share of 5000: a capacity of 20000 keys per timeout \(40 s\) is taken evenly, capacity / \(G - 1\) = 5000 keys in each period of 10 s' '$W/err' && grep -Eq 'For bursts of [0-9]+ keys, create the filter with --capacity [0-9]+ or more' '$W/err' && ! grep -q 'more than its capacity of 20000' '$W/err'"
run info ${P}x
check "info says the capacity is per timeout, taken evenly, and what a burst does" \
	sh -c "grep -q '^capacity: *20000 keys per timeout, taken evenly: 5000 (capacity / (G - 1)) in each generation.s period of 10 s; a burst of more' '$W/out'"
run list
check "list shows the capacity info shows (keys per timeout, not G x share)" \
	sh -c "grep -Eq '^${P}x +standard +[a-z]+ +20000 ' '$W/out'"

# --- late rotations: counted, in sysfs and info ------------------------------
# a rotation waits for the lock a save holds while it copies the ring: 27 MB
# of generations of a 1 s period, saved again and again, make rotations late
run create ${P}h --capacity 1000 --fpp 0.01 --timeout 1h
late=$(sysval ${P}h late_rotations)
run info --json ${P}h
check "an expiring filter whose first rotation is an hour away has late_rotations 0 (sysfs, info --json)" \
	sh -c "[ '$late' = 0 ] && grep -q '\"late_rotations\": 0,' '$W/out'"
run create ${P}l --capacity 10M --fpp 0.01 --timeout 1s --generations 2
i=0
while [ $i -lt 8 ] && [ "$(sysval ${P}l late_rotations)" = 0 ]; do
	timeout "$LIMIT" bloomctl save ${P}l - >/dev/null
	i=$((i + 1))
done
late=$(sysval ${P}l late_rotations)
echo "# late rotations after $i saves: $late"
run info ${P}l
check "rotations kept waiting by saves count as late, in sysfs and info" \
	sh -c "[ '${late:-0}' -gt 0 ] && grep -Eq '^late rotations: +[1-9][0-9]* \(rotations that ran over a period / 100 late' '$W/out'"

# --- the end ----------------------------------------------------------------
for f in $(bloomctl list -n | grep "^$P"); do run destroy "$f"; done
check "every filter made here was destroyed" sh -c "! bloomctl list -n | grep -q '^$P'"

echo "1..$n"
[ "$failed" = 0 ] && echo "# all $n passed" || echo "# $failed of $n failed"
[ "$failed" = 0 ]
