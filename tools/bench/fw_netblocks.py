#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The netblocks of the firewall benchmark's feeds (run.sh, part fw).

    fw_netblocks.py DIR COUNT L...

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


def netblocks(count, nlengths, rng):
    lengths = list(range(32 - nlengths, 32))
    blocks = set()
    for i, length in enumerate(lengths):
        # the range holds 2^(length - 1) blocks of this length
        want = min((count - len(blocks)) // (len(lengths) - i),
                   2 ** (length - 1) // 2)
        have = set()
        while len(have) < want:
            net = (0x80000000 | rng.getrandbits(31)) >> (32 - length)
            have.add((net << (32 - length), length))
        blocks |= have
    return sorted(blocks)


def main():
    out, count, lens = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    for n in lens:
        rng = random.Random(20261126 + int(n))
        path = os.path.join(out, f"netblocks_{n}.txt")
        with open(path, "w") as f:
            for addr, length in netblocks(count, int(n), rng):
                f.write(f"{ipaddress.IPv4Address(addr)}/{length}\n")


if __name__ == "__main__":
    main()
