// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Prefix expansion in libbloom (tools/lib/expand.c): the dynamic program
 * against every plan tried one by one, the bound on a netblock's keys,
 * the automatic choice, and the keys a netblock expands into (each inside
 * the block, all of them distinct, together the whole block).
 */
#include <arpa/inet.h>
#include <string.h>

#include "unit.h"
#include "libbloom.h"

/* Keys of @hist under the lengths in bitmask @mask, by bloom_plan_keys(). */
static uint64_t keys_of_mask(const uint64_t *hist, uint32_t mask)
{
	struct bloom_prefix_plan p = { 0 };
	unsigned int l;

	for (l = 1; l < 32; l++)
		if (mask & (1U << l))
			p.lens[p.nlens++] = (unsigned char)l;
	return bloom_plan_keys(&p, AF_INET, hist);
}

/* The fewest keys of any plan of 1 to @n lengths within 16..31. */
static uint64_t brute(const uint64_t *hist, unsigned int n)
{
	uint64_t best = UINT64_MAX, k;
	uint32_t m;

	for (m = 1; m < (1U << 16); m++) {
		if ((unsigned int)__builtin_popcount(m) > n)
			continue;
		k = keys_of_mask(hist, m << 16);
		if (k < best)
			best = k;
	}
	return best;
}

static void test_choose(void)
{
	/* a tor-geoipdb country's shape (RU, IPv4), lengths 16..32 */
	static const uint64_t ru[33] = {
		[16] = 86, [17] = 172, [18] = 325, [19] = 751, [20] = 891,
		[21] = 1381, [22] = 2953, [23] = 1996, [24] = 3495,
		[25] = 98, [26] = 102, [27] = 134, [28] = 203, [29] = 277,
		[30] = 259, [31] = 235, [32] = 216 };
	struct bloom_prefix_plan p = { 0 };
	unsigned int e;
	bool same = true;

	for (e = 2; e <= 5; e++) {
		uint64_t b = brute(ru, e - 1);

		printf("# %u lookups: fewest %llu\n", e, (unsigned long long)b);
		same &= !bloom_plan_choose(AF_INET, ru, e, &p) &&
			p.nlens <= e - 1 &&
			bloom_plan_keys(&p, AF_INET, ru) == b;
	}
	check(same, "the program's plan stores as few keys as the best of every plan (2..5 lookups)");
	check(!bloom_plan_choose(AF_INET, ru, 4, &p) && p.nlens == 3 &&
	      p.lens[0] < p.lens[1] && p.lens[1] < p.lens[2],
	      "4 lookups: 3 lengths, ascending (%u %u %u)", p.lens[0],
	      p.lens[1], p.lens[2]);
	check(bloom_plan_keys(NULL, AF_INET, ru) == 13574,
	      "no plan: one key a netblock");
	check(!bloom_plan_choose(AF_INET, ru, 8, &p) &&
	      bloom_plan_keys(&p, AF_INET, ru) < bloom_plan_keys(NULL, AF_INET, ru) * 2,
	      "8 lookups: under 2x the keys");
	check(bloom_plan_choose(AF_INET, ru, 9, &p) == -EINVAL &&
	      bloom_plan_choose(AF_INET, ru, 1, &p) == -EINVAL,
	      "lookups out of 2..8: EINVAL");
}

static void test_bound(void)
{
	static uint64_t h[33], h6[129];
	struct bloom_prefix_plan p = { .nlens = 1, .lens = { 24 } };

	memset(h, 0, sizeof(h));
	h[7] = 1;
	h[24] = 10;
	check(bloom_plan_keys(&p, AF_INET, h) == UINT64_MAX,
	      "a /7 at /24 (2^17 keys): over the bound");
	memset(h6, 0, sizeof(h6));
	h6[20] = 1;
	h6[60] = 1;
	check(bloom_plan_choose(AF_INET6, h6, 2, &p) == -ERANGE,
	      "2 lookups cannot hold an IPv6 /20 and a /60: ERANGE");
	check(!bloom_plan_choose(AF_INET6, h6, 3, &p) && p.nlens == 2,
	      "3 lookups can");
	check(!bloom_plan_choose(AF_INET, h, 3, &p) && p.nlens == 2 &&
	      p.lens[0] == 7 && p.lens[1] == 24,
	      "3 lookups: 7 and 24, each stored as it is");
}

