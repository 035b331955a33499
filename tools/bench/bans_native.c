// SPDX-License-Identifier: GPL-2.0
/*
 * bench-bans-native: the bans part's lookup natively, where TCG cannot
 * distort the ratio of arithmetic to memory: bloom's timed filter against
 * a model of ipset's hash:ip with timeout, the same addresses and
 * timeouts. Prints JSON on stdout, progress on stderr.
 *
 *   bench-bans-native [--small N] [--rounds R] [--sample S] FEED
 *
 * FEED: the part's ipset save lines (bans_feed.h). Two sets: "small", the
 * first N (default 10,000) keys of FEED, whose lines stay in cache, and
 * "main", all of them. Each is added to both with its own timeout, then
 * looked up, listed (its keys) and unlisted (64.0.0.0 + i, never added):
 * S lookups a round (default 1,000,000) in a random order drawn before
 * the timing; the variants take turns in every round; ns per lookup,
 * median and minimum of R rounds (default 7), the loop that reads the
 * address included, in the thread's CPU time.
 *
 * bloom's lookup is the iptables match's: bloom_nb_query() of the core
 * (libbloomcore.a, module/core/timed.c), the keyed SipHash-1-3 of the
 * address (new filters' hash), the two buckets' test and, when a cell
 * matches, the clock read, on a timed filter sized as bloomctl create
 * --capacity COUNT --fpp 1e-4 --key-timeouts sizes it. The clock is a
 * model of the module's (ktime_get_boottime_seconds(): the timekeeper's
 * coarse time under its sequence count, no hardware clock), as jiffies is
 * a variable read for the ipset model. Two references split its time: the
 * same query given the time (no clock read) and the keyed hash alone;
 * one splits the model's: its hash alone (jhash2 of the address).
 *
 * Growth: a timed filter that grows (bloomctl create --key-timeouts
 * --scalable: module/core/scale.c's chain of timed stages, defaults s = 10,
 * r = 0.85) of capacity N (--small) holding N keys of FEED (one stage)
 * and holding 10 N (two stages), against one timed filter sized for 10 N
 * holding the same 10 N: the match's lookup with the time given (the
 * userspace clock read, which the module's coarse clock does not cost,
 * would be paid once a stage), listed and unlisted as above.
 *
 * The model is mtype_test() of Linux 6.1's ip_set_hash_gen.h for
 * hash:ip (ip_set_hash_ip.c) with the timeout extension, behind the set's
 * data and table pointers: jhash2() of the address with the set's initval,
 * masked to htable_bits; the bucket pointer; its used bitmap up to pos;
 * each used element's address, then its timeout against jiffies (0:
 * permanent; jiffies follows CLOCK_BOOTTIME between rounds, as the
 * core's clock does). Elements are 16 bytes (the address, then the timeout's
 * unsigned long at offset 8, ip_set_elem_len()), buckets a 32-byte struct
 * hbucket header and `size` elements. The table is built as ipset builds
 * it: hashsize 1024 (the default: 10 bits), adds in FEED order, a bucket
 * grown by AHASH_INIT_SIZE (2) elements when full, and when a full bucket
 * has AHASH_MAX_SIZE (12, the default bucketsize) the table doubled and
 * every element rehashed (doubled again while a bucket overflows), as
 * mtype_add() and mtype_resize() do. Simplified: no RCU, locks, regions,
 * gc or resize backlog (none runs on a lookup); buckets come from one
 * arena in kmalloc's size classes (64, 96, 128, 192, 256 bytes), laid out
 * in allocation order with huge pages where the host gives them, as the
 * kernel's direct map has them, freed buckets not reused; the bucket
 * pointer array from bench_alloc (4 KiB pages, as kvmalloc's vmalloc
 * has); jiffies is a variable, as the kernel's, with HZ = 250 (Debian's).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <linux/bloom.h>	/* BLOOM_TIMED_GROWTH_DEFAULT */
#include "bans_feed.h"
#include "core.h"
#include "jhash.h"
#include "json.h"
#include "keys.h"
#include "mem.h"
#include "netblock.h"
#include "opts.h"
#include "stats.h"
#include "scale.h"
#include "timed.h"

