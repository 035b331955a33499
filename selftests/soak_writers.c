// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_soak's writers, one a type (bloom_soak.c says what each does):
 * their filters and what they add, delete and query.
 */
#define _GNU_SOURCE
#include "bloom_soak.h"

#define SCALABLE_MAX	200000	/* keys before the scalable filter starts over */

struct writer writers[NTYPES] = {
	{ .name = "soak-standard", .type = BLOOM_TYPE_STANDARD },
	{ .name = "soak-blocked", .type = BLOOM_TYPE_BLOCKED },
	{ .name = "soak-counting", .type = BLOOM_TYPE_COUNTING, .deletes = true },
	{ .name = "soak-dleft", .type = BLOOM_TYPE_DLEFT, .deletes = true },
	{ .name = "soak-scalable", .type = BLOOM_TYPE_STANDARD, .scalable = true },
};

int writer_create(struct writer *w)
{
	struct bloom_create c = bt_create_req(w->name, w->type,
					      w->scalable ? 100 : 1000000,
					      10000000,
					      BLOOM_CREATE_F_BIND |
					      (w->scalable ?
					       BLOOM_CREATE_F_SCALABLE : 0));

	if (w->fd >= 0)
		close(w->fd);
	w->fd = bt_open();
	if (w->fd < 0)
		return -1;
	return ioctl(w->fd, BLOOM_IOC_CREATE, &c);
}

void *writer_thread(void *arg)
{
	struct writer *w = arg;
	__u64 hi, lo;
	long long hits;

	while (!atomic_load(&stop)) {
		hi = atomic_load(&w->hi);
		if (keys16(w->fd, BLOOM_IOC_ADD, w->base + hi, BATCH) < 0) {
			report_error("%s: ADD: %s", w->name, strerror(errno));
			break;
		}
		atomic_store(&w->hi, hi + BATCH);
		lo = atomic_load(&w->lo);
		/* d-left and counting keep 64k keys, dropping the oldest */
		if (w->deletes && hi + BATCH - lo > 65536) {
			atomic_store(&w->lo, lo + BATCH);
			if (keys16(w->fd, BLOOM_IOC_DELETE, w->base + lo,
				   BATCH) < 0) {
				report_error("%s: DELETE: %s", w->name,
					     strerror(errno));
				break;
			}
		}
		/* what it added last must be there */
		hits = keys16(w->fd, BLOOM_IOC_QUERY, w->base + hi, BATCH);
		if (hits != BATCH) {
			atomic_fetch_add(&false_negatives, 1);
			report_error("%s: %lld of its last %d keys present",
				     w->name, hits, BATCH);
		}
		if (w->scalable && hi > SCALABLE_MAX) {
			/* start over: readers see the keys go, as they should */
			atomic_store(&w->lo, hi + BATCH);
			if (bt_destroy(w->fd, w->name) || writer_create(w)) {
				report_error("%s: recreate: %s", w->name,
					     strerror(errno));
				break;
			}
		}
		atomic_fetch_add(&w->progress, 1);
	}
	return NULL;
}
