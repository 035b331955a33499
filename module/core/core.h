/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The filter core: sizing, keyed hashing and the filter algorithms.
 *
 * Freestanding C. It includes nothing but "shim.h", which maps the few things
 * it needs (fixed-width types, errno values, the SipHash round, atomic bit
 * operations, 64x64->128 multiply, popcount, prefetch) to the kernel's
 * helpers inside bloom.ko and to libc in the userspace build used by the
 * unit tests, the fuzzer and the benchmarks, and the core's own headers
 * (siphash.h). One algorithm, one copy.
 *
 * The core never allocates: the caller asks how many bytes a geometry needs,
 * allocates them zeroed and aligned to BLOOM_CORE_ALIGN, and hands them in.
 * The core has no locks. The writers of a filter (add, delete, merge into
 * it, clear) must be serialised by the caller, for every type: they change
 * words by a plain read and one WRITE_ONCE store (a bit set, a counter or a
 * cell changed), with no locked instruction, which makes an add several
 * times cheaper than atomic bit sets would (tools/bench/README.md). Queries
 * take no lock: every update is one aligned WRITE_ONCE of a word, a bit is
 * never cleared by an add and no cell ever moves, so a query running beside
 * a writer never sees a torn word and never misses a key that stays live.
 */
#ifndef BLOOM_CORE_H
#define BLOOM_CORE_H

#include "shim.h"

#define BLOOM_CORE_ALIGN	64	/* bytes; one cache line, one blocked block */
#define BLOOM_BLOCK_BITS	512
/*
 * Keys ahead of the current one whose memory the batched calls prefetch; a
 * benchmark that models the batches (tools/bench/floor.c) uses the same.
 * Far enough ahead that a key's cache line arrives before its turn out of
 * cache, near enough that it is still there: the distance that measured
 * best (tools/bench/README.md, "Prefetch distance").
 */
#define BLOOM_PREFETCH_AHEAD	16

/*
 * Limits; the same values as in uapi/linux/bloom.h, which the core cannot
 * include (module/main.c asserts that each pair agrees).
 */
#define BLOOM_CORE_CAPACITY_MAX	0xffffffffULL
#define BLOOM_CORE_FPP_PPB_MIN	1
#define BLOOM_CORE_FPP_PPB_MAX	500000000
#define BLOOM_CORE_HASHES_MAX	32
#define BLOOM_CORE_BITS_MIN	64
#define BLOOM_CORE_BITS_MAX	0x10000000000ULL	/* 2^40 */
#define BLOOM_CORE_HASH_KEY_LEN	16

/* Values are those of enum bloom_type in uapi/linux/bloom.h. */
enum bloom_core_type {
	BLOOM_CORE_STANDARD = 1,
	BLOOM_CORE_BLOCKED = 2,
	BLOOM_CORE_COUNTING = 3,
	BLOOM_CORE_DLEFT = 4,
	BLOOM_CORE_TIMED = 5,
};

/*
 * The keyed hashes a filter can use: the values of enum bloom_hash in
 * uapi/linux/bloom.h. 0 is SipHash-2-4, the only one before a filter
 * recorded its own: a key whose scheme was never set is a 2-4 key, as is
 * every snapshot and mapping that does not say otherwise.
 */
enum bloom_core_hash_id {
	BLOOM_CORE_SIPHASH_2_4 = 0,
	BLOOM_CORE_SIPHASH_1_3 = 1,
};

#define BLOOM_CORE_HASH_LAST	BLOOM_CORE_SIPHASH_1_3

/*
 * Where a timed table puts a key's second bucket (module/core/timed_table.h):
 * from its fingerprint alone, or through the Feistel rounds of the tables
 * written before (snapshots of position schemes 2 and 3, internal.h). The
 * other types place keys the same either way.
 */
enum bloom_core_placement {
	BLOOM_CORE_PLACE_FP = 0,
	BLOOM_CORE_PLACE_FEISTEL = 1,
};

