// SPDX-License-Identifier: GPL-2.0
/*
 * bench-map: one key at a time as a daemon asks, three ways, on the same
 * bits: libbloom's bloom_query() through the filter's mapping, the core's
 * own query over a private copy of those bits in this process (the floor),
 * and bloom_query() through the one-key ioctl (mapping off). Present keys
 * (added) and absent ones (never added), in a random order over the whole
 * filter (out of cache once the filter is larger than the caches). Then
 * batches of 4096 keys: bloom_batch() through the mapping against the
 * core's hashing and batched query. Runs in the VM as root.
 *
 *   bench-map KEYS TYPE [QUERIES]     TYPE: standard or blocked
 *
 * Prints one line per measurement: ns per key, the median of 5 rounds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "clock.h"
#include "core.h"
#include "libbloom.h"

#define ROUNDS	5
#define BATCH	4096

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

enum way { WAY_CORE, WAY_MAP, WAY_IOCTL };

static struct bloom_core core;
static int fd;
static uint64_t nkeys;
static volatile long sink;

/* ns per key over @q keys chosen at random among @nkeys, present or not. */
static double one_round(enum way w, bool present, uint64_t q, uint64_t seed)
{
	uint64_t i, t0, tag = present ? 0 : 0x5a5a5a5a5a5a5a5aULL;
	long hits = 0;
	uint8_t k[16];

	bloom_set_mapping(w == WAY_MAP);
	t0 = bench_now_ns();
	for (i = 0; i < q; i++) {
		key_of(mix(seed + i) % nkeys, tag, k);
		if (w == WAY_CORE)
			hits += bloom_core_query_hash(&core,
						      bloom_core_hash(&core, k, 16));
		else
			hits += bloom_query(fd, k, 16);
	}
	sink = hits;
	if (present && hits != (long)q)
		fprintf(stderr, "bench-map: a false negative?\n");
	return (double)(bench_now_ns() - t0) / (double)q;
}

static double batch_round(bool through_map, bool present, uint64_t q,
			  uint64_t seed)
{
	static uint8_t keys[BATCH][16], res[BATCH / 8];
	static uint64_t hashes[BATCH];
	uint64_t i, j, t0, tag = present ? 0 : 0x5a5a5a5a5a5a5a5aULL;
	BLOOM_OPTS(bloom_batch_opts, o, .key_size = 16, .results = res);
	long hits = 0;
	double ns = 0;

	bloom_set_mapping(1);
	for (i = 0; i < q; i += BATCH) {
		for (j = 0; j < BATCH; j++)
			key_of(mix(seed + i + j) % nkeys, tag, keys[j]);
		t0 = bench_now_ns();
		if (through_map) {
			hits += bloom_batch(fd, BLOOM_OP_QUERY, keys, BATCH, &o);
		} else {
			for (j = 0; j < BATCH; j++)
				hashes[j] = bloom_core_hash(&core, keys[j], 16);
			hits += bloom_core_query_batch(&core, hashes, BATCH, res);
		}
		ns += (double)(bench_now_ns() - t0);
	}
	sink = hits;
	return ns / (double)(q / BATCH * BATCH);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v)
{
	qsort(v, ROUNDS, sizeof(*v), cmp_double);
	return v[ROUNDS / 2];
}

int main(int argc, char **argv)
{
	static const char *const ways[] = { "core", "map", "ioctl" };
	const struct bloom_map_header *h;
	enum bloom_type type;
	struct bloom_geometry geo;
	bloom_hash_key_t key;
	uint64_t i, q, chunk = 65536;
	double r[ROUNDS];
	uint8_t (*add)[16];
	void *bits;
	int w, p, round;

	if (argc < 3) {
		fprintf(stderr, "usage: bench-map KEYS standard|blocked [QUERIES]\n");
		return 2;
	}
	nkeys = strtoull(argv[1], NULL, 0);
	type = strcmp(argv[2], "blocked") ? BLOOM_TYPE_STANDARD :
					    BLOOM_TYPE_BLOCKED;
	q = argc > 3 ? strtoull(argv[3], NULL, 0) : 200000;
	fd = bloom_open(NULL);
	if (fd < 0 || bloom_create(fd, "bench-map", type, nkeys, 0.01,
				   BLOOM_CREATE_F_BIND)) {
		fprintf(stderr, "bench-map: cannot create the filter\n");
		return 1;
	}
	add = malloc(chunk * 16);
	for (i = 0; i < nkeys; i += chunk) {
		uint64_t j, n = nkeys - i < chunk ? nkeys - i : chunk;
		BLOOM_OPTS(bloom_batch_opts, o, .key_size = 16);

		for (j = 0; j < n; j++)
			key_of(i + j, 0, add[j]);
		if (bloom_batch(fd, BLOOM_OP_ADD, add, n, &o) < 0)
			return 1;
	}
	free(add);
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
	memcpy(bits, (const char *)h + h->bits_offset, h->bits_len);
	bloom_hash_key_from_bytes(&key, h->hash_key);
	bloom_core_init(&core, &geo, &key, bits);

	printf("# keys %llu type %s queries %llu: ns per key, median of %d\n",
	       (unsigned long long)nkeys, argv[2], (unsigned long long)q,
	       ROUNDS);
	for (p = 1; p >= 0; p--) {
		for (w = WAY_CORE; w <= WAY_IOCTL; w++) {
			uint64_t qq = w == WAY_IOCTL ? q / 4 : q;

			for (round = 0; round < ROUNDS; round++)
				r[round] = one_round(w, p, qq, round * qq);
			printf("one %-7s %-5s %8.1f\n", p ? "present" : "absent",
			       ways[w], median(r));
		}
		for (w = 0; w < 2; w++) {
			for (round = 0; round < ROUNDS; round++)
				r[round] = batch_round(w, p, q, round * q);
			printf("batch %-7s %-5s %8.1f\n",
			       p ? "present" : "absent", w ? "map" : "core",
			       median(r));
		}
	}
	bloom_close(fd);
	fd = bloom_open(NULL);
	bloom_destroy(fd, "bench-map");
	return 0;
}
