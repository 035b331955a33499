// SPDX-License-Identifier: GPL-2.0
/*
 * bench-bpfmap: bloom's address lookup against a model of the BPF Bloom
 * filter map's lookup, natively, where TCG cannot distort the ratio of
 * arithmetic to memory. Prints JSON on stdout, progress on stderr.
 *
 * The model is kernel/bpf/bloom_filter.c of Linux 6.1 for a 4-byte value:
 * k hashes, the i-th jhash2() of the value's one word with the seed
 * hash_seed + i, masked to a bit array of a power of two bits
 * ((n * k / 5 * 7) rounded up, at most 2^31), tested one by one until the
 * first clear bit. bloom's lookup is the one the kfunc and the iptables
 * match make (bloom_nb_query() of the core, libbloomcore.a: the keyed
 * SipHash of the address and the filter's test), on a blocked and a
 * standard filter sized for the map's rate.
 *
 * The same addresses for all: --count N listed (16.0.0.0 + i), looked up
 * listed and unlisted (64.0.0.0 + i), and --big N more for a filter out of
 * cache. Orders: "hot", 4,096 addresses again and again (their lines stay
 * in the nearest caches), and "scattered", addresses drawn at random from
 * the whole set. Variants take turns in every round; ns per lookup, median
 * and minimum of the rounds, including the loop that reads the address.
 *
 * usage: bench-bpfmap [--count N] [--big N] [--hashes K] [--rounds R]
 *                     [--sample S]
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clock.h"
#include "core.h"
#include "jhash.h"
#include "json.h"
#include "keys.h"
#include "mem.h"
#include "netblock.h"
#include "stats.h"

#define HOT		4096
#define LISTED_BASE	0x10000000u	/* 16.0.0.0 */
#define UNLISTED_BASE	0x40000000u	/* 64.0.0.0 */
#define MAP_SEED	0x5eed1234u	/* the map's hash_seed: any value */

static const uint8_t hash_key[BLOOM_CORE_HASH_KEY_LEN] = "bloom-bench-key";

struct bpf_map_model {
	unsigned long *bits;
	uint64_t bytes;
	uint32_t mask, hashes;
};

static void map_init(struct bpf_map_model *m, uint64_t n, uint32_t k)
{
	uint64_t nbits = n * k / 5 * 7, b = 64;

	while (b < nbits && b < (1ULL << 31))
		b <<= 1;
	m->bytes = b / 8;
	m->bits = bench_alloc(m->bytes);
	if (!m->bits) {
		fprintf(stderr, "bench-bpfmap: %llu bytes: %s\n",
			(unsigned long long)m->bytes, strerror(ENOMEM));
		exit(1);
	}
	m->mask = (uint32_t)(b - 1);
	m->hashes = k;
}

static void map_add(struct bpf_map_model *m, uint32_t v)
{
	uint32_t i, h;

	for (i = 0; i < m->hashes; i++) {
		h = jhash_1word(v, MAP_SEED + i) & m->mask;
		m->bits[h / 64] |= 1UL << (h % 64);
	}
}

static __attribute__((noinline)) bool map_lookup(const void *obj, uint32_t v)
{
	const struct bpf_map_model *m = obj;
	uint32_t i, h;

	for (i = 0; i < m->hashes; i++) {
		h = jhash_1word(v, MAP_SEED + i) & m->mask;
		if (!(m->bits[h / 64] & (1UL << (h % 64))))
			return false;
	}
	return true;
}

struct ours {
	struct bloom_core core;
	void *storage;
	uint64_t bytes;
};

static void ours_init(struct ours *o, uint32_t type, uint64_t n, double p)
{
	struct bloom_geometry geo;
	bloom_hash_key_t hk;
	uint32_t ppb = (uint32_t)ceil(p * 1e9);

	if (bloom_geometry_size(type, n, ppb ? ppb : 1, &geo)) {
		fprintf(stderr, "bench-bpfmap: no geometry for %llu keys\n",
			(unsigned long long)n);
		exit(1);
	}
	o->bytes = bloom_core_storage_bytes(&geo);
	o->storage = bench_alloc(o->bytes);
	if (!o->storage) {
		fprintf(stderr, "bench-bpfmap: %llu bytes: %s\n",
			(unsigned long long)o->bytes, strerror(ENOMEM));
		exit(1);
	}
	bloom_hash_key_from_bytes(&hk, hash_key);
	bloom_core_init(&o->core, &geo, &hk, o->storage);
}

static void ours_add(struct ours *o, uint32_t v)
{
	bloom_core_add_hash(&o->core, bloom_core_hash(&o->core, &v, 4));
}

static __attribute__((noinline)) bool ours_lookup(const void *obj, uint32_t v)
{
	const struct ours *o = obj;

	return bloom_nb_query(&o->core, NULL, BLOOM_NB_IPV4, (const u8 *)&v,
			      32);
}

/* An address in network byte order, as a packet holds it. */
static inline uint32_t addr(uint32_t base, uint64_t i)
{
	return __builtin_bswap32(base + (uint32_t)i);
}

enum { V_MAP, V_BLOCKED, V_STANDARD, NVARIANTS };
static const char *const vnames[NVARIANTS] = {
	"bpf_bloom_map_model", "bloom_blocked", "bloom_standard",
};
enum { O_HOT, O_SCATTERED, NORDERS };
static const char *const onames[NORDERS] = { "hot", "scattered" };

struct variant {
	bool (*lookup)(const void *obj, uint32_t v);
	const void *obj;
	uint64_t bytes;
};

