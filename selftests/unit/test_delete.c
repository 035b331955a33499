// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of the deletable filters of the core (counting and d-left) in
 * userspace, TAP 13: no false negatives after adds and deletes with
 * repeated keys, the false-positive rate at capacity and after deletes,
 * deletes of keys never added, saturation, d-left ENOSPC keeping the keys
 * that fit, d-left never failing at capacity, lockless readers beside
 * serialised writers, batch/single agreement, and memory per key against
 * the theory. Exit status 0 iff every check passed.
 */
#include "unit.h"

#define P2		10000000u	/* p = 0.01 */
#define P3		1000000u	/* p = 0.001 */

static struct bloom_core_stats stats(const struct filter *f)
{
	struct bloom_core_stats s;

	bloom_core_stats(&f->core, &s);
	return s;
}

/* Cells in use, counted by hand from the layout dleft.c documents. */
static u64 dl_cells_used(const struct filter *f, u64 *full_buckets,
			 u32 *max_load)
{
	u64 b, nb = f->core.geo.buckets * BLOOM_DLEFT_SUBTABLES, used = 0;
	u32 j, load;

	*full_buckets = 0;
	*max_load = 0;
	for (b = 0; b < nb; b++) {
		for (load = 0, j = 0; j < BLOOM_DLEFT_CELLS; j++) {
			u64 i = b * BLOOM_DLEFT_CELLS + j;

			load += (dl_cell(f, i) & 3) != 0;
		}
		used += load;
		*full_buckets += load == BLOOM_DLEFT_CELLS;
		if (load > *max_load)
			*max_load = load;
	}
	return used;
}

/* Non-zero 4-bit counters, counted by hand. */
static u64 cnt_nonzero(const struct filter *f)
{
	const u8 *b = f->mem;
	u64 i, n = 0;

	for (i = 0; i < f->bytes; i++)
		n += ((b[i] & 15) != 0) + ((b[i] >> 4) != 0);
	return n;
}

/* ------------------------------------------------------------- sizing */

static double bpk(u32 type, u32 ppb, u64 n)
{
	struct bloom_geometry g;

	if (bloom_geometry_size(type, n, ppb, &g))
		return -1;
	return bloom_core_storage_bytes(&g) * 8.0 / n;
}

static void test_memory(void)
{
	static const u32 ppbs[] = { P2, P3, 100000, 1000 };
	const u64 n = 1000000;
	unsigned int i;

	for (i = 0; i < sizeof(ppbs) / sizeof(ppbs[0]); i++) {
		double p = ppbs[i] / 1e9, std = -log2(p) / log(2);
		double s = bpk(BLOOM_CORE_STANDARD, ppbs[i], n);
		double c = bpk(BLOOM_CORE_COUNTING, ppbs[i], n);
		double d = bpk(BLOOM_CORE_DLEFT, ppbs[i], n);
		struct bloom_geometry g;
		double l, dth;

		bloom_geometry_size(BLOOM_CORE_DLEFT, n, ppbs[i], &g);
		l = (double)n / (4.0 * g.buckets);
		/* 8 cells per bucket of 64 / floor(64 / w) bits each */
		dth = 8.0 * (64.0 / (64 / g.cell_bits)) / l;
		printf("# memory, p=%g, n=%llu: bits/key standard %.2f (theory %.2f), counting %.2f (theory 4x = %.2f), d-left %.2f (theory 8*64/%u/L = %.2f, %u-bit cells, L=%.3f, r=%u, predicted FPR 4L/2^r = %.3g) = %.3f x counting\n",
		       p, (unsigned long long)n, s, std, c, 4 * std, d,
		       64 / g.cell_bits, dth, g.cell_bits, l,
		       g.fingerprint_bits,
		       4 * l / pow(2, g.fingerprint_bits), d / c);
		check(fabs(c / s - 4) < 0.001,
		      "counting p=%g: 4x the standard filter's memory (%.2f vs %.2f bits/key)",
		      p, c, s);
		check(fabs(d / dth - 1) < 0.001 && l <= 6.0001 &&
		      4 * l / pow(2, g.fingerprint_bits) <= p,
		      "d-left p=%g: %.2f bits/key = 8 * 64 / floor(64 / w) / L, L=%.3f <= 6, 4L/2^r <= p",
		      p, d, l);
	}
	check(bloom_geometry_size(BLOOM_CORE_DLEFT, n, P2, &(struct bloom_geometry){ 0 }) == 0 &&
	      fabs(bpk(BLOOM_CORE_DLEFT, P2, n) - 21.33) < 0.01 &&
	      fabs(bpk(BLOOM_CORE_DLEFT, P3, n) - 28.44) < 0.01 &&
	      bpk(BLOOM_CORE_DLEFT, P2, n) < 0.6 * bpk(BLOOM_CORE_COUNTING, P2, n) &&
	      bpk(BLOOM_CORE_DLEFT, P3, n) < 0.5 * bpk(BLOOM_CORE_COUNTING, P3, n),
	      "d-left: 21.33 bits/key at p=0.01 (16-bit cells), 28.44 at p=0.001 (21-bit cells), under 0.6x and 0.5x counting");
}

