// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * d-left sizing follows p, and its packed cells, TAP 13:
 *
 * - sizing: bits per key grow as p falls from 0.5 to 1e-9 and are the
 *   fewest the documented rule allows (cell widths 64 / c for c = 1..8
 *   cells per u64 word, at most 6 of 8 cells per bucket, 4 L 2^-r <=
 *   p * 31 / 32), recomputed here in floating point; every width is used
 *   by some p. Before the fix a d-left filter took 21.33 bits per key from
 *   p = 0.5 to p = 0.0015: the checks at 0.5 and 0.1 failed.
 * - the measured false-positive rate of filters filled to capacity, mean
 *   over many filters, is at most 1.1 p at p = 0.5, 0.1, 0.01, 0.001 and
 *   1e-4 (confidence below);
 * - for every width: no false negatives, add/delete round trips back to an
 *   all-zero table, keys added 3 times pinned (their deletes report pinned,
 *   they stay present), the snapshot check accepts the table;
 * - the packed layout at word boundaries: cells per word and table size for
 *   each width, no bits set above a word's last cell, and every add and
 *   delete in a table whose buckets straddle words changes exactly one
 *   cell (read by hand from the documented layout, unit.h dl_cell_of()),
 *   never a neighbour in the same or the next word; every counter lies in
 *   one 32-bit half of its word (what makes lockless reads safe where a
 *   u64 load is two loads);
 * - lockless readers beside a serialised writer, per width: a key added
 *   before the readers started is never missed while other keys are added
 *   and deleted in the same words.
 *
 * Confidence of the rate checks: each key's hash is an independent uniform
 * 64-bit value from a PRNG (SipHash under a random secret is a PRF), as in
 * test_small. The sizing makes the true mean at most 4 L 2^-r <= p. A case
 * fails when the observed mean over its filters exceeds 1.1 p; the standard
 * error of that mean (from the spread between filters, queries' binomial
 * noise included) is printed, and the case also requires 1.1 p - mean to be
 * at least 5 standard errors, so a correct core fails one case with
 * probability below 3e-7 (one-sided normal tail), the 5 cases below 2e-6.
 *
 * BLOOM_DLEFT_SEED=n reproduces a run (the seed is printed).
 */
#include <pthread.h>
#include <stdatomic.h>

#include "unit.h"
#include "snapshot.h"

/* One p per cell width, 8 to 64 bits (sizing at 10^6 keys). */
static const struct {
	u32 ppb, w;
} widths[] = {
	{ 500000000, 8 }, { 250000000, 9 }, { 100000000, 10 },
	{ 50000000, 12 }, { 10000000, 16 }, { 1000000, 21 }, { 10000, 32 },
	{ 10, 64 },
};

#define NWIDTHS	(sizeof(widths) / sizeof(widths[0]))

static double bpk_of(const struct bloom_geometry *g)
{
	return bloom_core_storage_bytes(g) * 8.0 / g->capacity;
}

/*
 * The table bits the documented rule gives for @n keys at @p, in floating
 * point: for each width w = 64 / c, the load L = min(6, floor(16 p 2^r *
 * 31 / 128) / 16), B = ceil(n / (4 L)) buckets per subtable, ceil(32 B / c)
 * words; the fewest bits, on a tie the wider cell. *@w gets the width.
 */
static double rule_bits(u64 n, double p, u32 *w)
{
	double best = INFINITY;
	u32 c;

	for (c = 8; c >= 1; c--) {
		u32 cw = 64 / c, r = cw - 2;
		double l16 = floor(p * ldexp(1, (int)r) * 31 / 8 + 1e-9), b;
		double bits;

		if (l16 > 96)
			l16 = 96;
		if (l16 < 1)
			continue;
		b = ceil(4.0 * n / l16);
		bits = ceil(32 * b / c) * 64;
		if (bits <= best) {
			best = bits;
			*w = cw;
		}
	}
	return best;
}

