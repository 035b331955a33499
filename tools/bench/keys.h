/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Benchmark keys: 16 bytes, computed from (set, index) instead of stored.
 * The out-of-cache filter holds hundreds of millions of keys; storing them
 * would take gigabytes on a shared machine, while computing one costs about
 * a nanosecond (measured and reported as "keygen"), the same for every
 * variant compared. Word 1 carries the set in its top bit, so a key of the
 * "absent" set can never equal a key of the "present" set: the false-positive
 * rate is measured on keys that were certainly never added.
 */
#ifndef BENCH_KEYS_H
#define BENCH_KEYS_H

#include <stdint.h>

#define BENCH_KEY_LEN	16

enum bench_set {
	BENCH_PRESENT = 0,	/* keys that are added */
	BENCH_ABSENT = 1,	/* keys that never are */
};

struct bench_key {
	uint64_t w[2];
};

/* splitmix64's finaliser: consecutive indexes give unrelated bytes. */
static inline uint64_t bench_mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static inline void bench_key(enum bench_set set, uint64_t i,
			     struct bench_key *k)
{
	uint64_t tagged = i | ((uint64_t)set << 63);

	k->w[0] = bench_mix64(tagged + 0x9e3779b97f4a7c15ULL);
	k->w[1] = tagged;
}

#endif /* BENCH_KEYS_H */
