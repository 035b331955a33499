// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The bit-array filters: standard and blocked Bloom filters over one 64-bit
 * hash, the type tables (struct bloom_core_ops) bloom_std_ops and
 * bloom_blk_ops that core.c dispatches to.
 *
 * Standard: enhanced double hashing, or k distinct positions in filters of
 * under BLOOM_DISTINCT_BITS bits (internal.h, shared with the counting
 * filter).
 *
 * Blocked: the block is a multiply-shift of h onto [0, nblocks); the k bit
 * positions inside the 512-bit block are 9 independent bits each, taken 7 at
 * a time from successive splitmix64 outputs seeded with h. Double hashing
 * inside a block would make two keys with equal (h1, h2) mod 512 collide on
 * every bit, which measurably raises the false-positive rate.
 *
 * Adds test a bit first and set it atomically only when it is clear, so
 * concurrent adds lose nothing and a bit already set costs no write. The
 * atomic test_and_set_bit() tells the add whether it turned the bit on
 * itself: only then is the bit counted in in_use, so two adds racing for one
 * bit count it once, and a key counts in keys when it turned on at least
 * one bit (the same test reports it "new"). Queries use plain (READ_ONCE)
 * loads and stop at the first clear bit.
 */
#include "internal.h"

#define BLOOM_POS_PER_MIX	7	/* 9-bit positions in a 64-bit word */

static inline bool bloom_test(const unsigned long *words, u64 bit)
{
	return READ_ONCE(words[BIT_WORD(bit)]) & BIT_MASK(bit);
}

/* Sets @bit; 1 when this call turned it on, 0 when it was set already. */
static inline u32 bloom_set_new(unsigned long *words, u64 bit)
{
	if (bloom_test(words, bit))
		return 0;
	return !test_and_set_bit(bit, words);
}

/* ---- standard ---- */

/* Small filters (m < BLOOM_DISTINCT_BITS): k distinct positions. */
static u32 bloom_std_add_small(struct bloom_core *f, u64 h)
{
	struct bloom_small_iter it;
	u32 i, added = 0;

	bloom_small_start(&it, h);
	for (i = 0; i < f->geo.hashes; i++)
		added += bloom_set_new(f->words,
				       bloom_small_next(&it, f->geo.bits));
	return added;
}

static bool bloom_std_query_small(const struct bloom_core *f, u64 h)
{
	struct bloom_small_iter it;
	u32 i;

	bloom_small_start(&it, h);
	for (i = 0; i < f->geo.hashes; i++)
		if (!bloom_test(f->words, bloom_small_next(&it, f->geo.bits)))
			return false;
	return true;
}

/* Returns the number of bits the add turned on: 0 = "present already". */
static inline u32 bloom_std_add(struct bloom_core *f, u64 h)
{
	u64 m = f->geo.bits;
	struct bloom_std_iter it;
	u32 i, added = 0;

	if (unlikely(m < BLOOM_DISTINCT_BITS))
		return bloom_std_add_small(f, h);
	bloom_std_start(&it, h);
	for (i = 0; i < f->geo.hashes; i++)
		added += bloom_set_new(f->words, bloom_std_next(&it, m));
	return added;
}

static inline bool bloom_std_query(const struct bloom_core *f, u64 h)
{
	u64 m = f->geo.bits;
	struct bloom_std_iter it;
	u32 i;

	if (unlikely(m < BLOOM_DISTINCT_BITS))
		return bloom_std_query_small(f, h);
	bloom_std_start(&it, h);
	for (i = 0; i < f->geo.hashes; i++)
		if (!bloom_test(f->words, bloom_std_next(&it, m)))
			return false;
	return true;
}

/*
 * Prefetches follow the large filters' positions; a small filter is in
 * cache anyway, and a prefetch of another of its words is harmless.
 */
static inline void bloom_std_prefetch(const struct bloom_core *f, u64 h,
				      bool write)
{
	u64 m = f->geo.bits;
	struct bloom_std_iter it;
	u32 i;

	bloom_std_start(&it, h);
	for (i = 0; i < f->geo.hashes; i++)
		bloom_prefetch_word(&f->words[BIT_WORD(bloom_std_next(&it, m))],
				    write);
}

