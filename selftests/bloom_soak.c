// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_soak: everything at once for a while, checking the promise all
 * along. Threads, each with its own descriptors:
 *   - a writer per type (standard, blocked, counting, d-left, and a
 *     scalable standard filter from 100 keys, which grows stage after
 *     stage): adds batches of new keys and, for counting and d-left,
 *     deletes the oldest ones, and queries what it holds;
 *   - readers that query the keys each writer reports added (every key
 *     whose ADD returned and that was not deleted must test present);
 *   - a replacer: two filters with the same keys swapped and restored
 *     over (BLOOM_RESTORE_F_REPLACE) while readers query those keys
 *     through descriptors bound to them;
 *   - a namespace churner: a network namespace with filters in it, made
 *     and dropped again and again (the filters go with it).
 * A watchdog sees that every thread makes progress. At the end every
 * filter is destroyed and memory_used and live_allocations must come back
 * to where they were. The kernel's own checkers (KASAN, lockdep, kmemleak,
 * the hung task detector) report in the kernel log, which run.sh scans.
 *
 * Usage: bloom_soak [SECONDS]  (default: $BLOOM_SOAK_SECONDS, else 5)
 * make soak runs it in the VM for $SOAK_SECONDS (default 60).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "kselftest.h"
#include "bloom_test.h"

#define BATCH		256
#define NREADERS	2
#define NTYPES		5	/* standard, blocked, counting, dleft, scalable */
#define SCALABLE_MAX	200000	/* keys before the scalable filter starts over */
#define STALL_S		60	/* a thread without progress this long: hung */

struct writer {
	const char *name;
	__u32 type;
	bool scalable;
	bool deletes;
	int fd;
	__u64 base;			/* key numbers of this writer */
	_Atomic __u64 lo, hi;		/* keys [lo, hi) are in the filter */
	_Atomic unsigned long progress;
	char error[200];
};

static struct writer writers[NTYPES] = {
	{ .name = "soak-standard", .type = BLOOM_TYPE_STANDARD },
	{ .name = "soak-blocked", .type = BLOOM_TYPE_BLOCKED },
	{ .name = "soak-counting", .type = BLOOM_TYPE_COUNTING, .deletes = true },
	{ .name = "soak-dleft", .type = BLOOM_TYPE_DLEFT, .deletes = true },
	{ .name = "soak-scalable", .type = BLOOM_TYPE_STANDARD, .scalable = true },
};

static atomic_bool stop;
static _Atomic unsigned long reader_progress[NREADERS], replacer_progress,
	netns_progress;
static _Atomic unsigned long false_negatives, errors;
static char first_error[256];
static pthread_mutex_t error_lock = PTHREAD_MUTEX_INITIALIZER;

