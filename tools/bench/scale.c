// SPDX-License-Identifier: GPL-2.0
/*
 * bench-scale: scalable filters (module/core/scale.c, the code bloom.ko
 * runs), in userspace, in one run. Prints JSON on stdout, progress on
 * stderr.
 *
 *  1. Memory and rate at 10x and 100x growth: a scalable filter of capacity
 *     N fed 10 N and 100 N keys, with the defaults (s = 2, r = 0.85) and
 *     with RedisBloom's scheme (s = 2, r = 0.5: its stage rates halve,
 *     the first is P / 2), both built by our core for the same keys; bits
 *     per key against one standard filter sized by bloom_geometry_size()
 *     for the final count (the optimum for that count); the rate measured
 *     on --absent never-added keys.
 *  2. Query cost against the number of stages: ns per absent key (batched
 *     queries of precomputed hashes, the kernel's second pass) for filters
 *     of 1, 5 and 10 stages, and the same for one standard filter holding
 *     the same keys at the same P, so that the cost of the stages is told
 *     apart from the cost of a larger (out-of-cache) filter. Medians of
 *     interleaved rounds.
 *
 * usage: bench-scale [--n N] [--p P] [--absent A] [--rounds R] [--quick]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bloom.h>	/* BLOOM_TYPE_NAMES */
#include "clock.h"
#include "core.h"
#include "scale.h"
#include "json.h"
#include "keys.h"
#include "mem.h"
#include "opts.h"
#include "stats.h"

static const uint8_t hash_key[BLOOM_CORE_HASH_KEY_LEN] = "bloom-bench-key";
/* The types' names: the ABI's one table (the core's types are its values). */
static const char *const type_names[] = BLOOM_TYPE_NAMES;

struct sfilter {
	struct bloom_core core;
	struct bloom_scale scale;
	void *mem[BLOOM_CORE_STAGES_MAX];
	uint64_t bytes[BLOOM_CORE_STAGES_MAX];
	struct bloom_scale_stage st[BLOOM_CORE_STAGES_MAX];
};

/* The core's estimated rate now (a scalable filter's: over its stages). */
static double bench_est_fpp(const struct bloom_core *c)
{
	struct bloom_core_estimate e;

	bloom_core_estimate(c, &e);
	return e.fpp_ppb / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "bench-scale: %s\n", what);
	exit(1);
}

/* What bloom.ko's scale.c does, minus the lock: one thread here. */
static void sf_grow(struct sfilter *f)
{
	struct bloom_geometry g;
	uint32_t n = bloom_scale_stages(&f->core);

	if (bloom_scale_next_geometry(&f->core, &g))
		die("no next stage");
	f->bytes[n] = bloom_core_storage_bytes(&g);
	f->mem[n] = bench_alloc(f->bytes[n]);
	if (!f->mem[n])
		die("out of memory");
	bloom_scale_publish(&f->core, &f->st[n], &g, f->mem[n]);
}

static void sf_new(struct sfilter *f, uint32_t type, uint64_t n, uint32_t ppb,
		   uint32_t growth, uint32_t tightening_ppm)
{
	struct bloom_scale_params p = {
		.type = type, .growth = growth, .capacity = n,
		.fpp_ppb = ppb, .tightening_ppm = tightening_ppm,
	};
	bloom_hash_key_t k;

	if (bloom_scale_check(&p))
		die("bad parameters");
	memset(f, 0, sizeof(*f));
	bloom_hash_key_from_bytes(&k, hash_key);
	bloom_scale_init(&f->core, &f->scale, &p, &k);
	sf_grow(f);
}

static void sf_free(struct sfilter *f)
{
	uint32_t i;

	for (i = 0; i < BLOOM_CORE_STAGES_MAX; i++)
		if (f->mem[i])
			bench_free(f->mem[i], f->bytes[i]);
}

