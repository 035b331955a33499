// SPDX-License-Identifier: GPL-2.0
/*
 * bench-bpfmap: bloom's address lookup against a model of the BPF Bloom
 * filter map's lookup, natively, where TCG cannot distort the ratio of
 * arithmetic to memory. Prints JSON on stdout, progress on stderr.
 *
 * The model is kernel/bpf/bloom_filter.c of Linux 6.1 for a 4-byte value:
 * k hashes, the i-th jhash2() of the value's one word with the seed
 * hash_seed + i, masked to a bit array of a power of two bits
 * ((n * k / 5 * 7) rounded up, at most 2^31), tested one by one until the
 * first clear bit. bloom's lookup is the one the kfunc and the iptables
 * match make (bloom_nb_query() of the core, libbloomcore.a: the keyed
 * SipHash of the address, inlined for its 4 bytes, and the filter's test
 * that stops at the first clear bit), on a blocked and a standard filter
 * sized for the map's rate, under each scheme: "bloom_blocked" and
 * "bloom_standard" are SipHash-1-3, what new filters use, "_sip24" the
 * same under SipHash-2-4. "_stop" variants hash the address and make the
 * stopping test (bloom_core_lookup_hash()) without bloom_nb_query()'s walk
 * over the netblock lengths; "_query" variants test the bits with
 * bloom_core_query_hash(), the test the batches use (branch-free in a
 * blocked filter and a standard one of up to 2 MiB, through the type's
 * table); "bloom_blocked_libsodium" is the lookup as it was before the
 * scheme existed: libsodium's SipHash-2-4 and that test.
 * "bloom_blocked_stop_retpoline" is "bloom_blocked_stop" called through a
 * retpoline (GCC's indirect_branch("thunk"), what a kernel built with
 * CONFIG_RETPOLINE, as Debian's is, makes of every indirect call): beside
 * "bloom_blocked_stop", whose call the loop makes as a plain indirect call
 * the CPU predicts, what one indirect call per packet would cost in such
 * a kernel (the address path makes none: module/core/bits.c).
 *
 * The hash alone ("keyed_hash"): SipHash-1-3 and SipHash-2-4 of a 4-byte and
 * a 16-byte key through the core's fixed-size builds (bloom_core_hash4(),
 * bloom_core_hash16(), what the address lookups inline, with their branch
 * on the scheme) and its any-length bloom_core_hash(), against libsodium's
 * SipHash-2-4, the hash every lookup made before; "siphash13_direct" is
 * the fixed-size SipHash-1-3 without the branch, what the branch costs.
 *
 * The same addresses for all: --count N listed (16.0.0.0 + i), looked up
 * listed and unlisted (64.0.0.0 + i), and --big N more for a filter out of
 * cache. Orders: "hot", 4,096 addresses again and again (their lines stay
 * in the nearest caches), and "scattered", addresses drawn at random from
 * the whole set. Variants take turns in every round; ns per lookup, median
 * and minimum of the rounds, including the loop that reads the address.
 *
 * usage: bench-bpfmap [--count N] [--big N] [--hashes K] [--rounds R]
 *                     [--sample S]
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sodium.h>
#include "clock.h"
#include "core.h"
#include "jhash.h"
#include "json.h"
#include "opts.h"
#include "keys.h"
#include "mem.h"
#include "netblock.h"
#include "stats.h"

#define HOT		4096
#define LISTED_BASE	0x10000000u	/* 16.0.0.0 */
#define UNLISTED_BASE	0x40000000u	/* 64.0.0.0 */
#define MAP_SEED	0x5eed1234u	/* the map's hash_seed: any value */

static const uint8_t hash_key[BLOOM_CORE_HASH_KEY_LEN] = "bloom-bench-key";

struct bpf_map_model {
	unsigned long *bits;
	uint64_t bytes;
	uint32_t mask, hashes;
};