/*
 * Batched standard queries prefetch in two stages. An absent key is
 * rejected after about two probes (each bit is set with probability about
 * 1/2), so prefetching all k lines of every key fetches several times the
 * memory the answers need. Stage one, BLOOM_PREFETCH_AHEAD keys ahead,
 * prefetches the first BLOOM_STD_FIRST probes; stage two, BLOOM_STD_NEAR
 * keys ahead, tests those (their lines have arrived by then) and prefetches
 * the other probes only when all of them are set.
 */
#define BLOOM_STD_FIRST		2
#define BLOOM_STD_NEAR		4

/* Probes 0 and 1: BLOOM_STD_FIRST is 2. */
static inline void bloom_std_prefetch_first(const struct bloom_core *f,
					    u64 h)
{
	u64 m = f->geo.bits;

	prefetch(&f->words[BIT_WORD(bloom_std_pos(h, m))]);
	if (f->geo.hashes > 1)
		prefetch(&f->words[BIT_WORD(bloom_std_pos(h + bloom_std_h2(h),
							  m))]);
}

static inline void bloom_std_prefetch_rest(const struct bloom_core *f, u64 h)
{
	u64 m = f->geo.bits;
	struct bloom_std_iter it;
	bool set = true;
	u32 i;

	bloom_std_start(&it, h);
	for (i = 0; i < BLOOM_STD_FIRST && i < f->geo.hashes; i++)
		set &= bloom_test(f->words, bloom_std_next(&it, m));
	if (!set)
		return;
	for (; i < f->geo.hashes; i++)
		prefetch(&f->words[BIT_WORD(bloom_std_next(&it, m))]);
}

static u32 bloom_std_query_batch(const struct bloom_core *f,
				 const u64 *hashes, u32 n, u8 *results)
{
	u32 i, hits = 0;
	bool r;

	for (i = 0; i < n; i++) {
		if (i + BLOOM_PREFETCH_AHEAD < n)
			bloom_std_prefetch_first(f,
						 hashes[i + BLOOM_PREFETCH_AHEAD]);
		if (i + BLOOM_STD_NEAR < n)
			bloom_std_prefetch_rest(f, hashes[i + BLOOM_STD_NEAR]);
		r = bloom_std_query(f, hashes[i]);
		hits += r;
		bloom_result(results, i, r);
	}
	return hits;
}

/* ---- blocked ---- */

static inline u64 bloom_blk_base(const struct bloom_core *f, u64 h)
{
	return mul_u64_u64_shr(h, f->nblocks, 64) << BLOOM_BLOCK_SHIFT;
}

/* Words of a 512-bit block. */
#define BLOOM_BLOCK_WORDS	(BLOOM_BLOCK_BITS / 64)

/*
 * The k positions of @h inside its block as one mask per 64-bit word:
 * position p (9 bits of a mix) is bit p % 64 of word p / 64, the same bit
 * the block's bit array numbers p, so the layout (and snapshots) do not
 * depend on how the bits are tested.
 */
static __always_inline void bloom_blk_masks(u32 k, u64 h,
					    u64 mask[BLOOM_BLOCK_WORDS])
{
	u64 state = h, r = 0;
	u32 i, left = 0;

	for (i = 0; i < BLOOM_BLOCK_WORDS; i++)
		mask[i] = 0;
	for (i = 0; i < k; i++) {
		if (!left) {
			state += BLOOM_GOLDEN;
			r = bloom_mix64(state);
			left = BLOOM_POS_PER_MIX;
		}
		mask[(r >> 6) & (BLOOM_BLOCK_WORDS - 1)] |= 1ULL << (r & 63);
		r >>= BLOOM_BLOCK_SHIFT;
		left--;
	}
}

static inline u64 *bloom_blk_words(const struct bloom_core *f, u64 h)
{
	return (u64 *)&f->words[BIT_WORD(bloom_blk_base(f, h))];
}

/*
 * One atomic OR per word that lacks one of its bits (a word that has them
 * all costs no write); the bits this add turned on are those the OR found
 * clear, so concurrent adds count each bit once.
 */
static inline u32 bloom_blk_add(struct bloom_core *f, u64 h)
{
	u64 mask[BLOOM_BLOCK_WORDS], *w = bloom_blk_words(f, h), old;
	u32 i, added = 0;

	bloom_blk_masks(f->geo.hashes, h, mask);
	for (i = 0; i < BLOOM_BLOCK_WORDS; i++) {
		if (!mask[i] || (READ_ONCE(w[i]) & mask[i]) == mask[i])
			continue;
		old = bloom_or_long((unsigned long *)&w[i], mask[i]);
		added += hweight_long(mask[i] & ~old);
	}
	return added;
}

