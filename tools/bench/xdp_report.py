# SPDX-License-Identifier: GPL-2.0
"""The XDP part of the benchmark report (section 9 of latest.md): the
bloom kfunc against the BPF Bloom filter map and a hash map, from
xdp_bench.sh's JSON. Targets X1 (cost per packet above xdp_pass, <= 1.0x
the BPF Bloom map's, present and absent) and X2 (memory <= the BPF Bloom
map's); natively (bench-bpfmap, "native"), X3: bloom's blocked address
lookup <= 1.0x the map model's for listed addresses, <= 1.5x for unlisted
ones; with the figures of another build's module from the same VM
("before": XDP_BEFORE_KO), X4: each kfunc's cost minus the map's at most
half of what it was before, on the minimum of the rounds (the round other
VMs on the host disturbed least: the two modules run minutes apart)."""

from mdtable import md_table

BPF_MAP = "bpf_bloom_map"
PASS = "xdp_pass"


def _v(d, name):
    return next(v for v in d["variants"] if v["name"] == name)


def _above(d, name, which, key="ns_median"):
    return _v(d, name)[which][key] - _v(d, PASS)[which][key]


def _kfuncs(d):
    return [v for v in d["variants"] if v.get("kfunc")]


NATIVE_MAP = "bpf_bloom_map_model"
NATIVE_OURS = "bloom_blocked"
X3_LIMIT = {"listed": 1.0, "unlisted": 1.5}


def _native_rows(n, key="ns_median"):
    """(set, order, which, ours, theirs) of bench-bpfmap's figures."""
    for st in n["sets"]:
        vs = {v["name"]: v for v in st["variants"]}
        for order in ("hot", "scattered"):
            if st["set"] == "big" and order == "hot":
                continue
            for which in ("listed", "unlisted"):
                yield (st, order, which,
                       vs[NATIVE_OURS][order][which][key],
                       vs[NATIVE_MAP][order][which][key])


X4_LIMIT = 0.5
# the keyed hash alone, natively: SipHash-1-3 of the fixed-size build
# against libsodium's SipHash-2-4, the hash every lookup made before
X5_LIMIT = {4: 0.5, 16: 0.7}
X5_OURS = "siphash13_fixed"
X5_BEFORE = "libsodium_siphash24"


def _hash_ns(n, name, size, key="ns_median"):
    return next(h[key] for h in n["keyed_hash"]
                if h["name"] == name and h["key_bytes"] == size)


def _over_map(d, name, which, key="ns_min"):
    """ns per packet the variant costs more than the BPF Bloom map."""
    return _above(d, name, which, key) - _above(d, BPF_MAP, which, key)


def check(d, target):
    """Adds X1, X2, X3 and X4 through target(tid, text, value, limit, ok,
    note)."""
    if d.get("skipped"):
        return
    native = d.get("native") or {"sets": []}
    for (st, order, which, ours, theirs), mins in zip(
            _native_rows(native), _native_rows(native, "ns_min")):
        r = ours / theirs
        mins = mins[3:]
        target("X3", f"native, {st['count']:,} addresses, {order}, "
               f"{which}: bloom's blocked lookup against the BPF Bloom "
               "map model's", r, X3_LIMIT[which], r <= X3_LIMIT[which],
               f"{ours:.1f} ns against {theirs:.1f} ns (medians; minima "
               f"{mins[0]:.1f} against {mins[1]:.1f}: "
               f"{mins[0] / mins[1]:.2f}x)")
    for size in (4, 16) if native.get("keyed_hash") else ():
        ours = _hash_ns(native, X5_OURS, size)
        before = _hash_ns(native, X5_BEFORE, size)
        r = ours / before
        target("X5", f"native, the keyed hash of a {size}-byte key: "
               "SipHash-1-3 (the core's fixed-size build) against "
               "libsodium's SipHash-2-4", r, X5_LIMIT[size],
               r <= X5_LIMIT[size],
               f"{ours:.2f} ns against {before:.2f} ns (medians)")
    for v in _kfuncs(d):
        for which in ("present", "absent"):
            ours = _above(d, v["name"], which)
            theirs = _above(d, BPF_MAP, which)
            r = ours / theirs if theirs > 0 else float("inf")
            target("X1", f"{v['name']}, {which} addresses: ns per packet "
                   "above xdp_pass against the BPF Bloom map's", r, 1.0,
                   r <= 1.0, f"{ours:.0f} ns against {theirs:.0f} ns")
        before = d.get("before")
        if before and any(b["name"] == v["name"] for b in before["variants"]):
            for which in ("present", "absent"):
                now = _over_map(d, v["name"], which)
                was = _over_map(before, v["name"], which)
                r = now / was if was > 0 else float("inf")
                target("X4", f"{v['name']}, {which} addresses: ns above "
                       "the BPF Bloom map's (minima), against the module "
                       "before (same VM)", r, X4_LIMIT, r <= X4_LIMIT,
                       f"{now:.0f} ns against {was:.0f} ns")
        if not _v(d, BPF_MAP)["memory_bytes"]:
            continue  # MemAvailable grew meanwhile: nothing measured
        r = v["memory_bytes"] / _v(d, BPF_MAP)["memory_bytes"]
        target("X2", f"{v['name']}: memory against the BPF Bloom map's",
               r, 1.0, r <= 1.0,
               f"{v['memory_bytes']:,} bytes against "
               f"{_v(d, BPF_MAP)['memory_bytes']:,}")


