# SPDX-License-Identifier: GPL-2.0
"""The CLI part (cli_bench.sh's JSON: bloomctl against DCSO bloom in the
test VM): target T9, the plot and Markdown, for report.py's latest.md
(section 3)."""
import os

from mdtable import md_table, md_targets
from partlib import gnuplot, median


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


def check(cli, target):
    """Adds T9 through target(tid, text, value, limit, ok, note)."""
    r = cli_rates(cli)
    x = r["bloomctl_test"] / r["dcso_check"]
    target("T9", "CLI: bloomctl test -f >= 2x the keys/s of DCSO "
           "bloom check (absent keys, same guest)", x, 2.0, x >= 2.0)


def plot(cli, png, work):
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


def markdown(cli, results, png):
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
