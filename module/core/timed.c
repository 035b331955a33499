// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A filter whose keys each carry their own timeout, and can be deleted: the
 * table of timed_table.h (two subtables of one-cache-line buckets), whose
 * cells hold a fingerprint, a tag and a coarse expiry. It is a set: adding
 * a key that is in it already keeps the later of its two expiries,
 * deleting it empties its cell, whatever was repeated in between.
 *
 * A cell of w = 32 or 64 bits, lowest bits first:
 *
 *	tick (6) | class (5) | tag (t) | fingerprint (r)
 *
 * class 0 is an empty cell (a cell of 0 is empty), class 31 a key without
 * timeout, class j + 1 a key whose expiry is a multiple of 2^j seconds, the
 * unit, and tick the expiry in units modulo 64. A timeout T takes the
 * largest j with 2^j <= max(1, T / 16), so T is under 32 units and the
 * expiry, ceil((now + 1 + T) / 2^j) units with now in whole seconds of the
 * caller's clock, is at most 33 units ahead when it is written. A cell is
 * live while (tick - now / 2^j) mod 64 is 1..BLOOM_TM_AHEAD (35): a key
 * lives at least T after its add and at most T + 2^j (the expiry is at
 * most now + 1 + T + 2^j - 1 seconds), and a live
 * cell never reads as expired (it only counts down to 1). An expired cell
 * reads as live again 29 units after its expiry (the tick wraps): that can
 * only make a false positive, never hide a live key, and does not happen
 * while expired cells are reclaimed within 29 units, by the next add or
 * delete that scans their bucket and by bloom_timed_sweep(), which the
 * module runs over the whole table more often than that.
 *
 * Queries compare the fingerprint only, of every cell of a word at once,
 * and decode the class and tick of a cell only when its fingerprint
 * matches; adds and deletes compare the fingerprint and the tag, t more
 * bits taken from another mix of the hash. Two keys that agree in both
 * are one key to the filter (their (bucket, fingerprint) pairs agree in
 * both subtables, timed_table.h): a delete of one
 * removes the other. That needs the t tag bits to agree too, so it is 2^t
 * times rarer than a false positive at the add (bloom.rst has the
 * figures). Keys that share the fingerprint but not the tag get a cell
 * each, and a delete removes only its own.
 *
 * Concurrency: writers are serialised by the caller, every change of a
 * cell (new, refreshed, emptied, reclaimed) is one WRITE_ONCE of its word
 * and a query reads each word once.
 */
#include "timed_table.h"

#define BLOOM_TM_TICK_BITS	6
#define BLOOM_TM_TICK_MASK	((1ULL << BLOOM_TM_TICK_BITS) - 1)
#define BLOOM_TM_CLASS_BITS	5
#define BLOOM_TM_CLASS_MASK	((1ULL << BLOOM_TM_CLASS_BITS) - 1)
/* the bits below the tag: tick and class */
#define BLOOM_TM_LOW_BITS	(BLOOM_TM_TICK_BITS + BLOOM_TM_CLASS_BITS)
#define BLOOM_TM_CLASS_FOREVER	BLOOM_TM_CLASS_MASK
/*
 * A live cell's expiry is 1..this many units ahead: 33 at an add, one more
 * for a restore's rounding up (bloom_timed_rebase()).
 */
#define BLOOM_TM_AHEAD		35
/* fingerprints of at least this many bits (p = 0.5 at the largest load) */
#define BLOOM_TM_FP_MIN		6
/*
 * What sizing gives a new table at least. A key's second bucket is its
 * first plus an offset drawn from its fingerprint, so a table has 2^r
 * offsets: with 6 bits, 10^7 keys replaced three times over at the
 * largest load failed adds (3 in one run, 1 with the Feistel placement);
 * with 12, none did. The bits come from the tag, whose sum with the
 * fingerprint's is the cell's (w - 11): no memory, and the same rate of
 * two keys being one; only the rate of false positives falls.
 */
#define BLOOM_TM_FP_SIZED_MIN	12
#define BLOOM_TM_TAG_SALT	0x6a09e667f3bcc909ULL