def _rows(d):
    rows = []
    for v in d["variants"]:
        row = [f"`{v['name']}`"]
        for which in ("present", "absent"):
            s = v[which]
            above = "" if v["name"] == PASS else \
                f" (+{_above(d, v['name'], which):.0f})"
            row.append(f"{s['ns_median']:.0f} ({s['ns_min']:.0f}){above}")
        row += [f"{v['present']['hit_rate']:.4f}",
                f"{v['absent']['hit_rate']:.2e}",
                f"{v['memory_bytes']:,}" if v["memory_bytes"] else "-"]
        rows.append(row)
    return rows


HEADER = ["variant", "present ns", "absent ns", "present hits",
          "absent hits (rate)", "memory bytes"]


def markdown(d):
    if d.get("skipped"):
        return f"_skipped: {d['skipped']}_"
    out = [f"{d['count']:,} IPv4 addresses listed; every run of an XDP "
           "program (BPF_PROG_TEST_RUN, "
           f"{d['repeat']:,} runs per sample, {d['rounds']} rounds, the "
           "variants taking turns) looks one address up, a different one "
           "each run, scattered over the set: present (listed) or absent. "
           "ns per run, median (min) of the rounds, and in brackets the "
           "cost above `xdp_pass`, which only makes the address. The Bloom "
           f"filters are set to one rate: the BPF Bloom map takes "
           f"{d['bpf_map_hashes']} hashes and rounds its bits up to a power "
           f"of two, which gives p = {d['fpp']:.3g}; `xdpb_standard` and "
           "`xdpb_blocked` are bloom filters created for that p and looked "
           "up with `bpf_bloom_xdp_lookup_addr()`; `kfunc_call_only` calls "
           "it with a key size of 0 (-EINVAL before any lookup: the call "
           "itself), `kfunc_no_filter` with an id no filter has (-ENOENT: "
           "the call and the id's lookup, without the filter's); "
           "`NAME_by_hold` looks the same filter up through a hold the "
           "program keeps in a map (`bpf_bloom_hold_lookup_addr()`: the "
           "map value's slot, no lookup of the id), `hold_empty_slot` "
           "through a slot that holds nothing (-ENOENT: the call and the "
           "slot's read). Memory: bloom's `memory_bytes`; "
           "for a map, what MemAvailable lost when it was created (Linux "
           "6.1's memlock is (key + value) x entries for both). QEMU TCG: "
           "only ratios mean anything.\n",
           md_table(HEADER, _rows(d))]
    if any(_by_hold(d)):
        out += ["", by_hold_markdown(d)]
    if d.get("load"):
        out += ["", "Host load (`/proc/loadavg`) before and after the VM: "
                f"{d['load'][0]}; {d['load'][1]}. Other VMs share these "
                "cores: compare figures within one run, as ratios."]
    if d.get("before"):
        out += ["", before_markdown(d)]
    if d.get("native"):
        out += ["", native_markdown(d["native"])]
    return "\n".join(out)


BY_HOLD = "_by_hold"


def _by_hold(d):
    """(by id, by hold) variant names of the filters with both rows."""
    names = {v["name"] for v in d["variants"]}
    for v in _kfuncs(d):
        if v["name"].endswith(BY_HOLD) and \
                v["name"][:-len(BY_HOLD)] in names:
            yield v["name"][:-len(BY_HOLD)], v["name"]


