# SPDX-License-Identifier: GPL-2.0
"""The mapping part (bench-map's lines from the test VM, one run per filter
size and type): JSON for report.py, Markdown for latest.md (section 11) and
targets M1 (one key through libbloom's mapping <= 1.5x the core's own query
in guest userspace, present and absent) and M2 (batches through the mapping
<= 1.1x the core's). Run as a program, it turns bench-map's output (stdin)
into the part's JSON."""
import json
import sys

from mdtable import md_table


def parse(lines):
    """bench-map's output, any number of runs, into {"runs": [...]}."""
    runs = []
    for line in lines:
        w = line.split()
        if line.startswith("# keys"):
            runs.append({"keys": int(w[2]), "type": w[4],
                         "queries": int(w[6].rstrip(":")),
                         "one": {}, "batch": {}})
        elif w and w[0] in ("one", "batch") and runs:
            runs[-1][w[0]].setdefault(w[1], {})[w[2]] = float(w[3])
    return {"runs": runs}


def check(d, target):
    """Adds M1 and M2 through target(tid, text, value, limit, ok, note)."""
    for r in d["runs"]:
        what = f"{r['type']}, {r['keys']:,} keys"
        for p in ("present", "absent"):
            one, batch = r["one"][p], r["batch"][p]
            x = one["map"] / one["core"]
            target("M1", f"{what}, {p}: one key through the mapping "
                   "against the core's query", x, 1.5, x <= 1.5,
                   f"{one['map']:.1f} ns against {one['core']:.1f} ns")
            x = batch["map"] / batch["core"]
            target("M2", f"{what}, {p}: batches through the mapping "
                   "against the core's", x, 1.1, x <= 1.1,
                   f"{batch['map']:.1f} ns against {batch['core']:.1f} ns")


def markdown(d):
    rows = []
    for r in d["runs"]:
        for p in ("present", "absent"):
            one, batch = r["one"][p], r["batch"][p]
            rows.append([r["type"], f"{r['keys']:,}", p,
                         f"{one['core']:.1f}", f"{one['map']:.1f} "
                         f"({one['map'] / one['core']:.2f}x)",
                         f"{one['ioctl']:.1f} "
                         f"({one['ioctl'] / one['core']:.2f}x)",
                         f"{batch['core']:.1f}", f"{batch['map']:.1f} "
                         f"({batch['map'] / batch['core']:.2f}x)"])
    return "\n".join([
        "In the VM (TCG: only the ratios mean anything). bench-map "
        "(tools/bench/map.c): a filter of KEYS keys at p = 0.01, queried one "
        "key at a time in a random order over the whole filter through "
        "libbloom's `bloom_query()` with the read-only mapping (map), the "
        "core's own query over a copy of the same bits in the process "
        "(core), and `bloom_query()` through the one-key ioctl with the "
        "mapping off (ioctl); then batches of 4096 keys, `bloom_batch()` "
        "through the mapping against the core's hashing and batched query. "
        "ns per key, median of 5 rounds.\n",
        md_table(["type", "keys", "keys asked", "one: core", "one: map",
                  "one: ioctl", "batch: core", "batch: map"], rows)])


if __name__ == "__main__":
    json.dump(parse(sys.stdin), sys.stdout, indent=1)
    sys.stdout.write("\n")
