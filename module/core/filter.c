// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The filters: standard and blocked Bloom filters over one 64-bit hash.
 *
 * Standard: Kirsch-Mitzenmacher double hashing. h1 = h, h2 = a 64-bit mix
 * of h forced odd, g_i = h1 + i * h2 (mod 2^64), and bit i is the high 64
 * bits of the 128-bit product g_i * m: a multiply-shift onto [0, m).
 *
 * Blocked: the block is a multiply-shift of h onto [0, nblocks); the k bit
 * positions inside the 512-bit block are 9 independent bits each, taken 7 at
 * a time from successive splitmix64 outputs seeded with h. Double hashing
 * inside a block would make two keys with equal (h1, h2) mod 512 collide on
 * every bit, which measurably raises the false-positive rate.
 *
 * Adds test a bit first and set it atomically only when it is clear, so
 * concurrent adds lose nothing and a bit already set costs no write. Queries
 * use plain (READ_ONCE) loads and stop at the first clear bit.
 */
#include "core.h"

#define BLOOM_PREFETCH_AHEAD	8
#define BLOOM_BLOCK_SHIFT	9	/* log2(BLOOM_BLOCK_BITS) */
#define BLOOM_POS_PER_MIX	7	/* 9-bit positions in a 64-bit word */
#define BLOOM_GOLDEN		0x9e3779b97f4a7c15ULL

