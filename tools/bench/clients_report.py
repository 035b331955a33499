# SPDX-License-Identifier: GPL-2.0
"""The clients part (clients_bench.sh's JSON: CrowdSec, fail2ban and
sshguard as Debian ships them, each with bloom's backend against the
backends their users run, in the test VM): targets CS1-CS3, FB1-FB2, SG1
and Markdown, for report.py's latest.md (section 14)."""
from mdtable import md_table, md_targets

CS_NAMES = {
    "bloom": "crowdsec-custom-bouncer + crowdsec-bloom-stdin (bloom)",
    "ipset": "crowdsec-firewall-bouncer, mode iptables (ipset hash:net)",
    "nftables": "crowdsec-firewall-bouncer, mode nftables",
}
FB_NAMES = {
    "bloom": "bloom (action.d/bloom.conf)",
    "iptables-ipset": "iptables-ipset (ipset hash:ip)",
    "nftables": "nftables (a set in table inet f2b-table)",
}
SG_NAMES = {
    "bloom": "sshg-fw-bloom",
    "nft-sets": "sshg-fw-nft-sets (as shipped)",
}


def ran(x):
    """A client's poll, or None when it was skipped or failed."""
    return x if x and "done_s" in x else None


def lost(p):
    return p["expected"] - p["held"]


def ended_how(p):
    if p["done_s"] is not None:
        return ""
    if p.get("client_ended"):
        return "the client ended"
    if p.get("stalled"):
        return "no ban added for 120 s: it enforces no more"
    return "not done when its time ran out"


def time_ratio(target, tid, text, ours, other, limit):
    """ours' time over other's: when other never enforced every ban, its
    time is more than the last poll's and the ratio at most ours over
    that; when ours never did, the target is missed."""
    if not (ran(ours) and ran(other)):
        return
    if ours["done_s"] is None:
        target(tid, text, None, limit, False,
               f"bloom's backend did not enforce every ban "
               f"({ended_how(ours)}: {lost(ours):,} of {ours['expected']:,} "
               "missing)")
        return
    if other["done_s"] is not None:
        r = ours["done_s"] / other["done_s"]
        target(tid, text, r, limit, r <= limit,
               f"{ours['done_s']:.1f} s against {other['done_s']:.1f} s")
        return
    r = ours["done_s"] / other["elapsed_s"]
    target(tid, text, r, limit, r <= limit,
           f"at most: {ours['done_s']:.1f} s against more than "
           f"{other['elapsed_s']:.1f} s ({ended_how(other)}, "
           f"{lost(other):,} of {other['expected']:,} never enforced)")


def check(c, target):
    """Adds CS1..CS3, FB1, FB2 and SG1 through target(tid, text, value,
    limit, ok, note)."""
    cs = c.get("crowdsec") or {}
    b = cs.get("bouncers", {})
    if b:
        n = f"{cs['decisions']:,} decisions"
        time_ratio(target, "CS1", f"CrowdSec, {n}: time from the bouncer's "
                   "start until every decision is enforced, bloom / "
                   "crowdsec-firewall-bouncer's ipset mode", b["bloom"],
                   b["ipset"], 0.5)
        ours, ipset = ran(b["bloom"]), ran(b["ipset"])
        # against a set that holds every decision: one cut short by
        # CLIENTS_WAIT holds a part of them, and its memory says nothing
        # of the whole set's (crowdsec_markdown() says so)
        if ours and ipset and ipset.get("memory_bytes") and \
                ipset["done_s"] is not None:
            r = ours["memory_bytes"] / ipset["memory_bytes"]
            target("CS2", f"CrowdSec, {n}: memory, bloom's filter "
                   "(memory_bytes) / the ipset set's (Size in memory)", r,
                   round(1 / 6, 4), r <= 1 / 6,
                   f"{ours['memory_bytes']:,} against "
                   f"{ipset['memory_bytes']:,} bytes")
        if ours:
            target("CS3", f"CrowdSec, {n}: decisions the local API held "
                   "(and still live) that bloom did not enforce at the end",
                   lost(ours), 0, lost(ours) == 0,
                   f"{ours['held']:,} of {ours['expected']:,} enforced")
    fb = (c.get("fail2ban") or {}).get("actions", {})
    if fb:
        n = f"{c['fail2ban']['bans']:,} bans"
        time_ratio(target, "FB1", f"fail2ban, a start with {n} in its "
                   "database: time until every ban is enforced again, "
                   "action bloom / nftables", fb["bloom"], fb["nftables"], 0.5)
        time_ratio(target, "FB2", "fail2ban, the same start: action bloom / "
                   "iptables-ipset", fb["bloom"], fb["iptables-ipset"], 1.0)
    sg = (c.get("sshguard") or {}).get("backends", {})
    if sg:
        time_ratio(target, "SG1", f"sshguard, a blacklist of "
                   f"{c['sshguard']['addresses']:,} addresses at its start: "
                   "time until every address is blocked, sshg-fw-bloom / "
                   "sshg-fw-nft-sets", sg["bloom"], sg["nft-sets"], 0.2)


