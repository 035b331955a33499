// SPDX-License-Identifier: GPL-2.0
/*
 * Changes of a whole store (store.h): a replace's and a swap's check of
 * key kinds, merge (two plain stores bit by bit, two rings generation by
 * generation, two chains stage by stage) and flush (in place, or a new
 * chain). The callers hold the filters' write locks, so no writer runs;
 * the stores' background work is kept away with its lock.
 */
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/string.h>

#include "store_internal.h"

int bloom_store_adopt(struct bloom_store *new, const struct bloom_store *old)
{
	int ret = bloom_store_kinds_meet(new, old);

	if (ret)
		return ret;
	/* contents of no kind keep the filter's (rules rely on it) */
	if (!new->nb.kind)
		new->nb.kind = READ_ONCE(old->nb.kind);
	return 0;
}

int bloom_store_kinds_meet(const struct bloom_store *a,
			   const struct bloom_store *b)
{
	u32 ka = READ_ONCE(a->nb.kind), kb = READ_ONCE(b->nb.kind);

	return ka && kb && ka != kb ? -EPROTOTYPE : 0;
}

/*
 * Two chains, stage by stage: the destination first gets the stages the
 * source has and it lacks (published as growth publishes them), then each
 * stage takes the source stage's bits. The stages added stay if a later
 * one does not fit (-EDQUOT, -ENOMEM): empty, they change no answer, and
 * the merge adds nothing.
 */
static int bloom_store_merge_chain(struct bloom_store *sd,
				   struct bloom_store *ss)
{
	struct bloom_scale_stage *st;
	struct bloom_geometry geo;
	u32 n;

	if (!bloom_core_is_scalable(&sd->core) ||
	    !bloom_core_is_scalable(&ss->core))
		return -EOPNOTSUPP;
	if (!bloom_scale_compatible(&sd->core, &ss->core))
		return -EINVAL;
	/* the source's stages are published: its writers are held off too */
	n = bloom_scale_stages(&ss->core);
	while (bloom_scale_stages(&sd->core) < n) {
		if (bloom_scale_next_geometry(&sd->core, &geo))
			return -EINVAL;
		st = bloom_store_add_stage(sd, &geo);
		if (IS_ERR(st))
			return PTR_ERR(st);
	}
	return bloom_scale_merge(&sd->core, &ss->core);
}

/* Two rings: both works' locks in address order, as the filters'. */
static int bloom_store_merge_ring(struct bloom_store *dst,
				  struct bloom_store *src)
{
	struct bloom_store_work *a = dst->work, *b = src->work;
	int ret;

	if (!a || !b || a == b || !bloom_core_is_expiring(&dst->core) ||
	    !bloom_core_is_expiring(&src->core))
		return -EINVAL;
	if (a > b)
		swap(a, b);
	mutex_lock(&a->lock);
	mutex_lock_nested(&b->lock, SINGLE_DEPTH_NESTING);
	ret = bloom_expire_merge(&dst->core, &src->core, bloom_work_now_ns());
	mutex_unlock(&b->lock);
	mutex_unlock(&a->lock);
	return ret;
}

int bloom_store_merge(struct bloom_store *dst, struct bloom_store *src)
{
	bool ring_d = bloom_core_is_expiring(&dst->core);
	bool ring_s = bloom_core_is_expiring(&src->core);
	int ret;

	ret = bloom_store_kinds_meet(dst, src);
	if (ret)
		return ret;
	/* the destination's prefix lengths stay the only ones it holds */
	if (!bloom_nb_plan_holds(&dst->nb, &src->nb))
		return -EINVAL;
	bloom_store_changing(dst);
	/* the core refuses d-left, timed and incompatible filters */
	if (bloom_core_is_scalable(&dst->core) ||
	    bloom_core_is_scalable(&src->core))
		ret = bloom_store_merge_chain(dst, src);
	else if (ring_d || ring_s)
		ret = bloom_store_merge_ring(dst, src);
	else
		ret = bloom_core_merge(&dst->core, &src->core);
	if (!ret) {
		bloom_nb_merge(&dst->nb, &src->nb);
		if (!READ_ONCE(dst->nb.kind))
			WRITE_ONCE(dst->nb.kind, READ_ONCE(src->nb.kind));
		/* inside the merge's change */
		bloom_store_keys_changed(dst, false);
	}
	bloom_store_changed(dst);
	return ret;
}

/*
 * In place: a new store would need the filter's memory twice for a
 * moment, which max_memory may not allow.
 */
static int bloom_store_clear(struct bloom_store *s)
{
	int cpu, ret;

	/* no rotation clears a generation meanwhile, no sweep a cell */
	bloom_store_lock_work(s);
	ret = bloom_core_clear(&s->core);
	bloom_store_unlock_work(s);
	if (ret)
		return ret;
	bloom_nb_clear(&s->nb);
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(s->stats, cpu), 0, sizeof(struct bloom_stats));
	return 0;
}

int bloom_store_flush(struct bloom_store *s, struct bloom_store **fresh)
{
	struct bloom_store_spec spec;
	int ret;

	*fresh = NULL;
	if (!bloom_core_is_scalable(&s->core)) {
		bloom_store_changing(s);
		ret = bloom_store_clear(s);
		bloom_store_changed(s);
		return ret;
	}
	/* a new chain: same parameters, hash key, key kind, prefix lengths */
	bloom_store_spec_of(s, &spec);
	*fresh = bloom_store_create(s->acct, &spec, true);
	memzero_explicit(spec.hash_key, sizeof(spec.hash_key));
	if (IS_ERR(*fresh)) {
		ret = PTR_ERR(*fresh);
		*fresh = NULL;
		return ret;
	}
	return 0;
}
