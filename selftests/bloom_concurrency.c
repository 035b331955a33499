// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_concurrency: adds and queries from several threads at once must not
 * lose a key (adds use atomic bit sets, queries take no lock), filters
 * created and destroyed beside them must not disturb them, and destroying a
 * filter under its users must turn every later operation into ESTALE, never
 * into a crash or another error, and give its memory back while they still
 * hold it. Everything is bounded by a wall-clock cap.
 *
 * What the tests assert is what they can guarantee on any scheduler (two
 * vCPUs under TCG, a loaded host): every thread starts at one barrier, and
 * every thread does a minimum amount of work of its own, whatever the others
 * do (a reader keeps querying keys known added until it did MIN_READ_BATCHES
 * batches, even after the writers finished). How much of that work overlapped
 * is reported, never asserted.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>

#include "bloom_test.h"

#define WRITERS		4
#define READERS		2
#define PER_WRITER	20000U	/* keys each writer adds */
#define WBATCH		500U	/* keys per ADD: many interleavings */
#define RBATCH		256U
#define CAP_SECONDS	30.0	/* wall-clock cap of one test */
#define MIN_READ_BATCHES 50U	/* QUERY calls each reader makes at least */
#define MIN_CHURN	10UL	/* create/destroy rounds at least */

FIXTURE(conc) {
	int fd;
};

