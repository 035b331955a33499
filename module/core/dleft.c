// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * d-left counting Bloom filter (Bonomi, Mitzenmacher, Panigrahy, Singh,
 * Varghese 2006): 4 subtables of B buckets of 8 cells; a cell holds an r-bit
 * fingerprint and a 2-bit counter (0 = empty cell, 3 = saturated for good).
 *
 * One value x = (q, f) in [0, B * 2^r) is taken from the key's 64-bit hash:
 * q = the high bits of h mapped onto [0, B), f = its low r bits. Subtable i
 * sees x through a fixed bijection P_i(q, f) = (bucket_i, fingerprint_i),
 * a two-round Feistel network:
 *	fingerprint_i = f ^ mix(q, i) (mod 2^r)
 *	bucket_i = q + mix(fingerprint_i, i) * B / 2^64 (mod B)
 * Each round can be inverted, so two keys share (bucket, fingerprint) in a
 * subtable only when their x are equal, and then they do in every subtable.
 * An insert first looks for its fingerprint in all 4 candidate buckets and
 * increments that cell, so a fingerprint occurs at most once among a key's
 * candidates and a delete knows which cell to decrement. (The paper writes
 * P_i(x) = a_i * x mod N; reducing a 128-bit product mod a non-power-of-two
 * N needs a 128-bit division the kernel does not have on every
 * architecture, and a power-of-two N could double the memory. The Feistel
 * form needs one multiply-shift and one conditional subtraction.)
 *
 * Cells are w = r + 2 bits wide, packed floor(64 / w) to a u64 word: cell c
 * is bits [s, s + w) of word c / (64 / w), s = (c % (64 / w)) * w, its
 * counter the low 2 of them. No cell straddles two words, so every update
 * of a cell is one WRITE_ONCE of its word (writers are serialised by the
 * caller, so the read-modify-write of the word loses nothing), and a
 * lockless query's READ_ONCE of the word sees each cell whole. A cell never
 * moves and a write to one cell stores the other cells of its word
 * unchanged, so a key that stays live is found throughout: its own cell
 * changes only in its counter, which stays non-zero. (Where a u64 load is
 * two 32-bit loads, the same holds: every counter lies within one 32-bit
 * half of its word, for every width below.) Only w = floor(64 / c) for
 * c = 1..8 cells per word is used, the widest cell for its cost:
 *
 *	cells per word	8   7   6   5   4   3   2   1
 *	w (bits)	8   9  10  12  16  21  32  64
 *	r		6   7   8  10  14  19  30  62
 *	bits per cell	8 9.14 10.67 12.8 16 21.33 32 64
 *
 * r = 6 (p = 0.5 needs no less: L = 6 then gives 4 L 2^-r = 0.375) up to
 * r = 62 (a 64-bit hash has no more to give; 1e-9 takes 85.3 bits per
 * key). For w = 16 and 32 the words hold the same bytes as arrays of
 * little-endian u16 and u32 cells did before cells were packed, so their
 * snapshots are unchanged (Documentation/snapshot.rst).
 *
 * Sizing (bloom_dl_size): a never-added key is compared against the
 * fingerprints of its 4 buckets, about 4 * L cells at capacity, each a match
 * with probability 2^-r: p ~= 4 * L * 2^-r. The load L = n / (4 * B) is at
 * most 6 of 8 cells, where with d = 4 choices a full bucket is practically
 * impossible (see the unit tests: filling to capacity never fails), and is
 * otherwise the largest L with 4 * L * 2^-r <= p * 31 / 32 (a 3% margin so
 * the measured rate meets p), in steps of 1/16 cell. The width is the one
 * of the table above whose table takes the fewest bits, about
 * 64 / cells-per-word * 8 / L per key: 10.67 at p = 0.5, 14.2 at 0.1, 21.3
 * at 0.01, 28.4 at 0.001 and 1e-4, 42.7 from 1e-5 to 1e-7, 85.3 at 1e-9.
 */
#include "dleft.h"

#define BLOOM_DL_CTR_MASK	3ULL
#define BLOOM_DL_CTR_MAX	3ULL
#define BLOOM_DL_CTR_BITS	2

/* ---- sizing ---- */

/**
 * struct bloom_dl_shape - a table's shape as the sizing rule chose it
 * @w: cell width
 * @buckets: buckets per subtable
 * @ppb: from a budget (bloom_dl_shape_nb()): the rate it gives
 */
