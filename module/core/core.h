/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The filter core: sizing, keyed hashing and the filter algorithms.
 *
 * Freestanding C. It includes nothing but "shim.h", which maps the few things
 * it needs (fixed-width types, errno values, SipHash, atomic bit operations,
 * 64x64->128 multiply, popcount, prefetch) to the kernel's helpers inside
 * bloom.ko and to libc/libsodium in the userspace build used by the unit
 * tests, the fuzzer and the benchmarks. One algorithm, one copy.
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
 * @key: the SipHash key
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

/* The one keyed hash of a key; everything else is derived from it. */
u64 bloom_core_hash(const struct bloom_core *f, const void *data, size_t len);
/* The same under @key alone: hashes made before the core is at hand. */
u64 bloom_hash(const bloom_hash_key_t *key, const void *data, size_t len);

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

/*
 * Scalable filters (Almeida, Baquero, Preguica, Hutchison 2007): a chain of
 * standard or blocked filters, the stages. Stage i is sized with
 * bloom_geometry_size() for capacity N * s^i at rate P * (1 - r) * r^i, so
 * the compound rate, at most the sum of the stages' rates, stays under P
 * however many stages there are. An add checks every stage first (a key
 * present anywhere is not added again), then sets its bits in the newest
 * stage, which takes at most its capacity of new keys: when it is full, the
 * caller allocates the next stage (bloom_scale_next_geometry(), then
 * bloom_scale_publish()) and continues. Stages are only ever added, never
 * moved or freed while the filter lives: a query reads the number of
 * stages once (acquire) and checks those; a stage published meanwhile holds
 * no key whose add completed before the query started. Adders to a full
 * stage stop (they never overfill it), so concurrent adds across a stage
 * boundary lose nothing: each key lands in a stage that was published.
 *
 * s (growth) is an integer, BLOOM_CORE_GROWTH_MIN..MAX: stage capacities
 * stay exact integers; under 2 the chain gets long (every query checks
 * every stage), over 16 the newest stage is mostly empty memory. r
 * (tightening) is given in parts per million, BLOOM_CORE_TIGHTENING_MIN..MAX:
 * under 0.5 later stages pay many bits per key for little rate, over 0.95
 * stage 0 gets under 5% of P. Stage rates are computed in 32.32 fixed point
 * and rounded down to whole ppb (a lower rate is always safe).
 */
#define BLOOM_CORE_STAGES_MAX		32
#define BLOOM_CORE_GROWTH_MIN		2
#define BLOOM_CORE_GROWTH_MAX		16
#define BLOOM_CORE_TIGHTENING_MIN	500000	/* ppm: r = 0.5 */
#define BLOOM_CORE_TIGHTENING_MAX	950000	/* ppm: r = 0.95 */

/**
 * struct bloom_scale_params - what a scalable filter was asked for
 * @type: BLOOM_CORE_STANDARD or BLOOM_CORE_BLOCKED, the type of every stage
 * @growth: s
 * @capacity: N, stage 0's capacity
 * @fpp_ppb: P, the compound rate, parts per billion
 * @tightening_ppm: r, parts per million
 */
struct bloom_scale_params {
	u32 type;
	u32 growth;
	u64 capacity;
	u32 fpp_ppb;
	u32 tightening_ppm;
};

/**
 * struct bloom_scale_stage - one stage
 * @core: its filter (bloom_core_init() by bloom_scale_publish())
 * @count: new keys added to it, at most @core.geo.capacity (cmpxchg64)
 */
struct bloom_scale_stage {
	struct bloom_core core;
	u64 count;
};

/**
 * struct bloom_scale - the stages of a scalable filter
 * @p: its parameters
 * @nstages: stages published (smp_store_release after @stage[i] is set)
 * @stage: the stages, oldest first; set once each, never changed
 */
struct bloom_scale {
	struct bloom_scale_params p;
	u32 nstages;
	struct bloom_scale_stage *stage[BLOOM_CORE_STAGES_MAX];
};

