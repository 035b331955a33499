# SPDX-License-Identifier: GPL-2.0
"""The bans part (bans_bench.sh's JSON: a timed filter, keys with their own
timeouts, against ipset hash:ip timeout in the test VM): targets B1-B4 and
Markdown, for report.py's latest.md (section 12). The traffic, rules and
the cost comparison are the firewall part's (fw_report.py)."""
import math

from mdtable import md_table, md_targets
import fw_report


def resolution(t):
    """The documented lateness bound of a key with timeout t seconds
    (bloom.rst, "Keys with their own timeouts"): absent from t + 2^j on,
    2^j the largest power of two <= max(1 s, t / 16)."""
    return 2 ** math.floor(math.log2(max(1, t / 16)))


def false_negatives(b):
    fn = b["false_negatives"]
    return (fn["after_load"]["false_negatives"] +
            fn["after_rounds"]["false_negatives"] +
            b["expiry"]["absent_early"])


def check(b, target):
    """Adds B1..B4 through target(tid, text, value, limit, ok, note)."""
    mem = b["memory"]
    n = b["listed"]
    r = mem["bans"] / mem["ipset_hash_ip_timeout"]
    target("B1", f"timed filter (p = {b['fpp']:g}) memory / ipset hash:ip "
           f"timeout's, the same {n:,} entries", r, round(1 / 6, 4), r <= 1 / 6,
           f"{mem['bans'] / n:.2f} against "
           f"{mem['ipset_hash_ip_timeout'] / mem['ipset_entries']:.2f} bytes "
           "an entry")
    fw_report.cost_target(
        target, "B2", "timed filter cost per packet / ipset hash:ip "
        "timeout's, same round", b, "bans", "ipset")
    fn = false_negatives(b)
    target("B3", "keys tested absent before their timeout (the load's "
           "after it and after the rounds, and the expiry sample)", fn, 0,
           fn == 0, f"{b['false_negatives']['after_rounds']['checked']:,} "
           f"keys checked after the rounds, "
           f"{b['expiry']['keys']:,} in the sample")
    ex = b["expiry"]
    limit = resolution(ex["timeout_max_s"]) + ex["poll_ms"] / 1000
    target("B4", f"latest a sample key with a {ex['timeout_min_s']}-"
           f"{ex['timeout_max_s']} s timeout tested absent past its "
           f"timeout, s (documented: 2^j, plus one poll)",
           ex["late_max_s"], round(limit, 3), ex["late_max_s"] <= limit,
           f"median {ex['late_median_s']:.2f} s; "
           f"{ex['never_absent']} of {ex['keys']:,} never absent "
           "(false positives)")


def rate(n, s):
    return f"{n / s:,.0f}" if s > 0 else "-"


def markdown(b, results):
    mem = b["memory"]
    n = b["listed"]
    ld = b["load"]
    lib = b["libbloom"]
    ex = b["expiry"]
    fn = b["false_negatives"]
    names = {"none": "no match rule (baseline)",
             "bans": f"bloom timed, p = {b['fpp']:g}",
             "ipset": "ipset hash:ip timeout (-m set)"}
    rows = fw_report.table_rows(b, names, "ipset_hash_ip_timeout")
    mrows = [["bloom timed, p = %g" % b["fpp"], f"{mem['bans']:,}",
              f"{n:,}", f"{mem['bans'] / n:.2f}"],
             ["ipset hash:ip timeout", f"{mem['ipset_hash_ip_timeout']:,}",
              f"{mem['ipset_entries']:,}",
              f"{mem['ipset_hash_ip_timeout'] / mem['ipset_entries']:.2f}"]]
    lrows = [["add", "bloomctl add -f (ipset save lines), under traffic",
              f"{ld['bloomctl_add_f_s']:.2f}",
              rate(n, ld["bloomctl_add_f_s"])],
             ["add", "ipset restore, under traffic",
              f"{ld['ipset_restore_add_s']:.2f}",
              rate(n, ld["ipset_restore_add_s"])],
             ["add", f"libbloom batches of {lib['batch']:,}, a timeout "
              "each", f"{lib['add_s']:.2f}", rate(lib["keys"], lib["add_s"])],
             ["delete", "bloomctl del -f", f"{ld['bloomctl_del_f_s']:.2f}",
              rate(n, ld["bloomctl_del_f_s"])],
             ["delete", "ipset restore (del lines)",
              f"{ld['ipset_restore_del_s']:.2f}",
              rate(n, ld["ipset_restore_del_s"])],
             ["delete", f"libbloom batches of {lib['batch']:,}",
              f"{lib['delete_s']:.2f}", rate(lib["keys"], lib["delete_s"])]]
    return "\n".join([
        f"In the VM (kernel {b['guest_kernel']}, TCG: compare ratios, not "
        f"absolute rates). **{n:,} addresses** (from 16.0.0.0, the fw "
        "part's listed range), each with its own timeout drawn uniformly "
        "from 1 minute to 30 days, as ipset save lines: into a timed filter "
        f"(`--key-timeouts`, p = {b['fpp']:g}) through `bloomctl add -f` "
        "and into ipset's hash:ip timeout through `ipset restore` (its "
        "timeouts clamped to its largest, 2,147,483 s, as CrowdSec clamps "
        "them), both while the fw part's traffic flows through both "
        f"matches. Then {b['rounds']} rounds of {b['seconds']:g} s per "
        "configuration, interleaved, with the fw part's traffic "
        f"({b['listed_percent']}% from the listed addresses) and rules "
        f"({b['iptables']}: the rule under test without a target, then "
        "DROP); medians; \"/ ipset's\" as in the fw part. Meanwhile, on the "
        f"other CPU, {ex['keys']:,} more keys with timeouts of "
        f"{ex['timeout_min_s']} to {ex['timeout_max_s']} s, polled every "
        f"{ex['poll_ms']} ms until each tests absent.\n",
        md_table(fw_report.TABLE_HEADER, rows), "",
        "Memory: bloom's memory_bytes (all of the filter, fixed at "
        "creation); ipset's own \"Size in memory\" (ipset list -t).\n",
        md_table(["", "bytes", "entries", "bytes/entry"], mrows), "",
        "Adds and deletes of the same addresses (seconds of wall time in "
        "the guest):\n",
        md_table(["", "how", "s", "per second"], lrows), "",
        f"bloomctl del -f removed {ld['bloomctl_removed']:,} (the "
        f"{n - ld['bloomctl_removed']:,} it did not find had expired: "
        f"{fn['after_rounds']['maybe_expired']:,} keys' timeouts, from 60 "
        "s, could have passed by the end of the rounds); ipset held "
        f"{ld['ipset_left_after_del']:,} after its deletes. The libbloom "
        f"pass found {lib['present_already']:,} present already (keys that "
        "met a cell with their fingerprint and tag, the shared cell "
        "bloom.rst describes) and its deletes removed "
        f"{lib['deleted']:,}. False negatives: every key "
        "whose timeout cannot have passed queried after the load "
        f"({fn['after_load']['checked']:,} keys: "
        f"{fn['after_load']['false_negatives']} absent) and after the "
        f"rounds ({fn['after_rounds']['checked']:,}: "
        f"{fn['after_rounds']['false_negatives']} absent); the sample: "
        f"{ex['absent_early']} absent before its timeout, the latest "
        f"{ex['late_max_s']:.2f} s past it (median "
        f"{ex['late_median_s']:.2f} s, from the moment before its add), "
        f"{ex['never_absent']} never absent.\n",
        md_targets(results, ["B1", "B2", "B3", "B4"])])
