// SPDX-License-Identifier: GPL-2.0
/* The one-cache-line-per-key floor (see floor.h). */
#include <string.h>
#include "core.h"
#include "floor.h"
#include "mem.h"

/*
 * How many keys ahead the batches prefetch: the core's distance, from its
 * API header, or the floor would be batched differently from what it bounds.
 */
#define BENCH_FLOOR_AHEAD	BLOOM_PREFETCH_AHEAD

int floor_init(struct floor_arr *f, uint64_t bytes)
{
	f->lines = bytes / 64;
	f->words = bench_alloc(f->lines * 64);
	return f->words ? 0 : -1;
}

void floor_free(struct floor_arr *f)
{
	bench_free(f->words, floor_bytes(f));
	f->words = NULL;
}

uint64_t floor_bytes(const struct floor_arr *f)
{
	return f->lines * 64;
}

void floor_clear(struct floor_arr *f)
{
	memset(f->words, 0, floor_bytes(f));
}

/* The word of the key's line: line by multiply-shift, word and bit by h. */
static inline uint64_t *floor_word(const struct floor_arr *f, uint64_t h)
{
	uint64_t line = (uint64_t)(((unsigned __int128)h * f->lines) >> 64);

	return f->words + line * 8 + ((h >> 6) & 7);
}

static inline bool floor_add_one(struct floor_arr *f, uint64_t h)
{
	uint64_t *w = floor_word(f, h), bit = 1ULL << (h & 63);
	bool was = *w & bit;

	*w |= bit;
	return was;
}

static inline bool floor_query_one(const struct floor_arr *f, uint64_t h)
{
	return *floor_word(f, h) & (1ULL << (h & 63));
}

bool floor_add(struct floor_arr *f, uint64_t h)
{
	return floor_add_one(f, h);
}

bool floor_query(const struct floor_arr *f, uint64_t h)
{
	return floor_query_one(f, h);
}

uint32_t floor_add_batch(struct floor_arr *f, const uint64_t *h, uint32_t n,
			 uint8_t *results)
{
	uint32_t i, hits = 0;

	if (results)
		memset(results, 0, (n + 7) / 8);
	for (i = 0; i < n; i++) {
		if (i + BENCH_FLOOR_AHEAD < n)
			__builtin_prefetch(floor_word(f, h[i + BENCH_FLOOR_AHEAD]), 1);
		if (floor_add_one(f, h[i])) {
			hits++;
			if (results)
				results[i / 8] |= 1U << (i % 8);
		}
	}
	return hits;
}

uint32_t floor_query_batch(const struct floor_arr *f, const uint64_t *h,
			   uint32_t n, uint8_t *results)
{
	uint32_t i, hits = 0;

	if (results)
		memset(results, 0, (n + 7) / 8);
	for (i = 0; i < n; i++) {
		if (i + BENCH_FLOOR_AHEAD < n)
			__builtin_prefetch(floor_word(f, h[i + BENCH_FLOOR_AHEAD]));
		if (floor_query_one(f, h[i])) {
			hits++;
			if (results)
				results[i / 8] |= 1U << (i % 8);
		}
	}
	return hits;
}
