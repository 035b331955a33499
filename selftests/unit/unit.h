/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What the unit test programs share: TAP output, timing, aligned zeroed
 * allocations, a filter with its storage, and deterministic test keys.
 */
#ifndef BLOOM_UNIT_H
#define BLOOM_UNIT_H

#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <linux/bloom.h>	/* BLOOM_TYPE_NAMES */

#include "core.h"

/* A type's name, from the ABI's one table (the core's types are its values). */
static inline const char *tname(u32 type)
{
	static const char *const names[] = BLOOM_TYPE_NAMES;

	return type < sizeof(names) / sizeof(names[0]) && names[type] ?
	       names[type] : "?";
}

static int test_no, test_failed;

static inline void __attribute__((format(printf, 2, 3)))
check(bool ok, const char *fmt, ...)
{
	va_list ap;

	test_no++;
	if (!ok)
		test_failed++;
	printf("%s %d - ", ok ? "ok" : "not ok", test_no);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline void *xalloc(u64 bytes)
{
	void *p = aligned_alloc(BLOOM_CORE_ALIGN, bytes);

	if (!p) {
		printf("Bail out! out of memory (%llu bytes)\n",
		       (unsigned long long)bytes);
		exit(1);
	}
	memset(p, 0, bytes);
	return p;
}

static const u8 test_key[16] = {
	0x42, 0x6c, 0x6f, 0x6f, 0x6d, 0x20, 0x74, 0x65,
	0x73, 0x74, 0x20, 0x6b, 0x65, 0x79, 0x21, 0x0a,
};

struct filter {
	struct bloom_core core;
	void *mem;
	u64 bytes;
};

static inline int filter_new(struct filter *f, u32 type, u64 n, u32 ppb)
{
	struct bloom_geometry g;
	bloom_hash_key_t k;
	int err = bloom_geometry_size(type, n, ppb, &g);

	if (err)
		return err;
	bloom_hash_key_from_bytes(&k, test_key);
	f->bytes = bloom_core_storage_bytes(&g);
	f->mem = xalloc(f->bytes);
	bloom_core_init(&f->core, &g, &k, f->mem);
	return 0;
}

static inline void filter_free(struct filter *f)
{
	free(f->mem);
	f->mem = NULL;
}

/*
 * splitmix64: independent uniform 64-bit values, standing for the SipHash
 * values of distinct keys under a random secret (a PRF). rng_seed() seeds
 * it from environment variable @env, else the time, and prints the seed
 * as a TAP comment so that a run can be repeated.
 */
static inline u64 *rng_state(void)
{
	static u64 state;

	return &state;
}

static inline u64 rng(void)
{
	u64 z = (*rng_state() += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline void rng_seed(const char *env)
{
	const char *s = getenv(env);

	*rng_state() = s ? strtoull(s, NULL, 0) : (u64)time(NULL);
	printf("# %s=%llu\n", env, (unsigned long long)*rng_state());
}

/* Key i: 12 bytes, a tag and the little-endian index. */
static inline u64 key_hash(const struct bloom_core *c, u32 tag, u64 i)
{
	u8 b[12];
	int j;

	for (j = 0; j < 4; j++)
		b[j] = (u8)(tag >> (8 * j));
	for (j = 0; j < 8; j++)
		b[4 + j] = (u8)(i >> (8 * j));
	return bloom_core_hash(c, b, sizeof(b));
}

/*
 * d-left cell @i of storage @mem for @w-bit cells, read by hand from the
 * layout Documentation/snapshot.rst gives: floor(64 / w) cells per
 * little-endian u64 word, cell i at bit (i % (64 / w)) * w of word
 * i / (64 / w); its low 2 bits the counter. Independent of dleft.c.
 */
static inline u64 dl_cell_of(const void *mem, u32 w, u64 i)
{
	const u8 *b = mem;
	u64 per = 64 / w, wi = i / per, v = 0;
	u32 shift = (u32)(i % per) * w;
	int j;

	for (j = 7; j >= 0; j--)
		v = v << 8 | b[wi * 8 + j];
	v >>= shift;
	return w == 64 ? v : v & ((1ULL << w) - 1);
}

static inline u64 dl_cell(const struct filter *f, u64 i)
{
	return dl_cell_of(f->mem, f->core.geo.cell_bits, i);
}

#endif /* BLOOM_UNIT_H */
