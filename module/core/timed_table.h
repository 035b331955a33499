/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The timed filter's table (timed.c): where a key's cells are and how a
 * lookup compares them. What a cell holds beside its fingerprint, and
 * what it means, is timed.c's. Not part of the API.
 *
 * Two subtables of B buckets; a bucket is one 64-byte cache line (the
 * storage is aligned to BLOOM_CORE_ALIGN), 8 u64 words, of 16 cells of 32
 * bits or 8 of 64 (w = 32 or 64), two or one to a word, the fingerprint
 * in a cell's top r bits. No cell straddles two words, so every change of
 * a cell is one WRITE_ONCE of its word and a lockless reader sees each
 * cell whole; a key never moves between buckets. (Where a u64 load is two
 * 32-bit loads, a 32-bit cell lies in one half; a live key's 64-bit cell
 * is only rewritten with the same fingerprint and tag and a later expiry,
 * so each half read is the old one or the new and the cell reads live
 * either way.) A lookup costs the key's two cache lines and, per word, a
 * few word-wide operations that compare the fingerprint of every cell in
 * it at once (bloom_tt_match_where()): no division, no 128-bit product
 * per cell, no branch per cell.
 *
 * Placement. A key's identity is x = (q, f): q = the high bits of its
 * hash h mapped onto [0, B), f = the low r bits of h. Subtable 0 holds x
 * as (bucket q, fingerprint f); subtable 1 as (bucket b1, fingerprint f)
 * with an offset taken from the fingerprint alone (BLOOM_CORE_PLACE_FP),
 *	b1 = q + ((f + c2) * G mod 2^64) * B / 2^64 (mod B)
 * G the golden ratio's odd 64-bit multiplier: consecutive fingerprints
 * land far apart (Fibonacci hashing). For each f the map is a rotation of
 * [0, B), so both subtables' maps are bijections of [0, B) x [0, 2^r)
 * (bloom_tt_cand_of() subtracts the offset again), and two keys share
 * (bucket, fingerprint) in one subtable only when their x are equal, and
 * then they do in the other: an add that finds its identity in either
 * bucket refreshes that cell, so an identity occupies at most one cell
 * among its candidates and a delete knows which cell is its own. Keys
 * that share a bucket in subtable 0 scatter in subtable 1 by their
 * fingerprints, as the two choices need. The offset costs one multiply
 * and needs nothing of q, so both buckets' addresses are ready one
 * multiply after the hash.
 *
 * Tables of position schemes 2 and 3 (BLOOM_CORE_PLACE_FEISTEL, restored
 * from their snapshots) place subtable 1 through a Feistel round pair,
 *	f1 = f ^ mix(q + c1) (mod 2^r)
 *	b1 = q + mix(f1 + c2) * B / 2^64 (mod B)
 * also a bijection, whose two mixes one after the other put twice the
 * latency before the second bucket's address. The filter's key says
 * which (struct bloom_hash_key's placement); every key of the table is
 * placed by the one rule.
 *
 * Sizing. A key never added is compared against 2 buckets' fingerprints,
 * about 2 L cells at load L, so p ~= 2 L 2^-r (cell_load.h's rule with
 * d = 2). An add goes to the less loaded of its two buckets, to the left
 * on a tie (Voecking's "always go left"), which keeps the fullest bucket
 * close to the mean: at 12 of 16 cells the fullest bucket of 10^7 keys,
 * added and then replaced three times over by random deletes and adds,
 * held 16, and of 3 x 10^7 replaced twice, 16. With 8 cells a bucket the
 * spread is the same in cells but the room is half: 4.5 of 8 held both
 * tests where 5 overflowed. Those are the
 * largest loads the rule allows (BLOOM_TT_LOAD16_*). The placement by
 * fingerprint held them too: 10^7 keys filled to 12 of 16 cells and
 * replaced three times over, the fullest bucket 16, no add refused, with
 * fingerprints of 12, 18 and 24 bits. With 6 bits (64 offsets) adds were
 * refused in both placements (3 and 1 in one run each), so sizing gives a
 * new table 12 bits at least (timed.c); test_timed's churn tests take
 * both placements to these loads at 2 x 10^5 keys.
 */
#ifndef BLOOM_CORE_TIMED_TABLE_H
#define BLOOM_CORE_TIMED_TABLE_H

#include "cell_load.h"

#define BLOOM_TT_WORD_BITS	64
/* at most BLOOM_DLEFT_SUBTABLES: the core keeps a use count per subtable */
#define BLOOM_TT_SUBTABLES	2
#define BLOOM_TT_LOG2_SUBTABLES	1
/* one 64-byte cache line, as bloom_bucket_cells() (internal.h) has it */
#define BLOOM_TT_BUCKET_WORDS	8
#define BLOOM_TT_BUCKET_BITS	(BLOOM_TT_BUCKET_WORDS * BLOOM_TT_WORD_BITS)
#define BLOOM_TT_CELLS_MAX	16	/* 32-bit cells */
/* 16 x the largest load: 12 of 16 cells, 4.5 of 8 (see above) */
#define BLOOM_TT_LOAD16_32	192
#define BLOOM_TT_LOAD16_64	72
#define BLOOM_TT_SALT_FP	(3 * BLOOM_GOLDEN)
#define BLOOM_TT_SALT_BUCKET	(7 * BLOOM_GOLDEN)

static inline u32 bloom_tt_cells(const struct bloom_core *f)
{
	return bloom_bucket_cells(&f->geo);
}

/* 16 x the largest load of buckets of @w-bit cells. */
static inline u64 bloom_tt_load16_max(u32 w)
{
	return w == 32 ? BLOOM_TT_LOAD16_32 : BLOOM_TT_LOAD16_64;
}

/* Table bits for @buckets buckets per subtable. */
static inline u64 bloom_tt_table_bits(u64 buckets)
{
	return buckets * BLOOM_TT_SUBTABLES * BLOOM_TT_BUCKET_BITS;
}

static inline u64 bloom_tt_cell_mask(const struct bloom_core *f)
{
	return ~0ULL >> (BLOOM_TT_WORD_BITS - f->geo.cell_bits);
}

/* Cell @i of the table: word i / (64 / w), the cell's bits in it. */
static inline u64 bloom_tt_get(const struct bloom_core *f, u64 i)
{
	u32 w = f->geo.cell_bits, ps = w == 32;
	u64 v = READ_ONCE(((const u64 *)f->words)[i >> ps]);

	return v >> ((i & ps) * w) & bloom_tt_cell_mask(f);
}

/* Writers only: one store of the cell's whole word. */
static inline void bloom_tt_put(struct bloom_core *f, u64 i, u64 v)
{
	u32 w = f->geo.cell_bits, ps = w == 32, shift = (i & ps) * w;
	u64 *word = (u64 *)f->words + (i >> ps), m = bloom_tt_cell_mask(f);

	WRITE_ONCE(*word, (READ_ONCE(*word) & ~(m << shift)) |
		   (v & m) << shift);
}

/* The bucket of cell @i: 16 or 8 cells a bucket. */
static inline u64 bloom_tt_bucket_of(const struct bloom_core *f, u64 i)
{
	return i >> (f->geo.cell_bits == 32 ? 4 : 3);
}

/* The cells of bucket @b (of both subtables, 0..2B), into @cells. */
static inline void bloom_tt_bucket(const struct bloom_core *f, u64 b,
				   u64 *cells)
{
	u32 n = bloom_tt_cells(f), k;

	for (k = 0; k < n; k++)
		cells[k] = bloom_tt_get(f, b * n + k);
}

/**
 * struct bloom_tt_cand - a key's place in each subtable
 * @bucket: its bucket, counted over both subtables (0..2B)
 * @fp: its fingerprint there
 */
struct bloom_tt_cand {
	u64 bucket[BLOOM_TT_SUBTABLES];
	u64 fp[BLOOM_TT_SUBTABLES];
};

/* Subtable 1's offset from its fingerprint @fp1, before the scaling. */
static inline u64 bloom_tt_offset(const struct bloom_core *f, u64 fp1)
{
	if (f->key.placement == BLOOM_CORE_PLACE_FP)
		return (fp1 + BLOOM_TT_SALT_BUCKET) * BLOOM_GOLDEN;
	return bloom_mix64(fp1 + BLOOM_TT_SALT_BUCKET);
}

/* Subtable 1's fingerprint of x = (@q, @fp). */
static inline u64 bloom_tt_fp1(const struct bloom_core *f, u64 q, u64 fp)
{
	if (f->key.placement == BLOOM_CORE_PLACE_FP)
		return fp;
	return (fp ^ bloom_mix64(q + BLOOM_TT_SALT_FP)) &
	       ((1ULL << f->geo.fingerprint_bits) - 1);
}

/* The candidates of x = (@q, the low fingerprint bits of @x). */
static inline void bloom_tt_cand_x(const struct bloom_core *f, u64 q, u64 x,
				   struct bloom_tt_cand *c)
{
	u64 nb = f->geo.buckets, mask = (1ULL << f->geo.fingerprint_bits) - 1;
	u64 fp = x & mask, fp1, b1;

	fp1 = bloom_tt_fp1(f, q, fp);
	b1 = q + mul_u64_u64_shr(bloom_tt_offset(f, fp1), nb, 64);
	if (b1 >= nb)
		b1 -= nb;
	c->bucket[0] = q;
	c->fp[0] = fp;
	c->bucket[1] = nb + b1;
	c->fp[1] = fp1;
}

static inline void bloom_tt_cand(const struct bloom_core *f, u64 h,
				 struct bloom_tt_cand *c)
{
	bloom_tt_cand_x(f, mul_u64_u64_shr(h, f->geo.buckets, 64), h, c);
}

/*
 * The candidates of the identity whose fingerprint in bucket @b is @fp:
 * the rounds of bloom_tt_cand_x() run backwards (snapshot checks).
 * *@sub gets the bucket's subtable.
 */
static inline void bloom_tt_cand_of(const struct bloom_core *f, u64 b, u64 fp,
				    struct bloom_tt_cand *c, u32 *sub)
{
	u64 nb = f->geo.buckets;
	u64 q;

	*sub = b >= nb;
	if (!*sub) {
		bloom_tt_cand_x(f, b, fp, c);
		return;
	}
	b -= nb;
	q = b + nb - mul_u64_u64_shr(bloom_tt_offset(f, fp), nb, 64);
	if (q >= nb)
		q -= nb;
	/* fp1 = fp ^ g(q) is its own inverse; the identity when by fp */
	bloom_tt_cand_x(f, q, bloom_tt_fp1(f, q, fp), c);
}

/**
 * struct bloom_tt_probe - a fingerprint's compare against whole words
 * @pat: the fingerprint in the fingerprint field of every cell of a word
 * @low: each field's bits but its top one
 * @top: each field's top bit, the top bit of its cell
 */
struct bloom_tt_probe {
	u64 pat;
	u64 low;
	u64 top;
};

/* One bit at the bottom of every cell of a word. */
static inline u64 bloom_tt_lane(const struct bloom_core *f)
{
	return f->geo.cell_bits == 32 ? 0x0000000100000001ULL : 1;
}

/* @fp in the fingerprint field of every cell of a word. */
static inline u64 bloom_tt_pattern(const struct bloom_core *f, u64 fp)
{
	return (fp << (f->geo.cell_bits - f->geo.fingerprint_bits)) *
	       bloom_tt_lane(f);
}

static inline void bloom_tt_probe(const struct bloom_core *f, u64 fp,
				  struct bloom_tt_probe *p)
{
	u32 w = f->geo.cell_bits, r = f->geo.fingerprint_bits;
	u64 lane = bloom_tt_lane(f);

	p->pat = bloom_tt_pattern(f, fp);
	p->top = lane << (w - 1);
	p->low = (((1ULL << r) - 1) << (w - r)) * lane & ~p->top;
}

/*
 * The top bit of every field of @x that is all zero, and no other bit:
 * within a field, adding its low bits (@low) to themselves plus all ones
 * carries into its top bit (@top) exactly when one of them is set, and
 * never out of the field (the classic zero-byte test, for fields of r
 * bits).
 */
static __always_inline u64 bloom_tt_zero_fields(u64 x, u64 low, u64 top)
{
	return ~(((x & low) + low) | x) & top;
}

/*
 * The top bit of every cell of word @v whose fingerprint is the probe's,
 * and no other bit: the fields of v ^ pat that are zero.
 */
static inline u64 bloom_tt_match(u64 v, const struct bloom_tt_probe *p)
{
	return bloom_tt_zero_fields(v ^ p->pat, p->low, p->top);
}

/*
 * Where the buckets at @b0 and @b1 hold a cell whose fingerprint is the
 * probe's (@pat0 in @b0, @pat1 in @b1): the top bit of each such cell of
 * word k of @b0 shifted right by k, of @b1 by 8 + k, or-ed; 0 when none.
 * A cell's top bit is bit 31 or 63 of its word, so every cell of the 16
 * words has a bit of its own (bloom_tt_where_cell() decodes it), and a
 * key present is found without a second pass over its buckets. The two
 * buckets' words are taken in turn, each read once, the loop unrolled:
 * two independent chains of work for the CPU, no branch.
 */
static __always_inline u64 bloom_tt_match_where(const u64 *b0, u64 pat0,
						const u64 *b1, u64 pat1,
						const struct bloom_tt_probe *p)
{
	u64 m = 0, low = p->low, top = p->top;
	u32 k;

#pragma GCC unroll 8
	for (k = 0; k < BLOOM_TT_BUCKET_WORDS; k++) {
		m |= bloom_tt_zero_fields(READ_ONCE(b0[k]) ^ pat0, low, top) >>
		     k;
		m |= bloom_tt_zero_fields(READ_ONCE(b1[k]) ^ pat1, low, top) >>
		     (k + BLOOM_TT_BUCKET_WORDS);
	}
	return m;
}

/**
 * struct bloom_tt_where - a cell flagged by bloom_tt_match_where()
 * @sub: its subtable, 0 or 1
 * @word: its word in the bucket, 0..7
 * @shift: the bit of the word its cell starts at
 */
struct bloom_tt_where {
	u32 sub;
	u32 word;
	u32 shift;
};

/* The cell of the lowest set bit of @m, bloom_tt_match_where()'s. */
static inline void bloom_tt_where_cell(const struct bloom_core *f, u64 m,
				       struct bloom_tt_where *at)
{
	u32 bit = (u32)__ffs64(m);
	/* the top bit was 63 (now one of 48..63) or 31 (16..31), less j */
	u32 j = (bit >= 48 ? 63 : 31) - bit;

	at->sub = j / BLOOM_TT_BUCKET_WORDS;
	at->word = j % BLOOM_TT_BUCKET_WORDS;
	at->shift = bit + j + 1 - f->geo.cell_bits;
}

#endif /* BLOOM_CORE_TIMED_TABLE_H */