static void map_init(struct bpf_map_model *m, uint64_t n, uint32_t k)
{
	uint64_t nbits = n * k / 5 * 7, b = 64;

	while (b < nbits && b < (1ULL << 31))
		b <<= 1;
	m->bytes = b / 8;
	m->bits = bench_alloc(m->bytes);
	if (!m->bits) {
		fprintf(stderr, "bench-bpfmap: %llu bytes: %s\n",
			(unsigned long long)m->bytes, strerror(ENOMEM));
		exit(1);
	}
	m->mask = (uint32_t)(b - 1);
	m->hashes = k;
}

static void map_add(struct bpf_map_model *m, uint32_t v)
{
	uint32_t i, h;

	for (i = 0; i < m->hashes; i++) {
		h = jhash_1word(v, MAP_SEED + i) & m->mask;
		m->bits[h / 64] |= 1UL << (h % 64);
	}
}

static __attribute__((noinline)) bool map_lookup(const void *obj, uint32_t v)
{
	const struct bpf_map_model *m = obj;
	uint32_t i, h;

	for (i = 0; i < m->hashes; i++) {
		h = jhash_1word(v, MAP_SEED + i) & m->mask;
		if (!(m->bits[h / 64] & (1UL << (h % 64))))
			return false;
	}
	return true;
}

struct ours {
	struct bloom_core core;
	/* none: the lengths the module's lookup reads for a filter of addresses */
	struct bloom_netblocks nb;
	void *storage;
	uint64_t bytes;
};

static void ours_init(struct ours *o, uint32_t type, uint32_t hash,
		      uint64_t n, double p)
{
	struct bloom_geometry geo;
	bloom_hash_key_t hk;
	uint32_t ppb = (uint32_t)ceil(p * 1e9);

	memset(&o->nb, 0, sizeof(o->nb));
	if (bloom_geometry_size(type, n, ppb ? ppb : 1, &geo)) {
		fprintf(stderr, "bench-bpfmap: no geometry for %llu keys\n",
			(unsigned long long)n);
		exit(1);
	}
	o->bytes = bloom_core_storage_bytes(&geo);
	o->storage = bench_alloc(o->bytes);
	if (!o->storage) {
		fprintf(stderr, "bench-bpfmap: %llu bytes: %s\n",
			(unsigned long long)o->bytes, strerror(ENOMEM));
		exit(1);
	}
	bloom_hash_key_init(&hk, hash_key, hash);
	bloom_core_init(&o->core, &geo, &hk, o->storage);
}

static void ours_add(struct ours *o, uint32_t v)
{
	bloom_core_add_hash(&o->core, bloom_core_hash(&o->core, &v, 4));
}

/* The address lookup: what the kfunc and the iptables match run. */
static __attribute__((noinline)) bool ours_lookup(const void *obj, uint32_t v)
{
	const struct ours *o = obj;

	return bloom_nb_query(&o->core, &o->nb, BLOOM_NB_IPV4, (const u8 *)&v,
			      32);
}

/* The same hash and the stopping test alone, without the netblock walk. */
static __attribute__((noinline)) bool ours_stop(const void *obj, uint32_t v)
{
	const struct ours *o = obj;

	return bloom_core_lookup_hash(&o->core, bloom_core_hash4(&o->core, &v));
}

/* The same hash, the batches' test. */
static __attribute__((noinline)) bool ours_query(const void *obj, uint32_t v)
{
	const struct ours *o = obj;

	return bloom_core_query_hash(&o->core, bloom_core_hash4(&o->core, &v));
}

/* libsodium's SipHash-2-4 under the same key, as a 64-bit little-endian value. */
static inline uint64_t sodium_sip24(const void *data, size_t len)
{
	unsigned char out[crypto_shorthash_siphash24_BYTES];
	uint64_t h = 0;
	int i;

	crypto_shorthash_siphash24(out, data, len, hash_key);
	for (i = 7; i >= 0; i--)
		h = (h << 8) | out[i];
	return h;
}

/* The lookup as it was: libsodium's SipHash-2-4, the batches' test. */
static __attribute__((noinline)) bool ours_libsodium(const void *obj,
						      uint32_t v)
{
	const struct ours *o = obj;

	return bloom_core_query_hash(&o->core, sodium_sip24(&v, 4));
}

