# SPDX-License-Identifier: GPL-2.0
"""The native part (bench-native's JSON: the core in userspace, standard,
blocked, the classic baseline and the floor): targets T1-T5, the plot and
Markdown, for report.py's latest.md (section 1)."""
import math
import os

from mdtable import fmt, md_table, md_targets
from partlib import gnuplot

TYPES = ["standard", "blocked", "baseline", "floor"]


OPS = [("add", "add"), ("query_present", "query, present keys"),
       ("query_absent", "query, absent keys")]


MODES = ["single", "batch"]


def theory_bits_per_key(p):
    """Optimal bits a key of a standard Bloom filter: log2(1/p) / ln 2."""
    return math.log2(1 / p) / math.log(2)


# The FPR models come from the core (bloom_core_fpp_model(), through
# bench-native's "fpr_model"): one copy, the one bloom.ko uses for its
# estimated_fpp_ppb.


def native_index(native):
    """{(size, p): {type: target dict}}"""
    idx = {}
    for c in native["configs"]:
        idx[(c["size"], c["p"])] = {"config": c, **{
            t["name"]: t for t in c["targets"]}}
    return idx


def ns(t, op, mode):
    return t["ns_per_key"][op][mode]["median"]


def check(native, target):
    """Adds T1..T5 through target(tid, text, value, limit, ok, note)."""
    idx = native_index(native)
    for (size, p), c in sorted(idx.items()):
        std, blk = c["standard"], c["blocked"]
        th = theory_bits_per_key(p)
        r = std["bits_per_key"] / th
        target("T1", f"standard bits/key <= 1.01x theory ({size}, "
               f"p={p})", r, 1.01, r <= 1.01)
        if p == 0.01:
            r = blk["bits_per_key"] / std["bits_per_key"]
            target("T2", f"blocked bits/key <= 1.05x standard "
                   f"({size}, p={p})", r, 1.05, r <= 1.05)
        r = std["fpr"] / p
        target("T3", f"standard measured FPR in [0.8p, 1.2p] ({size}, "
               f"p={p}, {c['config']['absent_keys']:,} absent keys)",
               r, "0.8..1.2", 0.8 <= r <= 1.2)
    for (size, p), c in sorted(idx.items()):
        if size != "out-of-cache":
            continue
        std, blk, base, flo = (c[t] for t in TYPES)
        for op in ("query_present", "query_absent"):
            r = ns(blk, op, "batch") / ns(flo, op, "batch")
            target("T4", f"out-of-cache batched {op.replace('_', ' ')}"
                   f": blocked <= 1.3x floor (p={p})", r, 1.3, r <= 1.3)
        for op in ("query_present", "query_absent"):
            r = ns(base, op, "batch") / ns(std, op, "batch")
            target("T5", f"out-of-cache batched {op.replace('_', ' ')}"
                   f": standard >= 2x faster than baseline (p={p})",
                   r, 2.0, r >= 2.0)


def plot(native, p, png, work):
    idx = native_index(native)
    dat = os.path.join(work, f"native_{p}.dat")
    with open(dat, "w") as f:
        for size in ("in-cache", "out-of-cache"):
            c = idx.get((size, p))
            f.write(f"# {size}: op, then " + " ".join(TYPES) + "\n")
            for op, label in OPS:
                for mode in MODES:
                    row = [ns(c[t], op, mode) for t in TYPES]
                    short = label.replace("query, ", "").replace(" keys", "")
                    f.write(f'"{short}\\n{mode}" ' +
                            " ".join(f"{v:.3f}" for v in row) + "\n")
            f.write("\n\n")
    script = f"""
set terminal pngcairo noenhanced size 1200,520 font ",10"
set output "{png}"
set multiplot layout 1,2 title "Native ns per key (lower is better), p = {p}; hash included"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set ylabel "ns / key"
set key outside bottom center horizontal
set bmargin 6
set yrange [0:*]
do for [i=0:1] {{
  set title (i == 0 ? "in cache ({idx[('in-cache', p)]['config']['keys']:,} keys)" : "out of cache ({idx[('out-of-cache', p)]['config']['keys']:,} keys)")
  plot "{dat}" index i using 2:xtic(1) title "standard" lc rgb "#1f77b4", \\
       "" index i using 3 title "blocked" lc rgb "#2ca02c", \\
       "" index i using 4 title "baseline (classic)" lc rgb "#d62728", \\
       "" index i using 5 title "floor (hash + 1 line)" lc rgb "#7f7f7f"
}}
unset multiplot
"""
    return gnuplot(script, work)