struct bloom_dl_shape {
	u32 w;
	u64 buckets;
	u64 ppb;
};

/* The geometry of @sh: a 2-bit counter beside an r = w - 2 bit fingerprint. */
static void bloom_dl_geo_fill(struct bloom_geometry *geo, u64 capacity,
			      u32 fpp_ppb, const struct bloom_dl_shape *sh)
{
	geo->type = BLOOM_CORE_DLEFT;
	geo->hashes = BLOOM_DLEFT_SUBTABLES;
	geo->bits = bloom_dl_table_bits(sh->buckets, sh->w);
	geo->capacity = capacity;
	geo->fpp_ppb = fpp_ppb;
	geo->fingerprint_bits = sh->w - BLOOM_DL_CTR_BITS;
	geo->cell_bits = sh->w;
	geo->buckets = sh->buckets;
}

/* From capacity and rate, the fewest table bits (-E2BIG over the limit). */
static int bloom_dl_shape_np(u64 capacity, u32 fpp_ppb,
			     struct bloom_dl_shape *sh)
{
	u64 l16, buckets, bits, best_bits = ~0ULL;
	u32 per, w;

	*sh = (struct bloom_dl_shape) { .w = 0 };
	/* fewest bits; on a tie the wider cell (the lower rate) */
	for (per = BLOOM_DL_PER_WORD_MAX; per >= 1; per--) {
		w = bloom_dl_width(per);
		l16 = bloom_dl_load16(w - BLOOM_DL_CTR_BITS, fpp_ppb);
		if (!l16)
			continue;
		/* n = 4 * B * L  =>  B = ceil(4 * n / (16 * L)) */
		buckets = div64_u64(4 * capacity + l16 - 1, l16);
		bits = bloom_dl_table_bits(buckets, w);
		if (bits <= best_bits) {
			best_bits = bits;
			*sh = (struct bloom_dl_shape) {
				.w = w, .buckets = buckets,
			};
		}
	}
	if (!sh->w || best_bits > BLOOM_CORE_BITS_MAX)
		return -E2BIG;
	return 0;
}

/*
 * From capacity and a budget of bits, the lowest rate (-ERANGE when none
 * keeps the load or the rate).
 */
static int bloom_dl_shape_nb(u64 capacity, u64 budget,
			     struct bloom_dl_shape *sh)
{
	u64 b, l16, ppb, words;
	u32 per, w;

	*sh = (struct bloom_dl_shape) { .ppb = ~0ULL };
	if (budget > BLOOM_CORE_BITS_MAX)
		budget = BLOOM_CORE_BITS_MAX;
	words = budget / BLOOM_DL_WORD_BITS;
	for (per = BLOOM_DL_PER_WORD_MAX; per >= 1; per--) {
		w = bloom_dl_width(per);
		b = div64_u64(words * per,
			      BLOOM_DLEFT_SUBTABLES * BLOOM_DLEFT_CELLS);
		if (!b)
			continue;
		/* 16 L = 16 n / (4 B), rounded up */
		l16 = div64_u64(4 * capacity + b - 1, b);
		if (l16 > BLOOM_DL_LOAD_MAX16)
			continue;
		ppb = bloom_dl_rate_ppb(l16, w - BLOOM_DL_CTR_BITS);
		if (ppb < sh->ppb)
			*sh = (struct bloom_dl_shape) {
				.w = w, .buckets = b, .ppb = ppb,
			};
	}
	if (!sh->w || sh->ppb > BLOOM_CORE_FPP_PPB_MAX)
		return -ERANGE;
	return 0;
}

int bloom_dl_size(u64 capacity, u32 fpp_ppb, struct bloom_geometry *geo)
{
	struct bloom_dl_shape sh;
	/* r = 62 always has a load: p >= 1e-9 gives L = 6 */
	int ret = bloom_dl_shape_np(capacity, fpp_ppb, &sh);

	if (ret)
		return ret;
	bloom_dl_geo_fill(geo, capacity, fpp_ppb, &sh);
	return 0;
}

/*
 * From a capacity and a budget of table bits (bloom_core_size()): the cell width
 * whose table within the budget gives the lower rate (on a tie the narrower),
 * the rate recorded as p = 4 L 2^-r * 32 / 31, the inverse of
 * bloom_dl_load16(). -ERANGE when no width keeps the load at 6 cells per
 * bucket or the rate at 0.5.
 */
