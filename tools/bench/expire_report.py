# SPDX-License-Identifier: GPL-2.0
"""The expiring part (expire_bench.sh's JSON: expiring filters against
ipset timeout, under churn, and a rotation timed, in the test VM): targets
E1-E3 and Markdown, for report.py's latest.md (section 10). The traffic,
rules and comparisons are the firewall part's (fw_report.py)."""
from mdtable import md_table, md_targets
import fw_report


def check(ex, target):
    """Adds E1..E3 through target(tid, text, value, limit, ok, note)."""
    mem = ex["memory"]
    for p in ("0.01", "0.0001"):
        name = f"exp_{p}"
        fw_report.cost_target(
            target, f"E1-{p}",
            f"expiring blocked filter (p = {p}, G = {ex['generations']}) "
            f"cost per packet / ipset hash:ip timeout's, same round, both "
            f"under the same churn", ex, name, "ipset")
        r = mem[name] / mem["ipset_hash_ip_timeout"]
        target(f"E2-{p}",
               f"expiring blocked filter (p = {p}) memory / ipset hash:ip "
               f"timeout's, same live entries", r, 1 / 10, r <= 1 / 10)
    rd = ex["rotation"]["readers"]
    absent = rd["during_clearing"]["absent"] + rd["outside_clearing"]["absent"]
    target("E3", "rotations of a %.2f GiB expiring filter: queries of "
           "live keys that answered absent" %
           (ex["rotation"]["memory_bytes"] / 2**30), absent, 0, absent == 0,
           f"{rd['during_clearing']['queries']:,} queries during a clearing, "
           f"{rd['outside_clearing']['queries']:,} outside")


def markdown(ex, results):
    mem = ex["memory"]
    names = {"none": "no match rule (baseline)",
             "exp_0.01": "bloom blocked, p = 0.01, expiring",
             "exp_0.0001": "bloom blocked, p = 0.0001, expiring",
             "ipset": "ipset hash:ip timeout (-m set)"}
    rows = [row + ["-" if n not in ex["address_fpp"]
                   else f"{ex['address_fpp'][n]:.3g}"]
            for n, row in zip(names, fw_report.table_rows(ex, names,
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
           md_table(fw_report.TABLE_HEADER + ["rate"], rows), "",
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
