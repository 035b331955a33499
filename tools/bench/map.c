// SPDX-License-Identifier: GPL-2.0
/*
 * bench-map: one key at a time as a daemon asks, three ways, on the same
 * bits: libbloom's bloom_query() through the filter's mapping, the core's
 * own query over a private copy of those bits in this process (the floor),
 * and bloom_query() through the one-key ioctl (mapping off). Present keys
 * (added) and absent ones (never added), in a random order over the whole
 * filter (out of cache once the filter is larger than the caches). Then
 * batches of 4096 keys: bloom_batch() through the mapping against the
 * core's hashing and batched query. The keys of a round are made before
 * it is timed: the figures are the queries' alone.
 *
 *   bench-map [--model] KEYS TYPE [QUERIES]   TYPE: standard or blocked
 *
 * Without --model it runs where bloom.ko is (the VM, as root). --model
 * needs no module: the filter is built by the core in a memfd laid out as
 * the module lays out a mapping (the header page, then the bits), and
 * bloom_query() maps that memfd through the same library code it uses for
 * /dev/bloom. That runs on any host, so the mapping's cost is also known
 * on a real CPU; there is no ioctl way then.
 *
 * Prints one line per measurement: ns per key, the median over 5 rounds
 * (the ways taking turns in each) of blocks of 1,000 keys (one key a call)
 * or of batches.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clock.h"
#include "core.h"
#include "libbloom.h"
#include "samples.h"

#define ROUNDS	5
#define BLOCK	1000	/* keys timed together, one key a call */
#define BATCH	4096
#define ABSENT_TAG	0x5a5a5a5a5a5a5a5aULL

static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Key @i: 16 bytes; absent keys are those of another tag. */
static void key_of(uint64_t i, uint64_t tag, uint8_t k[16])
{
	uint64_t a = mix(i ^ tag), b = mix(a + i);

	memcpy(k, &a, 8);
	memcpy(k + 8, &b, 8);
}

enum way { WAY_CORE, WAY_MAPCORE, WAY_MAP, WAY_IOCTL };

static struct bloom_core core, mapcore;
static int fd;
static uint64_t nkeys;
static uint8_t (*qkeys)[16];	/* a round's keys */
static volatile long sink;

/* @q keys chosen at random among the @nkeys added, or as many absent. */
static void pick_keys(bool present, uint64_t q, uint64_t seed)
{
	uint64_t i;

	for (i = 0; i < q; i++)
		key_of(mix(seed + i) % nkeys, present ? 0 : ABSENT_TAG,
		       qkeys[i]);
}

/* @q keys, present or not, one call per key, timed a block at a time. */
static void one_round(enum way w, bool present, uint64_t q, uint64_t seed,
		      struct bench_samples *s)
{
	const struct bloom_core *f = w == WAY_CORE ? &core : &mapcore;
	uint64_t i, start, end, t0;
	long hits = 0;

	pick_keys(present, q, seed);
	bloom_set_mapping(w == WAY_MAP);
	for (i = 0; i < q; ) {
		start = i;
		end = q - i < BLOCK ? q : i + BLOCK;
		t0 = bench_now_ns();
		if (w == WAY_CORE || w == WAY_MAPCORE)
			for (; i < end; i++)
				hits += bloom_core_query_hash(f,
					bloom_core_hash(f, qkeys[i], 16));
		else
			for (; i < end; i++)
				hits += bloom_query(fd, qkeys[i], 16);
		bench_sample(s, bench_now_ns() - t0, end - start);
	}
	sink = hits;
	if (present && hits != (long)q)
		fprintf(stderr, "bench-map: a false negative?\n");
}

static void batch_round(bool through_map, bool present, uint64_t q,
			uint64_t seed, struct bench_samples *s)
{
	static uint8_t res[BATCH / 8];
	static uint64_t hashes[BATCH];
	BLOOM_OPTS(bloom_batch_opts, o, .key_size = 16, .results = res);
	uint64_t i, j, t0;
	long hits = 0;

	q = q / BATCH * BATCH;
	pick_keys(present, q, seed);
	bloom_set_mapping(1);
	for (i = 0; i < q; i += BATCH) {
		t0 = bench_now_ns();
		if (through_map) {
			hits += bloom_batch(fd, BLOOM_OP_QUERY, qkeys[i], BATCH,
					    &o);
		} else {
			for (j = 0; j < BATCH; j++)
				hashes[j] = bloom_core_hash(&core, qkeys[i + j],
							    16);
			hits += bloom_core_query_batch(&core, hashes, BATCH, res);
		}
		bench_sample(s, bench_now_ns() - t0, BATCH);
	}
	sink = hits;
}

/* The module's filter, bound to fd, with the keys added; 0 or -1. */
static int module_filter(enum bloom_type type)
{
	uint64_t i, j, n, chunk = 65536;
	uint8_t (*add)[16];
	int err = 0;

	fd = bloom_open(NULL);
	if (fd < 0 || bloom_create(fd, "bench-map", type, nkeys, 0.01,
				   BLOOM_CREATE_F_BIND))
		return -1;
	add = malloc(chunk * 16);
	if (!add)
		return -1;
	for (i = 0; !err && i < nkeys; i += chunk) {
		BLOOM_OPTS(bloom_batch_opts, o, .key_size = 16);

		n = nkeys - i < chunk ? nkeys - i : chunk;
		for (j = 0; j < n; j++)
			key_of(i + j, 0, add[j]);
		err = bloom_batch(fd, BLOOM_OP_ADD, add, n, &o) < 0;
	}
	free(add);
	return err ? -1 : 0;
}

