/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A filter as the module keeps it: the core filter plus its name, its sysfs
 * directory, statistics and lifetime.
 *
 * Lifetime: @users counts who may touch the filter. The registry holds one
 * reference while the name exists; every descriptor bound to the filter holds
 * one. Destroy removes the name and the sysfs directory and marks the filter
 * dead; the bit array, the counters and the filter's share of max_memory go
 * with the last user, so a bound descriptor never touches freed memory and
 * queries need no lock. Only the struct itself is left to the kobject's
 * release, which the kernel may run later (CONFIG_DEBUG_KOBJECT_RELEASE
 * delays it by seconds): memory_used must not wait for it.
 */
#ifndef BLOOM_FILTER_H
#define BLOOM_FILTER_H

#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/bloom.h>

#include "core.h"

/* Hot-path counters, per CPU; summed when read. */
struct bloom_stats {
	u64 adds;
	u64 count;
	u64 queries;
	u64 hits;
	u64 deletes;
	u64 delete_misses;
};

struct bloom_filter {
	struct kobject kobj;		/* holds the struct only */
	refcount_t users;		/* holds everything else */
	struct list_head node;		/* in the registry, under its lock */
	char name[BLOOM_NAME_LEN];
	bool dead;			/* destroyed: READ_ONCE/WRITE_ONCE */
	/*
	 * Serialises adds and deletes of the types whose writers must be
	 * exclusive (counting, d-left); queries never take it.
	 */
	struct mutex write_lock;
	struct bloom_core core;
	void *storage;			/* allocation behind core.words */
	u64 memory_bytes;		/* charged against max_memory */
	struct bloom_stats __percpu *stats;
};

int bloom_filter_new(const struct bloom_create *arg,
		     struct bloom_filter **out);
struct bloom_filter *bloom_filter_get(struct bloom_filter *f);
void bloom_filter_put(struct bloom_filter *f);
void bloom_filter_sum_stats(const struct bloom_filter *f,
			    struct bloom_stats *sum);
void bloom_filter_fill_info(const struct bloom_filter *f,
			    struct bloom_info *info);
const char *bloom_filter_type_name(const struct bloom_filter *f);

/* Called by the kobject's release, after the last user: frees the struct. */
void bloom_filter_free(struct bloom_filter *f);
/* Module exit: waits until every filter's struct has been freed. */
void bloom_filter_wait_freed(void);

u64 bloom_memory_used(void);
u64 bloom_memory_limit(void);

#endif /* BLOOM_FILTER_H */