static void sf_add(struct sfilter *f, const uint64_t *h, uint32_t n)
{
	uint32_t pos = 0;

	for (;;) {
		bloom_scale_add_batch(&f->core, h, n, NULL, &pos);
		if (pos == n)
			return;
		sf_grow(f);
	}
}

struct plain {
	struct bloom_core core;
	void *mem;
	uint64_t bytes;
};

static void plain_new(struct plain *f, uint32_t type, uint64_t n, uint32_t ppb)
{
	struct bloom_geometry g;
	bloom_hash_key_t k;

	if (bloom_geometry_size(type, n, ppb, &g))
		die("bad geometry");
	bloom_hash_key_from_bytes(&k, hash_key);
	f->bytes = bloom_core_storage_bytes(&g);
	f->mem = bench_alloc(f->bytes);
	if (!f->mem)
		die("out of memory");
	bloom_core_init(&f->core, &g, &k, f->mem);
}

#define CHUNK	4096u

/* Hashes of keys [first, first + n) of @set, as the kernel's first pass. */
static void hashes(const struct bloom_core *c, enum bench_set set,
		   uint64_t first, uint32_t n, uint64_t *h)
{
	struct bench_key k;
	uint32_t i;

	for (i = 0; i < n; i++) {
		bench_key(set, first + i, &k);
		h[i] = bloom_core_hash(c, &k, sizeof(k));
	}
}

static void fill_scalable(struct sfilter *f, uint64_t n)
{
	uint64_t h[CHUNK], done;

	for (done = 0; done < n; done += CHUNK) {
		uint32_t cnt = n - done < CHUNK ? (uint32_t)(n - done) : CHUNK;

		hashes(&f->core, BENCH_PRESENT, done, cnt, h);
		sf_add(f, h, cnt);
	}
}

static uint64_t count_absent(const struct bloom_core *c, uint64_t absent)
{
	uint64_t h[CHUNK], done, fp = 0;

	for (done = 0; done < absent; done += CHUNK) {
		uint32_t cnt = absent - done < CHUNK ? (uint32_t)(absent - done) :
			       CHUNK;

		hashes(c, BENCH_ABSENT, done, cnt, h);
		fp += bloom_core_query_batch(c, h, cnt, NULL);
	}
	return fp;
}

static uint64_t count_present(const struct bloom_core *c, uint64_t n)
{
	uint64_t h[CHUNK], done, hits = 0;

	for (done = 0; done < n; done += CHUNK) {
		uint32_t cnt = n - done < CHUNK ? (uint32_t)(n - done) : CHUNK;

		hashes(c, BENCH_PRESENT, done, cnt, h);
		hits += bloom_core_query_batch(c, h, cnt, NULL);
	}
	return hits;
}

/* ---- 1. memory and rate ---- */

