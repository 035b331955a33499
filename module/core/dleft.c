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
 * Cells are whole u16 (r = 14) or u32 (r = 30) words: every update is one
 * WRITE_ONCE, so a lockless query never sees a torn cell, and a cell never
 * moves, so a key that stays live is found throughout. Writers are
 * serialised by the caller. Bit-packed (r + 2)-bit cells would reach the
 * ~19 bits per key of DESIGN.md (p = 0.01: r = 12, 14-bit cells, L = 6) but
 * straddle words; whole 16-bit cells cost 21.3 bits per key there. At
 * p = 0.001 the gap is larger: 17-bit packed cells at L = 6 need 22.7 bits
 * per key, 16-bit cells must drop to L = 3.94 and take 32.5.
 *
 * Sizing (bloom_dl_size): a never-added key is compared against the
 * fingerprints of its 4 buckets, about 4 * L cells at capacity, each a match
 * with probability 2^-r: p ~= 4 * L * 2^-r. The load L = n / (4 * B) is at
 * most 6 of 8 cells, where with d = 4 choices a full bucket is practically
 * impossible (see the unit tests: filling to capacity never fails), and is
 * otherwise the largest L with 4 * L * 2^-r <= p * 31 / 32 (a 3% margin so
 * the measured rate meets p), in steps of 1/16 cell. The cell width is the
 * one of 16 and 32 with fewer bits per key, 8 * w / L.
 */
#include "internal.h"

#define BLOOM_DL_CTR_MASK	3U
#define BLOOM_DL_CTR_MAX	3U
#define BLOOM_DL_CTR_BITS	2
#define BLOOM_DL_LOAD_MAX16	96	/* L = 6 cells per bucket, 1/16ths */
#define BLOOM_DL_PPB_ONE	1000000000ULL
/* saturations of one add batch that an ENOSPC rollback can undo exactly */
#define BLOOM_DL_UNDO_SAT	32

/* ---- sizing ---- */

/* 16 * the largest load L (see above) for w-bit cells, 0 when none. */
static u64 bloom_dl_load16(u32 w, u32 fpp_ppb)
{
	u32 r = w - BLOOM_DL_CTR_BITS;
	/* 16 * L <= p * 2^r * 31 / 8; p_ppb * 31 < 2^34, times 2^27: no wrap */
	u64 l16 = div64_u64((u64)fpp_ppb * 31 << (r - 3), BLOOM_DL_PPB_ONE);

	return l16 < BLOOM_DL_LOAD_MAX16 ? l16 : BLOOM_DL_LOAD_MAX16;
}

int bloom_dl_size(u64 capacity, u32 fpp_ppb, struct bloom_geometry *geo)
{
	u64 l16 = bloom_dl_load16(16, fpp_ppb);
	u64 l32 = bloom_dl_load16(32, fpp_ppb), buckets, bits;
	u32 w = 16;

	/* bits per key 8 * w / L: 32-bit cells win when L32 > 2 * L16 */
	if (!l16 || l32 > 2 * l16) {
		w = 32;
		l16 = l32;
	}
	/* n = 4 * B * L  =>  B = ceil(4 * n / (16 * L)) */
	buckets = div64_u64(4 * capacity + l16 - 1, l16);
	bits = buckets * BLOOM_DLEFT_SUBTABLES * BLOOM_DLEFT_CELLS * w;
	if (bits > BLOOM_CORE_BITS_MAX)
		return -E2BIG;

	geo->type = BLOOM_CORE_DLEFT;
	geo->hashes = BLOOM_DLEFT_SUBTABLES;
	geo->bits = bits;
	geo->capacity = capacity;
	geo->fpp_ppb = fpp_ppb;
	geo->fingerprint_bits = w - BLOOM_DL_CTR_BITS;
	geo->cell_bits = w;
	geo->buckets = buckets;
	return 0;
}

/*
 * From a capacity and a budget of table bits (bloom_core_size()): the cell width
 * whose table within the budget gives the lower rate, the rate recorded as
 * p = 4 L 2^-r * 32 / 31, the inverse of bloom_dl_load16(). -ERANGE when
 * no width keeps the load at 6 cells per bucket or the rate at 0.5.
 */
