// SPDX-License-Identifier: GPL-2.0
/*
 * Prefix expansion in bloomctl: the options of create and calc that give
 * a filter its netblock lengths (--prefix-lengths LIST, or --prefix-feed
 * FILE and --lookups N, chosen by libbloom's dynamic program over the
 * feed's lengths), what calc and create report of them, and the feed's
 * entries expanded into the keys a planned filter stores (add, test and
 * del with --ipv4/--ipv6).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bloomctl.h"
#include "feed.h"
#include "prefix.h"

int prefix_opt(const char *verb, int c, const char *arg, struct prefix_args *pa)
{
	uint64_t v;

	switch (c) {
	case PREFIX_OPT_LENGTHS:
		pa->lengths = arg;
		return 1;
	case PREFIX_OPT_FEED:
		pa->feed = arg;
		return 1;
	case PREFIX_OPT_SKIP:
		pa->skip_invalid = 1;
		return 1;
	case PREFIX_OPT_COUNTRY:
		pa->country = country_opt(verb, arg);
		return 1;
	case PREFIX_OPT_LOOKUPS:
		if (parse_count(arg, &v) || v < 2 ||
		    v > BLOOM_PREFIX_LENGTHS_MAX + 1)
			die_usage(verb, "bad --lookups '%s': give 2 to %d (the address and up to %d netblock lengths)",
				  arg, BLOOM_PREFIX_LENGTHS_MAX + 1,
				  BLOOM_PREFIX_LENGTHS_MAX);
		pa->lookups = (unsigned int)v;
		return 1;
	}
	return 0;
}

/* "19,24,29" into @p, for @family's lengths. */
static void parse_lengths(const char *verb, const char *arg, int family,
			  struct bloom_prefix_plan *p)
{
	unsigned int full = family == AF_INET ? 32 : 128, prev = 0;
	const char *s = arg;
	char *end;
	unsigned long l;

	memset(p, 0, sizeof(*p));
	while (*s) {
		errno = 0;
		l = strtoul(s, &end, 10);
		if (end == s || errno || l <= prev || l >= full ||
		    (*end && *end != ','))
			die_usage(verb, "bad --prefix-lengths '%s': give ascending lengths from 1 to %u, comma-separated (an address is always tested)",
				  arg, full - 1);
		if (p->nlens == BLOOM_PREFIX_LENGTHS_MAX)
			die_usage(verb, "--prefix-lengths '%s': at most %d lengths (a lookup tests each, and the address)",
				  arg, BLOOM_PREFIX_LENGTHS_MAX);
		p->lens[p->nlens++] = (unsigned char)l;
		prev = (unsigned int)l;
		s = *end ? end + 1 : end;
	}
	if (!p->nlens)
		die_usage(verb, "--prefix-lengths needs at least one length");
}

/*
 * The histogram of @path's entries by length, into @pr->hist: read whole,
 * its bad lines reported and refused as add refuses them (unless
 * --skip-invalid), and a feed of no entries refused: sized for none, a
 * filter would match every address once fed.
 */
