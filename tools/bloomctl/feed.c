// SPDX-License-Identifier: GPL-2.0
/*
 * The feed line parser (feed.h): no I/O, so that the unit tests
 * (selftests/unit/test_feed.c) run it on every line form.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "libbloom.h"
#include "feed.h"

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* The next word of *@p, NUL-terminated in place, or NULL at the end. */
static char *word(char **p)
{
	char *s = *p, *w;

	while (is_space(*s))
		s++;
	if (!*s)
		return NULL;
	w = s;
	while (*s && !is_space(*s))
		s++;
	if (*s)
		*s++ = '\0';
	*p = s;
	return w;
}

static enum feed_result bad(const char **why, const char *text)
{
	*why = text;
	return FEED_BAD;
}

/* An entry of the wrong family: which option it needs. */
static int other_family(const char *entry, int family)
{
	if (family == AF_INET)
		return strchr(entry, ':') != NULL;
	return !strchr(entry, ':') && strchr(entry, '.') != NULL;
}

/* ipset's options after an entry: "timeout N" is the one kept. */
static int ipset_options(char *p, int64_t *timeout, const char **why)
{
	char *w, *end;
	unsigned long long v;

	while ((w = word(&p))) {
		if (strcmp(w, "timeout"))
			continue;
		w = word(&p);
		if (!w || *w < '0' || *w > '9') {
			*why = "ipset 'timeout' without a number of seconds";
			return -1;
		}
		errno = 0;
		v = strtoull(w, &end, 10);
		if (errno || *end || v > BLOOM_KEY_TIMEOUT_MAX) {
			*why = "ipset 'timeout' out of range (0 to 2147483647 seconds)";
			return -1;
		}
		*timeout = (int64_t)v;
	}
	return 0;
}

enum feed_result feed_parse_entry(const char *entry, int family,
				  unsigned int flags, uint8_t *key, int *klen,
				  const char **why)
{
	unsigned int full = family == AF_INET ? 32 : 128;
	unsigned int plen;
	int ret;

	if (other_family(entry, family))
		return bad(why, family == AF_INET ?
			   "an IPv6 entry in an IPv4 feed (use --ipv6)" :
			   "an IPv4 entry in an IPv6 feed (use --ipv4)");
	ret = bloom_netblock_parse(entry, family,
				   flags & FEED_F_MASK ? BLOOM_NETBLOCK_F_MASK : 0,
				   key);
	if (ret == -EDOM)
		return bad(why, "host bits set under the prefix length (give the network address, or --mask-host-bits)");
	if (ret < 0)
		return bad(why, strchr(entry, '/') ?
			   "not an address/length (length 0..32 for IPv4, 0..128 for IPv6)" :
			   family == AF_INET ? "not an IPv4 address or netblock" :
					       "not an IPv6 address or netblock");
	plen = ret == (int)full / 8 ? full : key[ret - 1];
	/* a filter is a blocklist: one such line blocks everything */
	if (plen == 0)
		return bad(why, "a /0 netblock holds every address, so every address would test present (ipset refuses it too)");
	if (plen < FEED_SHORT_PREFIX && !(flags & FEED_F_SHORT))
		return bad(why, "a netblock shorter than /" FEED_SHORT_PREFIX_STR " holds more than 1/256 of all addresses, and every one of them would test present (--allow-short-prefixes if that is meant)");
	*klen = ret;
	return FEED_KEY;
}

enum feed_result feed_parse_line(char *line, size_t len, int family,
				 unsigned int flags, uint8_t *key, int *klen,
				 const char **why)
{
	int64_t timeout;

	return feed_parse_line_timeout(line, len, family, flags, key, klen,
				       &timeout, why);
}

enum feed_result feed_parse_line_timeout(char *line, size_t len, int family,
					 unsigned int flags, uint8_t *key,
					 int *klen, int64_t *timeout,
					 const char **why)
{
	char *p = line, *w, *entry;
	size_t i;

	*timeout = -1;
	if (strlen(line) != len)
		return bad(why, "a NUL byte in the line");
	for (i = 0; i < len; i++)
		if (line[i] == '#' || line[i] == ';') {
			line[i] = '\0';
			break;
		}
	w = word(&p);
	if (!w)
		return FEED_SKIP;
	/* ipset save: "create SET TYPE ..." and "add SET ENTRY [options]" */
	if (!strcmp(w, "create"))
		return FEED_SKIP;
	if (!strcmp(w, "add")) {
		if (!word(&p))
			return bad(why, "ipset 'add' line without a set name");
		entry = word(&p);
		if (!entry)
			return bad(why, "ipset 'add' line without an entry");
		if (ipset_options(p, timeout, why))
			return FEED_BAD;
	} else {
		entry = w;
		if (word(&p))
			return bad(why, "text after the entry (one address or address/length a line; comments start with # or ;)");
	}
	return feed_parse_entry(entry, family, flags, key, klen, why);
}

typedef unsigned __int128 u128;

static unsigned int family_bits(int family)
{
	return family == AF_INET ? 32 : 128;
}