#define UNLISTED_BASE	0x40000000u	/* 64.0.0.0: not in the feed */
#define FPP_PPB		100000		/* p = 1e-4, the part's filter */
#define HZ		250
#define IPSET_INITVAL	0x2b3c4d5eu	/* the set's initval: any value */
#define AHASH_INIT_SIZE	2
#define AHASH_MAX_SIZE	12
#define HBITS_DEFAULT	10		/* hashsize 1024 */

static const uint8_t hash_key[BLOOM_CORE_HASH_KEY_LEN] = "bloom-bench-key";

static void fail(const char *what)
{
	fprintf(stderr, "bench-bans-native: %s: %s\n", what, strerror(ENOMEM));
	exit(1);
}

/* ---- the ipset model ---- */

struct ipset_elem {		/* hash_ip4_elem and its timeout extension */
	uint32_t ip;
	uint32_t pad;
	unsigned long timeout;	/* jiffies; 0: permanent */
};

struct hbucket {
	void *rcu[2];		/* struct rcu_head */
	unsigned long used;	/* DECLARE_BITMAP(used, AHASH_MAX_TUNED) */
	uint8_t size;
	uint8_t pos;
	struct ipset_elem value[];	/* 8-aligned by the timeout */
};

struct htable {
	uint8_t htable_bits;
	struct hbucket **bucket;	/* 2^htable_bits pointers */
	uint64_t bucket_bytes;
};

struct ipset_model {
	struct htable *table;
	uint32_t initval;
	uint32_t netmask;	/* network order mask: /32 */
	uint64_t elements, resizes, bucket_bytes;
};

/* volatile: read at every lookup, as the kernel's jiffies is */
static volatile unsigned long jiffies;

/* jiffies as the kernel's count them, from the clock the core reads */
static void jiffies_update(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	jiffies = (unsigned long)ts.tv_sec * HZ + ts.tv_nsec / (1000000000 / HZ);
}

/* The arena of buckets: kmalloc's size classes, in allocation order. */
static struct {
	char *base;
	size_t used, bytes;
} arena;

static size_t kmalloc_class(size_t n)
{
	static const size_t classes[] = { 64, 96, 128, 192, 256 };
	size_t i;

	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (n <= classes[i])
			return classes[i];
	return (n + 63) & ~(size_t)63;
}

static struct hbucket *bucket_alloc(struct ipset_model *s, uint8_t size)
{
	size_t n = kmalloc_class(sizeof(struct hbucket) +
				 size * sizeof(struct ipset_elem));
	struct hbucket *b;

	if (arena.used + n > arena.bytes)
		fail("the bucket arena");
	b = (struct hbucket *)(arena.base + arena.used);
	arena.used += n;
	s->bucket_bytes += n;
	memset(b, 0, n);
	b->size = size;
	return b;
}

static void arena_init(size_t bytes)
{
	arena.base = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (arena.base == MAP_FAILED)
		fail("mmap");
	madvise(arena.base, bytes, MADV_HUGEPAGE);
	arena.bytes = bytes;
	arena.used = 0;
}

static struct htable *htable_alloc(uint8_t bits)
{
	struct htable *t = calloc(1, sizeof(*t));

	if (!t)
		fail("calloc");
	t->htable_bits = bits;
	t->bucket_bytes = (sizeof(void *) << bits);
	t->bucket = bench_alloc(t->bucket_bytes);
	if (!t->bucket)
		fail("the bucket array");
	return t;
}

static uint32_t hkey(const struct ipset_model *s, uint8_t bits, uint32_t ip)
{
	return jhash_1word(ip, s->initval) & ((1u << bits) - 1);
}

/* Puts @e into @t, growing its bucket; false when the bucket is at the max. */
static bool place(struct ipset_model *s, struct htable *t,
		  const struct ipset_elem *e)
{
	uint32_t key = hkey(s, t->htable_bits, e->ip);
	struct hbucket *n = t->bucket[key], *old = n;

	if (!n) {
		n = bucket_alloc(s, AHASH_INIT_SIZE);
	} else if (n->pos >= n->size) {
		if (n->size >= AHASH_MAX_SIZE)
			return false;
		n = bucket_alloc(s, old->size + AHASH_INIT_SIZE);
		memcpy(n, old, sizeof(*old) + old->size * sizeof(*e));
		n->size = old->size + AHASH_INIT_SIZE;
		s->bucket_bytes -= kmalloc_class(sizeof(*old) +
						 old->size * sizeof(*e));
	}
	n->value[n->pos] = *e;
	n->used |= 1UL << n->pos++;
	t->bucket[key] = n;
	return true;
}

