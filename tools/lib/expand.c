// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * Prefix expansion ("Prefix expansion" in Documentation/userspace-api.rst):
 * the few netblock lengths a filter stores, chosen from a feed's histogram
 * of lengths, and a netblock stored as the netblocks of the next of them.
 *
 * Controlled prefix expansion (Srinivasan and Varghese, 1999) as Bloom
 * filters use it (Dharmapurikar, Krishnamurthy and Taylor, SIGCOMM 2003):
 * a lookup of an address tests the address and each stored length, so
 * fewer lengths make it cheaper and its false-positive rate lower, at the
 * price of more keys: a /20 stored at /24 is 16 keys.
 */
#include <arpa/inet.h>
#include <math.h>
#include <string.h>
#include "internal.h"

#define COST_INF	UINT64_MAX

static unsigned int plan_full(int family)
{
	return family == AF_INET ? 32 : family == AF_INET6 ? 128 : 0;
}

/*
 * A plan a caller built may be anything: at most BLOOM_PREFIX_LENGTHS_MAX
 * lengths, each shorter than an address of @family and longer than 0, in
 * ascending order, or every length computed from it may index past a
 * histogram or an address. NULL is the plan of no lengths.
 */
static int plan_ok(const struct bloom_prefix_plan *p, unsigned int full)
{
	unsigned int i;

	if (!p)
		return 1;
	if (p->nlens > BLOOM_PREFIX_LENGTHS_MAX)
		return 0;
	for (i = 0; i < p->nlens; i++)
		if (!p->lens[i] || p->lens[i] >= full ||
		    (i && p->lens[i] <= p->lens[i - 1]))
			return 0;
	return 1;
}

/* @a + @b, stuck at COST_INF. */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > COST_INF - b ? COST_INF : a + b;
}

/*
 * Keys of the lengths in (@from, @to] of @hist stored at @to: each
 * netblock of length l is 2^(to - l) keys; COST_INF when one would be
 * more than 2^BLOOM_PLAN_SHIFT_MAX.
 */
static uint64_t segment(const uint64_t *hist, unsigned int from,
			unsigned int to)
{
	uint64_t keys = 0, part;
	unsigned int l;

	for (l = from + 1; l <= to; l++) {
		if (!hist[l])
			continue;
		if (to - l > BLOOM_PLAN_SHIFT_MAX)
			return COST_INF;
		part = hist[l] > (COST_INF >> (to - l)) ? COST_INF :
		       hist[l] << (to - l);
		keys = sat_add(keys, part);
	}
	return keys;
}

unsigned int bloom_plan_target(const struct bloom_prefix_plan *p, int family,
			       unsigned int plen)
{
	unsigned int full = plan_full(family), i;

	if (!p || !p->nlens || !plan_ok(p, full))
		return plen;
	for (i = 0; i < p->nlens; i++)
		if (p->lens[i] >= plen)
			return p->lens[i];
	return full;
}

uint64_t bloom_plan_keys(const struct bloom_prefix_plan *p, int family,
			 const uint64_t *hist)
{
	unsigned int full = plan_full(family), prev = 0, i;
	uint64_t keys = 0;

	if (!full || !hist || !plan_ok(p, full))
		return COST_INF;
	if (!p || !p->nlens) {
		for (i = 1; i <= full; i++)
			keys = sat_add(keys, hist[i]);
		return keys;
	}
	for (i = 0; i < p->nlens; i++) {
		keys = sat_add(keys, segment(hist, prev, p->lens[i]));
		prev = p->lens[i];
	}
	return sat_add(keys, segment(hist, prev, full));
}

int bloom_plan_choose(int family, const uint64_t *hist, unsigned int lookups,
		      struct bloom_prefix_plan *p)
{
	/* best[j][b]: fewest keys for lengths 1..b with j lengths, the last b */
	static __thread uint64_t best[BLOOM_PREFIX_LENGTHS_MAX + 1][129];
	static __thread unsigned char from[BLOOM_PREFIX_LENGTHS_MAX + 1][129];
	unsigned int full = plan_full(family), j, a, b, bj = 0, ba = 0, n;
	uint64_t c, total = COST_INF;

	if (!full || !hist || !p || lookups < 2 ||
	    lookups > BLOOM_PREFIX_LENGTHS_MAX + 1)
		return -EINVAL;
	for (j = 0; j < lookups; j++)
		for (b = 0; b <= full; b++)
			best[j][b] = COST_INF;
	best[0][0] = 0;
	for (j = 1; j < lookups; j++)
		for (b = j; b < full; b++)
			for (a = j - 1; a < b; a++) {
				if (best[j - 1][a] == COST_INF)
					continue;
				c = sat_add(best[j - 1][a], segment(hist, a, b));
				if (c < best[j][b]) {
					best[j][b] = c;
					from[j][b] = (unsigned char)a;
				}
			}
	/* the rest, up to the full length, is stored at the full length */
	for (j = 0; j < lookups; j++)
		for (a = j ? j : 0; a < (j ? full : 1); a++) {
			if (best[j][a] == COST_INF)
				continue;
			c = sat_add(best[j][a], segment(hist, a, full));
			/* fewer lengths on a tie: fewer tests */
			if (c < total) {
				total = c;
				bj = j;
				ba = a;
			}
		}
	if (total == COST_INF)
		return -ERANGE;
	memset(p, 0, sizeof(*p));
	for (n = bj; n; n--) {
		p->lens[n - 1] = (unsigned char)ba;
		ba = from[n][ba];
	}
	p->nlens = bj;
	return 0;
}

