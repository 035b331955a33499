// SPDX-License-Identifier: GPL-2.0
/*
 * Writes timed4-32.snap and timed4-64.snap, snapshots of timed filters in
 * the four-subtable table bloom wrote until the two-subtable one replaced
 * it, with that table's own code: build this against the filter core of
 * commit 88a2e9b^ (the last with the old table), e.g.
 *	git worktree add /tmp/old 88a2e9b^
 *	make -C /tmp/old/tools/core BUILD=/tmp/old/build
 *	cc -I/tmp/old/module/core -I/tmp/old/uapi gen_timed4_snap.c \
 *		/tmp/old/build/core/libbloomcore.a -lsodium -lm
 * and run it in this directory. Both filters: hash key
 * 00112233445566778899aabbccddeeff, SipHash-2-4, keys old-0 .. old-N-1
 * added at second 1000000 of the saving clock with timeouts by i mod 4:
 * none, 600 s, 1 day, 30 days; every tenth key deleted again 5 s later;
 * saved at second 1000010, at 2026-11-27 12:00 UTC by the wall clock.
 *	timed4-32.snap: 1000 keys, capacity 1000 at 1e-4: 32-bit cells,
 *		18 fingerprint bits, 42 buckets a subtable; 900 keys kept
 *	timed4-64.snap: 100 keys, capacity 100 at 1e-6: 64-bit cells
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "core.h"
#include "timed.h"
#include "snapshot.h"

#define T0		1000000ULL
#define SAVED_WALL_NS	(1795780800ULL * 1000000000ULL)

static const u8 hash_key[16] = {
	0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
	0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
};
static const u32 timeouts[4] = { 0, 600, 86400, 30 * 86400 };

static u64 key_hash(const struct bloom_core *f, u32 i)
{
	char key[32];

	snprintf(key, sizeof(key), "old-%u", i);
	return bloom_core_hash(f, key, strlen(key));
}

static int write_snap(const char *path, u64 capacity, u32 ppb, u32 n)
{
	static u8 hdr[BLOOM_IMAGE_HEADER_MAX];
	struct bloom_image_header h;
	struct bloom_geometry g;
	bloom_hash_key_t k;
	struct bloom_core f;
	void *mem;
	FILE *out;
	u64 bytes;
	u32 i;

	if (bloom_geometry_size(BLOOM_CORE_TIMED, capacity, ppb, &g))
		return 1;
	bloom_hash_key_from_bytes(&k, hash_key);
	bytes = bloom_core_storage_bytes(&g);
	mem = aligned_alloc(64, (bytes + 63) / 64 * 64);
	memset(mem, 0, bytes);
	bloom_core_init(&f, &g, &k, mem);
	bloom_timed_set_timeouts(&f, 0, 0);
	for (i = 0; i < n; i++)
		if (bloom_timed_add(&f, key_hash(&f, i), timeouts[i % 4], T0) < 0)
			return 1;
	for (i = 0; i < n; i += 10)
		bloom_timed_delete(&f, key_hash(&f, i), T0 + 5);
	bloom_image_header_init(&h, &f);
	strcpy(h.name, "old-timed");
	h.saved_s = T0 + 10;
	h.saved_wall_ns = SAVED_WALL_NS;
	h.stats.count = bloom_timed_count_live(&f, T0 + 10);
	h.payload_hash = bloom_image_payload_hash(&f);
	bloom_image_header_write(hdr, &h, &f);
	out = fopen(path, "wb");
	if (!out || fwrite(hdr, 1, h.header_size, out) != h.header_size ||
	    fwrite(mem, 1, bytes, out) != bytes || fclose(out))
		return 1;
	printf("%s: %u-bit cells, %u fingerprint bits, %llu buckets, %llu keys\n",
	       path, g.cell_bits, g.fingerprint_bits,
	       (unsigned long long)g.buckets, (unsigned long long)h.stats.count);
	free(mem);
	return 0;
}

int main(void)
{
	return write_snap("timed4-32.snap", 1000, 100000, 1000) ||
	       write_snap("timed4-64.snap", 100, 1000, 100);
}
