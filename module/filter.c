// SPDX-License-Identifier: GPL-2.0
/*
 * A filter's life, from create to the free after its last user (filter.h
 * has the rules), in this order:
 *   - the memory limit (max_memory) every store is charged against;
 *   - create: the request checked and sized (bloom_create_geometry()), the
 *     store allocated (bloom_store_new()), the object made
 *     (bloom_filter_new()) and its name registered with its sysfs directory
 *     (bloom_filter_register());
 *   - get, put; destroy: the store unpublished, its bytes given back at
 *     once and the store freed after an RCU grace period (bloom_store_retire()
 *     and the free work), the struct with its kobject's release;
 *   - a store replaced or swapped under the filter's write lock;
 *   - INFO's figures;
 *   - the filters/ sysfs directory that holds every filter's directory;
 *   - names: each network namespace's filters, looked up
 *     (bloom_filter_lookup()), listed, removed (bloom_filter_remove()), all
 *     destroyed with their namespace.
 * sysfs.c only reads filters (through filter.h) and this file never calls
 * it; dev.c, snap.c, scale.c, batch.c and rule.c use filters through
 * filter.h.
 */
#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "alloc.h"
#include "filter.h"
#include "name.h"
#include "scale.h"
#include "units.h"

/*
 * All filters together may take this many bytes. Filter memory is also
 * charged to the creator's memory cgroup; this limit is the module's own
 * guard, for hosts without a cgroup limit.
 */
static unsigned long max_memory = 1UL << 30;

/* Takes the suffixes bloomctl takes (units.h: 4G, 512Mi); reads as bytes. */
static int max_memory_set(const char *val, const struct kernel_param *kp)
{
	u64 v;
	int err = bloom_parse_units(val, strlen(val), &v);

	if (err)
		return err;
	if (v > ULONG_MAX)
		return -ERANGE;
	WRITE_ONCE(*(unsigned long *)kp->arg, v);
	return 0;
}

static const struct kernel_param_ops max_memory_ops = {
	.set = max_memory_set,
	.get = param_get_ulong,
};

module_param_cb(max_memory, &max_memory_ops, &max_memory, 0644);
MODULE_PARM_DESC(max_memory, "Bytes all filters may take together (default 1Gi = 1073741824; k/M/G/T are powers of 1000, Ki/Mi/Gi/Ti of 1024)");

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

int bloom_memory_reserve(u64 bytes)
{
	if (atomic64_add_return(bytes, &memory_used) > bloom_memory_limit()) {
		atomic64_sub(bytes, &memory_used);
		return -EDQUOT;
	}
	return 0;
}

void bloom_memory_release(u64 bytes)
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
	/* BLOOM_CREATE_F_LIKE is handled before (snap.c). */
	if (arg->flags & ~BLOOM_CREATE_F_ALL ||
	    arg->flags & BLOOM_CREATE_F_LIKE || arg->reserved ||
	    !bloom_zeroed(arg->like, sizeof(arg->like)))
		return -EINVAL;
	if (!(arg->flags & BLOOM_CREATE_F_HASH_KEY) &&
	    !bloom_zeroed(arg->hash_key, sizeof(arg->hash_key)))
		return -EINVAL;
	if (!bloom_name_valid(arg->name))
		return -EINVAL;
	if (!(arg->flags & BLOOM_CREATE_F_SCALABLE) &&
	    (arg->growth || arg->tightening_ppm))
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
	if (arg->reserved2)
		return -EINVAL;
	if (arg->flags & BLOOM_CREATE_F_SIZE) {
		struct bloom_core_size_req r = {
			.type = arg->type,
			.hashes = arg->hashes,
			.capacity = arg->capacity,
			.fpp_ppb = arg->fpp_ppb,
			.bpk_milli = arg->bits_per_key_milli,
			.memory_bytes = arg->memory_bytes,
		};

		/* a scalable filter's stages are sized from capacity, rate */
		if (arg->flags & (BLOOM_CREATE_F_GEOMETRY |
				  BLOOM_CREATE_F_SCALABLE) || arg->bits)
			return -EINVAL;
		/* the core checks the rest: two of four, ranges, hashes */
		return bloom_core_size(&r, geo);
	}
	if (arg->memory_bytes || arg->bits_per_key_milli)
		return -EINVAL;
	if (arg->capacity < 1 || arg->capacity > BLOOM_CAPACITY_MAX ||
	    arg->fpp_ppb < BLOOM_FPP_PPB_MIN || arg->fpp_ppb > BLOOM_FPP_PPB_MAX)
		return -EINVAL;
	if (arg->flags & BLOOM_CREATE_F_SCALABLE) {
		/* geometry of stage 0; the stages are checked by the caller */
		if (arg->bits || arg->hashes)
			return -EINVAL;
		return bloom_geometry_size(arg->type, arg->capacity,
					   arg->fpp_ppb, geo);
	}

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

