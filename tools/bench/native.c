// SPDX-License-Identifier: GPL-2.0
/*
 * bench-native: our filter core (libbloomcore.a, the code bloom.ko runs)
 * against the classic baseline and the one-cache-line floor, in userspace,
 * on one machine in one run. Prints JSON on stdout, progress on stderr.
 *
 * For every size (in cache, out of cache) and p (0.01, 0.001) it builds the
 * four variants, then
 *  1. fills them, in slices that alternate single and batched adds, the
 *     variants taking turns within each slice (interleaved: the machine's
 *     drift hits all of them alike);
 *  2. times queries of present and of absent keys, several rounds, in turns;
 *  3. counts false positives over --absent never-added keys (batched).
 * Every ns/key figure is the median of its samples.
 *
 * usage: bench-native [--small N] [--big N] [--absent N] [--p P]
 *                     [--only in-cache|out-of-cache] [--quick]
 * (--p and --only narrow a run down, to look into one figure.)
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "clock.h"
#include "core.h"
#include "json.h"
#include "keys.h"
#include "loops.h"
#include "opts.h"
#include "sip.h"
#include "stats.h"
#include "target.h"

#define NTARGETS	4	/* standard, blocked, baseline, floor */
#define NOPS		3	/* add, query present, query absent */
#define NMODES		2

static const char *const op_names[NOPS] = {
	"add", "query_present", "query_absent",
};
static const char *const mode_names[NMODES] = { "single", "batch" };

/* A fixed SipHash key: runs are reproducible, every variant uses it. */
static const uint8_t hash_key[BENCH_HASH_KEY_LEN] = "bloom-bench-key";

struct plan {
	uint64_t n;		/* keys added */
	uint32_t fills, slices;	/* add samples: fills x slices */
	uint32_t rounds;	/* query samples per mode */
	uint64_t sample;	/* keys per query sample */
	uint64_t absent;	/* never-added keys for the FPR */
	const char *label;	/* "in-cache", "out-of-cache" */
};

struct result {
	struct bench_stat ns[NOPS][NMODES];
	uint64_t false_neg, fp;
};

static void die(const char *what, int err)
{
	fprintf(stderr, "bench-native: %s: %s\n", what, strerror(err));
	exit(1);
}

static double per_key(struct bench_run r, uint64_t count)
{
	return (double)r.ns / (double)count;
}

static void fill(struct target *t, struct result *res, const struct plan *pl)
{
	uint32_t f, s, v;

	for (f = 0; f < pl->fills; f++) {
		for (v = 0; v < NTARGETS; v++)
			t[v].clear(t[v].obj);
		for (s = 0; s < pl->slices; s++) {
			enum bench_mode mode = (s + f) % 2;
			uint64_t lo = pl->n * s / pl->slices;
			uint64_t hi = pl->n * (s + 1) / pl->slices;

			for (v = 0; v < NTARGETS; v++) {
				uint32_t i = (v + f * pl->slices + s) % NTARGETS;
				struct bench_run r = bench_loop(&t[i], OP_ADD,
						mode, BENCH_PRESENT, lo, hi - lo);

				bench_stat_add(&res[i].ns[0][mode],
					       per_key(r, hi - lo));
			}
		}
	}
}

static void queries(struct target *t, struct result *res,
		    const struct plan *pl)
{
	uint64_t qp = pl->sample < pl->n ? pl->sample : pl->n;
	uint64_t qa = pl->sample < pl->absent ? pl->sample : pl->absent;
	uint32_t r, m, v;

	for (r = 0; r < pl->rounds; r++) {
		uint64_t op_ = (uint64_t)r * qp % (pl->n - qp + 1);
		uint64_t oa = (uint64_t)r * qa % (pl->absent - qa + 1);

		for (m = 0; m < NMODES; m++) {
			enum bench_mode mode = (m + r) % 2;

			for (v = 0; v < NTARGETS; v++) {
				uint32_t i = (v + r) % NTARGETS;
				struct bench_run x;

				x = bench_loop(&t[i], OP_QUERY, mode,
					       BENCH_PRESENT, op_, qp);
				bench_stat_add(&res[i].ns[1][mode],
					       per_key(x, qp));
				if (t[i].is_filter)
					res[i].false_neg += qp - x.hits;
				x = bench_loop(&t[i], OP_QUERY, mode,
					       BENCH_ABSENT, oa, qa);
				bench_stat_add(&res[i].ns[2][mode],
					       per_key(x, qa));
			}
		}
	}
}

static void false_positives(struct target *t, struct result *res,
			    const struct plan *pl)
{
	uint32_t v;

	for (v = 0; v < NTARGETS; v++)
		if (t[v].is_filter)
			res[v].fp = bench_loop(&t[v], OP_QUERY, MODE_BATCH,
					       BENCH_ABSENT, 0, pl->absent).hits;
}

