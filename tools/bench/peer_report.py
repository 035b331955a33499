# SPDX-License-Identifier: GPL-2.0
"""The peer part (bench-peer's JSON: our blocked filter against Boost.Bloom
and the floor on the same hashes) and the hash part (bench-hash's JSON):
targets and Markdown, used by report.py for latest.md.

Targets (ratios of medians within one run; the min ratio beside them):
  P1  in cache, batched query, blocked <= 1.2x block<uint64_t[8],7>
  P2  in cache, batched query, blocked <= 3x fast_multiblock32<7>
  P3  in cache, batched add, blocked <= 2x block<uint64_t[8],7>
  P4  out of cache, batched query, blocked <= 1.3x the floor
  P5  out of cache, batched add, blocked <= 2x the floor
"""

from mdtable import md_table

OURS = "bloom blocked"
SAME = "boost block<uint64_t[8],7>"
FMB = "boost fast_multiblock32<7>"
FLOOR = "floor"

SAME_OPS = [("add_batch", "add, batched"), ("add_single", "add, one at a time"),
            ("add_batch_2w", "add, batched, 2 writers"),
            ("query_present_batch", "query present, batched"),
            ("query_present_single", "query present, one at a time"),
            ("query_absent_batch", "query absent, batched"),
            ("query_absent_single", "query absent, one at a time")]
HASH_OPS = [("add_single", "add"), ("query_present_single", "query present"),
            ("query_absent_single", "query absent")]


def _configs(peer, kind):
    return [c for c in peer.get("configs", []) if c["kind"] == kind]


def _v(c, name):
    return next(v for v in c["variants"] if v["name"] == name)


def _med(v, op):
    return v["ns_per_key"][op]["median"]


def _min(v, op):
    return v["ns_per_key"][op]["min"]


def check(peer, target):
    """Adds P1..P5 through target(tid, text, value, limit, ok, note)."""
    if peer.get("skipped"):
        return
    for c in _configs(peer, "same_hashes"):
        ours = _v(c, OURS)
        size = c["size"]

        def one(tid, text, other, op, limit):
            o = _v(c, other)
            r = _med(ours, op) / _med(o, op)
            rmin = _min(ours, op) / _min(o, op)
            target(tid, f"{size}, {c['keys']:,} keys, batches of "
                   f"{c['batch']}: {text}", r, limit, r <= limit,
                   f"ratio of minima {rmin:.2f}")
        if size == "in-cache":
            for op in ("query_present_batch", "query_absent_batch"):
                one("P1", f"blocked {op[6:-6]} query <= 1.2x Boost "
                    "block<uint64_t[8],7>", SAME, op, 1.2)
            for op in ("query_present_batch", "query_absent_batch"):
                one("P2", f"blocked {op[6:-6]} query <= 3x Boost "
                    "fast_multiblock32<7>", FMB, op, 3.0)
            one("P3", "blocked add <= 2x Boost block<uint64_t[8],7> insert",
                SAME, "add_batch", 2.0)
        else:
            for op in ("query_present_batch", "query_absent_batch"):
                one("P4", f"blocked {op[6:-6]} query <= 1.3x the floor",
                    FLOOR, op, 1.3)
            one("P5", "blocked add <= 2x the floor", FLOOR, "add_batch", 2.0)


def _ns_table(c, ops):
    ours = _v(c, OURS)
    header = ["variant", "k", "bits/key", "FPR measured"] + [
        label for _, label in ops]
    rows = []
    for v in c["variants"]:
        fpr = f"{v['fpr']:.5f}" if "fpr" in v else "-"
        cells = [f"{_med(v, op):.1f} ({_min(v, op):.1f})" for op, _ in ops]
        rows.append([v["name"], v["hashes"], f"{v['bits_per_key']:.2f}",
                     fpr] + cells)
    if ours:
        for v in c["variants"]:
            if v["name"] == OURS:
                continue
            rows.append([f"*bloom blocked / {v['name']}*", "", "", ""] +
                        [f"{_med(ours, op) / _med(v, op):.2f}"
                         for op, _ in ops])
    return md_table(header, rows)


def markdown(peer):
    if peer.get("skipped"):
        return f"skipped: {peer['skipped']}"
    out = ["Our blocked filter through the core's API (libbloomcore.a) "
           "against Boost.Bloom (the peer, built with g++ -O2 -march=native "
           "from BOOST_BLOOM_DIR) and the floor (one random cache line per "
           "key, prefetched as far ahead as the core's batches: floor.c), in one process "
           f"({peer.get('compiler', '')}). ns per key, median of the rounds "
           "(minimum in brackets); the variants take turns in every round. "
           "block<uint64_t[8],7> has our layout, our k and our bit count; "
           "block<uint64_t,5> and fast_multiblock32<7> are sized by Boost "
           "for p, and their measured FPR and bits per key stand beside "
           "their times. *2 writers*: two threads fill the filter, taking "
           "batches in turn, each batch under one mutex (how bloom.ko "
           "serialises a filter's writers: its write lock, once a batch; "
           "Boost's filters need the same), the time per key of the whole "
           "fill. The fill rounds alternate batched, one at a time and 2 "
           "writers. The ratio rows divide medians.\n"]
    for c in _configs(peer, "same_hashes"):
        out.append(f"**{c['size']}: {c['keys']:,} keys, p = {c['p']}, the "
                   f"same precomputed 64-bit hashes for all (hash cost "
                   f"excluded), batches of {c['batch']}; {c['rounds']} "
                   f"rounds; FPR over {c['absent_keys']:,} absent keys**\n")
        out.append(_ns_table(c, SAME_OPS))
        out.append("")
    for c in _configs(peer, "hash_included"):
        out.append(f"**{c['size']}: {c['keys']:,} keys, p = {c['p']}, one "
                   f"key at a time, hash included** (SipHash-2-4 of a "
                   f"16-byte key by the core's bloom_core_hash(), for every "
                   f"variant; {c['rounds']} rounds; FPR over "
                   f"{c['absent_keys']:,} absent keys)\n")
        out.append(_ns_table(c, HASH_OPS))
        out.append("")
    return "\n".join(out)


def hash_markdown(h):
    lens = ["4", "16", "64"]
    rows = [[x["name"]] + [f"{x['ns_per_key'][n]['median']:.1f} "
                           f"({x['ns_per_key'][n]['min']:.1f})" for n in lens]
            for x in h["hashes"]]
    return "\n".join([
        f"ns per key by key length, userspace, median of {h['rounds']} "
        f"rounds of {h['count']:,} keys (minimum in brackets), the "
        "functions taking turns (bench-hash, hashes.c).\n",
        md_table(["keyed hash", "4 bytes", "16 bytes", "64 bytes"], rows)])
