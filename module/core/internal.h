/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What the filter types share inside the core: the mixing function, the
 * standard filter's position derivation (the counting filter uses the same
 * positions, so one copy lives here), the result bitmap and the table of
 * per-type operations the API dispatches through. Not part of the API.
 */
#ifndef BLOOM_CORE_INTERNAL_H
#define BLOOM_CORE_INTERNAL_H

#include "core.h"
#include "expire.h"
#include "scale.h"
#include "timed.h"

#define BLOOM_GOLDEN		0x9e3779b97f4a7c15ULL

/* splitmix64's output function (Steele, Lea, Flood 2014). */
static inline u64 bloom_mix64(u64 z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * The position scheme id, written into every snapshot (snapshot.h) and
 * mapping header: it pins the keyed hash (SipHash under the 128-bit key,
 * hash.c) and the way every type derives its positions from that hash and
 * lays out its storage: the position iterators below (standard,
 * counting), the blocked filter's block and in-block bits (bits.c), the
 * counting filter's nibbles (counting.c) and the d-left candidates
 * (dleft.c). A snapshot with another id is refused: its bits would answer
 * for other keys. Any change to any of those functions must bump these
 * numbers; the unit test test_snapshot pins each type's storage image for
 * fixed keys to the id, so a change without a bump fails it.
 *
 * BLOOM_SCHEME_ID is SipHash-2-4 with those positions, the scheme of every
 * snapshot written before a filter could hash another way;
 * BLOOM_SCHEME_ID_SIP13 the same positions under SipHash-1-3, an id of its
 * own so that a reader that knows only the first refuses the second.
 * Schemes 4 and 5 are 2 and 3 with a timed table's second bucket placed
 * by the key's fingerprint alone (timed_table.h, BLOOM_CORE_PLACE_FP):
 * only timed filters are written with them (bloom_scheme_of_core()).
 */
/* 2: distinct positions in small filters, enhanced double hashing */
#define BLOOM_SCHEME_ID		2
/* 3: scheme 2's positions, SipHash-1-3 */
#define BLOOM_SCHEME_ID_SIP13	3
/* 4: scheme 2's, a timed table's second bucket by the fingerprint */
#define BLOOM_SCHEME_ID_FP	4
/* 5: scheme 4's positions, SipHash-1-3 */
#define BLOOM_SCHEME_ID_SIP13_FP	5

/*
 * Standard and counting positions: two schemes, chosen by the size m.
 *
 * m >= BLOOM_DISTINCT_BITS: enhanced double hashing (Dillinger, Manolios
 * 2004) in 64-bit arithmetic. x = h, y = h2 (a 64-bit mix of h), z = y
 * rotated by 32 bits; each step takes position hi64(x * m), a
 * multiply-shift onto [0, m), then x += y, y += z. Plain double hashing
 * (z = 0) collapses: a key whose step y * m / 2^64 lies near a multiple of
 * m (probability about 2 / m per multiple) gets its k positions on one or
 * two bits, and at small p those keys alone exceed p (measured: capacity 5
 * at p = 0.001 gave 6.3 p). The quadratic term makes the pairs of positions
 * coincide independently, with probability about 1 / m each, as
 * independent hashes would.
 *
 * m < BLOOM_DISTINCT_BITS: k distinct positions, drawn independently (32
 * bits of a splitmix64 output each, multiply-shifted onto [0, m)) and drawn
 * again when one repeats an earlier one: a uniformly random k-subset of
 * [0, m). This costs little in a filter that fits in L1, and the sizing
 * (sizing.c) bounds the rate of exactly this scheme. In large filters a
 * repeat has probability at most k^2 / 2m < 0.8% (k <= 32) per key and
 * costs less than that in rate.
 */
#define BLOOM_DISTINCT_BITS	65536ULL
/* draws before a small filter stops looking for distinct positions */
#define BLOOM_DISTINCT_DRAWS	256

/*
 * d-left and timed: cells in a bucket, 8 (dleft.h), or a timed bucket's
 * 64-byte line of cells (timed_table.h).
 */
static inline u32 bloom_bucket_cells(const struct bloom_geometry *geo)
{
	return geo->type == BLOOM_CORE_TIMED ? 512 / geo->cell_bits :
	       BLOOM_DLEFT_CELLS;
}

static inline u64 bloom_std_h2(u64 h)
{
	return bloom_mix64(h + BLOOM_GOLDEN);
}

static inline u64 bloom_std_pos(u64 g, u64 m)
{
	return mul_u64_u64_shr(g, m, 64);
}

/* Enhanced double hashing, for m >= BLOOM_DISTINCT_BITS. */
struct bloom_std_iter {
	u64 x, y, z;
};

static inline void bloom_std_start(struct bloom_std_iter *it, u64 h)
{
	it->x = h;
	it->y = bloom_std_h2(h);
	it->z = it->y >> 32 | it->y << 32;
}

static inline u64 bloom_std_next(struct bloom_std_iter *it, u64 m)
{
	u64 pos = bloom_std_pos(it->x, m);

	it->x += it->y;
	it->y += it->z;
	return pos;
}

/*
 * Distinct positions, for m < BLOOM_DISTINCT_BITS (so k <= 32 < 64 <= m):
 * bloom_small_next() returns the next one and records it in @pos. After
 * BLOOM_DISTINCT_DRAWS draws (probability below 2^-50 for k <= 32, m >= 64,
 * by a Chernoff bound) the rest may repeat; add and query agree either way.
 */
struct bloom_small_iter {
	u64 s, r;
	u32 have, draws, n;
	u64 pos[BLOOM_CORE_HASHES_MAX];
};

static inline void bloom_small_start(struct bloom_small_iter *it, u64 h)
{
	it->s = h;
	it->have = 0;
	it->draws = 0;
	it->n = 0;
}

static inline u64 bloom_small_next(struct bloom_small_iter *it, u64 m)
{
	u64 p;
	u32 j;

	for (;;) {
		if (!it->have) {
			it->s += BLOOM_GOLDEN;
			it->r = bloom_mix64(it->s);
			it->have = 2;
		}
		p = ((it->r & 0xffffffffULL) * m) >> 32;
		it->r >>= 32;
		it->have--;
		if (++it->draws > BLOOM_DISTINCT_DRAWS)
			break;
		for (j = 0; j < it->n; j++)
			if (it->pos[j] == p)
				break;
		if (j == it->n)
			break;
	}
	it->pos[it->n++] = p;
	return p;
}

/* All k positions of a key, by the scheme its filter's size selects. */
static inline void bloom_std_positions(const struct bloom_core *f, u64 h,
				       u64 *pos)
{
	u64 m = f->geo.bits;
	struct bloom_small_iter si;
	struct bloom_std_iter it;
	u32 i;

	if (m < BLOOM_DISTINCT_BITS) {
		bloom_small_start(&si, h);
		for (i = 0; i < f->geo.hashes; i++)
			pos[i] = bloom_small_next(&si, m);
		return;
	}
	bloom_std_start(&it, h);
	for (i = 0; i < f->geo.hashes; i++)
		pos[i] = bloom_std_next(&it, m);
}

static inline void bloom_prefetch_word(const void *p, bool write)
{
	if (write)
		prefetchw(p);
	else
		prefetch(p);
}

/* Bit @i of the LSB-first result bitmap; bytes are cleared as reached. */
static inline void bloom_result(u8 *results, u32 i, bool set)
{
	if (!results)
		return;
	if (!(i & 7))
		results[i >> 3] = 0;
	if (set)
		results[i >> 3] |= 1U << (i & 7);
}

/*
 * What a delete did to a key: enum bloom_core_del, and one more value the
 * statistics need: BLOOM_DEL_GONE is BLOOM_CORE_DEL_REMOVED that left the
 * key absent (one of its counters reached 0, or its cell emptied).
 */
enum bloom_del {
	BLOOM_DEL_ABSENT = BLOOM_CORE_DEL_ABSENT,
	BLOOM_DEL_REMOVED = BLOOM_CORE_DEL_REMOVED,
	BLOOM_DEL_PINNED = BLOOM_CORE_DEL_PINNED,
	BLOOM_DEL_GONE,
};

/* The API's value for an internal one. */
static inline enum bloom_core_del bloom_del_status(enum bloom_del r)
{
	return r == BLOOM_DEL_GONE ? BLOOM_CORE_DEL_REMOVED :
				     (enum bloom_core_del)r;
}

/*
 * Records key @i's delete in the result bitmaps; returns 1 when it was
 * removed (its result bit), for the caller's count.
 */
static inline u32 bloom_del_result(u8 *results, u8 *pinned, u32 *npinned,
				   u32 i, enum bloom_del r)
{
	enum bloom_core_del s = bloom_del_status(r);

	bloom_result(pinned, i, s == BLOOM_CORE_DEL_PINNED);
	*npinned += s == BLOOM_CORE_DEL_PINNED;
	bloom_result(results, i, s == BLOOM_CORE_DEL_REMOVED);
	return s == BLOOM_CORE_DEL_REMOVED;
}

/* Adds the changes a batch made to the atomic statistics, once. */
static inline void bloom_account(struct bloom_core *f, s64 in_use, s64 keys)
{
	if (in_use)
		bloom_atomic64_add(in_use, &f->in_use);
	if (keys)
		bloom_atomic64_add(keys, &f->keys);
}

/*
 * What a filter type provides; bloom_core_init() points the filter at its
 * type's table and the API calls through it. Each batch function is written
 * per type so that the per-key work inlines into its loop: the indirect call
 * is paid once per batch, not per key.
 *
 * @delete, @delete_batch: NULL for the types that cannot delete; @delete
 *	returns an enum bloom_core_del, @delete_batch the number removed
 * @in_use: bits set, non-zero counters or cells in use, as kept by the
 *	adds and deletes: O(1)
 * @scan_in_use: the same, by a scan of the storage
 * @add_batch: as bloom_core_add_batch_done()
 */
struct bloom_core_ops {
	int (*add)(struct bloom_core *f, u64 h);
	int (*delete)(struct bloom_core *f, u64 h);
	bool (*query)(const struct bloom_core *f, u64 h);
	void (*prefetch_hash)(const struct bloom_core *f, u64 h, bool write);
	u32 (*add_batch)(struct bloom_core *f, const u64 *hashes, u32 n,
			 u8 *results, u32 *done);
	u32 (*delete_batch)(struct bloom_core *f, const u64 *hashes, u32 n,
			    u8 *results, u8 *pinned, u32 *npinned);
	u32 (*query_batch)(const struct bloom_core *f, const u64 *hashes,
			   u32 n, u8 *results);
	u64 (*in_use)(const struct bloom_core *f);
	u64 (*scan_in_use)(const struct bloom_core *f);
	/* a chain's: its stages' keys and bits; NULL: the core's own */
	u64 (*keys)(const struct bloom_core *f);
	u64 (*total_bits)(const struct bloom_core *f);
};

#define BLOOM_BLOCK_SHIFT	9	/* log2(BLOOM_BLOCK_BITS) */

/* Is a filter for @capacity keys at @fpp_ppb within the core's limits? */
static inline bool bloom_capacity_rate_valid(u64 capacity, u32 fpp_ppb)
{
	return capacity >= 1 && capacity <= BLOOM_CORE_CAPACITY_MAX &&
	       fpp_ppb >= BLOOM_CORE_FPP_PPB_MIN &&
	       fpp_ppb <= BLOOM_CORE_FPP_PPB_MAX;
}

/* bits.c */
extern const struct bloom_core_ops bloom_std_ops;
/*
 * @in_use of the types that keep it in f->in_use (all but d-left). Inline,
 * so that counting.c does not need bits.c: libbloom links counting.c for
 * bloom_size() without the rest of the core.
 */
static inline u64 bloom_kept_in_use(const struct bloom_core *f)
{
	return bloom_atomic64_read(&f->in_use);
}

extern const struct bloom_core_ops bloom_blk_ops;

/*
 * One key alone through each type's own function (bits.c's
 * bloom_core_lookup_hash() calls them directly, not through the table):
 */
/* scale.c: a chain of standard or blocked stages, and of timed ones */
extern const struct bloom_core_ops bloom_scale_ops;
extern const struct bloom_core_ops bloom_scale_timed_ops;
bool bloom_scale_lookup(const struct bloom_core *f, u64 h);

/*
 * expire.c: the generations a query tests now, newest first, into @cores
 * (room for BLOOM_CORE_GENERATIONS_MAX); their number.
 */
u32 bloom_expire_live(const struct bloom_core *f,
		      const struct bloom_core **cores);
extern const struct bloom_core_ops bloom_expire_ops;
bool bloom_expire_lookup(const struct bloom_core *f, u64 h);

/*
 * core.c: queries over several filters of one hash key (a chain's stages,
 * an expiring filter's generations), @cores in the order to test them.
 * bloom_cores_find(): bit j set when key j of the @c (at most
 * BLOOM_CORES_CHUNK) keys at @hashes is in one of them;
 * bloom_cores_query_batch(): results and return as bloom_core_query_batch().
 */
#define BLOOM_CORES_CHUNK	32
u32 bloom_cores_find(const struct bloom_core *const *cores, u32 ncores,
		     const u64 *hashes, u32 c);
u32 bloom_cores_query_batch(const struct bloom_core *const *cores,
			    u32 ncores, const u64 *hashes, u32 n, u8 *results);

/* counting.c */
extern const struct bloom_core_ops bloom_cnt_ops;
bool bloom_cnt_query(const struct bloom_core *f, u64 h);
u64 bloom_cnt_storage_bytes(const struct bloom_geometry *geo);

/* dleft.c */
extern const struct bloom_core_ops bloom_dl_ops;
bool bloom_dl_query(const struct bloom_core *f, u64 h);
void bloom_dl_init(struct bloom_core *f);
int bloom_dl_size(u64 capacity, u32 fpp_ppb, struct bloom_geometry *geo);
int bloom_dl_size_bits(u64 capacity, u64 budget, struct bloom_geometry *geo);
int bloom_dl_geometry_check(const struct bloom_geometry *geo);
int bloom_dl_image_check(struct bloom_core *f);

/* timed.c */
extern const struct bloom_core_ops bloom_tm_ops;
bool bloom_tm_query(const struct bloom_core *f, u64 h);
int bloom_tm_size(u64 capacity, u32 fpp_ppb, struct bloom_geometry *geo);
int bloom_tm_size_bits(u64 capacity, u64 budget, struct bloom_geometry *geo);
int bloom_tm_geometry_check(const struct bloom_geometry *geo);
int bloom_tm_image_check(struct bloom_core *f);

#endif /* BLOOM_CORE_INTERNAL_H */
