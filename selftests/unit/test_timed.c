// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Filters whose keys each have their own timeout (module/core/timed.c),
 * TAP 13. Times are the seconds the tests set the clock to (timed_at.h);
 * nothing sleeps.
 *
 * - sizing: bits per key at p = 1e-2, 1e-4 and 1e-6 (printed; the
 *   figures bloom.rst quotes), tag bits, and at 1e-4 at most a sixth of
 *   ipset's 48 bytes an entry;
 * - timeouts: a key added with T (1 s to the largest, sampled) tests
 *   present at every sampled second before T after its add and absent
 *   (it is the only key) from T + resolution on; the resolution is at
 *   most max(1, T / 16); 0 never expires;
 * - set semantics: a second add keeps the later expiry whichever came
 *   first, one delete removes a key added many times, deleting every key
 *   leaves no cell in use; a delete of an absent key reports absent;
 * - keys with one (bucket, fingerprint) in every subtable (built by
 *   flipping hash bits that neither the bucket nor the fingerprint reads):
 *   with different tags each gets a cell and deleting one leaves the other
 *   present; with equal tags they are one key to the filter, and deleting
 *   one removes both, as bloom.rst says;
 * - reclaiming: a sweep empties expired cells and only those; an add to a
 *   bucket reclaims its expired cells; a sweep within 29 units keeps an
 *   expired key absent past the tick's wrap, and without one it comes back
 *   as the documented false positive, never the other way round;
 * - snapshots: a saved table passes the load check and a duplicated cell or
 *   a cell without a class fails it; rebased onto another clock after 100 s,
 *   each key keeps the time it had left less those 100 s (present just
 *   before, absent a unit after), a key with less left is gone, one
 *   without timeout stays; a table whose keys have more left than the
 *   filter's largest timeout, or a unit none of its timeouts has, is
 *   refused;
 * - a filter filled to capacity with timeouts from 1 minute to 30 days:
 *   no insert fails, no false negative at any sampled time, the measured
 *   false-positive rate is at most 1.1 p, and the rate at which an add of
 *   a new key finds another key's cell (fingerprint and tag equal) is
 *   printed beside p x 2^-t and checked against 3 x it plus 10 events;
 * - the same filled table replaced three times over (a random key deleted,
 *   a new one added, 600,000 times), in both placements of the second
 *   bucket (timed_table.h) and at rates from 0.5 (12-bit fingerprints,
 *   the fewest sizing gives: the fewest offsets) down to 1e-6: no add
 *   fails, and the fullest bucket is printed. The load rule's figures
 *   (timed_table.h) were measured so at 10^7 keys.
 *
 * BLOOM_TIMED_SEED=n reproduces a run (the seed is printed).
 */
#include "unit.h"
#include "internal.h"
#include "snapshot.h"
#include "timed.h"
#include "timed_at.h"
#include "timed_table.h"

#define DAY	86400U
#define T0	1000000ULL	/* the clock at the first add */

static int tfilter(struct filter *f, u64 n, u32 ppb)
{
	return filter_new(f, BLOOM_CORE_TIMED, n, ppb);
}

static u32 tag_bits(const struct bloom_core *c)
{
	return c->geo.cell_bits - 11 - c->geo.fingerprint_bits;
}

static void test_sizing(void)
{
	static const u32 ppbs[] = { 10000000, 100000, 1000 };
	struct bloom_geometry g;
	u32 i;

	for (i = 0; i < 3; i++) {
		double bpk;

		check(!bloom_geometry_size(BLOOM_CORE_TIMED, 1000000, ppbs[i],
					   &g), "sizes 1M keys at %g",
		      ppbs[i] / 1e9);
		bpk = bloom_core_storage_bytes(&g) * 8.0 / g.capacity;
		printf("# p=%g: %u-bit cells, %u fingerprint and %u tag bits, "
		       "%.2f bits (%.2f bytes) a key\n", ppbs[i] / 1e9,
		       g.cell_bits, g.fingerprint_bits,
		       g.cell_bits - 11 - g.fingerprint_bits, bpk, bpk / 8);
		if (ppbs[i] == 100000)
			check(bpk / 8 <= 48.0 / 6,
			      "1e-4: %.2f bytes a key, at most 8 (ipset / 6)",
			      bpk / 8);
		check(!bloom_tm_geometry_check(&g), "its geometry passes the check");
	}
	check(bloom_timed_resolution_s(1) == 1 &&
	      bloom_timed_resolution_s(31) == 1 &&
	      bloom_timed_resolution_s(32) == 2 &&
	      bloom_timed_resolution_s(600) == 32 &&
	      bloom_timed_resolution_s(BLOOM_CORE_KEY_TIMEOUT_MAX) == 1U << 26,
	      "resolutions: 1 s to 31 s, then the power of two <= T / 16");
}