FIXTURE_SETUP(conc)
{
	self->fd = bt_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(conc)
{
	close(self->fd);
	bt_destroy_all();
}

struct shared {
	int shared_fd;			/* bound to "conc" */
	double deadline;
	pthread_barrier_t start;	/* every worker, once set up */
	atomic_uint progress[WRITERS];	/* keys of writer w known added */
	atomic_int writers_left;
	atomic_ulong false_negatives;
	atomic_ulong queried;
	atomic_ulong queried_during_adds;	/* reported, not asserted */
	atomic_ulong errors;		/* unexpected ioctl failures */
	atomic_ulong churn_rounds;
	int last_errno;
};

struct worker {
	struct shared *sh;
	int id;
};

static void note_error(struct shared *sh)
{
	sh->last_errno = errno;
	atomic_fetch_add(&sh->errors, 1);
}

/* Writer w adds keys [w * PER_WRITER, (w + 1) * PER_WRITER). */
static void *writer(void *arg)
{
	struct worker *wk = arg;
	struct shared *sh = wk->sh;
	__u8 *keys = malloc(WBATCH * 16);
	__u64 base = (__u64)wk->id * PER_WRITER;
	__u32 done, i;
	int fd = sh->shared_fd;

	/* Half the writers share one descriptor, half bind their own. */
	if (wk->id >= WRITERS / 2) {
		fd = bt_open();
		if (fd < 0 || bt_bind(fd, "conc"))
			note_error(sh);
	}
	pthread_barrier_wait(&sh->start);
	for (done = 0; keys && done < PER_WRITER && now_sec() < sh->deadline;
	     done += WBATCH) {
		for (i = 0; i < WBATCH; i++)
			make_key16(base + done + i, keys + 16 * i);
		if (bt_batch(fd, BLOOM_IOC_ADD, keys, WBATCH * 16, WBATCH,
			     16, NULL, NULL, NULL)) {
			note_error(sh);
			break;
		}
		/* Published only after ADD returned: readers may rely on it. */
		atomic_store_explicit(&sh->progress[wk->id], done + WBATCH,
				      memory_order_release);
	}
	if (fd != sh->shared_fd)
		close(fd);
	free(keys);
	atomic_fetch_sub(&sh->writers_left, 1);
	return NULL;
}

/* Queries random keys that are known added: every one must be present. */
static void *reader(void *arg)
{
	struct worker *wk = arg;
	struct shared *sh = wk->sh;
	__u8 keys[RBATCH * 16], res[RBATCH / 8];
	__u64 rng = 0x1234567 + wk->id;
	int fd = sh->shared_fd;
	__u32 w = 0, i, batches = 0;

	if (wk->id) {
		fd = bt_open();
		if (fd < 0 || bt_bind(fd, "conc"))
			note_error(sh);
	}
	pthread_barrier_wait(&sh->start);
	while ((atomic_load(&sh->writers_left) > 0 ||
		batches < MIN_READ_BATCHES) && now_sec() < sh->deadline) {
		__u32 avail = atomic_load_explicit(&sh->progress[w],
						   memory_order_acquire);
		int during = atomic_load(&sh->writers_left) > 0;
		struct bloom_batch b;

		if (avail) {
			for (i = 0; i < RBATCH; i++) {
				rng = mix64(rng);
				make_key16((__u64)w * PER_WRITER + rng % avail,
					   keys + 16 * i);
			}
			if (bt_batch(fd, BLOOM_IOC_QUERY, keys, sizeof(keys),
				     RBATCH, 16, NULL, res, &b)) {
				note_error(sh);
				break;
			}
			atomic_fetch_add(&sh->false_negatives,
					 RBATCH - popcount_bm(res, RBATCH));
			atomic_fetch_add(&sh->queried, RBATCH);
			if (during)
				atomic_fetch_add(&sh->queried_during_adds,
						 RBATCH);
			batches++;
		}
		w = (w + 1) % WRITERS;
	}
	if (fd != sh->shared_fd)
		close(fd);
	return NULL;
}

/* Creates, uses and destroys other filters while the writers run. */
static void *churn(void *arg)
{
	struct worker *wk = arg;
	struct shared *sh = wk->sh;
	__u8 keys[64 * 16], res[8];
	unsigned long round = 0;
	int ctl = bt_open();
	__u32 i;

	if (ctl < 0)
		note_error(sh);
	for (i = 0; i < 64; i++)
		make_key16(900000000 + i, keys + 16 * i);
	pthread_barrier_wait(&sh->start);
	while (ctl >= 0 &&
	       (atomic_load(&sh->writers_left) > 0 || round < MIN_CHURN) &&
	       now_sec() < sh->deadline) {
		char name[32];
		struct bloom_batch b;
		int fd = bt_open();

		snprintf(name, sizeof(name), "churn_%lu", round % 4);
		if (fd < 0 ||
		    bt_create(fd, name, round & 1 ? BLOOM_TYPE_BLOCKED :
			      BLOOM_TYPE_STANDARD, 1000 + round, 10000000,
			      BLOOM_CREATE_F_BIND) ||
		    bt_batch(fd, BLOOM_IOC_ADD, keys, sizeof(keys), 64, 16,
			     NULL, NULL, NULL) ||
		    bt_batch(fd, BLOOM_IOC_QUERY, keys, sizeof(keys), 64, 16,
			     NULL, res, &b) || b.out_hits != 64 ||
		    bt_destroy(ctl, name)) {
			note_error(sh);
			if (fd >= 0)
				close(fd);
			break;
		}
		/* The destroyed filter is stale for its bound descriptor. */
		if (bt_batch(fd, BLOOM_IOC_QUERY, keys, 16, 1, 16, NULL,
			     res, NULL) != -1 || errno != ESTALE)
			note_error(sh);
		close(fd);
		round++;
	}
	if (ctl >= 0)
		close(ctl);
	atomic_store(&sh->churn_rounds, round);
	return NULL;
}

TEST_F_TIMEOUT(conc, adds_queries_and_churn, 60)
{
	pthread_t th[WRITERS + READERS + 1];
	struct worker wk[WRITERS + READERS + 1];
	struct shared *sh = calloc(1, sizeof(*sh));
	const __u32 total = WRITERS * PER_WRITER;
	static __u8 keys[WBATCH * 16];
	struct bloom_info info;
	__u32 fn = 0, w, i, n = 0;
	struct bloom_list l = { .size = sizeof(l) };
	double t0 = now_sec();

	ASSERT_NE(NULL, sh);
	ASSERT_OK(bt_create(self->fd, "conc", BLOOM_TYPE_STANDARD,
			    2 * total, 10000000, BLOOM_CREATE_F_BIND));
	sh->shared_fd = self->fd;
	sh->deadline = t0 + CAP_SECONDS;
	atomic_store(&sh->writers_left, WRITERS);
	ASSERT_EQ(0, pthread_barrier_init(&sh->start, NULL,
					  WRITERS + READERS + 1));

	for (i = 0; i < WRITERS; i++) {
		wk[n] = (struct worker){ sh, i };
		ASSERT_EQ(0, pthread_create(&th[n], NULL, writer, &wk[n]));
		n++;
	}
	for (i = 0; i < READERS; i++) {
		wk[n] = (struct worker){ sh, i };
		ASSERT_EQ(0, pthread_create(&th[n], NULL, reader, &wk[n]));
		n++;
	}
	wk[n] = (struct worker){ sh, 0 };
	ASSERT_EQ(0, pthread_create(&th[n], NULL, churn, &wk[n]));
	n++;
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&sh->start);

	ksft_print_msg("concurrency: %u keys added by %d writers, %lu queried by %d readers (%lu while adds ran), %lu create/destroy rounds in %.2fs\n",
		       total, WRITERS, atomic_load(&sh->queried), READERS,
		       atomic_load(&sh->queried_during_adds),
		       atomic_load(&sh->churn_rounds), now_sec() - t0);
	fflush(stdout);	/* the harness _exit()s: no flush */
	EXPECT_GT(sh->deadline, now_sec()) TH_LOG("hit the %.0fs cap",
						  CAP_SECONDS);
	EXPECT_EQ(0, atomic_load(&sh->errors))
		TH_LOG("last errno: %s", strerror(sh->last_errno));
	EXPECT_EQ(0, atomic_load(&sh->false_negatives));
	/* Each reader's own minimum, not an overlap nobody can promise. */
	EXPECT_LE((unsigned long)READERS * MIN_READ_BATCHES * RBATCH,
		  atomic_load(&sh->queried));
	EXPECT_LE(MIN_CHURN, atomic_load(&sh->churn_rounds));

	/* Afterwards: all keys present, counters consistent. */
	for (w = 0; w < total; w += WBATCH) {
		struct bloom_batch b;

		for (i = 0; i < WBATCH; i++)
			make_key16(w + i, keys + 16 * i);
		ASSERT_OK(bt_batch(self->fd, BLOOM_IOC_QUERY, keys,
				   sizeof(keys), WBATCH, 16, NULL, NULL, &b));
		fn += WBATCH - b.out_hits;
	}
	EXPECT_EQ(0, fn) TH_LOG("%u keys lost", fn);
	ASSERT_OK(bt_info(self->fd, NULL, &info));
	EXPECT_EQ(total, info.adds);
	EXPECT_GE(total, info.count);
	/* Only keys whose bits were all set already are not counted: ~0.1%. */
	EXPECT_LE(total - total / 100, info.count);
	EXPECT_EQ((long long)info.adds, filter_attr("conc", "adds"));
	/* The churned filters are all gone. */
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_LIST, &l));
	EXPECT_EQ(1, l.out_count);
	free(sh);
}

