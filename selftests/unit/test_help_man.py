#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
Checks that bloomctl's help and bloomctl(8) agree on every verb's options
(TAP 13, one result per verb; "make -C selftests/unit run" runs it):

  test_help_man.py BLOOMCTL.8 BLOOMCTL

For each verb of "bloomctl help": the long options the verb takes (found by
asking it: an option it does not take is refused as unknown, or "VERB takes
no --OPT") are named by "bloomctl help VERB" and by the man page's section
of the verb (or its SYNOPSIS lines); every option either defines for the
verb (help's option lines, the man page's .TP entries) is one the verb
takes; and the two synopses name the same options. Says each mismatch on
a "# " line; exits 1 if there is one. Needs no device.
"""
import re
import subprocess
import sys

OPT = re.compile(r'(?<![\w-])--[a-z][a-z0-9-]*[a-z0-9]')


def run(bloomctl, *args):
    p = subprocess.run([bloomctl, *args], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=60)
    return p.stdout + p.stderr


def roff_text(line):
    line = line.replace('\\-', '-')
    return re.sub(r'\\f[BIRP]', '', line)


def man_sections(lines):
    """The SYNOPSIS text and the VERBS section's lines of each verb."""
    syn, sect = {}, {}
    part, cur, depth, prev = None, None, 0, ''
    for line in lines:
        if line.startswith('.SH'):
            part, cur = line[4:].strip(), None
        t = roff_text(line)
        if part == 'SYNOPSIS':
            m = re.match(r'\.B bloomctl ([a-z]+)', t)
            if m:
                cur = m.group(1)
            elif not t.startswith('.B "'):
                cur = None
            if cur:
                syn[cur] = syn.get(cur, '') + t + '\n'
        elif part == 'VERBS':
            if line.startswith('.RS'):
                depth += 1
            elif line.startswith('.RE'):
                depth -= 1
            m = re.match(r'\.B ([a-z]+)\b', t)
            if depth == 0 and prev == '.TP' and m:
                cur = m.group(1)
            if cur:
                sect.setdefault(cur, []).append((depth, prev, t))
        prev = line
    return syn, sect


def main():
    man_path, bloomctl = sys.argv[1], sys.argv[2]
    man = open(man_path).read().split('\n')
    syn, sect = man_sections(man)
    overview = run(bloomctl, 'help')
    verbs = []
    for m in re.finditer(r'^  bloomctl ([a-z]+)', overview, re.M):
        if m.group(1) not in verbs and m.group(1) != 'help':
            verbs.append(m.group(1))
    candidates = (set(OPT.findall(overview)) |
                  set(OPT.findall(roff_text('\n'.join(man))))) - {'--help'}
    print('TAP version 13')
    nbad = 0
    for v in verbs:
        bad = []
        helptext = run(bloomctl, 'help', v)
        h_all = set(OPT.findall(helptext))
        h_syn = set(OPT.findall(helptext.split('\n\n')[0]))
        h_def = set(re.findall(r'^(?:  -[a-zA-Z0-9], |      )(--[a-z0-9-]+)',
                               helptext, re.M))
        lines = sect.get(v, [])
        m_syn = set(OPT.findall(syn.get(v, '')))
        m_all = set(OPT.findall('\n'.join(t for _, _, t in lines))) | m_syn
        m_def = set()
        for depth, prev, t in lines:
            if depth >= 1 and prev == '.TP' and t.startswith('.B'):
                m_def |= set(OPT.findall(t))
        # getopt takes a unique prefix of a long option: an option that
        # is a prefix of another the verb takes proves nothing by itself
        maybe = set()
        for o in sorted(candidates):
            out = run(bloomctl, v, o)
            if 'needs a value' in out:
                out = run(bloomctl, v, o + '=x')
            if 'unknown option' not in out and 'takes no ' + o not in out:
                maybe.add(o)
        takes = set(o for o in maybe
                    if not any(o2 != o and o2.startswith(o) for o2 in maybe))
        for o in sorted(takes - h_all):
            bad.append(f'{v} takes {o}: "bloomctl help {v}" does not name it')
        for o in sorted(takes - m_all):
            bad.append(f'{v} takes {o}: bloomctl.8 does not name it for {v}')
        for o in sorted((h_def | h_syn) - maybe):
            bad.append(f'"bloomctl help {v}" lists {o}, which {v} does not take')
        for o in sorted((m_def | m_syn) - maybe):
            bad.append(f'bloomctl.8 lists {o} for {v}, which {v} does not take')
        for o in sorted(h_syn ^ m_syn):
            bad.append(f'{v}: {o} is in the synopsis of ' +
                       ('its help only' if o in h_syn else 'bloomctl.8 only'))
        for b in bad:
            print('# ' + b)
        print(('not ok' if bad else 'ok') + f' {verbs.index(v) + 1} - {v}: '
              'its options in its help and in bloomctl(8), taken by it')
        nbad += len(bad)
    print(f'1..{len(verbs)}')
    print(f'# {len(verbs)} verbs, {len(candidates)} options asked about, '
          f'{nbad} mismatches')
    return 1 if nbad else 0


if __name__ == '__main__':
    sys.exit(main())