/* ---- expiries ---- */

/* The unit's exponent j of a timeout: the largest 2^j <= max(1, T / 16). */
static inline u32 bloom_tm_shift(u32 timeout_s)
{
	return timeout_s < 32 ? 0 : 31 - (u32)__builtin_clz(timeout_s) - 4;
}

u32 bloom_timed_resolution_s(u32 timeout_s)
{
	return 1U << bloom_tm_shift(timeout_s);
}

/**
 * struct bloom_tm_expiry - what an add writes about time
 * @low: the cell's tick and class
 * @deadline: the expiry in seconds of the caller's clock; ~0 for none
 */
struct bloom_tm_expiry {
	u64 low;
	u64 deadline;
};

static void bloom_tm_expiry(u32 timeout_s, u64 now, struct bloom_tm_expiry *e)
{
	u32 j = bloom_tm_shift(timeout_s);
	u64 units;

	if (!timeout_s) {
		e->low = BLOOM_TM_CLASS_FOREVER << BLOOM_TM_TICK_BITS;
		e->deadline = ~0ULL;
		return;
	}
	units = (now + 1 + timeout_s + (1ULL << j) - 1) >> j;
	e->low = (u64)(j + 1) << BLOOM_TM_TICK_BITS |
		 (units & BLOOM_TM_TICK_MASK);
	e->deadline = units << j;
}

static inline u32 bloom_tm_class(u64 cell)
{
	return (u32)(cell >> BLOOM_TM_TICK_BITS & BLOOM_TM_CLASS_MASK);
}

/* Units of a timed cell's expiry ahead of @now: 1..AHEAD when live. */
static inline u64 bloom_tm_ahead(u64 cell, u32 cls, u64 now)
{
	return (cell - (now >> (cls - 1))) & BLOOM_TM_TICK_MASK;
}

/* Does the non-empty @cell hold a key at @now? */
static inline bool bloom_tm_live(u64 cell, u64 now)
{
	u32 cls = bloom_tm_class(cell);

	if (cls == BLOOM_TM_CLASS_FOREVER)
		return true;
	return bloom_tm_ahead(cell, cls, now) - 1 < BLOOM_TM_AHEAD;
}

/* A live cell's expiry in seconds, ~0 for none. */
static u64 bloom_tm_deadline(u64 cell, u64 now)
{
	u32 cls = bloom_tm_class(cell), j = cls - 1;

	if (cls == BLOOM_TM_CLASS_FOREVER)
		return ~0ULL;
	return ((now >> j) + bloom_tm_ahead(cell, cls, now)) << j;
}

/* ---- cells ---- */

static inline u32 bloom_tm_tag_bits(const struct bloom_core *f)
{
	return f->geo.cell_bits - BLOOM_TM_LOW_BITS - f->geo.fingerprint_bits;
}

/* The key's fingerprint in subtable @i and its tag, as a cell holds them. */
static inline u64 bloom_tm_id(const struct bloom_core *f,
			      const struct bloom_tt_cand *c, u32 i, u64 tag)
{
	return (c->fp[i] << bloom_tm_tag_bits(f) | tag) << BLOOM_TM_LOW_BITS;
}

static inline u64 bloom_tm_tag(const struct bloom_core *f, u64 h)
{
	u32 t = bloom_tm_tag_bits(f);

	return t ? bloom_mix64(h ^ BLOOM_TM_TAG_SALT) >> (64 - t) : 0;
}

/* Bits of a cell above the tick and class: fingerprint and tag. */
static inline u64 bloom_tm_id_of(u64 cell)
{
	return cell >> BLOOM_TM_LOW_BITS << BLOOM_TM_LOW_BITS;
}

/*
 * A live cell among the cells of bucket @b whose fingerprint is the
 * probe's: rare but for the key's own cell (a false positive's, an empty
 * cell when the fingerprint is 0). The words are read again: a key live
 * since the first read is in the same cell now.
 */
