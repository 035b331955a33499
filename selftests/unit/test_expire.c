// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of expiring filters in the core (module/core/expire.c), TAP
 * 13, on a simulated clock: the parameter checks and a generation's size,
 * every key present until its timeout and gone by the bound, a refreshed
 * key living on, the rate within P while capacity keys per timeout come
 * in for many timeouts, a restore after pauses of every length and on a
 * clock younger than the snapshot (a boot), and merge.
 * Rotations run here as bloom.ko runs them (the core says when and which,
 * the caller clears and seals), LATE ns after they are due, with a grace
 * period of GP ns between the switch of the newest and the seal.
 */
#include "unit.h"
#include "expire.h"
#include "snapshot.h"

#define MS		1000000ULL	/* ns */
#define GP		(10 * MS)	/* a grace period, simulated */
#define LATE		(5 * MS)	/* how late a rotation runs */
/*
 * What one rotation may wait past its schedule: it runs LATE, and the
 * oldest generation may not be cleared before its seal (LATE + GP after
 * its own rotation) + T. The wait lengthens lives and, once per cycle of
 * G rotations, one period.
 */
#define DELAY		(2 * (LATE + GP))

struct efilter {
	struct bloom_core core;
	struct bloom_expire ring;
	void *mem;
};

static int efilter_new(struct efilter *f, u32 type, u32 g, u64 n, u32 ppb,
		       u64 timeout_ms, u64 now)
{
	struct bloom_expire_params p = {
		.type = type, .generations = g, .capacity = n,
		.fpp_ppb = ppb, .timeout_ms = timeout_ms,
	};
	struct bloom_geometry geo;
	bloom_hash_key_t k;
	int err = bloom_expire_check(&p);

	if (err)
		return err;
	bloom_expire_gen_geometry(&p, &geo);
	bloom_hash_key_from_bytes(&k, test_key);
	f->mem = xalloc(bloom_core_storage_bytes(&geo) * g);
	bloom_expire_init(&f->core, &f->ring, &p, &k, f->mem, now);
	return 0;
}

/*
 * Runs the rotations due by @now, each as the module does; a rotation
 * that would start after @now waits. Returns the number run.
 */
static u32 efilter_tick(struct efilter *f, u64 now)
{
	u64 due;
	u32 n = 0, g, old;

	while ((due = bloom_expire_due(&f->core)) + LATE <= now) {
		g = bloom_expire_unlink_oldest(&f->core);
		bloom_core_clear(&f->ring.gen[g].core);
		old = bloom_expire_make_newest(&f->core, g, due + LATE);
		bloom_expire_seal(&f->core, old, due + LATE + GP);
		n++;
	}
	return n;
}

