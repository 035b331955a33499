// SPDX-License-Identifier: GPL-2.0
/*
 * The feed line parser (feed.h): no I/O, so that the unit tests
 * (selftests/unit/test_feed.c) run it on every line form.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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
