// SPDX-License-Identifier: GPL-2.0
/*
 * A filter's storage and its memory (store.h has the rules): the memory
 * limit every store is charged against, making a store of one core or a
 * chain of stages, growing a chain, and freeing a store at once (never
 * published) or after an RCU grace period (retired).
 *
 * A chain grows in the adder's process context, outside any RCU read
 * section: the adder that finds the newest stage full holds the write lock
 * of whoever holds the store (filter.h), which every writer and no query
 * takes, and calls bloom_store_grow();
 * the core publishes the new stage with a release store of the stage
 * count. Queries never wait. Every stage counts against max_memory and is
 * charged to the adder's memory cgroup; when it cannot be had, the add
 * fails and the stages that exist stay as they are.
 */
#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/overflow.h>
#include <linux/kernel.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "alloc.h"
#include "map.h"
#include "store.h"

/* A stage of a chain and the allocation behind its core's words. */
struct bloom_stage_mem {
	struct bloom_scale_stage stage;
	void *storage;
};

static struct workqueue_struct *bloom_free_wq;

/* A chain's stages; their bytes are in s->memory_bytes, the caller's. */
static void bloom_store_free_stages(struct bloom_store *s)
{
	struct bloom_stage_mem *sm;
	u32 i, n;

	if (!bloom_core_is_scalable(&s->core))
		return;
	n = bloom_scale_stages(&s->core);
	for (i = 0; i < n; i++) {
		sm = container_of(bloom_scale_stage(&s->core, i),
				  struct bloom_stage_mem, stage);
		bloom_kvfree(sm->storage);
		bloom_kfree(sm);
	}
	s->scale.nstages = 0;
}

static void bloom_store_free(struct bloom_store *s)
{
	if (s->clock) {
		bloom_clock_stop(s->clock);
		memzero_explicit(&s->clock->ring.gen, sizeof(s->clock->ring.gen));
		bloom_kfree(s->clock);
	}
	if (s->sweep) {
		bloom_sweep_stop(s->sweep);
		bloom_kfree(s->sweep);
	}
	bloom_store_free_stages(s);
	bloom_free_percpu(s->stats);
	if (s->map)
		bloom_map_put(s->map);
	bloom_kvfree(s->mem);
	memzero_explicit(&s->core.key, sizeof(s->core.key));
	bloom_kfree(s);
}

static void bloom_store_free_work(struct work_struct *work)
{
	bloom_store_free(container_of(to_rcu_work(work), struct bloom_store,
				      free_work));
}

/* Bytes of an expiring store's generations: G tables of @geo's size. */
static int bloom_store_ring_bytes(const struct bloom_expire_params *xp,
				  u64 *bytes)
{
	struct bloom_geometry geo;
	int ret = bloom_expire_gen_geometry(xp, &geo);

	if (ret)
		return ret;
	if (check_mul_overflow(bloom_core_storage_bytes(&geo),
			       (u64)xp->generations, bytes))
		return -E2BIG;
	return 0;
}

/*
 * A standard or blocked filter of one table can be mapped (map.h): its
 * table lives in a mappable area behind a header page.
 */
static bool bloom_store_mappable(const struct bloom_geometry *geo,
				 const struct bloom_scale_params *p,
				 const struct bloom_expire_params *xp)
{
	return !p && !xp && (geo->type == BLOOM_CORE_STANDARD ||
			     geo->type == BLOOM_CORE_BLOCKED);
}

/*
 * The store of @geo, or with @p a chain without stages yet (its stage 0's
 * geometry is @geo; bloom_store_new_chain() adds the stage), or with @xp
 * an expiring store, its clock stopped.
 */
