#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turns the raw JSON of the benchmark parts into results/latest.json,
results/latest.md and the PNG plots (gnuplot): one report for all parts.
With --merge the parts not run this time stay as the last run of each left
them, each part with its own date, command and machine; the headline counts
the targets of the parts that ran and names those that did not. --render
rewrites latest.md from latest.json alone (nothing is run).

The targets of the project are checked here, in one place (TARGETS below
and the check_* functions), so the Markdown, the JSON and the lead's
summary can never disagree about what passed.
"""
import argparse
import json
import statistics
import math
import os
import platform
import subprocess
import sys

from mdtable import md_table
import peer_report
import scale_report
import xdp_report

TYPES = ["standard", "blocked", "baseline", "floor"]
OPS = [("add", "add"), ("query_present", "query, present keys"),
       ("query_absent", "query, absent keys")]
MODES = ["single", "batch"]


# ----------------------------------------------------------------------------
# Theory


def theory_bits_per_key(p):
    """Optimal bits a key of a standard Bloom filter: log2(1/p) / ln 2."""
    return math.log2(1 / p) / math.log(2)


# The FPR models come from the core (bloom_core_fpp_model(), through
# bench-native's "fpr_model"): one copy, the one bloom.ko uses for its
# estimated_fpp_ppb.


# ----------------------------------------------------------------------------
# Machine


def read_first(path, prefix):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(prefix):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def machine(top):
    def sh(*cmd):
        try:
            return subprocess.run(cmd, cwd=top, capture_output=True,
                                  text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return "unknown"
    thp = "unknown"
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            thp = f.read().strip()
    except OSError:
        pass
    commit = sh("git", "rev-parse", "--short", "HEAD")
    if sh("git", "status", "--porcelain", "--untracked-files=no"):
        commit += " (with uncommitted changes)"
    return {
        "cpu": read_first("/proc/cpuinfo", "model name"),
        "cores": os.cpu_count(),
        "kernel": platform.release(),
        "memory": read_first("/proc/meminfo", "MemTotal"),
        "thp": thp,
        "commit": commit,
        "compiler": sh("cc", "--version").splitlines()[0]
        if sh("cc", "--version") != "unknown" else "unknown",
    }


# ----------------------------------------------------------------------------
# Targets


def verdict(ok):
    return "PASS" if ok else "MISS"


def fmt(x, digits=3):
    if x is None:
        return "n/a"
    if isinstance(x, int):
        return f"{x:,}"
    if x == 0:
        return "0"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.{digits}g}"


def target(results, tid, text, value, limit, ok, note=""):
    results.append({"id": tid, "target": text, "value": value,
                    "limit": limit, "status": verdict(ok), "note": note})


def native_index(native):
    """{(size, p): {type: target dict}}"""
    idx = {}
    for c in native["configs"]:
        idx[(c["size"], c["p"])] = {"config": c, **{
            t["name"]: t for t in c["targets"]}}
    return idx


def ns(t, op, mode):
    return t["ns_per_key"][op][mode]["median"]


def check_native(native, out):
    idx = native_index(native)
    for (size, p), c in sorted(idx.items()):
        std, blk = c["standard"], c["blocked"]
        th = theory_bits_per_key(p)
        r = std["bits_per_key"] / th
        target(out, "T1", f"standard bits/key <= 1.01x theory ({size}, "
               f"p={p})", r, 1.01, r <= 1.01)
        if p == 0.01:
            r = blk["bits_per_key"] / std["bits_per_key"]
            target(out, "T2", f"blocked bits/key <= 1.05x standard "
                   f"({size}, p={p})", r, 1.05, r <= 1.05)
        r = std["fpr"] / p
        target(out, "T3", f"standard measured FPR in [0.8p, 1.2p] ({size}, "
               f"p={p}, {c['config']['absent_keys']:,} absent keys)",
               r, "0.8..1.2", 0.8 <= r <= 1.2)
    for (size, p), c in sorted(idx.items()):
        if size != "out-of-cache":
            continue
        std, blk, base, flo = (c[t] for t in TYPES)
        for op in ("query_present", "query_absent"):
            r = ns(blk, op, "batch") / ns(flo, op, "batch")
            target(out, "T4", f"out-of-cache batched {op.replace('_', ' ')}"
                   f": blocked <= 1.3x floor (p={p})", r, 1.3, r <= 1.3)
        for op in ("query_present", "query_absent"):
            r = ns(base, op, "batch") / ns(std, op, "batch")
            target(out, "T5", f"out-of-cache batched {op.replace('_', ' ')}"
                   f": standard >= 2x faster than baseline (p={p})",
                   r, 2.0, r >= 2.0)


def vm_ns(vm, name):
    return vm["ns_per_key"][name]["median"]


def check_vm(vm, out):
    r = vm_ns(vm, "query_4096") / vm_ns(vm, "core_query_batch")
    target(out, "T6", "VM: ioctl query, 4096-key batches, per key <= 1.3x "
           "the core in userspace in the same guest", r, 1.3, r <= 1.3)
    r = vm_ns(vm, "query_1") / vm_ns(vm, "bpf_lookup")
    target(out, "T7", "VM: one-key query <= 1.2x the BPF Bloom map's "
           "lookup (present keys)", r, 1.2, r <= 1.2)
    r = vm_ns(vm, "bpf_lookup") / vm_ns(vm, "query_4096")
    target(out, "T8", "VM: batched query (4096) >= 5x the keys/s of the "
           "BPF map's lookup", r, 5.0, r >= 5.0)


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    if not n:
        return None
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def cli_rates(cli):
    s = cli["seconds"]
    n, a = cli["present_keys"], cli["absent_keys"]
    return {
        "bloomctl_add": n / median(s["bloomctl_add"]),
        "dcso_insert": n / median(s["dcso_insert"]),
        "bloomctl_test": a / median(s["bloomctl_test_absent"]),
        "dcso_check": a / median(s["dcso_check_absent"]),
        "bloomctl_test_present": n / median(s["bloomctl_test_present"]),
        "dcso_check_present": n / median(s["dcso_check_present"]),
    }


def check_cli(cli, out):
    r = cli_rates(cli)
    x = r["bloomctl_test"] / r["dcso_check"]
    target(out, "T9", "CLI: bloomctl test -f >= 2x the keys/s of DCSO "
           "bloom check (absent keys, same guest)", x, 2.0, x >= 2.0)


# ----------------------------------------------------------------------------
# Plots


def gnuplot(script, workdir):
    try:
        subprocess.run(["gnuplot"], input=script, text=True, cwd=workdir,
                       check=True, capture_output=True)
        return True
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"report: gnuplot failed: {getattr(e, 'stderr', e)}",
              file=sys.stderr)
        return False


def plot_native(native, p, png, work):
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


def plot_vm(vm, png, work):
    dat = os.path.join(work, "vm.dat")
    floor_call = vm_ns(vm, "ioctl_version")
    sizes = sorted(v["keys_per_call"] for k, v in vm["ns_per_key"].items()
                   if k.startswith("query_") and not k.endswith("absent"))
    with open(dat, "w") as f:
        for b in sizes:
            f.write(f"{b} {vm_ns(vm, f'query_{b}'):.3f} "
                    f"{floor_call / b:.3f}\n")
    core = vm_ns(vm, "core_query_batch")
    bpf = vm_ns(vm, "bpf_lookup")
    low = min([core] + [vm_ns(vm, f"query_{b}") for b in sizes]) / 8
    script = f"""