/* Every word of the line is tested; no branch per bit or per word. */
static inline bool bloom_blk_query(const struct bloom_core *f, u64 h)
{
	u64 mask[BLOOM_BLOCK_WORDS], miss = 0;
	const u64 *w = bloom_blk_words(f, h);
	u32 i;

	bloom_blk_masks(f->geo.hashes, h, mask);
	for (i = 0; i < BLOOM_BLOCK_WORDS; i++)
		miss |= mask[i] & ~READ_ONCE(w[i]);
	return !miss;
}

static inline void bloom_blk_prefetch(const struct bloom_core *f, u64 h,
				      bool write)
{
	bloom_prefetch_word(&f->words[BIT_WORD(bloom_blk_base(f, h))], write);
}

/*
 * The bit-array batches. @blocked is a constant in each caller, so each
 * gets its own loop with the type's per-key work inlined.
 */
static __always_inline int bloom_bits_add_batch(struct bloom_core *f,
						const u64 *hashes, u32 n,
						u8 *results, bool blocked)
{
	u32 i, added, bits = 0;
	int hits = 0;

	for (i = 0; i < n; i++) {
		if (i + BLOOM_PREFETCH_AHEAD < n) {
			u64 ahead = hashes[i + BLOOM_PREFETCH_AHEAD];

			if (blocked)
				bloom_blk_prefetch(f, ahead, true);
			else
				bloom_std_prefetch(f, ahead, true);
		}
		added = blocked ? bloom_blk_add(f, hashes[i]) :
				  bloom_std_add(f, hashes[i]);
		bits += added;
		hits += !added;
		bloom_result(results, i, !added);
	}
	bloom_account(f, bits, n - hits);
	return hits;
}

static int bloom_std_add1(struct bloom_core *f, u64 h)
{
	return bloom_bits_add_batch(f, &h, 1, NULL, false);
}

static int bloom_blk_add1(struct bloom_core *f, u64 h)
{
	return bloom_bits_add_batch(f, &h, 1, NULL, true);
}

static int bloom_std_add_batch(struct bloom_core *f, const u64 *hashes,
			       u32 n, u8 *results)
{
	return bloom_bits_add_batch(f, hashes, n, results, false);
}

static int bloom_blk_add_batch(struct bloom_core *f, const u64 *hashes,
			       u32 n, u8 *results)
{
	return bloom_bits_add_batch(f, hashes, n, results, true);
}

static u32 bloom_blk_query_batch(const struct bloom_core *f,
				 const u64 *hashes, u32 n, u8 *results)
{
	u32 i, hits = 0;
	bool r;

	for (i = 0; i < n; i++) {
		if (i + BLOOM_PREFETCH_AHEAD < n)
			bloom_blk_prefetch(f, hashes[i + BLOOM_PREFETCH_AHEAD],
					   false);
		r = bloom_blk_query(f, hashes[i]);
		hits += r;
		bloom_result(results, i, r);
	}
	return hits;
}

static u64 bloom_bits_scan(const struct bloom_core *f)
{
	u64 i, n = bloom_core_storage_bytes(&f->geo) / sizeof(unsigned long);
	u64 sum = 0;

	for (i = 0; i < n; i++)
		sum += hweight_long(READ_ONCE(f->words[i]));
	return sum;
}

const struct bloom_core_ops bloom_std_ops = {
	.add = bloom_std_add1,
	.query = bloom_std_query,
	.prefetch_hash = bloom_std_prefetch,
	.add_batch = bloom_std_add_batch,
	.query_batch = bloom_std_query_batch,
	.in_use = bloom_kept_in_use,
	.scan_in_use = bloom_bits_scan,
};

const struct bloom_core_ops bloom_blk_ops = {
	.add = bloom_blk_add1,
	.query = bloom_blk_query,
	.prefetch_hash = bloom_blk_prefetch,
	.add_batch = bloom_blk_add_batch,
	.query_batch = bloom_blk_query_batch,
	.in_use = bloom_kept_in_use,
	.scan_in_use = bloom_bits_scan,
};