static struct bloom_store *bloom_store_make(struct bloom_account *acct,
					    const struct bloom_geometry *geo,
					    const struct bloom_scale_params *p,
					    const struct bloom_expire_params *xp,
					    const u8 *hash_key)
{
	u8 key_bytes[BLOOM_CORE_HASH_KEY_LEN];
	bool mappable = bloom_store_mappable(geo, p, xp);
	struct bloom_store *s;
	u64 storage_bytes = 0, memory_bytes, map_bytes = 0;
	bloom_hash_key_t key;
	void *words = NULL;
	int ret;

	/*
	 * Everything a store takes counts against max_memory: the storage
	 * (with room to align it to a cache line), the per-CPU counters and
	 * the struct; an expiring store's generations and clock too.
	 */
	/*
	 * Rotations run on CPU nobody is charged for: a namespace other
	 * than the initial one gets at most BLOOM_NETNS_ROTATIONS_HZ per
	 * filter (create, like and restore alike).
	 */
	if (xp && !acct->initial &&
	    bloom_expire_period_ns(xp) < NSEC_PER_SEC / BLOOM_NETNS_ROTATIONS_HZ)
		return ERR_PTR(-EINVAL);
	if (xp) {
		ret = bloom_store_ring_bytes(xp, &storage_bytes);
		if (ret)
			return ERR_PTR(ret);
		storage_bytes += BLOOM_CORE_ALIGN + sizeof(struct bloom_clock);
	} else if (mappable) {
		map_bytes = bloom_map_bytes(bloom_core_storage_bytes(geo));
	} else if (!p) {
		storage_bytes = bloom_core_storage_bytes(geo) + BLOOM_CORE_ALIGN;
		if (geo->type == BLOOM_CORE_TIMED)
			storage_bytes += sizeof(struct bloom_sweep);
	}
	memory_bytes = storage_bytes + map_bytes + sizeof(*s) +
		       (u64)num_possible_cpus() * sizeof(struct bloom_stats);
	ret = bloom_account_reserve(acct, memory_bytes);
	if (ret)
		return ERR_PTR(ret);

	ret = -ENOMEM;
	s = bloom_kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		goto err_release;
	s->acct = acct;
	s->memory_bytes = memory_bytes;
	if (xp) {
		s->clock = bloom_kzalloc(sizeof(*s->clock), GFP_KERNEL_ACCOUNT);
		if (!s->clock)
			goto err_free;
		bloom_clock_init(s->clock, &s->core);
		storage_bytes -= sizeof(struct bloom_clock);
	} else if (!p && geo->type == BLOOM_CORE_TIMED) {
		s->sweep = bloom_kzalloc(sizeof(*s->sweep), GFP_KERNEL_ACCOUNT);
		if (!s->sweep)
			goto err_free;
		bloom_sweep_init(s->sweep, &s->core);
		storage_bytes -= sizeof(struct bloom_sweep);
	}
	/*
	 * __GFP_RETRY_MAYFAIL: a filter too big for the creator's memory
	 * cgroup must fail the create with -ENOMEM, not wake the cgroup's
	 * OOM killer on the creator.
	 */
	if (mappable) {
		s->map = bloom_map_new(acct, bloom_core_storage_bytes(geo),
				       map_bytes);
		if (!s->map)
			goto err_free;
		words = bloom_map_bits(s->map);
	} else if (!p) {
		s->mem = bloom_kvzalloc(storage_bytes,
					GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL);
		if (!s->mem)
			goto err_free;
		words = PTR_ALIGN(s->mem, BLOOM_CORE_ALIGN);
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
	if (xp)
		bloom_expire_init(&s->core, &s->clock->ring, xp, &key,
				  PTR_ALIGN(s->mem, BLOOM_CORE_ALIGN),
				  bloom_clock_now());
	else if (p)
		bloom_scale_init(&s->core, &s->scale, p, &key);
	else
		bloom_core_init(&s->core, geo, &key, words);
	memzero_explicit(&key, sizeof(key));
	if (s->map)
		bloom_map_describe(s->map, &s->core, 0);
	return s;

err_free:
	/* the area's bytes go back with its last user */
	if (s->map) {
		memory_bytes -= s->map->charged;
		bloom_map_retire(s->map);
	}
	bloom_store_free(s);
err_release:
	bloom_account_release(acct, memory_bytes);
	return ERR_PTR(ret);
}

struct bloom_store *bloom_store_new_stopped(struct bloom_account *acct,
					    const struct bloom_geometry *geo,
					    const u8 *hash_key)
{
	return bloom_store_make(acct, geo, NULL, NULL, hash_key);
}

void bloom_store_sweep_start(struct bloom_store *s)
{
	if (s->sweep)
		bloom_sweep_start(s->sweep);
}

struct bloom_store *bloom_store_new(struct bloom_account *acct,
				    const struct bloom_geometry *geo,
				    const u8 *hash_key)
{
	struct bloom_store *s = bloom_store_make(acct, geo, NULL, NULL,
						 hash_key);

	if (!IS_ERR(s))
		bloom_store_sweep_start(s);
	return s;
}

struct bloom_store *bloom_store_new_stageless(struct bloom_account *acct,
					      const struct bloom_scale_params *p,
					      const u8 *hash_key)
{
	return bloom_store_make(acct, NULL, p, NULL, hash_key);
}

struct bloom_store *bloom_store_new_chain(struct bloom_account *acct,
					  const struct bloom_scale_params *p,
					  const u8 *hash_key)
{
	struct bloom_store *s = bloom_store_make(acct, NULL, p, NULL, hash_key);
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

struct bloom_store *
bloom_store_new_expiring_stopped(struct bloom_account *acct,
				 const struct bloom_expire_params *p,
				 const u8 *hash_key)
{
	return bloom_store_make(acct, NULL, NULL, p, hash_key);
}

struct bloom_store *bloom_store_new_expiring(struct bloom_account *acct,
					     const struct bloom_expire_params *p,
					     const u8 *hash_key)
{
	struct bloom_store *s = bloom_store_make(acct, NULL, NULL, p, hash_key);

	if (!IS_ERR(s))
		bloom_clock_start(s->clock);
	return s;
}

void bloom_store_clock_start(struct bloom_store *s)
{
	bloom_clock_start(s->clock);
}

/*
 * The store's bytes go back now, but for a mappable area's: those with
 * its last user, a process that still maps it (map.h).
 */
static void bloom_store_release(struct bloom_store *s)
{
	if (!s->map) {
		bloom_account_release(s->acct, s->memory_bytes);
		return;
	}
	bloom_account_release(s->acct, s->memory_bytes - s->map->charged);
	bloom_map_retire(s->map);
}

void bloom_store_retire(struct bloom_store *s)
{
	bloom_store_release(s);
	INIT_RCU_WORK(&s->free_work, bloom_store_free_work);
	queue_rcu_work(bloom_free_wq, &s->free_work);
}

void bloom_store_discard(struct bloom_store *s)
{
	/* a clock may be running: stopped by the free work, which may wait */
	if (s->clock) {
		bloom_store_retire(s);
		return;
	}
	bloom_store_release(s);
	bloom_store_free(s);
}

struct bloom_scale_stage *bloom_store_add_stage(struct bloom_store *s,
						const struct bloom_geometry *geo)
{
	struct bloom_stage_mem *sm;
	u64 bytes, mem;

	bytes = bloom_core_storage_bytes(geo) + BLOOM_CORE_ALIGN;
	mem = bytes + sizeof(*sm);
	if (bloom_account_reserve(s->acct, mem))
		return ERR_PTR(-EDQUOT);
	sm = bloom_kzalloc(sizeof(*sm), GFP_KERNEL_ACCOUNT);
	if (!sm)
		goto err_release;
	/* as for a create: over the cgroup's limit is -ENOMEM, not the OOM killer */
	sm->storage = bloom_kvzalloc(bytes, GFP_KERNEL_ACCOUNT |
					    __GFP_RETRY_MAYFAIL);
	if (!sm->storage) {
		bloom_kfree(sm);
		goto err_release;
	}
	bloom_scale_publish(&s->core, &sm->stage, geo,
			    PTR_ALIGN(sm->storage, BLOOM_CORE_ALIGN));
	WRITE_ONCE(s->memory_bytes, s->memory_bytes + mem);
	return &sm->stage;

err_release:
	bloom_account_release(s->acct, mem);
	return ERR_PTR(-ENOMEM);
}

int bloom_store_grow(struct bloom_store *s)
{
	struct bloom_geometry geo;

	if (!bloom_core_is_scalable(&s->core) || !bloom_scale_full(&s->core))
		return 0;	/* another adder grew it meanwhile */
	/* no more stages, or one over the capacity, bits or rate limits */
	if (bloom_scale_next_geometry(&s->core, &geo))
		return -ENOSPC;
	return PTR_ERR_OR_ZERO(bloom_store_add_stage(s, &geo));
}

void bloom_store_sum_stats(const struct bloom_store *s,
			   struct bloom_stats_sum *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct bloom_stats *c = per_cpu_ptr(s->stats, cpu);
		u64 hits = READ_ONCE(c->hits);
		u64 packet_hits = READ_ONCE(c->packet_hits);
		u64 bpf_hits = READ_ONCE(c->bpf_hits);

		sum->adds += READ_ONCE(c->adds);
		sum->hits += hits;
		sum->queries += hits + READ_ONCE(c->query_misses);
		sum->deletes += READ_ONCE(c->deletes);
		sum->delete_misses += READ_ONCE(c->delete_misses);
		sum->delete_pinned += READ_ONCE(c->delete_pinned);
		sum->packet_hits += packet_hits;
		sum->packets += packet_hits + READ_ONCE(c->packet_misses);
		sum->bpf_hits += bpf_hits;
		sum->bpf_calls += bpf_hits + READ_ONCE(c->bpf_misses);
	}
}

/*
 * In place: a new store would need the filter's memory twice for a
 * moment, which max_memory may not allow.
 */
int bloom_store_clear(struct bloom_store *s)
{
	int cpu, ret;

	/* no rotation clears a generation meanwhile, no sweep a cell */
	if (s->clock)
		mutex_lock(&s->clock->lock);
	bloom_store_writers_lock(s);
	ret = bloom_core_clear(&s->core);
	bloom_store_writers_unlock(s);
	if (s->clock)
		mutex_unlock(&s->clock->lock);
	if (ret)
		return ret;
	bloom_nb_clear(&s->nb);
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(s->stats, cpu), 0, sizeof(struct bloom_stats));
	return 0;
}

