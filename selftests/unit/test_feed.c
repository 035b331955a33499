// SPDX-License-Identifier: GPL-2.0
/*
 * The feed line parser of "bloomctl add --ipv4/--ipv6"
 * (tools/bloomctl/feed.c): every line form, the bad lines and the limits.
 */
#include <arpa/inet.h>
#include <string.h>

#include "unit.h"
#include "feed.h"

/* One line through the parser: its result, key length and reason. */
static int parse(const char *text, int family, unsigned int flags,
		 uint8_t *key, int *klen, const char **why)
{
	char line[256];

	snprintf(line, sizeof(line), "%s", text);
	*why = NULL;
	*klen = 0;
	return feed_parse_line(line, strlen(line), family, flags, key, klen,
			       why);
}

static void expect_key(const char *text, int family, unsigned int flags,
		       const uint8_t *want, int wlen)
{
	uint8_t key[FEED_KEY_MAX];
	const char *why;
	int klen, r = parse(text, family, flags, key, &klen, &why);

	check(r == FEED_KEY && klen == wlen && !memcmp(key, want, wlen),
	      "'%s': a key of %d bytes", text, wlen);
}

static void expect(const char *text, int family, int want, const char *re)
{
	uint8_t key[FEED_KEY_MAX];
	const char *why;
	int klen, r = parse(text, family, 0, key, &klen, &why);

	check(r == want && (!re || (why && strstr(why, re))),
	      "'%s': %s%s%s", text, want == FEED_SKIP ? "skipped" :
	      want == FEED_BAD ? "bad" : "key", why ? ": " : "", why ? why : "");
}

/* A bad line under @flags, its reason matching @re. */
static void expect_flags(const char *text, int family, unsigned int flags,
			 const char *re)
{
	uint8_t key[FEED_KEY_MAX];
	const char *why;
	int klen, r = parse(text, family, flags, key, &klen, &why);

	check(r == FEED_BAD && why && strstr(why, re),
	      "'%s' (flags %#x): bad: %s", text, flags, why ? why : "?");
}

/*
 * @text as a range of @family: its netblocks, as "a.b.c.d/l ..." (text),
 * into @out; the parser's result.
 */
static int range(const char *text, int family, unsigned int flags,
		 const char *country, char *out, size_t room, const char **why)
{
	struct feed_range r;
	uint8_t key[FEED_KEY_MAX];
	unsigned int alen = family == AF_INET ? 4 : 16;
	char addr[INET6_ADDRSTRLEN];
	size_t used = 0;
	int ret, klen;

	*why = NULL;
	out[0] = '\0';
	ret = feed_parse_range(text, strlen(text), family, flags, country, &r,
			       why);
	if (ret != FEED_KEY)
		return ret;
	while ((klen = feed_range_next(&r, key)) && used < room) {
		inet_ntop(family, key, addr, sizeof(addr));
		used += snprintf(out + used, room - used, "%s%s/%u",
				 used ? " " : "", addr,
				 klen == (int)alen ? alen * 8 : key[alen]);
	}
	return ret;
}

static void expect_range(const char *text, int family, const char *country,
			 const char *want)
{
	char got[4096];
	const char *why;
	int r = range(text, family, 0, country, got, sizeof(got), &why);

	check(r == FEED_KEY && !strcmp(got, want), "range '%s': %s (%s)",
	      text, want, r == FEED_KEY ? got : why ? why : "not a range");
}

static void expect_not(const char *text, int family, const char *country,
		       int want, const char *re)
{
	char got[4096];
	const char *why;
	int r = range(text, family, FEED_F_MASK, country, got, sizeof(got),
		      &why);

	check(r == want && (!re || (why && strstr(why, re))),
	      "range '%s': result %d (%s)", text, r, why ? why : "");
}

