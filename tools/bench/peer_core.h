/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The C side of bench-peer (peer.cpp): our filters through the core's API
 * (libbloomcore.a), the floor and the keyed hash, behind plain functions a
 * C++ program can call (the core's headers are C only). The loops live
 * here, in C, so that a key costs one call of the core's API, as it does
 * for any user of the core.
 */
#ifndef BENCH_PEER_CORE_H
#define BENCH_PEER_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct peer_core;

/* @type: enum bloom_type (1 standard, 2 blocked, ...); NULL on failure. */
struct peer_core *peer_core_new(uint32_t type, uint64_t capacity, double p);
void peer_core_free(struct peer_core *c);
void peer_core_clear(struct peer_core *c);
uint64_t peer_core_bits(const struct peer_core *c);
uint64_t peer_core_bytes(const struct peer_core *c);
uint32_t peer_core_hashes(const struct peer_core *c);
const char *peer_core_type_name(uint32_t type);

/* Batches of @batch (<= BLOOM_BATCH_MAX_KEYS) keys through bloom_core_add_batch()/query_batch(). */
uint64_t peer_core_add_batch(struct peer_core *c, const uint64_t *h,
			     uint64_t n, uint32_t batch);
uint64_t peer_core_query_batch(const struct peer_core *c, const uint64_t *h,
			       uint64_t n, uint32_t batch);
/* One key a call: bloom_core_add_hash()/query_hash(). */
uint64_t peer_core_add_single(struct peer_core *c, const uint64_t *h,
			      uint64_t n);
uint64_t peer_core_query_single(const struct peer_core *c, const uint64_t *h,
				uint64_t n);
/*
 * One key a call, hash included: key i of @set (keys.h) from @first on,
 * hashed by bloom_core_hash(), then added or queried.
 */
uint64_t peer_core_add_keys(struct peer_core *c, int set, uint64_t first,
			    uint64_t n);
uint64_t peer_core_query_keys(const struct peer_core *c, int set,
			      uint64_t first, uint64_t n);
/* The core's keyed hash of key i of @set, with the bench's fixed key. */
uint64_t peer_core_key_hash(int set, uint64_t i);

#ifdef __cplusplus
}
#endif

#endif /* BENCH_PEER_CORE_H */