/* ----------------------------------------------------------- property */

/* Key i of the set S is added 1 + (i % 10 == 0) + (i % 30 == 0) times. */
static u32 mult(u64 i)
{
	return 1 + (i % 10 == 0) + (i % 30 == 0);
}

/* Fraction of @n never-added keys (tag @tag) the filter reports present. */
static double fpr(const struct filter *f, u32 tag, u64 n)
{
	u64 i, fp = 0;

	for (i = 0; i < n; i++)
		fp += bloom_core_query_hash(&f->core, key_hash(&f->core, tag, i));
	return (double)fp / n;
}

static void test_property(u32 type, u32 ppb)
{
	enum { S = 150000, QN = 1000000, CHUNK = 4096 };
	static u64 hs[CHUNK];
	double p = ppb / 1e9, fpr_full, fpr_after, gone_rate;
	u64 i, adds = 0, dels = 0, del_ok = 0, fn = 0, gone = 0, gone_n = 0;
	u64 saturated_kept = 0, pinned = 0;
	struct bloom_core_stats st;
	struct filter f;
	u32 n, r, add_err = 0;
	int ret;

	if (filter_new(&f, type, S, ppb)) {
		check(false, "%s p=%g: sizing failed", tname(type), p);
		return;
	}
	/* pass 1 in batches, the repeats one by one */
	for (i = 0; i < S; i += n) {
		n = S - i < CHUNK ? (u32)(S - i) : CHUNK;
		for (r = 0; r < n; r++)
			hs[r] = key_hash(&f.core, 10, i + r);
		ret = bloom_core_add_batch(&f.core, hs, n, NULL);
		add_err += ret < 0;
		adds += n;
	}
	for (i = 0; i < S; i++)
		for (r = 1; r < mult(i); r++, adds++)
			add_err += bloom_core_add_hash(&f.core,
						       key_hash(&f.core, 10, i)) < 0;
	fpr_full = fpr(&f, 11, QN);

	/* delete D = { i % 3 == 0 } as often as added: batch, then singles */
	for (i = 0; i < S; i += 3) {
		for (r = 0; r < mult(i); r++, dels++) {
			u64 h = key_hash(&f.core, 10, i);

			if (r == 0) {
				u8 res = 0, pin = 0;
				u32 rm, np;

				rm = bloom_core_delete_batch(&f.core, &h, 1,
							     &res, &pin, &np);
				del_ok += rm + np == 1 && res == rm &&
					  pin == np;
				pinned += np;
			} else {
				int s = bloom_core_delete_hash(&f.core, h);

				del_ok += s != BLOOM_CORE_DEL_ABSENT;
				pinned += s == BLOOM_CORE_DEL_PINNED;
				/* pinned: the key still tests present */
				del_ok -= s == BLOOM_CORE_DEL_PINNED &&
					  !bloom_core_query_hash(&f.core, h);
			}
		}
	}
	for (i = 0; i < S; i++) {
		bool q = bloom_core_query_hash(&f.core, key_hash(&f.core, 10, i));

		if (i % 3) {
			fn += !q;
		} else if (mult(i) < 3) {
			gone_n++;
			gone += q;
		} else {
			saturated_kept += q;
		}
	}
	fpr_after = fpr(&f, 12, QN);
	gone_rate = (double)gone / gone_n;
	st = stats(&f);

	printf("# %s p=%g: %llu adds of %u keys, FPR at capacity %.6f (%.3f x p), after deleting 1/3: %.6f (%.3f x p); deleted keys still reported %.6f; keys added 3x and deleted 3x still present: %llu; saturated %llu; bits/key %.2f\n",
	       tname(type), p, (unsigned long long)adds, (unsigned)S, fpr_full,
	       fpr_full / p, fpr_after, fpr_after / p, gone_rate,
	       (unsigned long long)saturated_kept,
	       (unsigned long long)st.saturated, f.bytes * 8.0 / S);
	check(add_err == 0, "%s p=%g: no add failed (%u)", tname(type), p,
	      add_err);
	check(del_ok == dels, "%s p=%g: every delete of an added key found it (%llu of %llu; %llu pinned)",
	      tname(type), p, (unsigned long long)del_ok,
	      (unsigned long long)dels, (unsigned long long)pinned);
	/*
	 * Pinned deletes are those of saturated keys: none without a
	 * saturated counter; each of the 3 deletes of a d-left key added 3
	 * times (its cell's count is 3) is pinned.
	 */
	check(type == BLOOM_CORE_DLEFT ? pinned >= 3 * saturated_kept :
	      st.saturated || !pinned,
	      "%s p=%g: %llu deletes pinned (saturated %llu, keys kept by saturation %llu)",
	      tname(type), p, (unsigned long long)pinned,
	      (unsigned long long)st.saturated,
	      (unsigned long long)saturated_kept);
	check(fn == 0, "%s p=%g: no false negatives among the %u keys of S \\ D (%llu)",
	      tname(type), p, S - S / 3, (unsigned long long)fn);
	check(fpr_full <= 1.2 * p && fpr_after <= 1.2 * p,
	      "%s p=%g: FPR on %u never-added keys <= 1.2p at capacity (%.6f) and after deletes (%.6f)",
	      tname(type), p, QN, fpr_full, fpr_after);
	check(gone_rate <= 1.2 * p,
	      "%s p=%g: deleted keys answer like never-added ones (%.6f <= 1.2p)",
	      tname(type), p, gone_rate);
	if (type == BLOOM_CORE_DLEFT) {
		u64 full, used = dl_cells_used(&f, &full, &r);

		/* the 5000 keys added 3x saturate their cell and stay */
		check(saturated_kept == S / 30 && st.saturated >= S / 30 &&
		      st.saturated < S / 30 * 1.05,
		      "d-left p=%g: the %u keys added 3 times stay present after 3 deletes (%llu), saturated = %llu",
		      p, S / 30, (unsigned long long)saturated_kept,
		      (unsigned long long)st.saturated);
		check(used == bloom_core_bits_set(&f.core) &&
		      used == st.subtable_used[0] + st.subtable_used[1] +
			      st.subtable_used[2] + st.subtable_used[3] &&
		      st.subtables == 4 &&
		      st.subtable_cells == f.core.geo.buckets * 8 &&
		      st.fingerprint_bits == f.core.geo.fingerprint_bits,
		      "d-left p=%g: cells in use %llu = bits_set = sum of subtable_used (%llu %llu %llu %llu)",
		      p, (unsigned long long)used,
		      (unsigned long long)st.subtable_used[0],
		      (unsigned long long)st.subtable_used[1],
		      (unsigned long long)st.subtable_used[2],
		      (unsigned long long)st.subtable_used[3]);
	} else {
		check(bloom_core_bits_set(&f.core) == cnt_nonzero(&f) &&
		      st.subtables == 0 && st.insert_failures == 0,
		      "counting p=%g: bits_set = non-zero counters counted by hand (%llu)",
		      p, (unsigned long long)cnt_nonzero(&f));
	}
	filter_free(&f);
}