int bloom_store_merge(struct bloom_store *dst, struct bloom_store *src)
{
	struct bloom_clock *a = dst->clock, *b = src->clock;
	int ret;

	if (!a && !b)
		return bloom_core_merge(&dst->core, &src->core);
	if (!a || !b || a == b)
		return -EINVAL;
	/* the two clocks' locks in address order, as the filters' */
	if (a > b)
		swap(a, b);
	mutex_lock(&a->lock);
	mutex_lock_nested(&b->lock, SINGLE_DEPTH_NESTING);
	ret = bloom_expire_merge(&dst->core, &src->core, bloom_clock_now());
	mutex_unlock(&b->lock);
	mutex_unlock(&a->lock);
	return ret;
}

u64 bloom_store_next_rotation_ms(const struct bloom_store *s)
{
	u64 due, now;

	if (!s->clock)
		return 0;
	due = bloom_expire_due(&s->core);
	now = bloom_clock_now();
	if (due == BLOOM_EXPIRE_NEVER)
		due = now + s->clock->ring.period_ns;
	return due > now ? div_u64(due - now + NSEC_PER_MSEC - 1,
				   NSEC_PER_MSEC) : 0;
}

u64 bloom_store_late_rotations(const struct bloom_store *s)
{
	return s->clock ? atomic64_read(&s->clock->late) : 0;
}

int bloom_store_init(void)
{
	int ret = bloom_clock_module_init();

	if (ret)
		return ret;
	ret = bloom_sweep_module_init();
	if (ret)
		goto err_clock;
	bloom_free_wq = alloc_workqueue("bloom_free", 0, 0);
	if (!bloom_free_wq) {
		ret = -ENOMEM;
		goto err_sweep;
	}
	return 0;
err_sweep:
	bloom_sweep_module_exit();
err_clock:
	bloom_clock_module_exit();
	return ret;
}

void bloom_store_exit(void)
{
	/*
	 * Every store was retired by now. rcu_barrier() waits for their
	 * grace periods' callbacks, which queue the free work; destroying
	 * the workqueue runs what is queued.
	 */
	rcu_barrier();
	destroy_workqueue(bloom_free_wq);
	/* every clock and sweep was stopped by the free work of its store */
	bloom_sweep_module_exit();
	bloom_clock_module_exit();
}
