# SPDX-License-Identifier: GPL-2.0
"""The snapshot part (snap_bench.sh's JSON: save, restore and bloomctl
build in the test VM): Markdown for report.py's latest.md (section 5); it
has no targets."""
from mdtable import md_table
from partlib import median


def markdown(snap):
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
