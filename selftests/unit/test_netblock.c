// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The netblock key form and the lengths a filter keeps (module/core/
 * netblock.c): parsing and making keys, host bits, the length bitmap and
 * counts through adds and deletes, the lookup over lengths (no false
 * negative, the rate it reports), and the snapshot's netblock table and
 * key kind (Documentation/snapshot.rst).
 */
#include <string.h>

#include "unit.h"
#include "netblock.h"
#include "snapshot.h"

static void test_parse(void)
{
	static const u8 a4[4] = { 203, 0, 113, 9 };
	static const u8 n4[5] = { 203, 0, 113, 0, 24 };
	static const u8 h4[5] = { 203, 0, 113, 9, 24 };
	static const u8 f4[5] = { 203, 0, 113, 9, 32 };
	static const u8 z4[5] = { 0, 0, 0, 0, 0 };
	u8 n6[17] = { 0x20, 0x01, 0x0d, 0xb8 }, out[BLOOM_NB_KEY_MAX];
	struct bloom_nb_key k;

	check(!bloom_nb_parse(a4, 4, &k) && k.family == BLOOM_NB_IPV4 &&
	      k.plen == 32 && k.alen == 4 && !memcmp(k.addr, a4, 4),
	      "4 bytes: an IPv4 address, /32");
	check(!bloom_nb_parse(n4, 5, &k) && k.plen == 24 &&
	      !memcmp(k.addr, n4, 4), "5 bytes: 203.0.113.0/24");
	check(bloom_nb_parse(h4, 5, &k) == -EINVAL,
	      "203.0.113.9/24: host bits set, refused");
	check(bloom_nb_parse(f4, 5, &k) == -EINVAL,
	      "a 5-byte /32: refused (a /32 is the 4-byte address)");
	check(bloom_nb_parse(z4, 5, &k) == -EINVAL,
	      "0.0.0.0/0: refused (it holds every address)");
	n6[16] = 32;
	check(!bloom_nb_parse(n6, 17, &k) && k.family == BLOOM_NB_IPV6 &&
	      k.plen == 32 && k.alen == 16, "17 bytes: 2001:db8::/32");
	n6[16] = 28;
	check(bloom_nb_parse(n6, 17, &k) == -EINVAL,
	      "2001:db8::/28: host bits set, refused");
	n6[16] = 128;
	check(bloom_nb_parse(n6, 17, &k) == -EINVAL, "a 17-byte /128: refused");
	check(!bloom_nb_parse(n6, 16, &k) && k.plen == 128,
	      "16 bytes: an IPv6 address");
	check(bloom_nb_parse(n6, 3, &k) == -EINVAL &&
	      bloom_nb_parse(n6, 6, &k) == -EINVAL &&
	      bloom_nb_parse(n6, 15, &k) == -EINVAL &&
	      bloom_nb_parse(n6, 18, &k) == -EINVAL,
	      "other lengths are not addresses or netblocks");

	check(bloom_nb_key_make(BLOOM_NB_IPV4, a4, 24, out) == 5 &&
	      !memcmp(out, n4, 5), "make 203.0.113.9/24 masked: 203.0.113.0 24");
	check(bloom_nb_key_make(BLOOM_NB_IPV4, a4, 32, out) == 4 &&
	      !memcmp(out, a4, 4), "make /32: the address");
	check(bloom_nb_key_make(BLOOM_NB_IPV4, a4, 27, out) == 5 &&
	      out[3] == 0 && out[4] == 27, "make /27 clears the low 5 bits");
	check(bloom_nb_key_make(BLOOM_NB_IPV4, a4, 30, out) == 5 &&
	      out[3] == 8 && out[4] == 30, "make /30 keeps the high 6 bits");
	check(bloom_nb_host_bits(BLOOM_NB_IPV4, a4, 24) &&
	      !bloom_nb_host_bits(BLOOM_NB_IPV4, a4, 32) &&
	      !bloom_nb_host_bits(BLOOM_NB_IPV4, n4, 24) &&
	      bloom_nb_host_bits(BLOOM_NB_IPV4, a4, 0),
	      "host bits: under the mask only");
}