/* The address @text of @family, or an IPv4 one as tor-geoipdb's integer. */
static int range_end(const char *text, int family, int integer, u128 *v)
{
	uint8_t a[16];
	unsigned int i, alen = family_bits(family) / 8;
	unsigned long long n;
	char *end;

	if (integer && family == AF_INET && *text >= '0' && *text <= '9' &&
	    !strchr(text, '.')) {
		errno = 0;
		n = strtoull(text, &end, 10);
		if (errno || *end || n > 0xffffffffULL)
			return -1;
		*v = n;
		return 0;
	}
	if (inet_pton(family, text, a) != 1)
		return -1;
	*v = 0;
	for (i = 0; i < alen; i++)
		*v = *v << 8 | a[i];
	return 0;
}

/* The length of the largest netblock at @lo within [@lo, @hi]. */
static unsigned int range_step(u128 lo, u128 hi, unsigned int bits)
{
	unsigned int len = 0;

	/* the block of length len at lo: aligned, and not past hi */
	for (len = 0; len < bits; len++) {
		u128 size_m1 = bits - len == 128 ? ~(u128)0 :
			       ((u128)1 << (bits - len)) - 1;

		if (!(lo & size_m1) && lo + size_m1 >= lo &&
		    lo + size_m1 <= hi)
			break;
	}
	return len;
}

int feed_range_next(struct feed_range *r, uint8_t *key)
{
	unsigned int bits = family_bits(r->family), len, i, alen = bits / 8;
	uint8_t addr[16];
	u128 v = r->lo, size_m1;

	if (r->done)
		return 0;
	len = range_step(r->lo, r->hi, bits);
	for (i = 0; i < alen; i++)
		addr[alen - 1 - i] = (uint8_t)(v >> (8 * i));
	size_m1 = bits - len == 128 ? ~(u128)0 :
		  ((u128)1 << (bits - len)) - 1;
	if (r->lo + size_m1 >= r->hi)
		r->done = 1;
	else
		r->lo += size_m1 + 1;
	return bloom_netblock_key(r->family, addr, len, key);
}

enum feed_result feed_parse_range(const char *line, size_t len, int family,
				  unsigned int flags, const char *country,
				  struct feed_range *r, const char **why)
{
	char buf[FEED_RANGE_LINE_MAX], *p = buf, *w, *first, *last, *cc;
	unsigned int bits = family_bits(family), l;
	int geoip;
	size_t i;
	struct feed_range t;

	if (len >= sizeof(buf) || strlen(line) != len)
		return FEED_NOT_RANGE;
	memcpy(buf, line, len + 1);
	for (i = 0; i < len; i++)
		if (buf[i] == '#' || buf[i] == ';') {
			buf[i] = '\0';
			break;
		}
	w = word(&p);
	if (!w || word(&p))
		return FEED_NOT_RANGE;
	geoip = strchr(w, ',') != NULL;
	if (!geoip && !strchr(w, '-'))
		return FEED_NOT_RANGE;
	first = w;
	if (geoip) {
		last = strchr(first, ',');
		*last++ = '\0';
		cc = strchr(last, ',');
		if (!cc)
			return bad(why, "not a tor-geoipdb line (FIRST,LAST,CC)");
		*cc++ = '\0';
		if (strlen(cc) != 2 && strcmp(cc, "??"))
			return bad(why, "not a tor-geoipdb line (FIRST,LAST,CC with CC two letters)");
		if (!country)
			return bad(why, "a tor-geoipdb line (FIRST,LAST,CC): give --country CC to take one country's ranges");
		if (strcasecmp(cc, country))
			return FEED_SKIP;
	} else {
		last = strchr(first, '-');
		*last++ = '\0';
	}
	t.family = family;
	t.done = 0;
	if (other_family(first, family) || other_family(last, family))
		return bad(why, family == AF_INET ?
			   "an IPv6 range in an IPv4 feed (use --ipv6)" :
			   "an IPv4 range in an IPv6 feed (use --ipv4)");
	if (range_end(first, family, geoip, &t.lo) ||
	    range_end(last, family, geoip, &t.hi))
		return bad(why, geoip ? "not a tor-geoipdb range of this family (FIRST,LAST,CC)" :
			   family == AF_INET ? "not an IPv4 range (FIRST-LAST)" :
					       "not an IPv6 range (FIRST-LAST)");
	if (t.lo > t.hi)
		return bad(why, "a range whose first address is after its last");
	/* its netblocks, as the lines of a feed of them would be checked */
	*r = t;
	while (!t.done) {
		u128 size_m1;

		l = range_step(t.lo, t.hi, bits);
		if (l == 0)
			return bad(why, "a range of every address holds a /0 netblock, so every address would test present (ipset refuses /0 too)");
		if (l < FEED_SHORT_PREFIX && !(flags & FEED_F_SHORT))
			return bad(why, "a range that holds a netblock shorter than /" FEED_SHORT_PREFIX_STR " (more than 1/256 of all addresses, and every one would test present; --allow-short-prefixes if that is meant)");
		size_m1 = ((u128)1 << (bits - l)) - 1;
		if (t.lo + size_m1 >= t.hi)
			t.done = 1;
		else
			t.lo += size_m1 + 1;
	}
	return FEED_KEY;
}