/**
 * struct bloom_hash_key - a filter's keyed hash: its secret and its scheme
 * @key: the 128-bit SipHash key, as the kernel's siphash_key_t holds it
 * @hash: enum bloom_core_hash_id
 * @placement: enum bloom_core_placement; BLOOM_CORE_PLACE_FP but for a
 *	timed filter restored from a snapshot of scheme 2 or 3
 *
 * Whoever copies the key copies the scheme with it: a chain's stages, an
 * expiring filter's generations and a batch hashed outside the filter's
 * lock all hash as the filter does.
 */
struct bloom_hash_key {
	u64 key[2];
	u32 hash;
	u32 placement;
};

#define bloom_hash_key_t	struct bloom_hash_key

#include "siphash.h"

/* d-left: subtables (d) and cells per bucket; fixed by the design. */
#define BLOOM_DLEFT_SUBTABLES	4
#define BLOOM_DLEFT_CELLS	8

/**
 * struct bloom_geometry - what a filter is and how big
 * @type: enum bloom_core_type
 * @hashes: k; d-left: the number of subtables (BLOOM_DLEFT_SUBTABLES)
 * @bits: m; counting: the number of 4-bit counters; d-left: the table's size
 *	in bits, whole 64-bit words of floor(64 / @cell_bits) cells
 * @capacity: n the filter was sized for
 * @fpp_ppb: false-positive rate asked for, parts per billion
 * @fingerprint_bits: d-left: bits of a cell's fingerprint (@cell_bits - 2);
 *	else 0
 * @cell_bits: d-left: 8, 9, 10, 12, 16, 21, 32 or 64 (64 / c for c cells
 *	per u64 word, dleft.c); counting: 4; else 0
 * @buckets: d-left: buckets per subtable; else 0
 */
struct bloom_geometry {
	u32 type;
	u32 hashes;
	u64 bits;
	u64 capacity;
	u32 fpp_ppb;
	u32 fingerprint_bits;
	u32 cell_bits;
	u64 buckets;
};

struct bloom_core_ops;
struct bloom_scale;
struct bloom_expire;

/**
 * struct bloom_core - a filter
 * @geo: its geometry
 * @ops: its type's operations (internal.h)
 * @key: the keyed hash: the SipHash key and scheme
 * @words: the storage, BLOOM_CORE_ALIGN-aligned, bloom_core_storage_bytes():
 *	bits (standard, blocked), 4-bit counters (counting) or cells (d-left)
 * @nblocks: blocked filters: number of 512-bit blocks
 * @saturated: counting, d-left: counters that reached their maximum
 * @insert_failures: d-left: keys refused with -ENOSPC
 * @subtable_used: d-left: cells in use in each subtable
 * @dl_per_word: d-left: cells per 64-bit word, 64 / @geo.cell_bits
 * @dl_recip: d-left: ceil(2^63 / @dl_per_word), to find a cell's word
 * @key_timeout_s: timed: the timeout of keys added without one (the
 *	type's table, bloom_core_add_*()); 0: none
 * @key_timeout_max_s: timed: the largest timeout a key may be given (the
 *	caller checks it; restores are bounded by it)
 * @reclaimed: timed: expired cells emptied (statistics)
 * @scale: a scalable filter's stages (bloom_scale_init()); else NULL.
 *	@words is then NULL: the stages hold the storage
 * @expire: an expiring filter's generations (bloom_expire_init()); else
 *	NULL. @words is then NULL: the generations hold the storage
 * @in_use: standard, blocked: bits set; counting: non-zero counters
 * @keys: standard, blocked, counting: see struct bloom_core_stats
 *
 * The statistics are kept as the filter changes, so reading them costs
 * the same for any size of filter. @saturated, @insert_failures and
 * @subtable_used are written by the (serialised) writers with WRITE_ONCE
 * and read racily with READ_ONCE by bloom_core_stats(). @in_use and @keys
 * are atomic counters, so that a chain's stages and the generations of an
 * expiring filter, whose writers are serialised per filter, can be read
 * at any time; each add counts the bits it found clear. A batch adds its
 * total once, at its end.
 */
