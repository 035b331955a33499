#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The netblocks of the firewall benchmark's feeds (run.sh, parts fw, cpe).

    fw_netblocks.py DIR COUNT L...
    fw_netblocks.py --geo DIR COUNT

The second form writes DIR/netblocks_geo.txt: COUNT netblocks in the
shape of a tor-geoipdb country (Debian 12's tor-geoipdb, the United
States' IPv4 ranges as CIDR blocks: 26 lengths, /7 to /32, the share of
each length below), at random in 128.0.0.0/1 as the first form's.

writes DIR/netblocks_L.txt for each L: COUNT distinct IPv4 netblocks
(A.B.C.D/LEN, host bits clear) over the L lengths 32 - L .. 31, about
COUNT / L of each (fewer of a length with fewer blocks in the range), all
inside 128.0.0.0/1: fw_send's traffic comes from 16.0.0.0 up (listed) and
100.64.0.0/10 (unlisted), so no packet's source is in a netblock, and an
unlisted source meets every length, the lookup's worst case. A fixed seed:
every run lists the same blocks.
"""
import ipaddress
import os
import random
import sys


def sample(length, want, rng):
    """want distinct blocks of length in 128.0.0.0/1, at random."""
    have = set()
    while len(have) < want:
        net = (0x80000000 | rng.getrandbits(31)) >> (32 - length)
        have.add((net << (32 - length), length))
    return have


def netblocks(count, nlengths, rng):
    lengths = list(range(32 - nlengths, 32))
    blocks = set()
    for i, length in enumerate(lengths):
        # the range holds 2^(length - 1) blocks of this length
        want = min((count - len(blocks)) // (len(lengths) - i),
                   2 ** (length - 1) // 2)
        blocks |= sample(length, want, rng)
    return sorted(blocks)


# tor-geoipdb 0.4.9.11 (Debian 12), country US: blocks per length
GEO_US = {7: 3, 8: 9, 9: 9, 10: 28, 11: 54, 12: 140, 13: 255, 14: 616,
          15: 1391, 16: 2664, 17: 1513, 18: 2238, 19: 3189, 20: 4278,
          21: 5178, 22: 7883, 23: 9155, 24: 16948, 25: 1505, 26: 1767,
          27: 2161, 28: 2824, 29: 4527, 30: 1834, 31: 1557, 32: 3191}


def geo(count, rng):
    total = sum(GEO_US.values())
    blocks = set()
    for length, n in sorted(GEO_US.items()):
        # at least one of each length: the shape's lengths all there
        want = max(1, round(count * n / total))
        blocks |= sample(length, min(want, 2 ** (length - 1) // 2), rng)
    return sorted(blocks)


def main():
    if sys.argv[1] == "--geo":
        out, count = sys.argv[2], int(sys.argv[3])
        rng = random.Random(20261127)
        with open(os.path.join(out, "netblocks_geo.txt"), "w") as f:
            for addr, length in geo(count, rng):
                f.write(f"{ipaddress.IPv4Address(addr)}/{length}\n"
                        if length < 32 else
                        f"{ipaddress.IPv4Address(addr)}\n")
        return
    out, count, lens = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    for n in lens:
        rng = random.Random(20261126 + int(n))
        path = os.path.join(out, f"netblocks_{n}.txt")
        with open(path, "w") as f:
            for addr, length in netblocks(count, int(n), rng):
                f.write(f"{ipaddress.IPv4Address(addr)}/{length}\n")


if __name__ == "__main__":
    main()
