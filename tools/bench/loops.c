// SPDX-License-Identifier: GPL-2.0
/* The timed loops (see loops.h). */
#include "clock.h"
#include "loops.h"

/* Keeps results "used", so the compiler cannot drop a loop. */
static volatile uint64_t sink;

static uint64_t loop_single(const struct target *t, enum bench_op op,
			    enum bench_set set, uint64_t first, uint64_t count)
{
	struct bench_key k;
	uint64_t i, hits = 0;

	for (i = first; i < first + count; i++) {
		bench_key(set, i, &k);
		uint64_t h = t->hash(t->obj, &k, sizeof(k));

		hits += op == OP_ADD ? t->add(t->obj, h) : t->query(t->obj, h);
	}
	return hits;
}

static uint64_t loop_batch(const struct target *t, enum bench_op op,
			   enum bench_set set, uint64_t first, uint64_t count)
{
	static uint64_t hashes[BENCH_CHUNK];
	static uint8_t results[BENCH_CHUNK / 8];
	struct bench_key k;
	uint64_t i, hits = 0;

	for (i = first; i < first + count; ) {
		uint32_t n = first + count - i < BENCH_CHUNK ?
			     (uint32_t)(first + count - i) : BENCH_CHUNK;
		uint32_t j;

		for (j = 0; j < n; j++) {
			bench_key(set, i + j, &k);
			hashes[j] = t->hash(t->obj, &k, sizeof(k));
		}
		hits += op == OP_ADD ?
			t->add_batch(t->obj, hashes, n, results) :
			t->query_batch(t->obj, hashes, n, results);
		i += n;
	}
	return hits;
}

struct bench_run bench_loop(const struct target *t, enum bench_op op,
			    enum bench_mode mode, enum bench_set set,
			    uint64_t first, uint64_t count)
{
	struct bench_run r;
	uint64_t t0 = bench_now_ns();

	r.hits = mode == MODE_SINGLE ? loop_single(t, op, set, first, count) :
				       loop_batch(t, op, set, first, count);
	r.ns = bench_now_ns() - t0;
	sink += r.hits;
	return r;
}

uint64_t bench_loop_keygen_ns(uint64_t count)
{
	struct bench_key k;
	uint64_t i, acc = 0, t0 = bench_now_ns();

	for (i = 0; i < count; i++) {
		bench_key(BENCH_PRESENT, i, &k);
		/* Through memory, as the hash reads it. */
		__asm__ volatile("" : : "r"(&k) : "memory");
		acc += k.w[0];
	}
	sink += acc;
	return bench_now_ns() - t0;
}

uint64_t bench_loop_hash_ns(const struct target *t, uint64_t count)
{
	struct bench_key k;
	uint64_t i, acc = 0, t0 = bench_now_ns();

	for (i = 0; i < count; i++) {
		bench_key(BENCH_PRESENT, i, &k);
		acc += t->hash(t->obj, &k, sizeof(k));
	}
	sink += acc;
	return bench_now_ns() - t0;
}
