// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The timed filter's table (module/core/timed_table.h), TAP 13:
 *
 * - the word-wide fingerprint compare against a plain per-cell compare,
 *   for 32- and 64-bit cells and fingerprints of 6 bits to the widest,
 *   on random words with the probe's fingerprint planted in each cell
 *   position in turn, and with fingerprints of all zeros and all ones
 *   against cells whose other bits are all ones or all zeros; the
 *   bucket's or-ed matches against the words' matches;
 * - placement: the candidates recovered from a cell's bucket and
 *   fingerprint (the snapshot check's inverse) are the key's own, in
 *   either subtable, and every bucket is one aligned 64-byte line;
 * - a filter past its room: adds refused with -ENOSPC once both of a
 *   key's buckets are full, each refusal counted once in the insert
 *   failures, the cells in use equal to the adds that took a cell, every
 *   key taken still present, a batch into the full table stopping at its
 *   first key with a done count of 0;
 * - a reference model under random adds (random timeouts, repeats),
 *   deletes and time passing, with and without sweeps: no key whose
 *   timeout cannot have passed tests absent, at any step;
 * - every query's answer equal to a cell-by-cell reference's, for both
 *   cell widths, with live, expired and deleted cells and fingerprints of
 *   0 (several matches in one bucket);
 * - a timed snapshot header of the four-subtable layout: refused by the
 *   header's reader (the kernel's) with EPROTONOSUPPORT and a message that
 *   says what to do; the fixed snapshots that layout's own code wrote
 *   (selftests/cli/data/gen_timed4_snap.c) made over by
 *   snapshot_upgrade.c: the one of 32-bit cells into a table today's
 *   checks accept, holding every key kept with its expiry and none
 *   deleted, the header as it was but for the subtables; the one of
 *   64-bit cells refused and left as it was; a damaged payload refused;
 * - the layout is pinned: for a fixed geometry, hash key, keys, timeouts
 *   and clock, the xxh64 of the table is recorded. A change to the
 *   placement or to what a cell holds fails here: snapshots of the old
 *   layout would then answer for other keys, so the change needs a layout
 *   a restore can tell apart (the geometry's subtables) and a decision
 *   about the old one.
 *
 * BLOOM_TIMED_SEED=n reproduces a run (the seed is printed).
 */
#include "unit.h"
#include "internal.h"
#include "snapshot.h"
#include "snapshot_layout.h"
#include "timed_table.h"
#include "snapshot_upgrade.h"
#include "timed_at.h"

#define T0	1000000ULL

/* A core of @w-bit cells and @r fingerprint bits, for the compare alone. */
static void fake_core(struct bloom_core *f, u32 w, u32 r)
{
	memset(f, 0, sizeof(*f));
	f->geo.type = BLOOM_CORE_TIMED;
	f->geo.cell_bits = w;
	f->geo.fingerprint_bits = r;
}

/* The top bit of each cell of @v whose fingerprint field is @fp. */
static u64 plain_match(u64 v, u32 w, u32 r, u64 fp)
{
	u64 m = 0, cell;
	u32 s;

	for (s = 0; s < 64; s += w) {
		cell = w == 64 ? v : v >> s & 0xffffffffULL;
		if (cell >> (w - r) == fp)
			m |= 1ULL << (s + w - 1);
	}
	return m;
}

static void test_match(void)
{
	static const u32 ws[] = { 32, 64 };
	u32 wi, r, k, s, bad = 0, bad_bucket = 0, n = 0, planted = 0;
	struct bloom_tt_probe p;
	struct bloom_core f;
	u64 v, fp, fp1, fmask, words[2 * BLOOM_TT_BUCKET_WORDS], m, want;
	struct bloom_tt_where at;
	u32 bad_where = 0;

	for (wi = 0; wi < 2; wi++) {
		u32 w = ws[wi];

		for (r = 6; r <= w - 11; r++) {
			fake_core(&f, w, r);
			fmask = (1ULL << r) - 1;
			for (k = 0; k < 2000; k++) {
				/*
				 * k % 4 == 1: fingerprint 0 in a word of ones,
				 * 2: all ones in a word of zeros; else random
				 */
				fp = k % 4 == 1 ? 0 : k % 4 == 2 ? fmask :
				     rng() & fmask;
				v = k % 4 == 1 ? ~0ULL : k % 4 == 2 ? 0 : rng();
				/* plant fp in one cell position, or none */
				s = (u32)(rng() % (64 / w + 1)) * w;
				if (s < 64) {
					u64 field = fmask << (s + w - r);

					v = (v & ~field) | fp << (s + w - r);
					planted++;
				}
				/* a near miss: one fingerprint bit flipped */
				if (k % 8 == 3 && s < 64)
					v ^= 1ULL << (s + w - r + rng() % r);
				bloom_tt_probe(&f, fp, &p);
				bad += bloom_tt_match(v, &p) !=
				       plain_match(v, w, r, fp);
				n++;
			}
			for (k = 0; k < 400; k++) {
				u32 j, b;

				/* two buckets, fp in one, fp1 in the other */
				fp = rng() & fmask;
				fp1 = k % 2 ? fp : rng() & fmask;
				want = 0;
				for (j = 0; j < 2 * BLOOM_TT_BUCKET_WORDS; j++) {
					b = j / BLOOM_TT_BUCKET_WORDS;
					words[j] = rng();
					/* 1 in 4 words, or 1 in 16 */
					if (rng() % (k % 4 < 2 ? 4 : 16) == 0)
						words[j] = (words[j] &
							    ~(fmask << (w - r))) |
							   (b ? fp1 : fp) << (w - r);
					want |= plain_match(words[j], w, r,
							    b ? fp1 : fp) >> j;
				}
				bloom_tt_probe(&f, fp, &p);
				m = bloom_tt_match_where(words, p.pat,
					words + BLOOM_TT_BUCKET_WORDS,
					bloom_tt_pattern(&f, fp1), &p);
				bad_bucket += m != want;
				if (!m)
					continue;
				/* the decoded cell is a matching one */
				bloom_tt_where_cell(&f, m, &at);
				v = words[at.sub * BLOOM_TT_BUCKET_WORDS +
					  at.word] >> at.shift;
				v &= bloom_tt_cell_mask(&f);
				bad_where += at.sub > 1 ||
					     at.shift % w || at.shift >= 64 ||
					     v >> (w - r) != (at.sub ? fp1 : fp);
			}
		}
	}
	check(!bad && planted, "word-wide compare = per-cell compare: 32- and "
	      "64-bit cells, r = 6..w - 11, every cell position, all-zero and "
	      "all-one fields (%u of %u words differ)", bad, n);
	check(!bad_bucket, "two buckets' matches, each at its own bit, = their "
	      "words' (%u differ)", bad_bucket);
	check(!bad_where, "the cell decoded from the lowest bit matches "
	      "(%u wrong)", bad_where);
}

static void test_placement(u32 placement)
{
	struct bloom_tt_cand c, back;
	struct filter f;
	u32 i, s, sub, bad = 0, samefp = 0;
	u64 h;

	filter_new(&f, BLOOM_CORE_TIMED, 100000, 100000);
	f.core.key.placement = placement;
	for (i = 0; i < 100000; i++) {
		h = rng();
		bloom_tt_cand(&f.core, h, &c);
		for (s = 0; s < BLOOM_TT_SUBTABLES; s++) {
			bloom_tt_cand_of(&f.core, c.bucket[s], c.fp[s], &back,
					 &sub);
			bad += sub != s || memcmp(&back, &c, sizeof(c)) ||
			       c.bucket[s] / f.core.geo.buckets != s;
		}
		samefp += c.fp[0] == c.fp[1];
	}
	check(!bad, "placement %s: a key's candidates come back from either "
	      "cell (%u wrong)", placement == BLOOM_CORE_PLACE_FP ?
	      "by fingerprint" : "Feistel", bad);
	/* by fingerprint: always; Feistel: 1 in 2^18 */
	check(placement == BLOOM_CORE_PLACE_FP ? samefp == 100000 :
	      samefp < 100, "the fingerprint is the same in both subtables "
	      "exactly when placed by it (%u of 100000)", samefp);
	check(f.core.geo.hashes == 2 && f.core.geo.bits ==
	      f.core.geo.buckets * 2 * 512 && !((uintptr_t)f.mem % 64),
	      "2 subtables of 64-byte buckets, the table aligned to a line");
	filter_free(&f);
}

static void test_full(void)
{
	u32 i, n = 20000, taken = 0, refused = 0, other = 0, lost = 0, done;
	u64 *h = malloc(n * sizeof(*h)), batch[64];
	u8 res[64 / 8];
	struct filter f;
	int r;

	/* 1000 keys' room: about 84 buckets of 16 cells per subtable */
	filter_new(&f, BLOOM_CORE_TIMED, 1000, 100000);
	for (i = 0; i < n; i++) {
		h[i] = rng();
		r = add_at(&f.core, h[i], 600, T0);
		if (r == 0)
			taken++;
		else if (r == -ENOSPC)
			refused++;
		else
			other++;
		if (r == -ENOSPC)
			h[i] = 0;
	}
	for (i = 0; i < n; i++)
		lost += h[i] && !query_at(&f.core, h[i], T0);
	check(refused && taken == bloom_core_bits_set(&f.core) &&
	      taken <= 2 * f.core.geo.buckets * 16 &&
	      taken + refused + other == n &&
	      f.core.insert_failures == refused && !lost,
	      "past its room: %u cells taken of %llu, %u refused and counted "
	      "(%llu), %u found present, no taken key lost (%u)", taken,
	      (unsigned long long)(2 * f.core.geo.buckets * 16), refused,
	      (unsigned long long)f.core.insert_failures, other, lost);
	for (i = 0; i < 64; i++)
		batch[i] = rng();
	memset(res, 0, sizeof(res));
	add_batch_at(&f.core, batch, 64, 600, T0, res, &done);
	check(done == 0 && f.core.insert_failures == refused + 1,
	      "a batch into a full table stops at its first key (done %u)",
	      done);
	free(h);
	filter_free(&f);
}

#define MODEL_CAPACITY	4000
#define MODEL_KEYS	3000
#define MODEL_STEPS	400000

/*
 * @n keys the filter can tell apart: no two share a bucket and fingerprint
 * in any subtable. Two that do may share a cell (when their tags are equal
 * too), and then a delete of one removes the other, as
 * Documentation/bloom.rst says and test_timed checks; the model below
 * counts every key on its own. With any random keys, 2 runs of 60 counted
 * such a delete as a false negative (seeds 1796430387, 1796430423).
 */
static void distinct_keys(const struct bloom_core *f, u64 *h, u32 n)
{
	struct bloom_tt_cand *c = malloc(n * sizeof(*c));
	u32 i, j, s;
	bool apart;

	for (i = 0; i < n; i++) {
		do {
			h[i] = rng();
			bloom_tt_cand(f, h[i], &c[i]);
			apart = true;
			for (j = 0; j < i && apart; j++)
				for (s = 0; s < BLOOM_TT_SUBTABLES; s++)
					if (c[i].bucket[s] == c[j].bucket[s] &&
					    c[i].fp[s] == c[j].fp[s])
						apart = false;
		} while (!apart);
	}
	free(c);
}

/* The latest second each key may still be present by its adds; 0: none. */
static void test_model(bool sweep)
{
	u64 *h = malloc(MODEL_KEYS * sizeof(*h));
	u64 *until = calloc(MODEL_KEYS, sizeof(*until)), now = T0, end;
	u32 i, step, fn = 0, fails = 0, checks = 0, t;
	struct filter f;

	filter_new(&f, BLOOM_CORE_TIMED, MODEL_CAPACITY, 100000);
	distinct_keys(&f.core, h, MODEL_KEYS);
	for (step = 0; step < MODEL_STEPS; step++) {
		i = (u32)(rng() % MODEL_KEYS);
		switch (rng() % 8) {
		case 0 ... 3:
			t = rng() % 16 == 0 ? 0 : 1 + (u32)(rng() % 3600);
			if (add_at(&f.core, h[i], t, now) < 0) {
				fails++;
				break;
			}
			/* present at least until now + T; 0: forever */
			end = t ? now + t : ~0ULL;
			if (!until[i] || end > until[i])
				until[i] = end;
			break;
		case 4:
			delete_at(&f.core, h[i], now);
			until[i] = 0;
			break;
		case 5:
			now += rng() % 8;
			if (sweep && rng() % 16 == 0)
				sweep_at(&f.core, 0, bloom_timed_buckets(&f.core),
					 now);
			break;
		default:
			if (until[i] && until[i] > now) {
				fn += !query_at(&f.core, h[i], now);
				checks++;
			}
		}
	}
	check(!fn && !fails, "%s: %u random adds, deletes and ticks against a "
	      "model: %u false negatives in %u checks, %u failed adds",
	      sweep ? "with sweeps" : "reclaimed by adds only", MODEL_STEPS, fn,
	      checks, fails);
	free(h);
	free(until);
	filter_free(&f);
}

/*
 * The query's answer by a cell at a time, from the layout of timed.c's
 * comment (tick 6 bits, class 5, fingerprint on top), written apart from
 * the code it checks: a cell of the key's fingerprint in either bucket
 * that is non-empty and live.
 */
static bool reference_query(const struct bloom_core *f, u64 h, u64 now)
{
	u32 w = f->geo.cell_bits, r = f->geo.fingerprint_bits;
	u32 n = bloom_tt_cells(f), i, k, cls;
	struct bloom_tt_cand c;
	u64 cell, ahead;

	bloom_tt_cand(f, h, &c);
	for (i = 0; i < BLOOM_TT_SUBTABLES; i++)
		for (k = 0; k < n; k++) {
			cell = bloom_tt_get(f, c.bucket[i] * n + k);
			cls = cell >> 6 & 31;
			if (!cell || cell >> (w - r) != c.fp[i])
				continue;
			if (cls == 31)
				return true;
			ahead = (cell - (now >> (cls - 1))) & 63;
			if (ahead >= 1 && ahead <= 35)
				return true;
		}
	return false;
}

/*
 * Exactly the reference's answers, for both cell widths, on tables with
 * live, expired and deleted cells: keys added, keys never added, and keys
 * whose first fingerprint is 0 (it matches every empty cell of their
 * bucket, the case of several matches).
 */
static void test_query_reference(u32 fpp_ppb, u32 placement)
{
	u32 i, n = 3000, asked = 0, wrong = 0, zero = 0, present = 0;
	u64 *h = malloc(n * sizeof(*h)), now = T0, q, fpmask;
	struct filter f;
	bool answer;

	filter_new(&f, BLOOM_CORE_TIMED, n, fpp_ppb);
	f.core.key.placement = placement;
	fpmask = (1ULL << f.core.geo.fingerprint_bits) - 1;
	for (i = 0; i < n; i++) {
		h[i] = rng();
		if (i % 7 == 0)
			h[i] &= ~fpmask;
		add_at(&f.core, h[i],
				i % 5 ? 1 + (u32)(rng() % 4000) : 0, now);
		if (i % 11 == 0)
			delete_at(&f.core, h[rng() % (i + 1)], now);
		now += rng() % 3;
	}
	for (now = T0; now < T0 + 9000; now += 97) {
		for (i = 0; i < n; i++) {
			q = i % 2 ? h[i] : rng();
			if (i % 13 == 0)
				q &= ~fpmask;
			zero += !(q & fpmask);
			answer = query_at(&f.core, q, now);
			present += answer;
			wrong += answer != reference_query(&f.core, q, now);
			asked++;
		}
	}
	check(!wrong && zero && present && present < asked,
	      "%u-bit cells, placement %s: %u queries (%u of a zero "
	      "fingerprint, %u present) answered as a cell-by-cell reference "
	      "does: %u differ", f.core.geo.cell_bits,
	      placement == BLOOM_CORE_PLACE_FP ? "by fingerprint" : "Feistel",
	      asked, zero, present, wrong);
	free(h);
	filter_free(&f);
}

static void test_old_layout(void)
{
	u8 hdr[BLOOM_IMAGE_HEADER_BYTES(0)];
	struct bloom_image_header ih;
	const char *why = "";
	struct filter f;
	int err;

	filter_new(&f, BLOOM_CORE_TIMED, 1000, 100000);
	bloom_image_header_make(hdr, &f.core, "t", NULL);
	/* what the four-subtable layout wrote for the same filter */
	put32(hdr + OFF_HASHES, 4);
	put64(hdr + OFF_BUCKETS, 42);
	put64(hdr + OFF_BITS, 42ULL * 4 * 8 * 32);
	put64(hdr + sizeof(hdr) - 8, bloom_image_hash(hdr, sizeof(hdr) - 8));
	err = bloom_image_header_read(hdr, sizeof(hdr), &ih, &why);
	check(err == -EPROTONOSUPPORT && strstr(why, "add its keys again"),
	      "a timed snapshot of the four-subtable layout: refused by the "
	      "header's reader, EPROTONOSUPPORT (%d: %s)", err, why);
	check(bloom_image_is_timed4(hdr, sizeof(hdr)),
	      "and told apart as that layout's");
	err = bloom_image_upgrade_header(hdr, 12, &ih, &why);
	check(!bloom_image_is_timed4(hdr, 12) && err == -EBADMSG,
	      "nor from fewer bytes than its header's prefix: the reader's "
	      "refusal (%d: %s)", err, why);
	hdr[OFF_NAME] ^= 1;
	check(!bloom_image_is_timed4(hdr, sizeof(hdr)),
	      "but not with a header checksum that does not match");
	filter_free(&f);
}

/* The fixed snapshot @name of selftests/cli/data; its length in *@len. */
static u8 *fixture(const char *name, u64 *len)
{
	char path[512];
	u8 *buf = xalloc(1 << 16);
	FILE *in;

	snprintf(path, sizeof(path), "%s/%s", BLOOM_UNIT_DATA, name);
	in = fopen(path, "rb");
	if (!in) {
		perror(path);
		exit(1);
	}
	*len = fread(buf, 1, 1 << 16, in);
	fclose(in);
	return buf;
}

/* gen_timed4_snap.c's keys and times */
#define OLD_T0		1000000ULL
#define OLD_SAVED	(OLD_T0 + 10)
#define OLD_KEYS	1000

static u64 old_key(const struct bloom_core *f, u32 i)
{
	char k[32];

	snprintf(k, sizeof(k), "old-%u", i);
	return bloom_core_hash(f, k, strlen(k));
}

static void test_old_converted(void)
{
	static const u32 timeouts[4] = { 0, 600, 86400, 30 * 86400 };
	u32 i, lost = 0, deleted = 0, early = 0, late = 0, left;
	struct bloom_image_header ih;
	u8 *file, *buf, *old, *storage;
	const char *why = "";
	struct bloom_core f;
	u64 len, res, expiry;
	int err;

	file = fixture("timed4-32.snap", &len);
	buf = xalloc(len);
	memcpy(buf, file, len);
	check(bloom_image_is_timed4(buf, len) &&
	      bloom_image_header_read(buf, len, &ih, &why) == -EPROTONOSUPPORT,
	      "timed4-32.snap: the four-subtable layout, refused as it is");
	err = bloom_image_upgrade_header(buf, len, &ih, &why);
	check(!err && ih.geo.hashes == 2 && ih.geo.cell_bits == 32 &&
	      ih.geo.fingerprint_bits == 18 && ih.geo.buckets == 42 &&
	      ih.placement == BLOOM_CORE_PLACE_FEISTEL &&
	      ih.payload_bytes == len - ih.header_size,
	      "its header made over: 2 subtables of the same 42 buckets of "
	      "32-bit cells, 18 fingerprint bits, the Feistel placement of "
	      "scheme 2, the payload's size as it was (%d %s)", err,
	      err ? why : "");
	for (i = 0; i < ih.header_size; i++)
		if (buf[i] != file[i] && (i < OFF_HASHES || i >= OFF_HASHES + 4) &&
		    i < ih.header_size - 8)
			break;
	check(i == ih.header_size, "and no other field of it changed");

	old = file + ih.header_size;
	old[7] ^= 0x40;
	err = bloom_image_upgrade_payload(buf, &ih, old, &why);
	check(err == -EBADMSG && strstr(why, "checksum"),
	      "a payload changed by one bit: refused, EBADMSG (%d)", err);
	old[7] ^= 0x40;
	err = bloom_image_upgrade_payload(buf, &ih, old, &why);
	check(!err, "the payload made over (%d %s)", err, err ? why : "");
	storage = xalloc(ih.payload_bytes);
	err = bloom_image_header_read(buf, len, &ih, &why) ||
	      bloom_image_load(&f, &ih, buf, len, storage, NULL, &why);
	check(!err && f.key.placement == BLOOM_CORE_PLACE_FEISTEL,
	      "the whole file passes today's reader and payload checks "
	      "(%s)", err ? why : "ok");
	if (err)
		goto out;
	res = bloom_timed_resolution_s(600);
	for (i = 0; i < OLD_KEYS; i++) {
		u64 h = old_key(&f, i);

		if (i % 10 == 0) {
			deleted += query_at(&f, h, OLD_SAVED);
			continue;
		}
		lost += !query_at(&f, h, OLD_SAVED);
		if (!timeouts[i % 4])
			continue;
		/* at least T after the add, gone by T + its unit */
		expiry = OLD_T0 + timeouts[i % 4];
		early += !query_at(&f, h, expiry);
		late += query_at(&f, h, expiry + 1 +
				 bloom_timed_resolution_s(timeouts[i % 4]));
	}
	left = (u32)live_at(&f, OLD_SAVED);
	check(!lost && !early && !late && left == ih.stats.count &&
	      left == 900,
	      "every one of the 900 keys kept answers present at the save, "
	      "and each key with a timeout still at its timeout and no longer "
	      "one unit (%llu s for 600 s) past it: %u lost, %u early, %u "
	      "late; %u live cells, %llu counted at the save",
	      (unsigned long long)res, lost,
	      early, late, left, (unsigned long long)ih.stats.count);
	check(!deleted, "none of the 100 deleted keys answers present: %u",
	      deleted);
	check(add_at(&f, old_key(&f, 1), 0, OLD_SAVED) == 1 &&
	      add_at(&f, old_key(&f, 10), 0, OLD_SAVED) == 0 &&
	      delete_at(&f, old_key(&f, 2), OLD_SAVED) == BLOOM_CORE_DEL_REMOVED &&
	      !query_at(&f, old_key(&f, 2), OLD_SAVED) &&
	      query_at(&f, old_key(&f, 10), OLD_SAVED),
	      "adds and deletes find the converted keys where they are");
out:
	free(storage);
	free(buf);
	free(file);
}

static void test_old_refused(void)
{
	struct bloom_image_header ih;
	const char *why = "";
	u8 *file, *buf;
	u64 len;
	int err;

	file = fixture("timed4-64.snap", &len);
	buf = xalloc(len);
	memcpy(buf, file, len);
	err = bloom_image_upgrade_header(buf, len, &ih, &why);
	check(err == -EPROTONOSUPPORT && strstr(why, "add its keys again") &&
	      !memcmp(buf, file, len),
	      "timed4-64.snap, 64-bit cells: refused, EPROTONOSUPPORT, the "
	      "file's bytes as they were (%d: %s)", err, why);
	free(buf);
	free(file);
}

/*
 * Recorded from each placement's code (the Feistel one's before the
 * placement by fingerprint existed); never edit them.
 */
#define PIN_FEISTEL	0x9388a241179ce9ecULL
#define PIN_FP		0xe53e99cfc1ae8332ULL

static void test_pin(u32 placement, u64 pin)
{
	struct bloom_geometry g = {
		.type = BLOOM_CORE_TIMED, .hashes = 2, .bits = 42 * 1024,
		.capacity = 1000, .fpp_ppb = 100000, .fingerprint_bits = 18,
		.cell_bits = 32, .buckets = 42,
	};
	bloom_hash_key_t key;
	struct bloom_core f;
	char k[32];
	void *mem;
	u64 img;
	u32 i;

	bloom_hash_key_from_bytes(&key, test_key);
	key.placement = placement;
	mem = xalloc(bloom_core_storage_bytes(&g));
	memset(mem, 0, bloom_core_storage_bytes(&g));
	bloom_core_init(&f, &g, &key, mem);
	for (i = 0; i < 500; i++) {
		snprintf(k, sizeof(k), "pin-%u", i);
		add_at(&f, bloom_core_hash(&f, k, strlen(k)),
				i % 3 ? 600 * (i % 5 + 1) : 0, T0);
	}
	img = bloom_image_hash(mem, bloom_core_storage_bytes(&g));
	check(img == pin, "placement %s: the layout's image 0x%016llx is the "
	      "one pinned", placement == BLOOM_CORE_PLACE_FP ?
	      "by fingerprint" : "Feistel", (unsigned long long)img);
	free(mem);
}

int main(void)
{
	printf("TAP version 13\n");
	rng_seed("BLOOM_TIMED_SEED");
	test_match();
	test_placement(BLOOM_CORE_PLACE_FP);
	test_placement(BLOOM_CORE_PLACE_FEISTEL);
	test_full();
	test_model(false);
	test_model(true);
	test_query_reference(100000, BLOOM_CORE_PLACE_FP);
	test_query_reference(1000, BLOOM_CORE_PLACE_FP);
	test_query_reference(100000, BLOOM_CORE_PLACE_FEISTEL);
	test_old_layout();
	test_old_converted();
	test_old_refused();
	test_pin(BLOOM_CORE_PLACE_FEISTEL, PIN_FEISTEL);
	test_pin(BLOOM_CORE_PLACE_FP, PIN_FP);
	printf("1..%d\n", test_no);
	return test_failed ? 1 : 0;
}
