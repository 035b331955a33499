/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The d-left counting filter's table (dleft.c): 4 subtables of buckets of
 * 8 cells, cells of w = 64 / c bits packed c to a u64 word (no cell
 * straddles two words, so every change of a cell is one WRITE_ONCE of its
 * word and a lockless reader sees each cell whole), the load that sizes
 * them, and the Feistel bijection that gives a key its bucket and
 * fingerprint in each subtable. dleft.c's top comment has the reasons.
 * Not part of the API.
 */
#ifndef BLOOM_CORE_DLEFT_H
#define BLOOM_CORE_DLEFT_H

#include "internal.h"
#include "cell_load.h"

#define BLOOM_DL_WORD_BITS	64
#define BLOOM_DL_PER_WORD_MAX	8	/* 8-bit cells, r = 6 */
#define BLOOM_DL_LOAD_MAX16	96	/* L = 6 cells per bucket, 1/16ths */

/* The cell width with @per cells in a word: the widest that fits. */
static inline u32 bloom_dl_width(u32 per)
{
	return BLOOM_DL_WORD_BITS / per;
}

/* Table bits for @buckets buckets per subtable of w-bit cells: whole words. */
static inline u64 bloom_dl_table_bits(u64 buckets, u32 w)
{
	u64 cells = buckets * BLOOM_DLEFT_SUBTABLES * BLOOM_DLEFT_CELLS;
	u32 per = BLOOM_DL_WORD_BITS / w;

	return div64_u64(cells + per - 1, per) * BLOOM_DL_WORD_BITS;
}

/* The load rule (cell_load.h) for d = 4, at most 6 of 8 cells. */
static inline u64 bloom_dl_load16(u32 r, u32 fpp_ppb)
{
	return bloom_cell_load16(r, fpp_ppb, 2, BLOOM_DL_LOAD_MAX16);
}

static inline u64 bloom_dl_rate_ppb(u64 l16, u32 r)
{
	return bloom_cell_rate_ppb(l16, r, 2);
}

static inline u64 bloom_dl_cell_mask(const struct bloom_core *f)
{
	return ~0ULL >> (BLOOM_DL_WORD_BITS - f->geo.cell_bits);
}

/* Word of cell @idx, and its slot in that word. */
static inline u64 bloom_dl_word(const struct bloom_core *f, u64 idx,
				u32 *slot)
{
	u64 wi = mul_u64_u64_shr(idx, f->dl_recip, 63);

	*slot = (u32)(idx - wi * f->dl_per_word);
	return wi;
}

static inline u64 bloom_dl_get(const struct bloom_core *f, u64 idx)
{
	const u64 *words = (const u64 *)f->words;
	u32 slot;
	u64 wi = bloom_dl_word(f, idx, &slot);

	return READ_ONCE(words[wi]) >> (slot * f->geo.cell_bits) &
	       bloom_dl_cell_mask(f);
}

/* Writers only: one store of the cell's whole word. */
static inline void bloom_dl_put(struct bloom_core *f, u64 idx, u64 v)
{
	u64 *words = (u64 *)f->words, mask = bloom_dl_cell_mask(f), old;
	u32 slot, shift;
	u64 wi = bloom_dl_word(f, idx, &slot);

	shift = slot * f->geo.cell_bits;
	old = READ_ONCE(words[wi]);
	WRITE_ONCE(words[wi], (old & ~(mask << shift)) | (v & mask) << shift);
}

/**
 * struct bloom_dl_cand - a key's place in each subtable
 * @cell: index of the first cell of its bucket
 * @fp: its fingerprint there
 */
struct bloom_dl_cand {
	u64 cell[BLOOM_DLEFT_SUBTABLES];
	u64 fp[BLOOM_DLEFT_SUBTABLES];
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
		c->fp[i] = fp;
	}
}

static inline void bloom_dl_cand(const struct bloom_core *f, u64 h,
				 struct bloom_dl_cand *c)
{
	bloom_dl_cand_x(f, mul_u64_u64_shr(h, f->geo.buckets, 64), h, c);
}

/*
 * The 8 cells of the bucket whose first cell is @first, into @cells: each
 * word read once (READ_ONCE), each cell whole.
 */
static inline void bloom_dl_bucket(const struct bloom_core *f, u64 first,
				   u64 *cells)
{
	const u64 *words = (const u64 *)f->words;
	u64 mask = bloom_dl_cell_mask(f), v;
	u32 w = f->geo.cell_bits, per = f->dl_per_word, slot, j;
	u64 wi = bloom_dl_word(f, first, &slot);

	v = READ_ONCE(words[wi]) >> (slot * w);
	for (j = 0; j < BLOOM_DLEFT_CELLS; j++) {
		if (slot == per) {
			v = READ_ONCE(words[++wi]);
			slot = 0;
		}
		cells[j] = v & mask;
		/* two shifts: w = 64 must not shift by 64 */
		v = v >> (w - 1) >> 1;
		slot++;
	}
}

/*
 * The value x = (*@q, *@x) whose fingerprint in the subtable of cell @i is
 * @fp: the Feistel rounds of bloom_dl_cand_x() run backwards. *@sub gets
 * the subtable.
 */
static inline void bloom_dl_x_of_cell(const struct bloom_core *f, u64 i,
				      u64 fp, u64 *q, u64 *x, u32 *sub)
{
	u64 nb = f->geo.buckets, mask = (1ULL << f->geo.fingerprint_bits) - 1;
	u64 b;

	*sub = (u32)div64_u64(i, nb * BLOOM_DLEFT_CELLS);
	b = div64_u64(i, BLOOM_DLEFT_CELLS) - *sub * nb;
	*q = b + nb - mul_u64_u64_shr(bloom_mix64(fp + (*sub + 5) * BLOOM_GOLDEN),
				      nb, 64);
	if (*q >= nb)
		*q -= nb;
	*x = (fp ^ bloom_mix64(*q + (*sub + 1) * BLOOM_GOLDEN)) & mask;
}

/*
 * The candidates of the value whose fingerprint in the subtable of cell
 * @i is @fp, with the cell's bucket (snapshot checks: a value's cell must
 * be its only one among its candidates). *@sub gets the subtable.
 */
static inline void bloom_dl_cand_of_cell(const struct bloom_core *f, u64 i,
					 u64 fp, struct bloom_dl_cand *c,
					 u32 *sub)
{
	u64 q, x;

	bloom_dl_x_of_cell(f, i, fp, &q, &x, sub);
	bloom_dl_cand_x(f, q, x, c);
}

#endif /* BLOOM_CORE_DLEFT_H */
