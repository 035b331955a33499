# SPDX-License-Identifier: GPL-2.0
"""The rounds of the firewall benchmarks (fw_lib.sh's fw_round lines),
per configuration: each round's packets per second (DROP's count over the
time sent) and match count, and their median."""

import statistics


def configs(path):
    runs = {}
    for line in open(path):
        f = line.split()
        # NAME ROUND packets N seconds S counts C1 [C2]
        name, sent, sec = f[0], int(f[3]), float(f[5])
        counts = [int(x) for x in f[7:]]
        dropped = counts[-1]
        hits = counts[0] if len(counts) == 2 else None
        runs.setdefault(name, []).append(
            {"sent": sent, "seconds": sec, "dropped": dropped, "hits": hits,
             "pps": dropped / sec})
    out = []
    for name, rs in runs.items():
        pps = statistics.median(r["pps"] for r in rs)
        out.append({"name": name, "rounds": rs, "median_pps": pps,
                    "ns_per_packet": 1e9 / pps,
                    "hit_fraction": (sum(r["hits"] for r in rs) /
                                     sum(r["dropped"] for r in rs))
                    if rs[0]["hits"] is not None else None})
    return out