int bloom_dl_size_bits(u64 capacity, u64 budget, struct bloom_geometry *geo)
{
	u64 b, l16, ppb, best_ppb = ~0ULL, best_b = 0, per;
	u32 w, r, best_w = 0;

	for (w = 16; w <= 32; w += 16) {
		per = (u64)BLOOM_DLEFT_SUBTABLES * BLOOM_DLEFT_CELLS * w;
		b = div64_u64(budget, per);
		if (b > div64_u64(BLOOM_CORE_BITS_MAX, per))
			b = div64_u64(BLOOM_CORE_BITS_MAX, per);
		if (!b)
			continue;
		/* 16 L = 16 n / (4 B), rounded up */
		l16 = div64_u64(4 * capacity + b - 1, b);
		if (l16 > BLOOM_DL_LOAD_MAX16)
			continue;
		r = w - BLOOM_DL_CTR_BITS;
		ppb = div64_u64(BLOOM_DL_PPB_ONE * 8 * l16 + (31ULL << r) - 1,
				31ULL << r);
		if (ppb < best_ppb) {
			best_ppb = ppb;
			best_b = b;
			best_w = w;
		}
	}
	if (!best_w || best_ppb > BLOOM_CORE_FPP_PPB_MAX)
		return -ERANGE;
	if (!best_ppb)
		best_ppb = 1;

	geo->type = BLOOM_CORE_DLEFT;
	geo->hashes = BLOOM_DLEFT_SUBTABLES;
	geo->bits = best_b * BLOOM_DLEFT_SUBTABLES * BLOOM_DLEFT_CELLS * best_w;
	geo->capacity = capacity;
	geo->fpp_ppb = (u32)best_ppb;
	geo->fingerprint_bits = best_w - BLOOM_DL_CTR_BITS;
	geo->cell_bits = best_w;
	geo->buckets = best_b;
	return 0;
}

/* ---- cells ---- */

static inline u32 bloom_dl_get(const struct bloom_core *f, u64 idx)
{
	if (f->geo.cell_bits == 16)
		return READ_ONCE(((const u16 *)f->words)[idx]);
	return READ_ONCE(((const u32 *)f->words)[idx]);
}

/* Writers only: one store of the whole cell. */
static inline void bloom_dl_put(struct bloom_core *f, u64 idx, u32 v)
{
	if (f->geo.cell_bits == 16)
		WRITE_ONCE(((u16 *)f->words)[idx], (u16)v);
	else
		WRITE_ONCE(((u32 *)f->words)[idx], v);
}

static inline bool bloom_dl_match(u32 cell, u32 fp)
{
	return (cell & BLOOM_DL_CTR_MASK) && (cell >> BLOOM_DL_CTR_BITS) == fp;
}

/**
 * struct bloom_dl_cand - a key's place in each subtable
 * @cell: index of the first cell of its bucket
 * @fp: its fingerprint there
 */
struct bloom_dl_cand {
	u64 cell[BLOOM_DLEFT_SUBTABLES];
	u32 fp[BLOOM_DLEFT_SUBTABLES];
};

/* The candidates of x = (@q, the low fingerprint bits of @x). */
static inline void bloom_dl_cand_x(const struct bloom_core *f, u64 q, u64 x,
				   struct bloom_dl_cand *c)
{
	u64 nb = f->geo.buckets, b;
	u64 mask = (1ULL << f->geo.fingerprint_bits) - 1, fp;
	u32 i;

	for (i = 0; i < BLOOM_DLEFT_SUBTABLES; i++) {
		fp = (x ^ bloom_mix64(q + (i + 1) * BLOOM_GOLDEN)) & mask;
		b = q + mul_u64_u64_shr(bloom_mix64(fp + (i + 5) * BLOOM_GOLDEN),
					nb, 64);
		if (b >= nb)
			b -= nb;
		c->cell[i] = (i * nb + b) * BLOOM_DLEFT_CELLS;
		c->fp[i] = (u32)fp;
	}
}

static inline void bloom_dl_cand(const struct bloom_core *f, u64 h,
				 struct bloom_dl_cand *c)
{
	bloom_dl_cand_x(f, mul_u64_u64_shr(h, f->geo.buckets, 64), h, c);
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
	u32 i, j, v;