/* mtype_resize(): the next larger table that holds every element. */
static void resize(struct ipset_model *s)
{
	struct htable *orig = s->table, *t;
	uint8_t bits = orig->htable_bits;
	uint64_t i;
	uint32_t j;

retry:
	t = htable_alloc(++bits);
	s->bucket_bytes = 0;
	for (i = 0; i < (1ULL << orig->htable_bits); i++) {
		struct hbucket *n = orig->bucket[i];

		for (j = 0; n && j < n->pos; j++)
			if (n->used & (1UL << j) && !place(s, t, &n->value[j])) {
				bench_free(t->bucket, t->bucket_bytes);
				free(t);
				goto retry;
			}
	}
	bench_free(orig->bucket, orig->bucket_bytes);
	free(orig);
	s->table = t;
	s->resizes++;
}

static void ipset_add(struct ipset_model *s, uint32_t ip, uint32_t timeout_s)
{
	struct ipset_elem e = {
		.ip = ip,
		.timeout = timeout_s ? jiffies + (unsigned long)timeout_s * HZ : 0,
	};

	while (!place(s, s->table, &e))
		resize(s);
	s->elements++;
}

/* time_is_before_jiffies(t): t is in the past */
static inline bool expired(unsigned long t)
{
	return t && (long)(jiffies - t) > 0;
}

/* hash_ip4_kadt() and mtype_test() for one address */
static __attribute__((noinline)) bool ipset_lookup(const void *obj,
						   uint32_t addr)
{
	const struct ipset_model *s = obj;
	const struct htable *t = s->table;
	uint32_t ip = addr & s->netmask, i;
	const struct hbucket *n;
	uint8_t pos;

	if (!ip)
		return false;
	n = t->bucket[hkey(s, t->htable_bits, ip)];
	if (!n)
		return false;
	pos = __atomic_load_n(&n->pos, __ATOMIC_ACQUIRE);
	for (i = 0; i < pos; i++) {
		if (!(n->used & (1UL << i)))
			continue;
		if (n->value[i].ip != ip)
			continue;
		if (!expired(n->value[i].timeout))
			return true;
	}
	return false;
}

static void ipset_init(struct ipset_model *s, const struct bans_feed *f,
		       size_t n)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	/* every bucket at its largest, twice (the grows leave the old) */
	arena_init(kmalloc_class(sizeof(struct hbucket) + AHASH_MAX_SIZE *
				 sizeof(struct ipset_elem)) * 2 * n + (1 << 21));
	s->initval = IPSET_INITVAL;
	s->netmask = 0xffffffffu;
	s->table = htable_alloc(HBITS_DEFAULT);
	for (i = 0; i < n; i++)
		ipset_add(s, f->keys[i], f->timeouts[i]);
}

static void ipset_free(struct ipset_model *s)
{
	bench_free(s->table->bucket, s->table->bucket_bytes);
	free(s->table);
	munmap(arena.base, arena.bytes);
}

/* ---- bloom's timed filter, through the core ---- */

struct ours {
	struct bloom_core core;
	/* none: the lengths the module's lookup reads for a filter of addresses */
	struct bloom_netblocks nb;
	void *storage;
	uint64_t bytes;
	uint64_t now;
};

