/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A filter's storage and its memory (store.c): struct bloom_store, what a
 * filter holds, charged to an account (account.h).
 *
 * A store is one core (module/core/core.h) or a chain of cores: a scalable
 * filter's stages, each a core of its own behind the store's core (the
 * chain's policy, when to add a core and how big, is the core's:
 * module/core/scale.c), or an expiring filter's generations, a ring of
 * cores over one allocation that a clock rotates (the policy, which to
 * clear and when, is module/core/expire.c's; the clock is clock.h's).
 * The store allocates every core's storage, charges it against max_memory
 * and the caller's memory cgroup, and frees it with the store. It knows
 * nothing of names, namespaces or sysfs: whoever holds a store (filter.h)
 * publishes, replaces and retires it.
 */
#ifndef BLOOM_STORE_H
#define BLOOM_STORE_H

#include <linux/percpu.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "account.h"
#include "core.h"
#include "expire.h"
#include "scale.h"
#include "timed.h"
#include "clock.h"
#include "map.h"
#include "netblock.h"
#include "sweep.h"

/*
 * Hot-path counters, per CPU. A lookup bumps one of its pair (hit or miss),
 * never a total and a hit apart: a reader summing the CPUs while lookups go
 * on would otherwise see a hit whose lookup it had not counted yet, and
 * report more hits than lookups. Totals are sums of their pair, made when
 * read (struct bloom_stats_sum).
 */
struct bloom_stats {
	u64 adds;
	u64 hits;
	u64 query_misses;
	u64 deletes;
	u64 delete_misses;
	u64 delete_pinned;
	u64 packet_hits;	/* checked by firewall rules (xt_bloom) */
	u64 packet_misses;
	u64 bpf_hits;		/* lookups by BPF programs (bpf.c) */
	u64 bpf_misses;
};

/* struct bloom_stats summed over the CPUs, with each pair's total. */
struct bloom_stats_sum {
	u64 adds;
	u64 queries;
	u64 hits;		/* of the queries, keys that may be present */
	u64 deletes;
	u64 delete_misses;
	u64 delete_pinned;
	u64 packets;
	u64 packet_hits;
	u64 bpf_calls;
	u64 bpf_hits;
};

/**
 * struct bloom_store - what a filter holds
 * @core: the core filter: geometry, hash key, @core.words into @mem, or
 *	the head of a chain of stages (@scale)
 * @mem: the allocation behind @core.words; NULL for a chain and for a
 *	mappable store
 * @map: a standard or blocked store of one table: the mappable area
 *	(map.h) that holds @core.words; else NULL
 * @acct: what @memory_bytes is charged to (account.h): the account of the
 *	namespace whose filter holds the store; the store never outlives
 *	its bytes' release (bloom_store_retire() gives them back at once)
 * @stats: what was done to this store, per CPU
 * @memory_bytes: charged against max_memory: the storage, the statistics
 *	and this struct; a chain's grows with its stages (WRITE_ONCE by the
 *	one who grows it, see bloom_store_grow())
 * @free_work: frees the store after a grace period
 * @scale: a chain's stages, behind @core.scale. Stages are only added, by
 *	one grower at a time, and go with the store.
 * @nb: the key kind and the netblock lengths of the keys (netblock.h):
 *	what the store holds, so they go with it (swap, replace, snapshots)
 * @clock: an expiring store's generations and their clock, behind
 *	@core.expire; else NULL. The clock goes with the store (swap,
 *	replace) and stops before the store is freed.
 * @sweep: a timed store's sweep (sweep.h); else NULL. It goes with the
 *	store as the clock does; its lock is the store's writers' beside
 *	the filter's write_lock (bloom_store_writers_lock()).
 */