static struct workqueue_struct *bloom_free_wq;

static void bloom_store_free(struct bloom_store *s)
{
	bloom_scale_free(s);
	bloom_free_percpu(s->stats);
	bloom_kvfree(s->mem);
	memzero_explicit(&s->core.key, sizeof(s->core.key));
	bloom_kfree(s);
}

static void bloom_store_free_work(struct work_struct *work)
{
	bloom_store_free(container_of(to_rcu_work(work), struct bloom_store,
				      free_work));
}

/*
 * The store of @geo, or with @p a scalable store without stages yet (its
 * stage 0's geometry is @geo; bloom_store_new_scalable() adds the stage).
 */
static struct bloom_store *bloom_store_make(const struct bloom_geometry *geo,
					    const struct bloom_scale_params *p,
					    const u8 *hash_key)
{
	u8 key_bytes[BLOOM_HASH_KEY_LEN];
	struct bloom_store *s;
	u64 storage_bytes, memory_bytes;
	bloom_hash_key_t key;
	int ret;

	/*
	 * Everything a filter takes counts against max_memory: the storage
	 * (with room to align it to a cache line), the per-CPU counters and
	 * the structs.
	 */
	storage_bytes = p ? 0 : bloom_core_storage_bytes(geo) + BLOOM_CORE_ALIGN;
	memory_bytes = storage_bytes + sizeof(*s) +
		       sizeof(struct bloom_filter) +
		       (u64)num_possible_cpus() * sizeof(struct bloom_stats);
	ret = bloom_memory_reserve(memory_bytes);
	if (ret)
		return ERR_PTR(ret);

	ret = -ENOMEM;
	s = bloom_kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		goto err_release;
	s->memory_bytes = memory_bytes;
	/*
	 * __GFP_RETRY_MAYFAIL: a filter too big for the creator's memory
	 * cgroup must fail the create with -ENOMEM, not wake the cgroup's
	 * OOM killer on the creator.
	 */
	if (!p) {
		s->mem = bloom_kvzalloc(storage_bytes,
					GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL);
		if (!s->mem)
			goto err_free;
	}
	s->stats = bloom_alloc_percpu(sizeof(struct bloom_stats),
				      __alignof__(struct bloom_stats),
				      GFP_KERNEL_ACCOUNT);
	if (!s->stats)
		goto err_free;

	if (hash_key)
		memcpy(key_bytes, hash_key, sizeof(key_bytes));
	else
		get_random_bytes(key_bytes, sizeof(key_bytes));
	bloom_hash_key_from_bytes(&key, key_bytes);
	memzero_explicit(key_bytes, sizeof(key_bytes));
	if (p)
		bloom_scale_init(&s->core, &s->scale, p, &key);
	else
		bloom_core_init(&s->core, geo, &key,
				PTR_ALIGN(s->mem, BLOOM_CORE_ALIGN));
	memzero_explicit(&key, sizeof(key));
	return s;

err_free:
	bloom_store_free(s);
err_release:
	bloom_memory_release(memory_bytes);
	return ERR_PTR(ret);
}

struct bloom_store *bloom_store_new(const struct bloom_geometry *geo,
				    const u8 *hash_key)
{
	return bloom_store_make(geo, NULL, hash_key);
}

struct bloom_store *bloom_store_new_stageless(const struct bloom_scale_params *p,
					      const u8 *hash_key)
{
	return bloom_store_make(NULL, p, hash_key);
}