static void read_histogram(const char *verb, const struct prefix_args *pa,
			   int family, struct prefix_report *pr)
{
	struct feed_bad_lines bad = { 0 };
	enum feed_result ret;
	struct feed_range r;
	struct line_reader lr;
	uint8_t key[FEED_KEY_MAX];
	const char *why, *path = pa->feed;
	unsigned int alen = family == AF_INET ? 4 : 16;
	uint64_t entries = 0;
	char *line, subject[320];
	long len;
	int klen, err;

	memset(pr->hist, 0, sizeof(pr->hist));
	err = lr_open(&lr, path);
	if (err)
		die("%s: cannot open %s: %s", verb, path, strerror(-err));
	while ((len = lr_next(&lr, &line)) != LR_END) {
		if (len == LR_ERROR)
			die("%s: cannot read %s after line %" PRIu64 ": %s",
			    verb, lr.path, lr.lineno, strerror(errno));
		if (len == LR_TOO_LONG) {
			feed_bad_note(&bad, lr.path, lr.lineno,
				      "line too long to be an entry");
			continue;
		}
		ret = feed_parse_range(line, (size_t)len, family, FEED_F_SHORT,
				       pa->country, &r, &why);
		if (ret == FEED_KEY) {
			while ((klen = feed_range_next(&r, key))) {
				pr->hist[klen == (int)alen ? alen * 8 :
							     key[alen]]++;
				entries++;
			}
			continue;
		}
		if (ret == FEED_NOT_RANGE)
			ret = feed_parse_line(line, (size_t)len, family,
					      FEED_F_SHORT, key, &klen, &why);
		switch (ret) {
		case FEED_KEY:
			pr->hist[klen == (int)alen ? alen * 8 : key[alen]]++;
			entries++;
			break;
		case FEED_BAD:
			feed_bad_note(&bad, lr.path, lr.lineno, why);
			break;
		case FEED_SKIP:
		case FEED_NOT_RANGE:
			break;
		}
	}
	snprintf(subject, sizeof(subject), "%s: --prefix-feed %s", verb,
		 lr.path);
	lr_close(&lr);
	feed_bad_verdict(&bad, subject, bad.n + entries, pa->skip_invalid,
			 "nothing was planned", "plans from the good ones",
			 "planning from the good ones");
	if (!entries)
		die("%s: no %s addresses or netblocks in it: a filter planned for none would match every address once fed; give the feed the filter will hold",
		    subject, family == AF_INET ? "IPv4" : "IPv6");
}

int prefix_plan(const char *verb, const struct prefix_args *pa, int family,
		double fpp, struct prefix_report *pr)
{
	unsigned int full = family == AF_INET ? 32 : 128, l;
	int err;

	memset(pr, 0, sizeof(*pr));
	pr->family = family;
	if (!pa->lengths && !pa->feed) {
		if (pa->lookups)
			die_usage(verb, "--lookups goes with --prefix-feed FILE (the feed whose lengths are chosen from)");
		return 0;
	}
	if (pa->lengths)
		parse_lengths(verb, pa->lengths, family, &pr->plan);
	if (!pa->feed)
		return 1;
	read_histogram(verb, pa, family, pr);
	pr->have_feed = 1;
	for (l = 1; l <= full; l++)
		pr->given += pr->hist[l];
	if (pa->lengths)
		err = 0;
	else if (pa->lookups)
		err = bloom_plan_choose(family, pr->hist, pa->lookups, &pr->plan);
	else
		err = bloom_plan_auto(family, pr->hist, fpp > 0 ? fpp : 0.01,
				      PREFIX_LOOKUPS_DEFAULT, &pr->plan);
	if (err == -ERANGE)
		die("%s: %s: no %u lengths store every netblock of the feed in at most 2^%d keys each (a /8 at /24 is 2^16): allow more with --lookups, or give --prefix-lengths",
		    verb, pa->feed, pa->lookups ? pa->lookups : PREFIX_LOOKUPS_DEFAULT,
		    BLOOM_PLAN_SHIFT_MAX);
	if (err)
		die("%s: cannot choose prefix lengths: %s", verb, strerror(-err));
	pr->stored = bloom_plan_keys(&pr->plan, family, pr->hist);
	if (pr->stored == UINT64_MAX)
		die("%s: %s: under --prefix-lengths %s a netblock of the feed would be more than 2^%d keys: give a length nearer to its own",
		    verb, pa->feed, pa->lengths, BLOOM_PLAN_SHIFT_MAX);
	for (l = 1; l < full; l++)
		pr->plain_lookups += pr->hist[l] != 0;
	pr->plain_lookups++;
	return 1;
}

void prefix_lengths_text(const struct bloom_prefix_plan *p, char *buf,
			 size_t len)
{
	size_t used = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < p->nlens && used < len; i++)
		used += snprintf(buf + used, len - used, "%s/%u", i ? " " : "",
				 p->lens[i]);
}

