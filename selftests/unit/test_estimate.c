// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The core's estimates: the fixed-point models against
 * the same formulas in double precision, the estimated number of distinct
 * keys against the keys really added, and the estimated false-positive rate
 * against the rate measured on never-added keys: for blocked filters the
 * block-load model must hold where (X/m)^k, the old estimate, was 1.7x
 * optimistic at p = 0.001.
 */
#include "unit.h"

/* The models in double precision, as tools/bench/report.py had them. */
static double fpr_standard(double n, double m, double k)
{
	return pow(1 - pow(1 - 1 / m, k * n), k);
}

/* P(J = j) in log space: exp(-lambda) alone underflows past 745 */
static double fpr_blocked(double n, double m, double k)
{
	double lam = n / (m / 512), total = 0;
	int j;

	for (j = 0; j < lam + 20 * sqrt(lam) + 20; j++)
		total += exp(-lam + j * log(lam) - lgamma(j + 1.0)) *
			 pow(1 - pow(1 - 1.0 / 512, j * k), k);
	return total;
}

static double q64(u64 v)
{
	return ldexp((double)v, -64);
}

static void test_model(void)
{
	static const struct { u64 m; u32 k; } g[] = {
		{ 512, 1 }, { 9585152, 7 }, { 15548928, 9 }, { 1 << 20, 16 },
		{ 5120, 3 }, { 1ULL << 33, 22 },
	};
	static const double load[] = { 0.001, 0.05, 0.5, 1, 1.5, 3, 20 };
	double worst_s = 0, worst_b = 0, a, b, e;
	u32 i, j;

	for (i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
		for (j = 0; j < sizeof(load) / sizeof(load[0]); j++) {
			/* n at a load of the rate's bits per key, about */
			u64 n = (u64)(load[j] * g[i].m / (1.44 * g[i].k)) + 1;

			a = q64(bloom_core_fpp_model(BLOOM_CORE_STANDARD,
						     g[i].m, g[i].k, n));
			b = fpr_standard(n, g[i].m, g[i].k);
			/* relative, or absolute for rates under 1e-6 */
			e = fabs(a - b) / (b > 1e-6 ? b : 1e-6);
			if (e > worst_s)
				worst_s = e;
			a = q64(bloom_core_fpp_model(BLOOM_CORE_BLOCKED,
						     g[i].m, g[i].k, n));
			b = fpr_blocked(n, g[i].m, g[i].k);
			e = fabs(a - b) / (b > 1e-6 ? b : 1e-6);
			if (e > worst_b)
				worst_b = e;
		}
	}
	check(worst_s < 1e-6,
	      "standard model in fixed point = (1 - (1 - 1/m)^(kn))^k in double to %.2g (relative; 1e-12 under 1e-6)",
	      worst_s);
	check(worst_b < 1e-6,
	      "blocked model in fixed point = the Poisson block-load sum in double to %.2g (relative; 1e-12 under 1e-6)",
	      worst_b);
	check(bloom_core_fpp_model(BLOOM_CORE_BLOCKED, 512, 4, 0) == 0 &&
	      bloom_core_fpp_model(BLOOM_CORE_STANDARD, 64, 4, 0) == 0 &&
	      q64(bloom_core_fpp_model(BLOOM_CORE_BLOCKED, 512, 1, 1ULL << 32)) > 0.999999,
	      "no keys: rate 0; 2^32 keys in one block: rate 1");
}

/* Adds keys [0, n) of tag 1 in batches. */
static void fill(struct filter *f, u64 from, u64 n)
{
	static u64 hs[4096];
	u64 i, c;

	for (i = from; i < from + n; i += c) {
		c = from + n - i < 4096 ? from + n - i : 4096;
		for (u64 j = 0; j < c; j++)
			hs[j] = key_hash(&f->core, 1, i + j);
		bloom_core_add_batch(&f->core, hs, (u32)c, NULL);
	}
}

static double measure(const struct filter *f, u64 n)
{
	u64 i, fp = 0;

	for (i = 0; i < n; i++)
		fp += bloom_core_query_hash(&f->core, key_hash(&f->core, 2, i));
	return (double)fp / n;
}