static void test_sizing(void)
{
	static const double ps[] = { 0.5, 0.3, 0.25, 0.2, 0.1, 0.05, 0.02,
				     0.01, 0.005, 0.002, 0.001, 1e-4, 1e-5,
				     1e-6, 1e-7, 1e-8, 1e-9 };
	const u64 n = 1000000;
	double prev = 0, bpk[sizeof(ps) / sizeof(ps[0])];
	bool mono = true, rule = true, rate = true, seen[65] = { false };
	struct bloom_geometry g, c;
	unsigned int i;
	u32 w = 0;

	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		u32 ppb = (u32)(ps[i] * 1e9 + 0.5);
		double rb, l;

		if (bloom_geometry_size(BLOOM_CORE_DLEFT, n, ppb, &g) ||
		    bloom_geometry_size(BLOOM_CORE_COUNTING, n, ppb, &c)) {
			check(false, "d-left p=%g: sizing", ps[i]);
			return;
		}
		bpk[i] = bpk_of(&g);
		l = (double)n / (4.0 * g.buckets);
		rb = rule_bits(n, ppb / 1e9, &w);
		printf("# p=%g: d-left %u-bit cells, r=%u, L=%.3f: %.2f bits/key, counting %.2f: %.3f x counting; 4 L 2^-r = %.3g\n",
		       ps[i], g.cell_bits, g.fingerprint_bits, l, bpk[i],
		       bpk_of(&c), bpk[i] / bpk_of(&c),
		       4 * l * ldexp(1, -(int)g.fingerprint_bits));
		mono &= bpk[i] >= prev;
		prev = bpk[i];
		rule &= g.bits == rb && g.cell_bits == w &&
			g.fingerprint_bits == g.cell_bits - 2 &&
			bloom_core_storage_bytes(&g) ==
				((u64)rb / 8 + 63) / 64 * 64;
		rate &= l <= 6 && 4 * l * ldexp(1, -(int)g.fingerprint_bits) <=
				  ppb / 1e9 * 31 / 32 * (1 + 1e-12);
		seen[g.cell_bits] = true;
	}
	check(mono, "d-left bits/key never fall as p falls from 0.5 to 1e-9");
	check(bpk[0] < 11 && bpk[0] < bpk[4] && bpk[4] < bpk[7] &&
	      bpk[7] < bpk[10],
	      "d-left bits/key follow p: %.2f at 0.5 < %.2f at 0.1 < %.2f at 0.01 < %.2f at 0.001 (was 21.33 for all but 0.001)",
	      bpk[0], bpk[4], bpk[7], bpk[10]);
	check(rule, "d-left tables are the fewest bits of the documented rule (widths 64/c, L <= 6, 4 L 2^-r <= 31/32 p)");
	check(rate, "d-left: L <= 6 and 4 L 2^-r <= 31/32 p at every p");
	for (i = 0; i < NWIDTHS; i++) {
		bloom_geometry_size(BLOOM_CORE_DLEFT, n, widths[i].ppb, &g);
		check(g.cell_bits == widths[i].w && seen[widths[i].w],
		      "d-left p=%g takes %u-bit cells",
		      widths[i].ppb / 1e9, widths[i].w);
	}
	/* the claims the docs make (README, bloom.rst) */
	bloom_geometry_size(BLOOM_CORE_DLEFT, n, 1000000, &g);
	bloom_geometry_size(BLOOM_CORE_COUNTING, n, 1000000, &c);
	check(bpk_of(&g) <= 0.5 * bpk_of(&c),
	      "d-left at p=0.001: %.2f bits/key, at most half of counting's %.2f",
	      bpk_of(&g), bpk_of(&c));
	bloom_geometry_size(BLOOM_CORE_DLEFT, n, 10000000, &g);
	bloom_geometry_size(BLOOM_CORE_COUNTING, n, 10000000, &c);
	check(bpk_of(&g) < 0.56 * bpk_of(&c),
	      "d-left at p=0.01: %.2f bits/key, under 0.56 x counting's %.2f",
	      bpk_of(&g), bpk_of(&c));
}

/* ---------------------------------------------------------------- rate */