/* An address in network byte order, as a packet holds it. */
static inline uint32_t addr(uint32_t base, uint64_t i)
{
	return __builtin_bswap32(base + (uint32_t)i);
}

enum {
	V_MAP, V_BLOCKED, V_BLOCKED_STOP, V_BLOCKED_QUERY, V_BLOCKED_SIP24,
	V_BLOCKED_SIP24_QUERY, V_BLOCKED_LIBSODIUM, V_STANDARD,
	V_STANDARD_STOP, V_STANDARD_QUERY, V_STANDARD_SIP24,
	V_STANDARD_SIP24_QUERY, V_BLOCKED_STOP_RETPOLINE, NVARIANTS
};
static const char *const vnames[NVARIANTS] = {
	"bpf_bloom_map_model", "bloom_blocked", "bloom_blocked_stop",
	"bloom_blocked_query", "bloom_blocked_sip24",
	"bloom_blocked_sip24_query", "bloom_blocked_libsodium",
	"bloom_standard", "bloom_standard_stop", "bloom_standard_query",
	"bloom_standard_sip24", "bloom_standard_sip24_query",
	"bloom_blocked_stop_retpoline",
};
enum { O_HOT, O_SCATTERED, NORDERS };
static const char *const onames[NORDERS] = { "hot", "scattered" };

struct variant {
	bool (*lookup)(const void *obj, uint32_t v);
	const void *obj;
	uint64_t bytes;
};

/*
 * ns per lookup of @seq[0..@n) by @v; *@hits counted. One body for both
 * loops, so that they differ in how the call is made only: timed_plain()
 * calls through the pointer, timed_retpoline() through a retpoline.
 */
#define TIMED_LOOP(NAME, ATTR)						\
static ATTR double NAME(const struct variant *v, const uint32_t *seq,	\
			size_t n, uint64_t *hits)			\
{									\
	uint64_t t0 = bench_now_ns(), h = 0;				\
	size_t i;							\
									\
	for (i = 0; i < n; i++)						\
		h += v->lookup(v->obj, seq[i]);				\
	*hits = h;							\
	return (double)(bench_now_ns() - t0) / (double)n;		\
}
#if defined(__x86_64__) && !defined(__clang__)
#define RETPOLINE __attribute__((indirect_branch("thunk"), noinline))
#else
#define RETPOLINE __attribute__((noinline))	/* none: a plain call */
#endif
TIMED_LOOP(timed_plain, __attribute__((noinline)))
TIMED_LOOP(timed_retpoline, RETPOLINE)

/* Variant @x's ns per lookup of @seq[0..@n); *@hits counted. */
static double timed(const struct variant *v, uint32_t x, const uint32_t *seq,
		    size_t n, uint64_t *hits)
{
	return x == V_BLOCKED_STOP_RETPOLINE ?
		timed_retpoline(v, seq, n, hits) : timed_plain(v, seq, n, hits);
}