/* ------------------------------------------------- deletes that miss */

static void test_delete_absent(u32 type)
{
	struct filter f;
	struct bloom_core_stats s0, s1;
	u64 i, h, tried = 0, refused = 0, fp = 0;
	void *copy;

	filter_new(&f, type, 20000, P2);
	for (i = 0; i < 20000; i++)
		bloom_core_add_hash(&f.core, key_hash(&f.core, 20, i));
	copy = xalloc(f.bytes);
	memcpy(copy, f.mem, f.bytes);
	s0 = stats(&f);
	for (i = 0; i < 100000; i++) {
		h = key_hash(&f.core, 21, i);
		if (bloom_core_query_hash(&f.core, h)) {
			fp++;	/* cannot tell: a delete would remove others' */
			continue;
		}
		tried++;
		refused += !bloom_core_delete_hash(&f.core, h);
	}
	s1 = stats(&f);
	check(tried > 90000 && refused == tried &&
	      !memcmp(copy, f.mem, f.bytes) && !memcmp(&s0, &s1, sizeof(s0)),
	      "%s: %llu deletes of never-added keys report not found and change no byte (%llu false positives skipped)",
	      tname(type), (unsigned long long)tried, (unsigned long long)fp);
	free(copy);
	filter_free(&f);

	filter_new(&f, BLOOM_CORE_STANDARD, 1000, P2);
	check(!bloom_core_can_delete(&f.core) &&
	      !bloom_core_delete_hash(&f.core, 1) &&
	      bloom_core_delete_batch(&f.core, &h, 1, NULL, NULL, NULL) == 0,
	      "standard: cannot delete");
	filter_free(&f);
	filter_new(&f, type, 1000, P2);
	check(bloom_core_can_delete(&f.core), "%s: can delete", tname(type));
	filter_free(&f);
}

