// SPDX-License-Identifier: GPL-2.0
/*
 * Filter objects: validating a create request, sizing, allocating under the
 * module's memory limit, statistics.
 */
#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait_bit.h>

#include "alloc.h"
#include "filter.h"
#include "name.h"
#include "sysfs.h"

/*
 * All filters together may take this many bytes. Filter memory is also
 * charged to the creator's memory cgroup; this limit is the module's own
 * guard, for hosts without a cgroup limit.
 */
static unsigned long max_memory = 1UL << 30;
module_param(max_memory, ulong, 0644);
MODULE_PARM_DESC(max_memory, "Bytes all filters may take together (default 1 GiB)");

static atomic64_t memory_used = ATOMIC64_INIT(0);

/* Filter structs not yet freed by their kobject's release; see filter.h. */
static atomic_t bloom_filter_structs = ATOMIC_INIT(0);

static_assert(ARRAY_SIZE(((struct bloom_info *)0)->subtable_used) ==
	      ARRAY_SIZE(((struct bloom_core_stats *)0)->subtable_used));

u64 bloom_memory_used(void)
{
	return atomic64_read(&memory_used);
}

u64 bloom_memory_limit(void)
{
	return READ_ONCE(max_memory);
}

static int bloom_memory_reserve(u64 bytes)
{
	if (atomic64_add_return(bytes, &memory_used) > bloom_memory_limit()) {
		atomic64_sub(bytes, &memory_used);
		return -EDQUOT;
	}
	return 0;
}

static void bloom_memory_release(u64 bytes)
{
	atomic64_sub(bytes, &memory_used);
}

