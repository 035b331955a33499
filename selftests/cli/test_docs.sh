#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# TAP 13 test that what bloomctl prints and what its documentation says
# agree (selftests/unit/test_help_man.py checks the options of every verb
# without the module): info --json and list --json of every kind of filter
# hold each member once, and bloomctl(8) names every member; every sysfs
# file of a filter is in bloomctl(8)'s SYSFS section and in
# Documentation/ABI. Runs as root with bloom.ko loaded and bloomctl on
# PATH, e.g.
#   selftests/vm/run.sh -- selftests/cli/test_docs.sh
# Exits 0 iff every check passes; destroys every filter it made.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tap.sh"
. "$here/lib.sh"
cli_begin docs
PY=$(command -v /usr/bin/python3 || command -v python3)
MAN=$here/../../Documentation/bloomctl.8
ABI=$here/../../Documentation/ABI/testing/sysfs-class-misc-bloom

# --- JSON: one name per member, every member documented ------------------------
# one filter of every kind info shows differently
run create ${P}s --capacity 1000 --fpp 0.01
run create ${P}b --type blocked --capacity 1000 --fpp 0.01
run create ${P}c --type counting --capacity 1000 --fpp 0.01
run create ${P}d --type dleft --capacity 1000 --fpp 0.01
run create ${P}g --scalable --capacity 100 --fpp 0.01
run create ${P}e --timeout 60s --capacity 1000 --fpp 0.01
run create ${P}n --capacity 1000 --fpp 0.01
run add ${P}n --ipv4 10.0.0.1 10.1.0.0/16
for f in s b c d g e; do run add ${P}$f k1 k2 k3; done
for f in s b c d g e n; do
	run info --json ${P}$f
	cp "$W/out" "$W/$f.json"
done
run list --json
cp "$W/out" "$W/list.json"
check "info --json and list --json of every type hold each member once (count as keys, kind as key_kind)" \
	"$PY" -c "
import json, sys
def once(pairs):
    names = [k for k, _ in pairs]
    dup = set(k for k in names if names.count(k) > 1)
    assert not dup, 'members named twice: %s' % sorted(dup)
    return dict(pairs)
for f in 'sbcdgen':
    d = json.load(open('$W/%s.json' % f), object_pairs_hook=once)
    assert isinstance(d['keys'], (int, float)) and d['key_kind'] in ('strings', 'ipv4', 'unknown'), d
l = json.load(open('$W/list.json'), object_pairs_hook=once)
assert len([d for d in l if d['name'].startswith('$P')]) == 7, l
"
# every member name, nested ones too, in bloomctl(8)'s section of info
check "bloomctl(8) names every member info --json prints" \
	"$PY" -c "
import json, re
def names(o, out):
    if isinstance(o, dict):
        for k, v in o.items():
            out.add(k)
            names(v, out)
    elif isinstance(o, list):
        for v in o:
            names(v, out)
    return out
seen = set()
for f in 'sbcdgen':
    names(json.load(open('$W/%s.json' % f)), seen)
man = open('$MAN').read().replace('\\\\-', '-')
sect = man[man.index('.B info \\\\fINAME'):man.index('.B list\n')]
words = set(re.findall(r'[a-z][a-z0-9_]*', sect))
missing = sorted(seen - words)
assert not missing, 'not in bloomctl(8) info: %s' % missing
"

# --- sysfs: every file documented -----------------------------------------------
ls "$SYS/filters/${P}s" "$SYS/filters/${P}d" "$SYS/filters/${P}g" "$SYS/filters/${P}e" \
	"$SYS/filters/${P}n" 2>/dev/null | grep -v -e '^$' -e ':$' | sort -u >"$W/files"
missing_man=
missing_abi=
for f in $(cat "$W/files"); do
	[ "$f" = uevent ] || [ "$f" = power ] || [ "$f" = subsystem ] && continue
	sed -n '/^\.SH SYSFS/,/^\.SH /p' "$MAN" | grep -Eq "^\.BR? $f( |$)" ||
		missing_man="$missing_man $f"
	grep -q "^What:.*/filters/<name>/$f\$" "$ABI" || missing_abi="$missing_abi $f"
done
echo "# sysfs files: $(tr '\n' ' ' <"$W/files")"
check "bloomctl(8)'s SYSFS section names every file of a filter (missing:${missing_man:- none})" \
	sh -c "[ -z '$missing_man' ] && [ -s '$W/files' ]"
check "Documentation/ABI has every file of a filter (missing:${missing_abi:- none})" \
	sh -c "[ -z '$missing_abi' ]"

for f in $(bloomctl list -n | grep "^$P"); do run destroy "$f"; done
check "every filter made here was destroyed" sh -c "! bloomctl list -n | grep -q '^$P'"

echo "1..$n"
[ "$failed" = 0 ] && echo "# all $n passed" || echo "# $failed of $n failed"
[ "$failed" = 0 ]