/*
 * Present at sampled times before T, absent from T + res on: the expiry,
 * ceil((now + 1 + T) / res) units, is at most now + T + res seconds.
 */
static void test_timeouts(void)
{
	static const u32 ts[] = {
		1, 2, 5, 16, 31, 32, 33, 47, 600, 3600, 14400, 30 * DAY,
		365 * DAY, BLOOM_CORE_KEY_TIMEOUT_MAX,
	};
	struct filter f;
	u32 i, bad = 0, res;
	u64 h, t, s;

	tfilter(&f, 1000, 1000000);
	for (i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
		for (s = 0; s < 50; s++) {
			u64 now = T0 + s * 7919;

			h = rng();
			res = bloom_timed_resolution_s(ts[i]);
			if (res > 1 && res > ts[i] / 16) {
				bad++;
				break;
			}
			add_at(&f.core, h, ts[i], now);
			for (t = 0; t < ts[i]; t += 1 + ts[i] / 97)
				bad += !query_at(&f.core, h, now + t);
			bad += !query_at(&f.core, h, now + ts[i] - 1);
			bad += !query_at(&f.core, h, now + ts[i]);
			bad += query_at(&f.core, h,
						 now + ts[i] + res);
			delete_at(&f.core, h, now);
		}
	}
	check(!bad, "timeouts 1 s to %u s: present until T, absent by T + "
	      "resolution (%u wrong)", BLOOM_CORE_KEY_TIMEOUT_MAX, bad);
	h = rng();
	add_at(&f.core, h, 0, T0);
	bad = 0;
	for (t = 0; t < 64; t++)
		bad += !query_at(&f.core, h, T0 + (t << 30));
	check(!bad, "timeout 0: present forever (%u wrong)", bad);
	filter_free(&f);
}

static void test_set(void)
{
	struct filter f;
	u64 a, b, k[1000], now = T0;
	u32 i, present = 0;
	int r1, r2;

	tfilter(&f, 1000, 1000000);
	a = rng();
	b = rng();
	r1 = add_at(&f.core, a, 10, now);
	r2 = add_at(&f.core, a, 1000, now + 5);
	check(r1 == 0 && r2 == 1, "a second add reports present (%d %d)", r1,
	      r2);
	add_at(&f.core, b, 1000, now);
	add_at(&f.core, b, 10, now + 5);
	check(query_at(&f.core, a, now + 500) &&
	      query_at(&f.core, b, now + 500),
	      "the later expiry is kept, shorter first or longer first");
	add_at(&f.core, a, 0, now + 6);
	add_at(&f.core, a, 10, now + 7);
	check(query_at(&f.core, a, now + 100000000),
	      "no timeout is later than any");
	check(delete_at(&f.core, a, now + 8) ==
	      BLOOM_CORE_DEL_REMOVED && !query_at(&f.core, a, now + 8),
	      "one delete removes a key added three times");
	check(delete_at(&f.core, a, now + 9) == BLOOM_CORE_DEL_ABSENT,
	      "deleting it again: absent");
	delete_at(&f.core, b, now + 9);
	for (i = 0; i < 1000; i++) {
		k[i] = rng();
		add_at(&f.core, k[i], 60 + i, now);
		add_at(&f.core, k[i], 30 + i, now + 1);
	}
	for (i = 0; i < 1000; i++)
		delete_at(&f.core, k[i], now + 2);
	for (i = 0; i < 1000; i++)
		present += query_at(&f.core, k[i], now + 2);
	check(!present && !bloom_core_count_in_use(&f.core) &&
	      !bloom_core_bits_set(&f.core),
	      "1000 keys added twice and deleted once: none left, no cell "
	      "in use (%u present)", present);
	filter_free(&f);
}

/* h with bit @k flipped, when the filter sees the same (q, fingerprint). */
static bool same_x(const struct bloom_core *c, u64 h, u32 k, u64 *h2)
{
	u64 b = c->geo.buckets, x = h ^ (1ULL << k);

	if (k < c->geo.fingerprint_bits ||
	    mul_u64_u64_shr(h, b, 64) != mul_u64_u64_shr(x, b, 64))
		return false;
	*h2 = x;
	return true;
}

