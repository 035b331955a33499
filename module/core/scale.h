/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The scalable filter's API (scale.c), beside core.h's.
 */
#ifndef BLOOM_CORE_SCALE_H
#define BLOOM_CORE_SCALE_H

#include "core.h"

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
 * A chain of timed stages (keys with their own timeouts, timed.h) is a set
 * as a timed table is: an add of a key live in any stage refreshes it
 * there, a new key goes to the newest stage while that holds fewer cells
 * than its capacity and has room in the key's buckets, a delete empties
 * the key's cell in whichever stage holds it. Keys expire, so stages empty:
 * a stage that holds no cell, but the newest, is taken out of the chain
 * (bloom_scale_unlink(), by the sweep) and freed after a grace period. A
 * stage's place in the chain is then not its term, the i that sized it:
 * terms only grow along the chain (a new stage takes the newest's term +
 * 1), so the stages' rates are distinct terms of the series and still sum
 * under P. A query lists the stages newest first (bloom_scale_list()),
 * which sees every stage that was in the chain for the whole query,
 * whatever is unlinked meanwhile.
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
 * @type: BLOOM_CORE_STANDARD, BLOOM_CORE_BLOCKED or BLOOM_CORE_TIMED, the
 *	type of every stage
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
 * @count: new keys added to it, at most @core.geo.capacity (cmpxchg64);
 *	a timed stage's cells in use are its core's (bloom_timed_used())
 * @term: the i it was sized for (bloom_scale_stage_params())
 */
struct bloom_scale_stage {
	struct bloom_core core;
	u64 count;
	u32 term;
};

/**
 * struct bloom_scale - the stages of a scalable filter
 * @p: its parameters
 * @nstages: stages published (smp_store_release after @stage[i] is set)
 * @want_stage: a timed chain's newest stage had no room for a key
 * @stage: the stages, oldest first; a timed chain's move down when one
 *	before them is unlinked (bloom_scale_unlink())
 */
struct bloom_scale {
	struct bloom_scale_params p;
	u32 nstages;
	bool want_stage;
	struct bloom_scale_stage *stage[BLOOM_CORE_STAGES_MAX];
};

/*
 * Checks @p: -EOPNOTSUPP for a type other than standard, blocked and timed,
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

/*
 * Stage @i, for @i under bloom_scale_stages(), for those who exclude
 * unlinks (a timed chain's writers; any other chain's readers).
 */
const struct bloom_scale_stage *bloom_scale_stage(const struct bloom_core *f,
						  u32 i);

/*
 * The stages into @st (room for BLOOM_CORE_STAGES_MAX), newest first;
 * their number. Under RCU, while stages are unlinked meanwhile: it lists
 * every stage that stays in the chain for the whole call, and may list
 * one that is unlinked during it, or, when several are, a stage twice
 * (a query's answer is the same; a sum over them counts it twice).
 */
u32 bloom_scale_list(const struct bloom_core *f,
		     const struct bloom_scale_stage **st);

/*
 * Takes stage @i, not the newest, which holds no key, out of a timed
 * chain: the stages after it move down one place. Writers excluded; the
 * caller frees it after a grace period.
 */
struct bloom_scale_stage *bloom_scale_unlink(struct bloom_core *f, u32 i);

/*
 * A timed chain's stages that hold no cell, but the newest, unlinked and
 * put in @gone (room for BLOOM_CORE_STAGES_MAX): their number. Called
 * after a sweep of every stage (bloom_timed_sweep()) emptied expired
 * cells; writers excluded, the caller frees them after a grace period.
 */
u32 bloom_scale_unlink_empty(struct bloom_core *f,
			     struct bloom_scale_stage **gone);

/*
 * Does @f need another stage before it can take a new key (no stage yet,
 * the newest is at its capacity, or a timed newest had no room for one)?
 */
bool bloom_scale_full(const struct bloom_core *f);

/*
 * The geometry of the next stage: bloom_scale_stage_geometry() for the
 * next term (the newest's + 1; 0 for the first), with its errors.
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
 * A timed chain's adds (BLOOM_CORE_TIMED stages): keys [*@pos, @n) with
 * their own timeouts, @timeouts[i], or @timeout_s for every key when
 * @timeouts is NULL; results and return as bloom_timed_add_batch(). Stops
 * early, *@pos at the key, when the newest stage has no room for it: the
 * caller publishes the next stage and calls again.
 */
u32 bloom_scale_timed_add_batch(struct bloom_core *f, const u64 *hashes,
				u32 n, const u32 *timeouts, u32 timeout_s,
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

#endif /* BLOOM_CORE_SCALE_H */