static bool bloom_zeroed(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

/* Checks every field of a create request and sizes the filter from it. */
static int bloom_create_geometry(const struct bloom_create *arg,
				 struct bloom_geometry *geo)
{
	if (arg->flags & ~BLOOM_CREATE_F_ALL || arg->reserved)
		return -EINVAL;
	if (!(arg->flags & BLOOM_CREATE_F_HASH_KEY) &&
	    !bloom_zeroed(arg->hash_key, sizeof(arg->hash_key)))
		return -EINVAL;
	if (!bloom_name_valid(arg->name))
		return -EINVAL;
	switch (arg->type) {
	case BLOOM_TYPE_STANDARD:
	case BLOOM_TYPE_BLOCKED:
	case BLOOM_TYPE_COUNTING:
	case BLOOM_TYPE_DLEFT:
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (arg->capacity < 1 || arg->capacity > BLOOM_CAPACITY_MAX ||
	    arg->fpp_ppb < BLOOM_FPP_PPB_MIN || arg->fpp_ppb > BLOOM_FPP_PPB_MAX)
		return -EINVAL;

	if (!(arg->flags & BLOOM_CREATE_F_GEOMETRY)) {
		if (arg->bits || arg->hashes)
			return -EINVAL;
		return bloom_geometry_size(arg->type, arg->capacity,
					   arg->fpp_ppb, geo);
	}
	/* A d-left table's shape is the core's choice alone. */
	if (arg->type == BLOOM_TYPE_DLEFT)
		return -EOPNOTSUPP;
	*geo = (struct bloom_geometry) {
		.type = arg->type,
		.hashes = arg->hashes,
		.bits = arg->bits,
		.capacity = arg->capacity,
		.fpp_ppb = arg->fpp_ppb,
	};
	return bloom_geometry_check(geo);
}

int bloom_filter_new(const struct bloom_create *arg, struct bloom_filter **out)
{
	struct bloom_geometry geo;
	bloom_hash_key_t key;
	u8 key_bytes[BLOOM_HASH_KEY_LEN];
	struct bloom_filter *f;
	u64 storage_bytes, memory_bytes;
	int ret;

	ret = bloom_create_geometry(arg, &geo);
	if (ret)
		return ret;

	/*
	 * Everything the filter takes counts against max_memory: the bit
	 * array (with room to align it to a cache line), the object and the
	 * per-CPU counters.
	 */
	storage_bytes = bloom_core_storage_bytes(&geo) + BLOOM_CORE_ALIGN;
	memory_bytes = storage_bytes + sizeof(*f) +
		       (u64)num_possible_cpus() * sizeof(struct bloom_stats);
	ret = bloom_memory_reserve(memory_bytes);
	if (ret)
		return ret;

	ret = -ENOMEM;
	f = bloom_kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	if (!f)
		goto err_release;
	atomic_inc(&bloom_filter_structs);
	refcount_set(&f->users, 1);
	mutex_init(&f->write_lock);
	f->memory_bytes = memory_bytes;
	/*
	 * __GFP_RETRY_MAYFAIL: a filter too big for the creator's memory
	 * cgroup must fail the create with -ENOMEM, not wake the cgroup's
	 * OOM killer on the creator.
	 */
	f->storage = bloom_kvzalloc(storage_bytes,
				    GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL);
	if (!f->storage)
		goto err_free;
	f->stats = bloom_alloc_percpu(sizeof(struct bloom_stats),
				      __alignof__(struct bloom_stats),
				      GFP_KERNEL_ACCOUNT);
	if (!f->stats)
		goto err_free;

	if (arg->flags & BLOOM_CREATE_F_HASH_KEY)
		memcpy(key_bytes, arg->hash_key, sizeof(key_bytes));
	else
		get_random_bytes(key_bytes, sizeof(key_bytes));
	bloom_hash_key_from_bytes(&key, key_bytes);
	memzero_explicit(key_bytes, sizeof(key_bytes));

	bloom_core_init(&f->core, &geo, &key,
			PTR_ALIGN(f->storage, BLOOM_CORE_ALIGN));
	memzero_explicit(&key, sizeof(key));
	strscpy(f->name, arg->name, sizeof(f->name));
	INIT_LIST_HEAD(&f->node);
	bloom_sysfs_init_filter(f);
	*out = f;
	return 0;

err_free:
	bloom_kvfree(f->storage);
	bloom_filter_free(f);
err_release:
	bloom_memory_release(memory_bytes);
	return ret;
}

void bloom_filter_free(struct bloom_filter *f)
{
	mutex_destroy(&f->write_lock);
	bloom_kfree(f);
	if (atomic_dec_and_test(&bloom_filter_structs))
		wake_up_var(&bloom_filter_structs);
}

void bloom_filter_wait_freed(void)
{
	wait_var_event(&bloom_filter_structs,
		       !atomic_read(&bloom_filter_structs));
}

struct bloom_filter *bloom_filter_get(struct bloom_filter *f)
{
	refcount_inc(&f->users);
	return f;
}

/*
 * The last user frees what the filter is made of and gives its memory back
 * at once; the struct follows when the kobject's last reference goes.
 */
void bloom_filter_put(struct bloom_filter *f)
{
	if (!refcount_dec_and_test(&f->users))
		return;
	bloom_free_percpu(f->stats);
	f->stats = NULL;
	bloom_kvfree(f->storage);
	f->storage = NULL;
	f->core.words = NULL;
	bloom_memory_release(f->memory_bytes);
	kobject_put(&f->kobj);
}

void bloom_filter_sum_stats(const struct bloom_filter *f,
			    struct bloom_stats *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct bloom_stats *s = per_cpu_ptr(f->stats, cpu);

		sum->adds += READ_ONCE(s->adds);
		sum->count += READ_ONCE(s->count);
		sum->queries += READ_ONCE(s->queries);
		sum->hits += READ_ONCE(s->hits);
		sum->deletes += READ_ONCE(s->deletes);
		sum->delete_misses += READ_ONCE(s->delete_misses);
	}
}

const char *bloom_filter_type_name(const struct bloom_filter *f)
{
	switch (f->core.geo.type) {
	case BLOOM_TYPE_STANDARD:
		return "standard";
	case BLOOM_TYPE_BLOCKED:
		return "blocked";
	case BLOOM_TYPE_COUNTING:
		return "counting";
	case BLOOM_TYPE_DLEFT:
		return "dleft";
	}
	return "unknown";
}

void bloom_filter_fill_info(const struct bloom_filter *f,
			    struct bloom_info *info)
{
	const struct bloom_geometry *geo = &f->core.geo;
	struct bloom_core_stats core;
	struct bloom_stats sum;
	int i;

	bloom_filter_sum_stats(f, &sum);
	bloom_core_stats(&f->core, &core);
	memcpy(info->name, f->name, sizeof(info->name));
	info->type = geo->type;
	info->hashes = geo->hashes;
	info->bits = geo->bits;
	info->capacity = geo->capacity;
	info->fpp_ppb = geo->fpp_ppb;
	info->reserved = 0;
	info->memory_bytes = f->memory_bytes;
	info->count = sum.count;
	info->adds = sum.adds;
	info->queries = sum.queries;
	info->hits = sum.hits;
	info->bits_set = bloom_core_bits_set(&f->core);
	info->deletes = sum.deletes;
	info->delete_misses = sum.delete_misses;
	info->saturated = core.saturated;
	info->insert_failures = core.insert_failures;
	info->fingerprint_bits = core.fingerprint_bits;
	info->subtables = core.subtables;
	info->subtable_cells = core.subtable_cells;
	for (i = 0; i < ARRAY_SIZE(info->subtable_used); i++)
		info->subtable_used[i] = core.subtable_used[i];
}
