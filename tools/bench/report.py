#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turns the raw JSON of the benchmark parts into results/latest.json,
results/latest.md and the PNG plots (gnuplot): one report for all parts.
With --merge the parts not run this time stay as the last run of each left
them, each part with its own date, command and machine; the headline counts
the targets of the parts that ran and names those that did not. --render
rewrites latest.md from latest.json alone (nothing is run).

Each part has its module, which checks its targets and writes its
section: native_report.py, vm_report.py, cli_report.py, scale_report.py,
snap_report.py, fw_report.py, peer_report.py (the peer and hash parts),
xdp_report.py, expire_report.py, map_report.py, bans_report.py,
cpe_report.py, clients_report.py. The
targets are collected here into one list, so the Markdown, the JSON and
the lead's summary can never disagree about what passed.
"""
import argparse
import json
import os
import platform
import subprocess

from mdtable import md_table, md_targets
import cli_report
import cpe_report
import expire_report
import fw_report
import native_report
import peer_report
import scale_report
import snap_report
import vm_report
import xdp_report
import map_report
import bans_report
import clients_report


# ----------------------------------------------------------------------------
# Machine


def read_first(path, prefix):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(prefix):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def machine(top):
    def sh(*cmd):
        try:
            return subprocess.run(cmd, cwd=top, capture_output=True,
                                  text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return "unknown"
    thp = "unknown"
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            thp = f.read().strip()
    except OSError:
        pass
    commit = sh("git", "rev-parse", "--short", "HEAD")
    if sh("git", "status", "--porcelain", "--untracked-files=no"):
        commit += " (with uncommitted changes)"
    return {
        "cpu": read_first("/proc/cpuinfo", "model name"),
        "cores": os.cpu_count(),
        "kernel": platform.release(),
        "memory": read_first("/proc/meminfo", "MemTotal"),
        "thp": thp,
        "commit": commit,
        "compiler": sh("cc", "--version").splitlines()[0]
        if sh("cc", "--version") != "unknown" else "unknown",
    }


# ----------------------------------------------------------------------------
# Targets


def verdict(ok):
    return "PASS" if ok else "MISS"


def target(results, tid, text, value, limit, ok, note=""):
    results.append({"id": tid, "target": text, "value": value,
                    "limit": limit, "status": verdict(ok), "note": note})


def load(raw, part):
    path = os.path.join(raw, f"{part}.json")
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f), None
    err = os.path.join(raw, f"{part}.err")
    if os.path.exists(err):
        with open(err) as f:
            return None, f.read()
    return None, None


PARTS = ["native", "vm", "cli", "scale", "snap", "fw", "peer", "hash",
         "xdp", "expire", "map", "bans", "cpe", "clients"]


def previous_report(out):
    """The data and the per-part runs of OUT/latest.json, or empty dicts.
    A report written before parts carried their own run ("parts" missing)
    gives every part it holds the report's date, command and machine."""
    path = os.path.join(out, "latest.json")
    if not os.path.exists(path):
        return {}, {}
    with open(path) as f:
        doc = json.load(f)
    data = {p: doc.get(p) for p in PARTS}
    runs = doc.get("parts")
    if runs is None:
        runs = {p: {"status": "ran", "date": doc["date"],
                    "command": doc["command"], "machine": doc["machine"]}
                for p in PARTS if data[p]}
    return data, runs


def check_all(data):
    """Every target of the parts that have data, each naming its part."""
    results = []
    checks = {"native": native_report.check, "vm": vm_report.check,
              "cli": cli_report.check, "scale": scale_report.check,
              "fw": fw_report.check, "peer": peer_report.check,
              "xdp": xdp_report.check, "expire": expire_report.check,
              "map": map_report.check, "bans": bans_report.check,
              "cpe": cpe_report.check, "clients": clients_report.check}
    for p in PARTS:
        if data.get(p) and p in checks:
            part = []
            checks[p](data[p], lambda *t, part=part: target(part, *t))
            for t in part:
                t["part"] = p
            results += part
    return results


def machine_text(m):
    if not m:
        return "not recorded"
    return f"{m['cpu']}, {m['cores']} cores, {m['memory']} memory, " \
        f"kernel {m['kernel']}"