set terminal pngcairo noenhanced size 900,560 font ",10"
set output "{png}"
set title "In the VM (TCG: ratios only): per-key cost of a /dev/bloom query vs keys per ioctl"
set logscale xy 2
set format y "%g"
set grid
set xlabel "keys per BLOOM_IOC_QUERY"
set ylabel "guest ns / key (present keys, standard, p = 0.01)"
set key top right
set xrange [0.8:{max(sizes) * 1.25}]
set yrange [{low}:*]
plot "{dat}" using 1:2 with linespoints lw 2 pt 7 lc rgb "#1f77b4" title "/dev/bloom query", \\
     "{dat}" using 1:3 with lines dt 2 lw 2 lc rgb "#7f7f7f" title "syscall floor (do-nothing ioctl) / keys per call", \\
     {core} with lines lw 2 lc rgb "#2ca02c" title "same core in userspace in the guest (batched)", \\
     {bpf} with lines lw 2 lc rgb "#d62728" title "BPF Bloom map lookup (one key per bpf())"
"""
    return gnuplot(script, work)


def plot_cli(cli, png, work):
    r = cli_rates(cli)
    dat = os.path.join(work, "cli.dat")
    with open(dat, "w") as f:
        f.write(f'"add / insert" {r["bloomctl_add"]:.1f} {r["dcso_insert"]:.1f}\n')
        f.write(f'"test / check\\nabsent keys" {r["bloomctl_test"]:.1f} {r["dcso_check"]:.1f}\n')
        f.write(f'"test / check\\npresent keys" {r["bloomctl_test_present"]:.1f} {r["dcso_check_present"]:.1f}\n')
    script = f"""
set terminal pngcairo noenhanced size 800,480 font ",10"
set output "{png}"
set title "CLI in the VM (TCG: ratios only): keys per second, higher is better"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set grid ytics
set ylabel "keys / s (guest)"
set yrange [0:*]
set key outside bottom center horizontal
set bmargin 6
plot "{dat}" using 2:xtic(1) title "bloomctl (/dev/bloom)" lc rgb "#1f77b4", \\
     "" using 3 title "DCSO bloom (Go, file)" lc rgb "#ff7f0e"
