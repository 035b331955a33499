/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Prefix expansion in bloomctl (prefix.c): the options that give a filter
 * its netblock lengths, their report, and a feed expanded under them.
 */
#ifndef BLOOMCTL_PREFIX_H
#define BLOOMCTL_PREFIX_H

#include <stddef.h>
#include <stdint.h>
#include "libbloom.h"
#include "feed.h"

/* Long options only: codes past any character. */
#define PREFIX_OPT_LENGTHS	0x300
#define PREFIX_OPT_FEED		0x301
#define PREFIX_OPT_LOOKUPS	0x302
#define PREFIX_OPT_SKIP		0x303
#define PREFIX_OPT_COUNTRY	0x304
#define PREFIX_OPTIONS \
	{ "prefix-lengths", required_argument, NULL, PREFIX_OPT_LENGTHS }, \
	{ "prefix-feed", required_argument, NULL, PREFIX_OPT_FEED }, \
	{ "lookups", required_argument, NULL, PREFIX_OPT_LOOKUPS }, \
	{ "skip-invalid", no_argument, NULL, PREFIX_OPT_SKIP }, \
	{ "country", required_argument, NULL, PREFIX_OPT_COUNTRY }

/*
 * The most lookups --prefix-feed allows without --lookups: the fewest that
 * keep memory within BLOOM_PLAN_MEMORY_RATIO of the feed stored as it is
 * are taken, up to this (Documentation/bloom.rst, "Prefix expansion",
 * has the measurement behind it).
 */
#define PREFIX_LOOKUPS_DEFAULT	6

struct prefix_args {
	const char *lengths;	/* --prefix-lengths */
	const char *feed;	/* --prefix-feed */
	unsigned int lookups;	/* --lookups, or 0 */
	int skip_invalid;	/* --skip-invalid: a feed's bad lines skipped */
	const char *country;	/* --country CC: tor-geoipdb lines of CC */
};

/* What a plan is and, with a feed, what it does to it. */
struct prefix_report {
	int family;
	struct bloom_prefix_plan plan;
	int have_feed;
	uint64_t hist[129];
	uint64_t given;		/* the feed's entries */
	uint64_t stored;	/* the keys they take under @plan */
	unsigned int plain_lookups;	/* a lookup's tests, stored as given */
};

/* A feed's entries expanded: the keys to send, and each one's entry. */
struct prefix_expanded {
	uint8_t (*slot)[FEED_KEY_MAX + 1];
	size_t *owner;
	struct bloom_key *keys;
	size_t n, cap;
};

/* One of the options above: 1 if it was (and is taken), else 0. */
int prefix_opt(const char *verb, int c, const char *arg, struct prefix_args *pa);
/*
 * The plan @pa asks for, for @family at the rate per address @fpp (0: not
 * known): 1 and @pr filled, or 0 when no prefix option was given. Exits
 * saying what to do when the options or the feed cannot make one.
 */
int prefix_plan(const char *verb, const struct prefix_args *pa, int family,
		double fpp, struct prefix_report *pr);
void prefix_print(const struct prefix_report *pr, double fpp);
/* "/19 /24 /29" */
void prefix_lengths_text(const struct bloom_prefix_plan *p, char *buf,
			 size_t len);
/* @o gets @pr's plan (which must outlive @o's use). */
void prefix_to_opts(const struct prefix_report *pr,
		    struct bloom_create_opts *o);
/*
 * @n entries expanded under @p into @x: its number of keys, or -ERANGE
 * (an entry over 2^BLOOM_PLAN_SHIFT_MAX keys), -EINVAL.
 */
long prefix_expand(const struct bloom_prefix_plan *p, int family,
		   const struct bloom_key *keys, size_t n,
		   struct prefix_expanded *x);
void prefix_expanded_free(struct prefix_expanded *x);
/* Has the filter @in the lengths @o asks for (none: none)? */
int prefix_same(const struct bloom_info *in, const struct bloom_create_opts *o);

#endif /* BLOOMCTL_PREFIX_H */
