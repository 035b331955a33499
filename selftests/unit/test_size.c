// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bloom_core_size(): any two of capacity, rate, bits per key and
 * memory determine a filter of every type; a fixed k keeps the rate; a
 * memory budget is never exceeded; bits per key give the theory's bits and
 * hashes; combinations that cannot be honoured are refused.
 */
#include "unit.h"

static const u32 types[] = { BLOOM_CORE_STANDARD, BLOOM_CORE_BLOCKED,
			     BLOOM_CORE_COUNTING, BLOOM_CORE_DLEFT };

static double std_bound(double n, double m, double k)
{
	return pow(-expm1(n * log1p(-k / m)), k);
}

static int size(u32 type, u32 hashes, u64 n, u32 ppb, u32 bpk, u64 mem,
		struct bloom_geometry *g)
{
	struct bloom_core_size_req r = {
		.type = type, .hashes = hashes, .capacity = n,
		.fpp_ppb = ppb, .bpk_milli = bpk, .memory_bytes = mem,
	};

	return bloom_core_size(&r, g);
}

static void test_same_as_geometry_size(void)
{
	static const u64 caps[] = { 1, 5, 100, 12345, 1000000, 0xffffffffULL };
	static const u32 ppbs[] = { 1, 1000, 1000000, 10000000, 500000000 };
	struct bloom_geometry a, b;
	unsigned int t, i, j, bad = 0;

	for (t = 0; t < 4; t++)
		for (i = 0; i < 6; i++)
			for (j = 0; j < 5; j++) {
				int e1 = bloom_geometry_size(types[t], caps[i],
							     ppbs[j], &a);
				int e2 = size(types[t], 0, caps[i], ppbs[j],
					      0, 0, &b);

				bad += e1 != e2 ||
				       (!e1 && memcmp(&a, &b, sizeof(a)));
			}
	check(bad == 0, "bloom_core_size(capacity, rate) = bloom_geometry_size() for every type (%u differ)",
	      bad);
}

static void test_bits_per_key(void)
{
	static const u32 bpks[] = { 2000, 4800, 9585, 10000, 14378, 20000 };
	struct bloom_geometry g;
	unsigned int i, bad = 0, badk = 0;
	u64 n = 1000000;

	for (i = 0; i < 6; i++) {
		double c = bpks[i] / 1000.0, k;

		/* standard: m = n c, k = c ln 2 rounded either way */
		if (size(BLOOM_CORE_STANDARD, 0, n, 0, bpks[i], 0, &g) ||
		    g.bits != n * bpks[i] / 1000)
			bad++;
		k = c * log(2);
		if (g.hashes != (u32)floor(k) && g.hashes != (u32)ceil(k))
			badk++;
		/* the rate recorded: the bound at capacity, rounded up */
		if (g.fpp_ppb < std_bound(n, g.bits, g.hashes) * 1e9 * (1 - 1e-6) ||
		    g.fpp_ppb > std_bound(n, g.bits, g.hashes) * 1e9 * 1.0001 + 1)
			bad++;
		/* counting: its bits are counters, as for the standard */
		if (size(BLOOM_CORE_COUNTING, 0, n, 0, bpks[i], 0, &g) ||
		    g.bits != n * bpks[i] / 1000)
			bad++;
		/* blocked: whole blocks within the budget */
		if (size(BLOOM_CORE_BLOCKED, 0, n, 0, bpks[i], 0, &g) ||
		    g.bits % 512 || g.bits > n * bpks[i] / 1000 ||
		    g.bits + 512 <= n * bpks[i] / 1000)
			bad++;
		printf("# %.3f bits/key, n=1e6: standard k=%u; blocked k=%u p=%.3g\n",
		       c, (unsigned int)(k + 0.5), g.hashes, g.fpp_ppb / 1e9);
	}
	check(bad == 0, "bits per key: standard and counting take n c bits, blocked whole blocks within them; the rate is the bound at capacity");
	check(badk == 0, "bits per key: standard k is c ln 2 rounded down or up");
	/* d-left at 21.33 bits per key, 1e6 keys: 16-bit cells, load 6 */
	check(size(BLOOM_CORE_DLEFT, 0, n, 0, 21334, 0, &g) == 0 &&
	      g.cell_bits == 16 && g.bits <= n * 21334 / 1000 &&
	      g.fpp_ppb <= 1512097,
	      "d-left: 21.334 bits/key: 16-bit cells, rate at most 4 L 2^-14 x 32/31 = 0.001512 (L = 6)");
}

