// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Counting Bloom filter (Fan et al. 2000): the standard filter's m and k and
 * its very positions (internal.h), each position a 4-bit counter instead of
 * a bit, BITS_PER_LONG / 4 counters to an unsigned long.
 *
 * Writers are serialised by the caller (core.h), as for every type:
 * a counter changes by a plain read of its word and one WRITE_ONCE of the
 * whole word, so a lockless query sees either the old or the new word,
 * never a torn one. Counters only ever move by one, and a delete touches
 * only the counters of a key that is in the filter, so every counter of a
 * key that stays live stays non-zero throughout: no false negative while
 * other keys come and go.
 *
 * A counter that reaches 15 stays 15 for good (it may count more keys than
 * it can hold; decrementing it could then zero it under a live key).
 */
#include "internal.h"

#define BLOOM_CTR_MAX		15UL
#define BLOOM_CTR_BITS		4
#define BLOOM_CTR_PER_LONG	(BITS_PER_LONG / BLOOM_CTR_BITS)

static inline unsigned long *bloom_ctr_word(const struct bloom_core *f,
					    u64 c)
{
	return &f->words[c / BLOOM_CTR_PER_LONG];
}

static inline unsigned int bloom_ctr_shift(u64 c)
{
	return (unsigned int)(c % BLOOM_CTR_PER_LONG) * BLOOM_CTR_BITS;
}

static inline unsigned long bloom_ctr_get(const struct bloom_core *f, u64 c)
{
	return (READ_ONCE(*bloom_ctr_word(f, c)) >> bloom_ctr_shift(c)) &
	       BLOOM_CTR_MAX;
}

/* Writers only: they are serialised, so the plain read cannot go stale. */
static inline void bloom_ctr_set(struct bloom_core *f, u64 c, unsigned long v)
{
	unsigned long *w = bloom_ctr_word(f, c);
	unsigned int s = bloom_ctr_shift(c);

	WRITE_ONCE(*w, (*w & ~(BLOOM_CTR_MAX << s)) | (v << s));
}

u64 bloom_cnt_storage_bytes(const struct bloom_geometry *geo)
{
	u64 bytes = (geo->bits * BLOOM_CTR_BITS + 7) / 8;

	return (bytes + BLOOM_CORE_ALIGN - 1) / BLOOM_CORE_ALIGN *
	       BLOOM_CORE_ALIGN;
}

/*
 * Two of a key's k positions may coincide (in large filters only, see
 * internal.h): the add then increments that counter twice, which the
 * sequential loop does since each step re-reads.
 * @in_use gets the counters this add took from 0 to 1.
 */
static inline int bloom_cnt_add_one(struct bloom_core *f, u64 h, s64 *in_use)
{
	u64 pos[BLOOM_CORE_HASHES_MAX], c;
	unsigned long v;
	int present = 1;
	u32 i;

	bloom_std_positions(f, h, pos);
	for (i = 0; i < f->geo.hashes; i++) {
		c = pos[i];
		v = bloom_ctr_get(f, c);
		if (!v) {
			present = 0;
			(*in_use)++;
		}
		if (v == BLOOM_CTR_MAX)
			continue;
		bloom_ctr_set(f, c, v + 1);
		if (v + 1 == BLOOM_CTR_MAX)
			WRITE_ONCE(f->saturated, f->saturated + 1);
	}
	return present;
}

static int bloom_cnt_add(struct bloom_core *f, u64 h)
{
	s64 in_use = 0;
	int r = bloom_cnt_add_one(f, h, &in_use);

	bloom_account(f, in_use, !r);
	return r;
}

/*
 * Check first, change after: a delete that would fail must change nothing,
 * and undoing half a delete would let a lockless query see a counter of a
 * live key at zero. A position the key holds j times needs a counter of at
 * least j (unless saturated), else the key cannot have been added: counting
 * the multiplicity only when the counter is small keeps the common case at
 * one comparison per position.
 *
 * A saturated counter is not decremented. When one of the key's counters
 * is saturated and none of the others reaches 0, the key still tests
 * present after the delete: it is pinned (BLOOM_DEL_PINNED). When a counter
 * reaches 0 the key is gone (BLOOM_DEL_GONE, @in_use gets the counters that
 * did); else one copy was removed and others keep it (BLOOM_DEL_REMOVED).
 */
static inline enum bloom_del bloom_cnt_delete_one(struct bloom_core *f, u64 h,
						  s64 *in_use)
{
	u64 pos[BLOOM_CORE_HASHES_MAX];
	unsigned long v, need;
	u32 i, j, k = f->geo.hashes, zeroed = 0;
	bool sat = false;

	bloom_std_positions(f, h, pos);
	for (i = 0; i < k; i++) {
		v = bloom_ctr_get(f, pos[i]);
		if (!v)
			return BLOOM_DEL_ABSENT;
		if (v == BLOOM_CTR_MAX || v > i)
			continue;
		for (need = 1, j = 0; j < i; j++)
			need += pos[j] == pos[i];
		if (v < need)
			return BLOOM_DEL_ABSENT;
	}
	for (i = 0; i < k; i++) {
		v = bloom_ctr_get(f, pos[i]);
		if (v == BLOOM_CTR_MAX) {
			sat = true;
			continue;
		}
		bloom_ctr_set(f, pos[i], v - 1);
		zeroed += v == 1;
	}
	*in_use -= zeroed;
	if (zeroed)
		return BLOOM_DEL_GONE;
	return sat ? BLOOM_DEL_PINNED : BLOOM_DEL_REMOVED;
}