struct victim {
	int fd;
	__u32 nkeys;			/* keys per call */
	atomic_int ok_ops;		/* successful ops before ESTALE */
	atomic_int saw_stale;
	int other_errno;		/* first errno that was not ESTALE */
	int stale_then_ok;		/* an op succeeded after ESTALE */
	double deadline;
};

static void *victim_user(void *arg)
{
	struct victim *v = arg;
	__u8 *keys = malloc(v->nkeys * 16), *res = malloc(v->nkeys / 8);
	__u32 i, after = 0;

	if (!keys || !res) {
		v->other_errno = ENOMEM;
		after = 20;
	}
	for (i = 0; keys && i < v->nkeys; i++)
		make_key16(i, keys + 16 * i);
	while (after < 20 && now_sec() < v->deadline) {
		unsigned long cmd = after & 1 ? BLOOM_IOC_QUERY : BLOOM_IOC_ADD;
		int ret = bt_batch(v->fd, cmd, keys, v->nkeys * 16,
				   v->nkeys, 16, NULL, res, NULL);

		if (!ret) {
			if (after)
				v->stale_then_ok = 1;
			atomic_fetch_add(&v->ok_ops, 1);
			continue;
		}
		if (errno != ESTALE) {
			v->other_errno = errno;
			break;
		}
		atomic_store(&v->saw_stale, 1);
		after++;
	}
	free(keys);
	free(res);
	return NULL;
}