"""
    return gnuplot(script, work)


# ----------------------------------------------------------------------------
# Markdown


def md_targets(results, prefix):
    rows = []
    for t in results:
        if t["id"] in prefix:
            v = t["value"]
            rows.append([t["id"], t["target"], fmt(v) + "x", t["limit"] if
                         isinstance(t["limit"], str) else f"{t['limit']}x",
                         f"**{t['status']}**"])
    return md_table(["", "target", "measured", "limit", ""], rows) if rows \
        else "_not measured in this run_"


def md_native(native, results, pngs):
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


VM_ROWS = [
    ("ioctl_version", "do-nothing ioctl (BLOOM_IOC_VERSION): syscall floor"),
    ("ioctl_enotty", "unknown ioctl command (ENOTTY)"),
    ("query_1", "BLOOM_IOC_QUERY, 1 key a call"),
    ("query_16", "BLOOM_IOC_QUERY, 16 keys a call"),
    ("query_64", "BLOOM_IOC_QUERY, 64 keys a call"),
    ("query_256", "BLOOM_IOC_QUERY, 256 keys a call"),
    ("query_1024", "BLOOM_IOC_QUERY, 1024 keys a call"),
    ("query_4096", "BLOOM_IOC_QUERY, 4096 keys a call"),
    ("query_16384", "BLOOM_IOC_QUERY, 16384 keys a call"),
    ("query_65536", "BLOOM_IOC_QUERY, 65536 keys a call"),
    ("query_1_absent", "BLOOM_IOC_QUERY, 1 absent key a call"),
    ("query_4096_absent", "BLOOM_IOC_QUERY, 4096 absent keys a call"),
    ("blocked_query_1", "blocked filter: QUERY, 1 key a call"),
    ("blocked_query_4096", "blocked filter: QUERY, 4096 keys a call"),
    ("add_1", "BLOOM_IOC_ADD, 1 key a call"),
    ("add_4096", "BLOOM_IOC_ADD, 4096 keys a call"),
    ("core_query_single", "core in guest userspace: query, single"),
    ("core_query_batch", "core in guest userspace: query, batched (4096)"),
    ("core_query_batch_absent", "core in guest userspace: query absent, batched"),
    ("core_blocked_query_batch", "core in guest userspace: blocked, batched"),
    ("bpf_lookup", "BPF Bloom map: bpf(BPF_MAP_LOOKUP_ELEM), present key"),
    ("bpf_lookup_absent", "BPF Bloom map: lookup, absent key"),
    ("bpf_update", "BPF Bloom map: bpf(BPF_MAP_UPDATE_ELEM)"),
]


def md_vm(vm, results, png):
    out = []
    base = vm_ns(vm, "ioctl_version")
    q1 = vm_ns(vm, "query_1")
    core = vm_ns(vm, "core_query_batch")
    bpf = vm_ns(vm, "bpf_lookup")
    out.append(f"Guest kernel {vm.get('guest_kernel', '?')}, QEMU TCG (every "
               f"instruction emulated: only ratios mean anything). Standard "
               f"filter of {vm['keys']:,} keys at p = {vm['p']} "
               f"(k = {vm['hashes']}, m = {vm['bits']:,}); the BPF map has "
               f"max_entries = {vm['keys']:,}, value_size = 16, "
               f"map_extra = k = {vm['hashes']}. Keys are 16 bytes; present "
               f"keys unless marked absent. Per sample: "
               f"{vm['calls_per_sample']:,} calls for one-key rows, "
               f"{vm['batched_keys_per_sample']:,} keys for batched rows; "
               f"median of {vm['ns_per_key']['query_1']['samples']} "
               f"interleaved rounds. Beware one difference: the core in "
               f"guest userspace hashes with libsodium through the core's "
               f"userspace shim, the module with the kernel's siphash(), "
               f"which is faster; so the ioctl can beat the in-guest core "
               f"per key.\n")
    rows = []
    for name, label in VM_ROWS:
        if name not in vm["ns_per_key"]:
            continue
        v = vm_ns(vm, name)
        rows.append([label, f"{v:,.0f}", f"{v / base:.2f}",
                     f"{v / q1:.3f}", f"{v / core:.2f}", f"{v / bpf:.3f}",
                     f"{1e9 / v:,.0f}"])
    out.append(md_table(["per key", "guest ns", "/ syscall floor",
                         "/ query 1", "/ core batched", "/ BPF lookup",
                         "keys/s (guest)"], rows))
    f = vm["fpr"]
    out.append(f"\nMeasured FPR in the guest: /dev/bloom standard "
               f"{f['standard']:.4f} over {f['standard_absent_keys']:,} "
               f"absent keys; BPF map {f['bpf']:.4f} over "
               f"{f['bpf_absent_keys']:,} (its m is n·k·7/5 rounded up to a "
               f"power of two, so its FPR is not p).\n")
    if png:
        out.append(f"![VM per-key cost vs batch size]({png})\n")
    out.append("### Targets\n")
    out.append(md_targets(results, {"T6", "T7", "T8"}))
    return "\n".join(out)


def md_cli(cli, results, png):
    r = cli_rates(cli)
    s = cli["seconds"]
    rows = [
        [f"add / insert {cli['present_keys']:,} keys", f"{r['bloomctl_add']:,.0f}",
         f"{r['dcso_insert']:,.0f}", f"{r['bloomctl_add'] / r['dcso_insert']:.2f}",
         f"{median(s['bloomctl_add']):.2f} / {median(s['dcso_insert']):.2f}"],
        [f"test / check {cli['absent_keys']:,} absent keys", f"{r['bloomctl_test']:,.0f}",
         f"{r['dcso_check']:,.0f}", f"{r['bloomctl_test'] / r['dcso_check']:.2f}",
         f"{median(s['bloomctl_test_absent']):.2f} / {median(s['dcso_check_absent']):.2f}"],
        [f"test / check {cli['present_keys']:,} present keys (1 round)",
         f"{r['bloomctl_test_present']:,.0f}", f"{r['dcso_check_present']:,.0f}",
         f"{r['bloomctl_test_present'] / r['dcso_check_present']:.2f}",
         f"{median(s['bloomctl_test_present']):.2f} / {median(s['dcso_check_present']):.2f}"],
    ]
    out = [f"Same guest (kernel {cli['guest_kernel']}), same files: "
           f"{cli['present_keys']:,} inserted keys, {cli['absent_keys']:,} "
           f"never-inserted keys, 32 hex digits a line; both filters sized "
           f"for {cli['present_keys']:,} keys at p = {cli['p']}. bloomctl: "
           f"`bloomctl create NAME --capacity N --fpp 0.01`, `bloomctl add "
           f"NAME -f FILE`, `bloomctl test NAME -f FILE | wc -l`; DCSO bloom "
           f"{cli['dcso_version']} (Debian golang-github-dcso-bloom-cli): "
           f"`bloom create -n N -p 0.01 F`, `bloom insert F < FILE`, `bloom "
           f"check F < FILE | wc -l`. Median of {cli['rounds']} rounds, "
           f"tools taking turns; wall time of the whole command (start-up and "
           f"reading the file included).\n",
           md_table(["", "bloomctl keys/s", "DCSO keys/s", "ratio",
                     "seconds (bloomctl / DCSO)"], rows),
           f"\nFalse positives among the {cli['absent_keys']:,} absent keys: "
           f"bloomctl {cli['false_positives']['bloomctl']:,} "
           f"({cli['false_positives']['bloomctl'] / cli['absent_keys']:.4f}), "
           f"DCSO {cli['false_positives']['dcso']:,} "
           f"({cli['false_positives']['dcso'] / cli['absent_keys']:.4f}). "
           f"Present keys found: bloomctl {cli['present_found']['bloomctl']:,}, "
           f"DCSO {cli['present_found']['dcso']:,} of "
           f"{cli['present_keys']:,}.\n"]
    if png:
        out.append(f"![CLI keys/s]({png})\n")
    out.append("### Target\n")
    out.append(md_targets(results, {"T9"}))
    return "\n".join(out)


def md_snap(snap):
    io = snap["ioctl"]
    mb = io["bytes"] / 1e6
    rate = {k: mb / median(io[k]) for k in ("save", "restore", "memcpy")}
    n = snap["keys"]
    kps = {k: n / median(snap[k]) for k in ("build_all_cpus", "build_one_cpu",
                                            "add_f")}
    rows = [
        ["BLOOM_IOC_SAVE", f"{rate['save']:,.0f} MB/s",
         f"{rate['save'] / rate['memcpy']:.2f}"],
        ["BLOOM_IOC_RESTORE (new filter)", f"{rate['restore']:,.0f} MB/s",
         f"{rate['restore'] / rate['memcpy']:.2f}"],
        ["memcpy() of the same bytes", f"{rate['memcpy']:,.0f} MB/s", "1.00"],
    ]
    rows2 = [
        [f"bloomctl build, {snap['cpus']} CPUs", f"{kps['build_all_cpus']:,.0f}",
         f"{kps['build_all_cpus'] / kps['add_f']:.2f}"],
        ["bloomctl build --threads 1", f"{kps['build_one_cpu']:,.0f}",
         f"{kps['build_one_cpu'] / kps['add_f']:.2f}"],
        ["bloomctl add -f into the kernel", f"{kps['add_f']:,.0f}", "1.00"],
    ]
    return "\n".join([
        f"In the VM (TCG: only the ratios mean anything). A standard filter of "
        f"{io['bytes']:,} bytes (snapshot size), about half its bits set; "
        f"median of {io['rounds']} rounds, save, restore and memcpy taking "
        f"turns in one process (tools/bench/snap.c). Restore includes every "
        f"check (both checksums, the payload scan).\n",
        md_table(["", "throughput", "vs memcpy"], rows),
        f"\n`bloomctl build` against `bloomctl add -f` of the same "
        f"{n:,} keys (a filter sized for them at p = 0.01), wall time of the "
        f"whole command, median of {len(snap['add_f'])} rounds "
        f"(tools/bench/snap_bench.sh):\n",
        md_table(["", "keys/s", "vs add -f"], rows2)])


def load(raw, part):
    path = os.path.join(raw, f"{part}.json")
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f), None
    err = os.path.join(raw, f"{part}.err")
    if os.path.exists(err):
        with open(err) as f:
            return None, f.read()
    return None, None


def fw_index(fw):
    return {c["name"]: c for c in fw["configs"]}


def fw_above(fw, name):
    """ns per packet a configuration adds to the no-rule baseline."""
    idx = fw_index(fw)
    return idx[name]["ns_per_packet"] - idx["none"]["ns_per_packet"]


def fw_paired(fw, name, other):
    """Median over rounds of name's ns per packet / other's in the same
    round: rounds are interleaved, so a round's two figures met the same
    load. <= 1.0 exactly when name adds no more to the no-rule baseline than
    other does, without dividing by a difference of two noisy figures."""
    idx = fw_index(fw)
    a, b = idx[name]["rounds"], idx[other]["rounds"]
    return statistics.median(y["pps"] / x["pps"] for x, y in zip(a, b))


def fw_cost_target(out, tid, text, fw, name, other):
    """Target: name's cost per packet over other's, same round, <= 1.0."""
    r = fw_paired(fw, name, other)
    target(out, tid, text, r, 1.0, r <= 1.0,
           "ns above baseline (medians): bloom %.0f, ipset %.0f" %
           (fw_above(fw, name), fw_above(fw, other)))


def check_fw(fw, out):
    for p in ("0.01", "0.0001"):
        fw_cost_target(out, f"F1-{p}",
                       f"firewall: blocked filter (p = {p}) cost per packet "
                       f"/ ipset hash:ip's, same round (<= 1.0: it adds no "
                       f"more to the no-rule baseline than ipset does)",
                       fw, f"fw_blocked_{p}", "ipset")
    mem = fw["memory"]
    for t in ("blocked", "standard"):
        r = mem[f"fw_{t}_0.01"] / mem["ipset_hash_ip"]
        target(out, f"F2-{t}",
               f"firewall: {t} filter memory at p = 0.01 / ipset's",
               r, 1 / 20, r <= 1 / 20)
    for nb in fw.get("netblocks", []):
        n = nb["lengths"]
        fw_cost_target(out, f"F3-{n}",
                       f"firewall, feed with netblocks of {n} lengths: "
                       f"blocked filter cost per packet / ipset hash:net's, "
                       f"same round", fw, f"fwnet_{n}", f"ipnet_{n}")
        if "bloom_memory_0.01" not in nb:
            continue
        r = nb["bloom_memory_0.01"] / nb["ipset_hash_net_memory"]
        target(out, f"F4-{n}",
               f"firewall, feed with netblocks of {n} lengths: blocked "
               f"filter memory at p = 0.01 per address / ipset hash:net's",
               r, 1 / 10, r <= 1 / 10,
               "at p = 0.0001 per address: %.3f" %
               (nb["bloom_memory"] / nb["ipset_hash_net_memory"]))


def md_fw_netblocks(fw, results):
    """The feeds with netblocks: cost and memory against the number of
    lengths; one length is the addresses-only feed (hash:ip)."""
    nbs = fw.get("netblocks", [])
    if not nbs:
        return ""
    mem = fw["memory"]
    def ratio(a, b):
        return "-" if a is None else f"{a:,} ({a / b:.3f})"

    ip = mem["ipset_hash_ip"]
    rows = [["1 (addresses only)", "0", "0.0001 (asked)",
             f"{fw_above(fw, 'fw_blocked_0.0001'):,.0f}",
             f"{fw_above(fw, 'ipset'):,.0f} (hash:ip)",
             f"{fw_paired(fw, 'fw_blocked_0.0001', 'ipset'):.2f}",
             ratio(mem["fw_blocked_0.0001"], ip),
             ratio(mem["fw_blocked_0.01"], ip), f"{ip:,}"]]
    for nb in nbs:
        n = nb["lengths"]
        net = nb["ipset_hash_net_memory"]
        rows.append([f"{n + 1} ({n} netblock lengths + addresses)",
                     f"{nb['netblocks']:,}", f"{nb['address_fpp']:.2g}",
                     f"{fw_above(fw, f'fwnet_{n}'):,.0f}",
                     f"{fw_above(fw, f'ipnet_{n}'):,.0f}",
                     f"{fw_paired(fw, f'fwnet_{n}', f'ipnet_{n}'):.2f}",
                     ratio(nb["bloom_memory"], net),
                     ratio(nb.get("bloom_memory_0.01"), net), f"{net:,}"])
    ids = [f"F{k}-{nb['lengths']}" for nb in nbs for k in (3, 4)]
    return "\n".join([
        "### Feeds with netblocks\n",
        f"The same {fw['listed']:,} addresses plus netblocks over L lengths "
        "(tools/bench/fw_netblocks.py: about the same number of each length, "
        "none holding a source of the traffic, so every unlisted packet "
        "meets every length), in one blocked filter sized for p = 0.0001 "
        "per address (p / tests per test) and in ipset hash:net. Same "
        "traffic and rounds as above, interleaved with them. \"per-address "
        "rate\": the filter's own report (info address_fpp) once filled. "
        "Memory in bytes, and in parentheses as a fraction of ipset's; at "
        "p = 0.01 per address from a filter created the same way (its size "
        "is fixed at creation).\n",
        md_table(["tests per address", "netblocks", "per-address rate",
                  "bloom ns above baseline", "ipset ns above baseline",
                  "bloom / ipset, same round", "bloom bytes, p = 0.0001",
                  "bloom bytes, p = 0.01", "ipset bytes"], rows), "",
        md_targets(results, ids)])


def fw_rows(fw, names, ipset_mem):
    """The table rows of the configurations in names (in its order, each
    with its label), the set's memory under key ipset_mem: speed, cost
    above the baseline and against ipset's in the same round, matches,
    memory."""
    idx = fw_index(fw)
    mem = fw["memory"]
    rows = []
    for n in names:
        c = idx[n]
        m = mem.get(n if n != "ipset" else ipset_mem)
        rows.append([names[n], f"{c['median_pps']:,.0f}",
                     f"{c['ns_per_packet']:,.0f}",
                     "-" if n == "none" else f"{fw_above(fw, n):,.0f}",
                     "-" if n in ("none", "ipset")
                     else f"{fw_paired(fw, n, 'ipset'):.2f}",
                     "-" if c["hit_fraction"] is None
                     else f"{100 * c['hit_fraction']:.2f}%",
                     "-" if m is None else f"{m:,}",
                     "-" if m is None else f"{8 * m / fw['listed']:.1f}"])
    return rows


def md_fw(fw, results):
    names = {"none": "no match rule (baseline)",
             "fw_standard_0.01": "bloom standard, p = 0.01",
             "fw_blocked_0.01": "bloom blocked, p = 0.01",
             "fw_standard_0.0001": "bloom standard, p = 0.0001",
             "fw_blocked_0.0001": "bloom blocked, p = 0.0001",
             "ipset": "ipset hash:ip (-m set)"}
    mem = fw["memory"]
    rows = fw_rows(fw, names, "ipset_hash_ip")
    out = [f"In the VM (kernel {fw['guest_kernel']}, TCG: compare ratios, "
           f"not absolute rates). {fw['listed']:,} listed IPv4 addresses; "
           f"UDP from {fw['listed_percent']}% listed and "
           f"{100 - fw['listed_percent']}% unlisted sources, sent with "
           f"sendmmsg() through a raw socket from another network namespace "
           f"over veth (the receiving stack runs in the sender's softirq, so "
           f"a packet's time includes the rule); {fw['iptables']}: the rule "
           f"under test without a target, then DROP. {fw['rounds']} rounds "
           f"of {fw['seconds']:g} s per configuration, interleaved; medians. The \"/ ipset's\" "
           f"column is the median over rounds of a configuration's ns per "
           f"packet over ipset's in the same round: below 1.0 it costs less "
           f"than the ipset match.\n",
           md_table(["configuration", "packets/s", "ns/packet",
                     "ns above baseline", "/ ipset's", "matched",
                     "memory bytes", "bits/address"], rows), "",
           md_targets(results, ["F1-0.01", "F1-0.0001", "F2-blocked",
                                "F2-standard"]), "",
           md_fw_netblocks(fw, results), "",
           "Memory: ipset's own \"Size in memory\" (ipset list -t) for "
           f"{mem['ipset_entries']:,} entries; bloom's memory_bytes "
           "(everything the filter takes, counters and struct included).\n",
           "Which type for a firewall: **blocked**. A rule only queries; a "
           "blocked filter reads one cache line per packet where a standard "
           "one reads up to k, one per hash (7 at p = 0.01, 13 at "
           "p = 0.0001), at about the same memory; counting and d-left filters cost 4x and about 2x "
           "the memory and are worth it only when addresses must be removed "
           "one by one. Choose p for the damage a false positive does: a "
           "drop rule at p = 0.0001 wrongly drops 1 in 10,000 unlisted "
           "sources; the table shows what that costs in memory."]
    return "\n".join(out)


def check_expire(ex, out):
    mem = ex["memory"]
    for p in ("0.01", "0.0001"):
        name = f"exp_{p}"
        fw_cost_target(out, f"E1-{p}",
                       f"expiring blocked filter (p = {p}, G = "
                       f"{ex['generations']}) cost per packet / ipset hash:ip "
                       f"timeout's, same round, both under the same churn",
                       ex, name, "ipset")
        r = mem[name] / mem["ipset_hash_ip_timeout"]
        target(out, f"E2-{p}",
               f"expiring blocked filter (p = {p}) memory / ipset hash:ip "
               f"timeout's, same live entries", r, 1 / 10, r <= 1 / 10)
    rd = ex["rotation"]["readers"]
    absent = rd["during_clearing"]["absent"] + rd["outside_clearing"]["absent"]
    target(out, "E3", "rotations of a %.2f GiB expiring filter: queries of "
           "live keys that answered absent" %
           (ex["rotation"]["memory_bytes"] / 2**30), absent, 0, absent == 0,
           f"{rd['during_clearing']['queries']:,} queries during a clearing, "
           f"{rd['outside_clearing']['queries']:,} outside")


def md_expire(ex, results):
    mem = ex["memory"]
    names = {"none": "no match rule (baseline)",
             "exp_0.01": "bloom blocked, p = 0.01, expiring",
             "exp_0.0001": "bloom blocked, p = 0.0001, expiring",
             "ipset": "ipset hash:ip timeout (-m set)"}
    rows = [row + ["-" if n not in ex["address_fpp"]
                   else f"{ex['address_fpp'][n]:.3g}"]
            for n, row in zip(names, fw_rows(ex, names,
                                             "ipset_hash_ip_timeout"))]
    ch = ex["churn"]
    rot = ex["rotation"]
    rd = rot["readers"]
    clr = sorted(rot["readers"]["clearings_ns"])
    gen = rot["memory_bytes"] / rot["generations"]
    rrows = [[w.replace("_", " "), f"{s['queries']:,}",
              f"{s.get('ns_median', 0):,}", f"{s.get('ns_p90', 0):,}",
              f"{s.get('ns_p99', 0):,}", f"{s.get('ns_max', 0):,}",
              f"{s['absent']}"]
             for w, s in (("during_clearing", rd["during_clearing"]),
                          ("outside_clearing", rd["outside_clearing"]))]
    out = [f"In the VM (kernel {ex['guest_kernel']}, TCG: compare ratios, "
           f"not absolute rates), with the fw part's traffic and rules "
           f"(fw_lib.sh): {ex['listed']:,} listed IPv4 addresses, UDP from "
           f"{ex['listed_percent']}% listed and "
           f"{100 - ex['listed_percent']}% unlisted sources; "
           f"{ex['iptables']}: the rule under test without a target, then "
           f"DROP. Blocked filters with --timeout {ex['timeout_s']}s and the "
           f"default G = {ex['generations']} generations, sized for "
           f"{ex['listed']:,} keys per timeout; ipset hash:ip with timeout "
           f"{ex['ipset_timeout_s']} s (the longest a key of the filter "
           f"lives). Churn: a loop on the other CPU adds the listed "
           f"addresses again, one chunk a second, each address once per "
           f"timeout ({ch['per_second_asked']:,.0f} a second asked, the "
           f"load the filters are sized for), to the filters and the set "
           f"alike; the rounds start after one timeout of it and it goes on "
           f"through them (every configuration, the baseline included, runs "
           f"under it): {ch['added']:,} addresses in "
           f"{ch['ms'] / 1000:,.0f} s, {1000 * ch['added'] / ch['ms']:,.0f} "
           f"a second (where that is below the asked rate, the emulated "
           f"guest could not add faster, and an address comes back later "
           f"than its timeout: some expire, in the set and the filters "
           f"alike, and fewer than {ex['listed']:,} are live). "
           f"{ex['rounds']} rounds of {ex['seconds']:g} s per "
           f"configuration, interleaved; medians; \"/ ipset's\" as in the "
           f"fw part. \"rate\": the filter's own estimate (info address_fpp) "
           f"after the rounds.\n",
           md_table(["configuration", "packets/s", "ns/packet",
                     "ns above baseline", "/ ipset's", "matched",
                     "memory bytes", "bits/address", "rate"], rows), "",
           "Memory: ipset's own \"Size in memory\" (ipset list -t) for "
           f"{mem['ipset_entries']:,} live entries after the rounds; "
           "bloom's memory_bytes, fixed at creation.\n",
           f"### Rotation of a {rot['memory_bytes'] / 2**30:.2f} GiB "
           "expiring filter\n",
           f"A blocked filter for {rot['capacity']:,} keys per "
           f"{rot['timeout_s']} s at p = 0.01: {rot['memory_bytes']:,} bytes "
           f"in {rot['generations']} generations of about {gen / 2**20:,.0f} "
           f"MiB, one cleared every {rot['timeout_s'] / (rot['generations'] - 1):g} s "
           f"by the module's unbound workqueue. Each clearing is timed by "
           f"kprobes on bloom_core_clear() (entry and return, trace_clock "
           f"mono): {len(clr)} clearings in {rd['seconds']:.0f} s, "
           + (f"median {clr[len(clr) // 2] / 1e6:,.0f} ms, max "
              f"{clr[-1] / 1e6:,.0f} ms ({gen / 2**30 / (clr[len(clr) // 2] / 1e9):.2f} "
              f"GiB/s at the median). " if clr else "") +
           "Meanwhile one reader (bench-expire read, libbloom) queries 1,000 "
           "keys it adds again every 0.5 s, one ioctl per query, timing each "
           "on CLOCK_MONOTONIC; the queries that overlapped a clearing "
           "against the others, in ns:\n",
           md_table(["queries", "count", "median", "p90", "p99", "max",
                     "answered absent"], rrows), "",
           md_targets(results, ["E1-0.01", "E1-0.0001", "E2-0.01",
                                "E2-0.0001", "E3"])]
    return "\n".join(out)


PARTS = ["native", "vm", "cli", "scale", "snap", "fw", "peer", "hash",
         "xdp", "expire"]


def previous_report(out):
    """The data and the per-part runs of OUT/latest.json, or empty dicts.
    A report written before parts carried their own run ("parts" missing)
    gives every part it holds the report's date, command and machine."""
    path = os.path.join(out, "latest.json")
    if not os.path.exists(path):
        return {}, {}
    with open(path) as f:
        doc = json.load(f)
    data = {p: doc.get(p) for p in PARTS}
    runs = doc.get("parts")
    if runs is None:
        runs = {p: {"status": "ran", "date": doc["date"],
                    "command": doc["command"], "machine": doc["machine"]}
                for p in PARTS if data[p]}
    return data, runs


