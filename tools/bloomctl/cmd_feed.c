// SPDX-License-Identifier: GPL-2.0
/*
 * add, test and del of addresses and netblocks (--ipv4, --ipv6): the whole
 * input is read and checked before anything is sent, so that a feed with
 * a bad line changes nothing (feed.h). Entries are at most 17 bytes, so a
 * feed of millions fits in memory; every line is bounded by the line
 * reader (lines.c), and pipes and FIFOs are read like files.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bloomctl.h"
#include "feed.h"
#include "prefix.h"

/* Entries per call to the library: a multiple of 8 (a results byte). */
#define FEED_SLICE	65536

struct feed {
	struct bloom_key *keys;
	uint8_t (*slot)[FEED_KEY_MAX + 1];
	uint32_t *timeouts;	/* each entry's: its line's, or --timeout */
	size_t n, cap;
	uint64_t lines;
	uint64_t line_timeouts;	/* entries whose ipset line gave one */
	struct feed_bad_lines bad;
};

static void feed_push(struct feed *f, const uint8_t *key, int klen,
		      uint32_t timeout)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 4096;
		f->slot = realloc(f->slot, f->cap * sizeof(*f->slot));
		f->timeouts = realloc(f->timeouts,
				      f->cap * sizeof(*f->timeouts));
		if (!f->slot || !f->timeouts)
			die("out of memory reading the feed");
	}
	f->timeouts[f->n] = timeout;
	memcpy(f->slot[f->n], key, klen);
	/* lengths now, pointers once the slots stop moving */
	f->slot[f->n][FEED_KEY_MAX] = (uint8_t)klen;
	f->n++;
}

void feed_bad_note(struct feed_bad_lines *b, const char *where,
		   uint64_t line, const char *why)
{
	if (b->n < FEED_BAD_SHOWN)
		snprintf(b->shown[b->n], sizeof(b->shown[0]), "%s: %s",
			 file_line(where, line), why);
	b->n++;
}

void feed_bad_verdict(const struct feed_bad_lines *b, const char *subject,
		      uint64_t lines, int skip, const char *nothing,
		      const char *uses, const char *skipped)
{
	uint64_t i;

	if (!b->n)
		return;
	for (i = 0; i < b->n && i < FEED_BAD_SHOWN; i++)
		fprintf(stderr, "bloomctl: %s\n", b->shown[i]);
	if (b->n > FEED_BAD_SHOWN)
		fprintf(stderr, "bloomctl: ... and %" PRIu64 " more bad lines\n",
			b->n - FEED_BAD_SHOWN);
	if (!skip)
		die("%s: %" PRIu64 " bad line%s of %" PRIu64 ": %s (--skip-invalid %s)",
		    subject, b->n, b->n == 1 ? "" : "s", lines, nothing, uses);
	fprintf(stderr, "bloomctl: %s: skipped %" PRIu64 " bad line%s, %s\n",
		subject, b->n, b->n == 1 ? "" : "s", skipped);
}

/* For "nothing was ..." in messages. */
static const char *feed_done(const struct feed_args *a)
{
	return a->op == BLOOM_OP_ADD ? "added" :
	       a->op == BLOOM_OP_QUERY ? "tested" : "deleted";
}

static void feed_one(struct feed *f, const struct feed_args *a, char *line,
		     size_t len, const char *where, uint64_t lineno)
{
	uint8_t key[FEED_KEY_MAX];
	const char *why = NULL;
	struct feed_range r;
	char over[96];
	int64_t timeout;
	int klen;

	f->lines++;
	switch (feed_parse_range(line, len, a->family, a->flags, a->country,
				 &r, &why)) {
	case FEED_KEY:
		while ((klen = feed_range_next(&r, key)))
			feed_push(f, key, klen, a->has_timeout ? a->timeout_s :
						a->default_s);
		return;
	case FEED_BAD:
		feed_bad_note(&f->bad, where, lineno, why);
		return;
	case FEED_SKIP:
		return;
	case FEED_NOT_RANGE:
		break;
	}
	switch (feed_parse_line_timeout(line, len, a->family, a->flags, key,
					&klen, &timeout, &why)) {
	case FEED_KEY:
		if (a->timed && timeout > a->max_s) {
			snprintf(over, sizeof(over),
				 "ipset timeout %" PRId64 " over the filter's largest, %u s",
				 timeout, a->max_s);
			feed_bad_note(&f->bad, where, lineno, over);
			break;
		}
		f->line_timeouts += timeout >= 0;
		feed_push(f, key, klen, timeout >= 0 ? (uint32_t)timeout :
			  a->has_timeout ? a->timeout_s : a->default_s);
		break;
	case FEED_BAD:
		feed_bad_note(&f->bad, where, lineno, why);
		break;
	case FEED_SKIP:
	case FEED_NOT_RANGE:
		break;
	}
}