static void test_lengths(void)
{
	static struct bloom_netblocks nb;
	u8 lens[128];
	u32 n;

	memset(&nb, 0, sizeof(nb));
	check(bloom_nb_lookups(&nb, BLOOM_NB_IPV4) == 1 &&
	      bloom_nb_lengths(&nb, BLOOM_NB_IPV4, 32, lens) == 0,
	      "empty: one lookup, the address");
	bloom_nb_account(&nb, BLOOM_NB_IPV4, 24, 1);
	bloom_nb_account(&nb, BLOOM_NB_IPV4, 24, 1);
	bloom_nb_account(&nb, BLOOM_NB_IPV4, 8, 1);
	bloom_nb_account(&nb, BLOOM_NB_IPV4, 0, 1);
	bloom_nb_account(&nb, BLOOM_NB_IPV4, 32, 1);
	bloom_nb_account(&nb, BLOOM_NB_IPV6, 64, 1);
	bloom_nb_account(&nb, BLOOM_NB_IPV6, 127, 1);
	bloom_nb_account(&nb, BLOOM_NB_IPV6, 63, 1);
	n = bloom_nb_lengths(&nb, BLOOM_NB_IPV4, 32, lens);
	check(n == 3 && lens[0] == 24 && lens[1] == 8 && lens[2] == 0,
	      "IPv4 lengths longest first: 24 8 0 (the /32 is the address)");
	check(bloom_nb_lookups(&nb, BLOOM_NB_IPV4) == 4, "IPv4: 4 lookups");
	n = bloom_nb_lengths(&nb, BLOOM_NB_IPV4, 16, lens);
	check(n == 2 && lens[0] == 8 && lens[1] == 0,
	      "lengths up to 16: 8 0");
	n = bloom_nb_lengths(&nb, BLOOM_NB_IPV6, 128, lens);
	check(n == 3 && lens[0] == 127 && lens[1] == 64 && lens[2] == 63,
	      "IPv6 lengths across words: 127 64 63");
	check(bloom_nb_lookups(&nb, BLOOM_NB_IPV6) == 4, "IPv6: 4 lookups");
	bloom_nb_account(&nb, BLOOM_NB_IPV4, 24, -1);
	check(bloom_nb_count(&nb, BLOOM_NB_IPV4, 24) == 1 &&
	      bloom_nb_lookups(&nb, BLOOM_NB_IPV4) == 4,
	      "one of two /24 deleted: the length stays");
	bloom_nb_account(&nb, BLOOM_NB_IPV4, 24, -1);
	bloom_nb_account(&nb, BLOOM_NB_IPV4, 24, -1);
	check(bloom_nb_count(&nb, BLOOM_NB_IPV4, 24) == 0 &&
	      bloom_nb_lookups(&nb, BLOOM_NB_IPV4) == 3,
	      "both deleted (and one more): count 0, not below, length gone");
	check(bloom_nb_any(&nb), "any: yes");
	bloom_nb_clear(&nb);
	check(!bloom_nb_any(&nb) && bloom_nb_lookups(&nb, BLOOM_NB_IPV6) == 1,
	      "clear: nothing left");
	check(bloom_nb_rate(1000000, 1) == 1000000 &&
	      bloom_nb_rate(1000000, 10) >= 9955000 &&
	      bloom_nb_rate(1000000, 10) <= 9956000 &&
	      bloom_nb_rate(500000000, 2) == 750000000,
	      "rate: 1 - (1 - p)^L (L = 10, p = 1e-3: %u ppb)",
	      bloom_nb_rate(1000000, 10));
}