/* ---------------------------------------------------------- saturation */

static void test_saturation(u32 type)
{
	struct filter f;
	u64 h, other = 0x5555aaaa5555aaaaULL;
	u32 i, pinned = 0, adds_present = 0;

	filter_new(&f, type, 1000, P2);
	h = key_hash(&f.core, 70, 0);
	bloom_core_add_hash(&f.core, other);
	for (i = 0; i < 20; i++)
		adds_present += bloom_core_add_hash(&f.core, h) == 1;
	/* every counter (or the cell) saturated: each delete is pinned */
	for (i = 0; i < 20; i++)
		pinned += bloom_core_delete_hash(&f.core, h) ==
			  BLOOM_CORE_DEL_PINNED;
	check(adds_present == 19 && pinned == 20 &&
	      bloom_core_query_hash(&f.core, h) &&
	      bloom_core_query_hash(&f.core, other) &&
	      stats(&f).saturated > 0,
	      "%s: a key added 20 times and deleted 20 times stays (saturated: %llu), its neighbour too",
	      tname(type), (unsigned long long)stats(&f).saturated);
	check(bloom_core_delete_hash(&f.core, other) == BLOOM_CORE_DEL_REMOVED &&
	      !bloom_core_query_hash(&f.core, other) &&
	      !bloom_core_delete_hash(&f.core, other),
	      "%s: a key added once is gone after one delete, a second delete misses",
	      tname(type));
	filter_free(&f);
}

/* -------------------------------------------- counting: k positions */

/* Counter @c of a counting filter, from the layout counting.c documents. */
static u32 ctr(const struct filter *f, u32 c)
{
	return ((const u8 *)f->mem)[c / 2] >> (c % 2 * 4) & 15;
}

/* The counters key @h adds to, by adding it to an empty filter. */
static void ctr_vector(struct filter *scratch, u64 h, u32 *v, u32 m)
{
	u32 c;

	memset(scratch->mem, 0, scratch->bytes);
	bloom_core_add_hash(&scratch->core, h);
	for (c = 0; c < m; c++)
		v[c] = ctr(scratch, c);
}

static void ctr_set(struct filter *f, u32 c, u32 v)
{
	u8 *b = (u8 *)f->mem + c / 2;

	*b = (*b & ~(15 << (c % 2 * 4))) | v << (c % 2 * 4);
}

/*
 * A key whose k positions coincide holds that counter twice. If the
 * counter is 1 (another key's), the key cannot have been added: deleting it
 * must miss and change nothing, not decrement the counter twice. Positions
 * coincide only in filters of BLOOM_DISTINCT_BITS (65536) counters or more:
 * smaller ones give every key k distinct positions, checked first.
 */