static int bloom_cnt_delete(struct bloom_core *f, u64 h)
{
	s64 in_use = 0;
	enum bloom_del r = bloom_cnt_delete_one(f, h, &in_use);

	bloom_account(f, in_use, -(s64)(r == BLOOM_DEL_GONE));
	return bloom_del_status(r);
}

static inline bool bloom_cnt_query_one(const struct bloom_core *f, u64 h)
{
	u64 m = f->geo.bits;
	struct bloom_small_iter si;
	struct bloom_std_iter it;
	u32 i;

	if (unlikely(m < BLOOM_DISTINCT_BITS)) {
		bloom_small_start(&si, h);
		for (i = 0; i < f->geo.hashes; i++)
			if (!bloom_ctr_get(f, bloom_small_next(&si, m)))
				return false;
		return true;
	}
	bloom_std_start(&it, h);
	for (i = 0; i < f->geo.hashes; i++)
		if (!bloom_ctr_get(f, bloom_std_next(&it, m)))
			return false;
	return true;
}

bool bloom_cnt_query(const struct bloom_core *f, u64 h)
{
	return bloom_cnt_query_one(f, h);
}

/* The large filters' positions, as for the standard filter. */
static void bloom_cnt_prefetch(const struct bloom_core *f, u64 h, bool write)
{
	u64 m = f->geo.bits;
	struct bloom_std_iter it;
	u32 i;

	bloom_std_start(&it, h);
	for (i = 0; i < f->geo.hashes; i++)
		bloom_prefetch_word(bloom_ctr_word(f, bloom_std_next(&it, m)),
				    write);
}

static u32 bloom_cnt_query_batch(const struct bloom_core *f,
				 const u64 *hashes, u32 n, u8 *results)
{
	u32 i, hits = 0;
	bool r;

	for (i = 0; i < n; i++) {
		if (i + BLOOM_PREFETCH_AHEAD < n)
			bloom_cnt_prefetch(f, hashes[i + BLOOM_PREFETCH_AHEAD],
					   false);
		r = bloom_cnt_query_one(f, hashes[i]);
		hits += r;
		bloom_result(results, i, r);
	}
	return hits;
}

/* A counting add cannot fail: there is nothing to undo. */
static u32 bloom_cnt_add_batch(struct bloom_core *f, const u64 *hashes,
			       u32 n, u8 *results, u32 *done)
{
	s64 in_use = 0;
	u32 i;
	int r, hits = 0;

	for (i = 0; i < n; i++) {
		if (i + BLOOM_PREFETCH_AHEAD < n)
			bloom_cnt_prefetch(f, hashes[i + BLOOM_PREFETCH_AHEAD],
					   true);
		r = bloom_cnt_add_one(f, hashes[i], &in_use);
		hits += r;
		bloom_result(results, i, r);
	}
	bloom_account(f, in_use, n - hits);
	*done = n;
	return hits;
}

static u32 bloom_cnt_delete_batch(struct bloom_core *f, const u64 *hashes,
				  u32 n, u8 *results, u8 *pinned, u32 *npinned)
{
	u32 i, removed = 0, gone = 0;
	s64 in_use = 0;
	enum bloom_del r;

	for (i = 0; i < n; i++) {
		if (i + BLOOM_PREFETCH_AHEAD < n)
			bloom_cnt_prefetch(f, hashes[i + BLOOM_PREFETCH_AHEAD],
					   true);
		r = bloom_cnt_delete_one(f, hashes[i], &in_use);
		removed += bloom_del_result(results, pinned, npinned, i, r);
		gone += r == BLOOM_DEL_GONE;
	}
	bloom_account(f, in_use, -(s64)gone);
	return removed;
}

/* Non-zero counters: fold each nibble onto its low bit, then popcount. */
static u64 bloom_cnt_scan(const struct bloom_core *f)
{
	const unsigned long low = ~0UL / BLOOM_CTR_MAX;	/* 0x1111... */
	u64 i, n = bloom_cnt_storage_bytes(&f->geo) / sizeof(unsigned long);
	unsigned long w;
	u64 sum = 0;

	for (i = 0; i < n; i++) {
		/* a restore recounts filters of gigabytes: let others run */
		if (!(i & 0xfffff))
			bloom_cond_resched();
		w = READ_ONCE(f->words[i]);
		w |= w >> 1;
		w |= w >> 2;
		sum += hweight_long(w & low);
	}
	return sum;
}

const struct bloom_core_ops bloom_cnt_ops = {
	.add = bloom_cnt_add,
	.delete = bloom_cnt_delete,
	.query = bloom_cnt_query,
	.prefetch_hash = bloom_cnt_prefetch,
	.add_batch = bloom_cnt_add_batch,
	.delete_batch = bloom_cnt_delete_batch,
	.query_batch = bloom_cnt_query_batch,
	.in_use = bloom_kept_in_use,
	.scan_in_use = bloom_cnt_scan,
};