void prefix_print(const struct prefix_report *pr, double fpp)
{
	char lens[64];
	unsigned int e = 1 + pr->plan.nlens;

	prefix_lengths_text(&pr->plan, lens, sizeof(lens));
	printf("prefix lengths:  %s %s, and the address: a lookup tests at most %u\n",
	       pr->family == AF_INET ? "ipv4" : "ipv6", lens, e);
	if (pr->have_feed) {
		printf("netblocks given: %" PRIu64 " over %u lengths (as given, a lookup tests %u)\n",
		       pr->given, pr->plain_lookups - 1 + (pr->hist[pr->family == AF_INET ? 32 : 128] != 0),
		       pr->plain_lookups);
		printf("keys stored:     %" PRIu64 " (%.2fx the netblocks given)\n",
		       pr->stored, pr->given ? (double)pr->stored / pr->given : 0);
	}
	if (fpp > 0)
		printf("address fpp:     at most %.6g (%u tests of %.6g each)\n",
		       1 - pow(1 - fpp, e), e, fpp);
}

void prefix_to_opts(const struct prefix_report *pr,
		    struct bloom_create_opts *o)
{
	if (pr->family == AF_INET)
		o->prefixes4 = &pr->plan;
	else
		o->prefixes6 = &pr->plan;
}

/* Room for @want more keys in @x. */
static void expanded_room(struct prefix_expanded *x, size_t want)
{
	while (x->n + want > x->cap) {
		x->cap = x->cap ? 2 * x->cap : 4096;
		x->slot = realloc(x->slot, x->cap * sizeof(*x->slot));
		x->owner = realloc(x->owner, x->cap * sizeof(*x->owner));
		if (!x->slot || !x->owner)
			die("out of memory expanding the feed");
	}
}

long prefix_expand(const struct bloom_prefix_plan *p, int family,
		   const struct bloom_key *keys, size_t n,
		   struct prefix_expanded *x)
{
	/* one entry's keys: at most 2^BLOOM_PLAN_SHIFT_MAX */
	static uint8_t one[(1 << BLOOM_PLAN_SHIFT_MAX) * FEED_KEY_MAX];
	size_t i, j;
	int olen;
	long k;

	memset(x, 0, sizeof(*x));
	for (i = 0; i < n; i++) {
		k = bloom_plan_expand(p, family, keys[i].data, (int)keys[i].len,
				      one, (size_t)1 << BLOOM_PLAN_SHIFT_MAX,
				      &olen);
		if (k < 0)
			return k;
		expanded_room(x, (size_t)k);
		for (j = 0; j < (size_t)k; j++) {
			memcpy(x->slot[x->n], one + j * olen, olen);
			x->slot[x->n][FEED_KEY_MAX] = (uint8_t)olen;
			x->owner[x->n++] = i;
		}
	}
	x->keys = calloc(x->n ? x->n : 1, sizeof(*x->keys));
	if (!x->keys)
		die("out of memory expanding the feed");
	for (i = 0; i < x->n; i++) {
		x->keys[i].data = x->slot[i];
		x->keys[i].len = x->slot[i][FEED_KEY_MAX];
	}
	return (long)x->n;
}

void prefix_expanded_free(struct prefix_expanded *x)
{
	free(x->keys);
	free(x->slot);
	free(x->owner);
}

int prefix_same(const struct bloom_info *in, const struct bloom_create_opts *o)
{
	struct bloom_create want;

	memset(&want, 0, sizeof(want));
	bloom_plan_bits(o->prefixes4, AF_INET, &want.prefix_lengths4,
			want.prefix_lengths6);
	bloom_plan_bits(o->prefixes6, AF_INET6, &want.prefix_lengths4,
			want.prefix_lengths6);
	return in->prefix_lengths4 == want.prefix_lengths4 &&
	       in->prefix_lengths6[0] == want.prefix_lengths6[0] &&
	       in->prefix_lengths6[1] == want.prefix_lengths6[1];
}
