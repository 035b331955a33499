/* SPDX-License-Identifier: GPL-2.0 */
/* Scalable filters in the module: stages, growth, their sysfs (scale.c). */
#ifndef BLOOM_SCALE_H
#define BLOOM_SCALE_H

#include <linux/bloom.h>

#include "core.h"

struct bloom_filter;
struct bloom_store;

/* Checks the scalable part of a create request: 0 or a negative errno. */
int bloom_scale_create_params(const struct bloom_create *arg,
			      struct bloom_scale_params *p);

/*
 * Allocates and publishes the next stage of @s if its newest is full (or it
 * has none): 0 (also when another adder grew it meanwhile), -ENOSPC (no
 * further stage possible), -EDQUOT (max_memory), -ENOMEM. The caller holds
 * the filter's write_lock, or @s is not published yet. Sleeps.
 */
int bloom_store_grow(struct bloom_store *s);

/*
 * Allocates a stage of @geo (zeroed) and publishes it as @s's next stage,
 * counted in s->memory_bytes; the caller holds the filter's write_lock or
 * @s is not published yet, and has checked that @s may have it. The stage,
 * or ERR_PTR(-EDQUOT) (max_memory), ERR_PTR(-ENOMEM). Sleeps.
 */
struct bloom_scale_stage *bloom_store_add_stage(struct bloom_store *s,
						const struct bloom_geometry *geo);

/*
 * bloom_store_grow() on @f's store published now, under its write_lock:
 * also -ESTALE (destroyed), -EINTR. Called outside RCU. Sleeps.
 */
int bloom_scale_grow(struct bloom_filter *f);

/* Frees the stages of @s, with the store (nothing for other stores). */
void bloom_scale_free(struct bloom_store *s);

/* stages/ in the filter's sysfs directory: after it is added, before it goes. */
int bloom_scale_sysfs_add(struct bloom_filter *f);
void bloom_scale_sysfs_del(struct bloom_filter *f);

/*
 * Under @f's write_lock: a stages/<i>/ directory for every stage of the
 * store published now (after growth, a swap or a replace); nothing for a
 * filter that is not scalable or not in sysfs.
 */
void bloom_scale_sysfs_sync(struct bloom_filter *f);

/*
 * BLOOM_IOC_STAGES: -EOPNOTSUPP for a filter that is not scalable, -ESTALE
 * once destroyed.
 */
int bloom_scale_fill_stages(struct bloom_filter *f, struct bloom_stages *arg);

#endif /* BLOOM_SCALE_H */
