// SPDX-License-Identifier: GPL-2.0
/* Parsing command-line values: counts, rates, hash keys, addresses. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bloomctl.h"
#include "units.h"

/*
 * "1000000", "1000k", "1M", "2G", "64Ki": the core's parser (units.h), the
 * one max_memory uses too.
 */
int parse_count(const char *s, uint64_t *out)
{
	return bloom_parse_units(s, strlen(s), out) ? -1 : 0;
}

enum bloom_type type_opt(const char *verb, const char *arg)
{
	enum bloom_type t = bloom_type_from_name(arg);

	if (!t)
		die_usage(verb, "unknown filter type '%s': use standard, blocked, counting, dleft or timed",
			  arg);
	return t;
}

/*
 * A rate, as a probability ("0.01", "1e-3") or as a percentage ("1%" is
 * 0.01, "0.1%" 0.001): the one parser of every --fpp. The range is the
 * caller's to check (bloom_fpp_to_ppb()).
 */
int parse_fpp(const char *s, double *p)
{
	char *end;

	errno = 0;
	*p = strtod(s, &end);
	if (errno || end == s || !isfinite(*p))
		return -1;
	if (end[0] == '%' && !end[1]) {
		*p /= 100;
		return 0;
	}
	return *end ? -1 : 0;
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

/*
 * --hash-key-file of create and build: exactly 16 bytes are the key as it
 * is; otherwise 32 hex digits and at most a newline ("openssl rand -hex 16
 * >FILE"), so the secret never shows in ps. "-" is standard input. Read in
 * bounded memory. 0, -errno, or -EINVAL for a file that holds no key.
 */
int read_hash_key_file(const char *path, uint8_t key[BLOOM_HASH_KEY_LEN])
{
	char buf[2 * BLOOM_HASH_KEY_LEN + 3];
	size_t len = 0;
	ssize_t n;
	int fd, err = 0;

	fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	if (fd < 0)
		return -errno;
	do {
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = -errno;
		else
			len += n;
	} while (n != 0 && !err && len < sizeof(buf) - 1);
	if (fd != STDIN_FILENO)
		close(fd);
	if (!err && len == BLOOM_HASH_KEY_LEN) {
		memcpy(key, buf, len);
	} else if (!err) {
		buf[len] = '\0';
		if (len && buf[len - 1] == '\n')
			buf[--len] = '\0';
		if (len && buf[len - 1] == '\r')
			buf[--len] = '\0';
		err = parse_hex_key(buf, key) ? -EINVAL : 0;
	}
	explicit_bzero(buf, sizeof(buf));
	return err;
}

/* For output: the library's name of the type (one table, <linux/bloom.h>). */
const char *type_name(uint32_t type)
{
	const char *n = bloom_type_name(type);

	return n ? n : "unknown";
}

/* inet_pton stops at a NUL: a key with an embedded NUL is no address. */
int parse_addr(int family, const char *s, size_t len, uint8_t *out)
{
	if (strlen(s) != len)
		return -1;
	return inet_pton(family, s, out) == 1 ? 0 : -1;
}

enum bloom_key_kind keys_kind_opt(const char *verb, const char *arg)
{
	if (!strcmp(arg, "strings"))
		return BLOOM_KEYS_STRINGS;
	if (!strcmp(arg, "ipv4"))
		return BLOOM_KEYS_IPV4;
	if (!strcmp(arg, "ipv6"))
		return BLOOM_KEYS_IPV6;
	die_usage(verb, "unknown key kind '%s': give strings, ipv4 or ipv6",
		  arg);
}

enum bloom_hash hash_opt(const char *verb, const char *arg)
{
	static const char *const names[] = BLOOM_HASH_NAMES;
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(arg, names[i]))
			return (enum bloom_hash)i;
	die_usage(verb, "unknown hash '%s': give siphash-1-3 or siphash-2-4",
		  arg);
}

const char *hash_name(uint32_t hash)
{
	static const char *const names[] = BLOOM_HASH_NAMES;

	return hash < sizeof(names) / sizeof(names[0]) ? names[hash] :
							 "unknown";
}

const char *keys_kind_name(uint32_t kind)
{
	static const char *const names[] = BLOOM_KEYS_NAMES;

	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] :
							 "unknown";
}

void prefix_list(char *buf, size_t len, const uint64_t *words,
		 unsigned int nbits)
{
	size_t used = 0;
	int l;

	buf[0] = '\0';
	for (l = (int)nbits - 1; l >= 0 && used < len; l--)
		if (words[l / 64] >> (l % 64) & 1)
			used += snprintf(buf + used, len - used, "%s/%d",
					 used ? " " : "", l);
}

const char *country_opt(const char *verb, const char *arg)
{
	if (strlen(arg) != 2 || !isalpha((unsigned char)arg[0]) ||
	    !isalpha((unsigned char)arg[1]))
		die_usage(verb, "bad --country '%s': give a two-letter country code as tor-geoipdb has it (DE, US)",
			  arg);
	return arg;
}
