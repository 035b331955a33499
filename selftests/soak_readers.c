// SPDX-License-Identifier: GPL-2.0
/* bloom_soak's readers of the writers' keys (bloom_soak.c). */
#define _GNU_SOURCE
#include <stdlib.h>

#include "bloom_soak.h"

_Atomic unsigned long reader_progress[NREADERS];

/*
 * Readers bind their own descriptors and query a window of each writer's
 * live keys. A writer may delete the window's start meanwhile (counting,
 * d-left) or start over (scalable): a key counts as missing only if it
 * is still in [lo, hi) after the query returned.
 */
void *reader_thread(void *arg)
{
	long id = (long)arg;
	int fds[NTYPES], i;
	unsigned int seed = id;

	for (i = 0; i < NTYPES; i++)
		fds[i] = -1;
	while (!atomic_load(&stop)) {
		for (i = 0; i < NTYPES && !atomic_load(&stop); i++) {
			struct writer *w = &writers[i];
			__u64 lo = atomic_load(&w->lo), hi = atomic_load(&w->hi);
			__u64 first;
			long long hits;

			if (fds[i] < 0) {
				fds[i] = bt_open();
				if (fds[i] < 0 || bt_bind(fds[i], w->name)) {
					close(fds[i]);
					fds[i] = -1;
					continue;
				}
			}
			if (hi - lo < BATCH)
				continue;
			first = lo + rand_r(&seed) % (hi - lo - BATCH + 1);
			hits = keys16(fds[i], BLOOM_IOC_QUERY, w->base + first,
				      BATCH);
			if (hits < 0 && errno == ESTALE) {
				/* the scalable filter started over */
				close(fds[i]);
				fds[i] = -1;
				continue;
			}
			if (hits != BATCH && atomic_load(&w->lo) <= first &&
			    !(w->scalable && hits < 0)) {
				atomic_fetch_add(&false_negatives, 1);
				report_error("reader: %s: %lld of %d live keys present (%s)",
					     w->name, hits, BATCH,
					     hits < 0 ? strerror(errno) : "absent");
			}
		}
		atomic_fetch_add(&reader_progress[id], 1);
	}
	for (i = 0; i < NTYPES; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return NULL;
}