/*
 * A command-line key is a key: an address or netblock, refused (exit 3,
 * nothing sent) if it is anything else, blank or "#..." included, so that
 * every result printed is the result of the key it is printed against.
 */
static void feed_arg(struct feed *f, const struct feed_args *a, int i)
{
	const char *text = a->keys[i], *why = NULL;
	uint8_t key[FEED_KEY_MAX];
	int klen;

	f->lines++;
	if (!*text)
		why = "empty key";
	else if (feed_parse_entry(text, a->family, a->flags, key, &klen,
				  &why) == FEED_KEY)
		why = NULL;
	if (why)
		die("key %d ('%.64s'): %s; nothing was %s", i + 1, text, why,
		    feed_done(a));
	feed_push(f, key, klen, a->has_timeout ? a->timeout_s : a->default_s);
}

static void feed_file(struct feed *f, const struct feed_args *a,
		      const char *path)
{
	struct line_reader lr;
	char *line;
	long len;
	int err;

	err = lr_open(&lr, path);
	if (err)
		die("cannot open %s: %s; nothing was %s", path, strerror(-err),
		    feed_done(a));
	while ((len = lr_next(&lr, &line)) != LR_END) {
		if (len == LR_ERROR)
			die("cannot read %s after line %" PRIu64 ": %s; nothing was sent",
			    lr.path, lr.lineno, strerror(errno));
		if (len == LR_TOO_LONG)
			die("%s: a line over %d bytes: not a feed of addresses; nothing was sent",
			    file_line(lr.path, lr.lineno), BLOOM_KEY_MAX);
		feed_one(f, a, line, len, lr.path, lr.lineno);
	}
	lr_close(&lr);
}

/* The entry of key @i as text: "203.0.113.0/24" or an address. */
static const char *feed_text(const struct feed *f, size_t i, int family,
			     char *buf, size_t len)
{
	size_t alen = family == AF_INET ? 4 : 16;
	size_t n;

	inet_ntop(family, f->slot[i], buf, len);
	n = strlen(buf);
	if (f->keys[i].len > alen)
		snprintf(buf + n, len - n, "/%u", f->slot[i][alen]);
	return buf;
}

/*
 * The entries in slices of FEED_SLICE, so that a person at a terminal sees
 * the progress. Returns the hits, or exits saying what failed and how
 * many entries were done before it.
 */
static long keys_send(const struct feed_args *a, const struct bloom_key *keys,
		      uint32_t *timeouts, size_t n_all, uint64_t line_timeouts,
		      uint8_t *results, uint8_t *pinned, size_t *npinned,
		      struct progress *prog)
{
	size_t start, n;
	long hits = 0, r;

	/* a timed filter's keys get their own timeouts when any was given */
	int timed = a->timed && (a->has_timeout || line_timeouts);

	*npinned = 0;
	for (start = 0; start < n_all; start += n) {
		size_t done = 0, np = 0;
		BLOOM_BATCH_OPTS(bo, .results = results + start / 8,
				 .pinned = a->op == BLOOM_OP_DELETE ?
					   pinned + start / 8 : NULL,
				 .npinned = &np, .done = &done,
				 .flags = BLOOM_BATCH_F_NET |
					  (timed ? BLOOM_BATCH_F_TIMEOUT : 0),
				 /* the whole feed passed check_overfill() */
				 .add_flags = a->op == BLOOM_OP_ADD ?
					      BLOOM_ADD_F_OVERFILL : 0,
				 .timeouts = timed ? timeouts + start : NULL);

		n = n_all - start < FEED_SLICE ? n_all - start : FEED_SLICE;
		r = bloom_batch(a->fd, a->op, keys + start, n, &bo);
		if (r < 0) {
			char msg[768];

			progress(prog, a->verb, a->name, start + done, 1);
			if (a->op != BLOOM_OP_ADD || r != -ENOSPC ||
			    !full_message(msg, sizeof(msg), a->fd, a->name))
				op_message(msg, sizeof(msg), a->op, a->name,
					   (int)r);
			if (!start && !done)
				die("%s; nothing was %s", msg, feed_done(a));
			die("%s; the first %zu of the %zu entries were %s, none after",
			    msg, start + done, n_all, feed_done(a));
		}
		hits += r;
		*npinned += np;
		progress(prog, a->verb, a->name, start + n, 0);
	}
	progress(prog, a->verb, a->name, n_all, 1);
	return hits;
}

