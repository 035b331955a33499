// SPDX-License-Identifier: GPL-2.0
/* Parsing command-line values: counts, rates, hash keys, types, addresses. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bloomctl.h"

/* "1000000", "1000k", "1M", "2G": decimal multipliers, as key counts are. */
int parse_count(const char *s, uint64_t *out)
{
	unsigned long long v;
	uint64_t mul = 1;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'k': case 'K':
		mul = 1000ULL;
		end++;
		break;
	case 'm': case 'M':
		mul = 1000000ULL;
		end++;
		break;
	case 'g': case 'G':
		mul = 1000000000ULL;
		end++;
		break;
	}
	if (*end || (v && mul > UINT64_MAX / v))
		return -1;
	*out = v * mul;
	return 0;
}

/* "0.01", "1e-3", "1%" is not accepted: a rate is a probability. */
int parse_fpp(const char *s, double *p)
{
	char *end;

	errno = 0;
	*p = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*p))
		return -1;
	return 0;
}

int parse_hex_key(const char *s, uint8_t key[BLOOM_HASH_KEY_LEN])
{
	size_t i;

	if (strlen(s) != 2 * BLOOM_HASH_KEY_LEN)
		return -1;
	for (i = 0; i < 2 * BLOOM_HASH_KEY_LEN; i++)
		if (!isxdigit((unsigned char)s[i]))
			return -1;
	for (i = 0; i < BLOOM_HASH_KEY_LEN; i++) {
		char byte[3] = { s[2 * i], s[2 * i + 1], 0 };

		key[i] = (uint8_t)strtoul(byte, NULL, 16);
	}
	return 0;
}

enum bloom_type parse_type(const char *s)
{
	if (!strcmp(s, "standard"))
		return BLOOM_TYPE_STANDARD;
	if (!strcmp(s, "blocked"))
		return BLOOM_TYPE_BLOCKED;
	if (!strcmp(s, "counting"))
		return BLOOM_TYPE_COUNTING;
	/* "dleft" as sysfs spells it; "d-left" as the literature does. */
	if (!strcmp(s, "dleft") || !strcmp(s, "d-left"))
		return BLOOM_TYPE_DLEFT;
	return 0;
}

const char *type_name(uint32_t type)
{
	switch (type) {
	case BLOOM_TYPE_STANDARD:
		return "standard";
	case BLOOM_TYPE_BLOCKED:
		return "blocked";
	case BLOOM_TYPE_COUNTING:
		return "counting";
	case BLOOM_TYPE_DLEFT:
		return "dleft";	/* as in sysfs, so scripts compare one name */
	}
	return "unknown";
}

/* inet_pton stops at a NUL: a key with an embedded NUL is no address. */
int parse_addr(int family, const char *s, size_t len, uint8_t *out)
{
	if (strlen(s) != len)
		return -1;
	return inet_pton(family, s, out) == 1 ? 0 : -1;
}
