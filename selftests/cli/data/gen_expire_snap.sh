#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Writes expire.snap, the fixed snapshot of an expiring filter that
# test_snapshot.sh restores and the snapshot fuzzer starts from
# (tools/fuzz/run.sh). Run once, as root in the VM with bloom.ko loaded;
# the guest's writes stay in the guest, so the file comes out as base64:
#   selftests/vm/run.sh -- selftests/cli/data/gen_expire_snap.sh |
#       base64 -d >selftests/cli/data/expire.snap
# A standard filter for 200 keys per 90 s timeout at p = 0.01, G = 4 (a
# rotation every 30 s), hash key 00112233445566778899aabbccddeeff; keys
# exp-a-1..10, then 33 s later exp-b-1..10, then 33 s later exp-c-1..10,
# each set in a generation of its own, and the save right after: about
# 70 s. The file records each generation's key count, age and keep time.
set -eu

name=expfixed
bloomctl destroy $name 2>/dev/null || true
bloomctl create $name --capacity 200 --fpp 0.01 --timeout 90s --generations 4 \
	--hash-key 00112233445566778899aabbccddeeff
for set in a b c; do
	[ $set = a ] || sleep 33
	for i in $(seq 1 10); do echo "exp-$set-$i"; done | bloomctl add $name -f - >/dev/null
done
bloomctl save $name - | base64
bloomctl info $name >&2
bloomctl destroy $name