/* A random IPv4 address inside @net/@plen. */
static void inside(const u8 *net, u32 plen, u8 *out)
{
	u32 a = (u32)net[0] << 24 | net[1] << 16 | net[2] << 8 | net[3];
	u32 host = plen ? (u32)((1ULL << (32 - plen)) - 1) : ~0U;

	a = (a & ~host) | ((u32)rng() & host);
	out[0] = a >> 24;
	out[1] = a >> 16;
	out[2] = a >> 8;
	out[3] = a;
}

/*
 * A filter of addresses and netblocks of 12 lengths: every address inside
 * a block tests present; random other addresses test present at about the
 * rate bloom_nb_rate() gives for the estimate. Lengths of 16 and more:
 * every address of a shorter block shares that block's one test, so one
 * false positive of a /9 key would make a quarter percent of all probes
 * present (the rate holds on average over hash keys, not per filter).
 */
static void test_query(u32 type)
{
	static const u8 lens[] = { 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 28 };
	static struct bloom_netblocks nb;
	u32 nblocks = 2000, naddr = 20000, i, bad = 0, fp = 0, est_ppb, ppb;
	u8 (*blocks)[5] = calloc(nblocks, 5), key[5], a[4];
	u32 probes = 300000, tested = 0;
	struct bloom_core_estimate e;
	struct filter f;
	double rate;

	memset(&nb, 0, sizeof(nb));
	filter_new(&f, type, nblocks + naddr, 1000000);
	for (i = 0; i < nblocks; i++) {
		u32 l = lens[i % sizeof(lens)];

		inside((const u8[4]){ 10, 0, 0, 0 }, 8, a);
		bloom_nb_key_make(BLOOM_NB_IPV4, a, l, key);
		memcpy(blocks[i], key, 5);
		bloom_core_add_hash(&f.core, bloom_core_hash(&f.core, key, 5));
		bloom_nb_account(&nb, BLOOM_NB_IPV4, l, 1);
	}
	for (i = 0; i < naddr; i++) {
		inside((const u8[4]){ 0, 0, 0, 0 }, 0, a);
		bloom_core_add_hash(&f.core, bloom_core_hash(&f.core, a, 4));
		bloom_nb_account(&nb, BLOOM_NB_IPV4, 32, 1);
	}
	for (i = 0; i < nblocks * 20; i++) {
		inside(blocks[i % nblocks], blocks[i % nblocks][4], a);
		bad += !bloom_nb_query(&f.core, &nb, BLOOM_NB_IPV4, a, 32);
	}
	check(!bad, "%s: %u addresses inside listed blocks of 12 lengths: %u absent",
	      tname(type), nblocks * 20, bad);
	for (i = 0; i < probes; i++) {
		inside((const u8[4]){ 0, 0, 0, 0 }, 0, a);
		if (a[0] == 10)
			continue;
		tested++;
		fp += bloom_nb_query(&f.core, &nb, BLOOM_NB_IPV4, a, 32);
	}
	/* the blocks lie in 10.0.0.0/8; the probes outside it */
	bloom_core_estimate(&f.core, &e);
	est_ppb = e.fpp_ppb;
	ppb = bloom_nb_rate(est_ppb, bloom_nb_lookups(&nb, BLOOM_NB_IPV4));
	rate = (double)fp / tested;
	printf("# %s: %u lookups, estimate per test %u ppb, per address %u ppb, measured %.0f ppb\n",
	       tname(type), bloom_nb_lookups(&nb, BLOOM_NB_IPV4), est_ppb, ppb,
	       rate * 1e9);
	check(bloom_nb_lookups(&nb, BLOOM_NB_IPV4) == 13 &&
	      rate < 1.2 * ppb / 1e9,
	      "%s: measured per-address rate %.5f within 1.2x of the reported %.5f",
	      tname(type), rate, ppb / 1e9);
	/* netblock query: a /26 inside a listed /24 is covered */
	for (i = 0; i < nblocks; i++)
		if (blocks[i][4] == 24)
			break;
	bloom_nb_key_make(BLOOM_NB_IPV4, blocks[i], 26, key);
	check(bloom_nb_query(&f.core, &nb, BLOOM_NB_IPV4, key, 26),
	      "%s: a /26 inside a listed /24 is covered", tname(type));
	filter_free(&f);
	free(blocks);
}