static void test_multiplicity(void)
{
	struct bloom_geometry g = {
		.type = BLOOM_CORE_COUNTING, .hashes = 32, .bits = 64,
		.capacity = 10, .fpp_ppb = P2,
	};
	u32 m = 65536, *va = calloc(m, sizeof(u32)), c, dup = m, bad = 0;
	struct filter s, f;
	bloom_hash_key_t k;
	u64 a = 0, i, bytes;
	void *copy;

	bloom_hash_key_from_bytes(&k, test_key);
	check(bloom_geometry_check(&g) == 0 && bloom_core_storage_bytes(&g) == 64,
	      "counting: explicit geometry m=64 k=32 is valid, 64 bytes");
	s.bytes = 64;
	s.mem = xalloc(64);
	bloom_core_init(&s.core, &g, &k, s.mem);
	for (i = 0; i < 2000; i++) {
		ctr_vector(&s, key_hash(&s.core, 79, i), va, 64);
		for (c = 0; c < 64; c++)
			bad += va[c] > 1;
	}
	check(bad == 0, "counting m=64 k=32: 2000 keys each hold 32 distinct counters (%u repeats)",
	      bad);
	free(s.mem);

	g.bits = m;
	bytes = bloom_core_storage_bytes(&g);
	s.bytes = f.bytes = bytes;
	s.mem = xalloc(bytes);
	f.mem = xalloc(bytes);
	bloom_core_init(&s.core, &g, &k, s.mem);
	bloom_core_init(&f.core, &g, &k, f.mem);
	for (i = 0; dup == m && i < 100000; i++) {
		a = key_hash(&s.core, 80, i);
		ctr_vector(&s, a, va, m);
		for (c = 0; c < m; c++)
			if (va[c] == 2)
				dup = c;
	}
	if (dup == m) {
		check(false, "counting m=65536 k=32: a key with two equal positions among 100000");
		goto out;
	}
	/* the key's counters as other keys left them: each 1, @dup too */
	for (c = 0; c < m; c++)
		if (va[c])
			ctr_set(&f, c, 1);
	copy = xalloc(bytes);
	memcpy(copy, f.mem, bytes);
	check(ctr(&f, dup) == 1 && bloom_core_query_hash(&f.core, a) &&
	      !bloom_core_delete_hash(&f.core, a) && !memcmp(copy, f.mem, bytes),
	      "counting: a key holding counter %u twice, which is 1, is not deleted (query says present) and nothing changes",
	      dup);
	bloom_core_add_hash(&f.core, a);
	check(ctr(&f, dup) == 3 && bloom_core_delete_hash(&f.core, a) &&
	      !memcmp(copy, f.mem, bytes),
	      "counting: added, the same key increments that counter twice and its delete restores every counter");
	free(copy);
out:
	free(va);
	free(s.mem);
	free(f.mem);
}

/* ------------------------------------------------------- d-left ENOSPC */

static u64 used_cells(const struct bloom_core_stats *s)
{
	u64 n = 0;
	u32 i;

	for (i = 0; i < BLOOM_DLEFT_SUBTABLES; i++)
		n += s->subtable_used[i];
	return n;
}

