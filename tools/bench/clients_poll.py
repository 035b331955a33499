# SPDX-License-Identifier: GPL-2.0
"""The clients part's membership poll, run INSIDE the VM by clients_bench.sh:
how long a ban tool takes from its start until every ban it was given is
enforced, read from the kernel's own sets.

  clients_poll.py EXPECTED SINCE TIMEOUT PID KIND ARG...

EXPECTED: one ban a line, "VALUE EXPIRY": an IPv4 address or a netblock
(A.B.C.D/L), and when it ends (seconds since the epoch; 0: never). A ban
counts only while it has more than MARGIN seconds to live, so that bans
which end during the run (CrowdSec's from 1 minute) are neither waited for
nor counted as lost. SINCE: the client's start (seconds since the epoch); PID: the client's
process, whose end ends the polls (it cannot enforce more).
KIND ARG...: where the bans are held:
  bloom FILTER             bloomctl test FILTER --ipv4 --absent -f
  ipset SET                ipset list SET (its members)
  nft FAMILY TABLE SET     nft -j list set FAMILY TABLE SET (its elements)
Polls (a pause of INTERVAL s, or PACE of the time so far, between the end
of one and the start of the next) until every live ban is held, TIMEOUT s have passed since SINCE,
PID has ended, or no ban was added for STALL s (or three pauses) since
one was (a client that will enforce no more: what it refused is in its
log);
prints JSON: done_s (the end of the first poll that found them all, from
SINCE; null if none did), the time at the last poll's end and at the
end of the poll that first saw the count held at the end, the polls, the last poll's duration (the
resolution of done_s), the bans expected and held at the last poll (and how many of those
missing are netblocks), and
whether the client had ended or stalled.
"""
import ipaddress
import json
import os
import subprocess
import sys
import tempfile
import time

MARGIN = 30
# the pause between polls: INTERVAL s, or PACE of the time so far when
# longer, so that an hour's run is not slowed by polls that list a whole
# set every second (the figures' resolution stays within PACE)
INTERVAL = 1.0
PACE = 0.02
STALL = 120


def norm(v):
    """A ban as one comparable string: an address, or a network/len."""
    n = ipaddress.ip_network(v, strict=False)
    return str(n.network_address) if n.prefixlen == n.max_prefixlen \
        else str(n)


def held_bloom(name, live):
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
        f.write("".join(v + "\n" for v in live))
        f.flush()
        r = subprocess.run(["bloomctl", "test", name, "--ipv4", "--absent",
                            "-f", f.name], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        return set()	# not made yet (bloomctl: no filter named ...)
    absent = set(r.stdout.split())
    return {v for v in live if v not in absent}


def held_ipset(name, live):
    r = subprocess.run(["ipset", "list", name], capture_output=True,
                       text=True)
    if r.returncode:
        return set()	# not made yet
    members = r.stdout.split("Members:\n", 1)[-1].splitlines()
    return {norm(m.split()[0]) for m in members if m.strip()} & live


def nft_values(e):
    """The bans an element of nft's JSON stands for."""
    if isinstance(e, dict) and "elem" in e:
        return nft_values(e["elem"]["val"])
    if isinstance(e, dict) and "prefix" in e:
        return [norm(f"{e['prefix']['addr']}/{e['prefix']['len']}")]
    if isinstance(e, dict) and "range" in e:
        lo, hi = (ipaddress.ip_address(a) for a in e["range"])
        return [norm(str(n)) for n in
                ipaddress.summarize_address_range(lo, hi)] + \
            ([str(ipaddress.ip_address(a)) for a in range(int(lo), int(hi) + 1)]
             if int(hi) - int(lo) < 256 else [])
    return [norm(e)]


def held_nft(family, table, name, live):
    r = subprocess.run(["nft", "-j", "list", "set", family, table, name],
                       capture_output=True, text=True)
    if r.returncode:
        return set()	# not made yet
    held = set()
    for obj in json.loads(r.stdout)["nftables"]:
        for e in obj.get("set", {}).get("elem", []):
            held.update(nft_values(e))
    return held & live


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie: ended, not yet reaped by the script that started it
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def main():
    expected, since, timeout, pid, kind = sys.argv[1:6]
    args = sys.argv[6:]
    since, timeout = float(since), float(timeout)
    bans = []
    with open(expected) as f:
        for line in f:
            v, end = line.split()
            bans.append((norm(v), float(end)))
    held_by = {"bloom": held_bloom, "ipset": held_ipset, "nft": held_nft}[kind]
    done = None
    polls = 0
    ended = stalled = False
    last, changed = 0, None
    while True:
        ended = not alive(int(pid))
        t0 = time.time()
        live = {v for v, end in bans if not end or end > t0 + MARGIN}
        held = held_by(*args, live)
        t1 = time.time()
        polls += 1
        if len(held) == len(live) and done is None:
            done = t1 - since
        if len(held) != last:
            last, changed = len(held), t1
        pause = max(INTERVAL, PACE * (t1 - since))
        stalled = changed is not None and \
            t1 - changed > max(STALL, 3 * pause)
        if done is not None or t1 - since > timeout or ended or stalled:
            break
        time.sleep(pause)
    missing = sorted(live - held)
    print(json.dumps({"done_s": None if done is None else round(done, 3),
                      "elapsed_s": round(t1 - since, 3),
                      "last_change_s": None if changed is None
                      else round(changed - since, 3),
                      "polls": polls, "poll_s": round(t1 - t0, 3),
                      "expected": len(live), "held": len(held),
                      "missing_sample": missing[:5],
                      "missing_netblocks": sum("/" in v for v in missing),
                      "client_ended": ended, "stalled": stalled}))


if __name__ == "__main__":
    main()