static void test_rate(void)
{
	static const struct {
		u32 ppb, filters, n, queries;
	} plan[] = {
		{ 500000000, 40, 5000, 5000 },
		{ 100000000, 40, 10000, 20000 },
		{ 10000000, 40, 10000, 50000 },
		{ 1000000, 40, 10000, 100000 },
		{ 100000, 40, 10000, 250000 },
	};
	unsigned int a;

	for (a = 0; a < sizeof(plan) / sizeof(plan[0]); a++) {
		double p = plan[a].ppb / 1e9, sum = 0, sum2 = 0, r, mean, se;
		bloom_hash_key_t key = { .key = { 0, 0 } };
		struct bloom_geometry g;
		struct bloom_core f;
		u64 i, fp, bytes;
		u32 t, fails = 0;
		void *mem;

		bloom_geometry_size(BLOOM_CORE_DLEFT, plan[a].n, plan[a].ppb,
				    &g);
		bytes = bloom_core_storage_bytes(&g);
		mem = xalloc(bytes);
		for (t = 0; t < plan[a].filters; t++) {
			memset(mem, 0, bytes);
			bloom_core_init(&f, &g, &key, mem);
			for (i = 0; i < plan[a].n; i++)
				fails += bloom_core_add_hash(&f, rng()) < 0;
			fp = 0;
			for (i = 0; i < plan[a].queries; i++)
				fp += bloom_core_query_hash(&f, rng());
			r = (double)fp / plan[a].queries;
			sum += r;
			sum2 += r * r;
		}
		free(mem);
		mean = sum / plan[a].filters;
		se = sqrt(fmax(sum2 / plan[a].filters - mean * mean, 0) /
			  (plan[a].filters - 1));
		printf("# p=%g: %u filters of %u keys (%u-bit cells), %u queries each: mean FPR %.4g = %.3f p, standard error %.4f p\n",
		       p, plan[a].filters, plan[a].n, g.cell_bits,
		       plan[a].queries, mean, mean / p, se / p);
		check(!fails && mean <= 1.1 * p && 1.1 * p - mean >= 5 * se,
		      "d-left p=%g: mean FPR at capacity %.3f p <= 1.1 p (%.1f standard errors below it), %u adds failed",
		      p, mean / p, se > 0 ? (1.1 * p - mean) / se : 0, fails);
	}
}

/* ------------------------------------------------- per width: correctness */

/* Cells of @f that differ from @old: how many, and the last one's index. */
static u32 cells_changed(const struct filter *f, const void *old, u64 *at)
{
	u64 i, n = f->core.geo.buckets * 32;
	u32 w = f->core.geo.cell_bits, d = 0;

	for (i = 0; i < n; i++)
		if (dl_cell_of(f->mem, w, i) != dl_cell_of(old, w, i)) {
			d++;
			*at = i;
		}
	return d;
}

/* No bit above a word's last cell, no cell past the last bucket. */
static bool layout_clean(const struct filter *f)
{
	u32 w = f->core.geo.cell_bits, per = 64 / w, s;
	u64 words = f->core.geo.bits / 64, i, n = f->core.geo.buckets * 32;
	const u64 *p = f->mem;

	for (i = 0; i < words; i++)
		if (per * w < 64 && p[i] >> (per * w))
			return false;
	for (i = n; i < words * per; i++)
		if (dl_cell(f, i))
			return false;
	for (i = words * 8; i < f->bytes; i++)
		if (((const u8 *)f->mem)[i])
			return false;
	for (s = 0; s < per; s++)
		if ((s * w) / 32 != (s * w + 1) / 32)
			return false;
	return true;
}