static void emit_stat(const char *key, const struct bench_stat *s)
{
	json_obj(stdout, key);
	json_num(stdout, "median", bench_stat_median(s));
	json_num(stdout, "min", bench_stat_min(s));
	json_u64(stdout, "samples", s->n);
	json_end(stdout);
}

static void emit(const struct target *t, const struct result *res,
		 const struct plan *pl, double p)
{
	uint32_t v, o, m;

	json_obj(stdout, NULL);
	json_str(stdout, "size", pl->label);
	json_u64(stdout, "keys", pl->n);
	json_num(stdout, "p", p);
	json_u64(stdout, "absent_keys", pl->absent);
	json_arr(stdout, "targets");
	for (v = 0; v < NTARGETS; v++) {
		json_obj(stdout, NULL);
		json_str(stdout, "name", t[v].name);
		json_u64(stdout, "bits", t[v].bits);
		json_u64(stdout, "hashes", t[v].hashes);
		json_u64(stdout, "bytes", t[v].bytes);
		json_num(stdout, "bits_per_key", (double)t[v].bits / pl->n);
		if (t[v].is_filter) {
			/*
			 * the core's model: block-load for blocked; the
			 * baseline (no core type) is a classic filter
			 */
			uint32_t type = t[v].type ? t[v].type :
					BLOOM_CORE_STANDARD;

			json_num(stdout, "fpr_model",
				 ldexp((double)bloom_core_fpp_model(type,
					t[v].bits, t[v].hashes, pl->n), -64));
			json_u64(stdout, "false_positives", res[v].fp);
			json_num(stdout, "fpr", (double)res[v].fp / pl->absent);
			json_u64(stdout, "false_negatives", res[v].false_neg);
		}
		json_obj(stdout, "ns_per_key");
		for (o = 0; o < NOPS; o++) {
			json_obj(stdout, op_names[o]);
			for (m = 0; m < NMODES; m++)
				emit_stat(mode_names[m], &res[v].ns[o][m]);
			json_end(stdout);
		}
		json_end(stdout);
		json_end(stdout);
	}
	json_end(stdout);
	json_end(stdout);
}

static void run_config(const struct plan *pl, double p)
{
	uint32_t ppb = (uint32_t)llround(p * 1e9);
	struct target t[NTARGETS];
	struct result res[NTARGETS];
	int ret;

	memset(res, 0, sizeof(res));
	ret = target_core_init(&t[0], BLOOM_CORE_STANDARD, pl->n, ppb, hash_key);
	if (ret)
		die("standard filter", -ret);
	ret = target_core_init(&t[1], BLOOM_CORE_BLOCKED, pl->n, ppb, hash_key);
	if (ret)
		die("blocked filter", -ret);
	/* The baseline gets our standard filter's geometry: same m, same k. */
	ret = target_baseline_init(&t[2], t[0].bits, t[0].hashes, hash_key);
	if (ret)
		die("baseline", -ret);
	/* The floor reads lines of an array as big as the blocked filter. */
	ret = target_floor_init(&t[3], t[1].bytes, hash_key);
	if (ret)
		die("floor", -ret);

	fprintf(stderr, "bench-native: %s, %llu keys, p=%g: add...", pl->label,
		(unsigned long long)pl->n, p);
	fill(t, res, pl);
	fprintf(stderr, " query...");
	queries(t, res, pl);
	fprintf(stderr, " fpr...");
	false_positives(t, res, pl);
	fprintf(stderr, " done\n");
	emit(t, res, pl, p);
	for (int v = 0; v < NTARGETS; v++)
		t[v].destroy(&t[v]);
}

/* Bytes of the last-level cache, 0 when unknown. */
static uint64_t l3_bytes(void)
{
	long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
	FILE *f;
	unsigned long kib;

	if (l3 > 0)
		return (uint64_t)l3;
	f = fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
	if (!f)
		return 0;
	if (fscanf(f, "%luK", &kib) != 1)
		kib = 0;
	fclose(f);
	return (uint64_t)kib * 1024;
}

/*
 * The out-of-cache size: at least 20M keys, and a p = 0.01 filter (9.59
 * bits a key) bigger than the last-level cache by a quarter (the p = 0.001
 * one is 1.5 times bigger still), rounded up to 10M keys. Filling four such
 * filters is most of the native run's time, so no bigger than that.
 */
static uint64_t big_default(uint64_t l3)
{
	uint64_t n = (uint64_t)ceil(1.25 * (double)l3 * 8 / 9.585 / 1e7) * 10000000;

	return n < 20000000 ? 20000000 : n;
}

/*
 * What the hash costs alone: the core's bloom_core_hash() (used by every
 * variant), and the same SipHash-2-4 called straight from libsodium, which
 * shows what the core's userspace shim adds (the kernel build uses the
 * kernel's siphash() instead). Also checks both give the same values.
 */