static void ours_init(struct ours *o, const struct bans_feed *f, size_t n)
{
	struct bloom_geometry geo;
	bloom_hash_key_t hk;
	size_t i;

	memset(&o->nb, 0, sizeof(o->nb));
	if (bloom_geometry_size(BLOOM_CORE_TIMED, n, FPP_PPB, &geo)) {
		fprintf(stderr, "bench-bans-native: no geometry for %zu keys\n", n);
		exit(1);
	}
	o->bytes = bloom_core_storage_bytes(&geo);
	o->storage = bench_alloc(o->bytes);
	if (!o->storage)
		fail("the filter");
	bloom_hash_key_init(&hk, hash_key, BLOOM_CORE_SIPHASH_1_3);
	bloom_core_init(&o->core, &geo, &hk, o->storage);
	bloom_timed_set_timeouts(&o->core, 0, 0);
	o->now = bloom_clock_s();
	/* the adds at one time, as a load in one second would be */
	bloom_clock_set_s(o->now);
	for (i = 0; i < n; i++) {
		u64 h = bloom_core_hash(&o->core, &f->keys[i], 4);
		u32 done;

		bloom_timed_add_batch(&o->core, &h, 1, NULL, f->timeouts[i],
				      NULL, &done);
		if (!done) {
			fprintf(stderr, "bench-bans-native: the filter is full\n");
			exit(1);
		}
	}
	bloom_clock_set_s(0);
}

/*
 * A model of the clock the module reads, ktime_get_boottime_seconds() of
 * Linux 6.1 (kernel/time/timekeeping.c) plus the module's slept seconds:
 * ktime_get_coarse_with_offset(TK_OFFS_BOOT), an exported function, reads
 * the timekeeper's sequence count, its coarse base, the boot offset and
 * the nanoseconds of the last tick, and reads the count again; the
 * nanoseconds are divided by 10^9 (a constant: a multiply). No hardware
 * clock is read. The fields follow the real clock between rounds.
 */
static struct {
	volatile uint32_t seq;
	volatile int64_t base_ns, offs_boot_ns;
	volatile uint64_t xtime_nsec;
	volatile uint32_t shift;
} tk;
static volatile uint64_t slept_s;

static void tk_update(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	tk.seq += 2;
	tk.base_ns = (int64_t)ts.tv_sec * 1000000000;
	tk.offs_boot_ns = 0;
	tk.shift = 8;
	tk.xtime_nsec = (uint64_t)ts.tv_nsec << 8;
}

