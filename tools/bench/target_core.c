// SPDX-License-Identifier: GPL-2.0
/*
 * Our filters behind struct target: the core (module/core), compiled for
 * userspace as $(BUILD)/core/libbloomcore.a. Nothing of the filter is
 * re-implemented here; this file only allocates and forwards.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bloom.h>	/* BLOOM_TYPE_NAMES */
#include "core.h"
#include "mem.h"
#include "target.h"

/* The types' names: the ABI's one table (the core's types are its values). */
static const char *const type_names[] = BLOOM_TYPE_NAMES;

_Static_assert(BLOOM_CORE_HASH_KEY_LEN == BENCH_HASH_KEY_LEN,
	       "the core's hash key is the 16-byte SipHash key");

struct ours {
	struct bloom_core core;
	void *storage;
	uint64_t bytes;
};

static uint64_t o_hash(const void *obj, const void *key, size_t len)
{
	return bloom_core_hash(&((const struct ours *)obj)->core, key, len);
}

/* 1: every bit was set already; 0: added new; < 0 (d-left only): failed. */
static bool o_add(void *obj, uint64_t h)
{
	return bloom_core_add_hash(&((struct ours *)obj)->core, h) > 0;
}

static bool o_query(const void *obj, uint64_t h)
{
	return bloom_core_query_hash(&((const struct ours *)obj)->core, h);
}

static uint32_t o_add_batch(void *obj, const uint64_t *h, uint32_t n,
			    uint8_t *results)
{
	long ret = bloom_core_add_batch(&((struct ours *)obj)->core, h, n,
					results);

	/* Only a d-left filter can fail (-ENOSPC); none is measured here. */
	return ret < 0 ? 0 : (uint32_t)ret;
}

static uint32_t o_query_batch(const void *obj, const uint64_t *h, uint32_t n,
			      uint8_t *results)
{
	return bloom_core_query_batch(&((const struct ours *)obj)->core, h, n,
				      results);
}

static void o_clear(void *obj)
{
	struct ours *o = obj;

	memset(o->storage, 0, o->bytes);
}

static void o_destroy(struct target *t)
{
	struct ours *o = t->obj;

	bench_free(o->storage, o->bytes);
	free(o);
}

int target_core_init(struct target *t, uint32_t type, uint64_t capacity,
		     uint32_t fpp_ppb, const uint8_t key[BENCH_HASH_KEY_LEN])
{
	struct bloom_geometry geo;
	bloom_hash_key_t hk;
	struct ours *o;
	int ret;

	ret = bloom_geometry_size(type, capacity, fpp_ppb, &geo);
	if (ret)
		return ret;
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	o->bytes = bloom_core_storage_bytes(&geo);
	/* bench_alloc() is page-aligned, more than BLOOM_CORE_ALIGN. */
	o->storage = bench_alloc(o->bytes);
	if (!o->storage) {
		free(o);
		return -ENOMEM;
	}
	bloom_hash_key_from_bytes(&hk, key);
	bloom_core_init(&o->core, &geo, &hk, o->storage);
	*t = (struct target){
		.name = type < sizeof(type_names) / sizeof(type_names[0]) &&
			type_names[type] ? type_names[type] : "?",
		.type = type,
		.obj = o, .bytes = o->bytes, .bits = geo.bits,
		.hashes = geo.hashes, .is_filter = true,
		.hash = o_hash, .add = o_add, .query = o_query,
		.add_batch = o_add_batch, .query_batch = o_query_batch,
		.clear = o_clear, .destroy = o_destroy,
	};
	return 0;
}