/* Snapshot: the table and the kind go out and come back; old files still read. */
static void test_snapshot(void)
{
	static struct bloom_netblocks nb, back;
	struct bloom_image_header h, r;
	const char *why = NULL;
	struct filter f;
	u8 *buf;
	bool same = true;
	u32 i;

	memset(&nb, 0, sizeof(nb));
	filter_new(&f, BLOOM_CORE_BLOCKED, 1000, 1000000);
	buf = xalloc(BLOOM_IMAGE_HEADER_MAX);

	/* without lengths or kind: the header of before, 256 bytes */
	bloom_image_header_init(&h, &f.core);
	bloom_image_header_netblocks(&h, &nb);
	strcpy(h.name, "nb");
	bloom_image_header_write(buf, &h, &f.core);
	check(h.header_size == BLOOM_IMAGE_HEADER_SIZE && !h.compat &&
	      !h.incompat, "no kind, no netblocks: a plain 256-byte header");
	check(!bloom_image_header_read(buf, h.header_size, &r, &why) &&
	      !r.key_kind && !r.nb_offset, "it reads with no kind and no table");

	nb.kind = BLOOM_CORE_KIND_IPV4;
	bloom_nb_account(&nb, BLOOM_NB_IPV4, 24, 7);
	bloom_nb_account(&nb, BLOOM_NB_IPV4, 32, 100);
	bloom_nb_account(&nb, BLOOM_NB_IPV4, 9, 1);
	bloom_image_header_init(&h, &f.core);
	bloom_image_header_netblocks(&h, &nb);
	strcpy(h.name, "nb");
	bloom_image_header_write(buf, &h, &f.core);
	check(h.header_size == BLOOM_IMAGE_HEADER_SIZE + BLOOM_IMAGE_NB_SIZE &&
	      h.compat == BLOOM_IMAGE_C_KEYS &&
	      h.incompat == BLOOM_IMAGE_F_NETBLOCKS,
	      "kind and netblocks: compat KEYS, incompat NETBLOCKS, header %u bytes",
	      h.header_size);
	why = NULL;
	check(!bloom_image_header_read(buf, h.header_size, &r, &why) &&
	      r.key_kind == BLOOM_CORE_KIND_IPV4 && r.nb_offset == 248,
	      "it reads back: kind ipv4, table at 248 (%s)", why ? why : "ok");
	bloom_image_netblocks_load(buf, &r, &back);
	for (i = 0; i < BLOOM_NB_LENS; i++)
		same &= bloom_atomic64_read(&back.count[i]) ==
			bloom_atomic64_read(&nb.count[i]);
	check(same && back.kind == BLOOM_CORE_KIND_IPV4 &&
	      bloom_nb_count(&back, BLOOM_NB_IPV4, 24) == 7 &&
	      bloom_nb_lookups(&back, BLOOM_NB_IPV4) == 3,
	      "the kind, the counts and the lengths come back");

	/* an IPv6 count in an ipv4 file is refused */
	bloom_nb_account(&nb, BLOOM_NB_IPV6, 48, 1);
	bloom_image_header_init(&h, &f.core);
	bloom_image_header_netblocks(&h, &nb);
	strcpy(h.name, "nb");
	bloom_image_header_write(buf, &h, &f.core);
	check(bloom_image_header_read(buf, h.header_size, &r, &why) == -EBADMSG,
	      "IPv6 lengths in a snapshot of kind ipv4: EBADMSG (%s)", why);
	free(buf);
	filter_free(&f);
}

/*
 * Counts that a restore and merges push high: they stop at
 * BLOOM_NB_COUNT_MAX and stay there (a delete never takes the length
 * away); a wrap to 0 or below would make lookups skip the length, false
 * negatives. A snapshot whose count is over the bound is refused.
 */