def by_hold_markdown(d):
    """The kfunc by hold beside the kfunc by id, same run."""
    rows = []
    for by_id, by_hold in _by_hold(d):
        row = [f"`{by_id}`"]
        for which in ("present", "absent"):
            for key in ("ns_median", "ns_min"):
                i = _above(d, by_id, which, key)
                h = _above(d, by_hold, which, key)
                row.append(f"{i:.0f} -> {h:.0f} "
                           f"({h / i:.2f}x)" if i > 0 else f"{i:.0f} -> {h:.0f}")
        rows.append(row)
    return "\n".join([
        "The kfunc by hold beside the kfunc by id (same run, same filter): "
        "ns per packet above `xdp_pass`, by id -> by hold (ratio):\n",
        md_table(["filter", "present (median)", "present (min)",
                  "absent (median)", "absent (min)"], rows)])


def before_markdown(d):
    """The same programs with the module of the build before (same VM)."""
    b = d["before"]
    rows = []
    for v in _kfuncs(d):
        if not any(x["name"] == v["name"] for x in b["variants"]):
            continue
        rows.append([f"`{v['name']}`"] + [
            f"{_over_map(b, v['name'], w):.0f} -> "
            f"{_over_map(d, v['name'], w):.0f}"
            for w in ("present", "absent")])
    for name in ("kfunc_call_only", "kfunc_no_filter"):
        rows.append([f"`{name}` (above `xdp_pass`)"] + [
            f"{_above(b, name, w, 'ns_min'):.0f} -> "
            f"{_above(d, name, w, 'ns_min'):.0f}"
            for w in ("present", "absent")])
    return "\n".join([
        "Before and after, in the same VM: the same programs with the "
        "module of the build the change starts from (`XDP_BEFORE_KO`), "
        f"in {d.get('turns', 1)} turns of each module, alternating, this "
        "tree's first; a variant's median is the median of its turns' "
        "medians, its min the least of their minima:\n",
        md_table(HEADER, _rows(b)), "",
        "The kfunc's cost minus the BPF Bloom map's (each from its own "
        "module's run; the minima of the rounds, which other VMs on the "
        "host disturbed least), ns per packet, before -> after:\n",
        md_table(["variant", "present", "absent"], rows)])


def native_markdown(n):
    """bench-bpfmap's table: ns per lookup, natively."""
    rows = []
    for st in n["sets"]:
        for v in st["variants"]:
            row = [f"{st['count']:,}", f"`{v['name']}`",
                   f"{v['memory_bytes']:,}"]
            for order in ("hot", "scattered"):
                for which in ("listed", "unlisted"):
                    s = v[order][which]
                    row.append(f"{s['ns_median']:.1f} ({s['ns_min']:.1f})")
            row.append(f"{v['scattered']['unlisted']['hit_rate']:.2e}")
            rows.append(row)
    hashes = [[f"{h['key_bytes']}", f"`{h['name']}`",
               f"{h['ns_median']:.2f} ({h['ns_min']:.2f})"]
              for h in n.get("keyed_hash", [])]
    return "\n".join([
        "Natively (this host, `bench-bpfmap`): bloom's address lookup "
        "(the core's `bloom_nb_query()`: SipHash of the address and the "
        "filter's test, what the kfunc runs) against a model of the BPF "
        "Bloom map's lookup in Linux 6.1 (jhash2 of the 4-byte value with "
        f"the seed plus i for each of {n['hashes']} hashes, a power-of-two "
        "bit array, stopping at the first clear bit), the filters sized "
        "for the map's rate, the same addresses. hot: "
        f"{n['hot']:,} addresses again and again; scattered: drawn at "
        f"random from the set. ns per lookup, median (min) of "
        f"{n['rounds']} rounds of {n['sample']:,} lookups, the variants "
        "taking turns.\n",
        md_table(["addresses", "variant", "memory bytes", "hot listed",
                  "hot unlisted", "scattered listed", "scattered unlisted",
                  "unlisted hit rate"], rows)] + ([
        "",
        "The keyed hash alone, ns per key, median (min): the core's "
        "fixed-size build (`_fixed`, what the address lookups inline) and "
        "its any-length one (`_any`) of both schemes, against libsodium's "
        "SipHash-2-4, the hash of every lookup before filters chose their "
        "own.\n",
        md_table(["key bytes", "hash", "ns"], hashes)] if hashes else []))