struct bloom_store *bloom_store_new_scalable(const struct bloom_scale_params *p,
					     const u8 *hash_key)
{
	struct bloom_store *s = bloom_store_make(NULL, p, hash_key);
	int ret;

	if (IS_ERR(s))
		return s;
	/* stage 0: unpublished, nobody else sees the store yet */
	ret = bloom_store_grow(s);
	if (ret) {
		bloom_store_discard(s);
		return ERR_PTR(ret);
	}
	return s;
}

void bloom_store_discard(struct bloom_store *s)
{
	bloom_memory_release(s->memory_bytes);
	bloom_store_free(s);
}

/*
 * Unpublished: readers that found @s before may use it until their read
 * section ends. Its bytes are given back now, so that a destroy followed by
 * a create of the same size works at once; the memory itself follows a grace
 * period later (measured in notes/life.md).
 */
static void bloom_store_retire(struct bloom_store *s)
{
	bloom_memory_release(s->memory_bytes);
	INIT_RCU_WORK(&s->free_work, bloom_store_free_work);
	queue_rcu_work(bloom_free_wq, &s->free_work);
}

/* The kobject's release, after the last user: frees the struct. */
static void bloom_filter_release(struct kobject *kobj)
{
	struct bloom_filter *f = container_of(kobj, struct bloom_filter, kobj);

	mutex_destroy(&f->write_lock);
	bloom_kfree(f);
	if (atomic_dec_and_test(&bloom_filter_structs))
		wake_up_var(&bloom_filter_structs);
}

/* The directory's files are sysfs.c's; the object's lifetime is ours. */
/*
 * sysfs tags each filter's directory with its network namespace (the
 * filters/ kset's children are namespaced: sysfs.c). Only asked while the
 * directory exists, i.e. while the namespace does.
 */
static const void *bloom_filter_namespace(struct kobject *kobj)
{
	return container_of(kobj, struct bloom_filter, kobj)->net;
}

static const struct kobj_type bloom_filter_ktype = {
	.sysfs_ops = &kobj_sysfs_ops,
	.release = bloom_filter_release,
	.default_groups = bloom_filter_groups,
	.namespace = bloom_filter_namespace,
};

int bloom_filter_new(const struct bloom_create *arg, struct bloom_filter **out)
{
	bool scalable = arg->flags & BLOOM_CREATE_F_SCALABLE;
	const u8 *hash_key = arg->flags & BLOOM_CREATE_F_HASH_KEY ?
			     arg->hash_key : NULL;
	struct bloom_scale_params sp;
	struct bloom_geometry geo;
	struct bloom_store *s;
	int ret;

	ret = bloom_create_geometry(arg, &geo);
	if (!ret && scalable)
		ret = bloom_scale_create_params(arg, &sp);
	if (ret)
		return ret;
	s = scalable ? bloom_store_new_scalable(&sp, hash_key) :
		       bloom_store_new(&geo, hash_key);
	if (IS_ERR(s))
		return PTR_ERR(s);
	return bloom_filter_new_store(arg->name, s, out);
}

int bloom_filter_new_store(const char *name, struct bloom_store *s,
			   struct bloom_filter **out)
{
	struct bloom_filter *f;

	f = bloom_kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	if (!f) {
		bloom_store_discard(s);
		return -ENOMEM;
	}
	atomic_inc(&bloom_filter_structs);
	refcount_set(&f->users, 1);
	mutex_init(&f->write_lock);
	f->type = s->core.geo.type;
	f->scalable = bloom_core_is_scalable(&s->core);
	RCU_INIT_POINTER(f->store, s);
	strscpy(f->name, name, sizeof(f->name));
	INIT_LIST_HEAD(&f->node);
	kobject_init(&f->kobj, &bloom_filter_ktype);
	*out = f;
	return 0;
}

int bloom_filter_init(void)
{
	bloom_free_wq = alloc_workqueue("bloom_free", 0, 0);
	return bloom_free_wq ? 0 : -ENOMEM;
}