TEST_F_TIMEOUT(conc, destroy_under_users, 60)
{
	struct victim v[3];
	pthread_t th[3];
	double deadline = now_sec() + CAP_SECONDS;
	long long used_before = read_u64_file(BLOOM_SYSFS "/memory_used");
	int i, ready;

	ASSERT_OK(bt_create(self->fd, "victim", BLOOM_TYPE_BLOCKED, 100000,
			    10000000, 0));
	for (i = 0; i < 3; i++) {
		memset(&v[i], 0, sizeof(v[i]));
		v[i].deadline = deadline;
		/*
		 * The module applies a batch 1024 keys per RCU read section:
		 * user 2's batches span four, so a destroy can fall between
		 * two sections of one call.
		 */
		v[i].nkeys = i == 2 ? 4096 : 64;
		v[i].fd = bt_open();
		ASSERT_LE(0, v[i].fd);
		ASSERT_OK(bt_bind(v[i].fd, "victim"));
		ASSERT_EQ(0, pthread_create(&th[i], NULL, victim_user, &v[i]));
	}
	/* Destroy only once every user is inside its loop. */
	do {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
		for (ready = 0, i = 0; i < 3; i++)
			ready += atomic_load(&v[i].ok_ops) > 10;
	} while (ready < 3 && now_sec() < deadline);
	ASSERT_OK(bt_destroy(self->fd, "victim"));
	/* The users still hold their descriptors: the memory is back. */
	EXPECT_EQ(used_before, wait_memory_used(used_before, BT_FREE_WAIT_MS));
	for (i = 0; i < 3; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, v[i].other_errno)
			TH_LOG("user %d: %s", i, strerror(v[i].other_errno));
		EXPECT_TRUE(atomic_load(&v[i].saw_stale));
		EXPECT_EQ(0, v[i].stale_then_ok);
		EXPECT_LT(10, atomic_load(&v[i].ok_ops));
		close(v[i].fd);
	}
	EXPECT_GT(deadline, now_sec());
}

BT_LEAK_CHECK_TEST()

struct counted {
	int fd;
	atomic_int stop;
	atomic_ulong calls;
};

/* Queries one listed and one unlisted key per call, on CPU 1. */
static void *count_querier(void *arg)
{
	struct counted *c = arg;
	__u8 keys[2 * 16];
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(1, &cpus);
	(void)pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
	make_key16(1, keys);
	make_key16(2, keys + 16);
	while (!atomic_load(&c->stop)) {
		if (bt_batch(c->fd, BLOOM_IOC_QUERY, keys, sizeof(keys), 2, 16,
			     NULL, NULL, NULL))
			break;
		atomic_fetch_add(&c->calls, 1);
	}
	return NULL;
}

/*
 * Counts read while queries go on never show more hits than queries (the
 * module sums each total from the hits it reports with it, store.h). A
 * reader that summed a CPU's total and then its hits could see a hit
 * whose query it had not counted. The window is a few instructions wide,
 * so a regression is caught by chance (the read count below is what makes
 * that chance worth having); a pass is never false.
 */
TEST_F_TIMEOUT(conc, counts_while_queried, 60)
{
	struct counted c = { .fd = self->fd };
	unsigned long reads = 0, bad = 0;
	struct bloom_info info;
	cpu_set_t cpus;
	__u8 key[16];
	pthread_t th;
	double t0;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU: the reader never runs beside a query");
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpus), &cpus));

	ASSERT_OK(bt_create(self->fd, "counted", BLOOM_TYPE_STANDARD, 1000,
			    10000000, BLOOM_CREATE_F_BIND));
	make_key16(1, key);
	ASSERT_LE(0, bt_one(self->fd, BLOOM_IOC_ADD, key, sizeof(key)));
	ASSERT_EQ(0, pthread_create(&th, NULL, count_querier, &c));
	t0 = now_sec();
	while (reads < 200000 && now_sec() - t0 < 10) {
		ASSERT_OK(bt_info(self->fd, NULL, &info));
		bad += info.hits > info.queries;
		reads++;
	}
	atomic_store(&c.stop, 1);
	pthread_join(th, NULL);
	ksft_print_msg("counts: %lu reads of info beside %lu query calls\n",
		       reads, atomic_load(&c.calls));
	fflush(stdout);	/* the harness _exit()s: no flush */
	EXPECT_EQ(0, bad) TH_LOG("%lu reads showed more hits than queries",
				 bad);
	EXPECT_LT(0, atomic_load(&c.calls));
	ASSERT_OK(bt_info(self->fd, NULL, &info));
	EXPECT_EQ(2 * atomic_load(&c.calls), info.queries);
	EXPECT_EQ(atomic_load(&c.calls), info.hits);
}

TEST_HARNESS_MAIN