struct bloom_core {
	struct bloom_geometry geo;
	const struct bloom_core_ops *ops;
	bloom_hash_key_t key;
	unsigned long *words;
	u64 nblocks;
	u64 saturated;
	u64 insert_failures;
	u64 subtable_used[BLOOM_DLEFT_SUBTABLES];
	u32 dl_per_word;
	u64 dl_recip;
	u32 key_timeout_s;
	u32 key_timeout_max_s;
	u64 reclaimed;
	struct bloom_scale *scale;
	struct bloom_expire *expire;
	bloom_atomic64_t in_use;
	bloom_atomic64_t keys;
};

/**
 * struct bloom_core_stats - what bloom_core_stats() reports
 * @in_use: bits set (standard, blocked), non-zero counters (counting) or
 *	cells in use (d-left): bloom_core_bits_set()
 * @keys: keys in the filter as far as it can tell: adds that set a bit or
 *	took a counter from 0 (a key's first add) or a new d-left cell, minus
 *	deletes that took a counter to 0 or emptied a cell (a key's last
 *	delete); d-left: equal to @in_use. Never below 0.
 * @saturated: counters stuck at their maximum (15 counting, 3 d-left)
 * @insert_failures: d-left keys refused with -ENOSPC (batch undone)
 * @fingerprint_bits: d-left: fingerprint bits; else 0
 * @subtables: d-left: BLOOM_DLEFT_SUBTABLES; else 0
 * @subtable_cells: d-left: cells per subtable; else 0
 * @subtable_used: d-left: cells in use per subtable; else 0
 */
struct bloom_core_stats {
	u64 in_use;
	u64 keys;
	u64 saturated;
	u64 insert_failures;
	u32 fingerprint_bits;
	u32 subtables;
	u64 subtable_cells;
	u64 subtable_used[BLOOM_DLEFT_SUBTABLES];
};

/*
 * Sizing. Both return 0 or a negative errno (-EINVAL for values out of range,
 * -E2BIG for a filter over BLOOM_CORE_BITS_MAX bits, -EOPNOTSUPP for an
 * unknown type, and from bloom_geometry_check() for a d-left geometry: d-left
 * is only ever sized by the core) and fill @geo only on success. Integer
 * arithmetic only: the kernel has no floating point. Counting takes the
 * standard filter's k and m (m counters).
 */
int bloom_geometry_size(u32 type, u64 capacity, u32 fpp_ppb,
			struct bloom_geometry *geo);

/**
 * struct bloom_core_size_req - what bloom_core_size() sizes a filter from
 * @type: enum bloom_core_type
 * @hashes: standard, counting: a fixed k, 1..BLOOM_CORE_HASHES_MAX; 0: the
 *	k that needs the fewest bits (else must be 0)
 * @capacity: n, or 0
 * @fpp_ppb: p in parts per billion, or 0
 * @bpk_milli: bits per key of capacity as @geo counts bits (a counting
 *	filter's are 4-bit counters), in thousandths, or 0
 * @memory_bytes: the most bytes the table may take
 *	(bloom_core_storage_bytes()), or 0
 *
 * Exactly two of @capacity, @fpp_ppb, @bpk_milli and @memory_bytes, not
 * @fpp_ppb with @bpk_milli (each says the other). Capacity and rate: the
 * smallest filter that keeps the rate (bloom_geometry_size()). Memory and
 * rate: the largest capacity whose filter fits. Capacity and memory or bits
 * per key, memory and bits per key: the table takes the budget (in the
 * type's unit: a bit, a 4-bit counter, a 512-bit block, a bucket row) and
 * @fpp_ppb of the result is the rate that gives at capacity, rounded up
 * (at least 1). Fills @geo; 0, -EINVAL (a combination not above, a value
 * out of range, @hashes for a blocked or d-left filter), -ERANGE (the
 * budget cannot hold the capacity at a rate of 0.5 or less, or not even
 * one key), -E2BIG, -EOPNOTSUPP (type).
 */
struct bloom_core_size_req {
	u32 type;
	u32 hashes;
	u64 capacity;
	u32 fpp_ppb;
	u32 bpk_milli;
	u64 memory_bytes;
};

int bloom_core_size(const struct bloom_core_size_req *r, struct bloom_geometry *geo);

/*
 * -log2 of the rate @geo is expected to have at capacity, in 32.32 fixed
 * point: the bound the standard and counting filters are sized by, the
 * blocked filters' table, 4 L 2^-r for d-left.
 */