void bloom_filter_exit(void)
{
	/*
	 * Every store was retired by now. rcu_barrier() waits for their
	 * grace periods' callbacks, which queue the free work; destroying
	 * the workqueue runs what is queued.
	 */
	rcu_barrier();
	destroy_workqueue(bloom_free_wq);
	/*
	 * A kobject's release may run after its last put (later still with
	 * CONFIG_DEBUG_KOBJECT_RELEASE); the release is this module's code.
	 */
	wait_var_event(&bloom_filter_structs,
		       !atomic_read(&bloom_filter_structs));
}

struct bloom_filter *bloom_filter_get(struct bloom_filter *f)
{
	refcount_inc(&f->users);
	return f;
}

/*
 * The last user: a filter that was never destroyed (a create that failed to
 * register) gives its store back here; the struct follows when the
 * kobject's last reference goes.
 */
void bloom_filter_put(struct bloom_filter *f)
{
	if (!refcount_dec_and_test(&f->users))
		return;
	bloom_filter_destroy(f);
	kobject_put(&f->kobj);
}

void bloom_filter_destroy(struct bloom_filter *f)
{
	struct bloom_store *s;

	/* Writers hold the lock for one batch at most. */
	mutex_lock(&f->write_lock);
	s = bloom_filter_store_locked(f);
	RCU_INIT_POINTER(f->store, NULL);
	mutex_unlock(&f->write_lock);
	if (s)
		bloom_store_retire(s);
}

int bloom_filter_replace(struct bloom_filter *f, struct bloom_store *s)
{
	struct bloom_store *old;

	/* a scalable filter's sysfs has stages/, a plain one's has not */
	if (s->core.geo.type != f->type ||
	    bloom_core_is_scalable(&s->core) != f->scalable)
		return -EINVAL;
	if (mutex_lock_killable(&f->write_lock))
		return -EINTR;
	old = bloom_filter_store_locked(f);
	if (old) {
		rcu_assign_pointer(f->store, s);
		bloom_scale_sysfs_sync(f);
	}
	mutex_unlock(&f->write_lock);
	if (!old)
		return -ESTALE;
	bloom_store_retire(old);
	return 0;
}

/* Two filters' write locks: always in address order (lockdep: one nesting). */
int bloom_filter_lock_two(struct bloom_filter *a, struct bloom_filter *b)
{
	if (a > b)
		swap(a, b);
	if (mutex_lock_killable(&a->write_lock))
		return -EINTR;
	if (mutex_lock_killable_nested(&b->write_lock, SINGLE_DEPTH_NESTING)) {
		mutex_unlock(&a->write_lock);
		return -EINTR;
	}
	return 0;
}

int bloom_filter_swap(struct bloom_filter *a, struct bloom_filter *b)
{
	struct bloom_store *sa, *sb;
	int ret;

	if (a->type != b->type || a->scalable != b->scalable)
		return -EINVAL;
	if (a == b)
		return 0;
	ret = bloom_filter_lock_two(a, b);
	if (ret)
		return ret;
	sa = bloom_filter_store_locked(a);
	sb = bloom_filter_store_locked(b);
	if (sa && sb) {
		rcu_assign_pointer(a->store, sb);
		rcu_assign_pointer(b->store, sa);
		/* each gets a stages/<i>/ for every stage it holds now */
		bloom_scale_sysfs_sync(a);
		bloom_scale_sysfs_sync(b);
	} else {
		ret = -ESTALE;
	}
	mutex_unlock(&b->write_lock);
	mutex_unlock(&a->write_lock);
	return ret;
}

void bloom_store_sum_stats(const struct bloom_store *s,
			   struct bloom_stats *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct bloom_stats *c = per_cpu_ptr(s->stats, cpu);

		sum->adds += READ_ONCE(c->adds);
		sum->queries += READ_ONCE(c->queries);
		sum->hits += READ_ONCE(c->hits);
		sum->deletes += READ_ONCE(c->deletes);
		sum->delete_misses += READ_ONCE(c->delete_misses);
		sum->delete_pinned += READ_ONCE(c->delete_pinned);
		sum->packets += READ_ONCE(c->packets);
		sum->packet_hits += READ_ONCE(c->packet_hits);
	}
}

const char *bloom_filter_type_name(const struct bloom_filter *f)
{
	/* the one table of type names, shared with libbloom and bloomctl */
	static const char *const names[] = BLOOM_TYPE_NAMES;
	u32 type = f->type;

	return type < ARRAY_SIZE(names) && names[type] ? names[type] : "unknown";
}