static void run_set(const char *label, uint64_t n, uint32_t k,
		    uint32_t rounds, size_t sample)
{
	struct bench_stat ns[NVARIANTS][NORDERS][2];
	uint64_t hits[NVARIANTS][NORDERS][2];
	struct variant v[NVARIANTS];
	struct bpf_map_model m;
	struct ours blk, std, blk24, std24;
	uint32_t *seq[NORDERS][2], r, i, o, w, x;
	uint64_t s, seed = 1;
	double p;

	memset(ns, 0, sizeof(ns));
	memset(hits, 0, sizeof(hits));
	map_init(&m, n, k);
	p = pow(1 - exp(-(double)k * (double)n / ((double)m.mask + 1)), k);
	ours_init(&blk, BLOOM_CORE_BLOCKED, BLOOM_CORE_SIPHASH_1_3, n, p);
	ours_init(&std, BLOOM_CORE_STANDARD, BLOOM_CORE_SIPHASH_1_3, n, p);
	ours_init(&blk24, BLOOM_CORE_BLOCKED, BLOOM_CORE_SIPHASH_2_4, n, p);
	ours_init(&std24, BLOOM_CORE_STANDARD, BLOOM_CORE_SIPHASH_2_4, n, p);
	fprintf(stderr, "bench-bpfmap: %s: %llu addresses, p = %.3g\n", label,
		(unsigned long long)n, p);
	for (s = 0; s < n; s++) {
		uint32_t a = addr(LISTED_BASE, s);

		map_add(&m, a);
		ours_add(&blk, a);
		ours_add(&std, a);
		ours_add(&blk24, a);
		ours_add(&std24, a);
	}
	v[V_MAP] = (struct variant){ map_lookup, &m, m.bytes };
	v[V_BLOCKED] = (struct variant){ ours_lookup, &blk, blk.bytes };
	v[V_BLOCKED_STOP] = (struct variant){ ours_stop, &blk, blk.bytes };
	v[V_BLOCKED_QUERY] = (struct variant){ ours_query, &blk, blk.bytes };
	v[V_BLOCKED_SIP24] = (struct variant){ ours_lookup, &blk24,
					       blk24.bytes };
	v[V_BLOCKED_SIP24_QUERY] = (struct variant){ ours_query, &blk24,
						     blk24.bytes };
	v[V_BLOCKED_LIBSODIUM] = (struct variant){ ours_libsodium, &blk24,
						   blk24.bytes };
	v[V_STANDARD] = (struct variant){ ours_lookup, &std, std.bytes };
	v[V_STANDARD_STOP] = (struct variant){ ours_stop, &std, std.bytes };
	v[V_STANDARD_QUERY] = (struct variant){ ours_query, &std, std.bytes };
	v[V_STANDARD_SIP24] = (struct variant){ ours_lookup, &std24,
						std24.bytes };
	v[V_STANDARD_SIP24_QUERY] = (struct variant){ ours_query, &std24,
						      std24.bytes };
	v[V_BLOCKED_STOP_RETPOLINE] = (struct variant){ ours_stop, &blk,
							blk.bytes };
	for (o = 0; o < NORDERS; o++) {
		for (w = 0; w < 2; w++) {
			seq[o][w] = malloc(sample * sizeof(uint32_t));
			if (!seq[o][w])
				exit(1);
			for (s = 0; s < sample; s++) {
				seed = bench_mix64(seed);
				i = o == O_HOT ? s % HOT : seed % n;
				if (o == O_HOT)
					i = bench_mix64(i) % n;
				seq[o][w][s] = addr(w ? UNLISTED_BASE :
						    LISTED_BASE, i);
			}
		}
	}
	for (r = 0; r < rounds; r++)
		for (o = 0; o < NORDERS; o++)
			for (w = 0; w < 2; w++)
				for (x = 0; x < NVARIANTS; x++) {
					uint32_t vi = (x + r) % NVARIANTS;

					bench_stat_add(&ns[vi][o][w],
						       timed(&v[vi], vi, seq[o][w],
							     sample,
							     &hits[vi][o][w]));
				}
	json_obj(stdout, NULL);
	json_str(stdout, "set", label);
	json_u64(stdout, "count", n);
	json_num(stdout, "fpp", p);
	json_arr(stdout, "variants");
	for (x = 0; x < NVARIANTS; x++) {
		json_obj(stdout, NULL);
		json_str(stdout, "name", vnames[x]);
		json_u64(stdout, "memory_bytes", v[x].bytes);
		for (o = 0; o < NORDERS; o++) {
			json_obj(stdout, onames[o]);
			for (w = 0; w < 2; w++) {
				json_obj(stdout, w ? "unlisted" : "listed");
				json_num(stdout, "ns_median",
					 bench_stat_median(&ns[x][o][w]));
				json_num(stdout, "ns_min",
					 bench_stat_min(&ns[x][o][w]));
				json_num(stdout, "hit_rate",
					 (double)hits[x][o][w] / (double)sample);
				json_end(stdout);
			}
			json_end(stdout);
		}
		json_end(stdout);
	}
	json_end(stdout);
	json_end(stdout);
	for (x = 0; x < NVARIANTS; x++)
		for (o = 0; o < NORDERS; o++)
			if (hits[x][o][0] != sample) {
				fprintf(stderr, "bench-bpfmap: %s missed listed addresses\n",
					vnames[x]);
				exit(1);
			}
	for (o = 0; o < NORDERS; o++)
		for (w = 0; w < 2; w++)
			free(seq[o][w]);
	bench_free(m.bits, m.bytes);
	bench_free(blk.storage, blk.bytes);
	bench_free(std.storage, std.bytes);
	bench_free(blk24.storage, blk24.bytes);
	bench_free(std24.storage, std24.bytes);
}

