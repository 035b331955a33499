#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""snap_restamp.py IN OUT: IN, a snapshot of an expiring filter or of a
timed one, saved now: its save time (CLOCK_REALTIME ns) set to the wall
clock and the header checksum recomputed (Documentation/snapshot.rst), so
that a restore finds the generations' ages and keep times, or the time
each key had left, as the file records them instead of clearing what
expired since the real save. With --table (an expiring filter), prints
the generation table instead: "keys age_ms keep_ms" a line, oldest first,
then "timeout_ms G"."""

import ctypes
import struct
import sys
import time

GENERATIONS = 1 << 2
KEY_TIMEOUTS = 1 << 3


def main():
    table = sys.argv[1] == "--table"
    args = sys.argv[2:] if table else sys.argv[1:]
    data = bytearray(open(args[0], "rb").read())
    header_size, incompat = struct.unpack_from("<II", data, 12)
    if not incompat & (GENERATIONS | KEY_TIMEOUTS) or \
            (table and not incompat & GENERATIONS):
        sys.exit(f"{args[0]}: not the snapshot of an expiring or timed filter")
    gens, timeout_ms = struct.unpack_from("<I4xQ", data, 208)
    if table:
        for g in range(gens):
            print(*struct.unpack_from("<QQQ", data, 248 + 40 * g))
        print(timeout_ms, gens)
        return
    # saved_ns of an expiring filter; saved_wall_ns of a timed one
    struct.pack_into("<Q", data, 224 if incompat & GENERATIONS else 216,
                     time.time_ns())
    xxh = ctypes.CDLL("libxxhash.so.0")
    xxh.XXH64.restype = ctypes.c_ulonglong
    xxh.XXH64.argtypes = [ctypes.c_char_p, ctypes.c_size_t,
                          ctypes.c_ulonglong]
    head = bytes(data[:header_size - 8])
    struct.pack_into("<Q", data, header_size - 8,
                     xxh.XXH64(head, len(head), 0))
    open(args[1], "wb").write(data)


if __name__ == "__main__":
    main()