static void test_width(unsigned int wi)
{
	enum { N = 3000 };
	u32 ppb = widths[wi].ppb, w = widths[wi].w, per = 64 / w;
	u64 h[N], i, fn = 0, at = 0, word_hits = 0, kept = 0, kept3 = 0;
	u32 k, bad_add = 0, bad_del = 0, pinned = 0, pinned_ok = 0;
	bool skip[N];
	struct bloom_core_stats st;
	struct filter f;
	bool zero = true;
	void *old;

	if (filter_new(&f, BLOOM_CORE_DLEFT, N, ppb) ||
	    f.core.geo.cell_bits != w) {
		check(false, "d-left %u-bit cells: sizing", w);
		return;
	}
	check(f.core.geo.bits == (f.core.geo.buckets * 32 + per - 1) / per *
				 64 &&
	      f.bytes == (f.core.geo.bits / 8 + 63) / 64 * 64,
	      "d-left %u-bit cells: %u to a word, %llu buckets x 32 cells in %llu words",
	      w, per, (unsigned long long)f.core.geo.buckets,
	      (unsigned long long)(f.core.geo.bits / 64));
	old = xalloc(f.bytes);
	/*
	 * Adds: key i (1 + (i % 7 == 0) + (i % 21 == 0) times), each add
	 * changes exactly one cell: new (count 1) or its count + 1, up to 3.
	 * A key that tests present before its first add shares its value x
	 * (and so its cell) with a key added before: it is left out, so that
	 * every key kept has a cell of its own.
	 */
	for (i = 0; i < N; i++)
		h[i] = rng();
	for (k = 0; k < 3; k++)
		for (i = 0; i < N; i++) {
			u64 before, after;
			int r;

			if (k == 0) {
				skip[i] = bloom_core_query_hash(&f.core, h[i]);
				kept += !skip[i];
				kept3 += !skip[i] && i % 21 == 0;
			}
			if (skip[i] || (k == 1 && i % 7) || (k == 2 && i % 21))
				continue;
			memcpy(old, f.mem, f.bytes);
			r = bloom_core_add_hash(&f.core, h[i]);
			if (cells_changed(&f, old, &at) != 1) {
				bad_add++;
				continue;
			}
			before = dl_cell_of(old, w, at);
			after = dl_cell(&f, at);
			bad_add += r < 0 ||
				   (before ? after != before + 1 ||
					     (before & 3) == 3 :
					     (after & 3) != 1);
			/* a cell that is not its word's first */
			word_hits += at % per != 0;
		}
	/* the batches' query and a packet's lone lookup */
	for (i = 0; i < N; i++)
		fn += !bloom_core_query_hash(&f.core, h[i]) ||
		      !bloom_core_lookup_hash(&f.core, h[i]);
	bloom_core_stats(&f.core, &st);
	check(!bad_add && !fn && layout_clean(&f) && st.in_use == kept &&
	      kept > N / 2 && (per == 1 || word_hits > 0),
	      "d-left %u-bit cells: %llu keys added 1-3 times (%llu sharing a value left out), each add changed exactly one cell (%u did not), no false negatives (%llu), no stray bits, %llu cells in use",
	      w, (unsigned long long)kept, (unsigned long long)(N - kept),
	      bad_add, (unsigned long long)fn,
	      (unsigned long long)st.in_use);
	check(!bloom_image_payload_check(&f.core),
	      "d-left %u-bit cells: the snapshot check accepts the table", w);
	/* deletes: each changes one cell by -1 or to 0; count 3 is pinned */
	for (k = 0; k < 3; k++)
		for (i = 0; i < N; i++) {
			int s;

			if (skip[i] || (k == 1 && i % 7) || (k == 2 && i % 21))
				continue;
			memcpy(old, f.mem, f.bytes);
			s = bloom_core_delete_hash(&f.core, h[i]);
			if (i % 21 == 0) {
				pinned += s == BLOOM_CORE_DEL_PINNED;
				pinned_ok += s == BLOOM_CORE_DEL_PINNED &&
					     !memcmp(old, f.mem, f.bytes);
				continue;
			}
			if (s == BLOOM_CORE_DEL_ABSENT ||
			    cells_changed(&f, old, &at) != 1) {
				bad_del++;
				continue;
			}
			bad_del += dl_cell(&f, at) !=
				   ((dl_cell_of(old, w, at) & 3) == 1 ? 0 :
				    dl_cell_of(old, w, at) - 1);
		}
	fn = 0;
	for (i = 0; i < N; i += 21)
		fn += !skip[i] && !bloom_core_query_hash(&f.core, h[i]);
	check(!bad_del && pinned == 3 * kept3 &&
	      pinned_ok == pinned && !fn,
	      "d-left %u-bit cells: every delete changed one cell (%u did not); %u deletes of keys added 3 times pinned, nothing changed, those keys present (%llu missing)",
	      w, bad_del, pinned, (unsigned long long)fn);
	/* without the pinned keys' cells the table is all zero again */
	for (i = 0; i < f.core.geo.buckets * 32; i++)
		if ((dl_cell(&f, i) & 3) != 3)
			zero &= !dl_cell(&f, i);
	bloom_core_stats(&f.core, &st);
	check(zero && st.in_use == kept3 && st.saturated == kept3 &&
	      layout_clean(&f),
	      "d-left %u-bit cells: after deleting every add only the %llu pinned cells are left (saturated %llu)",
	      w, (unsigned long long)st.in_use,
	      (unsigned long long)st.saturated);
	free(old);
	filter_free(&f);
}

