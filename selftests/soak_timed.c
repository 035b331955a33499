// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_soak's timed writer (bloom_soak.c): keys with their own timeouts,
 * added, deleted and queried, in a timed filter that grows (created
 * scalable with a small capacity and growth 2): it takes stages as keys
 * come faster than they expire, and the sweep frees the stages whose keys
 * all expired, while the queries go on.
 */
#define _GNU_SOURCE
#include "bloom_soak.h"

#define TIMED_RING	16
#define TIMED_DELETE_EVERY	3	/* every third batch is deleted ... */
#define TIMED_DELETE_AFTER	4	/* ... this many batches after its add */

_Atomic unsigned long timed_progress, timed_deleted;

/* key @i's timeout in the timed writer's filter: 1 to 4 s */
static __u32 timed_timeout(__u64 i)
{
	return 1 + i % 4;
}

/* ADD (with a timeout per key), QUERY or DELETE of the keys [first, +BATCH) */
static int timed_batch(int fd, unsigned long cmd, __u64 first, __u8 *res,
		       struct bloom_batch *b)
{
	__u8 keys[BATCH * 16];
	__u32 timeouts[BATCH], i;
	int ret;

	for (i = 0; i < BATCH; i++) {
		make_key16(first + i, keys + 16 * i);
		timeouts[i] = timed_timeout(first + i);
	}
	if (cmd == BLOOM_IOC_ADD)
		ret = bt_timed_add(fd, keys, BATCH, 16, timeouts, 0, res, b);
	else
		ret = bt_batch(fd, cmd, keys, sizeof(keys), BATCH, 16, NULL,
			       res, b);
	return ret || b->out_done != BATCH ? -1 : 0;
}

/*
 * The keys of the batch from @first added at @t (before its ADD) whose
 * timeout had not passed when the query returned, and that tested absent.
 */
static int timed_missing(int fd, __u64 first, double t)
{
	__u8 res[BATCH / 8];
	struct bloom_batch b;
	double end;
	int i, missing = 0;

	if (timed_batch(fd, BLOOM_IOC_QUERY, first, res, &b))
		return -1;
	end = now_sec();
	for (i = 0; i < BATCH; i++)
		if (end < t + timed_timeout(first + i) && !bit_at(res, i))
			missing++;
	return missing;
}

void *timed_thread(void *arg)
{
	struct bloom_create c = bt_create_req("soak-timed", BLOOM_TYPE_TIMED,
					      2000, 1000,
					      BLOOM_CREATE_F_BIND |
					      BLOOM_CREATE_F_SCALABLE);
	struct bloom_info info;
	struct { __u64 first; double t; bool deleted; } ring[TIMED_RING];
	__u64 next = 4ULL << 40;
	unsigned int n = 0, i;
	__u8 res[BATCH / 8];
	struct bloom_batch b;
	int fd = bt_open(), missing;

	(void)arg;
	/*
	 * At 1e-6 the tag makes a cell shared by two keys (a delete of one
	 * would take the other) 2^-28 times rarer than a false positive.
	 */
	c.key_timeout_max_s = 60;
	c.growth = 2;
	if (fd < 0 || ioctl(fd, BLOOM_IOC_CREATE, &c)) {
		report_error("timed: create: %s", strerror(errno));
		return NULL;
	}
	while (!atomic_load(&stop)) {
		ring[n % TIMED_RING].first = next;
		ring[n % TIMED_RING].t = now_sec();
		ring[n % TIMED_RING].deleted = false;
		if (timed_batch(fd, BLOOM_IOC_ADD, next, res, &b)) {
			report_error("timed: ADD: %s", strerror(errno));
			break;
		}
		n++;
		next += BATCH;
		if (n > TIMED_DELETE_AFTER &&
		    (n - TIMED_DELETE_AFTER) % TIMED_DELETE_EVERY == 0) {
			i = (n - 1 - TIMED_DELETE_AFTER) % TIMED_RING;
			ring[i].deleted = true;
			if (timed_batch(fd, BLOOM_IOC_DELETE, ring[i].first,
					res, &b)) {
				report_error("timed: DELETE: %s", strerror(errno));
				break;
			}
			atomic_fetch_add(&timed_deleted, b.out_hits);
		}
		/* the newest batch, and every batch of the ring not deleted */
		for (i = n > TIMED_RING ? n - TIMED_RING : 0; i < n; i++) {
			if (ring[i % TIMED_RING].deleted)
				continue;
			missing = timed_missing(fd, ring[i % TIMED_RING].first,
						ring[i % TIMED_RING].t);
			if (missing < 0) {
				report_error("timed: QUERY: %s", strerror(errno));
				goto out;
			}
			if (missing) {
				atomic_fetch_add(&false_negatives, 1);
				report_error("timed: %d keys absent before their timeout, %.0f ms after their add",
					     missing,
					     (now_sec() - ring[i % TIMED_RING].t) * 1000);
			}
		}
		atomic_fetch_add(&timed_progress, 1);
		usleep(5000);
	}
out:
	if (!bt_info(fd, "soak-timed", &info))
		printf("# timed: the growing filter has %u stages at the end, %llu bytes; %llu expired keys emptied\n",
		       info.stages, (unsigned long long)info.memory_bytes,
		       (unsigned long long)info.expired);
	bt_destroy(fd, "soak-timed");
	close(fd);
	return NULL;
}
