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
 * Writers are serialised by the caller (core.h): an add sets each of its
 * bits with a plain read of the word and one WRITE_ONCE of it with the bit
 * set, no locked instruction, so lockless queries (READ_ONCE) see every
 * word whole and never see a bit go away. The add counts the bits it found
 * clear, which keeps in_use exact, and a key counts in keys when it turned
 * on at least one bit (the same test reports it "new"). Queries of
 * small standard filters and of blocked ones test all k bits without a
 * branch; large standard filters stop at the first clear bit. A lookup of
 * one key alone (bloom_core_lookup_hash()) stops at the first clear bit of
 * either type.
 */
#include "internal.h"

#define BLOOM_POS_PER_MIX	7	/* 9-bit positions in a 64-bit word */

static inline bool bloom_test(const unsigned long *words, u64 bit)
{
	return READ_ONCE(words[BIT_WORD(bit)]) & BIT_MASK(bit);
}

/*
 * Sets @bit; 1 when this call turned it on, 0 when it was set already. The
 * writer is alone (the caller's lock): a plain read, and the word written
 * whole for the lockless readers. Always written: a test first costs a
 * mispredicted branch on most bits while a filter fills.
 */
static inline u32 bloom_set_new(unsigned long *words, u64 bit)
{
	unsigned long *w = &words[BIT_WORD(bit)], old = *w;

	WRITE_ONCE(*w, old | BIT_MASK(bit));
	return !(old & BIT_MASK(bit));
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

/*
 * Filters of up to BLOOM_STD_ALL_BITS bits (2 MiB, a million keys at
 * p = 0.01) are taken to sit in the CPU's cache. There a query tests all k
 * bits, one load, shift and AND each, without a branch: stopping at the
 * first clear bit costs a mispredicted branch on most absent keys.
 * Measured one key at a time, k = 7, in cache, min of 9-15 rounds: 6.9 ns
 * present and absent against 5.9 present and 12.5 absent with the early
 * exit (200,000 keys), 8.1 against 7.2 and 14.3 (a million). In a 4.8 MB
 * filter the early exit won (18.7 and 23.7 against 29.8 and 31.8): each
 * bit it does not test is a line it does not wait for.
 */
#define BLOOM_STD_ALL_BITS	16777216ULL	/* 2 MiB */

static inline bool bloom_std_test_all(const struct bloom_core *f, u64 h)
{
	u64 m = f->geo.bits, p;
	struct bloom_std_iter it;
	unsigned long ok = 1;
	u32 i;

	bloom_std_start(&it, h);
	for (i = 0; i < f->geo.hashes; i++) {
		p = bloom_std_next(&it, m);
		ok &= READ_ONCE(f->words[BIT_WORD(p)]) >> (p % BITS_PER_LONG);
	}
	return ok & 1;
}

/* The k bits, stopping at the first clear one. */
static inline bool bloom_std_test_stop(const struct bloom_core *f, u64 h)
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

static inline bool bloom_std_query(const struct bloom_core *f, u64 h)
{
	u64 m = f->geo.bits;

	if (m >= BLOOM_DISTINCT_BITS && m <= BLOOM_STD_ALL_BITS)
		return bloom_std_test_all(f, h);
	return bloom_std_test_stop(f, h);
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

	/* in cache: nothing to prefetch, every bit tested */
	if (f->geo.bits <= BLOOM_STD_ALL_BITS) {
		for (i = 0; i < n; i++) {
			r = bloom_std_query(f, hashes[i]);
			hits += r;
			bloom_result(results, i, r);
		}
		return hits;
	}
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

static inline u64 *bloom_blk_words(const struct bloom_core *f, u64 h)
{
	return (u64 *)&f->words[BIT_WORD(bloom_blk_base(f, h))];
}

/*
 * A mix gives BLOOM_POS_PER_MIX positions, 9 bits each from bit 0 up:
 * position p is bit p % 64 of word p / 64 of the block. @n (1..7) of them
 * are used; with a constant @n the tests below are straight-line code.
 */
static __always_inline u64 bloom_blk_bit(const u64 *w, u64 p)
{
	return READ_ONCE(w[(p >> 6) & (BLOOM_BLOCK_WORDS - 1)]) >> (p & 63);
}

/* Bit 0: all @n positions of mix @r set. */
static __always_inline u64 bloom_blk_test_mix(const u64 *w, u64 r, u32 n)
{
	u64 ok = bloom_blk_bit(w, r);

	if (n > 1)
		ok &= bloom_blk_bit(w, r >> 9);
	if (n > 2)
		ok &= bloom_blk_bit(w, r >> 18);
	if (n > 3)
		ok &= bloom_blk_bit(w, r >> 27);
	if (n > 4)
		ok &= bloom_blk_bit(w, r >> 36);
	if (n > 5)
		ok &= bloom_blk_bit(w, r >> 45);
	if (n > 6)
		ok &= bloom_blk_bit(w, r >> 54);
	return ok;
}

/* Sets position @p of the block as bloom_set_new() does; 1 if it was clear. */
static __always_inline u32 bloom_blk_set_pos(u64 *w, u64 p)
{
	u64 *word = &w[(p >> 6) & (BLOOM_BLOCK_WORDS - 1)];
	u64 bit = 1ULL << (p & 63), old = *word;

	WRITE_ONCE(*word, old | bit);
	return !(old & bit);
}

/* Sets the @n positions of mix @r; returns how many were clear. */
static __always_inline u32 bloom_blk_set_mix(u64 *w, u64 r, u32 n)
{
	u32 added = bloom_blk_set_pos(w, r);

	if (n > 1)
		added += bloom_blk_set_pos(w, r >> 9);
	if (n > 2)
		added += bloom_blk_set_pos(w, r >> 18);
	if (n > 3)
		added += bloom_blk_set_pos(w, r >> 27);
	if (n > 4)
		added += bloom_blk_set_pos(w, r >> 36);
	if (n > 5)
		added += bloom_blk_set_pos(w, r >> 45);
	if (n > 6)
		added += bloom_blk_set_pos(w, r >> 54);
	return added;
}

static __always_inline u32 bloom_blk_left(u32 k, u32 i)
{
	return k - i < BLOOM_POS_PER_MIX ? k - i : BLOOM_POS_PER_MIX;
}

/*
 * All k bits set? One load and one AND per position, no branch: a mask per
 * word with one load and compare per word, the other way, measured 1.6x
 * slower in cache (the masks live in memory, as their index varies), and
 * stopping at the first clear bit costs a mispredicted branch on most
 * absent keys.
 */
static __always_inline bool bloom_blk_test(const u64 *w, u64 h, u32 k)
{
	u64 state = h, ok = 1;
	u32 i;

	for (i = 0; i < k; i += BLOOM_POS_PER_MIX) {
		state += BLOOM_GOLDEN;
		ok &= bloom_blk_test_mix(w, bloom_mix64(state),
					 bloom_blk_left(k, i));
	}
	return ok & 1;
}

/*
 * Sets the k bits, a plain read and one WRITE_ONCE each, no branch; returns
 * how many were clear. Measured against one atomic OR per word that lacked
 * a bit (the way before writers were serialised), in cache, one writer:
 * 11 ns a key against 40; building a mask per word and writing only the
 * words that lack a bit, without the atomic: 32 (the masks live in memory).
 */
static __always_inline u32 bloom_blk_set(u64 *w, u64 h, u32 k)
{
	u64 state = h;
	u32 i, added = 0;

	for (i = 0; i < k; i += BLOOM_POS_PER_MIX) {
		state += BLOOM_GOLDEN;
		added += bloom_blk_set_mix(w, bloom_mix64(state),
					   bloom_blk_left(k, i));
	}
	return added;
}

/*
 * The k positions a mix at a time, stopping after the first mix that lacks
 * one: a key not in the filter finds a clear bit among a mix's seven
 * positions all but once in a hundred or so (each set with probability
 * about one half at capacity), so the branch after the first mix is all
 * but always taken the same way, and a lone lookup does one mix where
 * bloom_blk_test() does all. Stopping at the first clear bit instead costs
 * a mispredicted branch on most absent keys (bench-bpfmap:
 * bloom_blocked_stop against bloom_blocked_query).
 */
static __always_inline bool bloom_blk_test_stop(const u64 *w, u64 h, u32 k)
{
	u64 state = h;
	u32 i;

	for (i = 0; i < k; i += BLOOM_POS_PER_MIX) {
		state += BLOOM_GOLDEN;
		if (!(bloom_blk_test_mix(w, bloom_mix64(state),
					 bloom_blk_left(k, i)) & 1))
			return false;
	}
	return true;
}

static inline u32 bloom_blk_add(struct bloom_core *f, u64 h)
{
	return bloom_blk_set(bloom_blk_words(f, h), h, f->geo.hashes);
}

static inline bool bloom_blk_query(const struct bloom_core *f, u64 h)
{
	return bloom_blk_test(bloom_blk_words(f, h), h, f->geo.hashes);
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

static u32 bloom_std_add_batch(struct bloom_core *f, const u64 *hashes,
			       u32 n, u8 *results, u32 *done)
{
	*done = n;
	return bloom_bits_add_batch(f, hashes, n, results, false);
}

/*
 * Blocked batches, for a given k. The callers pass the k of p = 0.01 and
 * p = 0.001 (7, 9) as constants, which makes the positions straight-line
 * code (7% faster queries in cache, measured); other k take the same loop
 * with k read from the filter. Results go to the bitmap a byte at a time.
 */
static __always_inline int bloom_blk_add_k(struct bloom_core *f,
					   const u64 *hashes, u32 n,
					   u8 *results, u32 k)
{
	u32 i, added, bits = 0, hits = 0, byte = 0;

	for (i = 0; i < n; i++) {
		if (i + BLOOM_PREFETCH_AHEAD < n)
			bloom_blk_prefetch(f, hashes[i + BLOOM_PREFETCH_AHEAD],
					   true);
		added = bloom_blk_set(bloom_blk_words(f, hashes[i]),
				      hashes[i], k);
		bits += added;
		hits += !added;
		byte |= (u32)!added << (i & 7);
		if ((i & 7) == 7 || i == n - 1) {
			if (results)
				results[i >> 3] = byte;
			byte = 0;
		}
	}
	bloom_account(f, bits, n - hits);
	return hits;
}

static __always_inline u32 bloom_blk_query_k(const struct bloom_core *f,
					     const u64 *hashes, u32 n,
					     u8 *results, u32 k)
{
	u32 i, hits = 0, byte = 0;
	bool r;

	for (i = 0; i < n; i++) {
		if (i + BLOOM_PREFETCH_AHEAD < n)
			bloom_blk_prefetch(f, hashes[i + BLOOM_PREFETCH_AHEAD],
					   false);
		r = bloom_blk_test(bloom_blk_words(f, hashes[i]), hashes[i], k);
		hits += r;
		byte |= (u32)r << (i & 7);
		if ((i & 7) == 7 || i == n - 1) {
			if (results)
				results[i >> 3] = byte;
			byte = 0;
		}
	}
	return hits;
}

static u32 bloom_blk_add_batch(struct bloom_core *f, const u64 *hashes,
			       u32 n, u8 *results, u32 *done)
{
	*done = n;
	switch (f->geo.hashes) {
	case 7:
		return bloom_blk_add_k(f, hashes, n, results, 7);
	case 9:
		return bloom_blk_add_k(f, hashes, n, results, 9);
	}
	return bloom_blk_add_k(f, hashes, n, results, f->geo.hashes);
}

static int bloom_blk_add1(struct bloom_core *f, u64 h)
{
	u32 done;

	return bloom_blk_add_batch(f, &h, 1, NULL, &done);
}

static u32 bloom_blk_query_batch(const struct bloom_core *f,
				 const u64 *hashes, u32 n, u8 *results)
{
	switch (f->geo.hashes) {
	case 7:
		return bloom_blk_query_k(f, hashes, n, results, 7);
	case 9:
		return bloom_blk_query_k(f, hashes, n, results, 9);
	}
	return bloom_blk_query_k(f, hashes, n, results, f->geo.hashes);
}

static u64 bloom_bits_scan(const struct bloom_core *f)
{
	u64 i, n = bloom_core_storage_bytes(&f->geo) / sizeof(unsigned long);
	u64 sum = 0;

	for (i = 0; i < n; i++) {
		/* a restore recounts filters of gigabytes: let others run */
		if (!(i & 0xfffff))
			bloom_cond_resched();
		sum += hweight_long(READ_ONCE(f->words[i]));
	}
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

/*
 * One key alone (core.h): every type is told apart by comparing the
 * filter's table with its own, a branch the CPU predicts (a filter keeps
 * its type), and its function called directly, so the lookup makes no
 * indirect call (a retpoline in a kernel built with them); standard and
 * blocked, which a packet meets most, first. A chain's stages and an
 * expiring filter's generations are looked up the same way.
 */
bool bloom_core_lookup_hash(const struct bloom_core *f, u64 h)
{
	const struct bloom_core_ops *ops = f->ops;

	if (ops == &bloom_blk_ops)
		return bloom_blk_test_stop(bloom_blk_words(f, h), h,
					   f->geo.hashes);
	if (ops == &bloom_std_ops)
		return bloom_std_test_stop(f, h);
	if (ops == &bloom_tm_ops)
		return bloom_tm_query(f, h);
	if (ops == &bloom_scale_timed_ops || ops == &bloom_scale_ops)
		return bloom_scale_lookup(f, h);
	if (ops == &bloom_expire_ops)
		return bloom_expire_lookup(f, h);
	if (ops == &bloom_cnt_ops)
		return bloom_cnt_query(f, h);
	if (ops == &bloom_dl_ops)
		return bloom_dl_query(f, h);
	return ops->query(f, h);
}

/* The lines of one key alone, as bloom_core_lookup_hash() tells types. */
void bloom_core_lookup_prefetch(const struct bloom_core *f, u64 h)
{
	if (f->ops == &bloom_blk_ops)
		bloom_blk_prefetch(f, h, false);
	else if (f->ops == &bloom_std_ops)
		bloom_std_prefetch(f, h, false);
	else
		f->ops->prefetch_hash(f, h, false);
}
