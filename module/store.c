// SPDX-License-Identifier: GPL-2.0
/*
 * Making, freeing and growing stores (store.h has the rules): the memory
 * limit every store is charged against, a store of one
 * core, a chain of stages or a ring of generations made from one
 * description, a chain grown, and a store freed at once (never published)
 * or after an RCU grace period (retired).
 *
 * A chain grows in the adder's process context, outside any RCU read
 * section: the adder that finds the newest stage full holds the write lock
 * of whoever holds the store (filter.h), which every writer and no query
 * takes, and calls bloom_store_grow(); the core publishes the new stage
 * with a release store of the stage count. Queries never wait. Every stage
 * counts against max_memory and is charged to the adder's memory cgroup;
 * when it cannot be had, the add fails and the stages that exist stay as
 * they are.
 */
#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/overflow.h>
#include <linux/kernel.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "alloc.h"
#include "store_internal.h"

/*
 * A stage of a chain and the allocation behind its core's words; a timed
 * chain's empty stage is freed by @free_work after a grace period.
 */
struct bloom_stage_mem {
	struct bloom_scale_stage stage;
	void *storage;
	struct rcu_work free_work;
};

/* Bytes of a stage's table: its words and room to align them. */
static u64 bloom_stage_table_bytes(const struct bloom_geometry *geo)
{
	return bloom_core_storage_bytes(geo) + BLOOM_CORE_ALIGN;
}