def markdown(native, results, pngs):
    idx = native_index(native)
    ref = native["reference"]
    out = []
    out.append("### Space and accuracy\n")
    rows = []
    for (size, p), c in sorted(idx.items(), key=lambda x: (x[0][0], -x[0][1])):
        cfg = c["config"]
        th = theory_bits_per_key(p)
        for t in TYPES[:3]:
            x = c[t]
            model = x.get("fpr_model")
            rows.append([size, fmt(cfg["keys"]), p, t, x["hashes"],
                         f"{x['bits_per_key']:.3f}",
                         f"{x['bits_per_key'] / th:.4f}",
                         f"{x['bits_per_key'] / c['standard']['bits_per_key']:.4f}",
                         "n/a" if model is None else f"{model:.5f}",
                         f"{x['fpr']:.5f}",
                         f"{x['fpr'] / p:.3f}", x["false_negatives"]])
    out.append(md_table(["size", "keys", "p", "type", "k", "bits/key",
                         "/ theory", "/ standard", "FPR model",
                         "FPR measured", "FPR / p", "false neg."], rows))
    out.append(f"\nTheory: log2(1/p)/ln 2 bits a key ({theory_bits_per_key(0.01):.3f} at "
               "p = 0.01, "
               f"{theory_bits_per_key(0.001):.3f} at 0.001). FPR model: "
               "(1 - e^(-kn/m))^k for standard and baseline (same geometry), "
               "the Poisson block-load model (Putze et al.) for blocked. "
               f"Measured FPR: {fmt(idx[next(iter(idx))]['config']['absent_keys'])} "
               "never-added keys per filter. False negatives: present keys "
               "reported absent over all query samples (must be 0).\n")
    out.append("### Speed (ns per key, median of interleaved samples)\n")
    out.append(f"What a key costs here: computing the 16-byte key from its "
               f"index ({ref['keygen_ns']:.1f} ns), the keyed SipHash-2-4 "
               f"({ref['core_hash_ns']:.1f} ns with keygen, through the "
               f"core's bloom_core_hash, which every variant here calls; "
               f"{ref['libsodium_hash_ns']:.1f} ns when libsodium is called "
               f"directly: the difference is the userspace shim; "
               f"{'same hash values' if ref['libsodium_equals_core'] else 'NOT the same hash values'}), "
               f"and the operation. *single*: hash, then "
               f"bloom_core_add_hash/query_hash, per key. *batch*: hash "
               f"{native['chunk']} keys into an array, then one "
               f"bloom_core_add_batch/query_batch call (which prefetches), as "
               f"the module's ioctl does. Baseline batches are the same loop "
               f"without prefetch (the peers have none); the floor's batches "
               f"prefetch as far ahead as the core's.\n")
    for (size, p), c in sorted(idx.items(), key=lambda x: (x[0][0] != "in-cache", -x[0][1])):
        cfg = c["config"]
        mb = c["standard"]["bytes"] / 1e6
        out.append(f"**{size}: {cfg['keys']:,} keys, p = {p}** "
                   f"(standard {mb:.1f} MB, blocked "
                   f"{c['blocked']['bytes'] / 1e6:.1f} MB)\n")
        rows = []
        for op, label in OPS:
            for mode in MODES:
                v = [ns(c[t], op, mode) for t in TYPES]
                rows.append([label, mode] + [f"{x:.1f}" for x in v] + [
                    f"{v[2] / v[0]:.2f}", f"{v[0] / v[3]:.2f}",
                    f"{v[1] / v[3]:.2f}"])
        out.append(md_table(["operation", "mode", "standard", "blocked",
                             "baseline", "floor", "baseline / standard",
                             "standard / floor", "blocked / floor"], rows))
        out.append("")
    for p, png in pngs:
        out.append(f"![native ns/key, p = {p}]({png})\n")
    out.append("### Targets\n")
    out.append(md_targets(results, {"T1", "T2", "T3", "T4", "T5"}))
    out.append(NATIVE_MISSES)
    return "\n".join(out)


# Why T4 and T5 are missed when they are: measured analysis, kept
# with the report so that a MISS never stands without its reason.
NATIVE_MISSES = """
**Where T4 or T5 is missed, and why.** Figures from back-to-back runs on
this machine, out of cache, p = 0.01, ns per key including the hash
(33-47 ns of SipHash-2-4):

- T5, present keys: a present key of a standard filter needs all k = 7
  probes, 7 random cache lines on 7 different pages. The classic baseline's
  7 loads are independent and always predicted "set", so the CPU overlaps
  them without any prefetch; both are bound by 7 lines a key. 2x would need
  under 10 ns a line, less than half of what the floor pays for one random
  line here (21-27 ns). Not reachable with k lines a key: the blocked filter
  is the layout that does it (baseline / blocked = 2.2x in the same run).
- T5, absent keys: the baseline stops after about 2 lines. The standard
  batched query prefetches probes 0 and 1 eight keys ahead and the other
  k - 2 only when both are set (about 3.25 lines a key in all, never fewer
  than 2); prefetching all k probes, as before, fetched 3-4x more memory and
  lost (0.68x). 2x would need less work than two floor lines.
- T4: once its line is loaded, a blocked query derives its k positions
  (one 64-bit splitmix per 7 positions of 9 bits) and tests each with one
  load, shift and AND, all k of them without a branch or an early exit
  (module/core/bits.c; it replaced a bit-by-bit test with an early exit,
  which cost a mispredicted branch on most absent keys, and a mask per
  word, whose masks lived in memory: 7.3 ns a key in cache against 13.0
  and 18.5, tools/bench/README.md). The floor does one load and one test.
  The difference is that arithmetic, paid after the line arrives; with a
  cheaper hash the ratio gets worse while the blocked work stays the same.
"""