static void test_ranges(void)
{
	expect_range("192.0.2.0-192.0.3.255", AF_INET, NULL, "192.0.2.0/23");
	expect_range("10.0.0.1-10.0.0.6", AF_INET, NULL,
		     "10.0.0.1/32 10.0.0.2/31 10.0.0.4/31 10.0.0.6/32");
	expect_range("10.0.0.7-10.0.0.7 # one", AF_INET, NULL, "10.0.0.7/32");
	expect_range("255.255.255.254-255.255.255.255", AF_INET, NULL,
		     "255.255.255.254/31");
	expect_range("2001:db8::-2001:db8::1:0", AF_INET6, NULL,
		     "2001:db8::/112 2001:db8::1:0/128");
	/* tor-geoipdb: 1347420160 is 80.80.0.0 */
	expect_range("1347420160,1347421183,DE", AF_INET, "DE",
		     "80.80.0.0/22");
	expect_range("1347420160,1347421183,de", AF_INET, "DE",
		     "80.80.0.0/22");
	expect_range("2a00:1::,2a00:1::ff,DE", AF_INET6, "de",
		     "2a00:1::/120");
	expect_not("1347420160,1347421183,US", AF_INET, "DE", FEED_SKIP, NULL);
	expect_not("1347420160,1347421183,DE", AF_INET, NULL, FEED_BAD,
		   "give --country");
	expect_not("4294967296,4294967296,DE", AF_INET, "DE", FEED_BAD,
		   "not a tor-geoipdb range");
	expect_not("10.0.0.9-10.0.0.1", AF_INET, NULL, FEED_BAD,
		   "first address is after its last");
	expect_not("0.0.0.0-255.255.255.255", AF_INET, NULL, FEED_BAD, "/0");
	expect_not("::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", AF_INET6,
		   NULL, FEED_BAD, "/0");
	expect_not("2.0.0.0-3.255.255.255", AF_INET, NULL, FEED_BAD,
		   "shorter than /8");
	expect_not("2001:db8::1-10.0.0.1", AF_INET, NULL, FEED_BAD,
		   "IPv6 range in an IPv4 feed");
	expect_not("10.0.0.1-x", AF_INET, NULL, FEED_BAD, "not an IPv4 range");
	expect_not("1,2", AF_INET, "DE", FEED_BAD, "not a tor-geoipdb line");
	expect_not("10.0.0.0/24", AF_INET, NULL, FEED_NOT_RANGE, NULL);
	expect_not("add s 10.0.0.1-10.0.0.2", AF_INET, NULL, FEED_NOT_RANGE,
		   NULL);
}