def fmt_s(p):
    if p["done_s"] is not None:
        return f"{p['done_s']:.1f}"
    last = p.get("last_change_s")
    return f"> {p['elapsed_s']:.1f} ({ended_how(p)}" + (
        f"; its last ban held at {last:.1f} s)" if last is not None else ")")


def fmt_bytes(x):
    return "-" if x is None else f"{x:,}"


def client_rows(clients, names, extra=None):
    """A row per client: its time, what it enforced, and EXTRA's cells."""
    rows = []
    for name, p in clients.items():
        label = names.get(name, name)
        if not ran(p):
            why = (p or {}).get("skipped") or (p or {}).get("failed") or \
                "no result"
            rows.append([label, f"skipped: {why}"] + ["-"] * (
                3 + (len(extra(None)) if extra else 0)))
            continue
        nb = p.get("missing_netblocks")
        rows.append([label, fmt_s(p), f"{p['held']:,} of {p['expected']:,}",
                     f"{lost(p):,}" + (f" ({nb:,} of them ranges)" if nb
                                       else ""), f"{p['polls']} ({p['poll_s']:.2f} s)"] +
                    (extra(p) if extra else []))
    return rows


def section(title, x, body):
    """A client's subsection: body()'s lines, or why there are none."""
    head = [f"### {title}\n"]
    if x is None:
        return head + ["_Not run in this run (CLIENTS_SECTIONS)._\n"]
    if "skipped" in x:
        return head + [f"skipped: {x['skipped']}\n"]
    if "failed" in x:
        return head + [f"**failed**: {x['failed']}\n"]
    return head + body()


def clients_markdown(intro, head, clients, names, results, ids):
    """A tool's subsection: what was run, the clients' table, targets."""
    return [intro, md_table(head, client_rows(clients, names)), "",
            md_targets(results, ids), ""]


def crowdsec_markdown(cs, results, head):
    imp = cs["import_s"]
    out = []
    b = cs["bouncers"]
    streams = [x for x in b.values() if ran(x)]
    out += [
        f"**{cs['decisions']:,} decisions** ({cs['decisions'] - cs['ranges']:,} "
        f"addresses from 16.0.0.0 and {cs['ranges']:,} /24 ranges from "
        "48.0.0.0, each for 1 minute to 30 days, uniform) imported into "
        "crowdsec's local API (`crowdsec -no-cs`, Debian's configuration "
        "with its sqlite database in the VM) by `cscli decisions import` "
        f"({imp['addresses']:.1f} s for the addresses, {imp['ranges']:.1f} "
        "s for the ranges, `--scope Range`). Before each bouncer's start "
        "the local API's startup stream (`/v1/decisions/stream?startup="
        "true`, what a bouncer reads first) was read alone with curl: "
        "that is the share of the local API in each bouncer's time. "
        "bloom: crowdsec-custom-bouncer with `feed_via_stdin: true` "
        "running `crowdsec-bloom-stdin` (as `make install` sets it up; "
        "BLOOM_CROWDSEC_CAPACITY set to the decisions, the filter grows "
        "past it; p = 1e-6 as shipped); the others: "
        "crowdsec-firewall-bouncer in mode iptables (its ipset set, "
        "hash:net, and the iptables rule; `ipset_size`, the set's maxelem, "
        "twice the decisions: past it ipset refuses adds, \"Hash is full\", "
        "and its users are told to raise it) and in mode "
        "nftables. Memory: bloom's `memory_bytes` (all of the filter) and "
        "ipset's own \"Size in memory\", the figures the target compares; "
        "and for all three the kernel memory charged to the bouncer's own "
        "cgroup (cgroup v2 memory.stat \"kernel\"), which holds what its "
        "processes cost the kernel (stacks, page tables, sockets) and "
        "the sets charged to it: nftables' elements and bloom's filter "
        "are, ipset's hash is not (Linux 6.1; in the VM 50,000 entries "
        "that ipset counts as 1.86 MB raised its cgroup's figure by 0.29 "
        "MB, the process included). What the kernel gave bloom "
        "can exceed `memory_bytes`: `kvzalloc()` takes a table of up to "
        "4 MiB from kmalloc when it can, in a power of two of pages (a "
        "2.85 MB table took 4 MiB in the VM).\n",
        md_table(head + ["held by the local API (its stream alone, s)",
                         "memory of the set, bytes",
                         "kernel memory of its cgroup, bytes"],
                 client_rows(b, CS_NAMES, lambda p: ["-", "-", "-"]
                             if p is None else [
                                 f"{p['lapi_held']:,} ({p['stream_s']:.2f})",
                                 fmt_bytes(p.get("memory_bytes")),
                                 fmt_bytes(p.get("cgroup_kernel_bytes"))])),
        ""]
    if streams and streams[0]["lapi_held"] != cs["decisions"]:
        out.append(f"The local API held {streams[0]['lapi_held']:,} of the "
                   f"{cs['decisions']:,} decisions imported: the "
                   f"{cs['decisions'] - streams[0]['lapi_held']:,} others "
                   "were lost by CrowdSec itself (the import or its "
                   "database), before any bouncer.\n")
    ipset = ran(b.get("ipset"))
    if ipset and ipset["done_s"] is None:
        out.append(f"The ipset set held {ipset['held']:,} of the "
                   f"{ipset['expected']:,} decisions when the bouncer's time "
                   "ran out: its memory then is not the whole set's, so CS2 "
                   "(memory, bloom / ipset) is not measured in this run.\n")
    out.append(md_targets(results, ["CS1", "CS2", "CS3"]))
    out.append("")
    return out