static bool bloom_tm_live_in(const struct bloom_core *f, u64 b,
			     const struct bloom_tt_probe *p, u64 now)
{
	const u64 *words = (const u64 *)f->words + b * BLOOM_TT_BUCKET_WORDS;
	u32 w = f->geo.cell_bits, k;
	u64 v, z, cell;

	for (k = 0; k < BLOOM_TT_BUCKET_WORDS; k++) {
		v = READ_ONCE(words[k]);
		/* the top bit of each matching cell */
		for (z = bloom_tt_match(v, p); z; z &= z - 1) {
			cell = v >> (__ffs64(z) + 1 - w) & bloom_tt_cell_mask(f);
			if (cell && bloom_tm_live(cell, now))
				return true;
		}
	}
	return false;
}

/*
 * A lone query's time, not read yet: read at its first match, so that a
 * key absent (what most packets are) costs no clock read.
 */
#define BLOOM_TM_NOW_UNREAD	(~0ULL)

/*
 * Both buckets' words are read and compared before a branch on the
 * outcome: a key absent (the common case on a packet path) costs no
 * mispredicted branch, and the two cache lines are fetched together. The
 * compare says where each matching cell is (bloom_tt_match_where()), so a
 * key present is decoded from the first of them, read again (a writer may
 * have changed it since): its own cell but for a false positive or an
 * expired key of its fingerprint, when both buckets are scanned cell by
 * cell.
 */
static __always_inline bool bloom_tm_query_one(const struct bloom_core *f,
					       u64 h, u64 now)
{
	const u64 *words = (const u64 *)f->words;
	u32 w = f->geo.cell_bits, r = f->geo.fingerprint_bits;
	struct bloom_tt_probe p0, p1;
	struct bloom_tt_where at;
	struct bloom_tt_cand c;
	u64 m, cell;

	bloom_tt_cand(f, h, &c);
	bloom_tt_probe(f, c.fp[0], &p0);
	p1 = p0;
	p1.pat = bloom_tt_pattern(f, c.fp[1]);
	m = bloom_tt_match_where(words + c.bucket[0] * BLOOM_TT_BUCKET_WORDS,
				 p0.pat,
				 words + c.bucket[1] * BLOOM_TT_BUCKET_WORDS,
				 p1.pat, &p0);
	if (!m)
		return false;
	if (now == BLOOM_TM_NOW_UNREAD)
		now = bloom_clock_s();
	bloom_tt_where_cell(f, m, &at);
	cell = READ_ONCE(words[c.bucket[at.sub] * BLOOM_TT_BUCKET_WORDS +
			      at.word]) >> at.shift & bloom_tt_cell_mask(f);
	if (cell && cell >> (w - r) == c.fp[at.sub] && bloom_tm_live(cell, now))
		return true;
	return bloom_tm_live_in(f, c.bucket[0], &p0, now) ||
	       bloom_tm_live_in(f, c.bucket[1], &p1, now);
}

/* Empties the expired cell @i of subtable @sub. */
static inline void bloom_tm_reclaim(struct bloom_core *f, u64 i, u32 sub)
{
	bloom_tt_put(f, i, 0);
	WRITE_ONCE(f->subtable_used[sub], f->subtable_used[sub] - 1);
	WRITE_ONCE(f->reclaimed, f->reclaimed + 1);
}

/*
 * The key's live cell, matched on fingerprint and tag: true and its index
 * and subtable, or false. Expired cells of the candidate buckets are
 * reclaimed on the way; @load (may be NULL) gets each candidate bucket's
 * live cells, complete only when false is returned.
 */
static bool bloom_tm_find(struct bloom_core *f, const struct bloom_tt_cand *c,
			  u64 tag, u64 now, u64 *idx, u32 *sub, u32 *load)
{
	u64 cells[BLOOM_TT_CELLS_MAX], id, first;
	u32 i, j, n = bloom_tt_cells(f);

	for (i = 0; i < BLOOM_TT_SUBTABLES; i++) {
		if (load)
			load[i] = 0;
		id = bloom_tm_id(f, c, i, tag);
		first = c->bucket[i] * n;
		bloom_tt_bucket(f, c->bucket[i], cells);
		for (j = 0; j < n; j++) {
			if (!cells[j])
				continue;
			if (!bloom_tm_live(cells[j], now)) {
				bloom_tm_reclaim(f, first + j, i);
				continue;
			}
			if (bloom_tm_id_of(cells[j]) == id) {
				*idx = first + j;
				*sub = i;
				return true;
			}
			if (load)
				load[i]++;
		}
	}
	return false;
}