static void test_auto(void)
{
	static uint64_t h[33];
	struct bloom_prefix_plan p = { 0 };
	unsigned int l;

	/* every length 16..31 equally: a tight budget needs many lookups */
	memset(h, 0, sizeof(h));
	for (l = 16; l <= 32; l++)
		h[l] = 1000;
	check(!bloom_plan_auto(AF_INET, h, 0.01, 8, &p) && p.nlens >= 1 &&
	      p.nlens <= 7, "auto: a plan of %u lengths", p.nlens);
	/* two lengths only: stored as they are, no expansion */
	memset(h, 0, sizeof(h));
	h[24] = 500;
	h[32] = 500;
	check(!bloom_plan_auto(AF_INET, h, 0.01, 4, &p) && p.nlens == 1 &&
	      p.lens[0] == 24 && bloom_plan_keys(&p, AF_INET, h) == 1000,
	      "auto on /24s and addresses: 24 alone, no key more");
}

static void test_expand(void)
{
	struct bloom_prefix_plan p = { .nlens = 2, .lens = { 20, 24 } };
	static uint8_t out[256 * BLOOM_NETBLOCK_KEY_MAX];
	uint8_t key[BLOOM_NETBLOCK_KEY_MAX];
	int klen, olen, i, j;
	long n;
	bool ok = true;

	klen = bloom_netblock_parse("198.51.96.0/21", AF_INET, 0, key);
	n = bloom_plan_expand(&p, AF_INET, key, klen, out, 256, &olen);
	check(n == 8 && olen == 5, "198.51.96.0/21 at /24: 8 keys of 5 bytes");
	for (i = 0; i < n; i++) {
		const uint8_t *k = out + i * olen;

		ok &= k[0] == 198 && k[1] == 51 && k[2] == 96 + i &&
		      k[3] == 0 && k[4] == 24;
		for (j = 0; j < i; j++)
			ok &= memcmp(k, out + j * olen, olen) != 0;
	}
	check(ok, "they are 198.51.96.0/24 .. 198.51.103.0/24, each once");
	klen = bloom_netblock_parse("198.51.100.0/26", AF_INET, 0, key);
	n = bloom_plan_expand(&p, AF_INET, key, klen, out, 256, &olen);
	check(n == 64 && olen == 4 && out[3] == 0 && out[63 * 4 + 3] == 63,
	      "a /26 past the last length: its 64 addresses");
	klen = bloom_netblock_parse("198.51.100.0/24", AF_INET, 0, key);
	n = bloom_plan_expand(&p, AF_INET, key, klen, out, 256, &olen);
	check(n == 1 && olen == 5 && !memcmp(out, key, 5),
	      "a planned length: itself");
	klen = bloom_netblock_parse("198.51.100.7", AF_INET, 0, key);
	n = bloom_plan_expand(&p, AF_INET, key, klen, out, 256, &olen);
	check(n == 1 && olen == 4, "an address: itself");
	klen = bloom_netblock_parse("10.0.0.0/8", AF_INET, 0, key);
	check(bloom_plan_expand(&p, AF_INET, key, klen, out, 256, &olen) ==
	      -ENOSPC, "a /8 at /20 into room for 256: ENOSPC");
	klen = bloom_netblock_parse("2001:db8::/45", AF_INET6, 0, key);
	p = (struct bloom_prefix_plan){ .nlens = 1, .lens = { 48 } };
	n = bloom_plan_expand(&p, AF_INET6, key, klen, out, 256, &olen);
	check(n == 8 && olen == 17 && out[7 * 17 + 5] == 7 &&
	      out[7 * 17 + 16] == 48,
	      "2001:db8::/45 at /48: 8 keys, the last 2001:db8:7::/48");
}