/* ---- the hash alone ---- */

static struct bloom_core hash13, hash24;	/* only their keys are used */

static __attribute__((noinline)) uint64_t h4_sip13(const u8 *p)
{
	return bloom_core_hash4(&hash13, p);
}

static __attribute__((noinline)) uint64_t h4_sip24(const u8 *p)
{
	return bloom_core_hash4(&hash24, p);
}

/* SipHash-1-3 with no branch on the scheme: what the branch costs */
static __attribute__((noinline)) uint64_t h4_direct_sip13(const u8 *p)
{
	return bloom_siphash_cd_4(hash13.key.key, p, 1, 3);
}

static __attribute__((noinline)) uint64_t h16_direct_sip13(const u8 *p)
{
	return bloom_siphash_cd_16(hash13.key.key, p, 1, 3);
}

static __attribute__((noinline)) uint64_t h4_any_sip13(const u8 *p)
{
	return bloom_core_hash(&hash13, p, 4);
}

static __attribute__((noinline)) uint64_t h4_any_sip24(const u8 *p)
{
	return bloom_core_hash(&hash24, p, 4);
}

static __attribute__((noinline)) uint64_t h4_libsodium(const u8 *p)
{
	return sodium_sip24(p, 4);
}

static __attribute__((noinline)) uint64_t h16_sip13(const u8 *p)
{
	return bloom_core_hash16(&hash13, p);
}

static __attribute__((noinline)) uint64_t h16_sip24(const u8 *p)
{
	return bloom_core_hash16(&hash24, p);
}

static __attribute__((noinline)) uint64_t h16_any_sip13(const u8 *p)
{
	return bloom_core_hash(&hash13, p, 16);
}

static __attribute__((noinline)) uint64_t h16_any_sip24(const u8 *p)
{
	return bloom_core_hash(&hash24, p, 16);
}

static __attribute__((noinline)) uint64_t h16_libsodium(const u8 *p)
{
	return sodium_sip24(p, 16);
}

static const struct {
	const char *name;
	uint32_t len;
	uint64_t (*fn)(const u8 *p);
} hashes[] = {
	{ "siphash13_fixed", 4, h4_sip13 },
	{ "siphash24_fixed", 4, h4_sip24 },
	{ "siphash13_any", 4, h4_any_sip13 },
	{ "siphash24_any", 4, h4_any_sip24 },
	{ "libsodium_siphash24", 4, h4_libsodium },
	{ "siphash13_fixed", 16, h16_sip13 },
	{ "siphash24_fixed", 16, h16_sip24 },
	{ "siphash13_any", 16, h16_any_sip13 },
	{ "siphash24_any", 16, h16_any_sip24 },
	{ "libsodium_siphash24", 16, h16_libsodium },
	{ "siphash13_direct", 4, h4_direct_sip13 },
	{ "siphash13_direct", 16, h16_direct_sip13 },
};

#define NHASHES	(sizeof(hashes) / sizeof(hashes[0]))

/* ns per hash of the @n keys of @len bytes at @keys; their sum in *@sum. */
static double timed_hash(uint64_t (*fn)(const u8 *p), const u8 *keys,
			 uint32_t len, size_t n, uint64_t *sum)
{
	uint64_t t0 = bench_now_ns(), acc = 0;
	size_t i;

	for (i = 0; i < n; i++)
		acc += fn(keys + i * len);
	*sum = acc;
	return (double)(bench_now_ns() - t0) / (double)n;
}