/*
 * 1: present already (the later expiry kept); 0: a new cell; -ENOSPC (no
 * room); -ENOENT: absent and not to be inserted (!@insert).
 */
static int bloom_tm_put(struct bloom_core *f, u64 h,
			const struct bloom_tm_expiry *e, u64 now, bool insert)
{
	u32 load[BLOOM_TT_SUBTABLES], j, best, sub, n = bloom_tt_cells(f);
	u64 cells[BLOOM_TT_CELLS_MAX], idx, v, tag = bloom_tm_tag(f, h);
	struct bloom_tt_cand c;

	bloom_tt_cand(f, h, &c);
	if (bloom_tm_find(f, &c, tag, now, &idx, &sub, load)) {
		v = bloom_tt_get(f, idx);
		if (e->deadline > bloom_tm_deadline(v, now))
			bloom_tt_put(f, idx, bloom_tm_id_of(v) | e->low);
		return 1;
	}
	if (!insert)
		return -ENOENT;
	/* the less loaded, the left one on a tie */
	best = load[1] < load[0];
	if (load[best] == n) {
		WRITE_ONCE(f->insert_failures, f->insert_failures + 1);
		return -ENOSPC;
	}
	bloom_tt_bucket(f, c.bucket[best], cells);
	for (j = 0; j < n; j++)
		if (!cells[j])
			break;
	bloom_tt_put(f, c.bucket[best] * n + j,
		     bloom_tm_id(f, &c, best, tag) | e->low);
	WRITE_ONCE(f->subtable_used[best], f->subtable_used[best] + 1);
	return 0;
}

static inline int bloom_tm_add_one(struct bloom_core *f, u64 h,
				   const struct bloom_tm_expiry *e, u64 now)
{
	return bloom_tm_put(f, h, e, now, true);
}

static enum bloom_del bloom_tm_delete_one(struct bloom_core *f, u64 h, u64 now)
{
	struct bloom_tt_cand c;
	u64 idx;
	u32 sub;

	bloom_tt_cand(f, h, &c);
	if (!bloom_tm_find(f, &c, bloom_tm_tag(f, h), now, &idx, &sub, NULL))
		return BLOOM_DEL_ABSENT;
	bloom_tt_put(f, idx, 0);
	WRITE_ONCE(f->subtable_used[sub], f->subtable_used[sub] - 1);
	return BLOOM_DEL_GONE;
}

static void bloom_tm_prefetch(const struct bloom_core *f, u64 h, bool write)
{
	struct bloom_tt_cand c;
	u32 i;

	bloom_tt_cand(f, h, &c);
	for (i = 0; i < BLOOM_TT_SUBTABLES; i++)
		bloom_prefetch_word((const u64 *)f->words +
				    c.bucket[i] * BLOOM_TT_BUCKET_WORDS, write);
}

/* ---- the API ---- */

bool bloom_core_is_timed(const struct bloom_core *f)
{
	return f->geo.type == BLOOM_CORE_TIMED;
}

void bloom_timed_set_timeouts(struct bloom_core *f, u32 timeout_s, u32 max_s)
{
	f->key_timeout_s = timeout_s;
	f->key_timeout_max_s = max_s ?: BLOOM_CORE_KEY_TIMEOUT_MAX;
}

u32 bloom_timed_tag_bits(const struct bloom_core *f)
{
	return bloom_core_is_timed(f) ? bloom_tm_tag_bits(f) : 0;
}

