/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What the filter types share inside the core: the mixing function, the
 * standard filter's position derivation (the counting filter uses the same
 * positions, so one copy lives here), the result bitmap and the table of
 * per-type operations the API dispatches through. Not part of the API.
 */
#ifndef BLOOM_CORE_INTERNAL_H
#define BLOOM_CORE_INTERNAL_H

#include "core.h"

#define BLOOM_GOLDEN		0x9e3779b97f4a7c15ULL

/* splitmix64's output function (Steele, Lea, Flood 2014). */
static inline u64 bloom_mix64(u64 z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * The position scheme id, written into every snapshot (snapshot.h): it pins
 * the keyed hash (SipHash-2-4 of the key under the 128-bit key, hash.c) and
 * the way every type derives its positions from that hash and lays out its
 * storage: bloom_std_h2()/bloom_std_pos() below (standard, counting), the
 * blocked filter's block and in-block bits (bits.c), the counting
 * filter's nibbles (counting.c) and the d-left candidates (dleft.c). A
 * snapshot with another id is refused: its bits would answer for other
 * keys. Any change to any of those functions must bump this number; the
 * unit test test_snapshot pins each type's storage image for fixed keys to
 * the id, so a change without a bump fails it.
 */
#define BLOOM_SCHEME_ID		1

/*
 * Standard and counting positions: Kirsch-Mitzenmacher double hashing.
 * h1 = h, h2 = a 64-bit mix of h forced odd, g_i = h1 + i * h2 (mod 2^64),
 * and position i is the high 64 bits of g_i * m: a multiply-shift onto
 * [0, m). Callers step g by bloom_std_h2() and map it with bloom_std_pos().
 */
static inline u64 bloom_std_h2(u64 h)
{
	return bloom_mix64(h + BLOOM_GOLDEN) | 1;
}

static inline u64 bloom_std_pos(u64 g, u64 m)
{
	return mul_u64_u64_shr(g, m, 64);
}

static inline void bloom_prefetch_word(const void *p, bool write)
{
	if (write)
		prefetchw(p);
	else
		prefetch(p);
}

/* Bit @i of the LSB-first result bitmap; bytes are cleared as reached. */
static inline void bloom_result(u8 *results, u32 i, bool set)
{
	if (!results)
		return;
	if (!(i & 7))
		results[i >> 3] = 0;
	if (set)
		results[i >> 3] |= 1U << (i & 7);
}

/*
 * What a filter type provides; bloom_core_init() points the filter at its
 * type's table and the API calls through it. Each batch function is written
 * per type so that the per-key work inlines into its loop: the indirect call
 * is paid once per batch, not per key.
 *
 * @writers_exclusive: counters and cells need read-modify-write, so the
 *	caller serialises adds and deletes (bloom_core_writers_exclusive())
 * @delete, @delete_batch: NULL for the types that cannot delete
 * @in_use: bits set, non-zero counters or cells in use, by a scan
 */
struct bloom_core_ops {
	bool writers_exclusive;
	int (*add)(struct bloom_core *f, u64 h);
	bool (*delete)(struct bloom_core *f, u64 h);
	bool (*query)(const struct bloom_core *f, u64 h);
	void (*prefetch_hash)(const struct bloom_core *f, u64 h, bool write);
	int (*add_batch)(struct bloom_core *f, const u64 *hashes, u32 n,
			 u8 *results);
	u32 (*delete_batch)(struct bloom_core *f, const u64 *hashes, u32 n,
			    u8 *results);
	u32 (*query_batch)(const struct bloom_core *f, const u64 *hashes,
			   u32 n, u8 *results);
	u64 (*in_use)(const struct bloom_core *f);
};

/* bits.c */
extern const struct bloom_core_ops bloom_std_ops;
extern const struct bloom_core_ops bloom_blk_ops;

/* scale.c */
extern const struct bloom_core_ops bloom_scale_ops;

/* counting.c */
extern const struct bloom_core_ops bloom_cnt_ops;
u64 bloom_cnt_storage_bytes(const struct bloom_geometry *geo);

/* dleft.c */
extern const struct bloom_core_ops bloom_dl_ops;
int bloom_dl_size(u64 capacity, u32 fpp_ppb, struct bloom_geometry *geo);
int bloom_dl_geometry_check(const struct bloom_geometry *geo);
int bloom_dl_snap_check(struct bloom_core *f);

#endif /* BLOOM_CORE_INTERNAL_H */