static void hash_reference(uint64_t count)
{
	struct target std;
	struct bench_stat kg = { 0 }, hc = { 0 }, hs = { 0 };
	struct bench_sip_key sk;
	struct bench_key k;
	volatile uint64_t acc = 0;
	bool same = true;
	uint64_t i, t0;
	int r;

	memcpy(sk.b, hash_key, sizeof(sk.b));
	if (target_core_init(&std, BLOOM_CORE_STANDARD, 1000, 10000000, hash_key))
		die("reference filter", ENOMEM);
	for (i = 0; i < 1000; i++) {
		bench_key(BENCH_PRESENT, i, &k);
		same &= std.hash(std.obj, &k, sizeof(k)) ==
			bench_siphash(&sk, &k, sizeof(k));
	}
	for (r = 0; r < 5; r++) {
		bench_stat_add(&kg, (double)bench_loop_keygen_ns(count) / count);
		bench_stat_add(&hc, (double)bench_loop_hash_ns(&std, count) / count);
		t0 = bench_now_ns();
		for (i = 0; i < count; i++) {
			bench_key(BENCH_PRESENT, i, &k);
			acc += bench_siphash(&sk, &k, sizeof(k));
		}
		bench_stat_add(&hs, (double)(bench_now_ns() - t0) / count);
	}
	json_obj(stdout, "reference");
	json_num(stdout, "keygen_ns", bench_stat_median(&kg));
	json_num(stdout, "core_hash_ns", bench_stat_median(&hc));
	json_num(stdout, "libsodium_hash_ns", bench_stat_median(&hs));
	json_bool(stdout, "libsodium_equals_core", same);
	json_end(stdout);
	std.destroy(&std);
}

int main(int argc, char **argv)
{
	static const char usage[] =
		"bench-native [--small N] [--big N] [--absent N] [--p P] [--only in-cache|out-of-cache] [--quick]";
	enum { O_SMALL, O_BIG, O_ABSENT, O_P, O_ONLY, O_QUICK };
	double ps[] = { 0.01, 0.001 };
	int nps = 2, sizes = 3;	/* bit 0: in-cache, bit 1: out-of-cache */
	uint64_t l3 = l3_bytes();
	struct plan small = {
		.n = 100000, .fills = 8, .slices = 2, .rounds = 9,
		.sample = 100000, .absent = 10000000, .label = "in-cache",
	};
	struct plan big = {
		.n = big_default(l3), .fills = 1, .slices = 10, .rounds = 5,
		.sample = 2000000, .absent = 10000000, .label = "out-of-cache",
	};
	const char *only = NULL;
	bool quick = false;
	const struct bench_opt opts[] = {
		[O_SMALL] = { "small", BENCH_OPT_U64, &small.n },
		[O_BIG] = { "big", BENCH_OPT_U64, &big.n },
		[O_ABSENT] = { "absent", BENCH_OPT_U64, &small.absent },
		[O_P] = { "p", BENCH_OPT_DOUBLE, &ps[0] },
		[O_ONLY] = { "only", BENCH_OPT_STRING, &only },
		[O_QUICK] = { "quick", BENCH_OPT_FLAG, &quick },
	};
	uint32_t seen;

	if (bench_opts_parse(argc, argv, opts, BENCH_NOPTS(opts), usage,
			     &seen) != argc)
		bench_usage(usage);
	if (seen & (1U << O_P))
		nps = 1;
	if (only)
		sizes = strcmp(only, "in-cache") ? 2 : 1;
	/* a smoke test of the harness, seconds long; sizes given win */
	if (quick) {
		small.fills = 2;
		small.rounds = 3;
		if (!(seen & (1U << O_BIG)))
			big.n = 2000000;
		big.rounds = 3;
		big.slices = 4;
		big.sample = 500000;
		if (!(seen & (1U << O_ABSENT)))
			small.absent = 1000000;
	}
	big.absent = small.absent;
	if (small.n < 1000 || big.n < 1000 || small.absent < 1000 ||
	    !(ps[0] > 0 && ps[0] <= 0.5)) {
		fprintf(stderr, "bench-native: sizes must be at least 1000, p in (0, 0.5]\n");
		return 2;
	}

	json_obj(stdout, NULL);
	json_u64(stdout, "l3_bytes", l3);
	json_u64(stdout, "chunk", BENCH_CHUNK);
	json_u64(stdout, "key_bytes", BENCH_KEY_LEN);
	hash_reference(4000000);
	json_arr(stdout, "configs");
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < nps; i++)
			if (sizes & (1 << s))
				run_config(s ? &big : &small, ps[i]);
	json_end(stdout);
	json_end(stdout);
	return 0;
}
