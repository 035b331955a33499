// SPDX-License-Identifier: GPL-2.0
/* See peer_core.h. */
#include <stdlib.h>
#include <string.h>
#include <linux/bloom.h>	/* BLOOM_TYPE_NAMES */
#include "core.h"
#include "keys.h"
#include "mem.h"
#include "peer_core.h"

static const char *const type_names[] = BLOOM_TYPE_NAMES;

/* The native benchmark's fixed SipHash key. */
static const uint8_t hash_key[BLOOM_CORE_HASH_KEY_LEN] = "bloom-bench-key";

struct peer_core {
	struct bloom_core core;
	struct bloom_geometry geo;
	void *storage;
	uint64_t bytes;
};

/* Only for hashing keys: a filter's hash needs its key, not its bits. */
static struct bloom_core hasher;
static bool hasher_ready;

struct peer_core *peer_core_new(uint32_t type, uint64_t capacity, double p)
{
	struct peer_core *c = calloc(1, sizeof(*c));
	bloom_hash_key_t hk;

	if (!c)
		return NULL;
	if (bloom_geometry_size(type, capacity, (uint32_t)(p * 1e9 + 0.5),
				&c->geo))
		goto fail;
	c->bytes = bloom_core_storage_bytes(&c->geo);
	c->storage = bench_alloc(c->bytes);
	if (!c->storage)
		goto fail;
	bloom_hash_key_from_bytes(&hk, hash_key);
	bloom_core_init(&c->core, &c->geo, &hk, c->storage);
	return c;
fail:
	free(c);
	return NULL;
}

void peer_core_free(struct peer_core *c)
{
	bench_free(c->storage, c->bytes);
	free(c);
}

void peer_core_clear(struct peer_core *c)
{
	bloom_hash_key_t hk = c->core.key;

	memset(c->storage, 0, c->bytes);
	bloom_core_init(&c->core, &c->geo, &hk, c->storage);
}

uint64_t peer_core_bits(const struct peer_core *c)
{
	return c->geo.bits;
}

uint64_t peer_core_bytes(const struct peer_core *c)
{
	return c->bytes;
}

uint32_t peer_core_hashes(const struct peer_core *c)
{
	return c->geo.hashes;
}

const char *peer_core_type_name(uint32_t type)
{
	return type < sizeof(type_names) / sizeof(type_names[0]) &&
	       type_names[type] ? type_names[type] : "?";
}

uint64_t peer_core_add_batch(struct peer_core *c, const uint64_t *h,
			     uint64_t n, uint32_t batch)
{
	uint8_t results[BLOOM_BATCH_MAX_KEYS / 8];
	uint64_t i, hits = 0;
	int r;

	for (i = 0; i < n; i += batch) {
		uint32_t m = n - i < batch ? (uint32_t)(n - i) : batch;

		r = bloom_core_add_batch(&c->core, h + i, m, results);
		hits += r > 0 ? (uint64_t)r : 0;
	}
	return hits;
}

uint64_t peer_core_query_batch(const struct peer_core *c, const uint64_t *h,
			       uint64_t n, uint32_t batch)
{
	uint8_t results[BLOOM_BATCH_MAX_KEYS / 8];
	uint64_t i, hits = 0;

	for (i = 0; i < n; i += batch) {
		uint32_t m = n - i < batch ? (uint32_t)(n - i) : batch;

		hits += bloom_core_query_batch(&c->core, h + i, m, results);
	}
	return hits;
}

uint64_t peer_core_add_single(struct peer_core *c, const uint64_t *h,
			      uint64_t n)
{
	uint64_t i, hits = 0;

	for (i = 0; i < n; i++)
		hits += bloom_core_add_hash(&c->core, h[i]) > 0;
	return hits;
}

uint64_t peer_core_query_single(const struct peer_core *c, const uint64_t *h,
				uint64_t n)
{
	uint64_t i, hits = 0;

	for (i = 0; i < n; i++)
		hits += bloom_core_query_hash(&c->core, h[i]);
	return hits;
}

uint64_t peer_core_add_keys(struct peer_core *c, int set, uint64_t first,
			    uint64_t n)
{
	struct bench_key k;
	uint64_t i, hits = 0;

	for (i = first; i < first + n; i++) {
		bench_key(set, i, &k);
		hits += bloom_core_add_hash(&c->core,
				bloom_core_hash(&c->core, &k, sizeof(k))) > 0;
	}
	return hits;
}

uint64_t peer_core_query_keys(const struct peer_core *c, int set,
			      uint64_t first, uint64_t n)
{
	struct bench_key k;
	uint64_t i, hits = 0;

	for (i = first; i < first + n; i++) {
		bench_key(set, i, &k);
		hits += bloom_core_query_hash(&c->core,
				bloom_core_hash(&c->core, &k, sizeof(k)));
	}
	return hits;
}

uint64_t peer_core_key_hash(int set, uint64_t i)
{
	struct bench_key k;

	if (!hasher_ready) {
		bloom_hash_key_from_bytes(&hasher.key, hash_key);
		hasher_ready = true;
	}
	bench_key(set, i, &k);
	return bloom_core_hash(&hasher, &k, sizeof(k));
}
