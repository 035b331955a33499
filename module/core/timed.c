// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A filter whose keys each carry their own timeout, and can be deleted: the
 * d-left table of dleft.h, whose cells hold a fingerprint, a tag and a
 * coarse expiry instead of a counter. It is a set: adding a key that is in
 * it already keeps the later of its two expiries, deleting it empties its
 * cell, whatever was repeated in between.
 *
 * A cell of w bits (w = 64 / c), lowest bits first:
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
 * Queries compare the fingerprint only; adds and deletes compare the
 * fingerprint and the tag, t more bits taken from another mix of the hash.
 * Two keys that agree in both are one key to the filter (their (bucket,
 * fingerprint) pairs agree in every subtable, dleft.h): a delete of one
 * removes the other. That needs the t tag bits to agree too, so it is 2^t
 * times rarer than a false positive at the add (bloom.rst has the
 * figures). Keys that share the fingerprint but not the tag get a cell
 * each, and a delete removes only its own.
 *
 * Concurrency is the d-left table's: writers are serialised by the caller,
 * every change of a cell (new, refreshed, emptied, reclaimed) is one
 * WRITE_ONCE of its word and a query reads each word once.
 */
#include "dleft.h"

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
/* fingerprints of at least this many bits (dleft.h's load rule) */
#define BLOOM_TM_FP_MIN		6
/* the widest cell: 16 bits would leave 5 for the fingerprint */
#define BLOOM_TM_PER_WORD_MAX	3
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
			      const struct bloom_dl_cand *c, u32 i, u64 tag)
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

static inline bool bloom_tm_query_one(const struct bloom_core *f, u64 h,
				      u64 now)
{
	u64 cells[BLOOM_DLEFT_CELLS];
	u32 i, j, shift = BLOOM_TM_LOW_BITS + bloom_tm_tag_bits(f);
	struct bloom_dl_cand c;

	bloom_dl_cand(f, h, &c);
	for (i = 0; i < BLOOM_DLEFT_SUBTABLES; i++) {
		bloom_dl_bucket(f, c.cell[i], cells);
		for (j = 0; j < BLOOM_DLEFT_CELLS; j++)
			if (cells[j] && cells[j] >> shift == c.fp[i] &&
			    bloom_tm_live(cells[j], now))
				return true;
	}
	return false;
}

/* Empties the expired cell @idx of subtable @sub. */
static inline void bloom_tm_reclaim(struct bloom_core *f, u64 idx, u32 sub)
{
	bloom_dl_put(f, idx, 0);
	WRITE_ONCE(f->subtable_used[sub], f->subtable_used[sub] - 1);
	WRITE_ONCE(f->reclaimed, f->reclaimed + 1);
}

/*
 * The key's live cell, matched on fingerprint and tag: true and its index
 * and subtable, or false. Expired cells of the candidate buckets are
 * reclaimed on the way; @load (may be NULL) gets each candidate bucket's
 * live cells, complete only when false is returned.
 */
static bool bloom_tm_find(struct bloom_core *f, const struct bloom_dl_cand *c,
			  u64 tag, u64 now, u64 *idx, u32 *sub, u32 *load)
{
	u64 cells[BLOOM_DLEFT_CELLS], id;
	u32 i, j;

	for (i = 0; i < BLOOM_DLEFT_SUBTABLES; i++) {
		if (load)
			load[i] = 0;
		id = bloom_tm_id(f, c, i, tag);
		bloom_dl_bucket(f, c->cell[i], cells);
		for (j = 0; j < BLOOM_DLEFT_CELLS; j++) {
			if (!cells[j])
				continue;
			if (!bloom_tm_live(cells[j], now)) {
				bloom_tm_reclaim(f, c->cell[i] + j, i);
				continue;
			}
			if (bloom_tm_id_of(cells[j]) == id) {
				*idx = c->cell[i] + j;
				*sub = i;
				return true;
			}
			if (load)
				load[i]++;
		}
	}
	return false;
}