def md_headline(results, runs):
    """The parts table and the target count: only parts that ran count,
    and the parts not run (or failed, or skipped) are named."""
    def status(s):
        return [p for p in PARTS if runs.get(p, {}).get("status") == s]
    ran, failed, skipped = status("ran"), status("failed"), status("skipped")
    missing = [p for p in PARTS if p not in runs]
    rows = []
    for n, p in enumerate(PARTS, 1):
        r = runs.get(p)
        mine = [t for t in results if t.get("part") == p]
        npass = sum(t["status"] == "PASS" for t in mine)
        if not r:
            rows.append([f"{n}. {p}", "**not run**", "-", "-", "-", "-"])
            continue
        m = r.get("machine") or {}
        rows.append([f"{n}. {p}", r["status"] if r["status"] == "ran"
                     else f"**{r['status']}**", r["date"] or "not recorded",
                     m.get("commit", "not recorded"), machine_text(m),
                     f"{npass} PASS, {len(mine) - npass} MISS" if mine
                     else "-"])
    npass = sum(t["status"] == "PASS" for t in results)
    head = (f"- targets: **{npass} PASS, {len(results) - npass} MISS** of "
            f"{len(results)} checked, in the parts that ran "
            f"({', '.join(ran) or 'none'})")
    if missing or failed or skipped:
        head += "; " + "; ".join(
            f"**{word}: {', '.join(ps)}**" for word, ps in (
                ("not run", missing), ("failed", failed),
                ("skipped", skipped)) if ps) + " (no targets counted for them)"
    return [md_table(["part", "run", "date", "commit", "machine",
                      "targets"], rows), "", head]