static void test_enospc(void)
{
	enum { N = 1000 };
	static u64 hs[N + 60];
	static u8 res[(N + 60 + 7) / 8];
	struct bloom_core_stats s0, s1;
	struct filter f;
	u32 i, added = 0, done = 0, hits, lost = 0, bits = 0;
	void *copy;
	int ret = 0;

	/* capacity 100: 5 buckets per subtable, 160 cells */
	filter_new(&f, BLOOM_CORE_DLEFT, 100, P2);
	for (i = 0; i < 50; i++)
		bloom_core_add_hash(&f.core, key_hash(&f.core, 30, i));
	copy = xalloc(f.bytes);
	s0 = stats(&f);
	/*
	 * one batch: 20 present keys three times each (their cells go
	 * 1 -> 2 -> 3: saturated, and 3 stays), then 1000 new keys, far
	 * more than the 110 free cells
	 */
	for (i = 0; i < 60; i++)
		hs[i] = key_hash(&f.core, 30, i % 20);
	for (i = 0; i < N; i++)
		hs[60 + i] = key_hash(&f.core, 31, i);
	hits = bloom_core_add_batch_done(&f.core, hs, N + 60, res, &done);
	s1 = stats(&f);
	for (i = 0; i < done; i++) {
		lost += !bloom_core_query_hash(&f.core, hs[i]);
		bits += !!(res[i / 8] & (1u << (i % 8)));
	}
	for (i = done; i < N + 60; i++)
		bits += !!(res[i / 8] & (1u << (i % 8)));
	check(done > 60 && done < N + 60 && !lost && bits == hits &&
	      hits >= 60 && s1.insert_failures == s0.insert_failures + 1 &&
	      s1.saturated > s0.saturated &&
	      used_cells(&s1) == used_cells(&s0) + (done - hits),
	      "d-left: a batch that overflows stops at the first key that does not fit: %u of %u added, all present, %u result bits for %u hits, one insert failure",
	      done, N + 60, bits, hits);

	/* the same batch through bloom_core_add_batch(): -ENOSPC at once */
	memcpy(copy, f.mem, f.bytes);
	ret = bloom_core_add_batch(&f.core, hs + done, N + 60 - done, NULL);
	check(ret == -ENOSPC && !memcmp(copy, f.mem, f.bytes) &&
	      stats(&f).insert_failures == 2,
	      "d-left: a batch whose first key does not fit returns -ENOSPC (%d) and changes nothing",
	      ret);

	/* one by one until the first failure: it changes nothing */
	for (i = 0; i < N; i++) {
		memcpy(copy, f.mem, f.bytes);
		ret = bloom_core_add_hash(&f.core, key_hash(&f.core, 32, i));
		if (ret < 0)
			break;
		added++;
	}
	s1 = stats(&f);
	check(ret == -ENOSPC && !memcmp(copy, f.mem, f.bytes) &&
	      used_cells(&s1) > 100 && s1.insert_failures == 3,
	      "d-left capacity 100: %llu cells fill (%u more one by one), the next add fails with -ENOSPC and changes nothing",
	      (unsigned long long)used_cells(&s1), added);
	free(copy);
	filter_free(&f);
}

/*
 * Inserting exactly `capacity` distinct keys must never fail: at L = 6 of 8
 * (p = 0.01) and L = 3.94 (p = 0.001), at small and large sizes, many
 * trials of the small ones (small filters fluctuate most).
 */
static void test_capacity(void)
{
	static const u64 sizes[] = { 1, 7, 24, 100, 1000, 12345, 100000, 1000000 };
	static const u32 ppbs[] = { P2, P3 };
	u64 full_total = 0, buckets_total = 0, fails = 0, runs = 0;
	u32 s, j, t, max_load = 0;

	for (j = 0; j < 2; j++) {
		for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			u32 trials = sizes[s] <= 1000 ? 200 : sizes[s] <= 100000 ? 4 : 1;

			for (t = 0; t < trials; t++) {
				struct filter f;
				u64 i, full;
				u32 ml;

				filter_new(&f, BLOOM_CORE_DLEFT, sizes[s], ppbs[j]);
				for (i = 0; i < sizes[s]; i++)
					fails += bloom_core_add_hash(&f.core,
						key_hash(&f.core, 40 + t, i)) < 0;
				dl_cells_used(&f, &full, &ml);
				full_total += full;
				buckets_total += f.core.geo.buckets * 4;
				if (ml > max_load)
					max_load = ml;
				runs++;
				filter_free(&f);
			}
		}
	}
	printf("# d-left at capacity: %llu filters, %llu buckets, %llu full (%.2e), largest load %u of 8\n",
	       (unsigned long long)runs, (unsigned long long)buckets_total,
	       (unsigned long long)full_total,
	       (double)full_total / buckets_total, max_load);
	check(fails == 0,
	      "d-left: inserting exactly capacity keys never fails (%llu filters, sizes 1..1000000, p = 0.01 and 0.001; %llu failures)",
	      (unsigned long long)runs, (unsigned long long)fails);
}

/* --------------------------------------------------- batch vs single */