/* 1: present already (the later expiry kept); 0: a new cell; -ENOSPC. */
static int bloom_tm_add_one(struct bloom_core *f, u64 h,
			    const struct bloom_tm_expiry *e, u64 now)
{
	u32 load[BLOOM_DLEFT_SUBTABLES], i, j, best = 0, sub;
	u64 cells[BLOOM_DLEFT_CELLS], idx, v, tag = bloom_tm_tag(f, h);
	struct bloom_dl_cand c;

	bloom_dl_cand(f, h, &c);
	if (bloom_tm_find(f, &c, tag, now, &idx, &sub, load)) {
		v = bloom_dl_get(f, idx);
		if (e->deadline > bloom_tm_deadline(v, now))
			bloom_dl_put(f, idx, bloom_tm_id_of(v) | e->low);
		return 1;
	}
	/* least loaded, leftmost on ties: the "d-left" rule */
	for (i = 1; i < BLOOM_DLEFT_SUBTABLES; i++)
		if (load[i] < load[best])
			best = i;
	if (load[best] == BLOOM_DLEFT_CELLS) {
		WRITE_ONCE(f->insert_failures, f->insert_failures + 1);
		return -ENOSPC;
	}
	bloom_dl_bucket(f, c.cell[best], cells);
	for (j = 0; j < BLOOM_DLEFT_CELLS; j++)
		if (!cells[j])
			break;
	bloom_dl_put(f, c.cell[best] + j, bloom_tm_id(f, &c, best, tag) | e->low);
	WRITE_ONCE(f->subtable_used[best], f->subtable_used[best] + 1);
	return 0;
}

static enum bloom_del bloom_tm_delete_one(struct bloom_core *f, u64 h, u64 now)
{
	struct bloom_dl_cand c;
	u64 idx;
	u32 sub;

	bloom_dl_cand(f, h, &c);
	if (!bloom_tm_find(f, &c, bloom_tm_tag(f, h), now, &idx, &sub, NULL))
		return BLOOM_DEL_ABSENT;
	bloom_dl_put(f, idx, 0);
	WRITE_ONCE(f->subtable_used[sub], f->subtable_used[sub] - 1);
	return BLOOM_DEL_GONE;
}