static u32 bloom_tm_query_many(const struct bloom_core *f,
			       const u64 *hashes, u32 n, u8 *results, u64 now)
{
	u32 i, hits = 0;
	bool r;

	for (i = 0; i < n; i++) {
		if (i + BLOOM_PREFETCH_AHEAD < n)
			bloom_tm_prefetch(f, hashes[i + BLOOM_PREFETCH_AHEAD],
					  false);
		r = bloom_tm_query_one(f, hashes[i], now);
		hits += r;
		bloom_result(results, i, r);
	}
	return hits;
}

u32 bloom_timed_add_batch(struct bloom_core *f, const u64 *hashes, u32 n,
			  const u32 *timeouts, u32 timeout_s, u8 *results,
			  u32 *done)
{
	struct bloom_tm_expiry e;
	u64 now = bloom_clock_s();
	u32 hits = 0, i;
	int r;

	bloom_tm_expiry(timeout_s, now, &e);
	for (i = 0; i < n; i++) {
		if (i + BLOOM_PREFETCH_AHEAD < n)
			bloom_tm_prefetch(f, hashes[i + BLOOM_PREFETCH_AHEAD],
					  true);
		if (timeouts)
			bloom_tm_expiry(timeouts[i], now, &e);
		r = bloom_tm_add_one(f, hashes[i], &e, now);
		if (r < 0)
			break;
		hits += r;
		bloom_result(results, i, r);
	}
	*done = i;
	return hits;
}

static u32 bloom_tm_delete_many(struct bloom_core *f, const u64 *hashes,
				u32 n, u8 *results, u8 *pinned, u32 *npinned,
				u64 now)
{
	u32 i, removed = 0;

	for (i = 0; i < n; i++) {
		if (i + BLOOM_PREFETCH_AHEAD < n)
			bloom_tm_prefetch(f, hashes[i + BLOOM_PREFETCH_AHEAD],
					  true);
		removed += bloom_del_result(results, pinned, npinned, i,
					    bloom_tm_delete_one(f, hashes[i],
								now));
	}
	return removed;
}

int bloom_timed_put(struct bloom_core *f, u64 h, u32 timeout_s, bool insert)
{
	struct bloom_tm_expiry e;
	u64 now = bloom_clock_s();

	bloom_tm_expiry(timeout_s, now, &e);
	return bloom_tm_put(f, h, &e, now, insert);
}

bool bloom_timed_remove(struct bloom_core *f, u64 h)
{
	return bloom_tm_delete_one(f, h, bloom_clock_s()) == BLOOM_DEL_GONE;
}

u64 bloom_timed_buckets(const struct bloom_core *f)
{
	return f->geo.buckets * BLOOM_TT_SUBTABLES;
}

u64 bloom_timed_sweep(struct bloom_core *f, u64 first, u64 n)
{
	u64 cells[BLOOM_TT_CELLS_MAX], b, end, freed = 0, now = bloom_clock_s();
	u32 j, nc = bloom_tt_cells(f), sub;

	end = bloom_timed_buckets(f);
	if (first >= end)
		return 0;
	if (n < end - first)
		end = first + n;
	for (b = first; b < end; b++) {
		bloom_tt_bucket(f, b, cells);
		sub = b >= f->geo.buckets;
		for (j = 0; j < nc; j++) {
			if (!cells[j] || bloom_tm_live(cells[j], now))
				continue;
			bloom_tm_reclaim(f, b * nc + j, sub);
			freed++;
		}
	}
	return freed;
}

u64 bloom_timed_count_live(const struct bloom_core *f)
{
	u64 i, n = bloom_timed_buckets(f) * bloom_tt_cells(f), cell, live = 0;
	u64 now = bloom_clock_s();

	for (i = 0; i < n; i++) {
		if (!(i & 0xffff))
			bloom_cond_resched();
		cell = bloom_tt_get(f, i);
		live += cell && bloom_tm_live(cell, now);
	}
	return live;
}

/* ---- the type's table: adds take the filter's timeout, now's clock ---- */

static int bloom_tm_add(struct bloom_core *f, u64 h)
{
	struct bloom_tm_expiry e;
	u64 now = bloom_clock_s();

	bloom_tm_expiry(f->key_timeout_s, now, &e);
	return bloom_tm_add_one(f, h, &e, now);
}