/* Estimated keys against the keys added, from 1% to 3x the capacity. */
static void test_keys(u32 type)
{
	enum { CAP = 100000 };
	static const u32 pct[] = { 1, 10, 50, 100, 300 };
	/* a d-left filter refuses keys past capacity (ENOSPC) */
	u32 npct = type == BLOOM_CORE_DLEFT ? 4 : 5;
	struct bloom_core_estimate e;
	struct filter f;
	double worst = 0, err;
	u64 added = 0, n;
	u32 i;

	filter_new(&f, type, CAP, 10000000);
	bloom_core_estimate(&f.core, &e);
	check(e.keys == 0 && e.fpp_ppb == 0, "%s: empty: 0 keys, rate 0",
	      tname(type));
	for (i = 0; i < npct; i++) {
		n = (u64)CAP * pct[i] / 100;
		fill(&f, added, n - added);
		added = n;
		bloom_core_estimate(&f.core, &e);
		err = fabs((double)e.keys - n) / n;
		printf("# %s: %llu keys added (%u%% of capacity): estimated %llu (%+.2f%%), rate %u ppb\n",
		       tname(type), (unsigned long long)n, pct[i],
		       (unsigned long long)e.keys,
		       100.0 * ((double)e.keys - n) / n, e.fpp_ppb);
		if (err > worst)
			worst = err;
	}
	/* d-left: fingerprints shared by two keys are one cell (about p) */
	check(worst < 0.03,
	      "%s: estimated distinct keys within 3%% of those added, 1%% to %u%% of capacity (worst %.2f%%)",
	      tname(type), pct[npct - 1], 100 * worst);
	filter_free(&f);
}

/*
 * At capacity, the estimated rate against the measured one. Before the
 * block-load model a blocked filter's estimate was (X/m)^k: 0.58 of the
 * measured rate at p = 0.001 (printed as "old").
 */
static void test_rate(u32 type, u32 ppb, u64 probes)
{
	enum { CAP = 200000 };
	struct bloom_core_estimate e;
	struct filter f;
	double meas, est, old;

	filter_new(&f, type, CAP, ppb);
	fill(&f, 0, CAP);
	bloom_core_estimate(&f.core, &e);
	meas = measure(&f, probes);
	est = e.fpp_ppb / 1e9;
	old = pow((double)bloom_core_bits_set(&f.core) / f.core.geo.bits,
		  f.core.geo.hashes);
	printf("# %s p=%g at capacity: measured %.6g on %llu keys, estimated %.6g (%.3f x measured), (X/m)^k %.6g (%.3f x)\n",
	       tname(type), ppb / 1e9, meas, (unsigned long long)probes, est,
	       est / meas, old, old / meas);
	check(est >= 0.85 * meas && est <= 1.15 * meas,
	      "%s p=%g: estimated rate %.6g within 15%% of the measured %.6g",
	      tname(type), ppb / 1e9, est, meas);
	filter_free(&f);
}

/* Every bit set: too many keys to tell, rate 1. */
static void test_full(void)
{
	struct bloom_geometry g = {
		.type = BLOOM_CORE_BLOCKED, .hashes = 8, .bits = 512,
		.capacity = 1, .fpp_ppb = 1000000,
	};
	struct bloom_core_estimate e;
	struct filter f;
	bloom_hash_key_t k;

	bloom_hash_key_from_bytes(&k, test_key);
	f.bytes = bloom_core_storage_bytes(&g);
	f.mem = xalloc(f.bytes);
	bloom_core_init(&f.core, &g, &k, f.mem);
	fill(&f, 0, 100000);
	bloom_core_estimate(&f.core, &e);
	check(bloom_core_bits_set(&f.core) == 512 &&
	      e.keys == BLOOM_CORE_KEYS_UNKNOWN && e.fpp_ppb == 1000000000,
	      "blocked, every bit set: keys unknown, rate 1 (%llu, %u)",
	      (unsigned long long)e.keys, e.fpp_ppb);
	filter_free(&f);
}

int main(void)
{
	printf("TAP version 13\n");
	test_model();
	test_keys(BLOOM_CORE_STANDARD);
	test_keys(BLOOM_CORE_BLOCKED);
	test_keys(BLOOM_CORE_COUNTING);
	test_keys(BLOOM_CORE_DLEFT);
	test_rate(BLOOM_CORE_STANDARD, 10000000, 2000000);
	test_rate(BLOOM_CORE_BLOCKED, 10000000, 2000000);
	test_rate(BLOOM_CORE_BLOCKED, 1000000, 4000000);
	test_rate(BLOOM_CORE_BLOCKED, 100000, 5000000);
	test_rate(BLOOM_CORE_DLEFT, 10000000, 2000000);
	test_full();
	printf("1..%d\n", test_no);
	return test_failed ? 1 : 0;
}