static void bloom_tm_prefetch(const struct bloom_core *f, u64 h, bool write)
{
	struct bloom_dl_cand c;
	u32 i, slot;

	bloom_dl_cand(f, h, &c);
	for (i = 0; i < BLOOM_DLEFT_SUBTABLES; i++)
		bloom_prefetch_word((const u64 *)f->words +
				    bloom_dl_word(f, c.cell[i], &slot), write);
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

bool bloom_timed_query(const struct bloom_core *f, u64 h, u64 now)
{
	return bloom_tm_query_one(f, h, now);
}

u32 bloom_timed_query_batch(const struct bloom_core *f, const u64 *hashes,
			    u32 n, u8 *results, u64 now)
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

int bloom_timed_add(struct bloom_core *f, u64 h, u32 timeout_s, u64 now)
{
	struct bloom_tm_expiry e;

	bloom_tm_expiry(timeout_s, now, &e);
	return bloom_tm_add_one(f, h, &e, now);
}

u32 bloom_timed_add_batch(struct bloom_core *f, const u64 *hashes, u32 n,
			  const u32 *timeouts, u32 timeout_s, u64 now,
			  u8 *results, u32 *done)
{
	struct bloom_tm_expiry e;
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

int bloom_timed_delete(struct bloom_core *f, u64 h, u64 now)
{
	return bloom_del_status(bloom_tm_delete_one(f, h, now));
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

u32 bloom_timed_delete_batch(struct bloom_core *f, const u64 *hashes, u32 n,
			     u8 *results, u64 now)
{
	u32 np = 0;

	return bloom_tm_delete_many(f, hashes, n, results, NULL, &np, now);
}

u64 bloom_timed_buckets(const struct bloom_core *f)
{
	return f->geo.buckets * BLOOM_DLEFT_SUBTABLES;
}

u64 bloom_timed_sweep(struct bloom_core *f, u64 first, u64 n, u64 now)
{
	u64 cells[BLOOM_DLEFT_CELLS], b, end, freed = 0;
	u32 j, sub;

	end = bloom_timed_buckets(f);
	if (first >= end)
		return 0;
	if (n < end - first)
		end = first + n;
	for (b = first; b < end; b++) {
		bloom_dl_bucket(f, b * BLOOM_DLEFT_CELLS, cells);
		sub = (u32)div64_u64(b, f->geo.buckets);
		for (j = 0; j < BLOOM_DLEFT_CELLS; j++) {
			if (!cells[j] || bloom_tm_live(cells[j], now))
				continue;
			bloom_tm_reclaim(f, b * BLOOM_DLEFT_CELLS + j, sub);
			freed++;
		}
	}
	return freed;
}

u64 bloom_timed_count_live(const struct bloom_core *f, u64 now)
{
	u64 i, n = bloom_timed_buckets(f) * BLOOM_DLEFT_CELLS;
	u64 cells[BLOOM_DLEFT_CELLS], live = 0;
	u32 j;

	for (i = 0; i < n; i += BLOOM_DLEFT_CELLS) {
		if (!(i & 0xffff))
			bloom_cond_resched();
		bloom_dl_bucket(f, i, cells);
		for (j = 0; j < BLOOM_DLEFT_CELLS; j++)
			live += cells[j] && bloom_tm_live(cells[j], now);
	}
	return live;
}

/* ---- the type's table: adds take the filter's timeout, now's clock ---- */

static int bloom_tm_add(struct bloom_core *f, u64 h)
{
	return bloom_timed_add(f, h, f->key_timeout_s, bloom_clock_s());
}

static int bloom_tm_delete(struct bloom_core *f, u64 h)
{
	return bloom_timed_delete(f, h, bloom_clock_s());
}

static bool bloom_tm_query(const struct bloom_core *f, u64 h)
{
	return bloom_tm_query_one(f, h, bloom_clock_s());
}

static u32 bloom_tm_query_batch(const struct bloom_core *f, const u64 *hashes,
				u32 n, u8 *results)
{
	return bloom_timed_query_batch(f, hashes, n, results, bloom_clock_s());
}

static u32 bloom_tm_add_batch(struct bloom_core *f, const u64 *hashes, u32 n,
			      u8 *results, u32 *done)
{
	return bloom_timed_add_batch(f, hashes, n, NULL, f->key_timeout_s,
				     bloom_clock_s(), results, done);
}

static u32 bloom_tm_delete_batch(struct bloom_core *f, const u64 *hashes,
				 u32 n, u8 *results, u8 *pinned, u32 *npinned)
{
	return bloom_tm_delete_many(f, hashes, n, results, pinned, npinned,
				    bloom_clock_s());
}

/* Cells in use, live or expired and not reclaimed yet. */
static u64 bloom_tm_used(const struct bloom_core *f)
{
	u64 used = 0;
	u32 i;

	for (i = 0; i < BLOOM_DLEFT_SUBTABLES; i++)
		used += READ_ONCE(f->subtable_used[i]);
	return used;
}

static u64 bloom_tm_scan(const struct bloom_core *f)
{
	u64 i, n = bloom_timed_buckets(f) * BLOOM_DLEFT_CELLS;
	u64 cells[BLOOM_DLEFT_CELLS], used = 0;
	u32 j;

	for (i = 0; i < n; i += BLOOM_DLEFT_CELLS) {
		bloom_dl_bucket(f, i, cells);
		for (j = 0; j < BLOOM_DLEFT_CELLS; j++)
			used += !!cells[j];
	}
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
	.in_use = bloom_tm_used,
	.scan_in_use = bloom_tm_scan,
};

/* ---- sizing ---- */

/*
 * The d-left rule (dleft.h) with w - 11 bits for the fingerprint: the
 * width whose table takes the fewest bits at its largest load (on a tie
 * the wider). The fingerprint then takes the fewest bits that keep p at
 * that load, and the tag the rest of the cell: spare bits make the case
 * where two keys are one rarer, instead of a rate nobody asked for.
 */
int bloom_tm_size(u64 capacity, u32 fpp_ppb, struct bloom_geometry *geo)
{
	struct bloom_dl_shape sh;
	int ret = bloom_dl_shape_np(capacity, fpp_ppb, BLOOM_TM_PER_WORD_MAX,
				    BLOOM_TM_LOW_BITS, &sh);
	u32 r;

	if (ret)
		return ret;
	for (r = BLOOM_TM_FP_MIN; bloom_dl_load16(r, fpp_ppb) < sh.l16; r++)
		;
	bloom_dl_geo_fill(geo, BLOOM_CORE_TIMED, capacity, fpp_ppb, &sh, r);
	return 0;
}

/*
 * From a capacity and a budget of table bits: the width whose table in the
 * budget gives the lowest rate, every bit above the tick and class for the
 * fingerprint (no tag). -ERANGE as bloom_dl_size_bits().
 */
int bloom_tm_size_bits(u64 capacity, u64 budget, struct bloom_geometry *geo)
{
	struct bloom_dl_shape sh;
	int ret = bloom_dl_shape_nb(capacity, budget, BLOOM_TM_PER_WORD_MAX,
				    BLOOM_TM_LOW_BITS, &sh);

	if (ret)
		return ret;
	bloom_dl_geo_fill(geo, BLOOM_CORE_TIMED, capacity, (u32)sh.ppb, &sh,
			  sh.w - BLOOM_TM_LOW_BITS);
	return 0;
}

/* ---- snapshots ---- */

/*
 * Cells loaded from a snapshot: an empty cell is all zero, so are the cells
 * past the last bucket and the bits above a word's last cell; a used cell
 * has a class, and its fingerprint and tag are the only ones of its value
 * among the value's candidates (what add and delete rely on). Recounts the
 * cells in use. 0 or -EBADMSG.
 */
int bloom_tm_image_check(struct bloom_core *f)
{
	u64 n = bloom_timed_buckets(f) * BLOOM_DLEFT_CELLS;
	u64 nw = f->geo.bits / BLOOM_DL_WORD_BITS, mask = bloom_dl_cell_mask(f);
	u32 w = f->geo.cell_bits, per = f->dl_per_word, t = bloom_tm_tag_bits(f);
	u64 cells[BLOOM_DLEFT_CELLS], wi, i, v, cell, tag;
	const u64 *words = (const u64 *)f->words;
	struct bloom_dl_cand c;
	u32 s, sub, k, j;

	for (s = 0; s < BLOOM_DLEFT_SUBTABLES; s++)
		f->subtable_used[s] = 0;
	for (wi = 0; wi < nw; wi++) {
		if (!(wi & 0xffff))
			bloom_cond_resched();
		v = READ_ONCE(words[wi]);
		if (per * w < BLOOM_DL_WORD_BITS && v >> (per * w))
			return -EBADMSG;
		for (s = 0, i = wi * per; s < per; s++, i++) {
			cell = v >> (s * w) & mask;
			if (!cell)
				continue;
			if (i >= n || !bloom_tm_class(cell))
				return -EBADMSG;
			tag = cell >> BLOOM_TM_LOW_BITS & ((1ULL << t) - 1);
			bloom_dl_cand_of_cell(f, i, cell >> (BLOOM_TM_LOW_BITS + t),
					      &c, &sub);
			f->subtable_used[sub]++;
			for (k = 0; k < BLOOM_DLEFT_SUBTABLES; k++) {
				bloom_dl_bucket(f, c.cell[k], cells);
				for (j = 0; j < BLOOM_DLEFT_CELLS; j++)
					if (c.cell[k] + j != i && cells[j] &&
					    bloom_tm_id_of(cells[j]) ==
					    bloom_tm_id(f, &c, k, tag))
						return -EBADMSG;
			}
		}
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
		       u64 now_s, u32 max_s)
{
	u64 i, n = bloom_timed_buckets(f) * BLOOM_DLEFT_CELLS, cell, left, u;
	u32 cls, j, jmax = bloom_tm_shift(max_s), sub;

	for (i = 0; i < n; i++) {
		if (!(i & 0xffff))
			bloom_cond_resched();
		cell = bloom_dl_get(f, i);
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
			sub = (u32)div64_u64(i, f->geo.buckets *
					     BLOOM_DLEFT_CELLS);
			bloom_dl_put(f, i, 0);
			f->subtable_used[sub]--;
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
		bloom_dl_put(f, i, (cell & ~BLOOM_TM_TICK_MASK) |
			     (u & BLOOM_TM_TICK_MASK));
	}
	return 0;
}

/* A geometry from outside (a snapshot): the shape the code above needs. */
int bloom_tm_geometry_check(const struct bloom_geometry *geo)
{
	return bloom_dl_shape_check(geo, BLOOM_TM_PER_WORD_MAX, BLOOM_TM_FP_MIN,
				    BLOOM_TM_LOW_BITS);
}