struct bloom_store {
	struct bloom_core core;
	void *mem;
	struct bloom_map *map;
	struct bloom_account *acct;
	struct bloom_stats __percpu *stats;
	u64 memory_bytes;
	struct rcu_work free_work;
	struct bloom_scale scale;
	struct bloom_netblocks nb;
	struct bloom_clock *clock;
	struct bloom_sweep *sweep;
};

/*
 * The writers of a timed store (adds, deletes, clear, a restore filling
 * it) exclude its sweep; nothing for other stores. Sleeps.
 */
static inline void bloom_store_writers_lock(struct bloom_store *s)
{
	if (s->sweep)
		mutex_lock(&s->sweep->lock);
}

static inline void bloom_store_writers_unlock(struct bloom_store *s)
{
	if (s->sweep)
		mutex_unlock(&s->sweep->lock);
}

/*
 * A new, empty store of @geo (checked by the caller with
 * bloom_geometry_check() or made by bloom_geometry_size()), hashing with
 * @hash_key (BLOOM_CORE_HASH_KEY_LEN bytes) or a random key when NULL. Its bytes
 * are charged to @acct: ERR_PTR(-EDQUOT) over a limit (account.h),
 * ERR_PTR(-ENOMEM). Sleeps.
 */
struct bloom_store *bloom_store_new(struct bloom_account *acct,
				    const struct bloom_geometry *geo,
				    const u8 *hash_key);
/*
 * The same with a timed store's sweep not started, for a restore to fill
 * the table first (then bloom_store_sweep_start()).
 */
struct bloom_store *bloom_store_new_stopped(struct bloom_account *acct,
					    const struct bloom_geometry *geo,
					    const u8 *hash_key);
void bloom_store_sweep_start(struct bloom_store *s);
/*
 * A new chain of @p (checked by bloom_scale_check()) with its first stage;
 * errors as bloom_store_new().
 */
struct bloom_store *bloom_store_new_chain(struct bloom_account *acct,
					  const struct bloom_scale_params *p,
					  const u8 *hash_key);
/* The same without stages (a restore adds them: bloom_store_add_stage()). */
struct bloom_store *bloom_store_new_stageless(struct bloom_account *acct,
					      const struct bloom_scale_params *p,
					      const u8 *hash_key);
/*
 * Rotations a second an expiring filter of a network namespace other than
 * the initial one may make at most: its period, timeout / (G - 1), is at
 * least a quarter of a second.
 */
#define BLOOM_NETNS_ROTATIONS_HZ	4

/*
 * A new expiring store of @p (checked by bloom_expire_check()), its
 * generations empty and its clock running; errors as bloom_store_new(),
 * and -EINVAL for a period under 1 / BLOOM_NETNS_ROTATIONS_HZ s charged
 * to a namespace other than the initial one.
 * bloom_store_new_expiring_stopped() leaves the clock stopped, for a
 * restore to fill the generations first (then bloom_store_clock_start()).
 */
struct bloom_store *bloom_store_new_expiring(struct bloom_account *acct,
					     const struct bloom_expire_params *p,
					     const u8 *hash_key);
struct bloom_store *
bloom_store_new_expiring_stopped(struct bloom_account *acct,
				 const struct bloom_expire_params *p,
				 const u8 *hash_key);
/*
 * Starts the clock of an expiring store made stopped, once a restore has
 * filled its generations and their times (bloom_image_gens_apply()).
 */
void bloom_store_clock_start(struct bloom_store *s);

/*
 * Frees a store that was never published, at once (an expiring one: its
 * bytes at once, the rest once its clock stopped, as a retired store).
 */
void bloom_store_discard(struct bloom_store *s);
/*
 * Frees a store that was published, once every reader that may have found
 * it is gone (an RCU grace period); its bytes are given back at once, so
 * that a destroy followed by a create of the same size works. Never waits.
 */
void bloom_store_retire(struct bloom_store *s);