/* splitmix64's output function (Steele, Lea, Flood 2014). */
static inline u64 bloom_mix64(u64 z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline bool bloom_test(const unsigned long *words, u64 bit)
{
	return READ_ONCE(words[BIT_WORD(bit)]) & BIT_MASK(bit);
}

/* Sets @bit; true when it was set already. */
static inline bool bloom_test_set(unsigned long *words, u64 bit)
{
	if (bloom_test(words, bit))
		return true;
	set_bit(bit, words);
	return false;
}

/* ---- standard ---- */

static inline u64 bloom_std_h2(u64 h)
{
	return bloom_mix64(h + BLOOM_GOLDEN) | 1;
}

static inline bool bloom_std_add(struct bloom_core *f, u64 h)
{
	u64 h2 = bloom_std_h2(h), g = h, m = f->geo.bits;
	bool present = true;
	u32 i;

	for (i = 0; i < f->geo.hashes; i++, g += h2)
		present &= bloom_test_set(f->words, mul_u64_u64_shr(g, m, 64));
	return present;
}

static inline bool bloom_std_query(const struct bloom_core *f, u64 h)
{
	u64 h2 = bloom_std_h2(h), g = h, m = f->geo.bits;
	u32 i;

	for (i = 0; i < f->geo.hashes; i++, g += h2)
		if (!bloom_test(f->words, mul_u64_u64_shr(g, m, 64)))
			return false;
	return true;
}

static inline void bloom_prefetch_word(const unsigned long *p, bool write)
{
	if (write)
		prefetchw(p);
	else
		prefetch(p);
}

static inline void bloom_std_prefetch(const struct bloom_core *f, u64 h,
				      bool write)
{
	u64 h2 = bloom_std_h2(h), g = h, m = f->geo.bits;
	u32 i;

	for (i = 0; i < f->geo.hashes; i++, g += h2)
		bloom_prefetch_word(&f->words[BIT_WORD(mul_u64_u64_shr(g, m, 64))],
				    write);
}

/* ---- blocked ---- */

static inline u64 bloom_blk_base(const struct bloom_core *f, u64 h)
{
	return mul_u64_u64_shr(h, f->nblocks, 64) << BLOOM_BLOCK_SHIFT;
}

static inline bool bloom_blk_add(struct bloom_core *f, u64 h)
{
	u64 base = bloom_blk_base(f, h), state = h, r = 0;
	bool present = true;
	u32 i, left = 0;

	for (i = 0; i < f->geo.hashes; i++) {
		if (!left) {
			state += BLOOM_GOLDEN;
			r = bloom_mix64(state);
			left = BLOOM_POS_PER_MIX;
		}
		present &= bloom_test_set(f->words,
					  base + (r & (BLOOM_BLOCK_BITS - 1)));
		r >>= BLOOM_BLOCK_SHIFT;
		left--;
	}
	return present;
}

static inline bool bloom_blk_query(const struct bloom_core *f, u64 h)
{
	u64 base = bloom_blk_base(f, h), state = h, r = 0;
	u32 i, left = 0;

	for (i = 0; i < f->geo.hashes; i++) {
		if (!left) {
			state += BLOOM_GOLDEN;
			r = bloom_mix64(state);
			left = BLOOM_POS_PER_MIX;
		}
		if (!bloom_test(f->words, base + (r & (BLOOM_BLOCK_BITS - 1))))
			return false;
		r >>= BLOOM_BLOCK_SHIFT;
		left--;
	}
	return true;
}

/* ---- the API ---- */

void bloom_core_init(struct bloom_core *f, const struct bloom_geometry *geo,
		     const bloom_hash_key_t *key, void *storage)
{
	f->geo = *geo;
	f->key = *key;
	f->words = storage;
	f->nblocks = geo->type == BLOOM_CORE_BLOCKED ?
		     geo->bits >> BLOOM_BLOCK_SHIFT : 0;
}

bool bloom_core_add_hash(struct bloom_core *f, u64 h)
{
	if (f->geo.type == BLOOM_CORE_BLOCKED)
		return bloom_blk_add(f, h);
	return bloom_std_add(f, h);
}

bool bloom_core_query_hash(const struct bloom_core *f, u64 h)
{
	if (f->geo.type == BLOOM_CORE_BLOCKED)
		return bloom_blk_query(f, h);
	return bloom_std_query(f, h);
}

static inline void bloom_prefetch(const struct bloom_core *f, u64 h,
				  bool write)
{
	if (f->geo.type == BLOOM_CORE_BLOCKED)
		bloom_prefetch_word(&f->words[BIT_WORD(bloom_blk_base(f, h))],
				    write);
	else
		bloom_std_prefetch(f, h, write);
}

void bloom_core_prefetch_hash(const struct bloom_core *f, u64 h)
{
	bloom_prefetch(f, h, false);
}

static inline void bloom_result(u8 *results, u32 i, bool set)
{
	if (!results)
		return;
	if (!(i & 7))
		results[i >> 3] = 0;
	if (set)
		results[i >> 3] |= 1U << (i & 7);
}

u32 bloom_core_query_batch(const struct bloom_core *f, const u64 *hashes,
			   u32 n, u8 *results)
{
	u32 i, hits = 0;
	bool r;

	for (i = 0; i < n; i++) {
		if (i + BLOOM_PREFETCH_AHEAD < n)
			bloom_prefetch(f, hashes[i + BLOOM_PREFETCH_AHEAD], false);
		if (f->geo.type == BLOOM_CORE_BLOCKED)
			r = bloom_blk_query(f, hashes[i]);
		else
			r = bloom_std_query(f, hashes[i]);
		hits += r;
		bloom_result(results, i, r);
	}
	return hits;
}

u32 bloom_core_add_batch(struct bloom_core *f, const u64 *hashes, u32 n,
			 u8 *results)
{
	u32 i, hits = 0;
	bool r;

	for (i = 0; i < n; i++) {
		if (i + BLOOM_PREFETCH_AHEAD < n)
			bloom_prefetch(f, hashes[i + BLOOM_PREFETCH_AHEAD], true);
		if (f->geo.type == BLOOM_CORE_BLOCKED)
			r = bloom_blk_add(f, hashes[i]);
		else
			r = bloom_std_add(f, hashes[i]);
		hits += r;
		bloom_result(results, i, r);
	}
	return hits;
}

u64 bloom_core_bits_set(const struct bloom_core *f)
{
	u64 i, n = bloom_core_storage_bytes(&f->geo) / sizeof(unsigned long);
	u64 sum = 0;

	for (i = 0; i < n; i++)
		sum += hweight_long(READ_ONCE(f->words[i]));
	return sum;
}
