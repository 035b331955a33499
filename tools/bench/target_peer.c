// SPDX-License-Identifier: GPL-2.0
/*
 * The baseline and the floor behind struct target. Both hash keys with the
 * core's own bloom_core_hash() (SipHash-2-4 under the same secret), called
 * exactly as our filters call it: the comparison is about what happens after
 * the hash, never about two different hash implementations. Only the hash
 * key of their struct bloom_core is used; it has no bit array.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "baseline.h"
#include "core.h"
#include "floor.h"
#include "target.h"

struct peer_baseline {
	struct baseline b;
	struct bloom_core hasher;
};

struct peer_floor {
	struct floor_arr f;
	struct bloom_core hasher;
};

static uint64_t pb_hash(const void *obj, const void *key, size_t len)
{
	return bloom_core_hash(&((const struct peer_baseline *)obj)->hasher, key,
			       len);
}

static bool pb_add(void *obj, uint64_t h)
{
	return baseline_add(&((struct peer_baseline *)obj)->b, h);
}

static bool pb_query(const void *obj, uint64_t h)
{
	return baseline_query(&((const struct peer_baseline *)obj)->b, h);
}

static uint32_t pb_add_batch(void *obj, const uint64_t *h, uint32_t n,
			     uint8_t *results)
{
	return baseline_add_batch(&((struct peer_baseline *)obj)->b, h, n,
				  results);
}

static uint32_t pb_query_batch(const void *obj, const uint64_t *h, uint32_t n,
			       uint8_t *results)
{
	return baseline_query_batch(&((const struct peer_baseline *)obj)->b, h,
				    n, results);
}

static void pb_clear(void *obj)
{
	baseline_clear(&((struct peer_baseline *)obj)->b);
}

static void pb_destroy(struct target *t)
{
	struct peer_baseline *p = t->obj;

	baseline_free(&p->b);
	free(p);
}

int target_baseline_init(struct target *t, uint64_t bits, uint32_t hashes,
			 const uint8_t key[BENCH_HASH_KEY_LEN])
{
	struct peer_baseline *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	if (baseline_init(&p->b, bits, hashes)) {
		free(p);
		return -ENOMEM;
	}
	bloom_hash_key_from_bytes(&p->hasher.key, key);
	*t = (struct target){
		.name = "baseline", .obj = p, .bytes = baseline_bytes(&p->b),
		.bits = bits, .hashes = hashes, .is_filter = true,
		.hash = pb_hash, .add = pb_add, .query = pb_query,
		.add_batch = pb_add_batch, .query_batch = pb_query_batch,
		.clear = pb_clear, .destroy = pb_destroy,
	};
	return 0;
}

static uint64_t pf_hash(const void *obj, const void *key, size_t len)
{
	return bloom_core_hash(&((const struct peer_floor *)obj)->hasher, key, len);
}

static bool pf_add(void *obj, uint64_t h)
{
	return floor_add(&((struct peer_floor *)obj)->f, h);
}

static bool pf_query(const void *obj, uint64_t h)
{
	return floor_query(&((const struct peer_floor *)obj)->f, h);
}

static uint32_t pf_add_batch(void *obj, const uint64_t *h, uint32_t n,
			     uint8_t *results)
{
	return floor_add_batch(&((struct peer_floor *)obj)->f, h, n, results);
}

static uint32_t pf_query_batch(const void *obj, const uint64_t *h, uint32_t n,
			       uint8_t *results)
{
	return floor_query_batch(&((const struct peer_floor *)obj)->f, h, n,
				 results);
}

static void pf_clear(void *obj)
{
	floor_clear(&((struct peer_floor *)obj)->f);
}

static void pf_destroy(struct target *t)
{
	struct peer_floor *p = t->obj;

	floor_free(&p->f);
	free(p);
}

int target_floor_init(struct target *t, uint64_t bytes,
		      const uint8_t key[BENCH_HASH_KEY_LEN])
{
	struct peer_floor *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	if (floor_init(&p->f, bytes)) {
		free(p);
		return -ENOMEM;
	}
	bloom_hash_key_from_bytes(&p->hasher.key, key);
	*t = (struct target){
		.name = "floor", .obj = p, .bytes = floor_bytes(&p->f),
		.bits = floor_bytes(&p->f) * 8, .hashes = 1, .is_filter = false,
		.hash = pf_hash, .add = pf_add, .query = pf_query,
		.add_batch = pf_add_batch, .query_batch = pf_query_batch,
		.clear = pf_clear, .destroy = pf_destroy,
	};
	return 0;
}