/* hostile_expand: @p, @key of @klen: -EINVAL and nothing written. */
static int refused(const struct bloom_prefix_plan *p, int family,
		   const uint8_t *key, int klen)
{
	static uint8_t out[16 * BLOOM_NETBLOCK_KEY_MAX];
	size_t i;
	int olen = -1;
	long n;

	memset(out, 0xa5, sizeof(out));
	n = bloom_plan_expand(p, family, key, klen, out, 16, &olen);
	for (i = 0; i < sizeof(out); i++)
		if (out[i] != 0xa5)
			return 0;
	return n == -EINVAL && olen == -1;
}

/*
 * Plans and keys a caller may hand in that no parse made: every one is
 * refused before a byte is written (a length over 128 used to index past
 * the 16-byte address the expansion builds in; run under ASan or valgrind
 * to see it).
 */
static void test_hostile(void)
{
	struct bloom_prefix_plan p = { .nlens = 1, .lens = { 24 } };
	uint64_t hist[129] = { 0 };
	uint8_t key[BLOOM_NETBLOCK_KEY_MAX] = { 0 };
	int klen;

	hist[20] = 1;
	klen = bloom_netblock_parse("198.51.96.0/20", AF_INET, 0, key);
	check(bloom_plan_expand(&p, AF_INET, key, klen, (uint8_t[16 * 5]){ 0 },
				16, &klen) == 16, "a good plan expands (the control)");
	klen = 5;
	p = (struct bloom_prefix_plan){ .nlens = 1, .lens = { 200 } };
	check(refused(&p, AF_INET, key, klen) &&
	      refused(&p, AF_INET6, key, 17),
	      "a length of 200 is refused for both families");
	check(bloom_plan_keys(&p, AF_INET, hist) == UINT64_MAX &&
	      bloom_plan_target(&p, AF_INET, 20) == 20,
	      "  and counts no keys, stores nothing elsewhere");
	p = (struct bloom_prefix_plan){ .nlens = 1, .lens = { 32 } };
	check(refused(&p, AF_INET, key, klen),
	      "a length of a whole IPv4 address is refused");
	p = (struct bloom_prefix_plan){ .nlens = 1, .lens = { 0 } };
	check(refused(&p, AF_INET, key, klen), "a length of 0 is refused");
	p = (struct bloom_prefix_plan){ .nlens = 2, .lens = { 24, 16 } };
	check(refused(&p, AF_INET, key, klen) &&
	      bloom_plan_keys(&p, AF_INET, hist) == UINT64_MAX,
	      "lengths out of order are refused");
	p = (struct bloom_prefix_plan){ .nlens = 2, .lens = { 24, 24 } };
	check(refused(&p, AF_INET, key, klen), "a length twice is refused");
	p = (struct bloom_prefix_plan){ .nlens = BLOOM_PREFIX_LENGTHS_MAX + 1,
					.lens = { 24 } };
	check(refused(&p, AF_INET, key, klen) &&
	      bloom_plan_keys(&p, AF_INET, hist) == UINT64_MAX &&
	      bloom_plan_target(&p, AF_INET, 20) == 20,
	      "more lengths than a plan holds are refused");
	p = (struct bloom_prefix_plan){ .nlens = 1, .lens = { 24 } };
	key[4] = 33;
	check(refused(&p, AF_INET, key, 5), "an IPv4 key's length byte of 33 is refused");
	key[4] = 255;
	check(refused(&p, AF_INET, key, 5), "  and one of 255");
	memset(key, 0, sizeof(key));
	key[16] = 129;
	p = (struct bloom_prefix_plan){ .nlens = 1, .lens = { 120 } };
	check(refused(&p, AF_INET6, key, 17), "an IPv6 key's length byte of 129 is refused");
	check(refused(&p, AF_INET, key, 3) && refused(&p, AF_INET, key, 6) &&
	      refused(&p, AF_INET, key, -1) && refused(&p, 12345, key, 4),
	      "key lengths of neither form and an unknown family are refused");
}

int main(void)
{
	double t0 = now();

	printf("TAP version 13\n");
	test_choose();
	test_bound();
	test_auto();
	test_expand();
	test_hostile();
	printf("1..%d\n", test_no);
	printf("# %d passed, %d failed, %.1f s\n", test_no - test_failed,
	       test_failed, now() - t0);
	return test_failed ? 1 : 0;
}