static void test_check(void)
{
	static const struct { u32 type, g; u64 n; u32 ppb; u64 t; int err; }
	cases[] = {
		{ BLOOM_CORE_STANDARD, 5, 1000, 10000000, 1000, 0 },
		{ BLOOM_CORE_BLOCKED, 16, 1000, 10000000, 2147483000ULL, 0 },
		{ BLOOM_CORE_COUNTING, 5, 1000, 10000000, 1000, -EINVAL },
		{ BLOOM_CORE_DLEFT, 5, 1000, 10000000, 1000, -EINVAL },
		{ BLOOM_CORE_STANDARD, 1, 1000, 10000000, 1000, -EINVAL },
		{ BLOOM_CORE_STANDARD, 17, 1000, 10000000, 1000, -EINVAL },
		{ BLOOM_CORE_STANDARD, 5, 1000, 10000000, 999, -EINVAL },
		{ BLOOM_CORE_STANDARD, 5, 1000, 10000000, 2147483001ULL, -EINVAL },
		{ BLOOM_CORE_STANDARD, 5, 0, 10000000, 1000, -EINVAL },
		{ BLOOM_CORE_STANDARD, 5, 1000, 4, 1000, -EINVAL },
		{ BLOOM_CORE_STANDARD, 5, 1000, 5, 1000, 0 },
	};
	struct bloom_expire_params p = { BLOOM_CORE_BLOCKED, 5, 1000001,
					 10000000, 3600000 };
	struct bloom_geometry geo, want;
	u32 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bloom_expire_params q = {
			.type = cases[i].type, .generations = cases[i].g,
			.capacity = cases[i].n, .fpp_ppb = cases[i].ppb,
			.timeout_ms = cases[i].t,
		};
		int err = bloom_expire_check(&q);

		check(err == cases[i].err,
		      "check %s G=%u n=%llu ppb=%u T=%llu ms: %d (want %d)",
		      tname(cases[i].type), cases[i].g,
		      (unsigned long long)cases[i].n, cases[i].ppb,
		      (unsigned long long)cases[i].t, err, cases[i].err);
	}
	bloom_expire_gen_geometry(&p, &geo);
	bloom_geometry_size(BLOOM_CORE_BLOCKED, 250001, 2000000, &want);
	check(geo.capacity == 250001 && geo.fpp_ppb == 2000000 &&
	      geo.bits == want.bits && geo.hashes == want.hashes,
	      "a generation of G=5, N=1000001, P=0.01: %llu keys at %u ppb, the size of such a filter",
	      (unsigned long long)geo.capacity, geo.fpp_ppb);
	check(bloom_expire_period_ns(&p) == 900000 * MS,
	      "the period of T=1h, G=5 is 15 min");
}

#define LIFE_KEYS	200

/*
 * Keys added at random times over 3 timeouts, the clock in steps of
 * @step: each present at every step before its add + T, none present
 * (beyond P = 1e-6) after add + T + T / (G - 1) + GP + a step.
 */
static void test_life(u32 type, u32 g, u64 t_ms, u64 step)
{
	u64 T = t_ms * MS, P, add[LIFE_KEYS], h[LIFE_KEYS], now, end;
	u32 i, early = 0, late = 0, checks = 0, rot = 0;
	struct efilter f;
	bool added[LIFE_KEYS] = { false };

	efilter_new(&f, type, g, 1000, 1000, t_ms, 0);
	P = f.ring.period_ns;
	for (i = 0; i < LIFE_KEYS; i++) {
		h[i] = rng();
		add[i] = rng() % (3 * T);
	}
	end = 5 * T;
	for (now = 0; now <= end; now += step) {
		rot += efilter_tick(&f, now);
		for (i = 0; i < LIFE_KEYS; i++) {
			if (!added[i] && add[i] <= now) {
				bloom_core_add_hash(&f.core, h[i]);
				added[i] = true;
				/* the add happened at now, not at add[i] */
				add[i] = now;
			}
			if (!added[i])
				continue;
			checks++;
			if (now < add[i] + T &&
			    (!bloom_core_query_hash(&f.core, h[i]) ||
			     !bloom_core_lookup_hash(&f.core, h[i])))
				early++;
			if (now > add[i] + T + P + DELAY + step &&
			    bloom_core_query_hash(&f.core, h[i]))
				late++;
		}
	}
	check(!early && late <= 1,
	      "%s G=%u T=%llu ms: %u keys, %u rotations, %u checks: %u absent before their timeout, %u present after the bound",
	      tname(type), g, (unsigned long long)t_ms, LIFE_KEYS, rot, checks,
	      early, late);
	free(f.mem);
}

/* A key added again before it expires lives T from its last add. */
static void test_refresh(void)
{
	u64 T = 4000 * MS, now, h = rng(), last = 0, fail = 0;
	struct efilter f;

	efilter_new(&f, BLOOM_CORE_BLOCKED, 5, 1000, 1000, 4000, 0);
	bloom_core_add_hash(&f.core, h);
	for (now = 0; now < 20 * T; now += 7 * MS) {
		efilter_tick(&f, now);
		if (now - last >= T / 2 && now < 10 * T) {
			bloom_core_add_hash(&f.core, h);
			last = now;
		}
		if (now < last + T && !bloom_core_query_hash(&f.core, h))
			fail++;
	}
	check(!fail && !bloom_core_query_hash(&f.core, h),
	      "a key added every T/2 for 10 T: present throughout (%llu misses), gone after",
	      (unsigned long long)fail);
	free(f.mem);
}