int main(void)
{
	static const u8 a[4] = { 203, 0, 113, 77 };
	static const u8 n24[5] = { 203, 0, 113, 0, 24 };
	static const u8 n8[5] = { 10, 0, 0, 0, 8 };
	static const u8 n3[5] = { 224, 0, 0, 0, 3 };
	u8 v6[17] = { 0x20, 0x01, 0x0d, 0xb8, [16] = 32 };
	u8 v6a[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	double t0 = now();

	printf("TAP version 13\n");
	expect_key("203.0.113.77", AF_INET, 0, a, 4);
	expect_key("203.0.113.77/32", AF_INET, 0, a, 4);
	expect_key("203.0.113.0/24", AF_INET, 0, n24, 5);
	expect_key("  203.0.113.0/24\t", AF_INET, 0, n24, 5);
	expect_key("203.0.113.0/24 # firehol comment", AF_INET, 0, n24, 5);
	expect_key("203.0.113.0/24;comment", AF_INET, 0, n24, 5);
	expect_key("203.0.113.0/24\r", AF_INET, 0, n24, 5);
	expect_key("10.0.0.0/8", AF_INET, 0, n8, 5);
	expect_key("224.0.0.0/3", AF_INET, FEED_F_SHORT, n3, 5);
	expect_key("add blacklist 203.0.113.0/24", AF_INET, 0, n24, 5);
	expect_key("add blacklist 203.0.113.0/24 timeout 3600 comment \"x\"",
		   AF_INET, 0, n24, 5);
	expect_key("203.0.113.9/24", AF_INET, FEED_F_MASK, n24, 5);
	expect_key("2001:db8::/32", AF_INET6, 0, v6, 17);
	expect_key("2001:db8::1", AF_INET6, 0, v6a, 16);
	expect_key("add bl6 2001:db8::/32", AF_INET6, 0, v6, 17);
	expect("", AF_INET, FEED_SKIP, NULL);
	expect("   \t\r", AF_INET, FEED_SKIP, NULL);
	expect("# only a comment", AF_INET, FEED_SKIP, NULL);
	expect("; only a comment", AF_INET, FEED_SKIP, NULL);
	expect("create blacklist hash:net family inet hashsize 1024",
	       AF_INET, FEED_SKIP, NULL);
	expect("203.0.113.9/24", AF_INET, FEED_BAD, "host bits");
	expect("2001:db8::/32", AF_INET, FEED_BAD, "use --ipv6");
	expect("203.0.113.0/24", AF_INET6, FEED_BAD, "use --ipv4");
	/* /0 holds every address: refused, as ipset refuses it */
	expect("0.0.0.0/0", AF_INET, FEED_BAD, "a /0 netblock");
	expect("::/0", AF_INET6, FEED_BAD, "a /0 netblock");
	expect_flags("0.0.0.0/0", AF_INET, FEED_F_SHORT, "a /0 netblock");
	expect_flags("1.2.3.4/0", AF_INET, FEED_F_MASK, "a /0 netblock");
	expect("add bl 0.0.0.0/0", AF_INET, FEED_BAD, "a /0 netblock");
	/* shorter than /8: only when --allow-short-prefixes says it is meant */
	expect("224.0.0.0/3", AF_INET, FEED_BAD, "--allow-short-prefixes");
	expect("128.0.0.0/1", AF_INET, FEED_BAD, "--allow-short-prefixes");
	expect("fc00::/7", AF_INET6, FEED_BAD, "--allow-short-prefixes");
	expect("203.0.113.0/33", AF_INET, FEED_BAD, "length");
	expect("203.0.113.0/", AF_INET, FEED_BAD, "length");
	expect("203.0.113.0/-1", AF_INET, FEED_BAD, "length");
	expect("203.0.113.0/2x", AF_INET, FEED_BAD, "length");
	expect("2001:db8::/129", AF_INET6, FEED_BAD, "length");
	expect("203.0.113", AF_INET, FEED_BAD, "not an IPv4");
	expect("256.0.0.1", AF_INET, FEED_BAD, "not an IPv4");
	expect("example.com", AF_INET, FEED_BAD, "not an IPv4");
	expect("203.0.113.1 203.0.113.2", AF_INET, FEED_BAD, "text after");
	expect("add blacklist", AF_INET, FEED_BAD, "without an entry");
	expect("add", AF_INET, FEED_BAD, "without a set name");
	expect("1.2.3.4-1.2.3.9", AF_INET, FEED_BAD, "not an IPv4");
	{
		static const struct {
			const char *text;
			int64_t timeout;
			int ok;
		} tos[] = {
			{ "add bl 203.0.113.77 timeout 3600", 3600, 1 },
			{ "add bl 203.0.113.77 comment x timeout 0", 0, 1 },
			{ "add bl 203.0.113.77 timeout 2147483647", 2147483647, 1 },
			{ "add bl 203.0.113.77", -1, 1 },
			{ "203.0.113.77", -1, 1 },
			{ "add bl 203.0.113.77 timeout", 0, 0 },
			{ "add bl 203.0.113.77 timeout -1", 0, 0 },
			{ "add bl 203.0.113.77 timeout 2147483648", 0, 0 },
			{ "add bl 203.0.113.77 timeout 9x", 0, 0 },
		};
		uint8_t key[FEED_KEY_MAX];
		const char *why = NULL;
		int64_t to;
		int klen, ok = 1;
		size_t i;

		for (i = 0; i < sizeof(tos) / sizeof(tos[0]); i++) {
			char line[80];
			enum feed_result r;

			snprintf(line, sizeof(line), "%s", tos[i].text);
			r = feed_parse_line_timeout(line, strlen(line), AF_INET, 0,
					     key, &klen, &to, &why);
			if (tos[i].ok ? r != FEED_KEY || to != tos[i].timeout :
					r != FEED_BAD) {
				printf("# '%s': %d, timeout %lld\n", tos[i].text,
				       r, (long long)to);
				ok = 0;
			}
		}
		check(ok, "ipset 'timeout N' is read (0 to 2147483647), -1 without it, refused out of range");
	}
	{
		char line[5000];
		uint8_t key[FEED_KEY_MAX];
		const char *why = NULL;
		int klen;

		memset(line, '1', sizeof(line) - 1);
		line[sizeof(line) - 1] = '\0';
		check(feed_parse_line(line, strlen(line), AF_INET, 0, key,
				      &klen, &why) == FEED_BAD,
		      "a 4999-byte line is bad, not overrun (%s)",
		      why ? why : "?");
		line[3] = '\0';
		check(feed_parse_line(line, 10, AF_INET, 0, key, &klen,
				      &why) == FEED_BAD && strstr(why, "NUL"),
		      "a NUL byte inside the line is bad");
	}
	{
		/* a command-line key is an entry alone: no comment, no blank */
		static const char *const not_keys[] = { "", " ", "# x", ";",
			"203.0.113.1 # x", "add bl 203.0.113.1" };
		uint8_t key[FEED_KEY_MAX];
		const char *why;
		size_t i;
		int klen;

		for (i = 0; i < sizeof(not_keys) / sizeof(not_keys[0]); i++) {
			why = NULL;
			check(feed_parse_entry(not_keys[i], AF_INET, 0, key,
					       &klen, &why) == FEED_BAD && why,
			      "entry '%s' is bad: %s", not_keys[i],
			      why ? why : "?");
		}
		check(feed_parse_entry("203.0.113.0/24", AF_INET, 0, key,
				       &klen, &why) == FEED_KEY && klen == 5,
		      "entry '203.0.113.0/24' is a key");
	}
	test_ranges();
	printf("1..%d\n", test_no);
	printf("# %d passed, %d failed, %.1f s\n", test_no - test_failed,
	       test_failed, now() - t0);
	return test_failed ? 1 : 0;
}
