/* SPDX-License-Identifier: GPL-2.0 */
/*
 * FLOOR, not a filter: what any filter that touches one cache line per key
 * must at least pay. Per key, the same keyed hash, then one read (query) or
 * one plain read-modify-write (add) of a single word in a random 64-byte line
 * of an array as big as our blocked filter; the line is chosen by
 * multiply-shift, as the blocked filter picks its block. The batch functions
 * prefetch BENCH_FLOOR_AHEAD keys ahead, as the core's do.
 */
#ifndef BENCH_FLOOR_H
#define BENCH_FLOOR_H

#include <stdbool.h>
#include <stdint.h>

struct floor_arr {
	uint64_t *words;
	uint64_t lines;
};

int floor_init(struct floor_arr *f, uint64_t bytes);
void floor_free(struct floor_arr *f);
void floor_clear(struct floor_arr *f);
uint64_t floor_bytes(const struct floor_arr *f);

bool floor_add(struct floor_arr *f, uint64_t h);
bool floor_query(const struct floor_arr *f, uint64_t h);
uint32_t floor_add_batch(struct floor_arr *f, const uint64_t *h, uint32_t n,
			 uint8_t *results);
uint32_t floor_query_batch(const struct floor_arr *f, const uint64_t *h,
			   uint32_t n, uint8_t *results);

#endif /* BENCH_FLOOR_H */