static void test_count_bounds(void)
{
	static struct bloom_netblocks a, b;
	struct bloom_image_header h, r;
	const char *why = NULL;
	struct filter f;
	u8 *buf;
	int i;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	bloom_nb_account(&a, BLOOM_NB_IPV4, 24, (s64)BLOOM_NB_COUNT_MAX);
	bloom_nb_account(&b, BLOOM_NB_IPV4, 24, (s64)BLOOM_NB_COUNT_MAX);
	/* 4 x 2^62 is 2^64: a count that wrapped would be 0 now */
	for (i = 0; i < 3; i++)
		bloom_nb_merge(&a, &b);
	check(bloom_nb_count(&a, BLOOM_NB_IPV4, 24) == BLOOM_NB_COUNT_MAX &&
	      bloom_nb_lookups(&a, BLOOM_NB_IPV4) == 2,
	      "merged counts stop at 2^62, the /24 stays a length looked up");
	/* one /24 more and that one deleted: the others stay looked up */
	bloom_nb_account(&a, BLOOM_NB_IPV4, 24, 1);
	bloom_nb_account(&a, BLOOM_NB_IPV4, 24, -1);
	check(bloom_nb_count(&a, BLOOM_NB_IPV4, 24) == BLOOM_NB_COUNT_MAX &&
	      bloom_nb_lookups(&a, BLOOM_NB_IPV4) == 2,
	      "a saturated count: an add and a delete leave it and its length");

	filter_new(&f, BLOOM_CORE_BLOCKED, 1000, 1000000);
	buf = xalloc(BLOOM_IMAGE_HEADER_MAX);
	a.kind = BLOOM_CORE_KIND_IPV4;
	bloom_image_header_init(&h, &f.core);
	bloom_image_header_netblocks(&h, &a);
	strcpy(h.name, "nb");
	bloom_image_header_write(buf, &h, &f.core);
	check(!bloom_image_header_read(buf, h.header_size, &r, &why),
	      "a count of 2^62 reads (%s)", why ? why : "ok");
	/* one more, the checksum made again: refused */
	bloom_atomic64_set(&a.count[bloom_nb_index(BLOOM_NB_IPV4, 24)],
			   BLOOM_NB_COUNT_MAX + 1);
	bloom_image_header_write(buf, &h, &f.core);
	why = NULL;
	check(bloom_image_header_read(buf, h.header_size, &r, &why) == -EBADMSG,
	      "a count over 2^62: EBADMSG (%s)", why ? why : "read");
	free(buf);
	filter_free(&f);
}

