// SPDX-License-Identifier: GPL-2.0
/*
 * bench-hash: what the keyed hash costs, per key length (4, 16, 64 bytes),
 * in userspace: the core's bloom_core_hash() (SipHash-2-4 through
 * libsodium, the userspace shim), the same SipHash-2-4 and SipHash-1-3
 * written as the kernel's lib/siphash.c computes them (the kernel's
 * siphash() and, on 64-bit machines, the core of hsiphash()), libsodium's
 * 128-bit SipHash-2-4 (siphashx24) and keyed BLAKE2b, and XXH3 with a seed
 * as a reference that is fast but is no PRF (its seed does not stop an
 * attacker who sees answers from choosing colliding keys). Prints JSON.
 * Every function is timed in turns over the same keys; median and minimum
 * of the rounds.
 *
 * usage: bench-hash [--count N] [--rounds R]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sodium.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "clock.h"
#include "core.h"
#include "json.h"
#include "opts.h"
#include "stats.h"

#define ROTL(x, b)	(u64)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND(v0, v1, v2, v3) do { \
	v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32); \
	v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2; \
	v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0; \
	v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32); \
} while (0)

static inline u64 le64(const u8 *p)
{
	u64 v;

	memcpy(&v, p, 8);	/* x86: little-endian, unaligned loads are fine */
	return v;
}

/* SipHash-c-d with a 64-bit result, as lib/siphash.c computes it. */
static inline u64 sip(const u64 key[2], const u8 *data, size_t len, int c,
		      int d)
{
	u64 v0 = 0x736f6d6570736575ULL ^ key[0];
	u64 v1 = 0x646f72616e646f6dULL ^ key[1];
	u64 v2 = 0x6c7967656e657261ULL ^ key[0];
	u64 v3 = 0x7465646279746573ULL ^ key[1];
	u64 b = (u64)len << 56, m;
	const u8 *end = data + len - len % 8;
	int i;

	for (; data != end; data += 8) {
		m = le64(data);
		v3 ^= m;
		for (i = 0; i < c; i++)
			SIPROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	for (i = len % 8 - 1; i >= 0; i--)
		b |= (u64)data[i] << (8 * i);
	v3 ^= b;
	for (i = 0; i < c; i++)
		SIPROUND(v0, v1, v2, v3);
	v0 ^= b;
	v2 ^= 0xff;
	for (i = 0; i < d; i++)
		SIPROUND(v0, v1, v2, v3);
	return (v0 ^ v1) ^ (v2 ^ v3);
}

static const u8 key_bytes[16] = "bloom-bench-key";
static u64 key[2];
static struct bloom_core core;	/* only its hash key is used */

static u64 h_core(const u8 *p, size_t n)
{
	return bloom_core_hash(&core, p, n);
}

static u64 h_sip24(const u8 *p, size_t n)
{
	return sip(key, p, n, 2, 4);
}

static u64 h_sip13(const u8 *p, size_t n)
{
	return sip(key, p, n, 1, 3);
}

static u64 h_sipx24(const u8 *p, size_t n)
{
	u64 out[2];

	crypto_shorthash_siphashx24((unsigned char *)out, p, n, key_bytes);
	return out[0];
}

static u64 h_blake2b(const u8 *p, size_t n)
{
	u64 out[2];	/* crypto_generichash_BYTES_MIN: 16 */

	crypto_generichash((unsigned char *)out, sizeof(out), p, n, key_bytes,
			   sizeof(key_bytes));
	return out[0];
}

static u64 h_xxh3(const u8 *p, size_t n)
{
	return XXH3_64bits_withSeed(p, n, key[0]);
}

static const struct {
	const char *name;
	u64 (*fn)(const u8 *p, size_t n);
} fns[] = {
	{ "core SipHash-2-4 (libsodium)", h_core },
	{ "SipHash-2-4 (kernel's C)", h_sip24 },
	{ "SipHash-1-3 (kernel's C)", h_sip13 },
	{ "SipHash-2-4 128-bit (libsodium siphashx24)", h_sipx24 },
	{ "BLAKE2b keyed (libsodium generichash)", h_blake2b },
	{ "XXH3-64 seeded (no PRF)", h_xxh3 },
};

#define NFNS	(sizeof(fns) / sizeof(fns[0]))
#define NLENS	3

static const size_t lens[NLENS] = { 4, 16, 64 };

int main(int argc, char **argv)
{
	static const char usage[] = "bench-hash [--count N] [--rounds R]";
	static struct bench_stat st[NFNS][NLENS];
	uint64_t count = 2000000, i, t0;
	volatile u64 sink = 0;
	uint32_t rounds = 9, r, f, l, j;
	const struct bench_opt opts[] = {
		{ "count", BENCH_OPT_U64, &count },
		{ "rounds", BENCH_OPT_U32, &rounds },
	};
	u8 *buf;

	if (bench_opts_parse(argc, argv, opts, BENCH_NOPTS(opts), usage,
			     NULL) != argc)
		bench_usage(usage);
	if (sodium_init() < 0 || count < 1000 || count > 100000000 ||
	    rounds < 1 || rounds > BENCH_MAX_SAMPLES) {
		fprintf(stderr, "bench-hash: count 1000..1e8, rounds 1..%d\n",
			BENCH_MAX_SAMPLES);
		return 2;
	}
	bloom_hash_key_from_bytes(&core.key, key_bytes);
	key[0] = core.key.key[0];
	key[1] = core.key.key[1];
	/* 64 KiB of random bytes: keys at successive offsets stay in cache */
	buf = malloc(65536 + 64);
	if (!buf)
		return 1;
	randombytes_buf(buf, 65536 + 64);
	for (l = 0; l < NLENS; l++)
		for (i = 0; i < 1000; i++)
			if (h_sip24(buf + i, lens[l]) != h_core(buf + i, lens[l])) {
				fprintf(stderr, "bench-hash: SipHash-2-4 differs from the core's\n");
				return 1;
			}
	for (r = 0; r < rounds; r++)
		for (l = 0; l < NLENS; l++)
			for (j = 0; j < NFNS; j++) {
				f = (j + r) % NFNS;
				t0 = bench_now_ns();
				for (i = 0; i < count; i++)
					sink += fns[f].fn(buf + (i & 65535),
							  lens[l]);
				bench_stat_add(&st[f][l],
					       (double)(bench_now_ns() - t0) /
					       (double)count);
			}
	json_obj(stdout, NULL);
	json_u64(stdout, "count", count);
	json_u64(stdout, "rounds", rounds);
	json_arr(stdout, "hashes");
	for (f = 0; f < NFNS; f++) {
		json_obj(stdout, NULL);
		json_str(stdout, "name", fns[f].name);
		json_obj(stdout, "ns_per_key");
		for (l = 0; l < NLENS; l++) {
			char k[8];

			snprintf(k, sizeof(k), "%zu", lens[l]);
			json_obj(stdout, k);
			json_num(stdout, "median", bench_stat_median(&st[f][l]));
			json_num(stdout, "min", bench_stat_min(&st[f][l]));
			json_end(stdout);
		}
		json_end(stdout);
		json_end(stdout);
	}
	json_end(stdout);
	json_end(stdout);
	return 0;
}
