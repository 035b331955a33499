// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of scalable filters in the core (module/core/scale.c), TAP 13:
 * the stage math against the formulas in double precision, the bounds,
 * growth by 20x and 100x (no false negatives, measured rate under P on a
 * million absent keys, the stages the formula predicts), adds from several
 * threads (under one writers' lock, as the core needs) across stage
 * boundaries; merge stage by stage. Stages are allocated here as bloom.ko
 * does: the core says when and how big, the caller allocates and publishes.
 */
#include "unit.h"
#include "scale.h"
#include "snapshot.h"
#include "../stages.h"

#define ABSENT		1000000u

/* The core's estimate of @c (a scalable filter's: over its stages). */
static struct bloom_core_estimate estimate(const struct bloom_core *c)
{
	struct bloom_core_estimate e;

	bloom_core_estimate(c, &e);
	return e;
}

struct sfilter {
	struct bloom_core core;
	struct bloom_scale scale;
	pthread_mutex_t grow_lock;
	void *mem[BLOOM_CORE_STAGES_MAX];
	struct bloom_scale_stage st[BLOOM_CORE_STAGES_MAX];
};

static int sfilter_grow(struct sfilter *f)
{
	struct bloom_geometry g;
	u32 n;
	int err = 0;

	pthread_mutex_lock(&f->grow_lock);
	if (bloom_scale_full(&f->core)) {
		n = bloom_scale_stages(&f->core);
		err = bloom_scale_next_geometry(&f->core, &g);
		if (!err) {
			f->mem[n] = xalloc(bloom_core_storage_bytes(&g));
			bloom_scale_publish(&f->core, &f->st[n], &g, f->mem[n]);
		}
	}
	pthread_mutex_unlock(&f->grow_lock);
	return err;
}

static int sfilter_new(struct sfilter *f, u32 type, u64 n, u32 ppb,
		       u32 growth, u32 tightening_ppm)
{
	struct bloom_scale_params p = {
		.type = type, .growth = growth, .capacity = n,
		.fpp_ppb = ppb, .tightening_ppm = tightening_ppm,
	};
	bloom_hash_key_t k;
	int err = bloom_scale_check(&p);

	if (err)
		return err;
	memset(f->mem, 0, sizeof(f->mem));
	pthread_mutex_init(&f->grow_lock, NULL);
	bloom_hash_key_from_bytes(&k, test_key);
	bloom_scale_init(&f->core, &f->scale, &p, &k);
	return sfilter_grow(f);
}

static void sfilter_free(struct sfilter *f)
{
	u32 i;

	for (i = 0; i < BLOOM_CORE_STAGES_MAX; i++)
		free(f->mem[i]);
	pthread_mutex_destroy(&f->grow_lock);
}

/* Adds @n hashes, growing as the core asks; returns keys found present. */
static long sfilter_add(struct sfilter *f, const u64 *h, u32 n, u8 *results)
{
	u32 pos = 0;
	long hits = 0;
	int err;

	for (;;) {
		hits += bloom_scale_add_batch(&f->core, h, n, results, &pos);
		if (pos == n)
			return hits;
		err = sfilter_grow(f);
		if (err)
			return err;
	}
}

/* ---------------------------------------------------------- stage math */

static void test_stage_math(void)
{
	struct bloom_scale_params p = {
		.type = BLOOM_CORE_STANDARD, .growth = 2, .capacity = 10000,
		.fpp_ppb = 1000000, .tightening_ppm = 850000,
	};
	static const u32 ts[] = { 500000, 850000, 900000, 950000 };
	static const u32 gs[] = { 2, 3, 4, 16 };
	static const u32 ps[] = { 500000000, 10000000, 1000000, 1000 };
	unsigned int a, b, c, i, bad = 0, combos = 0;
	struct bloom_geometry g, want;
	double sum_max = 0;
	u64 cap;
	u32 ppb;

	for (a = 0; a < 4; a++)
		for (b = 0; b < 4; b++)
			for (c = 0; c < 4; c++) {
				double sum = 0;

				p.tightening_ppm = ts[a];
				p.growth = gs[b];
				p.fpp_ppb = ps[c];
				combos++;
				for (i = 0; i < BLOOM_CORE_STAGES_MAX; i++) {
					double r = ts[a] / 1e6, exact, capd;
					int err = bloom_scale_stage_params(&p, i, &cap, &ppb);

					/* (1 - r) in double is off by an ulp */
					exact = ps[c] * (1 - r) * pow(r, i) * (1 + 1e-12);
					capd = 10000 * pow(gs[b], i);
					if (capd > 4294967295.0 || exact < 1) {
						/* growth ends with ENOSPC */
						bad += err != -ENOSPC;
						break;
					}
					if (err || cap != (u64)capd ||
					    ppb > exact || ppb < exact - 1.0 - exact * 1e-5)
						bad++;
					sum += ppb;
				}
				if (sum / ps[c] > sum_max)
					sum_max = sum / ps[c];
			}
	check(bad == 0,
	      "stage i: capacity N*s^i, rate floor(P*(1-r)*r^i) ppb (within 1 ppb, never over), ENOSPC past 2^32-1 keys or 1 ppb; %u combinations of r, s, P",
	      combos);
	check(sum_max < 1.0,
	      "sum of all stage rates under P for every combination (largest sum %.6f P)",
	      sum_max);

	p.growth = 2;
	p.fpp_ppb = 1000000;
	p.tightening_ppm = 850000;
	bloom_scale_stage_params(&p, 0, &cap, &ppb);
	check(cap == 10000 && ppb == 150000,
	      "defaults N=10000 P=0.001: stage 0 holds 10000 keys at 150000 ppb (P*(1-r))");
	/* a rate that is whole in ppb comes out whole, not one below */
	bloom_scale_stage_params(&p, 1, &cap, &ppb);
	check(cap == 20000 && ppb == 127500,
	      "stage 1 holds 20000 keys at 127500 ppb exactly (P*(1-r)*r = %u)",
	      ppb);
	bloom_scale_stage_params(&p, 3, &cap, &ppb);
	check(cap == 80000 && ppb == 92118,
	      "stage 3: 80000 keys at 92118 ppb (0.001*0.15*0.85^3 = 92118.75 rounded down), got %llu at %u",
	      (unsigned long long)cap, ppb);
	bad = 0;
	for (a = 0; a < 2; a++) {
		p.type = a ? BLOOM_CORE_BLOCKED : BLOOM_CORE_STANDARD;
		for (i = 0; i < 12; i++) {
			bloom_scale_stage_params(&p, i, &cap, &ppb);
			if (bloom_scale_stage_geometry(&p, i, &g) ||
			    bloom_geometry_size(p.type, cap, ppb, &want) ||
			    memcmp(&g, &want, sizeof(g)))
				bad++;
		}
	}
	check(bad == 0,
	      "each stage's geometry is bloom_geometry_size() of its capacity and rate (standard, blocked, 12 stages)");
	p.type = BLOOM_CORE_STANDARD;
	check(bloom_scale_stage_params(&p, BLOOM_CORE_STAGES_MAX, &cap, &ppb) == -ENOSPC,
	      "stage %d (past BLOOM_CORE_STAGES_MAX): -ENOSPC",
	      BLOOM_CORE_STAGES_MAX);
}

static void test_bounds(void)
{
	struct bloom_scale_params p = {
		.type = BLOOM_CORE_STANDARD, .growth = 2, .capacity = 1000,
		.fpp_ppb = 10000000, .tightening_ppm = 850000,
	}, q;

	check(bloom_scale_check(&p) == 0, "defaults are valid");
	q = p; q.growth = 1;
	check(bloom_scale_check(&q) == -EINVAL, "growth 1: -EINVAL");
	q = p; q.growth = 17;
	check(bloom_scale_check(&q) == -EINVAL, "growth 17: -EINVAL");
	q = p; q.growth = 16;
	check(bloom_scale_check(&q) == 0, "growth 16: valid");
	q = p; q.tightening_ppm = 499999;
	check(bloom_scale_check(&q) == -EINVAL, "tightening 0.499999: -EINVAL");
	q = p; q.tightening_ppm = 950001;
	check(bloom_scale_check(&q) == -EINVAL, "tightening 0.950001: -EINVAL");
	q = p; q.tightening_ppm = 500000;
	check(bloom_scale_check(&q) == 0, "tightening 0.5: valid");
	q = p; q.type = BLOOM_CORE_COUNTING;
	check(bloom_scale_check(&q) == -EOPNOTSUPP, "counting: -EOPNOTSUPP");
	q = p; q.type = BLOOM_CORE_DLEFT;
	check(bloom_scale_check(&q) == -EOPNOTSUPP, "d-left: -EOPNOTSUPP");
	q = p; q.fpp_ppb = 6;
	check(bloom_scale_check(&q) == -EINVAL,
	      "P = 6 ppb: stage 0's rate 0.9 ppb rounds to 0: -EINVAL");
	q = p; q.capacity = 0;
	check(bloom_scale_check(&q) == -EINVAL, "capacity 0: -EINVAL");
}

/* -------------------------------------------------------------- growth */

static void test_growth(u32 type, u32 factor)
{
	const u64 n0 = 10000;
	const u32 ppb = 1000000;	/* P = 0.001 */
	u32 nkeys = n0 * factor, i, fn = 0, fp = 0, full_ok = 1, ns, differ = 0;
	u64 *h = malloc(sizeof(u64) * nkeys), count = 0;
	struct sfilter f;
	double est;
	long hits;

	check(sfilter_new(&f, type, n0, ppb, 2, 850000) == 0,
	      "%s scalable N=10000 P=0.001: created", tname(type));
	for (i = 0; i < nkeys; i++)
		h[i] = key_hash(&f.core, 1, i);
	hits = sfilter_add(&f, h, nkeys, NULL);
	/* the batches' query, and a packet's lone lookup key for key */
	for (i = 0; i < nkeys; i++)
		fn += !bloom_core_query_hash(&f.core, h[i]) ||
		      !bloom_core_lookup_hash(&f.core, h[i]);
	for (i = 0; i < ABSENT; i++) {
		u64 a = key_hash(&f.core, 2, i);
		bool q = bloom_core_query_hash(&f.core, a);

		fp += q;
		differ += q != bloom_core_lookup_hash(&f.core, a);
	}
	ns = bloom_scale_stages(&f.core);
	for (i = 0; i < ns; i++) {
		const struct bloom_scale_stage *st = bloom_scale_stage(&f.core, i);

		count += st->count;
		if (i + 1 < ns && st->count != st->core.geo.capacity)
			full_ok = 0;
	}
	check(hits >= 0 && fn == 0 && differ == 0,
	      "%s fed %ux capacity (%u keys): no false negatives (%u), the lone lookup answers as the query (%u differ)",
	      tname(type), factor, nkeys, fn, differ);
	check(fp <= ABSENT / 1000,
	      "%s fed %ux: %u of %u absent keys hit, rate %.6f <= P = 0.001 (estimate %.6f)",
	      tname(type), factor, fp, ABSENT, fp / (double)ABSENT,
	      estimate(&f.core).fpp_ppb / 1e9);
	/*
	 * The estimate models each stage by its type (blocked: the
	 * block-load model, which (X/m)^k would read about 3x low): within
	 * 1.5x of the rate measured on 10^6 absent keys (about 500 hits, a
	 * standard deviation of 5%).
	 */
	est = estimate(&f.core).fpp_ppb / 1e9;
	check(est > fp / (double)ABSENT / 1.5 && est < fp / (double)ABSENT * 1.5,
	      "%s fed %ux: estimated rate %.6f within 1.5x of the measured %.6f",
	      tname(type), factor, est, fp / (double)ABSENT);
	check(estimate(&f.core).keys > nkeys * 0.95 &&
	      estimate(&f.core).keys < nkeys * 1.05,
	      "%s fed %ux: estimated keys %llu within 5%% of %u (the stages' sum)",
	      tname(type), factor,
	      (unsigned long long)estimate(&f.core).keys, nkeys);
	check(count + hits == nkeys && ns == stages_for(n0, 2, count) && full_ok,
	      "%s fed %ux: %u stages for %llu new keys, as the formula says (older stages exactly at capacity)",
	      tname(type), factor, ns, (unsigned long long)count);
	printf("# %s %ux: %u stages, %.3f bits/key over %u keys, measured rate %.6f\n",
	       tname(type), factor, ns, bloom_core_bits(&f.core) / (double)nkeys,
	       nkeys, fp / (double)ABSENT);
	sfilter_free(&f);
	free(h);
}

/* ----------------------------------------------------- limits, results */

static void test_limits(void)
{
	struct sfilter f;
	u64 h[64];
	u8 res[8];
	u32 i, pos = 0;
	int hits, r;

	/* N = 2^31, s = 2: stage 1 would hold 2^32 > 2^32 - 1 keys */
	check(sfilter_new(&f, BLOOM_CORE_STANDARD, 1, 10000000, 2, 850000) == 0,
	      "N=1 created");
	for (i = 0; i < 64; i++)
		h[i] = key_hash(&f.core, 3, i);
	hits = bloom_scale_add_batch(&f.core, h, 64, res, &pos);
	check(pos == 1 && hits == 0 && bloom_scale_full(&f.core),
	      "a batch stops when the newest stage is full (pos %u)", pos);
	r = bloom_core_add_hash(&f.core, h[1]);
	check(r == -ENOSPC, "bloom_core_add_hash on a full scalable filter: -ENOSPC (%d)", r);
	check(bloom_core_add_batch(&f.core, h, 64, res) == -ENOSPC,
	      "bloom_core_add_batch on a full scalable filter: -ENOSPC");
	check(bloom_core_add_hash(&f.core, h[0]) == 1,
	      "a present key on a full filter: 1, no growth needed");
	check(sfilter_add(&f, h, 64, res) >= 1 && bloom_scale_stages(&f.core) == 7,
	      "64 keys at N=1, s=2: 7 stages (1+2+4+...+64 >= 64)");
	for (i = 0; i < 64; i++)
		if (!bloom_core_query_hash(&f.core, h[i]))
			break;
	check(i == 64 && (res[0] & 1), "all 64 present; key 0 reported present on the second add");
	sfilter_free(&f);
}

/* --------------------------------------------------------- concurrency */

struct worker {
	struct sfilter *f;
	const u64 *h;
	u32 n;
	long ret;
	pthread_barrier_t *start;
	pthread_mutex_t *lock;	/* the writers' lock the core needs */
};

static void *worker_add(void *arg)
{
	struct worker *w = arg;
	u32 i;

	pthread_barrier_wait(w->start);
	/* small batches: many boundary crossings inside each thread */
	for (i = 0; i < w->n && w->ret >= 0; i += 16) {
		u32 m = w->n - i < 16 ? w->n - i : 16;
		long r;

		pthread_mutex_lock(w->lock);
		r = sfilter_add(w->f, w->h + i, m, NULL);
		pthread_mutex_unlock(w->lock);

		if (r < 0)
			w->ret = r;
	}
	return NULL;
}

static void test_concurrency(u32 type, u32 rounds)
{
	const u32 threads = 4, per = 3000;
	u64 *h = malloc(sizeof(u64) * threads * per);
	u32 r, t, i, lost = 0, failed = 0, overfull = 0, ns_min = 99;

	for (r = 0; r < rounds; r++) {
		pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
		pthread_t tid[4];
		struct worker w[4];
		pthread_barrier_t start;
		struct sfilter f;

		/* N = 100: stages 100, 200, ..., 6400: 7 boundaries */
		sfilter_new(&f, type, 100, 10000000, 2, 850000);
		for (i = 0; i < threads * per; i++)
			h[i] = key_hash(&f.core, 100 + r, i);
		pthread_barrier_init(&start, NULL, threads);
		for (t = 0; t < threads; t++) {
			w[t] = (struct worker){ &f, h + t * per, per, 0, &start,
						&lock };
			pthread_create(&tid[t], NULL, worker_add, &w[t]);
		}
		for (t = 0; t < threads; t++) {
			pthread_join(tid[t], NULL);
			failed += w[t].ret < 0;
		}
		pthread_barrier_destroy(&start);
		for (i = 0; i < threads * per; i++)
			lost += !bloom_core_query_hash(&f.core, h[i]);
		for (i = 0; i < bloom_scale_stages(&f.core); i++) {
			const struct bloom_scale_stage *st =
				bloom_scale_stage(&f.core, i);

			overfull += st->count > st->core.geo.capacity;
		}
		if (bloom_scale_stages(&f.core) < ns_min)
			ns_min = bloom_scale_stages(&f.core);
		sfilter_free(&f);
	}
	free(h);
	check(!lost && !failed && !overfull && ns_min >= 7,
	      "%s: 4 threads x 3000 keys in batches of 16 across 7+ stage boundaries, %u rounds: %u keys lost, %u failed adds, %u stages over capacity",
	      tname(type), rounds, lost, failed, overfull);
}

static void test_estimate(void)
{
	struct sfilter f;
	u64 h[2000];
	u32 i, est0, est1;
	double miss = 1;

	sfilter_new(&f, BLOOM_CORE_STANDARD, 1000, 10000000, 2, 850000);
	est0 = estimate(&f.core).fpp_ppb;
	for (i = 0; i < 2000; i++)
		h[i] = key_hash(&f.core, 9, i);
	sfilter_add(&f, h, 2000, NULL);
	est1 = estimate(&f.core).fpp_ppb;
	check(est0 == 0 && estimate(&f.core).keys > 0 && est1 > 0 &&
	      est1 < 10000000,
	      "compound estimated rate: 0 when empty, %u ppb after 2x capacity (under P = 10000000)",
	      est1);
	for (i = 0; i < bloom_scale_stages(&f.core); i++)
		miss *= 1 - estimate(&bloom_scale_stage(&f.core, i)->core)
			    .fpp_ppb / 1e9;
	check(fabs(est1 - (1 - miss) * 1e9) <= 2,
	      "compound estimate %u ppb = 1 - prod(1 - stage estimate) = %.1f ppb",
	      est1, (1 - miss) * 1e9);
	check(bloom_core_bits(&f.core) ==
	      bloom_scale_stage(&f.core, 0)->core.geo.bits +
	      bloom_scale_stage(&f.core, 1)->core.geo.bits,
	      "bloom_core_bits is the sum of the stages' bits");
	sfilter_free(&f);
}

/*
 * Batched queries (chunks of 32, stage by stage) agree with single ones, at
 * every offset and length, and a batch add reports exactly the keys that
 * were present before it.
 */
static void test_batch_agrees(u32 type)
{
	const u32 n = 50003, added = 30000;	/* not multiples of 8 or 32 */
	u64 *h = malloc(sizeof(u64) * n);
	u8 *res = malloc((n + 7) / 8), *res2 = malloc((n + 7) / 8);
	u32 i, bad = 0, hits_want = 0, off, fp = 0;
	struct sfilter f;
	long hits;

	sfilter_new(&f, type, 1000, 10000000, 2, 850000);
	for (i = 0; i < n; i++)
		h[i] = key_hash(&f.core, 11, i);
	sfilter_add(&f, h, added, NULL);
	for (off = 0; off < 40; off += 13) {
		hits = bloom_core_query_batch(&f.core, h + off, n - off, res);
		hits_want = 0;
		for (i = off; i < n; i++) {
			bool one = bloom_core_query_hash(&f.core, h[i]);

			hits_want += one;
			bad += one != ((res[(i - off) / 8] >> ((i - off) % 8)) & 1);
		}
		bad += (u32)hits != hits_want;
	}
	check(!bad && bloom_scale_stages(&f.core) == 5,
	      "%s: batched queries over 5 stages equal single ones at offsets 0, 13, 26, 39 (%u differ)",
	      tname(type), bad);
	/* keys 20000..50002: the first 10000 were added above */
	memset(res2, 0, (n + 7) / 8);
	for (i = 20000; i < n; i++)
		if (bloom_core_query_hash(&f.core, h[i]))
			res2[(i - 20000) / 8] |= 1 << ((i - 20000) % 8);
	hits = sfilter_add(&f, h + 20000, n - 20000, res);
	/*
	 * Present before: reported present. Absent before: reported present
	 * only when the batch's own earlier keys set all its bits (a false
	 * positive, rare at P = 0.01).
	 */
	for (i = 0; i < n - 20000; i++) {
		u32 was = (res2[i / 8] >> (i % 8)) & 1, got = (res[i / 8] >> (i % 8)) & 1;

		bad += was && !got;
		fp += !was && got;
		bad += !bloom_core_query_hash(&f.core, h[20000 + i]);
	}
	check(!bad && fp < 100 && hits >= 10000,
	      "%s: a batch add across stage boundaries: every key present before is reported present, %u others (false positives made by the batch), all present after",
	      tname(type), fp);
	sfilter_free(&f);
	free(h);
	free(res);
	free(res2);
}

/* ---------------------------------------------------------------- merge */

/*
 * bloom_scale_merge(): a destination of 1 stage, given the stages it
 * lacks as bloom.ko gives them, takes the 5 stages of the source; every
 * key of both is then present, each stage count is at most its capacity,
 * and the source is unchanged. Filters of other parameters do not line
 * up (bloom_scale_compatible()): -EINVAL, nothing changed.
 */
static void test_merge(u32 type)
{
	const u32 ns = 20000, nd = 300;
	u64 *h = malloc(sizeof(u64) * (ns + nd));
	struct sfilter src, dst, other;
	u32 i, missing = 0, over = 0;
	u64 src_bits;
	int err;

	sfilter_new(&src, type, 1000, 10000000, 2, 850000);
	sfilter_new(&dst, type, 1000, 10000000, 2, 850000);
	sfilter_new(&other, type, 1000, 10000000, 4, 850000);
	for (i = 0; i < ns + nd; i++)
		h[i] = key_hash(&src.core, 17, i);
	sfilter_add(&src, h, ns, NULL);
	sfilter_add(&dst, h + ns, nd, NULL);
	src_bits = bloom_core_bits_set(&src.core);
	check(bloom_scale_compatible(&dst.core, &src.core) &&
	      !bloom_scale_compatible(&dst.core, &other.core) &&
	      bloom_scale_merge(&other.core, &src.core) == -EINVAL &&
	      bloom_scale_merge(&dst.core, &src.core) == -EINVAL &&
	      bloom_scale_stages(&dst.core) == 1,
	      "%s: merge refuses other parameters, and a destination short of stages (-EINVAL), changing nothing",
	      tname(type));
	while (bloom_scale_stages(&dst.core) < bloom_scale_stages(&src.core)) {
		struct bloom_geometry g;
		u32 n = bloom_scale_stages(&dst.core);

		if (bloom_scale_next_geometry(&dst.core, &g))
			break;
		dst.mem[n] = xalloc(bloom_core_storage_bytes(&g));
		bloom_scale_publish(&dst.core, &dst.st[n], &g, dst.mem[n]);
	}
	err = bloom_scale_merge(&dst.core, &src.core);
	for (i = 0; i < ns + nd; i++)
		missing += !bloom_core_query_hash(&dst.core, h[i]);
	for (i = 0; i < bloom_scale_stages(&dst.core); i++)
		over += dst.st[i].count > dst.st[i].core.geo.capacity;
	check(!err && !missing && !over &&
	      bloom_scale_stages(&dst.core) == bloom_scale_stages(&src.core) &&
	      bloom_core_bits_set(&src.core) == src_bits,
	      "%s: merged stage by stage into %u stages: all %u keys present (%u missing), counts within capacity, source unchanged",
	      tname(type), bloom_scale_stages(&dst.core), ns + nd, missing);
	sfilter_free(&src);
	sfilter_free(&dst);
	sfilter_free(&other);
	free(h);
}

/* ------------------------------------------------------------ snapshots */

static void snap_put(u8 *p, u64 v, int bytes)
{
	int i;

	for (i = 0; i < bytes; i++)
		p[i] = (u8)(v >> (8 * i));
}

/* @f saved as a snapshot in a new buffer of *@len bytes. */
static u8 *snap_save(const struct bloom_core *f, u64 *len)
{
	struct bloom_image_header h;
	u32 i, hs = bloom_image_header_bytes(f);
	u64 off;
	u8 *file;

	bloom_image_header_init(&h, f);
	*len = hs + h.payload_bytes;
	file = xalloc(*len);
	bloom_image_header_make(file, f, "sc", NULL);
	for (i = 0, off = hs; i < bloom_scale_stages(f); i++) {
		const struct bloom_scale_stage *st = bloom_scale_stage(f, i);
		u64 n = bloom_core_storage_bytes(&st->core.geo);

		memcpy(file + off, st->core.words, n);
		off += n;
	}
	return file;
}

/* header_read of @file after @off got @v (@bytes wide), header resealed. */
static int snap_edited(const u8 *file, u64 len, u32 off, u64 v, int bytes)
{
	struct bloom_image_header h;
	const char *why;
	u8 *copy = xalloc(len);
	u32 hs;
	int ret;

	memcpy(copy, file, len);
	hs = copy[12] | copy[13] << 8;
	snap_put(copy + off, v, bytes);
	snap_put(copy + hs - 8, bloom_image_hash(copy, hs - 8), 8);
	ret = bloom_image_header_read(copy, len, &h, &why);
	free(copy);
	return ret;
}

/*
 * A scalable filter's snapshot keeps its stages: the same parameters,
 * geometry, counts and bits after a load, every key present, and the
 * loaded filter goes on from where the saved one was (its newest stage
 * fills up at its capacity, not later). A damaged stage table is refused.
 */
static void test_snapshot(u32 type)
{
	static struct bloom_image_chain chain;
	static u64 h[7100];
	struct bloom_image_header hd;
	struct bloom_core g;
	const char *why = NULL;
	struct sfilter f;
	u32 i, n, miss = 0, same = 1, pos = 0;
	u64 len, st2;
	u8 *file, *storage;
	int ret;

	sfilter_new(&f, type, 1000, 1000000, 2, 850000);
	for (i = 0; i < 7100; i++)
		h[i] = key_hash(&f.core, 11, i);
	sfilter_add(&f, h, 5000, NULL);
	n = bloom_scale_stages(&f.core);
	file = snap_save(&f.core, &len);
	ret = bloom_image_header_read(file, len, &hd, &why);
	check(!ret && n == 3 && hd.nstages == n &&
	      (hd.incompat & BLOOM_IMAGE_F_STAGES) &&
	      hd.header_size == BLOOM_IMAGE_HEADER_SIZE + 40 * n &&
	      hd.scale.growth == 2 && hd.scale.tightening_ppm == 850000,
	      "%s: a snapshot of %u stages: the stage feature, a header of 256 + 40 x %u bytes, the parameters (%s)",
	      tname(type), n, n, ret ? why : "read");
	storage = xalloc(hd.payload_bytes);
	check(bloom_image_load(&g, &hd, file, len, storage, NULL, &why) ==
	      -EOPNOTSUPP,
	      "%s: loading it without room for stages is -EOPNOTSUPP",
	      tname(type));
	ret = bloom_image_load(&g, &hd, file, len, storage, &chain, &why);
	check(!ret && bloom_core_is_scalable(&g) &&
	      bloom_scale_stages(&g) == n,
	      "%s: it loads as a scalable filter of %u stages (%s)",
	      tname(type), n, ret ? why : "loaded");
	if (ret)
		goto out;
	for (i = 0; i < n; i++) {
		const struct bloom_scale_stage *a = bloom_scale_stage(&f.core, i);
		const struct bloom_scale_stage *b = bloom_scale_stage(&g, i);

		same &= a->core.geo.bits == b->core.geo.bits &&
			a->core.geo.hashes == b->core.geo.hashes &&
			a->core.geo.capacity == b->core.geo.capacity &&
			a->core.geo.fpp_ppb == b->core.geo.fpp_ppb &&
			a->count == b->count &&
			bloom_core_bits_set(&a->core) ==
			bloom_core_bits_set(&b->core) &&
			!memcmp(a->core.words, b->core.words,
				bloom_core_storage_bytes(&a->core.geo));
	}
	check(same, "%s: every stage has its geometry, count, bits set and bits back",
	      tname(type));
	for (i = 0; i < 5000; i++)
		miss += !bloom_core_query_hash(&g, h[i]);
	check(miss == 0, "%s: all 5000 keys present after the load (%u missing)",
	      tname(type), miss);
	/*
	 * Stage 2 (capacity 4000) held about 2000: of 2100 more keys it
	 * takes what fills it to 4000 and stops there for a new stage.
	 */
	st2 = bloom_scale_stage(&g, 2)->count;
	ret = bloom_scale_add_batch(&g, h + 5000, 2100, NULL, &pos);
	check(st2 > 1900 && st2 < 2000 && pos < 2100 &&
	      bloom_scale_stages(&g) == 3 &&
	      bloom_scale_stage(&g, 2)->count == 4000 && bloom_scale_full(&g),
	      "%s: the loaded filter goes on: its newest stage, holding %llu, took keys up to 4000 and stopped after %u of 2100",
	      tname(type), (unsigned long long)st2, pos);

	/* a damaged stage table (header checksum made right) */
	check(snap_edited(file, len, 200, n + 1, 4) == -EBADMSG,
	      "%s: a stage count the header's size does not hold: -EBADMSG",
	      tname(type));
	check(snap_edited(file, len, 248 + 40, 2001, 8) == -EBADMSG,
	      "%s: stage 1 with a capacity its index does not give: -EBADMSG",
	      tname(type));
	check(snap_edited(file, len, 248 + 80 + 16, 4001, 8) == -EBADMSG,
	      "%s: stage 2 holding more keys than its capacity: -EBADMSG",
	      tname(type));
	check(snap_edited(file, len, 192, 1, 4) == -EBADMSG,
	      "%s: growth 1: -EBADMSG", tname(type));
	check(snap_edited(file, len, 16, 0, 4) == -EBADMSG,
	      "%s: the stage feature cleared (the payload is not one filter's): -EBADMSG",
	      tname(type));
	check(snap_edited(file, len, 16, 33, 4) == -EPROTONOSUPPORT,
	      "%s: an unknown incompatible feature beside it: -EPROTONOSUPPORT",
	      tname(type));
out:
	free(storage);
	free(file);
	sfilter_free(&f);
}

int main(int argc, char **argv)
{
	double t0 = now();
	u32 rounds = argc > 1 ? (u32)atoi(argv[1]) : 20;

	printf("TAP version 13\n");
	test_stage_math();
	test_bounds();
	test_limits();
	test_estimate();
	test_batch_agrees(BLOOM_CORE_STANDARD);
	test_batch_agrees(BLOOM_CORE_BLOCKED);
	test_merge(BLOOM_CORE_STANDARD);
	test_merge(BLOOM_CORE_BLOCKED);
	test_snapshot(BLOOM_CORE_STANDARD);
	test_snapshot(BLOOM_CORE_BLOCKED);
	test_growth(BLOOM_CORE_STANDARD, 20);
	test_growth(BLOOM_CORE_STANDARD, 100);
	test_growth(BLOOM_CORE_BLOCKED, 20);
	test_growth(BLOOM_CORE_BLOCKED, 100);
	test_concurrency(BLOOM_CORE_STANDARD, rounds);
	test_concurrency(BLOOM_CORE_BLOCKED, rounds);
	printf("1..%d\n", test_no);
	printf("# %d passed, %d failed, %.1f s\n", test_no - test_failed,
	       test_failed, now() - t0);
	return test_failed ? 1 : 0;
}
