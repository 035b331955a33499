# SPDX-License-Identifier: GPL-2.0
"""The firewall part (fw_bench.sh's JSON: iptables -m bloom against ipset
in the test VM): targets F1-F4 and Markdown, for report.py's latest.md
(section 6). The expiring part (expire_report.py) measures with the same
traffic and compares the same way: it uses cost_target() and table_rows()."""
import statistics

from mdtable import md_table, md_targets


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


def cost_target(target, tid, text, fw, name, other):
    """Target: name's cost per packet over other's, same round, <= 1.0."""
    r = fw_paired(fw, name, other)
    target(tid, text, r, 1.0, r <= 1.0,
           "ns above baseline (medians): bloom %.0f, ipset %.0f" %
           (fw_above(fw, name), fw_above(fw, other)))


def check(fw, target):
    """Adds F1..F4 through target(tid, text, value, limit, ok, note)."""
    for p in ("0.01", "0.0001"):
        cost_target(target, f"F1-{p}",
                    f"firewall: blocked filter (p = {p}) cost per packet "
                    f"/ ipset hash:ip's, same round (<= 1.0: it adds no "
                    f"more to the no-rule baseline than ipset does)",
                    fw, f"fw_blocked_{p}", "ipset")
    mem = fw["memory"]
    for t in ("blocked", "standard"):
        r = mem[f"fw_{t}_0.01"] / mem["ipset_hash_ip"]
        target(f"F2-{t}",
               f"firewall: {t} filter memory at p = 0.01 / ipset's",
               r, 1 / 20, r <= 1 / 20)
    for nb in fw.get("netblocks", []):
        n = nb["lengths"]
        cost_target(target, f"F3-{n}",
                    f"firewall, feed with netblocks of {n} lengths: "
                    f"blocked filter cost per packet / ipset hash:net's, "
                    f"same round", fw, f"fwnet_{n}", f"ipnet_{n}")
        if "bloom_memory_0.01" not in nb:
            continue
        r = nb["bloom_memory_0.01"] / nb["ipset_hash_net_memory"]
        target(f"F4-{n}",
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


# The columns of table_rows()
TABLE_HEADER = ["configuration", "packets/s", "ns/packet", "ns above baseline",
                "/ ipset's", "matched", "memory bytes", "bits/address"]


def table_rows(fw, names, ipset_mem):
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


def markdown(fw, results):
    names = {"none": "no match rule (baseline)",
             "fw_standard_0.01": "bloom standard, p = 0.01",
             "fw_blocked_0.01": "bloom blocked, p = 0.01",
             "fw_standard_0.0001": "bloom standard, p = 0.0001",
             "fw_blocked_0.0001": "bloom blocked, p = 0.0001",
             "ipset": "ipset hash:ip (-m set)"}
    mem = fw["memory"]
    rows = table_rows(fw, names, "ipset_hash_ip")
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
           md_table(TABLE_HEADER, rows), "",
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