/* ns per lookup of @seq[0..@n) by @v; *@hits counted. */
static double timed(const struct variant *v, const uint32_t *seq, size_t n,
		    uint64_t *hits)
{
	uint64_t t0 = bench_now_ns(), h = 0;
	size_t i;

	for (i = 0; i < n; i++)
		h += v->lookup(v->obj, seq[i]);
	*hits = h;
	return (double)(bench_now_ns() - t0) / (double)n;
}

static void run_set(const char *label, uint64_t n, uint32_t k,
		    uint32_t rounds, size_t sample)
{
	struct bench_stat ns[NVARIANTS][NORDERS][2];
	uint64_t hits[NVARIANTS][NORDERS][2];
	struct variant v[NVARIANTS];
	struct bpf_map_model m;
	struct ours blk, std;
	uint32_t *seq[NORDERS][2], r, i, o, w, x;
	uint64_t s, seed = 1;
	double p;

	memset(ns, 0, sizeof(ns));
	memset(hits, 0, sizeof(hits));
	map_init(&m, n, k);
	p = pow(1 - exp(-(double)k * (double)n / ((double)m.mask + 1)), k);
	ours_init(&blk, BLOOM_CORE_BLOCKED, n, p);
	ours_init(&std, BLOOM_CORE_STANDARD, n, p);
	fprintf(stderr, "bench-bpfmap: %s: %llu addresses, p = %.3g\n", label,
		(unsigned long long)n, p);
	for (s = 0; s < n; s++) {
		uint32_t a = addr(LISTED_BASE, s);

		map_add(&m, a);
		ours_add(&blk, a);
		ours_add(&std, a);
	}
	v[V_MAP] = (struct variant){ map_lookup, &m, m.bytes };
	v[V_BLOCKED] = (struct variant){ ours_lookup, &blk, blk.bytes };
	v[V_STANDARD] = (struct variant){ ours_lookup, &std, std.bytes };
	for (o = 0; o < NORDERS; o++) {
		for (w = 0; w < 2; w++) {
			seq[o][w] = malloc(sample * sizeof(uint32_t));
			if (!seq[o][w])
				exit(1);
			for (s = 0; s < sample; s++) {
				seed = bench_mix64(seed);
				i = o == O_HOT ? s % HOT : seed % n;
				if (o == O_HOT)
					i = bench_mix64(i) % n;
				seq[o][w][s] = addr(w ? UNLISTED_BASE :
						    LISTED_BASE, i);
			}
		}
	}
	for (r = 0; r < rounds; r++)
		for (o = 0; o < NORDERS; o++)
			for (w = 0; w < 2; w++)
				for (x = 0; x < NVARIANTS; x++) {
					uint32_t vi = (x + r) % NVARIANTS;

					bench_stat_add(&ns[vi][o][w],
						       timed(&v[vi], seq[o][w],
							     sample,
							     &hits[vi][o][w]));
				}
	json_obj(stdout, NULL);
	json_str(stdout, "set", label);
	json_u64(stdout, "count", n);
	json_num(stdout, "fpp", p);
	json_arr(stdout, "variants");
	for (x = 0; x < NVARIANTS; x++) {
		json_obj(stdout, NULL);
		json_str(stdout, "name", vnames[x]);
		json_u64(stdout, "memory_bytes", v[x].bytes);
		for (o = 0; o < NORDERS; o++) {
			json_obj(stdout, onames[o]);
			for (w = 0; w < 2; w++) {
				json_obj(stdout, w ? "unlisted" : "listed");
				json_num(stdout, "ns_median",
					 bench_stat_median(&ns[x][o][w]));
				json_num(stdout, "ns_min",
					 bench_stat_min(&ns[x][o][w]));
				json_num(stdout, "hit_rate",
					 (double)hits[x][o][w] / (double)sample);
				json_end(stdout);
			}
			json_end(stdout);
		}
		json_end(stdout);
	}
	json_end(stdout);
	json_end(stdout);
	for (x = 0; x < NVARIANTS; x++)
		for (o = 0; o < NORDERS; o++)
			if (hits[x][o][0] != sample) {
				fprintf(stderr, "bench-bpfmap: %s missed listed addresses\n",
					vnames[x]);
				exit(1);
			}
	for (o = 0; o < NORDERS; o++)
		for (w = 0; w < 2; w++)
			free(seq[o][w]);
	bench_free(m.bits, m.bytes);
	bench_free(blk.storage, blk.bytes);
	bench_free(std.storage, std.bytes);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "big", required_argument, NULL, 'b' },
		{ "hashes", required_argument, NULL, 'k' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "sample", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t count = 1000000, big = 50000000;
	uint32_t k = 7, rounds = 7;
	size_t sample = 2000000;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			count = strtoull(optarg, NULL, 0);
			break;
		case 'b':
			big = strtoull(optarg, NULL, 0);
			break;
		case 'k':
			k = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			rounds = strtoul(optarg, NULL, 0);
			break;
		case 's':
			sample = strtoull(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: bench-bpfmap [--count N] [--big N] [--hashes K] [--rounds R] [--sample S]\n");
			return 2;
		}
	}
	if (!count || !k || k > 15 || !rounds || rounds > BENCH_MAX_SAMPLES ||
	    !sample || count > 0x30000000 || big > 0x30000000) {
		fprintf(stderr, "bench-bpfmap: out of range (count, big <= 805306368; 1 <= k <= 15; rounds <= %d)\n",
			BENCH_MAX_SAMPLES);
		return 2;
	}
	json_obj(stdout, NULL);
	json_u64(stdout, "hashes", k);
	json_u64(stdout, "rounds", rounds);
	json_u64(stdout, "sample", sample);
	json_u64(stdout, "hot", HOT);
	json_arr(stdout, "sets");
	run_set("main", count, k, rounds, sample);
	if (big)
		run_set("big", big, k, rounds, sample);
	json_end(stdout);
	json_end(stdout);
	putchar('\n');
	return 0;
}
