// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_soak's mapped pair (bloom_soak.c): a writer that adds to two
 * filters and swaps them, and a reader that queries them and the standard
 * writer's keys through libbloom's read-only mapping.
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include "bloom_soak.h"
#include "libbloom.h"

#define MAPPED_BASE	(1ULL << 41)
#define MAPPED_MAX	400000	/* keys before the pair stops growing */

static const char *const mapped_names[2] = { "soak-map-a", "soak-map-b" };
static _Atomic __u64 mapped_hi;	/* keys [0, hi) are in both */
_Atomic unsigned long mapped_swaps, mapped_reads;
_Atomic __u64 mapped_queries, mapped_retries, mapped_remaps,
	mapped_fallbacks;

/* Adds keys to both filters of the pair, then swaps them, over and over. */
void *mapped_writer_thread(void *arg)
{
	int fd = bt_open(), bound[2] = { -1, -1 }, i;
	__u64 hi = 0;

	(void)arg;
	for (i = 0; i < 2; i++) {
		bound[i] = bt_open();
		if (bt_bind(bound[i], mapped_names[i])) {
			report_error("mapped pair: bind: %s", strerror(errno));
			goto out;
		}
	}
	while (!atomic_load(&stop)) {
		if (hi < MAPPED_MAX) {
			for (i = 0; i < 2; i++)
				if (keys16(bound[i], BLOOM_IOC_ADD,
					   MAPPED_BASE + hi, BATCH) < 0)
					report_error("mapped pair: ADD: %s",
						     strerror(errno));
			hi += BATCH;
			atomic_store(&mapped_hi, hi);
		} else {
			usleep(1000);	/* full: swaps only, at a pace */
		}
		if (bt_pair(fd, BLOOM_IOC_SWAP, mapped_names[0], mapped_names[1]))
			report_error("mapped pair: swap: %s", strerror(errno));
		atomic_fetch_add(&mapped_swaps, 1);
	}
out:
	for (i = 0; i < 2; i++)
		close(bound[i]);
	close(fd);
	return NULL;
}

/* Keys [first, first + n) of @base through @fd's mapping: those absent. */
static __u32 mapped_misses(int fd, __u64 base, __u64 first, __u32 n)
{
	__u8 keys[BATCH][16], res[BATCH / 8];
	BLOOM_OPTS(bloom_batch_opts, o, .key_size = 16, .results = res);
	__u32 i, misses = 0;

	for (i = 0; i < n; i++) {
		make_key16(base + first + i, keys[i]);
		/* one at a time on even keys, as a daemon asks */
		if (!(i & 1) && bloom_query(fd, keys[i], 16) != 1)
			misses++;
	}
	if (bloom_batch(fd, BLOOM_OP_QUERY, keys, n, &o) != n)
		misses++;
	return misses;
}

/*
 * Queries the pair through a mapping of "soak-map-a" (whichever filter
 * holds that name now) and the standard writer's keys through one of its
 * own, one key at a time and in batches.
 */
void *mapped_reader_thread(void *arg)
{
	struct writer *w = &writers[0];	/* standard: adds only */
	int fd = bloom_open(NULL), wfd = bloom_open(NULL);
	unsigned int seed = 7;
	struct bloom_map_stats st;
	__u64 hi, lo, first;
	__u32 misses;

	(void)arg;
	if (fd < 0 || wfd < 0 || bloom_bind(fd, mapped_names[0]) ||
	    bloom_bind(wfd, w->name)) {
		report_error("mapped reader: bind: %s", strerror(errno));
		goto out;
	}
	while (!atomic_load(&stop)) {
		hi = atomic_load(&mapped_hi);
		if (hi >= BATCH) {
			first = rand_r(&seed) % (hi - BATCH + 1);
			misses = mapped_misses(fd, MAPPED_BASE, first, BATCH);
			if (misses) {
				atomic_fetch_add(&false_negatives, 1);
				report_error("mapped reader: pair: %u of %d keys absent",
					     misses, BATCH);
			}
		}
		lo = atomic_load(&w->lo);
		hi = atomic_load(&w->hi);
		if (hi - lo >= BATCH) {
			first = lo + rand_r(&seed) % (hi - lo - BATCH + 1);
			misses = mapped_misses(wfd, w->base, first, BATCH);
			if (misses) {
				atomic_fetch_add(&false_negatives, 1);
				report_error("mapped reader: %s: %u of %d keys absent",
					     w->name, misses, BATCH);
			}
		}
		atomic_fetch_add(&mapped_reads, 1);
	}
out:
	bloom_map_stats(&st);
	atomic_store(&mapped_queries, st.queries);
	atomic_store(&mapped_retries, st.retries);
	atomic_store(&mapped_remaps, st.remaps);
	atomic_store(&mapped_fallbacks, st.fallbacks);
	bloom_close(fd);
	bloom_close(wfd);
	return NULL;
}

int mapped_pair_create(int fd)
{
	int i;

	for (i = 0; i < 2; i++)
		if (bt_create(fd, mapped_names[i], BLOOM_TYPE_BLOCKED,
			      MAPPED_MAX, 10000000, 0))
			return -1;
	return 0;
}