static void test_shared_cell(void)
{
	bool seen_same = false, seen_diff = false;
	struct filter f;
	u64 h, h2, now = T0;
	u32 k, tries;

	tfilter(&f, 1000, 100000);
	printf("# %u tag bits\n", tag_bits(&f.core));
	for (tries = 0; tries < 1000 && !(seen_same && seen_diff); tries++) {
		h = rng();
		for (k = f.core.geo.fingerprint_bits; k < 40; k++) {
			int r;

			if (!same_x(&f.core, h, k, &h2))
				continue;
			add_at(&f.core, h, 600, now);
			r = add_at(&f.core, h2, 600, now);
			if (!r && !seen_diff) {
				seen_diff = true;
				check(bloom_core_bits_set(&f.core) == 2 &&
				      delete_at(&f.core, h2, now) ==
				      BLOOM_CORE_DEL_REMOVED &&
				      query_at(&f.core, h, now) &&
				      delete_at(&f.core, h, now) ==
				      BLOOM_CORE_DEL_REMOVED,
				      "same fingerprint, other tag: a cell each, "
				      "deleting one keeps the other present");
			} else if (r == 1 && !seen_same) {
				seen_same = true;
				check(bloom_core_bits_set(&f.core) == 1 &&
				      delete_at(&f.core, h2, now) ==
				      BLOOM_CORE_DEL_REMOVED &&
				      !query_at(&f.core, h, now),
				      "same fingerprint and tag: one cell, "
				      "deleting one removes both (documented)");
			}
			delete_at(&f.core, h, now);
			delete_at(&f.core, h2, now);
			break;
		}
	}
	check(seen_same && seen_diff, "both cases built (%u tries)", tries);
	filter_free(&f);
}

static void test_reclaim(void)
{
	struct filter f;
	u64 k[200], now = T0, freed;
	u32 i, back = 0;

	tfilter(&f, 1000, 100000);
	for (i = 0; i < 200; i++) {
		k[i] = rng();
		add_at(&f.core, k[i], i < 100 ? 5 : 3600, now);
	}
	freed = sweep_at(&f.core, 0, bloom_timed_buckets(&f.core),
				  now + 10);
	check(freed == 100 && bloom_core_bits_set(&f.core) == 100 &&
	      live_at(&f.core, now + 10) == 100,
	      "a sweep empties the 100 expired cells, keeps the 100 live "
	      "(%llu freed)", (unsigned long long)freed);
	for (i = 0; i < 100; i++)
		back += query_at(&f.core, k[i], now + 70);
	check(!back, "swept keys stay absent past the tick's wrap (%u back)",
	      back);
	/* no sweep: the wrap brings expired keys back, never hides live ones */
	for (i = 0; i < 100; i++)
		add_at(&f.core, k[i], 5, now + 100);
	back = 0;
	for (i = 0; i < 100; i++)
		back += query_at(&f.core, k[i], now + 100 + 6 + 54);
	check(back == 100, "unswept, a 5 s key reads present again 54 s "
	      "later, the false positive bloom.rst describes (%u)", back);
	back = 0;
	for (i = 100; i < 200; i++)
		back += query_at(&f.core, k[i], now + 3600);
	check(back == 100, "live keys are present throughout (%u)", back);
	filter_free(&f);
}

/* Filter @dst, of @src's geometry, over a copy of @src's table. */
static void tcopy(struct filter *dst, const struct filter *src)
{
	bloom_hash_key_t k;

	bloom_hash_key_from_bytes(&k, test_key);
	dst->bytes = src->bytes;
	dst->mem = xalloc(src->bytes);
	memcpy(dst->mem, src->mem, src->bytes);
	bloom_core_init(&dst->core, &src->core.geo, &k, dst->mem);
}