/* ------------------------------------------------------ lockless readers */

/*
 * One writer adds and deletes churn keys in a small table (1 bucket row:
 * every word holds cells of live keys); readers query the live keys
 * without a lock. Start barrier; each reader makes at least MIN_ROUNDS
 * passes, and the writer keeps churning until they are done.
 */
enum { LIVE = 12, CHURN = 12, READERS = 2, MIN_ROUNDS = 2000 };

struct race {
	struct bloom_core *f;
	u64 live[LIVE];
	atomic_bool stop;
	atomic_uint ready;
	atomic_ullong missed, rounds;
};

static void *reader(void *arg)
{
	struct race *rc = arg;
	u64 missed = 0, rounds = 0;
	u32 i;

	atomic_fetch_add(&rc->ready, 1);
	while (atomic_load(&rc->ready) < READERS + 1)
		;
	while (rounds < MIN_ROUNDS || !atomic_load(&rc->stop)) {
		for (i = 0; i < LIVE; i++)
			missed += !bloom_core_query_hash(rc->f, rc->live[i]);
		if (++rounds == MIN_ROUNDS)
			atomic_fetch_add(&rc->rounds, 1);
	}
	atomic_fetch_add(&rc->missed, missed);
	return NULL;
}

static void test_race(unsigned int wi)
{
	u32 w = widths[wi].w;
	struct race rc = { 0 };
	pthread_t t[READERS];
	u64 churn[CHURN], ops = 0;
	struct filter f;
	u32 i;

	/* capacity 24: one bucket per subtable, 6 of 8 cells at capacity */
	if (filter_new(&f, BLOOM_CORE_DLEFT, 24, widths[wi].ppb) ||
	    f.core.geo.buckets != 1) {
		check(false, "d-left %u-bit cells: a one-bucket table", w);
		return;
	}
	rc.f = &f.core;
	for (i = 0; i < LIVE; i++) {
		rc.live[i] = rng();
		bloom_core_add_hash(&f.core, rc.live[i]);
	}
	for (i = 0; i < CHURN; i++)
		churn[i] = rng();
	for (i = 0; i < READERS; i++)
		pthread_create(&t[i], NULL, reader, &rc);
	atomic_fetch_add(&rc.ready, 1);
	while (atomic_load(&rc.ready) < READERS + 1)
		;
	/* at least 1000 churn rounds, and until every reader is done */
	while (ops < 1000 || atomic_load(&rc.rounds) < READERS) {
		for (i = 0; i < CHURN; i++)
			bloom_core_add_hash(&f.core, churn[i]);
		for (i = 0; i < CHURN; i++)
			bloom_core_delete_hash(&f.core, churn[i]);
		ops++;
	}
	atomic_store(&rc.stop, true);
	for (i = 0; i < READERS; i++)
		pthread_join(t[i], NULL);
	check(atomic_load(&rc.missed) == 0,
	      "d-left %u-bit cells: %u lockless readers never missed a live key during %llu rounds of %u adds and deletes in the same words",
	      w, READERS, (unsigned long long)ops, 2 * CHURN);
	filter_free(&f);
}

int main(void)
{
	double t0 = now();
	unsigned int i;

	printf("TAP version 13\n");
	rng_seed("BLOOM_DLEFT_SEED");
	test_sizing();
	test_rate();
	for (i = 0; i < NWIDTHS; i++) {
		test_width(i);
		test_race(i);
	}
	printf("1..%d\n", test_no);
	printf("# %d passed, %d failed, %.1f s\n", test_no - test_failed,
	       test_failed, now() - t0);
	return test_failed ? 1 : 0;
}