static void test_batch_agree(u32 type)
{
	enum { N = 30011 };
	static u64 hs[N];
	static u8 r1[(N + 7) / 8], r2[(N + 7) / 8];
	static u8 p1[(N + 7) / 8], p2[(N + 7) / 8];
	struct bloom_core_stats sa, sb;
	struct filter a, b;
	u32 i, c1 = 0, c2, n1 = 0, n2 = 0;
	int ret;

	filter_new(&a, type, N, P3);
	filter_new(&b, type, N, P3);
	for (i = 0; i < N; i++)	/* about 1 in 5 keys twice */
		hs[i] = key_hash(&a.core, 50, i % (N - N / 5));
	memset(r1, 0, sizeof(r1));
	memset(r2, 0xff, sizeof(r2));
	for (i = 0; i < N; i++) {
		int r = bloom_core_add_hash(&a.core, hs[i]);

		c1 += r == 1;
		if (r == 1)
			r1[i / 8] |= 1 << (i % 8);
	}
	ret = bloom_core_add_batch(&b.core, hs, N, r2);
	sa = stats(&a);
	sb = stats(&b);
	check(ret >= 0 && (u32)ret == c1 && c1 >= N / 5 &&
	      !memcmp(r1, r2, sizeof(r1)) && !memcmp(a.mem, b.mem, a.bytes) &&
	      !memcmp(&sa, &sb, sizeof(sa)),
	      "%s: add_batch = add_hash one by one (%u keys, %u present already, same storage, results, stats)",
	      tname(type), N, c1);

	/* odd: keys 1, 3, .. (those under N - N / 5 were added); even: never */
	for (i = 0; i < N; i++)
		hs[i] = key_hash(&a.core, i % 2 ? 50 : 51, i);
	memset(r1, 0, sizeof(r1));
	memset(r2, 0xff, sizeof(r2));
	memset(p1, 0, sizeof(p1));
	memset(p2, 0xff, sizeof(p2));
	for (c1 = 0, i = 0; i < N; i++) {
		int r = bloom_core_delete_hash(&a.core, hs[i]);

		c1 += r == BLOOM_CORE_DEL_REMOVED;
		n1 += r == BLOOM_CORE_DEL_PINNED;
		if (r == BLOOM_CORE_DEL_REMOVED)
			r1[i / 8] |= 1 << (i % 8);
		if (r == BLOOM_CORE_DEL_PINNED)
			p1[i / 8] |= 1 << (i % 8);
	}
	c2 = bloom_core_delete_batch(&b.core, hs, N, r2, p2, &n2);
	check(c1 == c2 && n1 == n2 && c1 + n1 >= N / 3 && c1 + n1 <= N / 2 &&
	      !memcmp(r1, r2, sizeof(r1)) && !memcmp(p1, p2, sizeof(p1)) &&
	      !memcmp(a.mem, b.mem, a.bytes),
	      "%s: delete_batch = delete_hash one by one (%u keys, %u removed, %u pinned)",
	      tname(type), N, c1, n1);

	memset(r1, 0, sizeof(r1));
	memset(r2, 0xff, sizeof(r2));
	for (c1 = 0, i = 0; i < N; i++) {
		bool r = bloom_core_query_hash(&a.core, hs[i]);

		bloom_core_prefetch_hash(&a.core, hs[i]);
		c1 += r;
		if (r)
			r1[i / 8] |= 1 << (i % 8);
	}
	c2 = bloom_core_query_batch(&b.core, hs, N, r2);
	check(c1 == c2 && !memcmp(r1, r2, sizeof(r1)) &&
	      bloom_core_query_batch(&b.core, hs, N, NULL) == c1,
	      "%s: query_batch = query_hash one by one (%u hits)", tname(type),
	      c1);
	filter_free(&a);
	filter_free(&b);
}

/* --------------------------------------------------------- concurrency */

/*
 * Two writers, serialised by a mutex as bloom.ko serialises them, add and
 * delete their own keys over and over while two readers query keys that
 * stay live the whole time: a reader must never see one of them absent.
 * The filter is small so writers and readers share words and buckets.
 */
struct conc {
	struct filter *f;
	pthread_mutex_t lock;
	const u64 *live;
	u32 nlive;
	int stop;
	u64 absent, queries;
};

