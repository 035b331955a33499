/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A filter as the module keeps it: a name, a sysfs directory and a lifetime
 * (struct bloom_filter), and, reached through an RCU-protected pointer, what
 * it holds (struct bloom_store: the core filter, its bit array, counters or
 * cells, and the per-CPU statistics).
 *
 * Lifetime. @users counts who may touch the struct: the name holds one
 * reference while the name exists, every descriptor bound to the filter one,
 * and so does every firewall rule that names it (counted in @rules too:
 * destroy refuses a filter that rules use with EBUSY, except when its
 * network namespace goes away, rules and all). Destroy removes the name and
 * the sysfs directory, unpublishes the store (@store becomes NULL), gives the
 * store's bytes back to max_memory at once and frees the store after an RCU
 * grace period. A descriptor that is still
 * bound keeps only the struct (a few hundred bytes, not counted in
 * memory_used) and gets ESTALE from every call on the filter: nobody can pin
 * a destroyed filter's memory. The struct itself goes with the kobject's
 * release after the last user, which the kernel may run later
 * (CONFIG_DEBUG_KOBJECT_RELEASE delays it by seconds).
 *
 * Reading a store: rcu_read_lock(), bloom_filter_store(); NULL means the
 * filter was destroyed (ESTALE). Nothing in a store may be used after
 * rcu_read_unlock(): it may be replaced and freed. Queries and the adds of
 * standard and blocked filters run under RCU alone; the writers of counting
 * and d-left filters hold @write_lock, under which the store cannot change
 * (bloom_filter_store_locked()).
 *
 * A scalable filter grows without a replace: the adder that finds the
 * newest stage full takes @write_lock, allocates the next stage and
 * appends it to the store published now (scale.c); queries and other
 * adders go on under RCU meanwhile, and the stages go with the store.
 *
 * Replacing a store (restore --replace, flush, swap): build the new
 * one with bloom_store_new(), publish it with bloom_filter_replace() or
 * exchange two filters' stores with bloom_filter_swap(). The old store is
 * freed after a grace period; no caller ever waits for one. A filter's type
 * never changes (its sysfs files depend on it), its geometry and hash key
 * may. A batch that overlaps a replace applies each of its chunks to the
 * store published at that chunk's start (re-hashing its keys if the hash
 * key changed), so a lock-free add (standard, blocked) that overlaps a
 * replace may land in the old store and be lost with it; counting and
 * d-left batches and every replace hold @write_lock, so those never
 * straddle one.
 */
#ifndef BLOOM_FILTER_H
#define BLOOM_FILTER_H

#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/bloom.h>

#include "core.h"

struct device;
struct net;

/* Hot-path counters, per CPU; summed when read. */
struct bloom_stats {
	u64 adds;
	u64 queries;
	u64 hits;
	u64 deletes;
	u64 delete_misses;
	u64 delete_pinned;
	u64 packets;		/* checked by firewall rules (xt_bloom) */
	u64 packet_hits;	/* of those, addresses that may be present */
};

/**
 * struct bloom_store - what a filter holds
 * @core: the core filter: geometry, hash key, @core.words into @mem
 * @mem: the allocation behind @core.words
 * @stats: what was done to this store, per CPU
 * @memory_bytes: charged against max_memory: the storage, the statistics,
 *	this struct and the filter's struct (so that INFO's memory_bytes is the
 *	filter's whole cost); a scalable store's grows with its stages
 *	(WRITE_ONCE under the filter's write_lock)
 * @free_work: frees the store after a grace period
 * @scale: a scalable store's stages, behind @core.scale (scale.c); @mem is
 *	then NULL. Stages are only added (under the filter's write_lock, or
 *	before the store is published) and go with the store.
 */
struct bloom_store {
	struct bloom_core core;
	void *mem;
	struct bloom_stats __percpu *stats;
	u64 memory_bytes;
	struct rcu_work free_work;
	struct bloom_scale scale;
};

struct bloom_filter {
	struct kobject kobj;		/* holds the struct only */
	refcount_t users;		/* holds the struct's contents */
	struct list_head node;		/* in its namespace's list, under its lock */
	char name[BLOOM_NAME_LEN];
	u32 type;			/* enum bloom_type; never changes */
	/*
	 * The namespace whose list holds the name; only for the sysfs
	 * namespace tag, which is gone once the name is.
	 */
	struct net *net;
	atomic_t rules;			/* firewall rules holding the filter */
	/*
	 * Serialises adds and deletes of the types whose writers must be
	 * exclusive (counting, d-left) and every change of @store; queries
	 * never take it.
	 */
	struct mutex write_lock;
	struct bloom_store __rcu *store;	/* NULL once destroyed */
	/*
	 * Created scalable (never changes): its sysfs has the scalable files
	 * and stages/<i>/ (scale.c), which @stages_kobj and @stage_dirs hold
	 * while @stages_in_sysfs, all under @write_lock.
	 */
	bool scalable;
	bool stages_in_sysfs;
	struct kobject *stages_kobj;
	struct kobject *stage_dirs[BLOOM_SCALE_STAGES_MAX];
};

