// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_soak's replacer (bloom_soak.c): two filters with the same keys
 * swapped and restored over while their keys are queried.
 */
#define _GNU_SOURCE
#include "bloom_soak.h"

/* keys of the swapped pair: both filters hold them, always */
#define PAIR_KEYS	4096
#define PAIR_BASE	(1ULL << 40)

_Atomic unsigned long replacer_progress;

void *replacer_thread(void *arg)
{
	static const char *const names[2] = { "soak-pair-a", "soak-pair-b" };
	int fd = bt_open(), bound[2], i;
	struct bloom_restore r;
	struct bloom_pair p;
	__u8 *snap = NULL;
	__u64 len = 0;
	long long hits;

	(void)arg;
	for (i = 0; i < 2; i++) {
		bound[i] = bt_open();
		if (bt_create(fd, names[i], BLOOM_TYPE_COUNTING, 100000,
			      1000000, 0) || bt_bind(bound[i], names[i]) ||
		    keys16(bound[i], BLOOM_IOC_ADD, PAIR_BASE, PAIR_KEYS) < 0) {
			report_error("pair: setup: %s", strerror(errno));
			return NULL;
		}
	}
	snap = bt_save_alloc(fd, names[0], &len);
	if (!snap) {
		report_error("pair: save: %s", strerror(errno));
		return NULL;
	}
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	set_name(p.name, names[0]);
	set_name(p.other, names[1]);
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.flags = BLOOM_RESTORE_F_NAME | BLOOM_RESTORE_F_REPLACE;
	r.buf = u64_ptr(snap);
	r.buf_len = len;
	while (!atomic_load(&stop)) {
		if (ioctl(fd, BLOOM_IOC_SWAP, &p))
			report_error("pair: swap: %s", strerror(errno));
		set_name(r.name, names[atomic_load(&replacer_progress) % 2]);
		if (ioctl(fd, BLOOM_IOC_RESTORE, &r))
			report_error("pair: restore: %s", strerror(errno));
		/* through the bound descriptors, racing the next swap */
		for (i = 0; i < 2; i++) {
			hits = keys16(bound[i], BLOOM_IOC_QUERY, PAIR_BASE,
				      BATCH);
			if (hits != BATCH) {
				atomic_fetch_add(&false_negatives, 1);
				report_error("pair: %lld of %d keys present",
					     hits, BATCH);
			}
		}
		atomic_fetch_add(&replacer_progress, 1);
	}
	for (i = 0; i < 2; i++) {
		bt_destroy(fd, names[i]);
		close(bound[i]);
	}
	close(fd);
	free(snap);
	return NULL;
}