static int bloom_tm_delete(struct bloom_core *f, u64 h)
{
	return bloom_del_status(bloom_tm_delete_one(f, h, bloom_clock_s()));
}

bool bloom_tm_query(const struct bloom_core *f, u64 h)
{
	return bloom_tm_query_one(f, h, BLOOM_TM_NOW_UNREAD);
}

static u32 bloom_tm_query_batch(const struct bloom_core *f, const u64 *hashes,
				u32 n, u8 *results)
{
	return bloom_tm_query_many(f, hashes, n, results, bloom_clock_s());
}

static u32 bloom_tm_add_batch(struct bloom_core *f, const u64 *hashes, u32 n,
			      u8 *results, u32 *done)
{
	return bloom_timed_add_batch(f, hashes, n, NULL, f->key_timeout_s,
				     results, done);
}

static u32 bloom_tm_delete_batch(struct bloom_core *f, const u64 *hashes,
				 u32 n, u8 *results, u8 *pinned, u32 *npinned)
{
	return bloom_tm_delete_many(f, hashes, n, results, pinned, npinned,
				    bloom_clock_s());
}

u64 bloom_timed_used(const struct bloom_core *f)
{
	u64 used = 0;
	u32 i;

	for (i = 0; i < BLOOM_TT_SUBTABLES; i++)
		used += READ_ONCE(f->subtable_used[i]);
	return used;
}

static u64 bloom_tm_scan(const struct bloom_core *f)
{
	u64 i, n = bloom_timed_buckets(f) * bloom_tt_cells(f), used = 0;

	for (i = 0; i < n; i++)
		used += !!bloom_tt_get(f, i);
	return used;
}

const struct bloom_core_ops bloom_tm_ops = {
	.add = bloom_tm_add,
	.delete = bloom_tm_delete,
	.query = bloom_tm_query,
	.prefetch_hash = bloom_tm_prefetch,
	.add_batch = bloom_tm_add_batch,
	.delete_batch = bloom_tm_delete_batch,
	.query_batch = bloom_tm_query_batch,
	.in_use = bloom_timed_used,
	.scan_in_use = bloom_tm_scan,
};

/* ---- sizing ---- */

/* 16 x the largest load of @w-bit cells with @r fingerprint bits at p. */
static u64 bloom_tm_load16(u32 r, u32 fpp_ppb, u32 w)
{
	return bloom_cell_load16(r, fpp_ppb, BLOOM_TT_LOG2_SUBTABLES,
				 bloom_tt_load16_max(w));
}

static void bloom_tm_geo_fill(struct bloom_geometry *geo, u64 capacity,
			      u32 fpp_ppb, u32 w, u64 buckets, u32 r)
{
	geo->type = BLOOM_CORE_TIMED;
	geo->hashes = BLOOM_TT_SUBTABLES;
	geo->bits = bloom_tt_table_bits(buckets);
	geo->capacity = capacity;
	geo->fpp_ppb = fpp_ppb;
	geo->fingerprint_bits = r;
	geo->cell_bits = w;
	geo->buckets = buckets;
}

/*
 * The load rule (timed_table.h) with w - 11 bits for the fingerprint: the
 * width whose table takes the fewest bits at its largest load (on a tie
 * the wider). The fingerprint then takes the fewest bits that keep p at
 * that load, but at least BLOOM_TM_FP_SIZED_MIN, and the tag the rest of
 * the cell: spare bits make the case where two keys are one rarer,
 * instead of a rate nobody asked for.
 */
