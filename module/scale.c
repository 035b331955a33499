// SPDX-License-Identifier: GPL-2.0
/*
 * Scalable filters in the module: checking a create request, allocating and
 * publishing the stages the core asks for (module/core/scale.c has the
 * scheme), freeing them, and their sysfs directories stages/<i>/.
 *
 * The stages belong to the filter's store (filter.h) and go with it. Growth
 * runs in the adder's process context, outside any RCU read section: the
 * adder that finds the newest stage full takes the filter's write_lock
 * (which queries and the other adders of standard and blocked filters never
 * take), allocates and zeroes the next stage and appends it to the store
 * published now; the core publishes it with a release store of the stage
 * count. Queries never wait. Every stage counts against max_memory and is
 * charged to the adder's memory cgroup; when it cannot be had, the add
 * fails and the stages that exist stay as they are.
 */
#include <linux/err.h>
#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>

#include "alloc.h"
#include "filter.h"
#include "scale.h"

struct bloom_stage_mem {
	struct bloom_scale_stage stage;
	void *storage;			/* allocation behind stage.core.words */
};

/*
 * stages/<i>/ in sysfs: it names stage @index of @f, whatever store the
 * filter holds when it is read, so it never points at freed memory.
 */
struct bloom_stage_dir {
	struct kobject kobj;
	struct bloom_filter *f;
	u32 index;
};

static struct bloom_stage_mem *to_stage_mem(const struct bloom_scale_stage *st)
{
	return container_of(st, struct bloom_stage_mem, stage);
}

int bloom_scale_create_params(const struct bloom_create *arg,
			      struct bloom_scale_params *p)
{
	if (arg->flags & BLOOM_CREATE_F_GEOMETRY)
		return -EINVAL;
	p->type = arg->type;
	p->capacity = arg->capacity;
	p->fpp_ppb = arg->fpp_ppb;
	p->growth = arg->growth ?: BLOOM_GROWTH_DEFAULT;
	p->tightening_ppm = arg->tightening_ppm ?: BLOOM_TIGHTENING_PPM_DEFAULT;
	return bloom_scale_check(p);
}

/* ---- sysfs: stages/<i>/ ---- */

/*
 * Under rcu_read_lock(): the stage a stages/<i>/ directory names in the
 * store published now, or NULL if it has none (destroyed, or replaced by a
 * store with fewer stages).
 */
static const struct bloom_scale_stage *to_stage(struct kobject *kobj)
{
	struct bloom_stage_dir *d = container_of(kobj, struct bloom_stage_dir,
						 kobj);
	struct bloom_store *s = bloom_filter_store(d->f);

	if (!s || !bloom_core_is_scalable(&s->core) ||
	    d->index >= bloom_scale_stages(&s->core))
		return NULL;
	return bloom_scale_stage(&s->core, d->index);
}

/* A stage's estimated rate: the core's, as for a filter of its type. */
static u32 bloom_stage_est_fpp_ppb(const struct bloom_scale_stage *st)
{
	struct bloom_core_estimate e;

	bloom_core_estimate(&st->core, &e);
	return e.fpp_ppb;
}

#define BLOOM_STAGE_ATTR(name, fmt, type, expr)				\
static ssize_t name##_show(struct kobject *kobj,			\
			   struct kobj_attribute *attr, char *buf)	\
{									\
	const struct bloom_scale_stage *st;				\
	type v;								\
									\
	rcu_read_lock();						\
	st = to_stage(kobj);						\
	if (st)								\
		v = (expr);						\
	rcu_read_unlock();						\
	if (!st)							\
		return -ENODEV;						\
	return sysfs_emit(buf, fmt "\n", v);				\
}									\
static struct kobj_attribute stage_##name##_attr = __ATTR_RO(name)

BLOOM_STAGE_ATTR(capacity, "%llu", u64, st->core.geo.capacity);
BLOOM_STAGE_ATTR(fpp_ppb, "%u", u32, st->core.geo.fpp_ppb);
BLOOM_STAGE_ATTR(bits, "%llu", u64, st->core.geo.bits);
BLOOM_STAGE_ATTR(hashes, "%u", u32, st->core.geo.hashes);
BLOOM_STAGE_ATTR(count, "%llu", u64, READ_ONCE(st->count));
BLOOM_STAGE_ATTR(bits_set, "%llu", u64, bloom_core_bits_set(&st->core));
BLOOM_STAGE_ATTR(estimated_fpp_ppb, "%u", u32, bloom_stage_est_fpp_ppb(st));