static void test_snapshot(void)
{
	static const u32 to[4] = { 600, 10, 0, 3600 };
	u64 h[4], t0 = T0, saved = T0 + 5, now = 5000000, left, d;
	struct filter a, b;
	u32 i, *cells, slot;
	int err;

	tfilter(&a, 1000, 100000);
	bloom_timed_set_timeouts(&a.core, 30, 7200);
	for (i = 0; i < 4; i++) {
		h[i] = rng();
		add_at(&a.core, h[i], to[i], t0);
	}
	{
		u8 hdr[BLOOM_IMAGE_HEADER_BYTES(0)];
		struct bloom_image_header ih;
		const char *why = "";

		bloom_image_header_make(hdr, &a.core, "t", NULL);
		err = bloom_image_header_read(hdr, sizeof(hdr), &ih, &why);
		check(!err && ih.incompat & BLOOM_IMAGE_F_KEY_TIMEOUTS &&
		      ih.geo.type == BLOOM_CORE_TIMED &&
		      ih.key_timeout_s == 30 && ih.key_timeout_max_s == 7200,
		      "a timed filter's header: its feature and timeouts read "
		      "back (%d %s)", err, why);
	}
	tcopy(&b, &a);
	check(!bloom_tm_image_check(&b.core) && bloom_core_bits_set(&b.core) == 4,
	      "a saved table passes the load check, 4 cells in use");
	err = rebase_at(&b.core, saved, 100, now,
				 BLOOM_CORE_KEY_TIMEOUT_MAX);
	/* 600 s: units of 32 s, expiry ceil((t0 + 601) / 32) * 32 */
	d = (t0 + 601 + 31) / 32 * 32;
	left = d - saved;
	check(!err && bloom_core_bits_set(&b.core) == 3 &&
	      query_at(&b.core, h[0], now + left - 100 - 1) &&
	      !query_at(&b.core, h[0], now + left - 100 + 32) &&
	      !query_at(&b.core, h[1], now) &&
	      query_at(&b.core, h[2], now + 1000000000) &&
	      query_at(&b.core, h[3], now + 3600 - 106),
	      "rebased 100 s later on another clock: time left kept, the 10 s "
	      "key gone, the permanent one kept (err %d)", err);
	filter_free(&b);
	/*
	 * Restored on machines whose clocks stand a second later in the unit
	 * each time, saved again at once: each restore rounds up by most of a
	 * unit, yet the key stays present until its own expiry.
	 */
	tcopy(&b, &a);
	{
		u64 c = t0, tru = d, saved_at;
		u32 k, bad = 0;

		err = 0;
		for (k = 0; k < 20 && !err; k++) {
			saved_at = c;
			c = (c / 32 + 1000) * 32 + (c + 1) % 32;
			tru = c + (tru - saved_at);
			err = rebase_at(&b.core, saved_at, 0, c, 7200);
			bad += !query_at(&b.core, h[0], tru - 1);
		}
		check(!err && !bad, "20 saves and restores, each rounding up: the "
		      "600 s key present until its expiry (%u wrong, err %d)",
		      bad, err);
	}
	filter_free(&b);
	tcopy(&b, &a);
	check(rebase_at(&b.core, saved, 0, now, 60) == -EBADMSG,
	      "a 3600 s key in a filter whose largest timeout is 60 s: refused");
	filter_free(&b);
	filter_free(&a);
	tfilter(&a, 1000, 100000);
	add_at(&a.core, h[0], 31, t0);
	tcopy(&b, &a);
	check(rebase_at(&b.core, t0, 0, now, 16) == -EBADMSG,
	      "32 s left in a filter whose largest timeout is 16 s: refused");
	filter_free(&b);
	/* a cell copied into the next slot of its bucket: the value twice */
	tcopy(&b, &a);
	cells = b.mem;
	for (i = 0; !cells[i]; i++)
		;
	slot = i % 8 == 7 ? i - 1 : i + 1;
	cells[slot] = cells[i];
	bloom_core_init(&b.core, &a.core.geo, &b.core.key, b.mem);
	check(bloom_tm_image_check(&b.core) == -EBADMSG,
	      "a key's cell twice among its candidates: refused");
	cells[slot] = 0x12345000;	/* no class */
	check(bloom_tm_image_check(&b.core) == -EBADMSG,
	      "a used cell without a class: refused");
	filter_free(&b);
	filter_free(&a);
}

#define FILL_N	200000U
#define PROBES	1000000U