/*
 * Checks @p: -EOPNOTSUPP for a type other than standard and blocked,
 * -EINVAL for a value out of range (also a P so small that stage 0's rate
 * rounds to 0 ppb), -E2BIG when stage 0 is over BLOOM_CORE_BITS_MAX.
 */
int bloom_scale_check(const struct bloom_scale_params *p);

/*
 * Capacity and rate of stage @i: N * s^i and floor(P * (1 - r) * r^i) ppb.
 * -ENOSPC when @i is BLOOM_CORE_STAGES_MAX or more, the capacity is over
 * BLOOM_CORE_CAPACITY_MAX or the rate rounds to 0 ppb.
 */
int bloom_scale_stage_params(const struct bloom_scale_params *p, u32 i,
			     u64 *capacity, u32 *fpp_ppb);
/* Stage @i's geometry: the above, sized by bloom_geometry_size(). */
int bloom_scale_stage_geometry(const struct bloom_scale_params *p, u32 i,
			       struct bloom_geometry *geo);

/*
 * Makes @f a scalable filter with no stages yet over @s (which must live as
 * long as @f). @p must have passed bloom_scale_check(). @f->geo is stage
 * 0's geometry with @p's capacity and rate. Publish stage 0 before use.
 */
void bloom_scale_init(struct bloom_core *f, struct bloom_scale *s,
		      const struct bloom_scale_params *p,
		      const bloom_hash_key_t *key);

/* Is @f scalable? */
bool bloom_core_is_scalable(const struct bloom_core *f);

/* Stages published now (acquire: their pointers may be read). */
u32 bloom_scale_stages(const struct bloom_core *f);

/* Stage @i, for @i under bloom_scale_stages(). */
const struct bloom_scale_stage *bloom_scale_stage(const struct bloom_core *f,
						  u32 i);

/*
 * Does @f need another stage before it can take a new key (no stage yet, or
 * the newest is at its capacity)?
 */
bool bloom_scale_full(const struct bloom_core *f);

/*
 * The geometry of the next stage: bloom_scale_stage_geometry() for stage
 * bloom_scale_stages(), with its errors.
 */
int bloom_scale_next_geometry(const struct bloom_core *f,
			      struct bloom_geometry *geo);

/*
 * Publishes @st as the next stage, over zeroed @storage of
 * bloom_core_storage_bytes(@geo) bytes; @geo is from
 * bloom_scale_next_geometry(). Callers serialise publishes (and check
 * bloom_scale_full() under that exclusion); queries and adds run meanwhile.
 */
void bloom_scale_publish(struct bloom_core *f, struct bloom_scale_stage *st,
			 const struct bloom_geometry *geo, void *storage);

/*
 * Adds keys @hashes[*@pos..@n) and advances *@pos over them; results and
 * the return value as bloom_core_add_batch() (the number of keys found
 * present, among the keys of this call). Stops early with *@pos < @n when
 * the newest stage is full: the caller publishes the next stage and calls
 * again. bloom_core_add_batch() and bloom_core_add_hash() on a scalable
 * filter do the same from 0 and return -ENOSPC when they stop early (the
 * keys before the stop are added); bloom_core_add_batch_done() says where.
 */
int bloom_scale_add_batch(struct bloom_core *f, const u64 *hashes, u32 n,
			  u8 *results, u32 *pos);

/*
 * Two scalable filters whose stages line up: the same parameters (type,
 * capacity, rate, growth, tightening) and hash key, so that stage i of
 * one has stage i's geometry in the other and sets the same bits for the
 * same keys.
 */
bool bloom_scale_compatible(const struct bloom_core *a,
			    const struct bloom_core *b);

/*
 * Stage by stage, @dst becomes the union of @dst and @src, two
 * bloom_scale_compatible() filters, @dst having at least @src's stages
 * (the caller publishes the ones it lacks first): each stage's bits ORed
 * (bloom_core_merge()) and its count of new keys raised by the source
 * stage's, up to the stage's capacity. -EINVAL if they do not line up.
 * The caller serialises @dst's publishes; adds and queries run meanwhile.
 */
