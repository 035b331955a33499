# SPDX-License-Identifier: GPL-2.0
"""The clients part's bans, for the ban tools as each takes them at scale.

  clients_data.py gen DIR DECISIONS BANS BLACKLIST   (run.sh, on the host)
  clients_data.py f2b-db DB JAIL BANTIME FILE        (clients_bench.sh, in the VM)

gen writes into DIR, addresses of one range per client, never shared:
  cs_ip.csv, cs_range.csv  DECISIONS CrowdSec decisions for
                           "cscli decisions import" (CSV: duration, scope,
                           value, type, reason): nine in ten addresses from
                           16.0.0.0, one in ten /24 ranges from 48.0.0.0, each
                           lasting 1 minute to 30 days (uniform), the ranges
                           in a file of their own (cscli takes the scope of
                           a whole import from --scope)
  f2b.txt                  BANS fail2ban bans, "ADDRESS BANTIME": from
                           24.0.0.0, each for 1 hour to 30 days (uniform)
  blacklist.db             BLACKLIST addresses from 32.0.0.0 in sshguard's
                           blacklist format (TIME|SERVICE|4|ADDRESS, service
                           100: sshd), as sshguard writes it
  sshguard.txt             the same addresses, one a line
f2b-db makes fail2ban's database DB with fail2ban's own schema (its
Fail2BanDb class) and puts FILE's bans in it for jail JAIL, banned now, as
fail2ban records a ban (tables bans and bips), for a start of fail2ban to
restore. Seeded: the same sizes give the same bans.
"""
import ipaddress
import json
import random
import sys
import time

DAY = 86400


def addr(base, i):
    return str(ipaddress.IPv4Address(int(ipaddress.IPv4Address(base)) + i))


def gen(d, decisions, bans, blacklist):
    rnd = random.Random(44)
    head = "duration,scope,value,type,reason\n"
    ips, ranges = [head], [head]
    for i in range(decisions):
        t = rnd.randint(60, 30 * DAY)
        if i % 10 == 9:
            ranges.append(f"{t}s,range,{addr('48.0.0.0', 256 * (i // 10))}/24,"
                          "ban,bench\n")
        else:
            ips.append(f"{t}s,ip,{addr('16.0.0.0', i)},ban,bench\n")
    open(f"{d}/cs_ip.csv", "w").write("".join(ips))
    open(f"{d}/cs_range.csv", "w").write("".join(ranges))
    open(f"{d}/f2b.txt", "w").write("".join(
        f"{addr('24.0.0.0', i)} {rnd.randint(3600, 30 * DAY)}\n"
        for i in range(bans)))
    now = int(time.time())
    a = [addr("32.0.0.0", i) for i in range(blacklist)]
    open(f"{d}/blacklist.db", "w").write("".join(
        f"{now - rnd.randint(0, 30 * DAY)}|100|4|{x}\n" for x in a))
    open(f"{d}/sshguard.txt", "w").write("".join(x + "\n" for x in a))


def f2b_db(path, jail, bantime, src):
    # fail2ban's own module makes the schema (as its server would)
    from fail2ban.server.database import Fail2BanDb
    db = Fail2BanDb(path)
    now = int(time.time())
    data = json.dumps({"matches": [], "failures": 1})
    rows = []
    for line in open(src):
        ip, t = line.split()
        rows.append((jail, ip, now, min(int(t), int(bantime)), 1, data))
    con = db._db
    con.execute("INSERT OR IGNORE INTO jails(name, enabled) VALUES(?, 1)",
                (jail,))
    con.executemany("INSERT INTO bans(jail, ip, timeofban, bantime, bancount,"
                    " data) VALUES(?, ?, ?, ?, ?, ?)", rows)
    con.executemany("INSERT OR REPLACE INTO bips(jail, ip, timeofban, "
                    "bantime, bancount, data) VALUES(?, ?, ?, ?, ?, ?)", rows)
    con.commit()
    con.close()


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2], *(int(x) for x in sys.argv[3:6]))
    elif sys.argv[1] == "f2b-db":
        f2b_db(*sys.argv[2:6])
    else:
        sys.exit(f"clients_data.py: unknown command {sys.argv[1]}")
