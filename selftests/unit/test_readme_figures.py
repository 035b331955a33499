#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
Checks that the figures README quotes from "make bench" are those of
tools/bench/results/latest.md (TAP 13, one result per figure; "make -C
selftests/unit run" runs it):

  test_readme_figures.py README LATEST.md

Each figure is read from latest.md (a target's measured ratio, a table's
cell) and looked for in README as it is written there (the same rounding);
a figure README no longer quotes, or quotes from another run, fails and
says what latest.md has. Exits 1 if one does.
"""
import re
import sys


def target(md, name):
    """The measured ratio of target NAME ('| B2 | ... | 0.956x | ...')."""
    m = re.search(r'^\| %s \|[^|]*\| ([0-9.]+)x \|' % re.escape(name), md,
                  re.M)
    return float(m.group(1))


def row(md, section, first):
    """The cells of the row whose first cell is FIRST, in SECTION."""
    part = md[md.index(section):]
    m = re.search(r'^\| %s \|(.*)\|$' % re.escape(first), part, re.M)
    return [c.strip() for c in m.group(1).split('|')]


def num(cell):
    return float(cell.replace(',', ''))


def main():
    readme = open(sys.argv[1]).read()
    md = open(sys.argv[2]).read()
    text = ' '.join(readme.split())
    bans = '## 12. Bans'
    bans_mem = 'Memory: bloom\'s memory_bytes (all of the filter'
    expire = '## 10. Expiring filters'
    rot = md[md.index('### Rotation'):]
    clear = re.search(r'clearings in [0-9]+ s, median ([0-9]+) ms', rot)
    during = row(md, '### Rotation', 'during clearing')
    outside = row(md, '### Rotation', 'outside clearing')
    want = [
        ('bans: the timed filter\'s memory',
         '1,000,000 bans in %.1f MB' %
         (num(row(md, bans_mem, 'bloom timed, p = 0.0001')[0]) / 1e6)),
        ('bans: ipset\'s memory',
         'against ipset\'s %.0f MB' %
         (num(row(md, bans_mem, 'ipset hash:ip timeout')[0]) / 1e6)),
        ('bans: loaded N times faster (ipset restore / bloomctl add -f)',
         'loaded %.0f times faster' %
         (num(re.search(r'^\| add \| ipset restore, under traffic \| ([0-9.]+)',
                        md, re.M).group(1)) /
          num(re.search(r'^\| add \| bloomctl add -f[^|]*\| ([0-9.]+)',
                        md, re.M).group(1)))),
        ('bans: the match per packet (B2)',
         'per packet the match cost %.2f times ipset\'s' % target(md, 'B2')),
        ('expiring: p = 0.01 per packet (E1-0.01)',
         'cost %.2fx ipset\'s match per packet' % target(md, 'E1-0.01')),
        ('expiring: p = 0.01 memory (E2-0.01)',
         'take %.0f KB, %.3fx the' %
         (num(row(md, expire, 'bloom blocked, p = 0.01, expiring')[5]) / 1e3,
          target(md, 'E2-0.01'))),
        ('expiring: p = 0.0001 (E1-0.0001, memory, E2-0.0001)',
         '(%.2fx at p = 0.0001, %.0f KB, %.3fx)' %
         (target(md, 'E1-0.0001'),
          num(row(md, expire, 'bloom blocked, p = 0.0001, expiring')[5]) /
          1e3, target(md, 'E2-0.0001'))),
        ('rotation: median clearing',
         'generation in %s ms (median of' % clear.group(1)),
        ('rotation: query median during clearing',
         'median time as the others (%.1f us' % (num(during[1]) / 1e3)),
        ('rotation: queries that never missed',
         'none of %.1f million missed' %
         ((num(during[0]) + num(outside[0])) / 1e6)),
    ]
    print('TAP version 13')
    bad = 0
    for i, (what, phrase) in enumerate(want, 1):
        if phrase in text:
            print('ok %d - README quotes latest.md: %s' % (i, what))
        else:
            bad += 1
            print('not ok %d - README quotes latest.md: %s' % (i, what))
            print('# latest.md gives: "%s"' % phrase)
    print('1..%d' % len(want))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