static struct attribute *bloom_stage_attrs[] = {
	&stage_capacity_attr.attr,
	&stage_fpp_ppb_attr.attr,
	&stage_bits_attr.attr,
	&stage_hashes_attr.attr,
	&stage_count_attr.attr,
	&stage_bits_set_attr.attr,
	&stage_estimated_fpp_ppb_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(bloom_stage);

static void bloom_stage_release(struct kobject *kobj)
{
	bloom_kfree(container_of(kobj, struct bloom_stage_dir, kobj));
}

static const struct kobj_type bloom_stage_ktype = {
	.sysfs_ops = &kobj_sysfs_ops,
	.release = bloom_stage_release,
	.default_groups = bloom_stage_groups,
};

/* Under write_lock, while the filter is in sysfs: stages/<i>/. */
static void bloom_stage_sysfs_add(struct bloom_filter *f, u32 i)
{
	struct bloom_stage_dir *d;

	if (f->stage_dirs[i])
		return;
	/* The stage works without its directory: a failure only shows there. */
	d = bloom_kzalloc(sizeof(*d), GFP_KERNEL_ACCOUNT);
	if (!d)
		goto fail;
	d->f = f;
	d->index = i;
	kobject_init(&d->kobj, &bloom_stage_ktype);
	if (kobject_add(&d->kobj, f->stages_kobj, "%u", i)) {
		kobject_put(&d->kobj);
		goto fail;
	}
	f->stage_dirs[i] = &d->kobj;
	return;
fail:
	pr_warn_ratelimited("%s: no sysfs directory for stage %u\n", f->name, i);
}

void bloom_scale_sysfs_sync(struct bloom_filter *f)
{
	struct bloom_store *s = bloom_filter_store_locked(f);
	u32 i, n;

	if (!f->stages_in_sysfs || !s || !bloom_core_is_scalable(&s->core))
		return;
	n = bloom_scale_stages(&s->core);
	for (i = 0; i < n; i++)
		bloom_stage_sysfs_add(f, i);
}

int bloom_scale_sysfs_add(struct bloom_filter *f)
{
	int ret = 0;

	if (!f->scalable)
		return 0;
	mutex_lock(&f->write_lock);
	f->stages_kobj = kobject_create_and_add("stages", &f->kobj);
	if (!f->stages_kobj) {
		ret = -ENOMEM;
		goto out;
	}
	f->stages_in_sysfs = true;
	bloom_scale_sysfs_sync(f);
out:
	mutex_unlock(&f->write_lock);
	return ret;
}

/*
 * Removes stages/ and everything in it before the filter's own directory
 * goes (a show() still running is waited for) and drops them. Growth after
 * this adds no directory.
 */
void bloom_scale_sysfs_del(struct bloom_filter *f)
{
	u32 i;

	if (!f->scalable)
		return;
	mutex_lock(&f->write_lock);
	if (f->stages_in_sysfs) {
		for (i = 0; i < BLOOM_SCALE_STAGES_MAX; i++) {
			if (!f->stage_dirs[i])
				continue;
			kobject_del(f->stage_dirs[i]);
			kobject_put(f->stage_dirs[i]);
			f->stage_dirs[i] = NULL;
		}
		kobject_del(f->stages_kobj);
		kobject_put(f->stages_kobj);
		f->stages_kobj = NULL;
		f->stages_in_sysfs = false;
	}
	mutex_unlock(&f->write_lock);
}

/* ---- growth ---- */

struct bloom_scale_stage *bloom_store_add_stage(struct bloom_store *s,
						const struct bloom_geometry *geo)
{
	struct bloom_stage_mem *sm;
	u64 bytes, mem;

	bytes = bloom_core_storage_bytes(geo) + BLOOM_CORE_ALIGN;
	mem = bytes + sizeof(*sm);
	if (bloom_memory_reserve(mem))
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
	bloom_memory_release(mem);
	return ERR_PTR(-ENOMEM);
}

int bloom_store_grow(struct bloom_store *s)
{
	struct bloom_geometry geo;

	if (!bloom_scale_full(&s->core))
		return 0;	/* another adder grew it meanwhile */
	/* no more stages, or one over the capacity, bits or rate limits */
	if (bloom_scale_next_geometry(&s->core, &geo))
		return -ENOSPC;
	return PTR_ERR_OR_ZERO(bloom_store_add_stage(s, &geo));
}

int bloom_scale_grow(struct bloom_filter *f)
{
	struct bloom_store *s;
	int ret;

	if (mutex_lock_killable(&f->write_lock))
		return -EINTR;
	s = bloom_filter_store_locked(f);
	ret = -ESTALE;
	if (s) {
		/* a replace may have published a store that does not grow */
		ret = bloom_core_is_scalable(&s->core) ? bloom_store_grow(s) : 0;
		bloom_scale_sysfs_sync(f);
	}
	mutex_unlock(&f->write_lock);
	return ret;
}

/* Frees the stages (their memory is in s->memory_bytes: the caller's). */
void bloom_scale_free(struct bloom_store *s)
{
	struct bloom_stage_mem *sm;
	u32 i, n;

	if (!bloom_core_is_scalable(&s->core))
		return;
	n = bloom_scale_stages(&s->core);
	for (i = 0; i < n; i++) {
		sm = to_stage_mem(bloom_scale_stage(&s->core, i));
		bloom_kvfree(sm->storage);
		bloom_kfree(sm);
	}
	s->scale.nstages = 0;
}

int bloom_scale_fill_stages(struct bloom_filter *f, struct bloom_stages *arg)
{
	struct bloom_stage __user *ust = u64_to_user_ptr(arg->stages);
	const struct bloom_scale_stage *st;
	struct bloom_stage *out;
	struct bloom_store *s;
	u32 i, n, copy;
	int ret = 0;

	/* filled under RCU, copied out after it */
	out = bloom_kzalloc(sizeof(*out) * BLOOM_SCALE_STAGES_MAX, GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	rcu_read_lock();
	s = bloom_filter_store(f);
	if (!s || !bloom_core_is_scalable(&s->core)) {
		rcu_read_unlock();
		ret = s ? -EOPNOTSUPP : -ESTALE;
		goto out;
	}
	n = bloom_scale_stages(&s->core);
	for (i = 0; i < n; i++) {
		st = bloom_scale_stage(&s->core, i);
		out[i].capacity = st->core.geo.capacity;
		out[i].bits = st->core.geo.bits;
		out[i].count = READ_ONCE(st->count);
		out[i].bits_set = bloom_core_bits_set(&st->core);
		out[i].fpp_ppb = st->core.geo.fpp_ppb;
		out[i].hashes = st->core.geo.hashes;
		out[i].estimated_fpp_ppb = bloom_stage_est_fpp_ppb(st);
	}
	rcu_read_unlock();
	copy = min(n, arg->capacity);
	if (copy && copy_to_user(ust, out, sizeof(*out) * copy))
		ret = -EFAULT;
	arg->out_count = n;
out:
	bloom_kfree(out);
	return ret;
}