static void memory_case(uint32_t type, uint64_t n0, uint32_t ppb,
			uint32_t factor, uint64_t absent)
{
	static const uint32_t rs[2] = { 850000, 500000 };
	static const char *const names[2] = { "defaults", "redisbloom" };
	uint64_t keys = n0 * factor;
	struct bloom_geometry opt, same;
	int v;

	/* the optimum: one standard filter; and one filter of this type */
	if (bloom_geometry_size(BLOOM_CORE_STANDARD, keys, ppb, &opt) ||
	    bloom_geometry_size(type, keys, ppb, &same))
		die("optimal geometry");
	json_obj(stdout, NULL);
	json_str(stdout, "type", type_names[type]);
	json_u64(stdout, "capacity", n0);
	json_u64(stdout, "growth_factor", factor);
	json_u64(stdout, "keys", keys);
	json_num(stdout, "p", ppb / 1e9);
	json_u64(stdout, "optimal_bits", opt.bits);
	json_num(stdout, "optimal_bits_per_key", (double)opt.bits / keys);
	json_u64(stdout, "same_type_bits", same.bits);
	json_num(stdout, "same_type_bits_per_key", (double)same.bits / keys);
	json_arr(stdout, "schemes");
	for (v = 0; v < 2; v++) {
		struct sfilter *f = malloc(sizeof(*f));
		uint64_t fp, present;
		double t0;

		if (!f)
			die("out of memory");
		fprintf(stderr, "bench-scale: %s %ux, r = %.2f\n",
			type_names[type], factor, rs[v] / 1e6);
		sf_new(f, type, n0, ppb, 2, rs[v]);
		t0 = bench_now_ns();
		fill_scalable(f, keys);
		t0 = (bench_now_ns() - t0) / (double)keys;
		present = count_present(&f->core, keys);
		fp = count_absent(&f->core, absent);
		json_obj(stdout, NULL);
		json_str(stdout, "scheme", names[v]);
		json_u64(stdout, "growth", 2);
		json_num(stdout, "tightening", rs[v] / 1e6);
		json_u64(stdout, "stages", bloom_scale_stages(&f->core));
		json_u64(stdout, "bits", bloom_core_bits(&f->core));
		json_num(stdout, "bits_per_key",
			 (double)bloom_core_bits(&f->core) / keys);
		json_num(stdout, "vs_optimal",
			 (double)bloom_core_bits(&f->core) / opt.bits);
		json_num(stdout, "vs_same_type",
			 (double)bloom_core_bits(&f->core) / same.bits);
		json_u64(stdout, "false_negatives", keys - present);
		json_u64(stdout, "absent_queried", absent);
		json_u64(stdout, "false_positives", fp);
		json_num(stdout, "measured_fpp", (double)fp / absent);
		json_num(stdout, "estimated_fpp",
			 bench_est_fpp(&f->core));
		json_num(stdout, "add_ns_per_key", t0);
		json_end(stdout);
		sf_free(f);
		free(f);
	}
	json_end(stdout);
	json_end(stdout);
}

/* ---- 2. query cost against stages ---- */

/* ns per key of batched queries of @h (absent keys), one round. */
static double query_round(const struct bloom_core *c, const uint64_t *h,
			   uint64_t n)
{
	uint64_t t0 = bench_now_ns(), i;
	volatile uint32_t sink = 0;

	for (i = 0; i < n; i += CHUNK)
		sink += bloom_core_query_batch(c, h + i,
					       n - i < CHUNK ? (uint32_t)(n - i) :
					       CHUNK, NULL);
	(void)sink;
	return (double)(bench_now_ns() - t0) / n;
}

static void stages_case(uint32_t type, uint64_t n0, uint32_t ppb,
			uint32_t rounds, uint64_t nq)
{
	static const uint32_t want[3] = { 1, 5, 10 };
	uint64_t *h = malloc(nq * sizeof(*h));
	int s;

	if (!h)
		die("out of memory");
	json_arr(stdout, "query_vs_stages");
	for (s = 0; s < 3; s++) {
		/* keys for exactly want[s] stages: all but the newest full */
		uint64_t keys = n0 * ((1ULL << want[s]) - 1) - n0 / 2;
		struct sfilter *f = malloc(sizeof(*f));
		struct bench_stat sc = { 0 }, pl = { 0 };
		struct plain p;
		uint32_t r;

		if (!f)
			die("out of memory");
		fprintf(stderr, "bench-scale: query cost, %u stages\n", want[s]);
		sf_new(f, type, n0, ppb, 2, 850000);
		fill_scalable(f, keys);
		if (bloom_scale_stages(&f->core) != want[s])
			die("stage count differs from the plan");
		plain_new(&p, type, keys, ppb);
		{
			uint64_t hh[CHUNK], done;

			for (done = 0; done < keys; done += CHUNK) {
				uint32_t cnt = keys - done < CHUNK ?
					       (uint32_t)(keys - done) : CHUNK;

				hashes(&p.core, BENCH_PRESENT, done, cnt, hh);
				bloom_core_add_batch(&p.core, hh, cnt, NULL);
			}
		}
		hashes(&f->core, BENCH_ABSENT, 0, nq, h);
		/* one untimed round each: caches and TLB warm alike */
		query_round(&f->core, h, nq);
		query_round(&p.core, h, nq);
		for (r = 0; r < rounds; r++) {
			bench_stat_add(&sc, query_round(&f->core, h, nq));
			bench_stat_add(&pl, query_round(&p.core, h, nq));
		}
		json_obj(stdout, NULL);
		json_u64(stdout, "stages", want[s]);
		json_u64(stdout, "keys", keys);
		json_u64(stdout, "scalable_bytes", bloom_core_bits(&f->core) / 8);
		json_u64(stdout, "plain_bytes", p.bytes);
		json_num(stdout, "scalable_absent_ns", bench_stat_median(&sc));
		json_num(stdout, "plain_absent_ns", bench_stat_median(&pl));
		json_num(stdout, "ratio_to_plain",
			 bench_stat_median(&sc) / bench_stat_median(&pl));
		json_end(stdout);
		sf_free(f);
		free(f);
		bench_free(p.mem, p.bytes);
	}
	json_end(stdout);
	free(h);
}

