#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Measures how long a network namespace's teardown takes with N filters in
# it: the time from "ip netns del" until memory_used is back where it was
# (bloom's pernet exit has destroyed every filter of the namespace), for
# each N given (default: 1 100 1000), three times each. Not a test: it
# prints figures. Runs as root in the VM with bloom.ko loaded:
#   selftests/vm/run.sh -- selftests/net/netns_teardown.sh [N...]

SYS=/sys/class/misc/bloom
NS=teardown$$
counts=${*:-1 100 1000}

# make N filters in the namespace, from one process (no fork per filter)
fill() {
	ip netns exec "$NS" python3 - "$1" <<'PY'
import fcntl, os, struct, sys
BLOOM_IOC_CREATE = (0xBF << 8) | 0x01
fd = os.open("/dev/bloom", os.O_RDWR)
for i in range(int(sys.argv[1])):
    name = ("f%d" % i).encode().ljust(32, b"\0")
    # struct bloom_create: size flags type hashes name[32] capacity bits
    # fpp_ppb bits_per_key_milli memory_bytes hash_key[16] like[32]
    # growth tightening_ppm reserved
    req = struct.pack("=IIII32sQQIIQ16s32sIIQ", 144, 0, 2, 0, name, 1000,
                      0, 10000000, 0, 0, b"\0" * 16, b"\0" * 32, 0, 0, 0)
    fcntl.ioctl(fd, BLOOM_IOC_CREATE, bytearray(req))
PY
}

now_ms() { date +%s%3N; }

for n in $counts; do
	for run in 1 2 3; do
		base=$(cat $SYS/memory_used)
		ip netns add "$NS" || exit 1
		fill "$n" || exit 1
		t0=$(now_ms)
		ip netns del "$NS"
		t1=$(now_ms)
		while [ "$(cat $SYS/memory_used)" != "$base" ]; do
			sleep 0.01
			[ $(($(now_ms) - t0)) -lt 300000 ] || { echo "N=$n: not freed in 300 s"; exit 1; }
		done
		t2=$(now_ms)
		echo "N=$n run $run: ip netns del $((t1 - t0)) ms, filters freed $((t2 - t0)) ms after it"
	done
done