/* Prefix lengths: who may be stored, merges, snapshots. */
static void test_plan(void)
{
	static struct bloom_netblocks nb, other, back;
	unsigned long bits[128 / BITS_PER_LONG] = { 0 };
	struct bloom_image_header h, r;
	const char *why = NULL;
	struct filter f;
	u8 *buf;
	int l;

	memset(&nb, 0, sizeof(nb));
	memset(&other, 0, sizeof(other));
	check(!bloom_nb_planned(&nb, BLOOM_NB_IPV4) &&
	      bloom_nb_plan_allows(&nb, BLOOM_NB_IPV4, 13),
	      "no plan: any length");
	set_bit(19, bits);
	set_bit(24, bits);
	set_bit(29, bits);
	check(!bloom_nb_set_plan(&nb, BLOOM_NB_IPV4, bits) &&
	      bloom_nb_planned(&nb, BLOOM_NB_IPV4) &&
	      !bloom_nb_planned(&nb, BLOOM_NB_IPV6),
	      "a plan of 19, 24, 29 for IPv4 only");
	check(bloom_nb_plan_allows(&nb, BLOOM_NB_IPV4, 24) &&
	      bloom_nb_plan_allows(&nb, BLOOM_NB_IPV4, 32) &&
	      !bloom_nb_plan_allows(&nb, BLOOM_NB_IPV4, 20) &&
	      bloom_nb_plan_allows(&nb, BLOOM_NB_IPV6, 20),
	      "planned lengths and addresses only; IPv6 free");
	for (l = 1; l <= 8; l++)
		set_bit(l, bits);
	check(bloom_nb_set_plan(&other, BLOOM_NB_IPV4, bits) == -EINVAL,
	      "11 lengths: EINVAL");
	memset(bits, 0, sizeof(bits));
	set_bit(32, bits);
	check(bloom_nb_set_plan(&other, BLOOM_NB_IPV4, bits) == -EINVAL,
	      "the full length is no prefix length: EINVAL");
	bloom_nb_account(&other, BLOOM_NB_IPV4, 20, 1);
	check(!bloom_nb_plan_holds(&nb, &other), "a /20 cannot merge into it");
	bloom_nb_clear(&other);
	bloom_nb_account(&other, BLOOM_NB_IPV4, 24, 1);
	check(bloom_nb_plan_holds(&nb, &other), "a /24 can");

	filter_new(&f, BLOOM_CORE_BLOCKED, 1000, 1000000);
	buf = xalloc(BLOOM_IMAGE_HEADER_MAX);
	nb.kind = BLOOM_CORE_KIND_IPV4;
	bloom_nb_account(&nb, BLOOM_NB_IPV4, 24, 16);
	bloom_image_header_init(&h, &f.core);
	bloom_image_header_netblocks(&h, &nb);
	strcpy(h.name, "nb");
	bloom_image_header_write(buf, &h, &f.core);
	check(h.compat == (BLOOM_IMAGE_C_KEYS | BLOOM_IMAGE_C_PREFIXES) &&
	      buf[232] == 19 && buf[233] == 24 && buf[234] == 29 && !buf[235],
	      "compat PREFIXES, 19 24 29 at offset 232");
	check(!bloom_image_header_read(buf, h.header_size, &r, &why),
	      "it reads (%s)", why ? why : "ok");
	bloom_image_netblocks_load(buf, &r, &back);
	check(!memcmp(back.plan, nb.plan, sizeof(nb.plan)) &&
	      bloom_nb_count(&back, BLOOM_NB_IPV4, 24) == 16,
	      "the plan and the counts come back");
	/* a count at a length the plan does not hold */
	bloom_nb_account(&nb, BLOOM_NB_IPV4, 20, 1);
	bloom_image_header_write(buf, &h, &f.core);
	why = NULL;
	check(bloom_image_header_read(buf, h.header_size, &r, &why) == -EBADMSG,
	      "a /20 in a file planned 19 24 29: EBADMSG (%s)", why ? why : "read");
	/* an unsorted list */
	bloom_nb_account(&nb, BLOOM_NB_IPV4, 20, -1);
	bloom_image_header_write(buf, &h, &f.core);
	buf[232] = 25;
	bloom_image_header_write(buf, &h, &f.core);
	h.prefixes[BLOOM_NB_IPV4][0] = 25;
	bloom_image_header_write(buf, &h, &f.core);
	why = NULL;
	check(bloom_image_header_read(buf, h.header_size, &r, &why) == -EBADMSG,
	      "lengths 25 24 29: EBADMSG (%s)", why ? why : "read");
	free(buf);
	filter_free(&f);
}

int main(void)
{
	double t0 = now();

	printf("TAP version 13\n");
	rng_seed("BLOOM_NB_SEED");
	test_parse();
	test_lengths();
	test_query(BLOOM_CORE_STANDARD);
	test_query(BLOOM_CORE_BLOCKED);
	test_query(BLOOM_CORE_COUNTING);
	test_snapshot();
	test_count_bounds();
	test_plan();
	printf("1..%d\n", test_no);
	printf("# %d passed, %d failed, %.1f s\n", test_no - test_failed,
	       test_failed, now() - t0);
	return test_failed ? 1 : 0;
}
