/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One variant under measurement: our standard or blocked filter (the core,
 * libbloomcore.a), the classic baseline, or the floor. The timing loops call
 * every variant through these pointers, so each pays the same call overhead
 * and the loops are written once.
 */
#ifndef BENCH_TARGET_H
#define BENCH_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BENCH_HASH_KEY_LEN	16

struct target {
	const char *name;	/* standard, blocked, baseline, floor */
	uint32_t type;		/* the core's filters: enum bloom_type; else 0 */
	void *obj;
	uint64_t bytes;		/* memory of the bit array */
	uint64_t bits;		/* m (floor: bytes * 8) */
	uint32_t hashes;	/* k (floor: 1) */
	bool is_filter;		/* false for the floor: no FPR to speak of */

	uint64_t (*hash)(const void *obj, const void *key, size_t len);
	bool (*add)(void *obj, uint64_t h);
	bool (*query)(const void *obj, uint64_t h);
	uint32_t (*add_batch)(void *obj, const uint64_t *h, uint32_t n,
			      uint8_t *results);
	uint32_t (*query_batch)(const void *obj, const uint64_t *h, uint32_t n,
				uint8_t *results);
	void (*clear)(void *obj);
	void (*destroy)(struct target *t);
};

/*
 * Each returns 0 or a negative errno. @type is BLOOM_CORE_STANDARD or
 * BLOOM_CORE_BLOCKED; the core sizes the filter from @capacity and @fpp_ppb.
 */
int target_core_init(struct target *t, uint32_t type, uint64_t capacity,
		     uint32_t fpp_ppb, const uint8_t key[BENCH_HASH_KEY_LEN]);
int target_baseline_init(struct target *t, uint64_t bits, uint32_t hashes,
			 const uint8_t key[BENCH_HASH_KEY_LEN]);
int target_floor_init(struct target *t, uint64_t bytes,
		      const uint8_t key[BENCH_HASH_KEY_LEN]);

#endif /* BENCH_TARGET_H */
