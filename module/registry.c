// SPDX-License-Identifier: GPL-2.0
/*
 * Filter names. A sorted list under a mutex: names are looked up when a
 * descriptor binds, not per key, so a list is enough and keeps LIST sorted.
 */
#include <linux/err.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include "alloc.h"
#include "filter.h"
#include "registry.h"
#include "sysfs.h"

static DEFINE_MUTEX(bloom_registry_lock);
static LIST_HEAD(bloom_registry);
static u32 bloom_registry_count;

static struct bloom_filter *bloom_registry_find(const char *name)
{
	struct bloom_filter *f;

	lockdep_assert_held(&bloom_registry_lock);
	list_for_each_entry(f, &bloom_registry, node)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

/* Registers @f under its name; the registry takes a reference of its own. */
int bloom_registry_add(struct bloom_filter *f)
{
	struct bloom_filter *pos;
	int ret;

	if (mutex_lock_killable(&bloom_registry_lock))
		return -EINTR;
	ret = -EEXIST;
	if (bloom_registry_find(f->name))
		goto out;
	ret = bloom_sysfs_add_filter(f);
	if (ret)
		goto out;
	list_for_each_entry(pos, &bloom_registry, node)
		if (strcmp(pos->name, f->name) > 0)
			break;
	list_add_tail(&f->node, &pos->node);
	bloom_registry_count++;
	bloom_filter_get(f);
out:
	mutex_unlock(&bloom_registry_lock);
	return ret;
}

static void bloom_registry_remove(struct bloom_filter *f)
{
	lockdep_assert_held(&bloom_registry_lock);
	list_del_init(&f->node);
	bloom_registry_count--;
	/*
	 * Under the lock, so that the name is free in sysfs by the time a
	 * create of the same name can find it free in the registry.
	 */
	bloom_sysfs_del_filter(f);
}

int bloom_registry_destroy(const char *name)
{
	struct bloom_filter *f;

	if (mutex_lock_killable(&bloom_registry_lock))
		return -EINTR;
	f = bloom_registry_find(name);
	if (f)
		bloom_registry_remove(f);
	mutex_unlock(&bloom_registry_lock);
	if (!f)
		return -ENOENT;
	bloom_filter_destroy(f);
	bloom_filter_put(f);
	return 0;
}

/* Returns the filter with a reference the caller puts, or an ERR_PTR. */
struct bloom_filter *bloom_registry_lookup(const char *name)
{
	struct bloom_filter *f;

	if (mutex_lock_killable(&bloom_registry_lock))
		return ERR_PTR(-EINTR);
	f = bloom_registry_find(name);
	if (f)
		bloom_filter_get(f);
	mutex_unlock(&bloom_registry_lock);
	return f ?: ERR_PTR(-ENOENT);
}

/*
 * A snapshot of the names, sorted, BLOOM_NAME_LEN bytes each, in memory
 * the caller frees with
 * bloom_kvfree(). Copying out to userspace happens after the lock is
 * dropped, so a slow page fault cannot stall everybody else's create.
 */
int bloom_registry_names(char **names, u32 *count)
{
	struct bloom_filter *f;
	u32 i = 0;

	if (mutex_lock_killable(&bloom_registry_lock))
		return -EINTR;
	*names = NULL;
	if (bloom_registry_count) {
		*names = bloom_kvzalloc(array_size(bloom_registry_count,
						   BLOOM_NAME_LEN), GFP_KERNEL);
		if (!*names) {
			mutex_unlock(&bloom_registry_lock);
			return -ENOMEM;
		}
	}
	list_for_each_entry(f, &bloom_registry, node)
		memcpy(*names + BLOOM_NAME_LEN * i++, f->name, BLOOM_NAME_LEN);
	*count = i;
	mutex_unlock(&bloom_registry_lock);
	return 0;
}

/* Module exit: no descriptor is open, so these are the last references. */
void bloom_registry_destroy_all(void)
{
	struct bloom_filter *f, *tmp;

	mutex_lock(&bloom_registry_lock);
	list_for_each_entry_safe(f, tmp, &bloom_registry, node) {
		bloom_registry_remove(f);
		bloom_filter_destroy(f);
		bloom_filter_put(f);
	}
	mutex_unlock(&bloom_registry_lock);
}