int bloom_scale_merge(struct bloom_core *dst, const struct bloom_core *src);

/*
 * Expiring filters: G generations, each a standard or blocked filter of
 * ceil(N / (G - 1)) keys at the rate floor(P / G), in a ring. Adds set
 * bits in the newest generation only; a query tests every generation, so
 * its false-positive rate stays under G x P / G = P while each generation
 * holds at most its capacity. Every period T / (G - 1) (T the timeout) the
 * oldest generation is cleared and becomes the newest: keys live T to
 * T + T / (G - 1) after their last add.
 *
 * The rotation is a policy over times the caller passes in (nanoseconds of
 * one monotonic clock; the module's is CLOCK_BOOTTIME): the core never
 * reads a clock, allocates or waits. The caller runs a rotation in steps:
 *
 *   g = bloom_expire_unlink_oldest(f);	   queries stop testing it
 *   bloom_core_clear(&f->expire->gen[g].core);
 *   old = bloom_expire_make_newest(f, g, now);   adds go to it from now
 *   (wait until no add that may have read the old newest runs any more:
 *    the module waits for an RCU grace period)
 *   bloom_expire_seal(f, old, now);	   no add reaches @old after @now
 *
 * A generation sealed at time S holds only keys added at or before S; it
 * is cleared no earlier than S + T (bloom_expire_due()), which is the
 * lower bound of every key's life. Rotations are serialised by the
 * caller; adds and queries run beside every step (the order is published
 * with release stores and read with acquire loads).
 */
#define BLOOM_CORE_GENERATIONS_MIN	2
#define BLOOM_CORE_GENERATIONS_MAX	16
#define BLOOM_CORE_TIMEOUT_MS_MIN	1000ULL
#define BLOOM_CORE_TIMEOUT_MS_MAX	2147483000ULL
/* the expiry time of the newest generation: it still takes adds */
#define BLOOM_EXPIRE_NEVER		(~0ULL)

/**
 * struct bloom_expire_params - what an expiring filter was asked for
 * @type: BLOOM_CORE_STANDARD or BLOOM_CORE_BLOCKED
 * @generations: G
 * @capacity: N, keys per timeout
 * @fpp_ppb: P, the rate over all generations, parts per billion
 * @timeout_ms: T, milliseconds
 */
struct bloom_expire_params {
	u32 type;
	u32 generations;
	u64 capacity;
	u32 fpp_ppb;
	u64 timeout_ms;
};

/**
 * struct bloom_expire_gen - one generation
 * @core: its filter, over the caller's storage
 * @born_ns: when it last became the newest, by the schedule: a period
 *	after the previous newest's (the rotation may run a little later)
 * @expires_ns: the earliest time it may be cleared: its sealing time + T;
 *	0 when it holds nothing that must be kept; BLOOM_EXPIRE_NEVER while
 *	it may still take adds (the newest, or the previous newest not yet
 *	sealed)
 */
struct bloom_expire_gen {
	struct bloom_core core;
	u64 born_ns;
	u64 expires_ns;
};

/* @order: the newest generation, and this bit while the oldest is cleared */
#define BLOOM_EXPIRE_CLEARING	0x100U
#define BLOOM_EXPIRE_NEWEST	0xffU

/**
 * struct bloom_expire - the generations of an expiring filter
 * @p: its parameters
 * @period_ns: T / (G - 1), rounded up
 * @order: the index of the newest generation in @gen, | BLOOM_EXPIRE_CLEARING
 *	while the one after it in the ring (the oldest) is being cleared and
 *	is not tested; published with smp_store_release()
 * @rotations: rotations done (statistics)
 * @gen: the generations; the ring's order is their index order, the
 *	oldest right after the newest
 */
struct bloom_expire {
	struct bloom_expire_params p;
	u64 period_ns;
	u32 order;
	u64 rotations;
	struct bloom_expire_gen gen[BLOOM_CORE_GENERATIONS_MAX];
};

/*
 * Checks @p: -EINVAL for a type other than standard and blocked, a value
 * out of range, or a rate under G ppb (a generation's would be 0);
 * -E2BIG when the generations together are over BLOOM_CORE_BITS_MAX.
 */