static void run_hashes(uint32_t rounds, size_t sample)
{
	struct bench_stat ns[NHASHES];
	uint64_t sums[NHASHES], seed = 7;
	u8 *keys[2];
	uint32_t r, x, w;
	size_t i;

	memset(ns, 0, sizeof(ns));
	bloom_hash_key_init(&hash13.key, hash_key, BLOOM_CORE_SIPHASH_1_3);
	bloom_hash_key_init(&hash24.key, hash_key, BLOOM_CORE_SIPHASH_2_4);
	for (w = 0; w < 2; w++) {
		keys[w] = malloc(sample * (w ? 16 : 4));
		if (!keys[w])
			exit(1);
		for (i = 0; i < sample * (w ? 16 : 4); i++) {
			seed = bench_mix64(seed);
			keys[w][i] = (u8)seed;
		}
	}
	fprintf(stderr, "bench-bpfmap: the keyed hash alone\n");
	for (r = 0; r < rounds; r++)
		for (x = 0; x < NHASHES; x++) {
			uint32_t hi = (x + r) % NHASHES;

			bench_stat_add(&ns[hi],
				       timed_hash(hashes[hi].fn,
						  keys[hashes[hi].len == 16],
						  hashes[hi].len, sample,
						  &sums[hi]));
		}
	json_arr(stdout, "keyed_hash");
	for (x = 0; x < NHASHES; x++) {
		json_obj(stdout, NULL);
		json_str(stdout, "name", hashes[x].name);
		json_u64(stdout, "key_bytes", hashes[x].len);
		json_num(stdout, "ns_median", bench_stat_median(&ns[x]));
		json_num(stdout, "ns_min", bench_stat_min(&ns[x]));
		json_end(stdout);
	}
	json_end(stdout);
	/* the same hash from every build: the same sums */
	if (sums[1] != sums[3] || sums[1] != sums[4] || sums[0] != sums[2] ||
	    sums[6] != sums[8] || sums[6] != sums[9] || sums[5] != sums[7] ||
	    sums[0] != sums[10] || sums[5] != sums[11]) {
		fprintf(stderr, "bench-bpfmap: the builds of a scheme disagree\n");
		exit(1);
	}
	free(keys[0]);
	free(keys[1]);
}

int main(int argc, char **argv)
{
	static const char usage[] =
		"bench-bpfmap [--count N] [--big N] [--hashes K] [--rounds R] [--sample S]";
	uint64_t count = 1000000, big = 50000000, sample = 2000000;
	uint32_t k = 7, rounds = 7;
	const struct bench_opt opts[] = {
		{ "count", BENCH_OPT_U64, &count },
		{ "big", BENCH_OPT_U64, &big },
		{ "hashes", BENCH_OPT_U32, &k },
		{ "rounds", BENCH_OPT_U32, &rounds },
		{ "sample", BENCH_OPT_U64, &sample },
	};

	if (bench_opts_parse(argc, argv, opts, BENCH_NOPTS(opts), usage,
			     NULL) != argc)
		bench_usage(usage);
	if (!count || !k || k > 15 || !rounds || rounds > BENCH_MAX_SAMPLES ||
	    !sample || count > 0x30000000 || big > 0x30000000) {
		fprintf(stderr, "bench-bpfmap: out of range (count, big <= 805306368; 1 <= k <= 15; rounds <= %d)\n",
			BENCH_MAX_SAMPLES);
		return 2;
	}
	json_obj(stdout, NULL);
	json_u64(stdout, "hashes", k);
	json_u64(stdout, "rounds", rounds);
	json_u64(stdout, "sample", sample);
	json_u64(stdout, "hot", HOT);
	run_hashes(rounds, sample);
	json_arr(stdout, "sets");
	run_set("main", count, k, rounds, sample);
	if (big)
		run_set("big", big, k, rounds, sample);
	json_end(stdout);
	json_end(stdout);
	putchar('\n');
	return 0;
}