/* Bytes a stage of @geo takes, and counts against max_memory. */
static u64 bloom_stage_bytes(const struct bloom_geometry *geo)
{
	return bloom_table_bytes(bloom_stage_table_bytes(geo)) +
	       kmalloc_size_roundup(sizeof(struct bloom_stage_mem));
}

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
	if (s->work) {
		bloom_work_stop(s->work);
		if (bloom_core_is_expiring(&s->core))
			memzero_explicit(&s->work->ring->gen,
					 sizeof(s->work->ring->gen));
		bloom_kfree(s->work);
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

/*
 * The geometry of one table of @spec (a ring's generation); for a chain,
 * its stage 0's.
 */
static int bloom_spec_table(const struct bloom_store_spec *spec,
			    struct bloom_geometry *geo)
{
	if (spec->shape == BLOOM_STORE_RING)
		return bloom_expire_gen_geometry(&spec->expire, geo);
	if (spec->shape == BLOOM_STORE_CHAIN)
		return bloom_scale_stage_geometry(&spec->scale, 0, geo);
	*geo = spec->geo;
	return 0;
}

/*
 * Bytes of the table(s) a store of @spec allocates with itself: a plain
 * store's table, a ring's G generations; a chain's stages come apart.
 */
static int bloom_spec_storage_bytes(const struct bloom_store_spec *spec,
				    const struct bloom_geometry *geo,
				    u64 *bytes)
{
	*bytes = 0;
	if (spec->shape == BLOOM_STORE_CHAIN)
		return 0;
	*bytes = bloom_core_storage_bytes(geo);
	if (spec->shape == BLOOM_STORE_RING &&
	    check_mul_overflow(*bytes, (u64)spec->expire.generations, bytes))
		return -E2BIG;
	*bytes += BLOOM_CORE_ALIGN;
	return 0;
}

/*
 * A standard or blocked filter of one table can be mapped (map.h): its
 * table lives in a mappable area behind a header page.
 */
static bool bloom_spec_mappable(const struct bloom_store_spec *spec)
{
	return spec->shape == BLOOM_STORE_PLAIN &&
	       (spec->geo.type == BLOOM_CORE_STANDARD ||
		spec->geo.type == BLOOM_CORE_BLOCKED);
}

/* What @s has besides a plain filter's; once its core is made. */
static u32 bloom_store_find_features(const struct bloom_store *s)
{
	u32 type = bloom_store_type(s), f = 0;

	if (type == BLOOM_CORE_COUNTING || type == BLOOM_CORE_DLEFT ||
	    type == BLOOM_CORE_TIMED)
		f |= BLOOM_STORE_F_DELETES;
	if (type == BLOOM_CORE_DLEFT || type == BLOOM_CORE_TIMED)
		f |= BLOOM_STORE_F_CELLS;
	if (type == BLOOM_CORE_TIMED)
		f |= BLOOM_STORE_F_TIMEOUTS;
	if (bloom_core_is_scalable(&s->core))
		f |= BLOOM_STORE_F_STAGES;
	if (bloom_core_is_expiring(&s->core))
		f |= BLOOM_STORE_F_ROTATES;
	return f;
}

/* The core over the storage, its hash key and what it holds. */
static void bloom_store_init_core(struct bloom_store *s,
				  const struct bloom_store_spec *spec,
				  const struct bloom_geometry *geo, void *words)
{
	u8 key_bytes[BLOOM_CORE_HASH_KEY_LEN];
	bloom_hash_key_t key;
	int fam;

	if (spec->has_key)
		memcpy(key_bytes, spec->hash_key, sizeof(key_bytes));
	else
		get_random_bytes(key_bytes, sizeof(key_bytes));
	bloom_hash_key_init(&key, key_bytes, spec->hash);
	key.placement = spec->placement;
	memzero_explicit(key_bytes, sizeof(key_bytes));
	if (spec->shape == BLOOM_STORE_RING)
		bloom_expire_init(&s->core, s->work->ring, &spec->expire, &key,
				  words, bloom_work_now_ns());
	else if (spec->shape == BLOOM_STORE_CHAIN)
		bloom_scale_init(&s->core, &s->scale, &spec->scale, &key);
	else
		bloom_core_init(&s->core, geo, &key, words);
	memzero_explicit(&key, sizeof(key));
	s->features = bloom_store_find_features(s);
	if (s->work)
		bloom_work_init(s->work, &s->core);
	if (bloom_core_is_timed(&s->core))
		bloom_timed_set_timeouts(&s->core, spec->key_timeout_s,
					 spec->key_timeout_max_s);
	s->nb.kind = spec->keys;
	for (fam = 0; fam < 2; fam++)
		/* checked by bloom_store_spec_decode() or a model's */
		WARN_ON_ONCE(bloom_nb_set_plan(&s->nb, fam, spec->plan[fam]));
	if (s->map)
		bloom_map_describe(s->map, &s->core, spec->keys);
}

/* The store of @spec, empty, a chain without stages, its work idle. */
static struct bloom_store *bloom_store_make(struct bloom_account *acct,
					    const struct bloom_store_spec *spec)
{
	bool mappable = bloom_spec_mappable(spec);
	size_t work_bytes;
	struct bloom_store *s;
	u64 storage_bytes, memory_bytes, map_bytes = 0;
	struct bloom_geometry geo;
	void *words = NULL;
	int ret;

	/*
	 * Rotations run on CPU nobody is charged for: a namespace other
	 * than the initial one gets at most BLOOM_NETNS_ROTATIONS_HZ per
	 * filter (create, like and restore alike).
	 */
	if (spec->shape == BLOOM_STORE_RING && !acct->initial &&
	    bloom_expire_period_ns(&spec->expire) <
	    NSEC_PER_SEC / BLOOM_NETNS_ROTATIONS_HZ)
		return ERR_PTR(-EINVAL);
	ret = bloom_spec_table(spec, &geo);
	if (!ret)
		ret = bloom_spec_storage_bytes(spec, &geo, &storage_bytes);
	if (ret)
		return ERR_PTR(ret);
	/*
	 * Everything a store takes counts against max_memory: the storage
	 * (with room to align it to a cache line), the per-CPU counters and
	 * the struct, its background work's too.
	 */
	work_bytes = bloom_work_bytes(spec->shape, geo.type);
	if (mappable) {
		map_bytes = bloom_map_bytes(bloom_core_storage_bytes(&geo));
		storage_bytes = 0;
	}
	memory_bytes = bloom_table_bytes(storage_bytes) +
		       kmalloc_size_roundup(work_bytes) + map_bytes +
		       kmalloc_size_roundup(sizeof(*s)) +
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
	if (work_bytes) {
		s->work = bloom_kzalloc(work_bytes, GFP_KERNEL_ACCOUNT);
		if (!s->work)
			goto err_free;
	}
	/*
	 * __GFP_RETRY_MAYFAIL: a filter too big for the creator's memory
	 * cgroup must fail the create with -ENOMEM, not wake the cgroup's
	 * OOM killer on the creator.
	 */
	if (mappable) {
		s->map = bloom_map_new(acct, bloom_core_storage_bytes(&geo),
				       map_bytes);
		if (!s->map)
			goto err_free;
		words = bloom_map_bits(s->map);
	} else if (storage_bytes) {
		s->mem = bloom_table_zalloc(storage_bytes,
					    GFP_KERNEL_ACCOUNT |
					    __GFP_RETRY_MAYFAIL);
		if (!s->mem)
			goto err_free;
		words = PTR_ALIGN(s->mem, BLOOM_CORE_ALIGN);
	}
	s->stats = bloom_alloc_percpu(sizeof(struct bloom_stats),
				      __alignof__(struct bloom_stats),
				      GFP_KERNEL_ACCOUNT);
	if (!s->stats)
		goto err_free;
	bloom_store_init_core(s, spec, &geo, words);
	return s;

err_free:
	/* the area's bytes go back with its last user */
	if (s->map) {
		memory_bytes -= s->map->charged;
		bloom_map_retire(s->map);
	}
	/* never started: nothing to stop */
	bloom_kfree(s->work);
	s->work = NULL;
	bloom_store_free(s);
err_release:
	bloom_account_release(acct, memory_bytes);
	return ERR_PTR(ret);
}

struct bloom_store *bloom_store_create(struct bloom_account *acct,
				       const struct bloom_store_spec *spec,
				       bool start)
{
	struct bloom_store *s = bloom_store_make(acct, spec);
	int ret;

	if (IS_ERR(s))
		return s;
	/* a chain's stage 0, but for a restore, which adds its own stages */
	if (spec->shape == BLOOM_STORE_CHAIN && start) {
		/* unpublished: nobody else sees the store yet */
		ret = bloom_store_grow(s);
		if (ret) {
			bloom_store_discard(s);
			return ERR_PTR(ret);
		}
	}
	if (start)
		bloom_store_start(s);
	return s;
}

void bloom_store_start(struct bloom_store *s)
{
	if (s->work)
		bloom_work_start(s->work);
}

void bloom_store_spec_of(const struct bloom_store *s,
			 struct bloom_store_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	if (bloom_core_is_expiring(&s->core)) {
		spec->shape = BLOOM_STORE_RING;
		spec->expire = s->work->ring->p;
	} else if (bloom_core_is_scalable(&s->core)) {
		spec->shape = BLOOM_STORE_CHAIN;
		spec->scale = s->core.scale->p;
	} else {
		spec->shape = BLOOM_STORE_PLAIN;
		spec->geo = s->core.geo;
	}
	if (bloom_core_is_timed(&s->core)) {
		spec->key_timeout_s = s->core.key_timeout_s;
		spec->key_timeout_max_s = s->core.key_timeout_max_s;
	}
	spec->keys = READ_ONCE(s->nb.kind);
	/* prefix lengths: set before publication and never changed */
	memcpy(spec->plan, s->nb.plan, sizeof(spec->plan));
	spec->has_key = true;
	bloom_hash_key_to_bytes(&s->core.key, spec->hash_key);
	spec->hash = s->core.key.hash;
	spec->placement = s->core.key.placement;
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
	bloom_store_queue_rcu(&s->free_work);
}

void bloom_store_discard(struct bloom_store *s)
{
	/* a rotation may be running: stopped by the free work, which may wait */
	if (s->work) {
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

	mem = bloom_stage_bytes(geo);
	bytes = bloom_stage_table_bytes(geo);
	if (bloom_account_reserve(s->acct, mem))
		return ERR_PTR(-EDQUOT);
	sm = bloom_kzalloc(sizeof(*sm), GFP_KERNEL_ACCOUNT);
	if (!sm)
		goto err_release;
	/* as for a create: over the cgroup's limit is -ENOMEM, not the OOM killer */
	sm->storage = bloom_table_zalloc(bytes, GFP_KERNEL_ACCOUNT |
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

static void bloom_stage_free_work(struct work_struct *work)
{
	struct bloom_stage_mem *sm = container_of(to_rcu_work(work),
						  struct bloom_stage_mem,
						  free_work);

	bloom_kvfree(sm->storage);
	bloom_kfree(sm);
}

u32 bloom_store_timed_tables(struct bloom_core *f, struct bloom_core **t)
{
	u32 i, n;

	if (!bloom_core_is_scalable(f)) {
		t[0] = f;
		return 1;
	}
	n = bloom_scale_stages(f);
	for (i = 0; i < n; i++)
		t[i] = (struct bloom_core *)&bloom_scale_stage(f, i)->core;
	return n;
}

void bloom_store_drop_empty_stages(struct bloom_core *f)
{
	struct bloom_store *s = container_of(f, struct bloom_store, core);
	struct bloom_scale_stage *gone[BLOOM_CORE_STAGES_MAX];
	struct bloom_stage_mem *sm;
	u32 i, n;
	u64 mem;

	if (!bloom_core_is_scalable(f))
		return;
	n = bloom_scale_unlink_empty(f, gone);
	for (i = 0; i < n; i++) {
		sm = container_of(gone[i], struct bloom_stage_mem, stage);
		/* info's expired keeps counting what the stage emptied */
		WRITE_ONCE(f->reclaimed, f->reclaimed + sm->stage.core.reclaimed);
		mem = bloom_stage_bytes(&sm->stage.core.geo);
		WRITE_ONCE(s->memory_bytes, s->memory_bytes - mem);
		bloom_account_release(s->acct, mem);
		/* queries may still read it: freed after a grace period */
		INIT_RCU_WORK(&sm->free_work, bloom_stage_free_work);
		bloom_store_queue_rcu(&sm->free_work);
	}
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

int bloom_store_map_vma(struct bloom_store *s, struct vm_area_struct *vma)
{
	return s->map ? bloom_map_vma(s->map, vma) : -EOPNOTSUPP;
}

int bloom_store_rotate_now(struct bloom_store *s)
{
	if (!bloom_core_is_expiring(&s->core))
		return -EOPNOTSUPP;
	return bloom_work_rotate_now(s->work);
}

int bloom_store_init(void)
{
	return bloom_work_module_init();
}

void bloom_store_exit(void)
{
	/*
	 * Every store was retired by now. rcu_barrier() waits for their
	 * grace periods' callbacks, which queue the free work; destroying
	 * the workqueue runs what is queued, and every free stops its
	 * store's work first.
	 */
	rcu_barrier();
	bloom_work_module_exit();
}