/*
 * Allocates a stage of @geo (zeroed) and publishes it as @s's next stage,
 * counted in s->memory_bytes. The caller serialises growers (or @s is not
 * published yet) and has checked that @s may have it. The stage, or
 * ERR_PTR(-EDQUOT) (max_memory), ERR_PTR(-ENOMEM). Sleeps.
 */
struct bloom_scale_stage *bloom_store_add_stage(struct bloom_store *s,
						const struct bloom_geometry *geo);
/*
 * Adds the next stage of a chain if its newest is full (or it has none): 0
 * (also when another grower did meanwhile, or @s is not a chain), -ENOSPC
 * (no further stage possible), -EDQUOT, -ENOMEM. Growers serialised as
 * above. Sleeps.
 */
int bloom_store_grow(struct bloom_store *s);

/*
 * May the @len-byte @key be in @s? One lookup of the packet paths (rules,
 * BPF programs), under RCU, no lock, no sleep. Counts nothing.
 */
static inline bool bloom_store_query(const struct bloom_store *s,
				     const void *key, u32 len)
{
	return bloom_core_query_hash(&s->core,
				     bloom_core_hash(&s->core, key, len));
}

/*
 * May the address @addr (@len 4: IPv4, 16: IPv6, the caller checked) be
 * in @s, itself or inside a netblock it holds (bloom_nb_query())? As
 * bloom_store_query().
 */
static inline bool bloom_store_query_addr(const struct bloom_store *s,
					  const void *addr, u32 len)
{
	return bloom_nb_query(&s->core, &s->nb,
			      len == 16 ? BLOOM_NB_IPV6 : BLOOM_NB_IPV4,
			      addr, len * 8);
}

/*
 * Around a change of what @s holds that is not an add (map.h: the
 * mapping's sequence number), by its writers; nothing without a mapping.
 * bloom_store_unpublished() inside such a change: the filter no longer
 * holds @s (destroyed, or replaced).
 */
static inline void bloom_store_changing(struct bloom_store *s)
{
	if (s->map)
		bloom_map_change_begin(s->map);
}

static inline void bloom_store_changed(struct bloom_store *s)
{
	if (s->map)
		bloom_map_change_end(s->map);
}

static inline void bloom_store_unpublished(struct bloom_store *s)
{
	if (s->map)
		bloom_map_set_stale(s->map);
}

/*
 * The key kind of @s was set: the mapping's header says it too, as a
 * change (bloom_store_changing()) when readers may see @s already and the
 * caller is not inside a change of its own.
 */
static inline void bloom_store_keys_changed(struct bloom_store *s,
					    bool published)
{
	if (s->map)
		bloom_map_set_keys(s->map, READ_ONCE(s->nb.kind), published);
}

/*
 * The statistics, summed over CPUs while they change: each count at least
 * what it was when the call began and at most what it is when it returns,
 * and no hit count above its total (a total is summed from the very hits
 * it is reported with).
 */
void bloom_store_sum_stats(const struct bloom_store *s,
			   struct bloom_stats_sum *sum);
/* Every key and statistic to zero; writers held off by the caller. */
int bloom_store_clear(struct bloom_store *s);
/*
 * @dst becomes the union of @dst and @src (bloom_core_merge(), or
 * bloom_expire_merge() for expiring stores, which takes both clocks'
 * locks: no rotation runs meanwhile). Writers held off by the caller.
 */
int bloom_store_merge(struct bloom_store *dst, struct bloom_store *src);

/*
 * Milliseconds until an expiring store's next rotation (0 when it is
 * due); 0 for other stores. Read racily.
 */
u64 bloom_store_next_rotation_ms(const struct bloom_store *s);
/* An expiring store's rotations that ran late (clock.h); else 0. */
u64 bloom_store_late_rotations(const struct bloom_store *s);

/*
 * Module init and exit: the workqueues that free retired stores and rotate
 * expiring ones.
 */
int bloom_store_init(void);
/* Waits until every retired store has been freed. */
void bloom_store_exit(void);

#endif /* BLOOM_STORE_H */