struct writer {
	struct conc *c;
	u32 tag, rounds;
	u64 failures;
};

static void *writer(void *arg)
{
	enum { K = 200 };
	struct writer *w = arg;
	struct bloom_core *core = &w->c->f->core;
	u64 hs[K];
	u32 r, i;

	for (i = 0; i < K; i++)
		hs[i] = key_hash(core, w->tag, i);
	for (r = 0; r < w->rounds; r++) {
		pthread_mutex_lock(&w->c->lock);
		if (r & 1) {
			w->failures += bloom_core_add_batch(core, hs, K, NULL) < 0;
		} else {
			for (i = 0; i < K; i++)
				w->failures += bloom_core_add_hash(core, hs[i]) < 0;
		}
		pthread_mutex_unlock(&w->c->lock);
		pthread_mutex_lock(&w->c->lock);
		if (r & 2) {
			u32 np;

			w->failures += bloom_core_delete_batch(core, hs, K, NULL,
							       NULL, &np) +
				       np != K;
		} else {
			for (i = 0; i < K; i++)
				w->failures += !bloom_core_delete_hash(core, hs[i]);
		}
		pthread_mutex_unlock(&w->c->lock);
	}
	return NULL;
}

static void *reader(void *arg)
{
	struct conc *c = arg;
	u64 absent = 0, q = 0;
	u32 i;

	while (!__atomic_load_n(&c->stop, __ATOMIC_RELAXED)) {
		for (i = 0; i < c->nlive; i++)
			absent += !bloom_core_query_hash(&c->f->core, c->live[i]);
		q += c->nlive;
	}
	__atomic_fetch_add(&c->absent, absent, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->queries, q, __ATOMIC_RELAXED);
	return NULL;
}

static void test_concurrency(u32 type)
{
	enum { LIVE = 1000 };
	static u64 live[LIVE];
	struct writer w[2];
	pthread_t wt[2], rt[2];
	struct filter f;
	struct conc c = { .f = &f, .live = live, .nlive = LIVE };
	void *before;
	u32 i;

	filter_new(&f, type, 2000, P2);
	for (i = 0; i < LIVE; i++) {
		live[i] = key_hash(&f.core, 60, i);
		bloom_core_add_hash(&f.core, live[i]);
	}
	before = xalloc(f.bytes);
	memcpy(before, f.mem, f.bytes);
	pthread_mutex_init(&c.lock, NULL);
	for (i = 0; i < 2; i++)
		pthread_create(&rt[i], NULL, reader, &c);
	for (i = 0; i < 2; i++) {
		w[i] = (struct writer){ &c, 61 + i, 1500, 0 };
		pthread_create(&wt[i], NULL, writer, &w[i]);
	}
	for (i = 0; i < 2; i++)
		pthread_join(wt[i], NULL);
	__atomic_store_n(&c.stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < 2; i++)
		pthread_join(rt[i], NULL);
	pthread_mutex_destroy(&c.lock);
	check(c.absent == 0 && c.queries > 0 &&
	      w[0].failures + w[1].failures == 0,
	      "%s: 2 serialised writers churning 2x200 keys 1500 times, 2 lockless readers: %llu queries of live keys, %llu absent",
	      tname(type), (unsigned long long)c.queries,
	      (unsigned long long)c.absent);
	check(!memcmp(before, f.mem, f.bytes),
	      "%s: after the writers deleted all they added the storage is as before",
	      tname(type));
	free(before);
	filter_free(&f);
}

int main(void)
{
	static const u32 types[] = { BLOOM_CORE_COUNTING, BLOOM_CORE_DLEFT };
	double t0 = now();
	unsigned int i;

	printf("TAP version 13\n");
	test_memory();
	for (i = 0; i < 2; i++) {
		test_property(types[i], P2);
		test_property(types[i], P3);
		test_delete_absent(types[i]);
		test_saturation(types[i]);
		test_batch_agree(types[i]);
		test_concurrency(types[i]);
	}
	test_multiplicity();
	test_enospc();
	test_capacity();
	printf("1..%d\n", test_no);
	printf("# %d passed, %d failed, %.1f s\n", test_no - test_failed,
	       test_failed, now() - t0);
	return test_failed ? 1 : 0;
}
