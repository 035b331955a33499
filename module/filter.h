/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A filter as the module keeps it (filter.c): a name, a lifetime and,
 * reached through an RCU-protected pointer, what it holds (struct
 * bloom_store, store.h). Names and the sysfs directory are the registry's
 * (registry.h); this object only lives, holds a store and changes it.
 *
 * Lifetime. @users counts who may touch the struct: the registry holds one
 * reference while the name exists, every descriptor bound to the filter
 * one, and so does every firewall rule that names it (counted in @rules
 * too: destroy refuses a filter that rules use with EBUSY, except when its
 * network namespace goes away, rules and all). Destroy (after the registry
 * removed the name and the directory) unpublishes the store (@store
 * becomes NULL), gives the store's and the struct's bytes back to
 * max_memory at once and frees the store after an RCU grace period. A
 * descriptor that is still bound keeps only the struct (a few hundred
 * bytes, not counted in memory_used) and gets ESTALE from every call on
 * the filter: nobody can pin a destroyed filter's memory. The struct itself
 * goes with the kobject's release after the last user, which the kernel may
 * run later (CONFIG_DEBUG_KOBJECT_RELEASE delays it by seconds), and is
 * freed an RCU grace period after that: BPF programs find a filter by its
 * id under RCU alone (registry.h), without a reference.
 *
 * Reading a store: rcu_read_lock(), bloom_filter_store(); NULL means the
 * filter was destroyed (ESTALE). Nothing in a store may be used after
 * rcu_read_unlock(): it may be replaced and freed. Queries run under RCU
 * alone; the writers (adds and deletes of every type: the core needs them
 * serialised) hold @write_lock, under which the store cannot change
 * (bloom_filter_store_locked()).
 *
 * A scalable filter grows without a replace: the adder that finds the
 * newest stage full lets the store add the next stage under @write_lock
 * (bloom_store_grow()); queries go on under RCU meanwhile, and the stages
 * go with the store.
 *
 * Replacing a store (restore --replace, swap): build the new one with
 * bloom_store_new(), publish it with bloom_filter_replace() or exchange two
 * filters' stores with bloom_filter_swap(). The old store is freed after a
 * grace period; no caller ever waits for one. A filter's type never
 * changes (its sysfs files depend on it), its geometry and hash key may. A
 * query batch that overlaps a replace applies each of its chunks to the
 * store published at that chunk's start (re-hashing its keys if the hash
 * key changed); add and delete batches and every replace hold @write_lock,
 * so those never straddle one.
 */
#ifndef BLOOM_FILTER_H
#define BLOOM_FILTER_H

#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/bloom.h>

#include "store.h"

struct net;

struct bloom_filter {
	struct kobject kobj;		/* holds the struct only */
	refcount_t users;		/* holds the struct's contents */
	struct list_head node;		/* in its namespace's registry */
	struct hlist_node name_node;	/* in its registry's name hash */
	char name[BLOOM_NAME_LEN];
	/* in its namespace, while registered (registry.c); 0 before */
	u32 id;
	u32 type;			/* enum bloom_type; never changes */
	bool scalable;			/* never changes either */
	bool expiring;			/* nor this */
	/*
	 * The namespace whose registry holds the name; only for the sysfs
	 * namespace tag, which is gone once the name is.
	 */
	struct net *net;
	/* its namespace's, which its bytes are charged to (account.h) */
	struct bloom_account *acct;
	atomic_t rules;			/* firewall rules holding the filter */
	atomic_t xdp_holds;		/* XDP programs holding it (hold.h) */
	int xdp_ifindex;		/* the device of the latest of them */
	/*
	 * Serialises the writers (adds and deletes, merges, flushes) and
	 * every change of @store; queries never take it.
	 */
	struct mutex write_lock;
	struct bloom_store __rcu *store;	/* NULL once destroyed */
	struct rcu_head rcu;		/* frees the struct after release */
};