int bloom_filter_fill_info(struct bloom_filter *f, struct bloom_info *info)
{
	const struct bloom_geometry *geo;
	struct bloom_core_estimate est;
	struct bloom_core_stats core;
	struct bloom_store *s;
	struct bloom_stats sum;
	int i;

	rcu_read_lock();
	s = bloom_filter_store(f);
	if (!s) {
		rcu_read_unlock();
		return -ESTALE;
	}
	geo = &s->core.geo;
	bloom_store_sum_stats(s, &sum);
	bloom_core_stats(&s->core, &core);
	memcpy(info->name, f->name, sizeof(info->name));
	info->type = geo->type;
	info->hashes = geo->hashes;
	info->bits = bloom_core_bits(&s->core);
	info->capacity = geo->capacity;
	info->fpp_ppb = geo->fpp_ppb;
	info->reserved = 0;
	info->memory_bytes = READ_ONCE(s->memory_bytes);
	info->count = core.keys;
	info->adds = sum.adds;
	info->queries = sum.queries;
	info->hits = sum.hits;
	info->bits_set = core.in_use;
	info->deletes = sum.deletes;
	info->delete_misses = sum.delete_misses;
	info->delete_pinned = sum.delete_pinned;
	bloom_core_estimate(&s->core, &est);
	info->estimated_keys = est.keys;
	info->estimated_fpp_ppb = est.fpp_ppb;
	info->reserved2 = 0;
	info->saturated = core.saturated;
	info->insert_failures = core.insert_failures;
	info->fingerprint_bits = core.fingerprint_bits;
	info->subtables = core.subtables;
	info->subtable_cells = core.subtable_cells;
	for (i = 0; i < ARRAY_SIZE(info->subtable_used); i++)
		info->subtable_used[i] = core.subtable_used[i];
	/* the caller's bytes are in every field not set: set them all */
	info->stages = 0;
	info->growth = 0;
	info->tightening_ppm = 0;
	if (bloom_core_is_scalable(&s->core)) {
		info->stages = bloom_scale_stages(&s->core);
		info->growth = s->scale.p.growth;
		info->tightening_ppm = s->scale.p.tightening_ppm;
	}
	info->packets = sum.packets;
	info->packet_hits = sum.packet_hits;
	info->rules = atomic_read(&f->rules);
	info->reserved3 = 0;
	info->reserved4 = 0;
	rcu_read_unlock();
	return 0;
}

/*
 * The filters/ directory, /sys/class/misc/bloom/filters/: one directory per
 * filter (its files are sysfs.c's), tagged with the filter's network
 * namespace.
 */
static struct kset *bloom_filters_kset;

/*
 * Not a counted allocation (alloc.h): live_allocations counts what filters,
 * descriptors and calls hold, and is 0 when there are none.
 */
static void bloom_filters_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct kset, kobj));
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
		return NULL;
	}
	return kset;
}

/*
 * The filters/ directory lives inside the device's, so it can only be made
 * once the device is registered, and the device is registered last at
 * init (nothing userspace can reach before what it needs). Module init
 * makes it right after; should that fail, every create tries again, so no
 * step of init can fail after the device exists. -ENOMEM when it cannot be
 * made.
 */
int bloom_filters_dir_ready(struct device *dev)
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
			/* A fully made kset; see bloom_filter_dir_add(). */
			smp_store_release(&bloom_filters_kset, kset);
		else
			ret = -ENOMEM;
	}
	mutex_unlock(&lock);
	return ret;
}

/* Module exit, after every filter's directory is gone. */
void bloom_filters_dir_exit(void)
{
	kset_unregister(bloom_filters_kset);
	bloom_filters_kset = NULL;
}

/* Under the namespace's lock, after bloom_filters_dir_ready() succeeded. */
static int bloom_filter_dir_add(struct bloom_filter *f)
{
	/* Pairs with smp_store_release() in bloom_filters_dir_ready(). */
	struct kset *kset = smp_load_acquire(&bloom_filters_kset);
	int ret;

	if (WARN_ON_ONCE(!kset))
		return -ENOMEM;
	f->kobj.kset = kset;
	ret = kobject_add(&f->kobj, NULL, "%s", f->name);
	if (ret)
		return ret;
	ret = bloom_scale_sysfs_add(f);
	if (ret) {
		kobject_del(&f->kobj);
		return ret;
	}
	kobject_uevent(&f->kobj, KOBJ_ADD);
	return 0;
}