def markdown(c, results):
    head = ["client", "time to enforce all, s", "enforced at the end",
            "lost", "polls (the last one's duration)"]
    load = [" ".join(x.split()[:3]) for x in c.get("load") or
            ["not recorded", "not recorded"]]
    out = [
        f"In the VM (kernel {c['guest_kernel']}, TCG: compare ratios within "
        "this run, not absolute times; the host's load average before and "
        f"after: {load[0]}; {load[-1]}). Each "
        "ban tool runs as Debian 12 packages it, started with its bans "
        "already there; the time runs from its start until every ban is "
        "held by the kernel's set it fills, polled from outside "
        "(`bloomctl test -f`, `ipset list`, `nft -j list set`; between "
        "polls a second, or 2% of the time so far when longer: a figure "
        "is late by up to that plus the last poll's duration). A ban that ends during the run (CrowdSec's "
        "from 1 minute) is neither waited for nor counted. Each tool's "
        "programs and libraries are read once before its first client "
        "starts (the guest reads the host's files over 9p: the first "
        "start would pay for it alone). \"Lost\": bans "
        "the client was given and had not enforced at the end. Each client "
        f"was given {c['wait_s']:.0f} s at most; one that stops adding "
        "for 120 s is taken as done adding. One run of each: no medians.\n"]

    cs = c.get("crowdsec")
    out += section("CrowdSec", cs, lambda: crowdsec_markdown(cs, results,
                                                             head))

    fb = c.get("fail2ban")
    out += section("fail2ban", fb, lambda: clients_markdown(
        f"**{fb['bans']:,} bans** (addresses from 24.0.0.0, each for 1 hour "
        "to 30 days, uniform) in the database of jail `bench` (bantime "
        "30 days, made with fail2ban's own schema as fail2ban records a "
        "ban), then `fail2ban-client -x -f start`: the time until every "
        "ban is enforced again, fail2ban re-applying each ban through "
        "the jail's action (action.d files as Debian's fail2ban 1.0.2 "
        "ships them, with their defaults; bloom's as `make install` "
        "puts it, capacity 100,000 and p = 1e-6).\n",
        head, fb["actions"], FB_NAMES, results, ["FB1", "FB2"]))
    sg = c.get("sshguard")
    out += section("sshguard", sg, lambda: clients_markdown(
        f"**{sg['addresses']:,} addresses** (from 32.0.0.0) in sshguard's "
        "blacklist file (BLACKLIST_FILE, its own format), then `sshguard` "
        "(its script and sshguard.conf, the backend changed): the time "
        "until every address is blocked, sshguard sending each to the "
        "backend as a block command (bloom's as `make install` puts "
        "it, capacity 100,000 and p = 1e-6).\n",
        head, sg["backends"], SG_NAMES, results, ["SG1"]))
    return "\n".join(out)
