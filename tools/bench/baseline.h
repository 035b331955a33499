/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BASELINE, not our filter: the classic Bloom filter of the peers, as
 * jvirkki/libbloom (and RedisBloom's fork of it) and Guava build it. k probes
 * anywhere in one flat bit array, probe i at (a + i * b) % m where a and b
 * are the two 32-bit halves of the key's hash (Kirsch-Mitzenmacher double
 * hashing, one 64-bit division per probe), non-atomic bit sets, and a query
 * that stops at the first clear bit. No blocking, no prefetch: the peers
 * have neither. The benchmark gives it the geometry (m, k) of our standard
 * filter and the same keyed SipHash, so that only the probing differs.
 */
#ifndef BENCH_BASELINE_H
#define BENCH_BASELINE_H

#include <stdbool.h>
#include <stdint.h>

struct baseline {
	uint64_t *words;
	uint64_t bits;	/* m */
	uint32_t hashes;	/* k */
};

/* 0, or -1 when the memory cannot be had. */
int baseline_init(struct baseline *b, uint64_t bits, uint32_t hashes);
void baseline_free(struct baseline *b);
void baseline_clear(struct baseline *b);
uint64_t baseline_bytes(const struct baseline *b);

/* true when every bit was set already, as libbloom's bloom_add() reports. */
bool baseline_add(struct baseline *b, uint64_t h);
bool baseline_query(const struct baseline *b, uint64_t h);

/* The same over many hashes, one after the other; results as the core's. */
uint32_t baseline_add_batch(struct baseline *b, const uint64_t *h, uint32_t n,
			    uint8_t *results);
uint32_t baseline_query_batch(const struct baseline *b, const uint64_t *h,
			      uint32_t n, uint8_t *results);

#endif /* BENCH_BASELINE_H */