static __attribute__((noinline)) int64_t coarse_boottime_ns(void)
{
	uint32_t seq;
	int64_t base;
	uint64_t nsecs;

	do {
		seq = tk.seq;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		base = tk.base_ns + tk.offs_boot_ns;
		nsecs = tk.xtime_nsec >> tk.shift;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (tk.seq != seq);
	return base + (int64_t)nsecs;
}

static u64 module_clock_s(void)
{
	return (u64)(coarse_boottime_ns() / 1000000000) + slept_s;
}

/*
 * the iptables match's lookup: bloom_rule_match() less RCU and counters,
 * the time read as the module reads it (the model above), only when a
 * cell matches (a key absent reads no clock)
 */
static __attribute__((noinline)) bool ours_lookup(const void *obj,
						  uint32_t addr)
{
	const struct ours *o = obj;

	bloom_clock_set_s(0);
	return bloom_nb_query(&o->core, &o->nb, BLOOM_NB_IPV4,
			      (const u8 *)&addr, 32);
}

/* the same with the time set, as the module's coarse clock reads it */
static __attribute__((noinline)) bool ours_lookup_at(const void *obj,
						     uint32_t addr)
{
	const struct ours *o = obj;

	bloom_clock_set_s(o->now);
	return bloom_nb_query(&o->core, &o->nb, BLOOM_NB_IPV4,
			      (const u8 *)&addr, 32);
}

/* the model's hash alone: jhash2() of the address, masked */
static __attribute__((noinline)) bool ipset_hash(const void *obj,
						 uint32_t addr)
{
	const struct ipset_model *s = obj;

	return hkey(s, s->table->htable_bits, addr & s->netmask) & 1;
}

static __attribute__((noinline)) bool ours_hash(const void *obj,
						uint32_t addr)
{
	const struct ours *o = obj;

	return bloom_core_hash(&o->core, &addr, 4) & 1;
}

/* ---- a timed filter that grows ---- */

struct chain {
	struct ours o;			/* o.core heads the chain */
	struct bloom_scale scale;
	struct bloom_scale_stage st[BLOOM_CORE_STAGES_MAX];
	void *mem[BLOOM_CORE_STAGES_MAX];
	uint64_t bytes[BLOOM_CORE_STAGES_MAX];
	uint32_t n;
};

/* The next stage, as bloom.ko makes it (module/store.c). */
static void chain_grow(struct chain *c)
{
	struct bloom_geometry g;
	uint32_t n = c->n;

	if (bloom_scale_next_geometry(&c->o.core, &g)) {
		fprintf(stderr, "bench-bans-native: the chain cannot grow\n");
		exit(1);
	}
	c->bytes[n] = bloom_core_storage_bytes(&g);
	c->mem[n] = bench_alloc(c->bytes[n]);
	if (!c->mem[n])
		fail("a stage");
	bloom_scale_publish(&c->o.core, &c->st[n], &g, c->mem[n]);
	c->o.bytes += c->bytes[n];
	c->n++;
}

static void chain_init(struct chain *c, const struct bans_feed *f,
		       size_t capacity, size_t n)
{
	struct bloom_scale_params p = {
		.type = BLOOM_CORE_TIMED, .growth = BLOOM_TIMED_GROWTH_DEFAULT,
		.capacity = capacity,
		.fpp_ppb = FPP_PPB, .tightening_ppm = 850000,
	};
	bloom_hash_key_t hk;
	size_t i;

	memset(c, 0, sizeof(*c));
	if (bloom_scale_check(&p)) {
		fprintf(stderr, "bench-bans-native: no chain of %zu keys\n",
			capacity);
		exit(1);
	}
	bloom_hash_key_init(&hk, hash_key, BLOOM_CORE_SIPHASH_1_3);
	bloom_scale_init(&c->o.core, &c->scale, &p, &hk);
	bloom_timed_set_timeouts(&c->o.core, 0, 0);
	chain_grow(c);
	c->o.now = bloom_clock_s();
	bloom_clock_set_s(c->o.now);
	for (i = 0; i < n; i++) {
		u64 h = bloom_core_hash(&c->o.core, &f->keys[i], 4);
		u32 pos = 0;

		while (!bloom_scale_timed_add_batch(&c->o.core, &h, 1, NULL,
						    f->timeouts[i], NULL,
						    &pos) && !pos)
			chain_grow(c);
	}
	bloom_clock_set_s(0);
}

static void chain_free(struct chain *c)
{
	uint32_t i;

	for (i = 0; i < c->n; i++)
		bench_free(c->mem[i], c->bytes[i]);
}

/* ---- the runs ---- */

/* the two hashes alone last: they have no hit rates */
enum { V_IPSET, V_BLOOM, V_BLOOM_AT, V_HASH, V_IPSET_HASH, NVARIANTS };
static const char *const vnames[NVARIANTS] = {
	"ipset_hash_ip_timeout_model", "bloom_timed",
	"bloom_timed_no_clock_read", "bloom_siphash_only", "ipset_jhash_only",
};

struct variant {
	bool (*lookup)(const void *obj, uint32_t addr);
	const void *obj;
};

/*
 * The thread's CPU time, not the wall clock: the host's cores are shared
 * with busier jobs, and a round's wall time would count their slices.
 */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ns of CPU per lookup of @seq[0..@n) by @v; *@hits counted. */
static double timed(const struct variant *v, const uint32_t *seq, size_t n,
		    uint64_t *hits)
{
	uint64_t t0 = cpu_ns(), h = 0;
	size_t i;

	for (i = 0; i < n; i++)
		h += v->lookup(v->obj, seq[i]);
	*hits = h;
	return (double)(cpu_ns() - t0) / (double)n;
}

/*
 * The "variants" object of @nv variants named @names: each one's listed and
 * unlisted medians and minima, and its hit rates but for the first
 * @no_hits_from on (the hash alone has none); then exits when a variant
 * with hit rates missed a listed address.
 */
static void variants_json(const char *const *names, uint32_t nv,
			  uint32_t no_hits_from, struct bench_stat (*ns)[2],
			  uint64_t (*hits)[2], size_t sample)
{
	uint32_t x, w;

	json_obj(stdout, "variants");
	for (x = 0; x < nv; x++) {
		json_obj(stdout, names[x]);
		for (w = 0; w < 2; w++) {
			json_obj(stdout, w ? "unlisted" : "listed");
			json_num(stdout, "ns_median",
				 bench_stat_median(&ns[x][w]));
			json_num(stdout, "ns_min", bench_stat_min(&ns[x][w]));
			if (x < no_hits_from)
				json_num(stdout, "hit_rate",
					 (double)hits[x][w] / (double)sample);
			json_end(stdout);
		}
		json_end(stdout);
	}
	json_end(stdout);
	for (x = 0; x < no_hits_from; x++)
		if (hits[x][0] != sample) {
			fprintf(stderr, "bench-bans-native: %s missed listed addresses\n",
				names[x]);
			exit(1);
		}
}

static void run_set(const char *label, const struct bans_feed *f, size_t n,
		    uint32_t rounds, size_t sample)
{
	struct bench_stat ns[NVARIANTS][2];
	uint64_t hits[NVARIANTS][2];
	struct variant v[NVARIANTS];
	struct ipset_model s;
	struct ours o;
	uint32_t *seq[2], r, w, x;
	uint64_t i, seed = 1;

	memset(ns, 0, sizeof(ns));
	jiffies_update();
	tk_update();
	bloom_clock_source = module_clock_s;
	ipset_init(&s, f, n);
	ours_init(&o, f, n);
	fprintf(stderr, "bench-bans-native: %s: %zu keys; ipset model: htable_bits %u after %llu resizes\n",
		label, n, s.table->htable_bits, (unsigned long long)s.resizes);
	v[V_IPSET] = (struct variant){ ipset_lookup, &s };
	v[V_BLOOM] = (struct variant){ ours_lookup, &o };
	v[V_BLOOM_AT] = (struct variant){ ours_lookup_at, &o };
	v[V_HASH] = (struct variant){ ours_hash, &o };
	v[V_IPSET_HASH] = (struct variant){ ipset_hash, &s };
	for (w = 0; w < 2; w++) {
		seq[w] = malloc(sample * sizeof(uint32_t));
		if (!seq[w])
			fail("malloc");
		for (i = 0; i < sample; i++) {
			seed = bench_mix64(seed);
			seq[w][i] = w ? __builtin_bswap32(UNLISTED_BASE +
							  (uint32_t)(seed % n)) :
				f->keys[seed % n];
		}
	}
	for (r = 0; r < rounds; r++)
		for (w = 0; w < 2; w++, jiffies_update(), tk_update())
			for (x = 0; x < NVARIANTS; x++) {
				uint32_t vi = (x + r) % NVARIANTS;

				bench_stat_add(&ns[vi][w],
					       timed(&v[vi], seq[w], sample,
						     &hits[vi][w]));
			}
	json_obj(stdout, NULL);
	json_str(stdout, "set", label);
	json_u64(stdout, "count", n);
	json_u64(stdout, "bloom_memory_bytes", o.bytes);
	json_u64(stdout, "ipset_memory_bytes",
		 s.table->bucket_bytes + s.bucket_bytes);
	json_u64(stdout, "ipset_htable_bits", s.table->htable_bits);
	json_u64(stdout, "ipset_resizes", s.resizes);
	variants_json(vnames, NVARIANTS, V_HASH, ns, hits, sample);
	json_end(stdout);
	bloom_clock_source = NULL;
	for (w = 0; w < 2; w++)
		free(seq[w]);
	ipset_free(&s);
	bench_free(o.storage, o.bytes);
}

/*
 * Growth: lookups (the time given) of a growing filter of capacity @cap at
 * @cap keys and at 10 @cap, and of a plain one sized for 10 @cap.
 */
enum { G_AT_C, G_AT_10C, G_PLAIN_10C, NGROWTH };
static const char *const gnames[NGROWTH] = {
	"growing_at_capacity", "growing_at_10x_capacity",
	"plain_sized_for_10x_capacity",
};

static void run_growth(const struct bans_feed *f, size_t cap, uint32_t rounds,
		       size_t sample)
{
	struct bench_stat ns[NGROWTH][2];
	uint64_t hits[NGROWTH][2];
	struct variant v[NGROWTH];
	struct chain *c1, *c10;
	uint32_t *seq[NGROWTH][2], r, w, x;
	uint64_t i, seed = 7;
	size_t n[NGROWTH] = { cap, 10 * cap, 10 * cap };
	struct ours plain;

	memset(ns, 0, sizeof(ns));
	c1 = malloc(sizeof(*c1));
	c10 = malloc(sizeof(*c10));
	if (!c1 || !c10)
		fail("malloc");
	chain_init(c1, f, cap, cap);
	chain_init(c10, f, cap, 10 * cap);
	ours_init(&plain, f, 10 * cap);
	fprintf(stderr, "bench-bans-native: growth: capacity %zu: %u stage(s) at it, %u at 10x\n",
		cap, c1->n, c10->n);
	v[G_AT_C] = (struct variant){ ours_lookup_at, &c1->o };
	v[G_AT_10C] = (struct variant){ ours_lookup_at, &c10->o };
	v[G_PLAIN_10C] = (struct variant){ ours_lookup_at, &plain };
	for (x = 0; x < NGROWTH; x++)
		for (w = 0; w < 2; w++) {
			seq[x][w] = malloc(sample * sizeof(uint32_t));
			if (!seq[x][w])
				fail("malloc");
			for (i = 0; i < sample; i++) {
				seed = bench_mix64(seed);
				seq[x][w][i] = w ?
					__builtin_bswap32(UNLISTED_BASE +
							  (uint32_t)(seed % n[x])) :
					f->keys[seed % n[x]];
			}
		}
	for (r = 0; r < rounds; r++)
		for (w = 0; w < 2; w++)
			for (x = 0; x < NGROWTH; x++) {
				uint32_t vi = (x + r) % NGROWTH;

				bench_stat_add(&ns[vi][w],
					       timed(&v[vi], seq[vi][w], sample,
						     &hits[vi][w]));
			}
	json_obj(stdout, "growth");
	json_u64(stdout, "capacity", cap);
	json_u64(stdout, "growth", c1->scale.p.growth);
	json_u64(stdout, "stages_at_capacity", c1->n);
	json_u64(stdout, "stages_at_10x", c10->n);
	json_u64(stdout, "growing_memory_bytes_at_10x", c10->o.bytes);
	json_u64(stdout, "plain_memory_bytes", plain.bytes);
	variants_json(gnames, NGROWTH, NGROWTH, ns, hits, sample);
	json_end(stdout);
	for (x = 0; x < NGROWTH; x++)
		for (w = 0; w < 2; w++)
			free(seq[x][w]);
	chain_free(c1);
	chain_free(c10);
	free(c1);
	free(c10);
	bench_free(plain.storage, plain.bytes);
}

/* The host's 1-minute load average: the machine is shared. */
static double loadavg(void)
{
	FILE *f = fopen("/proc/loadavg", "r");
	double l = -1;

	if (f) {
		if (fscanf(f, "%lf", &l) != 1)
			l = -1;
		fclose(f);
	}
	return l;
}

int main(int argc, char **argv)
{
	static const char usage[] =
		"bench-bans-native [--small N] [--rounds R (<= " BENCH_STR(BENCH_MAX_SAMPLES) ")] [--sample S] FEED";
	uint64_t small = 10000, sample = 1000000;
	uint32_t rounds = 7;
	const struct bench_opt opts[] = {
		{ "small", BENCH_OPT_U64, &small },
		{ "rounds", BENCH_OPT_U32, &rounds },
		{ "sample", BENCH_OPT_U64, &sample },
	};
	struct bans_feed f;
	int first;

	first = bench_opts_parse(argc, argv, opts, BENCH_NOPTS(opts), usage,
				 NULL);
	if (first != argc - 1 || !small || !rounds ||
	    rounds > BENCH_MAX_SAMPLES || !sample)
		bench_usage(usage);
	bans_feed_read(&f, argv[first]);
	if (small > f.n)
		small = f.n;
	json_obj(stdout, NULL);
	json_num(stdout, "loadavg_start", loadavg());
	json_u64(stdout, "rounds", rounds);
	json_u64(stdout, "sample", sample);
	json_u64(stdout, "hz", HZ);
	json_arr(stdout, "sets");
	run_set("small", &f, small, rounds, sample);
	run_set("main", &f, f.n, rounds, sample);
	json_end(stdout);
	if (10 * small <= f.n)
		run_growth(&f, small, rounds, sample);
	json_num(stdout, "loadavg_end", loadavg());
	json_end(stdout);
	putchar('\n');
	return 0;
}
