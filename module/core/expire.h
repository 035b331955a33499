/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The expiring filter's API (expire.c), beside core.h's.
 */
#ifndef BLOOM_CORE_EXPIRE_H
#define BLOOM_CORE_EXPIRE_H

#include "core.h"

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

#endif /* BLOOM_CORE_EXPIRE_H */