def check_all(data):
    """Every target of the parts that have data, each naming its part."""
    results = []
    checks = {"native": check_native, "vm": check_vm, "cli": check_cli,
              "scale": lambda d, out: scale_report.check(
                  d, lambda *t: target(out, *t)),
              "fw": check_fw,
              "peer": lambda d, out: peer_report.check(
                  d, lambda *t: target(out, *t)),
              "xdp": lambda d, out: xdp_report.check(
                  d, lambda *t: target(out, *t)),
              "expire": check_expire}
    for p in PARTS:
        if data.get(p) and p in checks:
            part = []
            checks[p](data[p], part)
            for t in part:
                t["part"] = p
            results += part
    return results


def machine_text(m):
    if not m:
        return "not recorded"
    return f"{m['cpu']}, {m['cores']} cores, {m['memory']} memory, " \
        f"kernel {m['kernel']}"


def md_headline(results, runs):
    """The parts table and the target count: only parts that ran count,
    and the parts not run (or failed, or skipped) are named."""
    def status(s):
        return [p for p in PARTS if runs.get(p, {}).get("status") == s]
    ran, failed, skipped = status("ran"), status("failed"), status("skipped")
    missing = [p for p in PARTS if p not in runs]
    rows = []
    for n, p in enumerate(PARTS, 1):
        r = runs.get(p)
        mine = [t for t in results if t.get("part") == p]
        npass = sum(t["status"] == "PASS" for t in mine)
        if not r:
            rows.append([f"{n}. {p}", "**not run**", "-", "-", "-", "-"])
            continue
        m = r.get("machine") or {}
        rows.append([f"{n}. {p}", r["status"] if r["status"] == "ran"
                     else f"**{r['status']}**", r["date"] or "not recorded",
                     m.get("commit", "not recorded"), machine_text(m),
                     f"{npass} PASS, {len(mine) - npass} MISS" if mine
                     else "-"])
    npass = sum(t["status"] == "PASS" for t in results)
    head = (f"- targets: **{npass} PASS, {len(results) - npass} MISS** of "
            f"{len(results)} checked, in the parts that ran "
            f"({', '.join(ran) or 'none'})")
    if missing or failed or skipped:
        head += "; " + "; ".join(
            f"**{word}: {', '.join(ps)}**" for word, ps in (
                ("not run", missing), ("failed", failed),
                ("skipped", skipped)) if ps) + " (no targets counted for them)"
    return [md_table(["part", "run", "date", "commit", "machine",
                      "targets"], rows), "", head]