int bloom_filter_new(const struct bloom_create *arg,
		     struct bloom_filter **out);
/*
 * A new filter named @name holding @s (from bloom_store_new(), which it
 * takes over, also on failure: 0 or -ENOMEM). Not yet registered.
 */
int bloom_filter_new_store(const char *name, struct bloom_store *s,
			   struct bloom_filter **out);
struct bloom_filter *bloom_filter_get(struct bloom_filter *f);
void bloom_filter_put(struct bloom_filter *f);
/* The part of destroy after the name and sysfs are gone (bloom_filter_remove()). */
void bloom_filter_destroy(struct bloom_filter *f);

/* The store under rcu_read_lock(); NULL once destroyed. */
static inline struct bloom_store *bloom_filter_store(struct bloom_filter *f)
{
	return rcu_dereference(f->store);
}

/* The store under @f->write_lock; NULL once destroyed. */
static inline struct bloom_store *
bloom_filter_store_locked(struct bloom_filter *f)
{
	return rcu_dereference_protected(f->store,
					 lockdep_is_held(&f->write_lock));
}

static inline bool bloom_filter_dead(struct bloom_filter *f)
{
	return !rcu_access_pointer(f->store);
}

/*
 * A new, empty store of @geo (checked by the caller with
 * bloom_geometry_check() or made by bloom_geometry_size()), hashing with
 * @hash_key (BLOOM_HASH_KEY_LEN bytes) or a random key when NULL. Its bytes
 * are charged against max_memory: ERR_PTR(-EDQUOT) over the limit,
 * ERR_PTR(-ENOMEM). Sleeps.
 */
struct bloom_store *bloom_store_new(const struct bloom_geometry *geo,
				    const u8 *hash_key);
/*
 * A new scalable store of @p (checked by bloom_scale_check()) with stage 0;
 * errors as bloom_store_new().
 */
struct bloom_store *bloom_store_new_scalable(const struct bloom_scale_params *p,
					     const u8 *hash_key);
/* The same without stages (a restore adds them: bloom_store_add_stage()). */
struct bloom_store *bloom_store_new_stageless(const struct bloom_scale_params *p,
					      const u8 *hash_key);
/* Frees a store that was never published, at once. */
void bloom_store_discard(struct bloom_store *s);

/*
 * Publishes @s as @f's store; the old one is freed after a grace period and
 * its bytes are given back at once. -ESTALE if @f was destroyed, -EINVAL if
 * @s is not of @f's type, -EINTR on a fatal signal: then @s still belongs to
 * the caller. Sleeps (takes @f->write_lock); never waits for a grace period.
 */
int bloom_filter_replace(struct bloom_filter *f, struct bloom_store *s);
/* Exchanges the stores of two filters of one type; errors as above. */
int bloom_filter_swap(struct bloom_filter *a, struct bloom_filter *b);
/* Both filters' write_locks, in address order; -EINTR on a fatal signal. */
int bloom_filter_lock_two(struct bloom_filter *a, struct bloom_filter *b);

/* Under rcu_read_lock() or @f->write_lock, with the store in hand. */
void bloom_store_sum_stats(const struct bloom_store *s,
			   struct bloom_stats *sum);
/* Fills INFO's outputs; -ESTALE once @f was destroyed. */
int bloom_filter_fill_info(struct bloom_filter *f, struct bloom_info *info);
const char *bloom_filter_type_name(const struct bloom_filter *f);

/*
 * The files of a filter's sysfs directory, defined by sysfs.c, which reads
 * filters through this header only; this file never calls into sysfs.c.
 */
extern const struct attribute_group *bloom_filter_groups[];

/*
 * Names, per network namespace: register a new filter's name (and its sysfs
 * directory; the namespace's list takes a reference of its own), look a
 * name up (a reference the caller puts; _rule: a firewall rule's, see
 * bloom_rule_get()), remove a name and destroy its filter (-EBUSY while
 * rules hold it), list the names (sorted, BLOOM_NAME_LEN bytes each, freed
 * with bloom_kvfree()).
 */
int bloom_filter_net_init(void);
void bloom_filter_net_exit(void);
int bloom_filter_register(struct net *net, struct bloom_filter *f);
int bloom_filter_remove(struct net *net, const char *name);
struct bloom_filter *bloom_filter_lookup(struct net *net, const char *name);
struct bloom_filter *bloom_filter_lookup_rule(struct net *net,
					      const char *name);
int bloom_filter_names(struct net *net, char **names, u32 *count);

/*
 * The filters/ directory inside the device's: made once the device is
 * registered (-ENOMEM), removed at exit after every filter's.
 */
int bloom_filters_dir_ready(struct device *dev);
void bloom_filters_dir_exit(void);

int bloom_filter_init(void);
/* Module exit: waits until every store and every struct has been freed. */
void bloom_filter_exit(void);

u64 bloom_memory_used(void);
u64 bloom_memory_limit(void);
/* Takes @bytes of max_memory (-EDQUOT when over it); gives them back. */
int bloom_memory_reserve(u64 bytes);
void bloom_memory_release(u64 bytes);

#endif /* BLOOM_FILTER_H */
