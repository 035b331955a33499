// SPDX-License-Identifier: GPL-2.0
/*
 * Filter names, one registry per network namespace (as ipset keeps its sets):
 * a sorted list under a mutex in each namespace's net_generic() slot. Names
 * are looked up when a descriptor binds or a firewall rule is inserted, not
 * per key, so a list is enough and keeps LIST sorted.
 *
 * A namespace's filters go with it: the pernet exit destroys every filter
 * of the namespace (its memory is freed after a grace period) even if the
 * namespace's own firewall rules, torn down right after, still hold one:
 * those then match nothing. Descriptors opened in a namespace hold it with
 * get_net(), so none is left by then.
 */
#include <linux/err.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "alloc.h"
#include "filter.h"
#include "registry.h"
#include "sysfs.h"

struct bloom_net {
	struct mutex lock;		/* guards the list and count */
	struct list_head filters;	/* sorted by name */
	u32 count;
};

static unsigned int bloom_net_id __read_mostly;

static struct bloom_net *bloom_net(struct net *net)
{
	return net_generic(net, bloom_net_id);
}

static struct bloom_filter *bloom_registry_find(struct bloom_net *bn,
						const char *name)
{
	struct bloom_filter *f;

	lockdep_assert_held(&bn->lock);
	list_for_each_entry(f, &bn->filters, node)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

/*
 * Registers @f under its name in @net; the registry takes a reference of its
 * own.
 */
int bloom_registry_add(struct net *net, struct bloom_filter *f)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_filter *pos;
	int ret;

	if (mutex_lock_killable(&bn->lock))
		return -EINTR;
	ret = -EEXIST;
	if (bloom_registry_find(bn, f->name))
		goto out;
	f->net = net;
	ret = bloom_sysfs_add_filter(f);
	if (ret)
		goto out;
	list_for_each_entry(pos, &bn->filters, node)
		if (strcmp(pos->name, f->name) > 0)
			break;
	list_add_tail(&f->node, &pos->node);
	bn->count++;
	bloom_filter_get(f);
out:
	mutex_unlock(&bn->lock);
	return ret;
}

static void bloom_registry_remove(struct bloom_net *bn, struct bloom_filter *f)
{
	lockdep_assert_held(&bn->lock);
	list_del_init(&f->node);
	bn->count--;
	/*
	 * Under the lock, so that the name is free in sysfs by the time a
	 * create of the same name can find it free in the registry.
	 */
	bloom_sysfs_del_filter(f);
}

/*
 * -EBUSY while firewall rules hold the filter: rules take their reference
 * under this lock (bloom_registry_lookup_rule()), so the count read here
 * cannot miss one.
 */
int bloom_registry_destroy(struct net *net, const char *name)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_filter *f;
	int ret = 0;

	if (mutex_lock_killable(&bn->lock))
		return -EINTR;
	f = bloom_registry_find(bn, name);
	if (!f)
		ret = -ENOENT;
	else if (atomic_read(&f->rules))
		ret = -EBUSY;
	else
		bloom_registry_remove(bn, f);
	mutex_unlock(&bn->lock);
	if (ret)
		return ret;
	bloom_filter_destroy(f);
	bloom_filter_put(f);
	return 0;
}

/*
 * Returns the filter of that name in @net with a reference the caller puts,
 * or an ERR_PTR. @rule: the reference is a firewall rule's, which makes
 * destroy fail with -EBUSY until bloom_filter_put_rule().
 */
static struct bloom_filter *bloom_registry_get(struct net *net,
					       const char *name, bool rule)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_filter *f;

	if (mutex_lock_killable(&bn->lock))
		return ERR_PTR(-EINTR);
	f = bloom_registry_find(bn, name);
	if (f) {
		bloom_filter_get(f);
		if (rule)
			atomic_inc(&f->rules);
	}
	mutex_unlock(&bn->lock);
	return f ?: ERR_PTR(-ENOENT);
}

struct bloom_filter *bloom_registry_lookup(struct net *net, const char *name)
{
	return bloom_registry_get(net, name, false);
}

struct bloom_filter *bloom_registry_lookup_rule(struct net *net,
						const char *name)
{
	return bloom_registry_get(net, name, true);
}

/*
 * A snapshot of the names in @net, sorted, BLOOM_NAME_LEN bytes each, in
 * memory the caller frees with bloom_kvfree(). Copying out to userspace
 * happens after the lock is dropped, so a slow page fault cannot stall
 * everybody else's create.
 */
int bloom_registry_names(struct net *net, char **names, u32 *count)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_filter *f;
	u32 i = 0;

	if (mutex_lock_killable(&bn->lock))
		return -EINTR;
	*names = NULL;
	if (bn->count) {
		*names = bloom_kvzalloc(array_size(bn->count, BLOOM_NAME_LEN),
					GFP_KERNEL);
		if (!*names) {
			mutex_unlock(&bn->lock);
			return -ENOMEM;
		}
	}
	list_for_each_entry(f, &bn->filters, node)
		memcpy(*names + BLOOM_NAME_LEN * i++, f->name, BLOOM_NAME_LEN);
	*count = i;
	mutex_unlock(&bn->lock);
	return 0;
}

static int __net_init bloom_net_init(struct net *net)
{
	struct bloom_net *bn = bloom_net(net);

	mutex_init(&bn->lock);
	INIT_LIST_HEAD(&bn->filters);
	bn->count = 0;
	return 0;
}

/*
 * The namespace is going away, or the module is: no descriptor of the
 * namespace is open (each holds the namespace), so these are the last names.
 * Rules of the namespace may still hold filters (their structs, not their
 * memory); they let go when the namespace's tables are torn down.
 */
static void __net_exit bloom_net_exit(struct net *net)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_filter *f, *tmp;

	mutex_lock(&bn->lock);
	list_for_each_entry_safe(f, tmp, &bn->filters, node) {
		bloom_registry_remove(bn, f);
		bloom_filter_destroy(f);
		bloom_filter_put(f);
	}
	mutex_unlock(&bn->lock);
	mutex_destroy(&bn->lock);
}

static struct pernet_operations bloom_net_ops = {
	.init = bloom_net_init,
	.exit = bloom_net_exit,
	.id = &bloom_net_id,
	.size = sizeof(struct bloom_net),
};

int bloom_registry_init(void)
{
	return register_pernet_subsys(&bloom_net_ops);
}

/* Module exit: runs bloom_net_exit() for every namespace. */
void bloom_registry_exit(void)
{
	unregister_pernet_subsys(&bloom_net_ops);
}