int bloom_tm_size(u64 capacity, u32 fpp_ppb, struct bloom_geometry *geo)
{
	u64 l16, buckets, bits, best_bits = ~0ULL, best_l16 = 0, best_b = 0;
	u32 w, best_w = 0, r;

	for (w = 32; w <= BLOOM_TT_WORD_BITS; w *= 2) {
		l16 = bloom_tm_load16(w - BLOOM_TM_LOW_BITS, fpp_ppb, w);
		if (!l16)
			continue;
		/* n = 2 B L  =>  B = ceil(8 n / (16 L)) */
		buckets = div64_u64(8 * capacity + l16 - 1, l16);
		bits = bloom_tt_table_bits(buckets);
		if (bits <= best_bits) {
			best_bits = bits;
			best_w = w;
			best_l16 = l16;
			best_b = buckets;
		}
	}
	if (!best_w || best_bits > BLOOM_CORE_BITS_MAX)
		return -E2BIG;
	for (r = BLOOM_TM_FP_SIZED_MIN;
	     bloom_tm_load16(r, fpp_ppb, best_w) < best_l16; r++)
		;
	bloom_tm_geo_fill(geo, capacity, fpp_ppb, best_w, best_b, r);
	return 0;
}

/*
 * From a capacity and a budget of table bits: the width whose table in the
 * budget gives the lowest rate, every bit above the tick and class for the
 * fingerprint (no tag), the rate recorded as the load rule's. -ERANGE when
 * no width keeps its largest load or the rate at 0.5.
 */
int bloom_tm_size_bits(u64 capacity, u64 budget, struct bloom_geometry *geo)
{
	u64 b, l16, ppb, best_ppb = ~0ULL;
	u32 w, best_w = 0;

	if (budget > BLOOM_CORE_BITS_MAX)
		budget = BLOOM_CORE_BITS_MAX;
	b = div64_u64(budget, bloom_tt_table_bits(1));
	if (!b)
		return -ERANGE;
	/* 16 L = 16 n / (2 B), rounded up */
	l16 = div64_u64(8 * capacity + b - 1, b);
	for (w = 32; w <= BLOOM_TT_WORD_BITS; w *= 2) {
		if (l16 > bloom_tt_load16_max(w))
			continue;
		ppb = bloom_cell_rate_ppb(l16, w - BLOOM_TM_LOW_BITS,
					  BLOOM_TT_LOG2_SUBTABLES);
		if (ppb < best_ppb) {
			best_ppb = ppb;
			best_w = w;
		}
	}
	if (!best_w || best_ppb > BLOOM_CORE_FPP_PPB_MAX)
		return -ERANGE;
	bloom_tm_geo_fill(geo, capacity, (u32)best_ppb, best_w, b,
			  best_w - BLOOM_TM_LOW_BITS);
	return 0;
}

/* ---- snapshots ---- */

/* Is the used cell @i its identity's only cell among its candidates? */
static bool bloom_tm_image_cell(struct bloom_core *f, u64 i, u64 cell)
{
	u32 t = bloom_tm_tag_bits(f), nc = bloom_tt_cells(f), sub, k, j;
	u64 tag = cell >> BLOOM_TM_LOW_BITS & ((1ULL << t) - 1);
	u64 cells[BLOOM_TT_CELLS_MAX], id;
	struct bloom_tt_cand c;

	bloom_tt_cand_of(f, bloom_tt_bucket_of(f, i),
			 cell >> (BLOOM_TM_LOW_BITS + t), &c, &sub);
	f->subtable_used[sub]++;
	for (k = 0; k < BLOOM_TT_SUBTABLES; k++) {
		id = bloom_tm_id(f, &c, k, tag);
		bloom_tt_bucket(f, c.bucket[k], cells);
		for (j = 0; j < nc; j++)
			if (c.bucket[k] * nc + j != i && cells[j] &&
			    bloom_tm_id_of(cells[j]) == id)
				return false;
	}
	return true;
}

/*
 * Cells loaded from a snapshot: an empty cell is all zero; a used cell
 * has a class, and its fingerprint and tag are the only ones of its
 * identity among the identity's candidates (what add and delete rely on;
 * the identity is recovered from the cell's bucket and fingerprint by
 * bloom_tt_cand_of()). Recounts the cells in use. 0 or -EBADMSG.
 */
