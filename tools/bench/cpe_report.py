# SPDX-License-Identifier: GPL-2.0
"""The prefix expansion part (cpe_bench.sh's JSON: a feed in the shape of
a tor-geoipdb country, stored as given, expanded, and in ipset hash:net):
targets C1-C5 and Markdown, for report.py's latest.md (section 12)."""
import statistics

from fw_report import fw_paired
from mdtable import md_table, md_targets


def check(cpe, target):
    """Adds C1..C5 through target(tid, text, value, limit, ok, note)."""
    r = cpe["ratios"]
    f = cpe["filters"]
    e = f["fwcpe"]["address_lookups"]
    target("C1", f"prefix expansion: lookup of an unlisted address, "
           f"expanded ({e} tests) / one test per length "
           f"({cpe['lookups_as_given']} tests), same round",
           r["fwcpe_lookup_vs_fwnet"], 0.3, r["fwcpe_lookup_vs_fwnet"] <= 0.3,
           "--lookups 4: %.3f" % r["fwcpe4_lookup_vs_fwnet"])
    rate = f["fwcpe"]["address_fpp"] / cpe["address_rate"]
    target("C2", f"prefix expansion: per-address rate at capacity / the "
           f"rate asked ({cpe['address_rate']:g}, {e} tests of "
           f"{cpe['address_rate']:g} / {e})", rate, 1.0, rate <= 1.0)
    target("C3", "prefix expansion: memory, expanded / one test per "
           "length, same per-address rate", r["fwcpe_memory_vs_fwnet"], 2.0,
           r["fwcpe_memory_vs_fwnet"] <= 2.0,
           "--lookups 4: %.2f" % r["fwcpe4_memory_vs_fwnet"])
    p = fw_paired(cpe, "fwcpe", "ipnet")
    target("C4", "prefix expansion: cost per packet, expanded / ipset "
           "hash:net's, same round", p, 1.0, p <= 1.0)
    target("C5", "prefix expansion: memory, expanded / ipset hash:net's",
           r["fwcpe_memory_vs_ipnet"], 1.0, r["fwcpe_memory_vs_ipnet"] <= 1.0)


def markdown(cpe, results):
    f = cpe["filters"]
    idx = {c["name"]: c for c in cpe["configs"]}
    q = cpe["query"]
    names = {"none": "no match rule (baseline)",
             "fwnet": "bloom, one test per length (as before)",
             "fwcpe": "bloom, expanded (--prefix-feed)",
             "fwcpe4": "bloom, expanded (--lookups 4)",
             "ipnet": "ipset hash:net"}
    rows = []
    for n, label in names.items():
        c = idx[n]
        flt = f.get(n)
        rows.append([
            label, f"{c['median_pps']:,.0f}",
            "-" if n == "none" else f"{fw_paired(cpe, n, 'ipnet'):.2f}",
            "-" if n not in q else
            f"{statistics.median(q[n]['ns_per_address']):,.0f}",
            "-" if flt is None else str(flt["address_lookups"]),
            "-" if flt is None else f"{flt['keys_stored']:,}",
            "-" if flt is None else f"{flt['address_fpp']:.2g}",
            f"{cpe['ipset_hash_net_memory']:,}" if n == "ipnet" else
            "-" if flt is None else f"{flt['memory_bytes']:,}"])
    return "\n".join([
        f"In the VM (kernel {cpe['guest_kernel']}, TCG: compare ratios). "
        f"{cpe['entries']:,} entries: {cpe['listed']:,} addresses and "
        f"netblocks in the shape of tor-geoipdb's United States (26 "
        f"lengths; fw_netblocks.py --geo), none holding a source of the "
        f"traffic. Each bloom filter is sized for "
        f"{cpe['address_rate']:g} per address. Packets as in part 6 "
        f"({cpe['rounds']} rounds of {cpe['seconds']:g} s, medians; under "
        f"a loaded host these vary more than a lookup costs); lookups: "
        f"cpe-query, 65,536 unlisted addresses through QUERY per round, "
        f"the filters taking turns.\n",
        md_table(["configuration", "packets/s", "/ hash:net's, same round",
                  "ns per lookup (QUERY)", "tests per address",
                  "keys stored", "per-address rate", "memory bytes"], rows),
        "", md_targets(results, ["C1", "C2", "C3", "C4", "C5"])])
