# SPDX-License-Identifier: GPL-2.0
"""The bans part (bans_bench.sh's JSON: a timed filter, keys with their own
timeouts, against ipset hash:ip timeout in the test VM; under "native",
bench-bans-native's on the host): targets B1-B4 and B2n and Markdown, for
report.py's latest.md (section 12). The traffic, rules and the cost
comparison are the firewall part's (fw_report.py)."""
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


NATIVE_OURS = "bloom_timed"
NATIVE_IPSET = "ipset_hash_ip_timeout_model"
NATIVE_NAMES = {
    "ipset_hash_ip_timeout_model": "ipset hash:ip timeout (model)",
    "bloom_timed": "bloom timed (the match's lookup, the module's clock)",
    "bloom_timed_no_clock_read": "bloom timed, the time given "
    "(no clock read)",
    "bloom_siphash_only": "bloom's keyed SipHash alone",
    "ipset_jhash_only": "ipset's jhash alone (model)",
}
SET_NAMES = {"small": "in cache", "main": "out of cache"}


def native_ratios(b):
    """(set, which, ours, ipset's) of bench-bans-native's medians."""
    for st in (b.get("native") or {"sets": []})["sets"]:
        v = st["variants"]
        for which in ("listed", "unlisted"):
            yield (st, which, v[NATIVE_OURS][which]["ns_median"],
                   v[NATIVE_IPSET][which]["ns_median"])


def check(b, target):
    """Adds B1..B4 and B2n through target(tid, text, value, limit, ok,
    note)."""
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
    for st, which, ours, theirs in native_ratios(b):
        r = ours / theirs
        target("B2n", f"natively, {st['count']:,} addresses "
               f"({SET_NAMES[st['set']]}), {which}: timed lookup / ipset "
               "hash:ip timeout's (model)", r, 1.0, r <= 1.0,
               f"{ours:.1f} ns against {theirs:.1f} ns")
    g = (b.get("native") or {}).get("growth")
    for which in ("listed", "unlisted") if g else ():
        v = g["variants"]
        at_c = v["growing_at_capacity"][which]["ns_median"]
        at_10 = v["growing_at_10x_capacity"][which]["ns_median"]
        target("G1", f"natively, a timed filter that grows (capacity "
               f"{g['capacity']:,}), {which}: lookup at 10x its capacity "
               f"({g['stages_at_10x']} stages) / at it", at_10 / at_c, 2.0,
               at_10 / at_c <= 2.0, f"{at_10:.1f} ns against {at_c:.1f} ns")
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
        native_markdown(b["native"]) if b.get("native") else
        "_No native model in this run._\n",
        md_targets(results, ["B1", "B2", "B2n", "G1", "B3", "B4"])])