	for (i = 0; i < BLOOM_DLEFT_SUBTABLES; i++) {
		if (load)
			load[i] = 0;
		for (j = 0; j < BLOOM_DLEFT_CELLS; j++) {
			v = bloom_dl_get(f, c->cell[i] + j);
			if (!(v & BLOOM_DL_CTR_MASK))
				continue;
			if ((v >> BLOOM_DL_CTR_BITS) == c->fp[i]) {
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

/*
 * Queries are the hot path: one loop per cell width, so the width test is
 * made once per key instead of once per cell.
 */
static inline bool bloom_dl_query_one(const struct bloom_core *f, u64 h)
{
	const u16 *c16 = (const u16 *)f->words;
	const u32 *c32 = (const u32 *)f->words;
	struct bloom_dl_cand c;
	u32 i, j;

	bloom_dl_cand(f, h, &c);
	if (f->geo.cell_bits == 16) {
		for (i = 0; i < BLOOM_DLEFT_SUBTABLES; i++)
			for (j = 0; j < BLOOM_DLEFT_CELLS; j++)
				if (bloom_dl_match(READ_ONCE(c16[c.cell[i] + j]),
						   c.fp[i]))
					return true;
		return false;
	}
	for (i = 0; i < BLOOM_DLEFT_SUBTABLES; i++)
		for (j = 0; j < BLOOM_DLEFT_CELLS; j++)
			if (bloom_dl_match(READ_ONCE(c32[c.cell[i] + j]),
					   c.fp[i]))
				return true;
	return false;
}

/* @sat: set when this add took a counter to 3 (for an exact rollback). */
static inline int bloom_dl_add_one(struct bloom_core *f, u64 h, bool *sat)
{
	struct bloom_dl_cand c;
	u32 load[BLOOM_DLEFT_SUBTABLES], i, j, best = 0, sub, v;
	u64 idx;

	*sat = false;
	bloom_dl_cand(f, h, &c);
	if (bloom_dl_find(f, &c, &idx, &sub, load)) {
		v = bloom_dl_get(f, idx);
		if ((v & BLOOM_DL_CTR_MASK) == BLOOM_DL_CTR_MAX)
			return 1;
		bloom_dl_put(f, idx, v + 1);
		if (((v + 1) & BLOOM_DL_CTR_MASK) == BLOOM_DL_CTR_MAX) {
			WRITE_ONCE(f->saturated, f->saturated + 1);
			*sat = true;
		}
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
	for (j = 0; j < BLOOM_DLEFT_CELLS; j++) {
		idx = c.cell[best] + j;
		if (!(bloom_dl_get(f, idx) & BLOOM_DL_CTR_MASK))
			break;
	}
	bloom_dl_put(f, idx, c.fp[best] << BLOOM_DL_CTR_BITS | 1);
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
	u32 sub, v;
	u64 idx;

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

/* Rollback only: undo an add that took the key's counter from 2 to 3. */
static void bloom_dl_unsaturate(struct bloom_core *f, u64 h)
{
	struct bloom_dl_cand c;
	u32 sub;
	u64 idx;

	bloom_dl_cand(f, h, &c);
	if (bloom_dl_find(f, &c, &idx, &sub, NULL)) {
		bloom_dl_put(f, idx, bloom_dl_get(f, idx) - 1);
		WRITE_ONCE(f->saturated, f->saturated - 1);
	}
}

static int bloom_dl_add(struct bloom_core *f, u64 h)
{
	bool sat;

	return bloom_dl_add_one(f, h, &sat);
}

static int bloom_dl_delete(struct bloom_core *f, u64 h)
{
	return bloom_del_status(bloom_dl_delete_one(f, h));
}

static bool bloom_dl_query(const struct bloom_core *f, u64 h)
{
	return bloom_dl_query_one(f, h);
}

static void bloom_dl_prefetch(const struct bloom_core *f, u64 h, bool write)
{
	struct bloom_dl_cand c;
	u32 i, shift = f->geo.cell_bits == 16 ? 1 : 2;

	bloom_dl_cand(f, h, &c);
	for (i = 0; i < BLOOM_DLEFT_SUBTABLES; i++)
		bloom_prefetch_word((const u8 *)f->words + (c.cell[i] << shift),
				    write);
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
 * On -ENOSPC the keys added before the failing one are undone in reverse
 * order. By induction the filter before undoing key i is exactly as right
 * after adding it, and the undo reverses that add: a new cell (count 1) is
 * cleared, a count 1 -> 2 goes back, a count that was 3 already was not
 * changed and a delete leaves it; a count this batch took from 2 to 3 is
 * remembered (the first BLOOM_DL_UNDO_SAT of them) and stepped back to 2.
 * So the rollback is exact unless a batch saturated more cells than that;
 * those stay at 3, which only over-counts (never a false negative).
 */
static int bloom_dl_add_batch(struct bloom_core *f, const u64 *hashes,
			      u32 n, u8 *results)
{
	u32 sat_at[BLOOM_DL_UNDO_SAT], nsat = 0, i;
	int r, hits = 0;
	bool sat;

	for (i = 0; i < n; i++) {
		if (i + BLOOM_PREFETCH_AHEAD < n)
			bloom_dl_prefetch(f, hashes[i + BLOOM_PREFETCH_AHEAD],
					  true);
		r = bloom_dl_add_one(f, hashes[i], &sat);
		if (r < 0)
			goto undo;
		if (sat && nsat < BLOOM_DL_UNDO_SAT)
			sat_at[nsat++] = i;
		hits += r;
		bloom_result(results, i, r);
	}
	return hits;

undo:
	while (i--) {
		if (nsat && sat_at[nsat - 1] == i) {
			nsat--;
			bloom_dl_unsaturate(f, hashes[i]);
		} else {
			bloom_dl_delete_one(f, hashes[i]);
		}
	}
	return r;
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
	u64 used = 0;

	for (i = 0; i < n; i++)
		used += !!(bloom_dl_get(f, i) & BLOOM_DL_CTR_MASK);
	return used;
}

/* ---- snapshots ---- */

/*
 * A d-left geometry from a snapshot: the shape the code above works on
 * (whole 16- or 32-bit cells, 4 subtables of 8-cell buckets), whatever the
 * sizing rule of the module that wrote it.
 */
int bloom_dl_geometry_check(const struct bloom_geometry *geo)
{
	u64 cells_max;

	if (geo->bits > BLOOM_CORE_BITS_MAX)
		return -E2BIG;
	if (geo->cell_bits != 16 && geo->cell_bits != 32)
		return -EINVAL;
	if (geo->fingerprint_bits != geo->cell_bits - BLOOM_DL_CTR_BITS ||
	    geo->hashes != BLOOM_DLEFT_SUBTABLES || !geo->buckets)
		return -EINVAL;
	cells_max = BLOOM_CORE_BITS_MAX / geo->cell_bits;
	if (geo->buckets > cells_max / (BLOOM_DLEFT_SUBTABLES *
					BLOOM_DLEFT_CELLS))
		return -E2BIG;
	if (geo->bits != geo->buckets * BLOOM_DLEFT_SUBTABLES *
			 BLOOM_DLEFT_CELLS * geo->cell_bits)
		return -EINVAL;
	if (geo->capacity < 1 || geo->capacity > BLOOM_CORE_CAPACITY_MAX ||
	    geo->fpp_ppb < BLOOM_CORE_FPP_PPB_MIN ||
	    geo->fpp_ppb > BLOOM_CORE_FPP_PPB_MAX)
		return -EINVAL;
	return 0;
}

/*
 * Cells loaded from a snapshot: an empty cell is all zero, and a used cell's
 * fingerprint is the only one of its value x among x's 4 candidate buckets
 * (the invariant add and delete rely on). x is recovered from the cell by
 * inverting the Feistel rounds of its subtable. Recomputes the cells in use
 * per subtable and the saturated cells. 0 or -EBADMSG.
 */
int bloom_dl_snap_check(struct bloom_core *f)
{
	u64 nb = f->geo.buckets, mask = (1ULL << f->geo.fingerprint_bits) - 1;
	u64 n = nb * BLOOM_DLEFT_SUBTABLES * BLOOM_DLEFT_CELLS;
	u64 used[BLOOM_DLEFT_SUBTABLES] = { 0 }, sat = 0, i, idx, q, b;
	struct bloom_dl_cand c;
	u32 sub, s, j, v, fp;

	for (i = 0; i < n; i++) {
		if (!(i & 0xffff))
			bloom_cond_resched();
		v = bloom_dl_get(f, i);
		if (!(v & BLOOM_DL_CTR_MASK)) {
			if (v)
				return -EBADMSG;
			continue;
		}
		sub = (u32)div64_u64(i, nb * BLOOM_DLEFT_CELLS);
		b = div64_u64(i, BLOOM_DLEFT_CELLS) - sub * nb;
		fp = v >> BLOOM_DL_CTR_BITS;
		used[sub]++;
		sat += (v & BLOOM_DL_CTR_MASK) == BLOOM_DL_CTR_MAX;
		q = b + nb - mul_u64_u64_shr(bloom_mix64(fp + (sub + 5) *
							 BLOOM_GOLDEN), nb, 64);
		if (q >= nb)
			q -= nb;
		bloom_dl_cand_x(f, q, (fp ^ bloom_mix64(q + (sub + 1) *
							 BLOOM_GOLDEN)) & mask,
				&c);
		for (s = 0; s < BLOOM_DLEFT_SUBTABLES; s++) {
			for (j = 0; j < BLOOM_DLEFT_CELLS; j++) {
				idx = c.cell[s] + j;
				if (idx != i &&
				    bloom_dl_match(bloom_dl_get(f, idx),
						   c.fp[s]))
					return -EBADMSG;
			}
		}
	}
	for (s = 0; s < BLOOM_DLEFT_SUBTABLES; s++)
		f->subtable_used[s] = used[s];
	f->saturated = sat;
	return 0;
}

const struct bloom_core_ops bloom_dl_ops = {
	.writers_exclusive = true,
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