/*
 * The model: a memfd holding what mmap() of a bound descriptor shows (the
 * header page, the bits after it), filled by the core as bloom.ko fills
 * its filter; fd is the memfd, which the library maps read-only.
 */
static int model_filter(enum bloom_type type)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len;
	struct bloom_map_header *h;
	struct bloom_geometry geo;
	struct bloom_core f;
	bloom_hash_key_t key;
	uint64_t i, hash;
	uint8_t k[16];

	if (bloom_geometry_size(type, nkeys, 10000000, &geo))
		return -1;
	len = page + (bloom_core_storage_bytes(&geo) + page - 1) / page * page;
	fd = memfd_create("bench-map", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)len))
		return -1;
	h = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		return -1;
	for (i = 0; i < 2; i++)
		key.key[i] = mix(0x6b6579 + i);
	bloom_core_init(&f, &geo, &key, (uint8_t *)h + page);
	for (i = 0; i < nkeys; i++) {
		key_of(i, 0, k);
		hash = bloom_core_hash(&f, k, 16);
		bloom_core_add_hash(&f, hash);
	}
	h->magic = BLOOM_MAP_MAGIC;
	h->header_size = sizeof(*h);
	h->type = type;
	h->hashes = geo.hashes;
	h->keys = BLOOM_KEYS_STRINGS;
	h->scheme = bloom_core_scheme();
	h->bits = geo.bits;
	h->bits_offset = page;
	h->bits_len = bloom_core_storage_bytes(&geo);
	h->map_len = len;
	bloom_hash_key_to_bytes(&key, h->hash_key);
	return munmap(h, len);
}

int main(int argc, char **argv)
{
	static const char *const ways[] = { "core", "mapcore", "map", "ioctl" };
	const struct bloom_map_header *h;
	enum bloom_type type;
	struct bloom_geometry geo;
	bloom_hash_key_t key;
	bool model = argc > 1 && !strcmp(argv[1], "--model");
	uint64_t q;
	struct bench_samples r[WAY_IOCTL + 1] = { 0 }, rb[2] = { 0 };
	void *bits;
	int w, p, round, last;

	if (argc < 3 + model) {
		fprintf(stderr, "usage: bench-map [--model] KEYS standard|blocked [QUERIES]\n");
		return 2;
	}
	argv += model;
	last = model ? WAY_MAP : WAY_IOCTL;
	nkeys = strtoull(argv[1], NULL, 0);
	type = strcmp(argv[2], "blocked") ? BLOOM_TYPE_STANDARD :
					    BLOOM_TYPE_BLOCKED;
	q = argc > 3 + model ? strtoull(argv[3], NULL, 0) : 200000;
	qkeys = malloc((q + BATCH) * 16);
	if (!qkeys || !nkeys ||
	    (model ? model_filter(type) : module_filter(type))) {
		fprintf(stderr, "bench-map: cannot create the filter\n");
		return 1;
	}
	/* the floor: the core over a private copy of the very bits */
	h = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		return 1;
	h = mmap(NULL, h->map_len, PROT_READ, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		return 1;
	memset(&geo, 0, sizeof(geo));
	geo.type = h->type;
	geo.hashes = h->hashes;
	geo.bits = h->bits;
	geo.capacity = nkeys;
	geo.fpp_ppb = 10000000;
	bits = aligned_alloc(64, h->bits_len);
	if (!bits)
		return 1;
	memcpy(bits, (const char *)h + h->bits_offset, h->bits_len);
	bloom_hash_key_from_bytes(&key, h->hash_key);
	bloom_core_init(&core, &geo, &key, bits);
	bloom_core_init(&mapcore, &geo, &key,
			(void *)((uintptr_t)h + h->bits_offset));

	printf("# keys %llu type %s queries %llu%s: ns per key, median of %d rounds' blocks\n",
	       (unsigned long long)nkeys, argv[2], (unsigned long long)q,
	       model ? " model" : "", ROUNDS);
	for (p = 1; p >= 0; p--) {
		/* the ways take turns in every round: drift hits them alike */
		for (round = 0; round < ROUNDS; round++) {
			for (w = WAY_CORE; w <= last; w++)
				one_round(w, p, w == WAY_IOCTL ? q / 4 : q,
					  round * q, &r[w]);
			for (w = 0; w < 2; w++)
				batch_round(w, p, q, round * q, &rb[w]);
		}
		for (w = WAY_CORE; w <= last; w++)
			printf("one %-7s %-7s %8.1f\n", p ? "present" : "absent",
			       ways[w], bench_samples_median(&r[w]));
		for (w = 0; w < 2; w++)
			printf("batch %-7s %-7s %8.1f\n",
			       p ? "present" : "absent", w ? "map" : "core",
			       bench_samples_median(&rb[w]));
	}
	bloom_close(fd);
	if (!model) {
		fd = bloom_open(NULL);
		bloom_destroy(fd, "bench-map");
	}
	return 0;
}
