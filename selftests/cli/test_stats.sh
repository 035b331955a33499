#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# TAP 13 test of "bloomctl stats --prometheus": one filter of every type
# and shape (standard, blocked, counting, dleft, timed, scalable, expiring,
# IPv4, a name with a double quote and a backslash), keys added, queried and
# deleted; the output parsed as Prometheus'
# text format (every family's HELP and TYPE before its samples, names with
# the bloom_ prefix, counters ending in _total, byte gauges in _bytes,
# every sample of a filter labelled with its name and type) holds, for
# each filter, exactly the figures "info --json" gives, and the families a
# type has only for that type; "promtool check metrics" (Debian's
# prometheus) finds nothing to say; without --prometheus stats is refused.
# Runs as root with bloom.ko loaded and bloomctl on PATH:
#   selftests/vm/run.sh -- selftests/cli/test_stats.sh

here=$(cd "$(dirname "$0")" && pwd)
PY=$(command -v /usr/bin/python3 || command -v python3)
. "$here/../tap.sh"
. "$here/lib.sh"
cli_begin stats

expect_err "stats without --prometheus is refused, naming it" 2 "give --prometheus" stats

run create ${P}s --capacity 1000 --fpp 0.01
run create ${P}b --type blocked --capacity 1000 --fpp 0.01
run create ${P}c --type counting --capacity 1000 --fpp 0.01
run create ${P}d --type dleft --capacity 1000 --fpp 0.01
run create ${P}t --capacity 1000 --fpp 0.001 --key-timeouts
run create ${P}g --scalable --capacity 100 --fpp 0.01
run create ${P}e --timeout 60s --capacity 1000 --fpp 0.01
run create ${P}n --capacity 1000 --fpp 0.01 --keys ipv4
# a name may hold any printable character but '/': a label escapes two
run create "${P}q\"x\\y" --capacity 1000 --fpp 0.01
run add ${P}n --ipv4 10.0.0.1 10.1.0.0/16
for f in s b c d t g e; do run add ${P}$f k1 k2 k3; done
# through the ioctl, which counts queries (root's queries of standard and
# blocked filters otherwise read the mapping in place, uncounted)
export BLOOM_NO_MAP=1
for f in s b c d t g e; do run test ${P}$f k1 k2; done
unset BLOOM_NO_MAP
for f in c d t; do run del ${P}$f k1; done
run stats --prometheus
check "stats --prometheus succeeds" [ "$rc" = 0 ]
cp "$W/out" "$W/prom"
for f in s b c d t g e n; do
	run info --json ${P}$f
	cp "$W/out" "$W/$f.json"
done

check "the text format: HELP and TYPE before each family's samples, names and labels by Prometheus' conventions" \
	"$PY" - "$W/prom" <<'EOF'
import re, sys
seen, help_, type_ = set(), {}, {}
sample = re.compile(r'^([a-z_]+)(\{filter="((?:[^"\\]|\\.)*)",type="([a-z]+)"\})? (\S+)$')
for line in open(sys.argv[1]):
    line = line.rstrip('\n')
    m = re.match(r'^# (HELP|TYPE) (\S+) (.+)$', line)
    if m:
        kind, name, rest = m.groups()
        assert name.startswith('bloom_'), line
        assert name not in seen, 'family %s split: %s' % (name, line)
        (help_ if kind == 'HELP' else type_)[name] = rest
        continue
    m = sample.match(line)
    assert m, 'not a sample: %r' % line
    name = m.group(1)
    seen.add(name)
    assert name in help_ and name in type_, 'no HELP or TYPE before ' + line
    t = type_[name]
    assert t in ('counter', 'gauge'), line
    assert (t == 'counter') == name.endswith('_total'), line
    assert name.startswith('bloom_module_') == (m.group(2) is None), line
    float(m.group(5))
assert 'bloom_module_memory_used_bytes' in seen and 'bloom_module_memory_limit_bytes' in seen
EOF

check "each filter's samples are info --json's figures; deletes, expired keys, stages and generations only where the type has them" \
	"$PY" - "$W" "$P" <<'EOF'
import json, re, sys
w, p = sys.argv[1], sys.argv[2]
got = {}
for line in open(w + '/prom'):
    m = re.match(r'^([a-z_]+)\{filter="([^"]*)",type="([a-z]+)"\} (\S+)$', line)
    if m and m.group(2).startswith(p):
        got.setdefault(m.group(2), {})[m.group(1)] = (m.group(3), float(m.group(4)))
same = {'bloom_filter_adds_total': 'adds', 'bloom_filter_queries_total': 'queries',
        'bloom_filter_query_hits_total': 'hits', 'bloom_filter_packets_total': 'packets',
        'bloom_filter_packet_hits_total': 'packet_hits',
        'bloom_filter_bpf_lookups_total': 'bpf_calls', 'bloom_filter_bpf_hits_total': 'bpf_hits',
        'bloom_filter_memory_bytes': 'memory_bytes', 'bloom_filter_capacity': 'total_capacity',
        'bloom_filter_false_positive_target_ratio': 'fpp',
        'bloom_filter_deletes_total': 'deletes',
        'bloom_filter_delete_misses_total': 'delete_misses',
        'bloom_filter_expired_keys_total': 'expired',
        'bloom_filter_stages': 'stage_count', 'bloom_filter_generations': 'generation_count'}
for f in 'sbcdtgen':
    name = p + f
    j = json.load(open('%s/%s.json' % (w, f)))
    m = got.get(name)
    assert m, 'no samples of ' + name
    for metric, (typ, v) in m.items():
        assert typ == j['type'], (name, metric, typ, j['type'])
    for metric, key in same.items():
        if key in j:
            assert metric in m, '%s: %s missing (info has %s)' % (name, metric, key)
            assert abs(m[metric][1] - j[key]) <= 1e-9 * max(1, abs(j[key])), \
                (name, metric, m[metric][1], j[key])
        else:
            assert metric not in m, '%s: %s, which its type has not' % (name, metric)
    assert round(m['bloom_filter_keys'][1]) == j['keys'], (name, m['bloom_filter_keys'], j['keys'])
    assert 0 <= m['bloom_filter_false_positive_ratio'][1] <= 1, name
# what the test did: 3 adds and 2 queries (2 hits) each, 1 delete where it can
for f in 'sbcdtge':
    m = got[p + f]
    assert m['bloom_filter_adds_total'][1] == 3 and m['bloom_filter_queries_total'][1] == 2 \
        and m['bloom_filter_query_hits_total'][1] == 2, (f, m)
    assert ('bloom_filter_deletes_total' in m) == (f in 'cdt'), f
for f in 'cdt':
    assert got[p + f]['bloom_filter_deletes_total'][1] == 1, f
EOF

check "a name's double quote and backslash are escaped in its label" \
	grep -qF "bloom_filter_capacity{filter=\"${P}q\\\"x\\\\y\",type=\"standard\"} 1000" "$W/prom"

if command -v promtool >/dev/null; then
	timeout "$LIMIT" promtool check metrics <"$W/prom" >"$W/out" 2>"$W/err"
	rc=$?
	check "promtool check metrics finds nothing to say" \
		sh -c "[ $rc = 0 ] && [ ! -s '$W/out' ] && [ ! -s '$W/err' ]"
else
	n=$((n + 1))
	echo "ok $n - promtool check metrics # SKIP promtool is not installed (Debian's prometheus: tools/deps.sh deb)"
fi

echo "1..$n"
[ "$failed" = 0 ]