/* @a's filter's netblock lengths for @a's family: 1 if it has them. */
static int feed_plan(const struct feed_args *a, struct bloom_prefix_plan *p)
{
	struct bloom_info in;

	/* no INFO: the batch itself says what is wrong */
	if (bloom_info(a->fd, a->name, &in))
		return 0;
	bloom_plan_of(&in, a->family, p);
	return p->nlens != 0;
}

/*
 * Each entry's result from its keys' (@x->owner): present, added already
 * or removed when every key was; pinned when one was. The entries whose
 * result is set.
 */
static long feed_fold(const struct prefix_expanded *x, size_t n,
		      const uint8_t *xr, const uint8_t *xp, uint8_t *results,
		      uint8_t *pinned, size_t *npinned)
{
	size_t i;
	long hits = 0;

	memset(results, 0xff, n / 8 + 1);
	memset(pinned, 0, n / 8 + 1);
	for (i = 0; i < x->n; i++) {
		size_t e = x->owner[i];

		if (!bloom_result(xr, i))
			results[e / 8] &= (uint8_t)~(1U << (e % 8));
		if (bloom_result(xp, i))
			pinned[e / 8] |= (uint8_t)(1U << (e % 8));
	}
	*npinned = 0;
	for (i = 0; i < n; i++) {
		hits += bloom_result(results, i);
		*npinned += bloom_result(pinned, i);
	}
	return hits;
}

/*
 * The entries, to a filter that stores netblocks at lengths of its own
 * (prefix expansion) as the keys of each at the next of them: a delete
 * then removes what its add stored.
 */
static long feed_send(const struct feed_args *a, const struct feed *f,
		      uint8_t *results, uint8_t *pinned, size_t *npinned,
		      struct progress *prog)
{
	struct bloom_prefix_plan plan;
	struct prefix_expanded x;
	uint8_t *xr, *xp;
	uint32_t *xt;
	size_t i;
	long r;

	if (!feed_plan(a, &plan)) {
		if (a->op == BLOOM_OP_ADD)
			check_overfill(a->fd, a->name, f->n, a->allow_overfill,
				       "nothing was added");
		return keys_send(a, f->keys, f->timeouts, f->n,
				 f->line_timeouts, results, pinned, npinned,
				 prog);
	}
	if (prefix_expand(&plan, a->family, f->keys, f->n, &x) < 0)
		die("%s: an entry would be more than 2^%d keys at the filter's netblock lengths; nothing was %s",
		    a->name, BLOOM_PLAN_SHIFT_MAX, feed_done(a));
	xr = calloc(x.n / 8 + 1, 1);
	xp = calloc(x.n / 8 + 1, 1);
	xt = calloc(x.n ? x.n : 1, sizeof(*xt));
	if (!xr || !xp || !xt)
		die("out of memory");
	for (i = 0; i < x.n; i++)
		xt[i] = f->timeouts[x.owner[i]];
	if (a->verbose)
		fprintf(stderr, "bloomctl: %s: %zu entries are %zu keys at the filter's netblock lengths\n",
			a->name, f->n, x.n);
	if (a->op == BLOOM_OP_ADD)
		check_overfill(a->fd, a->name, x.n, a->allow_overfill,
			       "nothing was added");
	keys_send(a, x.keys, xt, x.n, f->line_timeouts, xr, xp, npinned,
		  prog);
	r = feed_fold(&x, f->n, xr, xp, results, pinned, npinned);
	prefix_expanded_free(&x);
	free(xr);
	free(xp);
	free(xt);
	return r;
}