int bloom_dl_size_bits(u64 capacity, u64 budget, struct bloom_geometry *geo)
{
	struct bloom_dl_shape sh;
	int ret = bloom_dl_shape_nb(capacity, budget, &sh);

	if (ret)
		return ret;
	bloom_dl_geo_fill(geo, capacity, (u32)sh.ppb, &sh);
	return 0;
}

/* ---- cells ---- */

/*
 * The layout constants of @f (bloom_core_init()): cells per word and
 * ceil(2^63 / cells per word), so that c / per = c * recip >> 63 exactly
 * for every cell index c below 2^60 (the error c * (recip * per - 2^63) /
 * 2^63 stays below 1 / per).
 */
void bloom_dl_init(struct bloom_core *f)
{
	u32 w = f->geo.cell_bits;

	f->dl_per_word = w ? BLOOM_DL_WORD_BITS / w : 1;
	f->dl_recip = ((1ULL << 63) - 1) / f->dl_per_word + 1;
}

static inline bool bloom_dl_match(u64 cell, u64 fp)
{
	return (cell & BLOOM_DL_CTR_MASK) && (cell >> BLOOM_DL_CTR_BITS) == fp;
}

/*
 * The cell holding the key's fingerprint: true and its index and subtable,
 * or false; @load (may be NULL) gets each candidate bucket's cells in use,
 * valid only when false is returned.
 */