int bloom_expire_check(const struct bloom_expire_params *p);
/* A generation's geometry: ceil(N / (G - 1)) keys at floor(P / G). */
int bloom_expire_gen_geometry(const struct bloom_expire_params *p,
			      struct bloom_geometry *geo);
/* The period T / (G - 1) in nanoseconds, rounded up. */
u64 bloom_expire_period_ns(const struct bloom_expire_params *p);

/*
 * Makes @f an expiring filter over @e (which must live as long as @f) with
 * G zeroed generations at @storage (G x bloom_core_storage_bytes() of the
 * generation's geometry), the last one the newest, born at @now.
 * @p must have passed bloom_expire_check(). @f->geo is a generation's
 * geometry with @p's capacity and rate.
 */
void bloom_expire_init(struct bloom_core *f, struct bloom_expire *e,
		       const struct bloom_expire_params *p,
		       const bloom_hash_key_t *key, void *storage, u64 now);

/* Is @f expiring? */
bool bloom_core_is_expiring(const struct bloom_core *f);

/* Generation @i, counted from the oldest (0) to the newest (G - 1). */
struct bloom_expire_gen *bloom_expire_gen(const struct bloom_core *f, u32 i);
/* The index in @gen of the newest generation (as published now). */
u32 bloom_expire_newest(const struct bloom_core *f);

/*
 * When the next rotation may run: the newest's birth + the period, or
 * later when the oldest may not be cleared before (its @expires_ns).
 * BLOOM_EXPIRE_NEVER while the oldest is not sealed yet.
 */
u64 bloom_expire_due(const struct bloom_core *f);

/* The rotation's steps, in this order (see above); indexes into @gen. */
u32 bloom_expire_unlink_oldest(struct bloom_core *f);
u32 bloom_expire_make_newest(struct bloom_core *f, u32 g, u64 now);
void bloom_expire_seal(struct bloom_core *f, u32 g, u64 now);

/*
 * @dst becomes the union of @dst and @src, two expiring filters of the
 * same G, timeout, geometry and hash key (else -EINVAL): each generation
 * ORed with the source's of the same age, keeping the later expiry of the
 * two (a source generation still taking adds at @now counts as sealed at
 * @now). No rotation of either runs meanwhile (the caller's lock).
 */
int bloom_expire_merge(struct bloom_core *dst, const struct bloom_core *src,
		       u64 now);

/*
 * After a restore into a filter whose generations hold a snapshot's, in
 * order (the last the newest), with their times converted to this clock:
 * the snapshot was taken at @saved, it is @now. The snapshot's newest took
 * no add after @saved: it is sealed then. Generations that expired by
 * @now are cleared, as the rotations that would have run meanwhile would
 * have; if any was, the oldest of them becomes the newest, born when the
 * schedule says. Returns the number of generations cleared. Sleeps
 * between chunks of big tables (bloom_core_clear()).
 */
u32 bloom_expire_resume(struct bloom_core *f, u64 saved, u64 now);

/*
 * Filters whose keys each have their own timeout (timed.c): the d-left
 * table with a fingerprint, a tag and a coarse expiry in each cell, a set
 * (an add of a present key keeps the later expiry, a delete empties its
 * cell). Times are whole seconds of one monotonic clock the caller passes
 * in as @now (the module's is CLOCK_BOOTTIME, bloom_clock_s()); the type's
 * table (bloom_core_add_hash() and the rest) reads bloom_clock_s() itself
 * and gives adds the filter's @key_timeout_s. A timeout is 0 (none) or
 * 1..BLOOM_CORE_KEY_TIMEOUT_MAX seconds; a key added with T tests present
 * at least T after the add and absent (but for false positives) from T +
 * bloom_timed_resolution_s(T) + 1 s on.
 */
#define BLOOM_CORE_KEY_TIMEOUT_MAX	0x7fffffffU	/* s, about 68 years */