int bloom_tm_image_check(struct bloom_core *f)
{
	u64 i, n = bloom_timed_buckets(f) * bloom_tt_cells(f), cell;
	u32 s;

	for (s = 0; s < BLOOM_DLEFT_SUBTABLES; s++)
		f->subtable_used[s] = 0;
	for (i = 0; i < n; i++) {
		if (!(i & 0xffff))
			bloom_cond_resched();
		cell = bloom_tt_get(f, i);
		if (!cell)
			continue;
		if (!bloom_tm_class(cell) || !bloom_tm_image_cell(f, i, cell))
			return -EBADMSG;
	}
	return 0;
}

/* Seconds a cell had left at @saved_s (its class @cls not FOREVER). */
static u64 bloom_tm_left(u64 cell, u32 cls, u64 saved_s)
{
	u64 a = bloom_tm_ahead(cell, cls, saved_s);

	if (a - 1 >= BLOOM_TM_AHEAD)
		return 0;
	return bloom_tm_deadline(cell, saved_s) - saved_s;
}

int bloom_timed_rebase(struct bloom_core *f, u64 saved_s, u64 elapsed_s,
		       u32 max_s)
{
	u64 i, n = bloom_timed_buckets(f) * bloom_tt_cells(f), cell, left, u;
	u64 now_s = bloom_clock_s();
	u32 cls, j, jmax = bloom_tm_shift(max_s), sub;

	for (i = 0; i < n; i++) {
		if (!(i & 0xffff))
			bloom_cond_resched();
		cell = bloom_tt_get(f, i);
		cls = bloom_tm_class(cell);
		if (!cell || cls == BLOOM_TM_CLASS_FOREVER)
			continue;
		j = cls - 1;
		if (j > jmax)
			return -EBADMSG;	/* no timeout up to max_s has it */
		left = bloom_tm_left(cell, cls, saved_s);
		/* T + 1 s rounded up, and two units of restores' rounding */
		if (left > (u64)max_s + (3ULL << j) + 1)
			return -EBADMSG;
		if (left <= elapsed_s) {
			/* queries may run: a live table's catch-up */
			sub = bloom_tt_bucket_of(f, i) >= f->geo.buckets;
			bloom_tm_reclaim(f, i, sub);
			continue;
		}
		/*
		 * The same expiry on this clock, rounded up to its unit. Each
		 * restore may round up once more, but the key's own expiry is
		 * never more than 33 units ahead (T + 1 <= 32 units, plus the
		 * unit now is in): what a chain of restores added beyond
		 * BLOOM_TM_AHEAD is rounding, and goes.
		 */
		u = (now_s + left - elapsed_s + (1ULL << j) - 1) >> j;
		if (u - (now_s >> j) > BLOOM_TM_AHEAD)
			u = (now_s >> j) + BLOOM_TM_AHEAD;
		bloom_tt_put(f, i, (cell & ~BLOOM_TM_TICK_MASK) |
			     (u & BLOOM_TM_TICK_MASK));
	}
	return 0;
}

/*
 * A geometry from outside (a snapshot): the layout the code above works
 * on, whatever the sizing rule of the module that wrote it. A table of
 * four subtables (hashes 4) is the layout before this one, which
 * bloom_image_header_read() refuses with its own message; userspace makes
 * one of 32-bit cells over into this layout first (snapshot_upgrade.c).
 */
int bloom_tm_geometry_check(const struct bloom_geometry *geo)
{
	u32 w = geo->cell_bits;

	if (geo->bits > BLOOM_CORE_BITS_MAX)
		return -E2BIG;
	if ((w != 32 && w != BLOOM_TT_WORD_BITS) ||
	    geo->hashes != BLOOM_TT_SUBTABLES || !geo->buckets ||
	    geo->fingerprint_bits < BLOOM_TM_FP_MIN ||
	    geo->fingerprint_bits > w - BLOOM_TM_LOW_BITS)
		return -EINVAL;
	if (geo->buckets > BLOOM_CORE_BITS_MAX / bloom_tt_table_bits(1))
		return -E2BIG;
	if (geo->bits != bloom_tt_table_bits(geo->buckets) ||
	    !bloom_capacity_rate_valid(geo->capacity, geo->fpp_ppb))
		return -EINVAL;
	return 0;
}