static void report_error(const char *fmt, ...)
{
	va_list ap;

	atomic_fetch_add(&errors, 1);
	pthread_mutex_lock(&error_lock);
	if (!first_error[0]) {
		va_start(ap, fmt);
		vsnprintf(first_error, sizeof(first_error), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&error_lock);
}

/* One batch of @n keys from @first through @cmd; out_hits, or -1. */
static long long keys16(int fd, unsigned long cmd, __u64 first, __u32 n)
{
	__u8 keys[BATCH * 16], res[BATCH / 8];

	return run_keys16(fd, cmd, keys, res, BATCH, first, n, NULL);
}

static int writer_create(struct writer *w)
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

static void *writer_thread(void *arg)
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

/*
 * Readers bind their own descriptors and query a window of each writer's
 * live keys. A writer may delete the window's start meanwhile (counting,
 * d-left) or start over (scalable): a key counts as missing only if it
 * is still in [lo, hi) after the query returned.
 */
static void *reader_thread(void *arg)
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

/* keys of the swapped pair: both filters hold them, always */
#define PAIR_KEYS	4096
#define PAIR_BASE	(1ULL << 40)

static __u8 *pair_snapshot(int fd, const char *name, __u64 *len)
{
	struct bloom_save s;
	__u8 *buf;

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	set_name(s.name, name);
	if (ioctl(fd, BLOOM_IOC_SAVE, &s))
		return NULL;
	buf = malloc(s.out_len);
	if (!buf)
		return NULL;
	s.buf = u64_ptr(buf);
	s.buf_len = s.out_len;
	if (ioctl(fd, BLOOM_IOC_SAVE, &s)) {
		free(buf);
		return NULL;
	}
	*len = s.out_len;
	return buf;
}

static void *replacer_thread(void *arg)
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
	snap = pair_snapshot(fd, names[0], &len);
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

/* A namespace with filters, made and dropped, over and over. */
static void *netns_thread(void *arg)
{
	int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	char name[BLOOM_NAME_LEN];
	int fd, i;

	(void)arg;
	while (!atomic_load(&stop) && self >= 0) {
		if (unshare(CLONE_NEWNET)) {
			report_error("unshare: %s", strerror(errno));
			break;
		}
		fd = bt_open();
		for (i = 0; i < 4 && fd >= 0; i++) {
			snprintf(name, sizeof(name), "ns-%d", i);
			if (bt_create(fd, name, 1 + i % 4, 10000, 10000000,
				      0)) {
				report_error("netns: create: %s",
					     strerror(errno));
				break;
			}
		}
		if (fd >= 0 && !bt_bind(fd, "ns-0") &&
		    keys16(fd, BLOOM_IOC_ADD, 0, BATCH) < 0)
			report_error("netns: add: %s", strerror(errno));
		/* back home; the namespace goes with the last reference */
		if (setns(self, CLONE_NEWNET)) {
			report_error("setns: %s", strerror(errno));
			break;
		}
		close(fd);
		atomic_fetch_add(&netns_progress, 1);
	}
	close(self);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *env = getenv("BLOOM_SOAK_SECONDS");
	unsigned int seconds = argc > 1 ? atoi(argv[1]) : env ? atoi(env) : 5;
	unsigned long last[NTYPES + NREADERS + 2], now_p[NTYPES + NREADERS + 2];
	pthread_t wt[NTYPES], rt[NREADERS], rp, nt;
	long long mem0, live0, mem, live;
	unsigned int t, stalled_s[NTYPES + NREADERS + 2] = { 0 };
	bool hung = false;
	int i, k, fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	ksft_set_plan(4);
	fd = bt_open();
	if (fd < 0)
		ksft_exit_fail_msg("open %s: %s\n", BLOOM_DEV, strerror(errno));
	bt_destroy_all();
	mem0 = wait_memory_used(0, BT_FREE_WAIT_MS);
	live0 = wait_live_allocations(1, BT_FREE_WAIT_MS);
	for (i = 0; i < NTYPES; i++) {
		writers[i].fd = -1;
		writers[i].base = (__u64)(i + 1) << 32;
		if (writer_create(&writers[i]))
			ksft_exit_fail_msg("create %s: %s\n", writers[i].name,
					   strerror(errno));
	}
	for (i = 0; i < NTYPES; i++)
		pthread_create(&wt[i], NULL, writer_thread, &writers[i]);
	for (i = 0; i < NREADERS; i++)
		pthread_create(&rt[i], NULL, reader_thread, (void *)(long)i);
	pthread_create(&rp, NULL, replacer_thread, NULL);
	pthread_create(&nt, NULL, netns_thread, NULL);

	memset(last, 0, sizeof(last));
	for (t = 0; t < seconds && !atomic_load(&errors); t++) {
		sleep(1);
		for (k = 0; k < NTYPES; k++)
			now_p[k] = atomic_load(&writers[k].progress);
		for (i = 0; i < NREADERS; i++)
			now_p[k++] = atomic_load(&reader_progress[i]);
		now_p[k++] = atomic_load(&replacer_progress);
		now_p[k++] = atomic_load(&netns_progress);
		for (i = 0; i < k; i++) {
			stalled_s[i] = now_p[i] == last[i] ? stalled_s[i] + 1 : 0;
			if (stalled_s[i] >= STALL_S && !hung) {
				hung = true;
				report_error("thread %d made no progress for %d s",
					     i, STALL_S);
			}
			last[i] = now_p[i];
		}
	}
	atomic_store(&stop, true);
	for (i = 0; i < NTYPES; i++)
		pthread_join(wt[i], NULL);
	for (i = 0; i < NREADERS; i++)
		pthread_join(rt[i], NULL);
	pthread_join(rp, NULL);
	pthread_join(nt, NULL);

	ksft_print_msg("%u s: adds+queries per writer:", t);
	for (i = 0; i < NTYPES; i++)
		printf(" %s %lu", writers[i].name,
		       atomic_load(&writers[i].progress));
	printf("; swaps+restores %lu, namespaces %lu\n",
	       atomic_load(&replacer_progress), atomic_load(&netns_progress));
	ksft_test_result(!atomic_load(&false_negatives),
			 "no key known present ever tested absent (%lu misses)\n",
			 atomic_load(&false_negatives));
	ksft_test_result(!atomic_load(&errors) || atomic_load(&false_negatives),
			 "every call worked, every thread progressed%s%s\n",
			 first_error[0] ? ": " : "", first_error);

	for (i = 0; i < NTYPES; i++) {
		bt_destroy(writers[i].fd, writers[i].name);
		close(writers[i].fd);
	}
	bt_destroy_all();
	mem = wait_memory_used(mem0, 3 * BT_FREE_WAIT_MS);
	ksft_test_result(mem == mem0, "memory_used back to %lld (%lld)\n",
			 mem0, mem);
	live = wait_live_allocations(live0, 3 * BT_FREE_WAIT_MS);
	ksft_test_result(live == live0,
			 "live_allocations back to %lld (%lld)\n", live0, live);
	close(fd);
	ksft_finished();
}