/* Lookups of an address over @hist as it is: 1 + shorter lengths present. */
static unsigned int plain_lookups(const uint64_t *hist, unsigned int full)
{
	unsigned int l, n = 1;

	for (l = 1; l < full; l++)
		n += hist[l] != 0;
	return n;
}

/*
 * Memory for @keys keys at a rate per address of @fpp over @lookups tests
 * (a test's rate fpp / lookups), in units of bits per key of a standard
 * filter over ln 2^2: keys x ln(lookups / fpp).
 */
static double plan_memory(uint64_t keys, unsigned int lookups, double fpp)
{
	return (double)keys * log((double)lookups / fpp);
}

int bloom_plan_auto(int family, const uint64_t *hist, double fpp,
		    unsigned int max_lookups, struct bloom_prefix_plan *p)
{
	unsigned int full = plan_full(family), e;
	double today;
	int ret = -ERANGE;

	if (!full || !hist || !p || !(fpp > 0 && fpp <= 0.5) ||
	    max_lookups < 2 || max_lookups > BLOOM_PREFIX_LENGTHS_MAX + 1)
		return -EINVAL;
	today = plan_memory(bloom_plan_keys(NULL, family, hist),
			    plain_lookups(hist, full), fpp);
	for (e = 2; e <= max_lookups; e++) {
		ret = bloom_plan_choose(family, hist, e, p);
		if (!ret && plan_memory(bloom_plan_keys(p, family, hist),
					1 + p->nlens, fpp) <=
			    BLOOM_PLAN_MEMORY_RATIO * today)
			return 0;
	}
	/* none within the budget: the fewest keys max_lookups allow */
	return ret;
}

long bloom_plan_expand(const struct bloom_prefix_plan *p, int family,
		       const void *key, int klen, void *out, size_t room,
		       int *out_klen)
{
	unsigned int full = plan_full(family), alen = full / 8, plen, to, i;
	const uint8_t *k = key;
	uint8_t addr[16], *o = out;
	uint64_t n, j;

	if (!full || !key || !out_klen || !plan_ok(p, full) ||
	    (klen != (int)alen && klen != (int)alen + 1))
		return -EINVAL;
	plen = klen == (int)alen ? full : k[alen];
	/* a length byte past the family's addresses is not a netblock */
	if (plen > full)
		return -EINVAL;
	to = bloom_plan_target(p, family, plen);
	if (to - plen > BLOOM_PLAN_SHIFT_MAX)
		return -ERANGE;
	n = 1ULL << (to - plen);
	if (!out || room < n)
		return -ENOSPC;
	memcpy(addr, k, alen);
	for (j = 0; j < n; j++) {
		/* bits plen..to-1 of the address: j, most significant first */
		for (i = 0; i < to - plen; i++) {
			unsigned int bit = plen + i;
			uint8_t mask = (uint8_t)(0x80 >> (bit % 8));

			if (j >> (to - plen - 1 - i) & 1)
				addr[bit / 8] |= mask;
			else
				addr[bit / 8] &= (uint8_t)~mask;
		}
		*out_klen = bloom_netblock_key(family, addr, to, o);
		o += *out_klen;
	}
	return (long)n;
}

void bloom_plan_bits(const struct bloom_prefix_plan *p, int family,
		     __u32 *l4, __u64 *l6)
{
	unsigned int i;

	for (i = 0; p && i < p->nlens && i < BLOOM_PREFIX_LENGTHS_MAX; i++) {
		if (family == AF_INET && p->lens[i] < 32)
			*l4 |= 1U << p->lens[i];
		else if (family == AF_INET6 && p->lens[i] < 128)
			l6[p->lens[i] / 64] |= 1ULL << (p->lens[i] % 64);
	}
}

void bloom_plan_of(const struct bloom_info *info, int family,
		   struct bloom_prefix_plan *p)
{
	unsigned int l;
	int on;

	memset(p, 0, sizeof(*p));
	for (l = 1; l < plan_full(family); l++) {
		on = family == AF_INET ? info->prefix_lengths4 >> l & 1 :
		     (int)(info->prefix_lengths6[l / 64] >> (l % 64) & 1);
		if (on && p->nlens < BLOOM_PREFIX_LENGTHS_MAX)
			p->lens[p->nlens++] = (unsigned char)l;
	}
}