/*
 * N keys per timeout, evenly, for 8 timeouts: the rate of absent keys,
 * measured at the end of every period, stays within P.
 */
static void test_rate(u32 type, u32 g)
{
	const u64 n = 20000, T = 1000 * MS;
	const u32 ppb = 10000000, absent = 200000;
	u64 now, step = T / n, worst_hits = 0, hits;
	u32 i, periods = 0;
	struct efilter f;

	efilter_new(&f, type, g, n, ppb, 1000, 0);
	for (now = 0; now < 8 * T; now += step) {
		if (efilter_tick(&f, now) && now > T) {
			for (hits = 0, i = 0; i < absent; i++)
				hits += bloom_core_query_hash(&f.core, rng());
			if (hits > worst_hits)
				worst_hits = hits;
			periods++;
		}
		bloom_core_add_hash(&f.core, rng());
	}
	check(worst_hits <= absent * (ppb / 1e9) * 1.1,
	      "%s G=%u: %llu keys per timeout for 8 timeouts: worst rate at %u rotations %.5f (P %.5f)",
	      tname(type), g, (unsigned long long)n, periods,
	      (double)worst_hits / absent, ppb / 1e9);
	free(f.mem);
}

/*
 * What test_resume() and test_resume_young_clock() save: a filter of G = 5
 * and T = 4 s, keys @h added at @add, one every T / 10 for 4 T. The save's
 * time, the clock's after the last add's rotations.
 */
static u64 resume_filter(struct efilter *f, u64 *h, u64 *add)
{
	const u64 T = 4000 * MS;
	u64 now;
	u32 i;

	efilter_new(f, BLOOM_CORE_STANDARD, 5, 1000, 1000, 4000, 0);
	for (i = 0, now = 0; i < 40; i++, now += T / 10) {
		efilter_tick(f, now);
		h[i] = rng();
		add[i] = now;
		bloom_core_add_hash(&f->core, h[i]);
	}
	efilter_tick(f, now);
	return now;
}

/*
 * Saved at S, restored after a pause: keys added at t still present until
 * t + T, generations that expired cleared, nothing kept past the bound.
 */
static void test_resume(u64 pause_ms)
{
	const u64 T = 4000 * MS;
	u64 h[40], add[40], now, S, R, P, bad_early = 0, bad_late = 0;
	struct efilter f;
	u32 i, cleared, lost = 0;

	S = resume_filter(&f, h, add);
	P = f.ring.period_ns;
	R = S + pause_ms * MS;
	cleared = bloom_expire_resume(&f.core, S, R);
	for (i = 0; i < 40; i++)
		if (R < add[i] + T && !bloom_core_query_hash(&f.core, h[i]))
			lost++;
	for (now = R; now < R + 3 * T; now += 5 * MS) {
		efilter_tick(&f, now);
		for (i = 0; i < 40; i++) {
			bool q = bloom_core_query_hash(&f.core, h[i]);

			if (now < add[i] + T && !q)
				bad_early++;
			/* a restore may add up to a period to what is kept */
			if (now > add[i] + T + 2 * P + DELAY + 5 * MS && q)
				bad_late++;
		}
	}
	check(!lost && !bad_early && bad_late <= 1,
	      "restore after %llu ms: %u generations cleared, %u keys lost at once, %llu checks absent too early, %llu present too late",
	      (unsigned long long)pause_ms, cleared, lost,
	      (unsigned long long)bad_early, (unsigned long long)bad_late);
	free(f.mem);
}