u64 bloom_geometry_neg_log2_rate(const struct bloom_geometry *geo);

int bloom_geometry_check(const struct bloom_geometry *geo);

/* Bytes of storage the geometry needs (a multiple of BLOOM_CORE_ALIGN). */
u64 bloom_core_storage_bytes(const struct bloom_geometry *geo);

/*
 * Binds @f to zeroed @storage of bloom_core_storage_bytes(@geo) bytes and
 * zeroes its statistics. @geo must have come from bloom_geometry_size() or
 * passed bloom_geometry_check().
 */
void bloom_core_init(struct bloom_core *f, const struct bloom_geometry *geo,
		     const bloom_hash_key_t *key, void *storage);

/*
 * The hash and position scheme id of a SipHash-2-4 filter (a snapshot's,
 * and a mapping's header's): a reader of another scheme's bits must not
 * test them.
 */
u32 bloom_core_scheme(void);

/*
 * The scheme id of a filter that hashes with @hash (enum
 * bloom_core_hash_id): the same positions under another keyed hash are
 * another scheme, so that a reader that knows only SipHash-2-4 refuses a
 * SipHash-1-3 filter's bits instead of testing them.
 */
u32 bloom_scheme_of_hash(u32 hash);

/*
 * The scheme id a snapshot of @f is written with: bloom_scheme_of_hash()'s,
 * but for a timed filter of BLOOM_CORE_PLACE_FP, whose table no reader of
 * schemes 2 and 3 places right (4 and 5). Other types keep the oldest id
 * that places their keys, so that readers that know only it read them.
 */
u32 bloom_scheme_of_core(const struct bloom_core *f);

/*
 * The keyed hash of scheme id @scheme: an enum bloom_core_hash_id, or
 * -EPROTONOSUPPORT for a scheme this core does not implement.
 */
int bloom_hash_of_scheme(u32 scheme);
/* Its timed tables' placement, enum bloom_core_placement (or as above). */
int bloom_placement_of_scheme(u32 scheme);

/* The one keyed hash of a key; everything else is derived from it. */
u64 bloom_core_hash(const struct bloom_core *f, const void *data, size_t len);
/* The same under @key alone: hashes made before the core is at hand. */
u64 bloom_hash(const bloom_hash_key_t *key, const void *data, size_t len);

/*
 * The same of a 4-byte key (an IPv4 address) and of a 16-byte key (an IPv6
 * address), inlined where they are called: the address lookups. The
 * scheme is a branch, which the CPU predicts, not an indirect call.
 */
static __always_inline u64 bloom_hash4(const bloom_hash_key_t *key,
				       const void *data)
{
	if (key->hash == BLOOM_CORE_SIPHASH_1_3)
		return bloom_siphash_cd_4(key->key, data, 1, 3);
	return bloom_siphash_cd_4(key->key, data, 2, 4);
}

static __always_inline u64 bloom_hash16(const bloom_hash_key_t *key,
					const void *data)
{
	if (key->hash == BLOOM_CORE_SIPHASH_1_3)
		return bloom_siphash_cd_16(key->key, data, 1, 3);
	return bloom_siphash_cd_16(key->key, data, 2, 4);
}

static __always_inline u64 bloom_core_hash4(const struct bloom_core *f,
					    const void *data)
{
	return bloom_hash4(&f->key, data);
}

static __always_inline u64 bloom_core_hash16(const struct bloom_core *f,
					     const void *data)
{
	return bloom_hash16(&f->key, data);
}

/* Can keys be deleted (counting, d-left)? */
bool bloom_core_can_delete(const struct bloom_core *f);

/*
 * Add the key with hash @h. Returns 1 when the key was probably present
 * already (every bit set, every counter non-zero, or its fingerprint found),
 * 0 when it was added new, -ENOSPC when a d-left filter found every candidate
 * bucket full: nothing changed and insert_failures was counted.
 */
int bloom_core_add_hash(struct bloom_core *f, u64 h);

