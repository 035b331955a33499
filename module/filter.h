/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A filter as the module keeps it (filter.c): a name, a lifetime and,
 * reached through an RCU-protected pointer, what it holds (struct
 * bloom_store, store.h). Names and the sysfs directory are the registry's
 * (registry.h); this object only lives, holds a store and changes it.
 *
 * Lifetime. @users counts who may touch the struct: the registry holds one
 * reference while the name exists, every descriptor bound to the filter
 * one, and so does every holder: a firewall rule that names it, an XDP
 * program's hold (hold.h). Holders are counted by kind too (@holds), and
 * destroy waits a moment for them to let go, then refuses with EBUSY
 * (bloom_filter_wait_unheld()), except when its network namespace goes
 * away, rules and all. A process that maps the filter (map.h) holds the
 * mapped table, not the filter: a destroy goes ahead, and the table's
 * bytes come back at the last unmap. Destroy (after the registry
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
 * What a store does inside itself (a scalable filter's growth, an expiring
 * one's rotation, a timed one's sweep) needs no replace: the store does it
 * under @write_lock or its own work's lock (store.h), and queries go on
 * under RCU meanwhile.
 *
 * Replacing a store (restore --replace, swap): build the new one with
 * bloom_store_create(), publish it with bloom_filter_replace() or exchange
 * two filters' stores with bloom_filter_swap(). The old store is freed
 * after a grace period; no caller ever waits for one. A filter's type and
 * features never change (its sysfs files depend on them), its geometry and
 * hash key may. A
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

/*
 * Who holds a filter besides its name and the descriptors bound to it:
 * destroy waits for them to let go (BLOOM_HOLDS_WAIT_MS), then refuses.
 */
enum bloom_hold_kind {
	BLOOM_HOLD_RULE,	/* a firewall rule (xt_bloom) */
	BLOOM_HOLD_XDP,		/* an XDP program's hold (hold.h) */
	BLOOM_HOLD_KINDS,
};

struct bloom_filter {
	struct kobject kobj;		/* holds the struct only */
	refcount_t users;		/* holds the struct's contents */
	struct list_head node;		/* in its namespace's registry */
	struct hlist_node name_node;	/* in its registry's name hash */
	char name[BLOOM_NAME_LEN];
	/* in its namespace, while registered (registry.c); 0 before */
	u32 id;
	u32 type;			/* enum bloom_type; never changes */
	u32 features;			/* BLOOM_STORE_F_*; nor these */
	/*
	 * The namespace whose registry holds the name; only for the sysfs
	 * namespace tag, which is gone once the name is.
	 */
	struct net *net;
	/* its namespace's, which its bytes are charged to (account.h) */
	struct bloom_account *acct;
	atomic_t holds[BLOOM_HOLD_KINDS];	/* its holders, by kind */
	int xdp_ifindex;		/* the device of the latest XDP hold */
	/*
	 * Serialises the writers (adds and deletes, merges, flushes) and
	 * every change of @store; queries never take it.
	 */
	struct mutex write_lock;
	struct bloom_store __rcu *store;	/* NULL once destroyed */
	struct rcu_head rcu;		/* frees the struct after release */
};

/*
 * A new filter named @name holding @s (from bloom_store_create(), which it
 * takes over, also on failure): 0, -EDQUOT (the struct's bytes over
 * max_memory) or -ENOMEM. Not yet registered; the caller's reference.
 */
int bloom_filter_new(const char *name, struct bloom_store *s,
		     struct bloom_filter **out);
struct bloom_filter *bloom_filter_get(struct bloom_filter *f);
void bloom_filter_put(struct bloom_filter *f);

/*
 * A holder of @kind begins or ends: the caller has a reference of its own
 * (bloom_filter_get()) for as long as it holds, which it puts after
 * bloom_filter_unhold() (an XDP hold's later, from a work item: hold.c).
 * Any context, no sleep. A rule's hold is taken under its namespace's
 * registry lock (registry.c), so DESTROY, which checks under it, cannot
 * miss one.
 */
void bloom_filter_hold(struct bloom_filter *f, enum bloom_hold_kind kind);
void bloom_filter_unhold(struct bloom_filter *f, enum bloom_hold_kind kind);
/* Whether anyone holds @f; read racily. */
bool bloom_filter_held(struct bloom_filter *f);
/*
 * How long DESTROY waits for holders to let go of a filter: the nft
 * backend of iptables frees a deleted rule from a work item after an RCU
 * grace period, a moment after iptables returned, and a detached XDP
 * program's map is freed from a work item too, so a DESTROY right after
 * "iptables -F" or a detach would otherwise fail with -EBUSY for whoever
 * calls it.
 */
#define BLOOM_HOLDS_WAIT_MS	2000
/*
 * Waits, holding no lock but a reference to @f, until nobody holds @f or
 * @until (jiffies) passed: 0 either way, -EINTR if killed.
 */
int bloom_filter_wait_unheld(struct bloom_filter *f, unsigned long until);
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
 * INFO's reply for @f, zeroed then filled (its size kept): the store's
 * figures (bloom_store_info()) and the filter's own; -ESTALE.
 */
int bloom_filter_info(struct bloom_filter *f, struct bloom_info *info);
/*
 * STAGES' entries of the store published now into @out (zeroed,
 * BLOOM_SCALE_STAGES_MAX of them): their number, -EOPNOTSUPP, -ESTALE.
 */
int bloom_filter_stages(struct bloom_filter *f, struct bloom_stage *out);
/*
 * The description of @f's store now (bloom_store_spec_of()), for a filter
 * like it: 0 or -ESTALE. The caller wipes @spec's hash key.
 */
int bloom_filter_spec(struct bloom_filter *f, struct bloom_store_spec *spec);

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
 * @dst becomes the union of @dst and @src (bloom_store_merge(), whose
 * errors it returns): -EINVAL for @dst == @src, -ESTALE, -EINTR.
 */
int bloom_filter_merge(struct bloom_filter *dst, struct bloom_filter *src);
/*
 * Every key and statistic to zero (bloom_store_flush(): in place, or a
 * scalable filter's new chain published), -EDQUOT or -ENOMEM changing
 * nothing; -ESTALE, -EINTR.
 */
int bloom_filter_flush(struct bloom_filter *f);
/* Both filters' write_locks, in address order; -EINTR on a fatal signal. */
int bloom_filter_lock_two(struct bloom_filter *a, struct bloom_filter *b);

const char *bloom_filter_type_name(const struct bloom_filter *f);

/* Module exit: waits until every filter struct has been freed. */
void bloom_filter_exit(void);

#endif /* BLOOM_FILTER_H */
