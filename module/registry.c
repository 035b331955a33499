// SPDX-License-Identifier: GPL-2.0
/*
 * The names of filters (registry.h): each network namespace's filters, as
 * ipset keeps its sets, each with its sysfs directory (sysfs_dir.c) while
 * it has its name.
 *
 * A namespace's names are a hash table (lookups: bind, info, destroy, a
 * firewall rule's insertion) and a list in creation order (LIST, which
 * sorts a copy), under a mutex in the namespace's net_generic() slot, with
 * the namespace's memory account (account.h). A namespace other than the
 * initial one holds at most max_filters_per_netns filters (-EMFILE).
 *
 * Every name also has an id, the number BPF programs name the filter by
 * (bpf.c): handed out cyclically from 1 up to BLOOM_REGISTRY_ID_MAX, so
 * that a destroyed filter's id is not handed to the next filter created
 * and a program still using it finds no filter instead of another one. The
 * id belongs to the name: swap and restore --replace change the store, not
 * the filter. A namespace finds its filters by id in a table of a power of
 * two slots, slot id & mask, published under RCU: a lookup (every packet
 * of a kfunc) is a load of the table, a load of the slot and a compare of
 * the filter's id, with no lock. The cursor skips ids whose slot is taken,
 * and the table doubles (copied, the old one freed after a grace period)
 * before it is more than half full, so no two live ids share a slot; it
 * never shrinks: fewer than 4 slots per filter the namespace held at once
 * (16 at least), whose number is capped by max_filters_per_netns outside
 * the initial namespace. A filter struct is freed a grace period after its
 * last put (filter.c), so a reader that found it in a table it loaded
 * before the slot was cleared reads a valid struct (and its store is gone:
 * a destroy).
 *
 * A namespace's filters go with it: the pernet exit destroys every filter
 * of the namespace (its memory is freed after a grace period) even if the
 * namespace's own firewall rules, torn down right after, still hold one:
 * those then match nothing. Descriptors opened in a namespace hold it with
 * get_net(), so none is left by then.
 */
#include <linux/err.h>
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/user_namespace.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "alloc.h"
#include "filter.h"
#include "registry.h"
#include "sysfs_dir.h"

/* Filters a namespace other than the initial one may hold. */
static unsigned int max_filters_per_netns = 1024;
module_param(max_filters_per_netns, uint, 0644);
MODULE_PARM_DESC(max_filters_per_netns, "Filters a network namespace other than the initial one may hold (default 1024; beyond: EMFILE)");

#define BLOOM_NAME_HASH_BITS	8
/* The first table of ids: 8 filters before it doubles. */
#define BLOOM_IDS_MIN		16

/* A namespace's filters by id: @slot[id & @mask]. */
struct bloom_ids {
	struct rcu_head rcu;
	u32 mask;			/* slots - 1, slots a power of two */
	struct bloom_filter __rcu *slot[];
};

struct bloom_netns {
	struct mutex lock;		/* guards the list, tables and count */
	struct list_head filters;	/* in creation order */
	DECLARE_HASHTABLE(names, BLOOM_NAME_HASH_BITS);
	/* id -> filter; replaced and changed under @lock, read under RCU */
	struct bloom_ids __rcu *ids;
	u32 next_id;			/* the next id to try */
	u32 seed;			/* of the name hash, per namespace */
	u32 count;
	bool initial;			/* the initial network namespace */
	struct bloom_account acct;	/* what its filters take */
};

static unsigned int bloom_netns_id __read_mostly;

static struct bloom_netns *bloom_netns(struct net *net)
{
	return net_generic(net, bloom_netns_id);
}

struct bloom_account *bloom_registry_account(struct net *net)
{
	return &bloom_netns(net)->acct;
}

static u32 bloom_name_hash(const struct bloom_netns *bn, const char *name)
{
	return jhash(name, strlen(name), bn->seed);
}