/*
 * A restore on a clock younger than the snapshot, as at boot: saved
 * @elapsed_ms ago by the wall clock, restored at @boot_ms of a clock that
 * started after the save, so that the save has no time of its own on it.
 * Keys live as long as on a clock that goes back that far: none gone
 * before its timeout, none kept past the bound (those of a snapshot older
 * than the timeout were kept until the timeout after the clock's start).
 */
static void test_resume_young_clock(u64 elapsed_ms, u64 boot_ms)
{
	const u64 T = 4000 * MS, W = 1ULL << 60;
	u64 h[40], add[40], now, S, R, E = elapsed_ms * MS, P, bytes;
	u8 hdr[BLOOM_IMAGE_HEADER_BYTES(5)];
	struct bloom_image_header ih, rd;
	u64 bad_early = 0, bad_late = 0;
	struct efilter f, g;
	const char *why = "";
	s64 end;
	u32 i;

	S = resume_filter(&f, h, add);
	P = f.ring.period_ns;
	bloom_image_header_init(&ih, &f.core);
	memcpy(ih.name, "young", 6);
	ih.saved_ns = S;
	ih.saved_wall_ns = W;
	ih.payload_hash = bloom_image_payload_hash(&f.core);
	bloom_image_header_write(hdr, &ih, &f.core);
	check(!bloom_image_header_read(hdr, sizeof(hdr), &rd, &why),
	      "the snapshot's header reads back (%s)", why);
	R = boot_ms * MS;
	efilter_new(&g, BLOOM_CORE_STANDARD, 5, 1000, 1000, 4000, R);
	bytes = bloom_core_storage_bytes(&f.ring.gen[0].core.geo) * 5;
	memcpy(g.mem, f.mem, bytes);
	bloom_image_gens_apply(&g.core, hdr, &rd, R, W + E);
	for (now = R; now < R + 3 * T; now += 5 * MS) {
		efilter_tick(&g, now);
		for (i = 0; i < 40; i++) {
			bool q = bloom_core_query_hash(&g.core, h[i]);

			/* key i's timeout on the new clock: before its zero */
			end = (s64)R - (s64)(S + E - add[i]) + (s64)T;
			if ((s64)now < end && !q)
				bad_early++;
			if ((s64)now > end + (s64)(2 * P + DELAY + 5 * MS) && q)
				bad_late++;
		}
	}
	check(!bad_early && bad_late <= 1,
	      "saved %llu ms ago, restored %llu ms into a new clock: %llu checks absent too early, %llu present too late",
	      (unsigned long long)elapsed_ms, (unsigned long long)boot_ms,
	      (unsigned long long)bad_early, (unsigned long long)bad_late);
	free(f.mem);
	free(g.mem);
}

/* Two filters of one ring shape: the union holds both's keys, lives kept. */
static void test_merge(void)
{
	const u64 T = 2000 * MS;
	struct efilter a, b, c;
	u64 ha[50], hb[50], now;
	u32 i, miss = 0, late = 0;

	efilter_new(&a, BLOOM_CORE_BLOCKED, 4, 1000, 10000, 2000, 0);
	efilter_new(&b, BLOOM_CORE_BLOCKED, 4, 1000, 10000, 2000, 0);
	efilter_new(&c, BLOOM_CORE_BLOCKED, 5, 1000, 10000, 2000, 0);
	for (i = 0, now = 0; i < 50; i++, now += 20 * MS) {
		efilter_tick(&a, now);
		efilter_tick(&b, now);
		ha[i] = rng();
		hb[i] = rng();
		bloom_core_add_hash(&a.core, ha[i]);
		bloom_core_add_hash(&b.core, hb[i]);
	}
	check(bloom_expire_merge(&a.core, &c.core, now) == -EINVAL &&
	      bloom_expire_merge(&a.core, &a.core, now) == -EINVAL,
	      "merge refuses another G and a filter with itself");
	check(!bloom_expire_merge(&a.core, &b.core, now), "merge");
	for (; now < 50 * 20 * MS + T; now += 10 * MS) {
		efilter_tick(&a, now);
		for (i = 0; i < 50; i++)
			if (now < i * 20 * MS + T &&
			    (!bloom_core_query_hash(&a.core, ha[i]) ||
			     !bloom_core_query_hash(&a.core, hb[i])))
				miss++;
	}
	efilter_tick(&a, now + 2 * T);
	for (i = 0; i < 50; i++)
		late += bloom_core_query_hash(&a.core, hb[i]);
	check(!miss && !late,
	      "the union holds both filters' keys for their timeout (%u misses) and lets them go (%u left)",
	      miss, late);
	free(a.mem);
	free(b.mem);
	free(c.mem);
}

