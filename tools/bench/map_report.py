# SPDX-License-Identifier: GPL-2.0
"""The mapping part (bench-map's lines from the test VM, one run per filter
size and type, in the VM and over the model on this host; bench-map-swaps'
lines, readers during a stream of swaps and adds): JSON for report.py,
Markdown for latest.md (section 11) and targets M1 (one key through
libbloom's mapping <= 1.5x the core's own query in guest userspace, present
and absent), M2 (batches through the mapping <= 1.1x the core's) and M3 (no
false negative during swaps and adds; retries are reported, not targeted).
Run as a program, it turns the programs' output (stdin) into the part's
JSON."""
import json
import sys

from mdtable import md_table


def parse(lines):
    """bench-map's and bench-map-swaps' output, any number of runs, into
    {"runs": [...], "swaps": [...]}; "# host load" lines (run.sh's, around
    the swaps) into "swaps_load"."""
    runs, swaps, load = [], [], {}
    for line in lines:
        w = line.split()
        if line.startswith("# host load"):
            load[w[3]] = " ".join(w[4:7])
        elif line.startswith("# swaps"):
            swaps.append({"keys": int(w[3]), "type": w[5],
                          "seconds": int(w[7]), "readers": int(w[9]),
                          "rounds": int(w[11])})
        elif w[:1] == ["swaps"] and swaps:
            if w[1] == "fp":
                swaps[-1]["fp"] = {"hits": int(w[2]), "asked": int(w[4])}
            else:
                swaps[-1][w[1]] = {k: float(v) if k in ("ns", "mean")
                                   else int(v)
                                   for k, v in zip(w[2::2], w[3::2])}
        elif line.startswith("# keys"):
            runs.append({"keys": int(w[2]), "type": w[4],
                         "queries": int(w[6].rstrip(":")),
                         "where": "host" if w[7] == "model:" else "vm",
                         "one": {}, "batch": {}})
        elif w and w[0] in ("one", "batch") and runs:
            runs[-1][w[0]].setdefault(w[1], {})[w[2]] = float(w[3])
    out = {"runs": runs}
    if swaps:
        out["swaps"] = swaps
    if load:
        out["swaps_load"] = load
    return out


def check(d, target):
    """Adds M1, M2 and M3 through target(tid, text, value, limit, ok,
    note)."""
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
    for r in d.get("swaps", []):
        s = r["stream"]
        # a stream with no swap, or no query through a mapping, proves
        # nothing: it misses too
        ok = s["misses"] == 0 and s["swaps"] > 0 and s["mapped"] > 0
        target("M3", f"{r['type']}, {r['keys']:,} keys: no false negative "
               "through the mapping during swaps and adds", s["misses"], 0,
               ok, f"{s['queries']:,} queries, {s['swaps']:,} swaps, "
               f"{s['adds']:,} adds; {s['retries']:,} retries, "
               f"{s['remaps']:,} remaps, {s['fallbacks']:,} fallbacks")


def swaps_markdown(d):
    """The table of readers during swaps and adds, and how it was run."""
    runs = d["swaps"]
    load = d.get("swaps_load", {})
    r0 = runs[0]
    out = []
    for r in runs:
        for phase, what in (("quiet", "no writer"),
                            ("stream", "swaps and adds")):
            p, q = r[phase], r["quiet"]

            def x(k, p=p, q=q, phase=phase):
                return f"{p[k]:.1f}" + (f" ({p[k] / q[k]:.2f}x)"
                                        if phase == "stream" else "")
            out.append([r["type"], f"{r['keys']:,}", what,
                        f"{p['queries']:,}", x("ns"), x("mean"),
                        f"{p['retries']:,}", f"{p['remaps']:,}",
                        f"{p['fallbacks']:,}", f"{p['misses']:,}",
                        f"{p.get('swaps', 0):,}", f"{p.get('adds', 0):,}"])
    fp = ", ".join(f"{r['type']} {r['fp']['hits'] / r['fp']['asked']:.4f}"
                   for r in runs if "fp" in r)
    text = (
        "Readers during a stream of swaps and adds, in the VM "
        "(bench-map-swaps, tools/bench/map_swaps.c; 2 virtual CPUs under "
        "TCG). Per type, two filters of "
        f"{r0['keys']:,} keys' capacity at p = 0.01, half of it added "
        f"first. {r0['readers']} reader thread"
        f"{'s query' if r0['readers'] > 1 else ' queries'} keys one at a "
        "time "
        "through `bloom_query()` and the mapping of a descriptor bound to "
        f"one of them, {r0['seconds']} s with no writer and "
        f"{r0['seconds']} s while one writer thread adds fresh keys to "
        "both (64 at a time, the rest of the capacity spread over the "
        "seconds) and swaps them (`bloom_swap()`) back to back, in "
        f"{r0['rounds']} rounds where the two take turns. A reader "
        "asks only keys whose add had returned before its query began "
        "(the writer publishes its count after the adds return, release; "
        "the reader loads it, acquire, before each block of 1,000 "
        "queries); every miss would be a false negative. Retries, remaps "
        "and fallbacks are libbloom's own counts (`bloom_map_stats()`): a "
        "retry is a test repeated because the sequence number changed "
        "during it, a remap a stale mapping made again after a swap, a "
        "fallback a query the ioctl answered. ns per query: the median of "
        "the readers' blocks of 1,000 (the keys picked before the block is "
        "timed), and the mean (all blocks' time over all queries: the "
        "remaps' cost is there, not in the median); in brackets against "
        "the same reader with no writer. Under TCG on a shared host both "
        "move with the host's load (the quiet reader's mean well above "
        "its median is the host taking the CPU away, not the filter): the "
        "counts are the result, the times only an order of magnitude.")
    if fp:
        text += (f" False-positive rate of never-added keys after the "
                 f"stream (the filters were not saturated): {fp}.")
    if load:
        text += (" Host load average (1, 5, 15 min), a shared 2-core "
                 "machine with other VMs running: "
                 + "; ".join(f"{k} {v}" for k, v in load.items()) + ".")
    return "\n".join([text + "\n", md_table(
        ["type", "keys", "writer", "queries", "ns per query: median",
         "mean", "retries",
         "remaps", "fallbacks", "false negatives", "swaps", "adds"], out)])


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
    if d.get("swaps"):
        md += ["", swaps_markdown(d)]
    return "\n".join(md)


if __name__ == "__main__":
    json.dump(parse(sys.stdin), sys.stdout, indent=1)
    sys.stdout.write("\n")