def md_run(r):
    """Where a part's figures come from."""
    m = r.get("machine") or {}
    words = [f"Run {r['date']}" if r["date"] else "Run date not recorded",
             f"`{r['command']}`", f"commit {m.get('commit', 'not recorded')}",
             f"machine: {machine_text(m)}"]
    if m.get("compiler"):
        words += [f"{m['compiler']}, -O2",
                  f"transparent huge pages: {m['thp']}"]
    note = f" {r['note']}." if r.get("note") else ""
    return f"_{'; '.join(words)}.{note}_\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", help="the raw JSON of the parts run")
    ap.add_argument("--out", required=True)
    ap.add_argument("--started")
    ap.add_argument("--command")
    ap.add_argument("--parts", default=" ".join(PARTS))
    ap.add_argument("--merge", action="store_true",
                    help="keep the parts not run this time from "
                    "OUT/latest.json, each with the run it comes from")
    ap.add_argument("--render", action="store_true",
                    help="run nothing: rewrite OUT/latest.md and "
                    "latest.json from OUT/latest.json (plots kept)")
    a = ap.parse_args()
    if not a.render and not (a.raw and a.started and a.command):
        ap.error("--raw, --started and --command are needed without "
                 "--render")

    top = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
    os.makedirs(a.out, exist_ok=True)
    prev_data, prev_runs = previous_report(a.out) \
        if a.render or a.merge else ({}, {})
    data, runs, errs = {}, {}, {}
    run_now = [] if a.render else a.parts.split()
    m = machine(top) if run_now else None
    for p in PARTS:
        if p in run_now:
            data[p], errs[p] = load(a.raw, p)
            runs[p] = {"status": "ran" if data[p] else "failed",
                       "date": a.started, "command": a.command,
                       "machine": m}
            if not data[p]:
                runs[p]["error"] = errs[p] or "no output"
            elif data[p].get("skipped"):
                # peer without Boost.Bloom: replaces the section, says why
                runs[p]["status"] = "skipped"
        elif p in prev_runs:
            data[p], runs[p] = prev_data.get(p), prev_runs[p]
            errs[p] = runs[p].get("error")
        else:
            data[p], errs[p] = None, None
    native, vm, cli, scale, snap, fw, peer, hashes, xdp, expire = \
        (data[p] for p in PARTS)
    results = check_all(data)

    # Plots are written next to latest.md and named by content: made for
    # the parts run now, kept (if there) for the others.
    work = os.path.join(a.raw or a.out, "..", "plot") if run_now else None
    if work:
        os.makedirs(work, exist_ok=True)

    def plot(part, name, fn):
        path = os.path.abspath(os.path.join(a.out, name))
        if not data[part]:
            return None
        if part in run_now:
            return name if fn(path, work) else None
        return name if os.path.exists(path) else None

    native_pngs = [(p, n) for p, n in (
        (p, plot("native", f"native_p{p}.png",
                 lambda path, w, p=p: plot_native(native, p, path, w)))
        for p in (0.01, 0.001)) if n]
    vm_png = plot("vm", "vm_batch.png",
                  lambda path, w: plot_vm(vm, path, w))
    cli_png = plot("cli", "cli.png", lambda path, w: plot_cli(cli, path, w))

    doc = {"parts": runs, "targets": results, **data}
    with open(os.path.join(a.out, "latest.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")

    md = ["# bloom benchmarks\n",
          "One report for the ten parts of `make bench` (at the top of "
          "the repository). A part run alone (`make -C tools/bench run "
          "PARTS=\"fw\"`, `make -C tools/bench fw`, `scale`, `peer` or "
          "`hash`) replaces its own section and keeps the others: each part "
          "says the run it comes from. The machine is shared (other jobs "
          "ran at the same time): compare ratios within one part's run, "
          "not absolute times across runs.\n"]
    md += md_headline(results, runs)
    if native:
        md.append(f"- L3 cache reported (native): "
                  f"{native.get('l3_bytes', 0) / 2**20:.0f} MiB")
    md.append("")
    for p, title, body in (
            ("native", "1. Native: the core in userspace",
             lambda: md_native(native, results, native_pngs)),
            ("vm", "2. In the VM: /dev/bloom, the core in the guest, the "
             "BPF map", lambda: md_vm(vm, results, vm_png)),
            ("cli", "3. CLI: bloomctl against DCSO bloom",
             lambda: md_cli(cli, results, cli_png)),
            ("scale", "4. Scalable filters: memory, rate, query cost per "
             "stage", lambda: "\n".join([
                 scale_report.markdown(scale), "", "### Targets\n",
                 md_targets(results, {"S1", "S2", "S3"})])),
            ("snap", "5. Snapshots: save, restore, build",
             lambda: md_snap(snap)),
            ("fw", "6. Firewall: iptables -m bloom against ipset",
             lambda: md_fw(fw, results)),
            ("peer", "7. Peer: the blocked filter against Boost.Bloom",
             lambda: "\n".join([
                 peer_report.markdown(peer), "", "### Targets\n",
                 md_targets(results, {"P1", "P2", "P3", "P4", "P5"})])),
            ("hash", "8. The keyed hash",
             lambda: peer_report.hash_markdown(hashes)),
            ("xdp", "9. XDP: the bloom kfunc against BPF maps",
             lambda: "\n".join([
                 xdp_report.markdown(xdp), "", "### Targets\n",
                 md_targets(results, {"X1", "X2", "X3"})])),
            ("expire", "10. Expiring filters: against ipset timeout; a "
             "rotation", lambda: md_expire(expire, results))):
        md.append(f"## {title}\n")
        if p in runs:
            md.append(md_run(runs[p]))
        if data[p]:
            md.append(body())
        elif errs[p]:
            md.append("**FAILED** in that run; the end of its output:\n\n```\n"
                      + errs[p].strip() + "\n```")
        else:
            md.append("_not run_")
        md.append("")
    with open(os.path.join(a.out, "latest.md"), "w") as f:
        f.write("\n".join(md))


if __name__ == "__main__":
    main()