/*
 * A new filter named @name holding @s (from bloom_store_new(), which it
 * takes over, also on failure): 0, -EDQUOT (the struct's bytes over
 * max_memory) or -ENOMEM. Not yet registered; the caller's reference.
 */
int bloom_filter_new(const char *name, struct bloom_store *s,
		     struct bloom_filter **out);
struct bloom_filter *bloom_filter_get(struct bloom_filter *f);
void bloom_filter_put(struct bloom_filter *f);
/*
 * Unpublishes and retires the store, gives the bytes back; the part of
 * destroy after the registry let go of the name. Idempotent.
 */
void bloom_filter_destroy(struct bloom_filter *f);
/*
 * The same with @f->write_lock held by the caller (taken killably where a
 * user waits: DESTROY); it unlocks it once the store is unpublished.
 */
void bloom_filter_destroy_and_unlock(struct bloom_filter *f)
	__releases(&f->write_lock);

/*
 * The store under rcu_read_lock() or with BH disabled (an XDP or tc
 * program's kfunc: a read-side section since RCU's flavours became one);
 * NULL once destroyed.
 */
static inline struct bloom_store *bloom_filter_store(struct bloom_filter *f)
{
	return rcu_dereference_check(f->store, rcu_read_lock_bh_held());
}

/* The store under @f->write_lock; NULL once destroyed. */
static inline struct bloom_store *
bloom_filter_store_locked(struct bloom_filter *f)
{
	return rcu_dereference_protected(f->store,
					 lockdep_is_held(&f->write_lock));
}

/*
 * The key kind (enum bloom_keys) of @f's store now and, unless @key is
 * NULL, its hash key: 0, or -ESTALE once @f was destroyed. Takes
 * rcu_read_lock() itself: what it read may be stale when it returns.
 */
int bloom_filter_keys(struct bloom_filter *f, u32 *kind, bloom_hash_key_t *key);

static inline bool bloom_filter_dead(struct bloom_filter *f)
{
	return !rcu_access_pointer(f->store);
}

/*
 * Bytes the filter takes with store @s: the store's, the struct's and its
 * sysfs directory's.
 */
u64 bloom_filter_memory_bytes(const struct bloom_store *s);

/*
 * Publishes @s as @f's store; the old one is retired. -ESTALE if @f was
 * destroyed, -EINVAL if @s is not of @f's type, -EINTR on a fatal signal:
 * then @s still belongs to the caller. Sleeps (takes @f->write_lock);
 * never waits for a grace period.
 */
int bloom_filter_replace(struct bloom_filter *f, struct bloom_store *s);
/* Exchanges the stores of two filters of one type; errors as above. */
int bloom_filter_swap(struct bloom_filter *a, struct bloom_filter *b);
/*
 * @dst becomes the union of @dst and @src (bloom_core_merge(); two
 * scalable filters stage by stage, bloom_scale_merge(), @dst first getting
 * the stages it lacks): -EINVAL for @dst == @src or filters that differ
 * (scalable: in parameters or hash key), -EOPNOTSUPP (d-left, a scalable
 * filter with one that is not), -EDQUOT or -ENOMEM (a stage @dst lacked),
 * -ESTALE, -EINTR.
 */
int bloom_filter_merge(struct bloom_filter *dst, struct bloom_filter *src);
/*
 * Every key and statistic to zero, in place; a scalable filter gets a new
 * chain with its first stage only (the others are freed), which may fail
 * with -EDQUOT or -ENOMEM, changing nothing. Also -ESTALE, -EINTR.
 */
int bloom_filter_flush(struct bloom_filter *f);
/* Both filters' write_locks, in address order; -EINTR on a fatal signal. */
int bloom_filter_lock_two(struct bloom_filter *a, struct bloom_filter *b);

const char *bloom_filter_type_name(const struct bloom_filter *f);

/* Module exit: waits until every filter struct has been freed. */
void bloom_filter_exit(void);

#endif /* BLOOM_FILTER_H */