/* The unit expiries of a timeout T are kept in: max(1, T / 16) or less. */
u32 bloom_timed_resolution_s(u32 timeout_s);
bool bloom_core_is_timed(const struct bloom_core *f);
/* The default and the largest timeout; @max_s 0: BLOOM_CORE_KEY_TIMEOUT_MAX. */
void bloom_timed_set_timeouts(struct bloom_core *f, u32 timeout_s, u32 max_s);
/* The bits beside the fingerprint that adds and deletes compare. */
u32 bloom_timed_tag_bits(const struct bloom_core *f);
bool bloom_timed_query(const struct bloom_core *f, u64 h, u64 now);
u32 bloom_timed_query_batch(const struct bloom_core *f, const u64 *hashes,
			    u32 n, u8 *results, u64 now);
/* 1: present already (the later of the two expiries kept), 0: new, -ENOSPC */
int bloom_timed_add(struct bloom_core *f, u64 h, u32 timeout_s, u64 now);
/*
 * As bloom_core_add_batch_done(); key i's timeout is @timeouts[i], or
 * @timeout_s for every key when @timeouts is NULL.
 */
u32 bloom_timed_add_batch(struct bloom_core *f, const u64 *hashes, u32 n,
			  const u32 *timeouts, u32 timeout_s, u64 now,
			  u8 *results, u32 *done);
/* An enum bloom_core_del: never PINNED. */
int bloom_timed_delete(struct bloom_core *f, u64 h, u64 now);
u32 bloom_timed_delete_batch(struct bloom_core *f, const u64 *hashes, u32 n,
			     u8 *results, u64 now);
/* Buckets of the whole table (all subtables): what a sweep walks. */
u64 bloom_timed_buckets(const struct bloom_core *f);
/*
 * Empties the expired cells of buckets [@first, @first + @n); returns how
 * many. A writer: serialised with adds and deletes. Every cell must be
 * swept within 29 units of its expiry (29 s for timeouts under 32 s) or
 * it reads as live again until the next sweep (a false positive).
 */
u64 bloom_timed_sweep(struct bloom_core *f, u64 first, u64 n, u64 now);
/* Live cells, by a scan (tests, checks). */
u64 bloom_timed_count_live(const struct bloom_core *f, u64 now);
/*
 * A table saved at @saved_s of the saving clock, @elapsed_s ago by the
 * wall clock, made right for this clock, where it is @now_s: each key
 * keeps the time it had left less @elapsed_s (rounded up to its unit);
 * keys with none left, or none at the save, are emptied. -EBADMSG when a
 * key had more left than @max_s (the filter's largest timeout) and its
 * unit, or has a unit no timeout up to @max_s has: nothing a filter with
 * that largest timeout can hold (the table is then part done: discard
 * it). Writers excluded; O(size), may reschedule in the kernel.
 */
int bloom_timed_rebase(struct bloom_core *f, u64 saved_s, u64 elapsed_s,
		       u64 now_s, u32 max_s);

/* Total bits of the storage: of all stages for a scalable filter. */
u64 bloom_core_bits(const struct bloom_core *f);

/*
 * Same type, geometry and hash key: the two filters set the same bits for
 * the same keys, so they can be merged. Never true of scalable filters.
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
 * The SipHash key from its 16 bytes, as the reference implementation reads
 * them: key[0] is the little-endian u64 of bytes 0..7, key[1] of 8..15.
 */
void bloom_hash_key_from_bytes(bloom_hash_key_t *k,
			       const u8 bytes[BLOOM_CORE_HASH_KEY_LEN]);
/* The inverse: the 16 bytes of a key (snapshots store them). */
void bloom_hash_key_to_bytes(const bloom_hash_key_t *k,
			     u8 bytes[BLOOM_CORE_HASH_KEY_LEN]);

/*
 * Checks the published SipHash-2-4 test vectors (key 00..0f, message
 * 00..len-1, len 0..63) through bloom_core_hash(), and a few sizings.
 * 0 or -EINVAL. Runs in the unit tests and at module init.
 */
int bloom_core_selftest(void);

#endif /* BLOOM_CORE_H */
