// SPDX-License-Identifier: GPL-2.0
/*
 * The filters' sysfs directories (sysfs_dir.h): the filters/ directory
 * inside the device's, /sys/class/misc/bloom/filters/, and in it one
 * directory per filter, /sys/class/misc/bloom/filters/<name>/, tagged with
 * the filter's network namespace, holding the files of sysfs.c.
 */
#include <linux/completion.h>
#include <linux/device.h>
#include <linux/netdevice.h>
#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <net/net_namespace.h>

#include "filter.h"
#include "sysfs.h"
#include "sysfs_dir.h"

static struct kset *bloom_filters_kset;
/*
 * The kset's release is this module's code and may run after its last put
 * (CONFIG_DEBUG_KOBJECT_RELEASE delays it): module exit waits for it.
 */
static DECLARE_COMPLETION(bloom_filters_released);

/*
 * Not a counted allocation (alloc.h): live_allocations counts what filters,
 * descriptors and calls hold, and is 0 when there are none.
 */
static void bloom_filters_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct kset, kobj));
	complete(&bloom_filters_released);
}

static const struct kobj_ns_type_operations *
bloom_filters_child_ns_type(struct kobject *kobj)
{
	return &net_ns_type_operations;
}

/* kset_create_and_add()'s kset, with namespace-tagged children. */
static const struct kobj_type bloom_filters_ktype = {
	.sysfs_ops = &kobj_sysfs_ops,
	.release = bloom_filters_release,
	.child_ns_type = bloom_filters_child_ns_type,
};

/* kset_create_and_add() with the ktype above; NULL when out of memory. */
static struct kset *bloom_filters_kset_create(struct device *dev)
{
	struct kset *kset = kzalloc(sizeof(*kset), GFP_KERNEL);

	if (!kset)
		return NULL;
	if (kobject_set_name(&kset->kobj, "filters")) {
		kfree(kset);
		return NULL;
	}
	kset->kobj.parent = &dev->kobj;
	kset->kobj.ktype = &bloom_filters_ktype;
	if (kset_register(kset)) {
		/* kset_register() leaves the name to the caller's put. */
		kobject_put(&kset->kobj);
		/* the release completes once per kset: consume this one's */
		wait_for_completion(&bloom_filters_released);
		return NULL;
	}
	return kset;
}

/*
 * The filters/ directory lives inside the device's, so it can only be made
 * once the device is registered, and the device is registered last at
 * init (nothing userspace can reach before what it needs). Module init
 * makes it right after; should that fail, every create tries again, so no
 * step of init can fail after the device exists.
 */
int bloom_sysfs_dir_ready(struct device *dev)
{
	static DEFINE_MUTEX(lock);
	struct kset *kset;
	int ret = 0;

	/* Pairs with the smp_store_release() below. */
	if (smp_load_acquire(&bloom_filters_kset))
		return 0;
	mutex_lock(&lock);
	if (!bloom_filters_kset) {
		kset = bloom_filters_kset_create(dev);
		if (kset)
			/* A fully made kset; see bloom_sysfs_dir_add(). */
			smp_store_release(&bloom_filters_kset, kset);
		else
			ret = -ENOMEM;
	}
	mutex_unlock(&lock);
	return ret;
}

int bloom_sysfs_dir_add(struct bloom_filter *f)
{
	/* Pairs with smp_store_release() in bloom_sysfs_dir_ready(). */
	struct kset *kset = smp_load_acquire(&bloom_filters_kset);
	int ret;

	if (WARN_ON_ONCE(!kset))
		return -ENOMEM;
	f->kobj.kset = kset;
	ret = kobject_add(&f->kobj, NULL, "%s", f->name);
	if (ret)
		return ret;
	ret = sysfs_create_groups(&f->kobj, bloom_filter_groups);
	if (ret) {
		kobject_del(&f->kobj);
		return ret;
	}
	kobject_uevent(&f->kobj, KOBJ_ADD);
	return 0;
}

void bloom_sysfs_dir_del(struct bloom_filter *f)
{
	kobject_uevent(&f->kobj, KOBJ_REMOVE);
	/* waits for a show() still running; the files go with the directory */
	kobject_del(&f->kobj);
}

void bloom_sysfs_dir_exit(void)
{
	if (!bloom_filters_kset)
		return;
	kset_unregister(bloom_filters_kset);
	bloom_filters_kset = NULL;
	wait_for_completion(&bloom_filters_released);
}
