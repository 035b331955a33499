# SPDX-License-Identifier: GPL-2.0
"""The VM part (bench-vm's JSON: /dev/bloom, the core in the guest, the BPF
Bloom map, in the test VM): targets T6-T8, the plot and Markdown, for
report.py's latest.md (section 2)."""
import os

from mdtable import md_table, md_targets
from partlib import gnuplot


def vm_ns(vm, name):
    return vm["ns_per_key"][name]["median"]


def check(vm, target):
    """Adds T6..T8 through target(tid, text, value, limit, ok, note)."""
    r = vm_ns(vm, "query_4096") / vm_ns(vm, "core_query_batch")
    target("T6", "VM: ioctl query, 4096-key batches, per key <= 1.3x "
           "the core in userspace in the same guest", r, 1.3, r <= 1.3)
    r = vm_ns(vm, "query_1") / vm_ns(vm, "bpf_lookup")
    target("T7", "VM: one-key query <= 1.2x the BPF Bloom map's "
           "lookup (present keys)", r, 1.2, r <= 1.2)
    r = vm_ns(vm, "bpf_lookup") / vm_ns(vm, "query_4096")
    target("T8", "VM: batched query (4096) >= 5x the keys/s of the "
           "BPF map's lookup", r, 5.0, r >= 5.0)


def plot(vm, png, work):
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


def markdown(vm, results, png):
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