/* Memory with a rate: the largest capacity that fits, never over. */
static void test_memory(void)
{
	static const u64 mems[] = { 64, 100, 1000, 4096, 65536, 1000000,
				    12345678, 1ULL << 30 };
	static const u32 ppbs[] = { 500000000, 10000000, 1000000, 1 };
	struct bloom_geometry g, g2;
	unsigned int t, i, j, over = 0, notmax = 0, cases = 0, rate = 0;
	int e;

	for (t = 0; t < 4; t++)
		for (i = 0; i < 8; i++)
			for (j = 0; j < 4; j++) {
				e = size(types[t], 0, 0, ppbs[j], 0, mems[i],
					 &g);
				if (e == -ERANGE)
					continue;
				cases++;
				if (e || bloom_core_storage_bytes(&g) > mems[i]) {
					over++;
					continue;
				}
				if (g.capacity < BLOOM_CORE_CAPACITY_MAX &&
				    !bloom_geometry_size(types[t],
							 g.capacity + 1,
							 ppbs[j], &g2) &&
				    bloom_core_storage_bytes(&g2) <= mems[i])
					notmax++;
				/* capacity + memory: rate at most asked */
				e = size(types[t], 0, g.capacity, 0, 0,
					 mems[i], &g2);
				if (e || g2.fpp_ppb > ppbs[j] ||
				    bloom_core_storage_bytes(&g2) > mems[i]) {
					rate++;
					printf("# %s mem %llu p %u: n %llu -> %d ppb %u\n",
					       tname(types[t]),
					       (unsigned long long)mems[i],
					       ppbs[j],
					       (unsigned long long)g.capacity,
					       e, g2.fpp_ppb);
				}
			}
	check(over == 0 && cases > 60,
	      "memory + rate: the table never takes more than the budget (%u cases)",
	      cases);
	check(notmax == 0, "memory + rate: one more key would not fit");
	check(rate == 0, "capacity + memory: within the budget, a rate no worse than the memory + rate sizing's");
	check(size(BLOOM_CORE_STANDARD, 0, 0, 10000000, 0, 63, &g) == -ERANGE &&
	      size(BLOOM_CORE_BLOCKED, 0, 0, 10000000, 0, 63, &g) == -ERANGE,
	      "memory + rate: under one line (or one block) is refused with -ERANGE");
	check(size(BLOOM_CORE_STANDARD, 0, 1000000, 0, 0, 1000, &g) == -ERANGE &&
	      size(BLOOM_CORE_DLEFT, 0, 1000000, 0, 0, 100000, &g) == -ERANGE,
	      "capacity + memory: a rate over 0.5 (or d-left buckets over 6/8 full) is refused with -ERANGE");
	check(size(BLOOM_CORE_STANDARD, 0, 0, 0, 10000, 1 << 20, &g) == 0 &&
	      g.capacity == (1 << 20) * 8 / 10 && g.bits == 8 << 20 &&
	      bloom_core_storage_bytes(&g) == 1 << 20,
	      "memory + bits per key: capacity = memory / bits per key");
	check(size(BLOOM_CORE_COUNTING, 0, 0, 0, 10000, 1 << 20, &g) == 0 &&
	      g.capacity == (1 << 20) * 2 / 10 && g.bits == 2 << 20 &&
	      bloom_core_storage_bytes(&g) == 1 << 20,
	      "counting, memory + bits per key: 4 bits of memory per counter");
}

/* A fixed k keeps the rate. */
static void test_fixed_k(void)
{
	static const u64 caps[] = { 1, 10, 1000, 1000000 };
	static const u32 ppbs[] = { 100000000, 10000000, 1000, 1 };
	struct bloom_geometry g;
	unsigned int t, i, j, k, bad = 0, n = 0;

	for (t = 0; t < 4; t += 2)
		for (i = 0; i < 4; i++)
			for (j = 0; j < 4; j++)
				for (k = 1; k <= 32; k++) {
					int e = size(types[t], k, caps[i],
						     ppbs[j], 0, 0, &g);

					if (e == -E2BIG)
						continue;
					n++;
					if (e || g.hashes != k ||
					    std_bound(caps[i], g.bits, k) >
					    ppbs[j] / 1e9 * (1 + 1e-9))
						bad++;
				}
	check(bad == 0 && n > 400,
	      "fixed k 1..32, standard and counting: k kept, rate bound <= p (%u cases)",
	      n);
	check(size(BLOOM_CORE_BLOCKED, 4, 1000, 10000000, 0, 0, &g) == -EINVAL &&
	      size(BLOOM_CORE_DLEFT, 4, 1000, 10000000, 0, 0, &g) == -EINVAL &&
	      size(BLOOM_CORE_STANDARD, 33, 1000, 10000000, 0, 0, &g) == -EINVAL,
	      "fixed k: refused for blocked and d-left, and over 32");
}

static void test_bad(void)
{
	struct bloom_geometry g;

	check(size(1, 0, 1000, 0, 0, 0, &g) == -EINVAL &&
	      size(1, 0, 0, 0, 0, 4096, &g) == -EINVAL &&
	      size(1, 0, 1000, 10000000, 0, 4096, &g) == -EINVAL &&
	      size(1, 0, 0, 10000000, 10000, 0, &g) == -EINVAL &&
	      size(1, 0, 0, 0, 0, 0, &g) == -EINVAL &&
	      size(6, 0, 1000, 10000000, 0, 0, &g) == -EOPNOTSUPP,
	      "one, three or none of the four, rate with bits per key, an unknown type: refused");
}

static void test_rate_estimate(void)
{
	struct bloom_geometry g;
	unsigned int t, bad = 0;
	double r;

	for (t = 0; t < 4; t++) {
		bloom_geometry_size(types[t], 1000000, 10000000, &g);
		r = exp2(-(double)bloom_geometry_neg_log2_rate(&g) / 4294967296.0);
		printf("# %s n=1e6 p=0.01: expected rate at capacity %.5g\n",
		       tname(types[t]), r);
		if (r > 0.01 * 1.001 || r < 0.001)
			bad++;
	}
	check(bad == 0, "expected rate at capacity: at most p, for every type");
}

int main(void)
{
	double t0 = now();

	printf("TAP version 13\n");
	test_same_as_geometry_size();
	test_bits_per_key();
	test_memory();
	test_fixed_k();
	test_bad();
	test_rate_estimate();
	printf("1..%d\n", test_no);
	printf("# %d passed, %d failed, %.1f s\n", test_no - test_failed,
	       test_failed, now() - t0);
	return test_failed ? 1 : 0;
}