static void test_fill(u32 ppb)
{
	static const u32 times[] = { 0, 30, 3600, DAY, 7 * DAY, 29 * DAY };
	double p = ppb / 1e9, expect;
	struct filter f;
	u64 *h, now = T0, x;
	u32 *to, i, j, fails = 0, fn = 0, fp = 0, merged = 0;
	int r;

	tfilter(&f, FILL_N, ppb);
	h = malloc(FILL_N * sizeof(*h));
	to = malloc(FILL_N * sizeof(*to));
	for (i = 0; i < FILL_N; i++) {
		h[i] = rng();
		to[i] = 60 + (u32)(rng() % (30 * DAY - 60));
		fails += add_at(&f.core, h[i], to[i], now) < 0;
	}
	for (j = 0; j < sizeof(times) / sizeof(times[0]); j++)
		for (i = 0; i < FILL_N; i++)
			if (to[i] > times[j])
				fn += !query_at(&f.core, h[i],
							 now + times[j]);
	for (i = 0; i < PROBES; i++)
		fp += query_at(&f.core, rng(), now);
	check(!fails && !fn, "p=%g: %u keys with timeouts 1 min..30 days: %u "
	      "failed inserts, %u false negatives at 6 times", p, FILL_N,
	      fails, fn);
	check(fp <= 1.1 * p * PROBES + 3 * sqrt(p * PROBES),
	      "p=%g: measured rate %.3g at capacity", p, fp / (double)PROBES);
	for (i = 0; i < PROBES; i++) {
		x = rng();
		r = add_at(&f.core, x, 60, now);
		if (r == 1)
			merged++;
		else if (!r)
			delete_at(&f.core, x, now);
	}
	expect = fp / (double)PROBES / (1U << tag_bits(&f.core)) * PROBES;
	printf("# p=%g, %u tag bits: %u of %u new keys found another key's "
	       "cell (measured rate x 2^-t: %.1f)\n", p, tag_bits(&f.core),
	       merged, PROBES, expect);
	check(merged <= 3 * expect + 10,
	      "p=%g: shared cells at most 3 x p x 2^-t + 10 (%u)", p, merged);
	free(h);
	free(to);
	filter_free(&f);
}

/*
 * A new key into *@h: 1 when its add fails. One that finds another key's
 * cell (fingerprint and tag equal: one key to the filter, test_fill()) is
 * drawn again, so that every key kept has a cell of its own and deleting
 * one leaves the others present.
 */
static u32 churn_add(struct bloom_core *c, u64 *h)
{
	int r;

	do {
		*h = rng();
		r = add_at(c, *h, 0, T0);
	} while (r == 1);
	return r < 0;
}

/*
 * Filled to capacity, then each key in turn replaced by a new one three
 * times over: no add may fail with -ENOSPC. The fullest bucket, printed.
 */
static void test_churn(u32 ppb, u32 placement)
{
	u32 i, k, fails = 0, fn = 0, fullest = 0, n, nc;
	u64 *h = malloc(FILL_N * sizeof(*h)), b;
	struct filter f;

	tfilter(&f, FILL_N, ppb);
	f.core.key.placement = placement;
	for (i = 0; i < FILL_N; i++)
		fails += churn_add(&f.core, &h[i]);
	for (k = 0; k < 3 * FILL_N; k++) {
		i = (u32)(rng() % FILL_N);
		delete_at(&f.core, h[i], T0);
		fails += churn_add(&f.core, &h[i]);
	}
	for (i = 0; i < FILL_N; i++)
		fn += !query_at(&f.core, h[i], T0);
	nc = bloom_bucket_cells(&f.core.geo);
	for (b = 0; b < bloom_timed_buckets(&f.core); b++) {
		for (n = 0, k = 0; k < nc; k++)
			n += !!bloom_tt_get(&f.core, b * nc + k);
		if (n > fullest)
			fullest = n;
	}
	check(!fails && !fn, "placement %s, p=%g (%u-bit fingerprints): %u "
	      "keys replaced 3 times over at capacity: %u failed adds, %u "
	      "false negatives; fullest bucket %u of %u cells",
	      placement == BLOOM_CORE_PLACE_FP ? "by fingerprint" : "Feistel",
	      ppb / 1e9, f.core.geo.fingerprint_bits, FILL_N, fails, fn,
	      fullest, nc);
	free(h);
	filter_free(&f);
}

int main(void)
{
	printf("TAP version 13\n");
	rng_seed("BLOOM_TIMED_SEED");
	test_sizing();
	test_timeouts();
	test_set();
	test_shared_cell();
	test_reclaim();
	test_snapshot();
	test_fill(10000000);
	test_fill(100000);
	test_churn(500000000, BLOOM_CORE_PLACE_FP);
	test_churn(10000000, BLOOM_CORE_PLACE_FP);
	test_churn(100000, BLOOM_CORE_PLACE_FP);
	test_churn(1000, BLOOM_CORE_PLACE_FP);
	test_churn(500000000, BLOOM_CORE_PLACE_FEISTEL);
	test_churn(100000, BLOOM_CORE_PLACE_FEISTEL);
	printf("1..%d\n", test_no);
	return test_failed ? 1 : 0;
}
