// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_soak's expiring writer (bloom_soak.c): a filter whose keys live
 * EXPIRE_MS, and the rotations it sees.
 */
#define _GNU_SOURCE
#include "bloom_soak.h"

#define EXPIRE_RING	64

/* checks left out: the query ended a timeout or more after the ADD began */
_Atomic unsigned long expire_progress, expire_rotations, expire_late;

/*
 * When the newest generation of @fd's filter became the newest, in ms of
 * CLOCK_MONOTONIC (now - its age_ms), or -1.
 */
static double newest_born_ms(int fd)
{
	struct bloom_stage st[EXPIRE_GENS];
	struct bloom_stages s = {
		.size = sizeof(s), .capacity = EXPIRE_GENS,
		.stages = (uintptr_t)st,
	};

	if (ioctl(fd, BLOOM_IOC_STAGES, &s) || !s.out_count ||
	    s.out_count > EXPIRE_GENS)
		return -1;
	return now_sec() * 1000 - st[s.out_count - 1].age_ms;
}

void *expire_thread(void *arg)
{
	struct bloom_create c = bt_create_req("soak-expiring",
					      BLOOM_TYPE_BLOCKED, 100000,
					      10000000,
					      BLOOM_CREATE_F_BIND |
					      BLOOM_CREATE_F_TIMEOUT);
	/* batches added: first key and the time before the ADD started */
	struct { __u64 first; double t; } ring[EXPIRE_RING];
	__u64 next = 3ULL << 40;
	unsigned int n = 0, i;
	long long hits;
	double now, born, last_born = -1;
	int fd = bt_open();

	(void)arg;
	c.timeout_ms = EXPIRE_MS;
	c.generations = EXPIRE_GENS;
	if (fd < 0 || ioctl(fd, BLOOM_IOC_CREATE, &c)) {
		report_error("expiring: create: %s", strerror(errno));
		return NULL;
	}
	while (!atomic_load(&stop)) {
		ring[n % EXPIRE_RING].first = next;
		ring[n % EXPIRE_RING].t = now_sec();
		if (keys16(fd, BLOOM_IOC_ADD, next, BATCH) < 0) {
			report_error("expiring: ADD: %s", strerror(errno));
			break;
		}
		n++;
		next += BATCH;
		hits = keys16(fd, BLOOM_IOC_QUERY, next - BATCH, BATCH);
		/*
		 * Only while the query ended within the timeout: a guest
		 * starved by a loaded host can take longer between the two
		 * calls, and then the keys have expired as they should.
		 */
		now = now_sec() - ring[(n - 1) % EXPIRE_RING].t;
		if (now >= EXPIRE_MS / 1000.0) {
			atomic_fetch_add(&expire_late, 1);
		} else if (hits != BATCH) {
			atomic_fetch_add(&false_negatives, 1);
			report_error("expiring: %lld of its last %d keys present %.0f ms after their ADD began",
				     hits, BATCH, now * 1000);
		}
		/* the oldest batch in the ring between T/4 and T/2 old */
		now = now_sec();
		for (i = n > EXPIRE_RING ? n - EXPIRE_RING : 0; i + 1 < n; i++) {
			double age = now - ring[i % EXPIRE_RING].t;

			if (age > EXPIRE_MS / 2000.0 || age < EXPIRE_MS / 4000.0)
				continue;
			hits = keys16(fd, BLOOM_IOC_QUERY,
				      ring[i % EXPIRE_RING].first, BATCH);
			/* the query must have ended within the timeout */
			if (now_sec() - ring[i % EXPIRE_RING].t >=
			    EXPIRE_MS / 1000.0) {
				atomic_fetch_add(&expire_late, 1);
			} else if (hits != BATCH) {
				atomic_fetch_add(&false_negatives, 1);
				report_error("expiring: %lld of %d keys present %.0f ms after their add",
					     hits, BATCH, age * 1000);
			}
			break;
		}
		/* a new newest generation: rotated (age_ms is whole ms) */
		born = newest_born_ms(fd);
		if (born < 0) {
			report_error("expiring: STAGES: %s", strerror(errno));
			break;
		}
		if (last_born >= 0 && born > last_born + EXPIRE_PERIOD_MS / 2)
			atomic_fetch_add(&expire_rotations, 1);
		last_born = born;
		atomic_fetch_add(&expire_progress, 1);
		/* a pace that spans many rotations without filling it */
		usleep(5000);
	}
	bt_destroy(fd, "soak-expiring");
	close(fd);
	return NULL;
}
