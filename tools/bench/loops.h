/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The timed loops of the native benchmark. What one key costs, in every
 * mode: computing the key from its index (keys.h), the keyed hash, and the
 * filter operation.
 *  single: per key, hash then add/query it (bloom_core_add_hash/query_hash);
 *  batch:  per chunk of BENCH_CHUNK keys, hash them all into an array, then
 *          one add/query batch call over the hashes with a results bitmap,
 *          as the module's ioctl does (the core's batches prefetch).
 */
#ifndef BENCH_LOOPS_H
#define BENCH_LOOPS_H

#include <stdint.h>
#include "keys.h"
#include "target.h"

#define BENCH_CHUNK	4096

enum bench_op { OP_ADD, OP_QUERY };
enum bench_mode { MODE_SINGLE, MODE_BATCH };

struct bench_run {
	uint64_t hits;	/* add: keys already present; query: may be present */
	uint64_t ns;	/* wall time of the whole loop */
};

struct bench_run bench_loop(const struct target *t, enum bench_op op,
			    enum bench_mode mode, enum bench_set set,
			    uint64_t first, uint64_t count);

/* Reference loops: computing keys only, and keys plus the hash. */
uint64_t bench_loop_keygen_ns(uint64_t count);
uint64_t bench_loop_hash_ns(const struct target *t, uint64_t count);

#endif /* BENCH_LOOPS_H */