/**
 * enum bloom_core_del - what deleting a key did
 * @BLOOM_CORE_DEL_ABSENT: not found (a counter is 0, or no candidate bucket
 *	holds the fingerprint); nothing changed
 * @BLOOM_CORE_DEL_REMOVED: found; one copy removed (its counters, or its
 *	cell's count, went down by one)
 * @BLOOM_CORE_DEL_PINNED: found, but a saturated counter kept it: a counting
 *	key with a counter at 15 and none of its counters taken to 0 by the
 *	delete (the others were decremented), or a d-left key whose cell's
 *	count is 3 (nothing changed). Either way the key still tests present,
 *	and deleting it again cannot change that for good.
 */
enum bloom_core_del {
	BLOOM_CORE_DEL_ABSENT = 0,
	BLOOM_CORE_DEL_REMOVED = 1,
	BLOOM_CORE_DEL_PINNED = 2,
};

/*
 * Counting, d-left: remove one copy of the key with hash @h; returns an enum
 * bloom_core_del. Counters at their maximum stay. The caller checked
 * bloom_core_can_delete().
 */
int bloom_core_delete_hash(struct bloom_core *f, u64 h);

/* May the key with hash @h be present? Never false for an added key. */
bool bloom_core_query_hash(const struct bloom_core *f, u64 h);

/*
 * The same answer for one key on its own, as a packet asks: a standard
 * filter stops at the first clear bit and a blocked one at the first
 * position not set, which for a key not in the filter is usually the
 * first or second, and the filter's type is chosen by a branch, not an
 * indirect call: the other types' own queries are called the same way,
 * and a chain's stages and an expiring filter's generations are each
 * looked up so. Batches go through bloom_core_query_hash()'s tests, which
 * test a small standard filter's and a blocked filter's bits without a
 * branch (bits.c says when each is faster).
 */
bool bloom_core_lookup_hash(const struct bloom_core *f, u64 h);
/* Its lines on their way, for a group of such lookups. */
void bloom_core_lookup_prefetch(const struct bloom_core *f, u64 h);

/* Start loading the memory that a later add/query of @h touches. */
void bloom_core_prefetch_hash(const struct bloom_core *f, u64 h);

/*
 * Batches over precomputed hashes, prefetching a few keys ahead. Bit i of
 * @results (LSB-first bytes, (n + 7) / 8 of them, may be NULL) is set when
 * key i may be present (query), was probably present already (add) or was
 * removed (delete: BLOOM_CORE_DEL_REMOVED). Return the number of set result
 * bits. bloom_core_delete_batch() also sets bit i of @pinned (the same size,
 * may be NULL) when key i was pinned (BLOOM_CORE_DEL_PINNED) and stores
 * their number in *@npinned (may be NULL); a key is in at most one of the
 * two bitmaps, and in neither when it was not found.
 *
 * bloom_core_add_batch() returns -ENOSPC when a d-left insert finds every
 * candidate bucket full, or a scalable filter's newest stage is full: it
 * stops at that key, and the keys before it stay added, with their result
 * bits (the bits from that key on are left as they were).
 * bloom_core_add_batch_done() is the same, but returns the number of set
 * result bits among the keys added and stores in *@done how many keys it
 * added: @n, or the index of the key that did not fit.
 */
u32 bloom_core_query_batch(const struct bloom_core *f, const u64 *hashes,
			   u32 n, u8 *results);
int bloom_core_add_batch(struct bloom_core *f, const u64 *hashes, u32 n,
			 u8 *results);
u32 bloom_core_add_batch_done(struct bloom_core *f, const u64 *hashes, u32 n,
			      u8 *results, u32 *done);
u32 bloom_core_delete_batch(struct bloom_core *f, const u64 *hashes, u32 n,
			    u8 *results, u8 *pinned, u32 *npinned);

/*
 * Bits set (standard, blocked), non-zero counters (counting) or cells in use
 * (d-left), as kept by the adds and deletes: O(1), read racily.
 */
u64 bloom_core_bits_set(const struct bloom_core *f);

/*
 * The same, counted by a scan of the storage (tests, checks): O(size). In
 * the kernel it may reschedule: process context, no lock or RCU held.
 */
u64 bloom_core_count_in_use(const struct bloom_core *f);