/*
 * A snapshot's generation table holds only what a filter can: a keep time
 * over the timeout, or "still adding" for a generation older than the
 * previous newest, is refused (a keep of 2^40 ms kept a 2 s key present
 * for 35 years before the check).
 */
static void test_image_keep(void)
{
	static const struct {
		u32 gen;
		u64 keep;
		int err;
		const char *what;
	} c[] = {
		{ 0, 2000, 0, "the timeout itself" },
		{ 0, 2001, -EBADMSG, "a millisecond over the timeout" },
		{ 0, 1ULL << 40, -EBADMSG, "2^40 ms" },
		{ 2, BLOOM_IMAGE_KEEP_ADDING, 0, "the previous newest still adding" },
		{ 1, BLOOM_IMAGE_KEEP_ADDING, -EBADMSG, "an older one still adding" },
	};
	u8 hdr[BLOOM_IMAGE_HEADER_BYTES(4)];
	struct bloom_image_header h;
	struct efilter f;
	const char *why;
	u32 i, k;
	u64 v;
	int r;

	efilter_new(&f, BLOOM_CORE_BLOCKED, 4, 1000, 1000000, 2000, MS);
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		bloom_image_header_make(hdr, &f.core, "keep", NULL);
		/* generation table entry, its keep field (snapshot.rst) */
		for (k = 0, v = c[i].keep; k < 8; k++, v >>= 8)
			hdr[248 + 40 * c[i].gen + 16 + k] = (u8)v;
		v = bloom_image_hash(hdr, sizeof(hdr) - 8);
		for (k = 0; k < 8; k++, v >>= 8)
			hdr[sizeof(hdr) - 8 + k] = (u8)v;
		why = "";
		r = bloom_image_header_read(hdr, sizeof(hdr), &h, &why);
		check(r == c[i].err, "generation %u kept %s: %d (%s)", c[i].gen,
		      c[i].what, r, why);
	}
	free(f.mem);
}

int main(void)
{
	static const u32 gens[] = { 2, 3, 5, 8, 16 };
	u32 i;

	printf("TAP version 13\n");
	rng_seed("BLOOM_TEST_SEED");
	test_check();
	test_image_keep();
	for (i = 0; i < sizeof(gens) / sizeof(gens[0]); i++) {
		test_life(BLOOM_CORE_STANDARD, gens[i], 4000, 13 * MS);
		test_life(BLOOM_CORE_BLOCKED, gens[i], 1000, 3 * MS);
	}
	test_refresh();
	test_rate(BLOOM_CORE_STANDARD, 5);
	test_rate(BLOOM_CORE_BLOCKED, 5);
	test_rate(BLOOM_CORE_BLOCKED, 3);
	test_rate(BLOOM_CORE_STANDARD, 9);
	test_resume(0);
	test_resume(1000);
	test_resume(3000);
	test_resume(4500);
	test_resume(6000);
	test_resume(60000);
	test_resume_young_clock(60000, 1000);
	test_resume_young_clock(3000, 1000);
	test_resume_young_clock(2000, 1500);
	test_resume_young_clock(500, 1000);
	test_merge();
	printf("1..%d\n", test_no);
	return test_failed ? 1 : 0;
}