static struct bloom_filter *bloom_netns_find(struct bloom_netns *bn,
					     const char *name)
{
	struct bloom_filter *f;

	lockdep_assert_held(&bn->lock);
	hash_for_each_possible(bn->names, f, name_node,
			       bloom_name_hash(bn, name))
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

static struct bloom_ids *bloom_ids_locked(struct bloom_netns *bn)
{
	return rcu_dereference_protected(bn->ids, lockdep_is_held(&bn->lock));
}

/*
 * Room for one more filter: a table at most half full once it is added,
 * doubled (or made) if need be. Not a counted allocation (alloc.h): the
 * table outlives the filters, until the namespace goes, and
 * live_allocations counts what filters, descriptors and calls hold.
 */
static int bloom_ids_reserve(struct bloom_netns *bn)
{
	struct bloom_ids *old = bloom_ids_locked(bn), *t;
	u32 i, slots = old ? old->mask + 1 : 0;
	struct bloom_filter *f;

	if ((bn->count + 1) * 2 <= slots)
		return 0;
	slots = max_t(u32, slots * 2, BLOOM_IDS_MIN);
	t = kvzalloc(struct_size(t, slot, slots), GFP_KERNEL_ACCOUNT);
	if (!t)
		return -ENOMEM;
	t->mask = slots - 1;
	/* ids apart under the old mask are apart under this wider one */
	for (i = 0; old && i <= old->mask; i++) {
		f = rcu_dereference_protected(old->slot[i],
					      lockdep_is_held(&bn->lock));
		if (f)
			RCU_INIT_POINTER(t->slot[f->id & t->mask], f);
	}
	rcu_assign_pointer(bn->ids, t);
	if (old)
		kvfree_rcu(old, rcu);
	return 0;
}

/* The next id from the cursor whose slot is free; the table has room. */
static u32 bloom_ids_next(struct bloom_netns *bn)
{
	struct bloom_ids *t = bloom_ids_locked(bn);
	u32 id;

	do {
		id = bn->next_id;
		bn->next_id = id >= BLOOM_REGISTRY_ID_MAX ? 1 : id + 1;
	} while (rcu_access_pointer(t->slot[id & t->mask]));
	return id;
}

int bloom_registry_add(struct net *net, struct bloom_filter *f)
{
	struct bloom_netns *bn = bloom_netns(net);
	struct bloom_ids *t;
	int ret;

	if (mutex_lock_killable(&bn->lock))
		return -EINTR;
	ret = -EEXIST;
	if (bloom_netns_find(bn, f->name))
		goto out;
	ret = -EMFILE;
	if (!bn->initial && bn->count >= READ_ONCE(max_filters_per_netns))
		goto out;
	f->net = net;
	ret = bloom_ids_reserve(bn);
	if (ret)
		goto out;
	/* its slot stays free: the tables change under @lock only */
	f->id = bloom_ids_next(bn);
	ret = bloom_sysfs_dir_add(f);
	if (ret) {
		f->id = 0;
		goto out;
	}
	list_add_tail(&f->node, &bn->filters);
	hash_add(bn->names, &f->name_node, bloom_name_hash(bn, f->name));
	bn->count++;
	bloom_filter_get(f);
	/* found by id once everything else is in place */
	t = bloom_ids_locked(bn);
	rcu_assign_pointer(t->slot[f->id & t->mask], f);
out:
	mutex_unlock(&bn->lock);
	return ret;
}

static void bloom_netns_unlink(struct bloom_netns *bn, struct bloom_filter *f)
{
	struct bloom_ids *t = bloom_ids_locked(bn);

	lockdep_assert_held(&bn->lock);
	/* readers by id may hold @f until a grace period has passed */
	RCU_INIT_POINTER(t->slot[f->id & t->mask], NULL);
	list_del_init(&f->node);
	hash_del(&f->name_node);
	bn->count--;
	/*
	 * Under the lock, so that the name is free in sysfs by the time a
	 * create of the same name can find it free in the list.
	 */
	bloom_sysfs_dir_del(f);
}

/*
 * -EBUSY while holders (firewall rules, XDP programs) hold the filter, once
 * they held it for BLOOM_HOLDS_WAIT_MS. Rules take their hold under this
 * lock (bloom_registry_lookup_rule()), so the count read here cannot miss
 * one. An XDP hold is taken under RCU, without it: one that
 * counts itself after the check here and before the destroy below still
 * finds the filter, and its program then finds it gone, as if it had been
 * destroyed first (its loader checks by name after taking the hold).
 */
int bloom_registry_remove(struct net *net, const char *name)
{
	unsigned long until = jiffies + msecs_to_jiffies(BLOOM_HOLDS_WAIT_MS);
	struct bloom_netns *bn = bloom_netns(net);
	struct bloom_filter *f;
	int ret;

	for (;;) {
		if (mutex_lock_killable(&bn->lock))
			return -EINTR;
		ret = 0;
		f = bloom_netns_find(bn, name);
		if (!f)
			ret = -ENOENT;
		else if (bloom_filter_held(f))
			ret = -EBUSY;
		/* the caller may wait for a writer's batch: killably */
		else if (mutex_lock_killable(&f->write_lock))
			ret = -EINTR;
		else
			bloom_netns_unlink(bn, f);
		if (ret != -EBUSY || time_after_eq(jiffies, until))
			break;
		/* wait unlocked; the name is looked up again after */
		bloom_filter_get(f);
		mutex_unlock(&bn->lock);
		ret = bloom_filter_wait_unheld(f, until);
		bloom_filter_put(f);
		if (ret)
			return ret;
	}
	mutex_unlock(&bn->lock);
	if (ret)
		return ret;
	/* sparse: the write_lock taken above, which the call releases */
	__acquire(&f->write_lock);
	bloom_filter_destroy_and_unlock(f);
	bloom_filter_put(f);
	return 0;
}

/*
 * Returns the filter of that name in @net with a reference the caller puts,
 * or an ERR_PTR. @rule: the reference is a firewall rule's hold, which
 * makes destroy fail with -EBUSY until bloom_rule_put().
 */
static struct bloom_filter *bloom_registry_lookup_ref(struct net *net,
						      const char *name,
						      bool rule)
{
	struct bloom_netns *bn = bloom_netns(net);
	struct bloom_filter *f;

	if (mutex_lock_killable(&bn->lock))
		return ERR_PTR(-EINTR);
	f = bloom_netns_find(bn, name);
	if (f) {
		bloom_filter_get(f);
		if (rule)
			bloom_filter_hold(f, BLOOM_HOLD_RULE);
	}
	mutex_unlock(&bn->lock);
	return f ?: ERR_PTR(-ENOENT);
}

struct bloom_filter *bloom_registry_lookup(struct net *net, const char *name)
{
	return bloom_registry_lookup_ref(net, name, false);
}

struct bloom_filter *bloom_registry_lookup_rule(struct net *net,
						const char *name)
{
	return bloom_registry_lookup_ref(net, name, true);
}

/*
 * Under rcu_read_lock() or with BH disabled (XDP, tc), from any context:
 * the filter with id @id in @net, valid until the read side ends, or NULL.
 * Its store may be gone already (bloom_filter_store() is NULL): a destroy
 * in progress.
 */
struct bloom_filter *bloom_registry_find_id(struct net *net, u32 id)
{
	/*
	 * net_generic() without a read-side section of its own: the caller
	 * is in one, and under PREEMPT_RCU each is two calls, which cost a
	 * kfunc more than the rest of this lookup (make bench, part xdp).
	 */
	struct bloom_netns *bn =
		rcu_dereference_check(net->gen, rcu_read_lock_bh_held())
			->ptr[bloom_netns_id];
	struct bloom_ids *t = rcu_dereference_check(bn->ids,
						    rcu_read_lock_bh_held());
	struct bloom_filter *f;

	if (unlikely(!t))
		return NULL;
	f = rcu_dereference_check(t->slot[id & t->mask],
				  rcu_read_lock_bh_held());
	/* a slot holds the one live id of its class: compare the whole id */
	return f && f->id == id ? f : NULL;
}

static int bloom_name_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/*
 * A snapshot of the names in @net, sorted, BLOOM_NAME_LEN bytes each, in
 * memory the caller frees with bloom_kvfree(). Sorting and copying out to
 * userspace happen after the lock is dropped, so a slow page fault cannot
 * stall everybody else's create.
 */
int bloom_registry_names(struct net *net, char **names, u32 *count)
{
	struct bloom_netns *bn = bloom_netns(net);
	struct bloom_filter *f;
	u32 i = 0;

	if (mutex_lock_killable(&bn->lock))
		return -EINTR;
	*names = NULL;
	if (bn->count) {
		*names = bloom_kvzalloc(array_size(bn->count, BLOOM_NAME_LEN),
					GFP_KERNEL_ACCOUNT);
		if (!*names) {
			mutex_unlock(&bn->lock);
			return -ENOMEM;
		}
	}
	list_for_each_entry(f, &bn->filters, node)
		memcpy(*names + BLOOM_NAME_LEN * i++, f->name, BLOOM_NAME_LEN);
	*count = i;
	mutex_unlock(&bn->lock);
	sort(*names, i, BLOOM_NAME_LEN, bloom_name_cmp, NULL);
	return 0;
}

static int __net_init bloom_netns_init(struct net *net)
{
	struct bloom_netns *bn = bloom_netns(net);

	mutex_init(&bn->lock);
	INIT_LIST_HEAD(&bn->filters);
	hash_init(bn->names);
	RCU_INIT_POINTER(bn->ids, NULL);
	bn->next_id = 1;
	bn->seed = get_random_u32();
	bn->count = 0;
	bn->initial = net_eq(net, &init_net);
	bloom_account_init(&bn->acct, bn->initial,
			   net->user_ns == &init_user_ns);
	return 0;
}

/*
 * The namespace is going away, or the module is: no descriptor of the
 * namespace is open (each holds the namespace), so these are the last names.
 * Rules of the namespace may still hold filters (their structs, not their
 * memory); they let go when the namespace's tables are torn down.
 */
static void __net_exit bloom_netns_exit(struct net *net)
{
	struct bloom_netns *bn = bloom_netns(net);
	struct bloom_filter *f, *tmp;
	struct bloom_ids *t;

	mutex_lock(&bn->lock);
	list_for_each_entry_safe(f, tmp, &bn->filters, node) {
		bloom_netns_unlink(bn, f);
		bloom_filter_destroy(f);
		bloom_filter_put(f);
	}
	t = bloom_ids_locked(bn);
	RCU_INIT_POINTER(bn->ids, NULL);
	mutex_unlock(&bn->lock);
	/* empty now; a reader may still hold it for a grace period */
	if (t)
		kvfree_rcu(t, rcu);
	mutex_destroy(&bn->lock);
	bloom_account_exit(&bn->acct);
}

static struct pernet_operations bloom_netns_ops = {
	.init = bloom_netns_init,
	.exit = bloom_netns_exit,
	.id = &bloom_netns_id,
	.size = sizeof(struct bloom_netns),
};

int bloom_registry_init(void)
{
	return register_pernet_subsys(&bloom_netns_ops);
}

/*
 * Module exit: runs bloom_netns_exit() for every namespace, then removes the
 * filters/ directory, which every filter's directory has left by then.
 */
void bloom_registry_exit(void)
{
	unregister_pernet_subsys(&bloom_netns_ops);
	bloom_sysfs_dir_exit();
}