/**
 * struct bloom_core_estimate - what bloom_core_estimate() reports
 * @keys: distinct keys in the filter, estimated from the bits set
 *	(Swamidass and Baldi; for blocked filters the block-load form; d-left:
 *	the cells in use); BLOOM_CORE_KEYS_UNKNOWN when every bit is set
 * @fpp_ppb: the false-positive rate a never-added key meets now, parts per
 *	billion, rounded: (X/m)^k for standard and counting filters, the
 *	block-load model for blocked ones, cells compared x 2^-f for d-left
 *
 * Both 0 for an empty filter. A scalable filter's: the sum of its stages'
 * keys (unknown if one stage's is) and the compound rate 1 - prod(1 - e_i)
 * of its stages' rates. estimate.c has the formulas.
 */
struct bloom_core_estimate {
	u64 keys;
	u32 fpp_ppb;
};

#define BLOOM_CORE_KEYS_UNKNOWN	(~0ULL)

/* From the kept statistics: O(1) in the filter's size, integers only. */
void bloom_core_estimate(const struct bloom_core *f,
			 struct bloom_core_estimate *e);

/*
 * The false-positive rate a standard, counting (@type
 * BLOOM_CORE_STANDARD or _COUNTING: 1 - (1 - 1/m)^(kn), to the k) or
 * blocked filter (the block-load model) of @bits and @hashes has with @keys
 * distinct keys, as a fraction of 2^64 (U64 max for 1). The benchmarks'
 * model, in one copy.
 */
u64 bloom_core_fpp_model(u32 type, u64 bits, u32 hashes, u64 keys);

/* The counting/d-left statistics, read racily (zero for the other types). */
void bloom_core_stats(const struct bloom_core *f, struct bloom_core_stats *s);

/* Total bits of the storage: of all stages for a scalable filter. */
u64 bloom_core_bits(const struct bloom_core *f);

/*
 * Same type, geometry and keyed hash (secret and scheme): the two filters
 * set the same bits for the same keys, so they can be merged. Never true
 * of scalable filters.
 */
bool bloom_core_compatible(const struct bloom_core *a,
			   const struct bloom_core *b);

/*
 * @dst becomes the union of @dst and @src (merge.c): OR for standard and
 * blocked filters, counters added and saturating at 15 for counting ones.
 * -EINVAL if the two are not bloom_core_compatible(), -EOPNOTSUPP for
 * d-left and scalable filters. The caller holds off @dst's writers when they must be exclusive,
 * and any change to @src's storage; queries of @dst may run.
 */
int bloom_core_merge(struct bloom_core *dst, const struct bloom_core *src);

/*
 * Every bit, counter or cell to 0 and the statistics with them; 0, or
 * -EOPNOTSUPP for a scalable filter. An expiring filter's generations are
 * all cleared and keep their schedule (no rotation may run meanwhile).
 */
int bloom_core_clear(struct bloom_core *f);

/*
 * The keyed hash of scheme @hash (enum bloom_core_hash_id) under the
 * SipHash key of 16 bytes, as the reference implementation reads them:
 * key[0] is the little-endian u64 of bytes 0..7, key[1] of 8..15.
 */
void bloom_hash_key_init(bloom_hash_key_t *k,
			 const u8 bytes[BLOOM_CORE_HASH_KEY_LEN], u32 hash);
/* The same for SipHash-2-4, the scheme of keys given before any other. */
void bloom_hash_key_from_bytes(bloom_hash_key_t *k,
			       const u8 bytes[BLOOM_CORE_HASH_KEY_LEN]);
/* The inverse: the 16 bytes of a key (snapshots store them). */
void bloom_hash_key_to_bytes(const bloom_hash_key_t *k,
			     u8 bytes[BLOOM_CORE_HASH_KEY_LEN]);

/*
 * Checks the published SipHash-2-4 and SipHash-1-3 test vectors (key
 * 00..0f, message 00..len-1, len 0..63) through bloom_core_hash(), and of
 * len 4 and 16 through bloom_core_hash4() and bloom_core_hash16(), and a
 * few sizings. 0 or -EINVAL. Runs in the unit tests and at module init.
 */
int bloom_core_selftest(void);

#endif /* BLOOM_CORE_H */