def md_run(r):
    """Where a part's figures come from."""
    m = r.get("machine") or {}
    words = [f"Run {r['date']}" if r["date"] else "Run date not recorded",
             f"`{r['command']}`", f"commit {m.get('commit', 'not recorded')}",
             f"machine: {machine_text(m)}"]
    if m.get("compiler"):
        words += [f"{m['compiler']}, -O2",
                  f"transparent huge pages: {m['thp']}"]
    note = f" {r['note']}." if r.get("note") else ""
    return f"_{'; '.join(words)}.{note}_\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", help="the raw JSON of the parts run")
    ap.add_argument("--out", required=True)
    ap.add_argument("--started")
    ap.add_argument("--command")
    ap.add_argument("--parts", default=" ".join(PARTS))
    ap.add_argument("--merge", action="store_true",
                    help="keep the parts not run this time from "
                    "OUT/latest.json, each with the run it comes from")
    ap.add_argument("--render", action="store_true",
                    help="run nothing: rewrite OUT/latest.md and "
                    "latest.json from OUT/latest.json (plots kept)")
    a = ap.parse_args()
    if not a.render and not (a.raw and a.started and a.command):
        ap.error("--raw, --started and --command are needed without "
                 "--render")

    top = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
    os.makedirs(a.out, exist_ok=True)
    prev_data, prev_runs = previous_report(a.out) \
        if a.render or a.merge else ({}, {})
    data, runs, errs = {}, {}, {}
    run_now = [] if a.render else a.parts.split()
    m = machine(top) if run_now else None
    for p in PARTS:
        if p in run_now:
            data[p], errs[p] = load(a.raw, p)
            runs[p] = {"status": "ran" if data[p] else "failed",
                       "date": a.started, "command": a.command,
                       "machine": m}
            if not data[p]:
                runs[p]["error"] = errs[p] or "no output"
            elif data[p].get("skipped"):
                # peer without Boost.Bloom: replaces the section, says why
                runs[p]["status"] = "skipped"
        elif p in prev_runs:
            data[p], runs[p] = prev_data.get(p), prev_runs[p]
            errs[p] = runs[p].get("error")
        else:
            data[p], errs[p] = None, None
    (native, vm, cli, scale, snap, fw, peer, hashes, xdp, expire, mapped,
     bans, cpe, clients) = (data[p] for p in PARTS)
    results = check_all(data)

    # Plots are written next to latest.md and named by content: made for
    # the parts run now, kept (if there) for the others.
    work = os.path.join(a.raw or a.out, "..", "plot") if run_now else None
    if work:
        os.makedirs(work, exist_ok=True)

    def plot(part, name, fn):
        path = os.path.abspath(os.path.join(a.out, name))
        if not data[part]:
            return None
        if part in run_now:
            return name if fn(path, work) else None
        return name if os.path.exists(path) else None

    native_pngs = [(p, n) for p, n in (
        (p, plot("native", f"native_p{p}.png",
                 lambda path, w, p=p: native_report.plot(native, p, path, w)))
        for p in (0.01, 0.001)) if n]
    vm_png = plot("vm", "vm_batch.png",
                  lambda path, w: vm_report.plot(vm, path, w))
    cli_png = plot("cli", "cli.png", lambda path, w: cli_report.plot(cli, path, w))

    doc = {"parts": runs, "targets": results, **data}
    with open(os.path.join(a.out, "latest.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")

    md = ["# bloom benchmarks\n",
          "One report for the fourteen parts of `make bench` (at the top of "
          "the repository). A part run alone (`make -C tools/bench run "
          "PARTS=\"fw\"`, `make -C tools/bench fw`, `scale`, `peer` or "
          "`hash`) replaces its own section and keeps the others: each part "
          "says the run it comes from. The machine is shared (other jobs "
          "ran at the same time): compare ratios within one part's run, "
          "not absolute times across runs.\n"]
    md += md_headline(results, runs)
    if native:
        md.append(f"- L3 cache reported (native): "
                  f"{native.get('l3_bytes', 0) / 2**20:.0f} MiB")
    md.append("")
    for p, title, body in (
            ("native", "1. Native: the core in userspace",
             lambda: native_report.markdown(native, results, native_pngs)),
            ("vm", "2. In the VM: /dev/bloom, the core in the guest, the "
             "BPF map", lambda: vm_report.markdown(vm, results, vm_png)),
            ("cli", "3. CLI: bloomctl against DCSO bloom",
             lambda: cli_report.markdown(cli, results, cli_png)),
            ("scale", "4. Scalable filters: memory, rate, query cost per "
             "stage", lambda: "\n".join([
                 scale_report.markdown(scale), "", "### Targets\n",
                 md_targets(results, {"S1", "S2", "S3"})])),
            ("snap", "5. Snapshots: save, restore, build",
             lambda: snap_report.markdown(snap)),
            ("fw", "6. Firewall: iptables -m bloom against ipset",
             lambda: fw_report.markdown(fw, results)),
            ("peer", "7. Peer: the blocked filter against Boost.Bloom",
             lambda: "\n".join([
                 peer_report.markdown(peer), "", "### Targets\n",
                 md_targets(results, {"P1", "P2", "P3", "P4", "P5"})])),
            ("hash", "8. The keyed hash",
             lambda: peer_report.hash_markdown(hashes)),
            ("xdp", "9. XDP: the bloom kfunc against BPF maps",
             lambda: "\n".join([
                 xdp_report.markdown(xdp), "", "### Targets\n",
                 md_targets(results, {"X1", "X2", "X3", "X4", "X5"})])),
            ("expire", "10. Expiring filters: against ipset timeout; a "
             "rotation", lambda: expire_report.markdown(expire, results)),
            ("map", "11. The read-only mapping: one key at memory speed",
             lambda: "\n".join([
                 map_report.markdown(mapped), "", "### Targets\n",
                 md_targets(results, {"M1", "M2", "M3"})])),
            ("bans", "12. Bans: keys with their own timeouts against ipset "
             "timeout", lambda: bans_report.markdown(bans, results)),
            ("cpe", "13. Prefix expansion: a country's netblocks at a few "
             "lengths", lambda: cpe_report.markdown(cpe, results)),
            ("clients", "14. Clients at scale: CrowdSec, fail2ban, sshguard",
             lambda: clients_report.markdown(clients, results))):
        md.append(f"## {title}\n")
        if p in runs:
            md.append(md_run(runs[p]))
        if data[p]:
            md.append(body())
        elif errs[p]:
            md.append("**FAILED** in that run; the end of its output:\n\n```\n"
                      + errs[p].strip() + "\n```")
        else:
            md.append("_not run_")
        md.append("")
    with open(os.path.join(a.out, "latest.md"), "w") as f:
        f.write("\n".join(md))


if __name__ == "__main__":
    main()
