// SPDX-License-Identifier: GPL-2.0
/* The classic k-probe Bloom filter of libbloom and Guava (see baseline.h). */
#include <string.h>
#include "baseline.h"
#include "mem.h"

int baseline_init(struct baseline *b, uint64_t bits, uint32_t hashes)
{
	b->bits = bits;
	b->hashes = hashes;
	b->words = bench_alloc(baseline_bytes(b));
	return b->words ? 0 : -1;
}

void baseline_free(struct baseline *b)
{
	bench_free(b->words, baseline_bytes(b));
	b->words = NULL;
}

uint64_t baseline_bytes(const struct baseline *b)
{
	/* Whole cache lines, like the other variants, so sizes compare. */
	return (b->bits + 511) / 512 * 64;
}

void baseline_clear(struct baseline *b)
{
	memset(b->words, 0, baseline_bytes(b));
}

static inline bool baseline_add_one(struct baseline *b, uint64_t h)
{
	uint64_t a = (uint32_t)h, step = h >> 32;
	bool all = true;
	uint32_t i;

	for (i = 0; i < b->hashes; i++) {
		uint64_t x = (a + i * step) % b->bits;
		uint64_t bit = 1ULL << (x & 63);

		if (!(b->words[x >> 6] & bit)) {
			all = false;
			b->words[x >> 6] |= bit;
		}
	}
	return all;
}

static inline bool baseline_query_one(const struct baseline *b, uint64_t h)
{
	uint64_t a = (uint32_t)h, step = h >> 32;
	uint32_t i;

	for (i = 0; i < b->hashes; i++) {
		uint64_t x = (a + i * step) % b->bits;

		if (!(b->words[x >> 6] & (1ULL << (x & 63))))
			return false;
	}
	return true;
}

bool baseline_add(struct baseline *b, uint64_t h)
{
	return baseline_add_one(b, h);
}

bool baseline_query(const struct baseline *b, uint64_t h)
{
	return baseline_query_one(b, h);
}

uint32_t baseline_add_batch(struct baseline *b, const uint64_t *h, uint32_t n,
			    uint8_t *results)
{
	uint32_t i, hits = 0;

	if (results)
		memset(results, 0, (n + 7) / 8);
	for (i = 0; i < n; i++) {
		if (baseline_add_one(b, h[i])) {
			hits++;
			if (results)
				results[i / 8] |= 1U << (i % 8);
		}
	}
	return hits;
}

uint32_t baseline_query_batch(const struct baseline *b, const uint64_t *h,
			      uint32_t n, uint8_t *results)
{
	uint32_t i, hits = 0;

	if (results)
		memset(results, 0, (n + 7) / 8);
	for (i = 0; i < n; i++) {
		if (baseline_query_one(b, h[i])) {
			hits++;
			if (results)
				results[i / 8] |= 1U << (i % 8);
		}
	}
	return hits;
}