int main(int argc, char **argv)
{
	static const char usage[] =
		"bench-scale [--n N] [--p P] [--absent A] [--rounds R] [--quick]";
	enum { O_N, O_P, O_ABSENT, O_ROUNDS, O_QUICK };
	uint64_t n0 = 100000, absent = 2000000, nq = 1000000, qn0 = 10000;
	uint32_t ppb, rounds = 9;
	double p = 0.001;
	bool quick = false;
	const struct bench_opt opts[] = {
		[O_N] = { "n", BENCH_OPT_U64, &n0 },
		[O_P] = { "p", BENCH_OPT_DOUBLE, &p },
		[O_ABSENT] = { "absent", BENCH_OPT_U64, &absent },
		[O_ROUNDS] = { "rounds", BENCH_OPT_U32, &rounds },
		[O_QUICK] = { "quick", BENCH_OPT_FLAG, &quick },
	};
	uint32_t seen;
	int t;

	if (bench_opts_parse(argc, argv, opts, BENCH_NOPTS(opts), usage,
			     &seen) != argc)
		bench_usage(usage);
	/* a smoke test of the harness; sizes given win */
	if (quick) {
		if (!(seen & (1U << O_N)))
			n0 = 10000;
		if (!(seen & (1U << O_ABSENT)))
			absent = 200000;
		nq = 100000;
		qn0 = 1000;
		if (!(seen & (1U << O_ROUNDS)))
			rounds = 3;
	}
	if (!(p > 0 && p < 1))
		die("bad arguments");
	ppb = (uint32_t)llround(p * 1e9);
	if (!n0 || !absent || !rounds || rounds > BENCH_MAX_SAMPLES ||
	    ppb < BLOOM_CORE_FPP_PPB_MIN || ppb > BLOOM_CORE_FPP_PPB_MAX)
		die("bad arguments");

	json_obj(stdout, NULL);
	json_num(stdout, "p", ppb / 1e9);
	json_u64(stdout, "capacity", n0);
	json_u64(stdout, "query_capacity", qn0);
	json_u64(stdout, "query_keys", nq);
	json_u64(stdout, "rounds", rounds);
	json_arr(stdout, "memory");
	for (t = 0; t < 2; t++) {
		uint32_t type = t ? BLOOM_CORE_BLOCKED : BLOOM_CORE_STANDARD;

		memory_case(type, n0, ppb, 10, absent);
		memory_case(type, n0, ppb, 100, absent);
	}
	json_end(stdout);
	stages_case(BLOOM_CORE_STANDARD, qn0, ppb, rounds, nq);
	json_end(stdout);
	putchar('\n');
	return 0;
}