static inline bool bloom_dl_find(const struct bloom_core *f,
				 const struct bloom_dl_cand *c, u64 *idx,
				 u32 *sub, u32 *load)
{
	u64 cells[BLOOM_DLEFT_CELLS];
	u32 i, j;

	for (i = 0; i < BLOOM_DLEFT_SUBTABLES; i++) {
		if (load)
			load[i] = 0;
		bloom_dl_bucket(f, c->cell[i], cells);
		for (j = 0; j < BLOOM_DLEFT_CELLS; j++) {
			if (!(cells[j] & BLOOM_DL_CTR_MASK))
				continue;
			if ((cells[j] >> BLOOM_DL_CTR_BITS) == c->fp[i]) {
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

static inline bool bloom_dl_query_one(const struct bloom_core *f, u64 h)
{
	u64 cells[BLOOM_DLEFT_CELLS];
	struct bloom_dl_cand c;
	u32 i, j;

	bloom_dl_cand(f, h, &c);
	for (i = 0; i < BLOOM_DLEFT_SUBTABLES; i++) {
		bloom_dl_bucket(f, c.cell[i], cells);
		for (j = 0; j < BLOOM_DLEFT_CELLS; j++)
			if (bloom_dl_match(cells[j], c.fp[i]))
				return true;
	}
	return false;
}

/* 1: present already (one more count); 0: a new cell; -ENOSPC: no room. */
static inline int bloom_dl_add_one(struct bloom_core *f, u64 h)
{
	u32 load[BLOOM_DLEFT_SUBTABLES], i, j, best = 0, sub;
	u64 cells[BLOOM_DLEFT_CELLS], idx, v;
	struct bloom_dl_cand c;

	bloom_dl_cand(f, h, &c);
	if (bloom_dl_find(f, &c, &idx, &sub, load)) {
		v = bloom_dl_get(f, idx);
		if ((v & BLOOM_DL_CTR_MASK) == BLOOM_DL_CTR_MAX)
			return 1;
		bloom_dl_put(f, idx, v + 1);
		if (((v + 1) & BLOOM_DL_CTR_MASK) == BLOOM_DL_CTR_MAX)
			WRITE_ONCE(f->saturated, f->saturated + 1);
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
		if (!(cells[j] & BLOOM_DL_CTR_MASK))
			break;
	bloom_dl_put(f, c.cell[best] + j, c.fp[best] << BLOOM_DL_CTR_BITS | 1);
	WRITE_ONCE(f->subtable_used[best], f->subtable_used[best] + 1);
	return 0;
}

/*
 * A saturated cell (count 3) stays as it is: the key is pinned, it still
 * tests present. A count of 1 empties the cell: the key is gone.
 */
static inline enum bloom_del bloom_dl_delete_one(struct bloom_core *f, u64 h)
{
	struct bloom_dl_cand c;
	u64 idx, v;
	u32 sub;

	bloom_dl_cand(f, h, &c);
	if (!bloom_dl_find(f, &c, &idx, &sub, NULL))
		return BLOOM_DEL_ABSENT;
	v = bloom_dl_get(f, idx);
	switch (v & BLOOM_DL_CTR_MASK) {
	case BLOOM_DL_CTR_MAX:
		return BLOOM_DEL_PINNED;
	case 1:
		bloom_dl_put(f, idx, 0);
		WRITE_ONCE(f->subtable_used[sub], f->subtable_used[sub] - 1);
		return BLOOM_DEL_GONE;
	default:
		bloom_dl_put(f, idx, v - 1);
		return BLOOM_DEL_REMOVED;
	}
}

static int bloom_dl_add(struct bloom_core *f, u64 h)
{
	return bloom_dl_add_one(f, h);
}

static int bloom_dl_delete(struct bloom_core *f, u64 h)
{
	return bloom_del_status(bloom_dl_delete_one(f, h));
}

bool bloom_dl_query(const struct bloom_core *f, u64 h)
{
	return bloom_dl_query_one(f, h);
}

static void bloom_dl_prefetch(const struct bloom_core *f, u64 h, bool write)
{
	struct bloom_dl_cand c;
	u32 i, slot;

	bloom_dl_cand(f, h, &c);
	for (i = 0; i < BLOOM_DLEFT_SUBTABLES; i++)
		bloom_prefetch_word((const u64 *)f->words +
				    bloom_dl_word(f, c.cell[i], &slot), write);
}

static u32 bloom_dl_query_batch(const struct bloom_core *f,
				const u64 *hashes, u32 n, u8 *results)
{
	u32 i, hits = 0;
	bool r;

	for (i = 0; i < n; i++) {
		if (i + BLOOM_PREFETCH_AHEAD < n)
			bloom_dl_prefetch(f, hashes[i + BLOOM_PREFETCH_AHEAD],
					  false);
		r = bloom_dl_query_one(f, hashes[i]);
		hits += r;
		bloom_result(results, i, r);
	}
	return hits;
}

/*
 * Stops at the first key whose candidate buckets are all full: the keys
 * before it stay added (a full filter keeps what fits, as a scalable one
 * that cannot grow does), *@done says how many.
 */
static u32 bloom_dl_add_batch(struct bloom_core *f, const u64 *hashes,
			      u32 n, u8 *results, u32 *done)
{
	u32 hits = 0, i;
	int r;

	for (i = 0; i < n; i++) {
		if (i + BLOOM_PREFETCH_AHEAD < n)
			bloom_dl_prefetch(f, hashes[i + BLOOM_PREFETCH_AHEAD],
					  true);
		r = bloom_dl_add_one(f, hashes[i]);
		if (r < 0)
			break;
		hits += r;
		bloom_result(results, i, r);
	}
	*done = i;
	return hits;
}

static u32 bloom_dl_delete_batch(struct bloom_core *f, const u64 *hashes,
				 u32 n, u8 *results, u8 *pinned, u32 *npinned)
{
	u32 i, removed = 0;
	enum bloom_del r;

	for (i = 0; i < n; i++) {
		if (i + BLOOM_PREFETCH_AHEAD < n)
			bloom_dl_prefetch(f, hashes[i + BLOOM_PREFETCH_AHEAD],
					  true);
		r = bloom_dl_delete_one(f, hashes[i]);
		removed += bloom_del_result(results, pinned, npinned, i, r);
	}
	return removed;
}

/* Cells in use, as the writers keep them per subtable. */
static u64 bloom_dl_used(const struct bloom_core *f)
{
	u64 used = 0;
	u32 i;

	for (i = 0; i < BLOOM_DLEFT_SUBTABLES; i++)
		used += READ_ONCE(f->subtable_used[i]);
	return used;
}

static u64 bloom_dl_scan(const struct bloom_core *f)
{
	u64 i, n = f->geo.buckets * BLOOM_DLEFT_SUBTABLES * BLOOM_DLEFT_CELLS;
	u64 cells[BLOOM_DLEFT_CELLS], used = 0;
	u32 j;

	for (i = 0; i < n; i += BLOOM_DLEFT_CELLS) {
		bloom_dl_bucket(f, i, cells);
		for (j = 0; j < BLOOM_DLEFT_CELLS; j++)
			used += !!(cells[j] & BLOOM_DL_CTR_MASK);
	}
	return used;
}

/* ---- snapshots ---- */

/*
 * A d-left geometry from a snapshot: the shape the code above works on
 * (4 subtables of 8-cell buckets of one of the cell widths above, packed
 * into whole words, the fingerprint the cell but its counter), whatever
 * the sizing rule of the module that wrote it.
 */
int bloom_dl_geometry_check(const struct bloom_geometry *geo)
{
	u32 w = geo->cell_bits;

	if (geo->bits > BLOOM_CORE_BITS_MAX)
		return -E2BIG;
	if (w < bloom_dl_width(BLOOM_DL_PER_WORD_MAX) ||
	    w > BLOOM_DL_WORD_BITS || w != bloom_dl_width(BLOOM_DL_WORD_BITS / w))
		return -EINVAL;
	if (geo->fingerprint_bits + BLOOM_DL_CTR_BITS != w ||
	    geo->hashes != BLOOM_DLEFT_SUBTABLES || !geo->buckets)
		return -EINVAL;
	if (geo->buckets > BLOOM_CORE_BITS_MAX / w /
			   (BLOOM_DLEFT_SUBTABLES * BLOOM_DLEFT_CELLS))
		return -E2BIG;
	if (geo->bits != bloom_dl_table_bits(geo->buckets, w))
		return -EINVAL;
	if (!bloom_capacity_rate_valid(geo->capacity, geo->fpp_ppb))
		return -EINVAL;
	return 0;
}

/* A used cell's value x must be the only one among its candidates. */
static int bloom_dl_snap_cell(struct bloom_core *f, u64 i, u64 v)
{
	u64 cells[BLOOM_DLEFT_CELLS];
	struct bloom_dl_cand c;
	u32 sub, s, j;

	bloom_dl_cand_of_cell(f, i, v >> BLOOM_DL_CTR_BITS, &c, &sub);
	f->subtable_used[sub]++;
	f->saturated += (v & BLOOM_DL_CTR_MASK) == BLOOM_DL_CTR_MAX;
	for (s = 0; s < BLOOM_DLEFT_SUBTABLES; s++) {
		bloom_dl_bucket(f, c.cell[s], cells);
		for (j = 0; j < BLOOM_DLEFT_CELLS; j++)
			if (c.cell[s] + j != i &&
			    bloom_dl_match(cells[j], c.fp[s]))
				return -EBADMSG;
	}
	return 0;
}

/*
 * Cells loaded from a snapshot: an empty cell is all zero, so are the
 * cells past the last bucket and the bits of a word above its last cell,
 * and a used cell's fingerprint is the only one of its value x among x's
 * 4 candidate buckets (the invariant add and delete rely on). x is
 * recovered from the cell by inverting the Feistel rounds of its subtable.
 * Recomputes the cells in use per subtable and the saturated cells. The
 * storage past the table's words is the caller's (snapshot_payload.c). 0 or
 * -EBADMSG.
 */
int bloom_dl_image_check(struct bloom_core *f)
{
	u64 n = f->geo.buckets * BLOOM_DLEFT_SUBTABLES * BLOOM_DLEFT_CELLS;
	u64 nw = f->geo.bits / BLOOM_DL_WORD_BITS, mask = bloom_dl_cell_mask(f);
	const u64 *words = (const u64 *)f->words;
	u32 w = f->geo.cell_bits, per = f->dl_per_word, s;
	u64 wi, i, v, cell;

	for (s = 0; s < BLOOM_DLEFT_SUBTABLES; s++)
		f->subtable_used[s] = 0;
	f->saturated = 0;
	for (wi = 0; wi < nw; wi++) {
		if (!(wi & 0xffff))
			bloom_cond_resched();
		v = READ_ONCE(words[wi]);
		/* the bits above the last cell of the word */
		if (per * w < BLOOM_DL_WORD_BITS && v >> (per * w))
			return -EBADMSG;
		for (s = 0, i = wi * per; s < per; s++, i++) {
			cell = v >> (s * w) & mask;
			if (!(cell & BLOOM_DL_CTR_MASK)) {
				if (cell)
					return -EBADMSG;
				continue;
			}
			if (i >= n || bloom_dl_snap_cell(f, i, cell))
				return -EBADMSG;
		}
	}
	return 0;
}

const struct bloom_core_ops bloom_dl_ops = {
	.add = bloom_dl_add,
	.delete = bloom_dl_delete,
	.query = bloom_dl_query,
	.prefetch_hash = bloom_dl_prefetch,
	.add_batch = bloom_dl_add_batch,
	.delete_batch = bloom_dl_delete_batch,
	.query_batch = bloom_dl_query_batch,
	.in_use = bloom_dl_used,
	.scan_in_use = bloom_dl_scan,
};