static int feed_report(const struct feed_args *a, const struct feed *f,
		       const uint8_t *results, long hits, size_t npinned,
		       double t0)
{
	char text[INET6_ADDRSTRLEN + 8];
	int absent = 0;
	size_t i;

	for (i = 0; i < f->n; i++) {
		int r = bloom_result(results, i);

		absent |= !r;
		if (a->op == BLOOM_OP_QUERY && !a->nfiles && !a->quiet)
			printf("%s: %s\n", a->keys[i],
			       r ? "may be present" : "absent");
		else if (a->op == BLOOM_OP_QUERY && a->nfiles && !a->quiet &&
			 r != a->absent)
			printf("%s\n", feed_text(f, i, a->family, text,
						 sizeof(text)));
	}
	check_output();
	if (a->op == BLOOM_OP_DELETE) {
		printf("%s: removed %ld key%s, %zu not found", a->name, hits,
		       hits == 1 ? "" : "s", f->n - hits - npinned);
		if (npinned)
			printf(", %zu pinned", npinned);
		putchar('\n');
		return (size_t)hits == f->n || a->exist ? EXIT_OK : EXIT_ABSENT;
	}
	if (a->verbose) {
		double t = now_seconds() - t0;

		fprintf(stderr, "bloomctl: %s: %s %zu entries in %.3f s (%.0f entries/s): %ld %s\n",
			a->name, feed_done(a), f->n, t, f->n / (t + 1e-9), hits,
			a->op == BLOOM_OP_QUERY ? "may be listed" :
			"probably present already");
	}
	return a->op == BLOOM_OP_QUERY && absent ? EXIT_ABSENT : EXIT_OK;
}

/*
 * Once, at the add that takes a filter of addresses without netblock
 * lengths of its own past PREFIX_LOOKUPS_DEFAULT tests a lookup (@before:
 * the tests before it): what each packet now pays, and how to create the
 * filter so that it pays less.
 */
static void warn_lookups(const struct feed_args *a, uint32_t before)
{
	struct bloom_info in;

	if (!before || bloom_info(a->fd, NULL, &in) ||
	    in.address_lookups <= PREFIX_LOOKUPS_DEFAULT ||
	    before > PREFIX_LOOKUPS_DEFAULT || in.prefix_lengths4 ||
	    in.prefix_lengths6[0] || in.prefix_lengths6[1])
		return;
	fprintf(stderr, "bloomctl: note: %s now holds netblocks of %u lengths: a lookup of an address (each packet a rule matches) tests it %u times, and an address never listed is taken for listed at up to %.3g (address_fpp), not the %.3g the filter was created for; a filter created with --prefix-feed FILE (its lengths chosen from the feed: 'bloomctl calc --prefix-feed FILE' shows them and the keys they take) tests at most %d\n",
		a->name, in.address_lookups - 1, in.address_lookups,
		in.address_fpp_ppb / 1e9, in.fpp_ppb / 1e9,
		PREFIX_LOOKUPS_DEFAULT);
}

int feed_verb(const struct feed_args *a)
{
	struct feed f = { 0 };
	struct bloom_info before = { 0 };
	struct progress prog;
	uint8_t *results, *pinned;
	size_t npinned = 0, i;
	long hits;
	int i2, ret;

	progress_start(&prog);
	for (i2 = 0; i2 < a->nfiles; i2++)
		feed_file(&f, a, a->files[i2]);
	for (i2 = 0; i2 < a->nkeys; i2++)
		feed_arg(&f, a, i2);
	if (f.bad.n) {
		char skipped[96];

		snprintf(skipped, sizeof(skipped), "sending the %zu good entr%s",
			 f.n, f.n == 1 ? "y" : "ies");
		feed_bad_verdict(&f.bad, a->name, f.lines, a->skip_invalid,
				 "nothing was sent", "sends the good ones",
				 skipped);
	}
	f.keys = calloc(f.n ? f.n : 1, sizeof(*f.keys));
	results = calloc(f.n / 8 + 1, 1);
	pinned = calloc(f.n / 8 + 1, 1);
	if (!f.keys || !results || !pinned)
		die("out of memory");
	for (i = 0; i < f.n; i++) {
		f.keys[i].data = f.slot[i];
		f.keys[i].len = f.slot[i][FEED_KEY_MAX];
	}
	if (a->op == BLOOM_OP_ADD && f.line_timeouts && !a->timed)
		fprintf(stderr, "bloomctl: note: %s: the timeouts of %" PRIu64 " ipset entr%s were not kept: its keys have no timeouts of their own (a filter created with --key-timeouts keeps them)\n",
			a->name, f.line_timeouts,
			f.line_timeouts == 1 ? "y" : "ies");
	if (a->op == BLOOM_OP_ADD && bloom_info(a->fd, NULL, &before))
		before.address_lookups = 0;
	hits = feed_send(a, &f, results, pinned, &npinned, &prog);
	ret = feed_report(a, &f, results, hits, npinned, prog.start);
	if (a->op == BLOOM_OP_ADD) {
		warn_over_capacity(a->fd, a->name);
		warn_lookups(a, before.address_lookups);
	}
	free(f.keys);
	free(f.slot);
	free(f.timeouts);
	free(results);
	free(pinned);
	return ret;
}
