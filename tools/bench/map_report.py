# SPDX-License-Identifier: GPL-2.0
"""The mapping part (bench-map's lines from the test VM, one run per filter
size and type, in the VM and over the model on this host): JSON for report.py, Markdown for latest.md (section 11) and
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
                         "where": "host" if w[7] == "model:" else "vm",
                         "one": {}, "batch": {}})
        elif w and w[0] in ("one", "batch") and runs:
            runs[-1][w[0]].setdefault(w[1], {})[w[2]] = float(w[3])
    return {"runs": runs}


def check(d, target):
    """Adds M1 and M2 through target(tid, text, value, limit, ok, note)."""
    for r in d["runs"]:
        if r.get("where", "vm") != "vm":
            continue
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


def rows(d, where):
    """The table rows of the runs made WHERE ("vm" or "host")."""
    out = []
    for r in d["runs"]:
        if r.get("where", "vm") != where:
            continue
        for p in ("present", "absent"):
            one, batch = r["one"][p], r["batch"][p]

            def x(v, base=one["core"]):
                return f"{v:.1f} ({v / base:.2f}x)"
            row = [r["type"], f"{r['keys']:,}", p, f"{one['core']:.1f}"]
            if "mapcore" in one:
                row.append(x(one["mapcore"]))
            row.append(x(one["map"]))
            if where == "vm":
                row.append(x(one["ioctl"]))
            row += [f"{batch['core']:.1f}", x(batch["map"], batch["core"])]
            out.append(row)
    return out


def markdown(d):
    vm, host = rows(d, "vm"), rows(d, "host")
    mapcore = any("mapcore" in r["one"]["present"] for r in d["runs"])
    head = ["type", "keys", "keys asked", "one: core"]
    head += ["one: core on the mapping"] if mapcore else []
    md = [
        "In the VM (TCG: only the ratios mean anything). bench-map "
        "(tools/bench/map.c): a filter of KEYS keys at p = 0.01, queried one "
        "key at a time in a random order over the whole filter through "
        "libbloom's `bloom_query()` with the read-only mapping (map), the "
        "core's own query over a copy of the same bits in the process "
        "(core)"
        + (", the core's query over the mapping's own pages (core on the "
           "mapping: the memory without the library)" if mapcore else "")
        + ", and `bloom_query()` through the one-key ioctl with the "
        "mapping off (ioctl); then batches of 4096 keys, `bloom_batch()` "
        "through the mapping against the core's hashing and batched query. "
        + ("The keys of a round are made before it is timed; ns per key, "
           "the median over 5 rounds (the ways taking turns) of blocks of "
           "1,000 keys or of batches, so that another process's time slice "
           "on this shared machine is an outlier, not a part of the figure."
           if mapcore else "ns per key, median of 5 rounds.") + "\n",
        md_table(head + ["one: map", "one: ioctl", "batch: core",
                         "batch: map"], vm)]
    if host:
        md += [
            "",
            "On this host's CPU (no module here: `bench-map --model`). The "
            "filter is built by the core in a memfd laid out as the module's "
            "mapping (the header page, then the bits), and `bloom_query()` "
            "maps that memfd read-only through the same library code it "
            "uses for /dev/bloom; the other ways as above, no ioctl.\n",
            md_table(head + ["one: map", "batch: core", "batch: map"], host)]
    return "\n".join(md)


if __name__ == "__main__":
    json.dump(parse(sys.stdin), sys.stdout, indent=1)
    sys.stdout.write("\n")