def native_markdown(n):
    """bench-bans-native's table: ns per lookup on the host."""
    rows = []
    for st in n["sets"]:
        for name, v in st["variants"].items():
            row = [f"{st['count']:,} ({SET_NAMES[st['set']]})",
                   NATIVE_NAMES.get(name, name)]
            for which in ("listed", "unlisted"):
                row.append(f"{v[which]['ns_median']:.1f} "
                           f"({v[which]['ns_min']:.1f})")
            ipset = st["variants"][NATIVE_IPSET]
            row += [f"{v[w]['ns_median'] / ipset[w]['ns_median']:.2f}"
                    for w in ("listed", "unlisted")]
            rows.append(row)
    main = [st for st in n["sets"] if st["set"] == "main"]
    sizes = "".join(
        f" At {st['count']:,} addresses the model's table has "
        f"2^{st['ipset_htable_bits']} buckets after "
        f"{st['ipset_resizes']} doublings and takes "
        f"{st['ipset_memory_bytes']:,} bytes (buckets and pointers); "
        f"bloom's filter {st['bloom_memory_bytes']:,}." for st in main)
    return "\n".join([
        "Natively (this host, `bench-bans-native`, the same feed): bloom's "
        "lookup as the match makes it (the core's `bloom_nb_query()` on a "
        "timed filter at p = 1e-4: the keyed SipHash of the address, two "
        "64-byte buckets of 16 cells, on a match the clock read, a model "
        "of the module's coarse one) against a model of "
        "ipset's `hash:ip timeout` test in Linux 6.1 (`mtype_test()`: "
        "jhash2 of the address with the set's initval, the bucket "
        "pointer, the used bitmap, each element's address and its timeout "
        "against jiffies; the table grown from hashsize 1024 by doubling "
        "as ipset grows it, buckets by 2 elements up to 12), with the "
        "time given and each one's hash alone to show where the time goes. "
        "Listed: the set's addresses; unlisted: 64.0.0.0 on, never added; "
        "drawn at random, before the timing. ns of CPU per lookup (the "
        "thread's CPU time: the host's 2 cores ran other jobs, load "
        f"average {n['loadavg_start']:.1f} at the start and "
        f"{n['loadavg_end']:.1f} at the end), median (min) of "
        f"{n['rounds']} rounds of {n['sample']:,} lookups, the variants "
        f"taking turns.{sizes}\n",
        md_table(["addresses", "lookup", "listed ns", "unlisted ns",
                  "listed / ipset's", "unlisted / ipset's"], rows), "",
        *(where_the_time_goes(st) for st in n["sets"]), "",
        growth_markdown(n["growth"]) if n.get("growth") else ""])


GROWTH_NAMES = {
    "growing_at_capacity": "grows (--scalable), at its capacity",
    "growing_at_10x_capacity": "grows, at 10x its capacity",
    "plain_sized_for_10x_capacity": "one table sized for 10x",
}


def growth_markdown(g):
    """bench-bans-native's growth section: a timed filter that grew."""
    rows = []
    for name, v in g["variants"].items():
        rows.append([NATIVE_NAMES.get(name, GROWTH_NAMES.get(name, name)),
                     *(f"{v[w]['ns_median']:.1f} ({v[w]['ns_min']:.1f})"
                       for w in ("listed", "unlisted")),
                     f"{v['unlisted']['hit_rate']:.2g}"])
    return "\n".join([
        f"A timed filter that grows (`create --key-timeouts --scalable`, "
        f"growth {g['growth']}), of capacity {g['capacity']:,}: "
        f"{g['stages_at_capacity']} stage at it, "
        f"{g['stages_at_10x']} at ten times it "
        f"({g['growing_memory_bytes_at_10x']:,} bytes, against "
        f"{g['plain_memory_bytes']:,} for one table sized for 10x). "
        "The match's lookup with the time given (a userspace clock read "
        "would be paid once a stage; the module's coarse clock is cheap), "
        "the same rounds:\n",
        md_table(["filter", "listed ns", "unlisted ns",
                  "unlisted false positives"], rows), ""])


def where_the_time_goes(st):
    """Each lookup less its hash: the tables' tests, side by side."""
    lines = []
    for which in ("listed", "unlisted"):
        v = {name: x[which]["ns_median"] for name, x in
             st["variants"].items()}
        full, at = v[NATIVE_OURS], v["bloom_timed_no_clock_read"]
        sip, ipset = v["bloom_siphash_only"], v[NATIVE_IPSET]
        jh = v.get("ipset_jhash_only")
        split = (f", {jh:.1f} of them its jhash: {ipset - jh:.1f} ns for "
                 "its table's test" if jh is not None else "")
        lines.append(
            f"- {st['count']:,} addresses, {which}: bloom's {full:.1f} ns "
            f"({at:.1f} given the time: the clock read {full - at:+.1f}, "
            "noise where it is not read); given the time, "
            f"{sip:.1f} ns of SipHash and {at - sip:.1f} of the table's "
            "test (two buckets' 16 words compared a word at a time, the "
            f"matching cell's expiry); ipset's whole lookup {ipset:.1f} "
            f"ns{split} (the bucket pointer, then the bucket unless it is "
            "empty).")
    return "\n".join(lines)