static void bloom_filter_dir_del(struct bloom_filter *f)
{
	kobject_uevent(&f->kobj, KOBJ_REMOVE);
	bloom_scale_sysfs_del(f);
	kobject_del(&f->kobj);
}

/*
 * Names: each network namespace's filters (as ipset keeps its sets), a
 * sorted list under a mutex in the namespace's net_generic() slot. Names are
 * looked up when a descriptor binds or a firewall rule is inserted, not per
 * key, so a list is enough and keeps LIST sorted.
 *
 * A namespace's filters go with it: the pernet exit destroys every filter
 * of the namespace (its memory is freed after a grace period) even if the
 * namespace's own firewall rules, torn down right after, still hold one:
 * those then match nothing. Descriptors opened in a namespace hold it with
 * get_net(), so none is left by then.
 */
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

static struct bloom_filter *bloom_net_find(struct bloom_net *bn,
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
 * Registers @f under its name in @net, with its sysfs directory; the
 * namespace's list takes a reference of its own.
 */
int bloom_filter_register(struct net *net, struct bloom_filter *f)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_filter *pos;
	int ret;

	if (mutex_lock_killable(&bn->lock))
		return -EINTR;
	ret = -EEXIST;
	if (bloom_net_find(bn, f->name))
		goto out;
	f->net = net;
	ret = bloom_filter_dir_add(f);
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

static void bloom_net_unlink(struct bloom_net *bn, struct bloom_filter *f)
{
	lockdep_assert_held(&bn->lock);
	list_del_init(&f->node);
	bn->count--;
	/*
	 * Under the lock, so that the name is free in sysfs by the time a
	 * create of the same name can find it free in the list.
	 */
	bloom_filter_dir_del(f);
}

/*
 * -EBUSY while firewall rules hold the filter: rules take their reference
 * under this lock (bloom_filter_lookup_rule()), so the count read here
 * cannot miss one.
 */
int bloom_filter_remove(struct net *net, const char *name)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_filter *f;
	int ret = 0;

	if (mutex_lock_killable(&bn->lock))
		return -EINTR;
	f = bloom_net_find(bn, name);
	if (!f)
		ret = -ENOENT;
	else if (atomic_read(&f->rules))
		ret = -EBUSY;
	else
		bloom_net_unlink(bn, f);
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
static struct bloom_filter *bloom_filter_lookup_ref(struct net *net,
						    const char *name, bool rule)
{
	struct bloom_net *bn = bloom_net(net);
	struct bloom_filter *f;

	if (mutex_lock_killable(&bn->lock))
		return ERR_PTR(-EINTR);
	f = bloom_net_find(bn, name);
	if (f) {
		bloom_filter_get(f);
		if (rule)
			atomic_inc(&f->rules);
	}
	mutex_unlock(&bn->lock);
	return f ?: ERR_PTR(-ENOENT);
}

struct bloom_filter *bloom_filter_lookup(struct net *net, const char *name)
{
	return bloom_filter_lookup_ref(net, name, false);
}

struct bloom_filter *bloom_filter_lookup_rule(struct net *net,
					      const char *name)
{
	return bloom_filter_lookup_ref(net, name, true);
}

/*
 * A snapshot of the names in @net, sorted, BLOOM_NAME_LEN bytes each, in
 * memory the caller frees with bloom_kvfree(). Copying out to userspace
 * happens after the lock is dropped, so a slow page fault cannot stall
 * everybody else's create.
 */
int bloom_filter_names(struct net *net, char **names, u32 *count)
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
		bloom_net_unlink(bn, f);
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

int bloom_filter_net_init(void)
{
	return register_pernet_subsys(&bloom_net_ops);
}

/* Module exit: runs bloom_net_exit() for every namespace. */
void bloom_filter_net_exit(void)
{
	unregister_pernet_subsys(&bloom_net_ops);
}
