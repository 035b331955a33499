# SPDX-License-Identifier: GPL-2.0
"""The scalable-filter part of the benchmarks (bench-scale's JSON): targets
and Markdown, for report.py's latest.md (section 4)."""


def _fmt(x, digits=3):
    if isinstance(x, int):
        return f"{x:,}"
    return f"{x:.{digits}g}"


def _scheme(case, name):
    return next(s for s in case["schemes"] if s["scheme"] == name)


def check(scale, target):
    """Adds the targets S1, S2, S3 through target(tid, text, value, limit, ok)."""
    for case in scale["memory"]:
        if case["type"] == "blocked" and case["growth_factor"] == 100:
            d = _scheme(case, "defaults")
            target("S3", "blocked scalable, defaults, 100x growth: bits "
                   "within 2x of one blocked filter for the final count "
                   "(the table's vs optimal compares with a standard one)",
                   d["vs_same_type"], 2.0, d["vs_same_type"] <= 2.0)
        if case["type"] != "standard" or case["growth_factor"] != 100:
            continue
        d, r = _scheme(case, "defaults"), _scheme(case, "redisbloom")
        target("S1", "scalable, defaults (s = 2, r = 0.85), 100x growth: "
               "bits within 2x of one optimal filter for the final count",
               d["vs_optimal"], 2.0, d["vs_optimal"] <= 2.0)
        target("S2", "scalable, 100x growth: fewer bits than RedisBloom's "
               "r = 0.5 for the same keys (ratio of bits)",
               d["bits"] / r["bits"], "< 1", d["bits"] < r["bits"])


def markdown(scale):
    p = scale["p"]
    out = [
        f"Scalable filters (`module/core/scale.c`), built by the core in "
        f"userspace (`bench-scale`). A filter of capacity "
        f"{scale['capacity']:,} at P = {p} is fed 10x and 100x its capacity "
        f"with the defaults (s = 2, r = 0.85) and with RedisBloom's scheme "
        f"(s = 2, r = 0.5: stage rates P/2, P/4, ...), built by our core for "
        f"the same keys. \"optimal\" is one standard filter sized by "
        f"`bloom_geometry_size()` for the final count at P; \"vs one of its "
        f"type\" compares with one filter of the scalable filter's own type "
        f"(for blocked filters one blocked filter, which itself takes more "
        f"bits than the standard optimum). The rate is measured on "
        f"never-added keys.\n",
        "| type | growth | scheme | stages | bits/key | optimal bits/key "
        "| vs optimal | vs one of its type | measured rate | absent keys "
        "| false negatives |",
        "|---|---|---|---|---|---|---|---|---|---|---|"]
    for case in scale["memory"]:
        for s in case["schemes"]:
            out.append(
                f"| {case['type']} | {case['growth_factor']}x "
                f"| {s['scheme']} (r = {s['tightening']}) | {s['stages']} "
                f"| {s['bits_per_key']:.2f} "
                f"| {case['optimal_bits_per_key']:.2f} "
                f"| **{s['vs_optimal']:.3f}x** "
                f"| {s['vs_same_type']:.3f}x "
                f"| {s['measured_fpp']:.6f} ({s['measured_fpp'] / p:.2f} P) "
                f"| {_fmt(s['absent_queried'])} | {s['false_negatives']} |")
    out.append("")
    out.append(
        f"Query cost against the number of stages: ns per absent key, "
        f"batched queries of precomputed hashes (the kernel's second pass), "
        f"median of {scale['rounds']} interleaved rounds of "
        f"{scale['query_keys']:,} keys; a scalable filter of capacity "
        f"{scale['query_capacity']:,} filled to 1, 5 and 10 stages, and one "
        f"standard filter holding the same keys at P (the cost of a filter "
        f"that size, in or out of cache, without stages).\n")
    out.append("| stages | keys | scalable ns/key | one filter ns/key | "
               "scalable / one filter | vs 1 stage |")
    out.append("|---|---|---|---|---|---|")
    rows = scale["query_vs_stages"]
    base = rows[0]["scalable_absent_ns"] if rows else 1
    for r in rows:
        out.append(f"| {r['stages']} | {r['keys']:,} "
                   f"| {r['scalable_absent_ns']:.1f} "
                   f"| {r['plain_absent_ns']:.1f} "
                   f"| {r['ratio_to_plain']:.2f}x "
                   f"| {r['scalable_absent_ns'] / base:.2f}x |")
    return "\n".join(out)

