// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_expire: filters whose keys expire (BLOOM_CREATE_F_TIMEOUT), with
 * timeouts of seconds. The create errors (nothing made); INFO, STAGES and
 * sysfs of the generations; every key present at every check until its
 * timeout and absent (beyond the rate) after the bound; a refreshed key
 * living on; threads adding while the generations rotate many times lose
 * nothing; the rate of absent keys within P while capacity keys per
 * timeout come in for several timeouts; flush, merge, swap and --like;
 * filters with running clocks destroyed and their namespace torn down
 * leave nothing behind. And the sweep of a timed filter of about 1 GiB.
 *
 * Times are CLOCK_BOOTTIME, the module's. The VM is emulated (TCG) and
 * shares two CPUs: every bound below has slack for a late timer, never
 * for an early one (a key must never be absent before its timeout).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <sys/wait.h>

#include "bloom_test.h"

#define KLEN		16U
#define MS		1000000ULL
/* what a late timer, a grace period and a busy emulated VM may add */
#define SLACK_NS	(1500 * MS)

static __u64 boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static struct bloom_create expire_req(const char *name, __u32 type,
				      __u64 capacity, __u32 ppb,
				      __u64 timeout_ms, __u32 g)
{
	struct bloom_create c = bt_create_req(name, type, capacity, ppb,
					      BLOOM_CREATE_F_TIMEOUT);

	c.timeout_ms = timeout_ms;
	c.generations = g;
	return c;
}

static int expire_create(int fd, const char *name, __u32 type,
			 __u64 capacity, __u32 ppb, __u64 timeout_ms, __u32 g)
{
	struct bloom_create c = expire_req(name, type, capacity, ppb,
					   timeout_ms, g);

	return ioctl(fd, BLOOM_IOC_CREATE, &c);
}

/* The generations of @name, oldest first; their number or -1. */
static int get_gens(int fd, const char *name, struct bloom_stage *st)
{
	struct bloom_stages s;

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	set_name(s.name, name);
	s.capacity = BLOOM_SCALE_STAGES_MAX;
	s.stages = u64_ptr(st);
	return ioctl(fd, BLOOM_IOC_STAGES, &s) ? -1 : (int)s.out_count;
}

/* Keys [first, first + n) through @cmd on the bound @fd: hits, or -1. */
static long long keys_op(int fd, unsigned long cmd, __u64 first, __u32 n,
			 __u32 *missing)
{
	__u8 *keys = malloc((size_t)n * KLEN), *res = malloc(n / 8 + 1);
	long long r = -1;

	if (keys && res)
		r = run_keys16(fd, cmd, keys, res, n, first, n, missing);
	free(keys);
	free(res);
	return r;
}

FIXTURE(expire) {
	int fd;
};

FIXTURE_SETUP(expire)
{
	self->fd = bt_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(expire)
{
	bt_destroy_all();
	close(self->fd);
}

TEST_F(expire, create_errors)
{
	static const struct {
		__u32 type, flags, g, ppb;
		__u64 timeout_ms, bits;
		const char *why;
	} bad[] = {
		{ BLOOM_TYPE_COUNTING, 0, 4, 10000000, 2000, 0, "counting" },
		{ BLOOM_TYPE_DLEFT, 0, 4, 10000000, 2000, 0, "dleft" },
		{ BLOOM_TYPE_STANDARD, BLOOM_CREATE_F_SCALABLE, 4, 10000000, 2000,
		  0, "scalable" },
		{ BLOOM_TYPE_STANDARD, BLOOM_CREATE_F_GEOMETRY, 4, 10000000, 2000,
		  6400, "explicit geometry" },
		{ BLOOM_TYPE_STANDARD, 0, 1, 10000000, 2000, 0, "G = 1" },
		{ BLOOM_TYPE_STANDARD, 0, 17, 10000000, 2000, 0, "G = 17" },
		{ BLOOM_TYPE_STANDARD, 0, 4, 10000000, 999, 0, "timeout 999 ms" },
		{ BLOOM_TYPE_STANDARD, 0, 4, 10000000, 0, 0, "timeout 0" },
		{ BLOOM_TYPE_STANDARD, 0, 4, 10000000, BLOOM_TIMEOUT_MS_MAX + 1,
		  0, "timeout over the most" },
		{ BLOOM_TYPE_BLOCKED, 0, 8, 7, 2000, 0, "rate under G ppb" },
	};
	struct bloom_create c;
	struct bloom_info info;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		c = expire_req("bad", bad[i].type, 1000, bad[i].ppb,
			       bad[i].timeout_ms, bad[i].g);
		c.flags |= bad[i].flags;
		if (bad[i].bits) {
			c.bits = bad[i].bits;
			c.hashes = 3;
		}
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c))
			TH_LOG("%s", bad[i].why);
		EXPECT_ERRNO(ENOENT, bt_info(self->fd, "bad", &info));
	}
	/* a timeout or generations without the flag */
	c = bt_create_req("bad", BLOOM_TYPE_STANDARD, 1000, 10000000, 0);
	c.timeout_ms = 2000;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	c.timeout_ms = 0;
	c.generations = 4;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	EXPECT_ERRNO(ENOENT, bt_info(self->fd, "bad", &info));
	/* the smallest and the largest timeout, the default G */
	EXPECT_OK(expire_create(self->fd, "lo", BLOOM_TYPE_STANDARD, 10,
				10000000, BLOOM_TIMEOUT_MS_MIN, 0));
	EXPECT_OK(expire_create(self->fd, "hi", BLOOM_TYPE_BLOCKED, 10,
				10000000, BLOOM_TIMEOUT_MS_MAX, 16));
	ASSERT_OK(bt_info(self->fd, "lo", &info));
	EXPECT_EQ(BLOOM_GENERATIONS_DEFAULT, info.generations);
	ASSERT_OK(bt_info(self->fd, "hi", &info));
	EXPECT_EQ(16, info.generations);
	EXPECT_EQ(BLOOM_TIMEOUT_MS_MAX, info.timeout_ms);
}

TEST_F(expire, info_stages_sysfs)
{
	struct bloom_stage st[BLOOM_SCALE_STAGES_MAX];
	struct bloom_info info;
	char path[256], buf[64];
	int n, i;

	ASSERT_OK(expire_create(self->fd, "ex", BLOOM_TYPE_BLOCKED, 3000,
				1000000, 3000, 4));
	ASSERT_OK(bt_info(self->fd, "ex", &info));
	EXPECT_EQ(4, info.generations);
	EXPECT_EQ(3000, info.timeout_ms);
	EXPECT_EQ(3000, info.capacity);
	EXPECT_EQ(1000000, info.fpp_ppb);
	EXPECT_GE(1000, info.next_rotation_ms);
	n = get_gens(self->fd, "ex", st);
	ASSERT_EQ(4, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(1000, st[i].capacity);
		EXPECT_EQ(250000, st[i].fpp_ppb);
		EXPECT_EQ(info.bits / 4, st[i].bits);
	}
	/* ages over a few rotations: oldest first, a period apart */
	sleep_ms(2500);
	n = get_gens(self->fd, "ex", st);
	ASSERT_EQ(4, n);
	EXPECT_GT(st[2].age_ms, st[3].age_ms);
	EXPECT_GE(1000 + 1500, st[3].age_ms);
	snprintf(path, sizeof(path), BLOOM_SYSFS "/filters/ex/generations");
	EXPECT_EQ(4, read_u64_file(path));
	snprintf(path, sizeof(path), BLOOM_SYSFS "/filters/ex/timeout");
	ASSERT_OK(read_str_file(path, buf, sizeof(buf)));
	EXPECT_STREQ("3.000", buf);
	snprintf(path, sizeof(path), BLOOM_SYSFS "/filters/ex/next_rotation");
	ASSERT_OK(read_str_file(path, buf, sizeof(buf)));
	EXPECT_GE(1.0, atof(buf));
	/* a plain filter has none of them, and STAGES refuses it */
	ASSERT_OK(bt_create(self->fd, "plain", BLOOM_TYPE_BLOCKED, 1000,
			    10000000, 0));
	snprintf(path, sizeof(path), BLOOM_SYSFS "/filters/plain/timeout");
	EXPECT_EQ(-1, read_u64_file(path));
	EXPECT_EQ(-1, get_gens(self->fd, "plain", st));
	EXPECT_EQ(EOPNOTSUPP, errno);
	ASSERT_OK(bt_info(self->fd, "plain", &info));
	EXPECT_EQ(0, info.generations);
	EXPECT_EQ(0, info.timeout_ms);
}

#define LIFE_KEYS	2000U

/*
 * @nk keys added at once (between @t0 and @t1), checked every 100 ms: all
 * present while now < t0 + T, at most @fp_max present once now >
 * t1 + T (1 + 1/(G-1)) + SLACK. Returns the number of checks.
 */
static int check_life(struct __test_metadata *_metadata, int fd,
		      __u64 first, __u32 nk, __u64 t0, __u64 t1, __u64 T,
		      __u32 g, __u32 fp_max)
{
	__u64 bound = t1 + T + T / (g - 1) + SLACK_NS, before;
	int checks = 0, gone = 0;
	long long hits;

	while (!gone) {
		__u32 missing = 0;

		before = boot_ns();
		hits = keys_op(fd, BLOOM_IOC_QUERY, first, nk, &missing);
		EXPECT_LE(0, hits);
		if (hits < 0)
			break;
		if (boot_ns() < t0 + T)
			EXPECT_EQ(0, missing)
				TH_LOG("%u keys absent %.3f s after their add (timeout %.3f s)",
				       missing, (before - t0) / 1e9, T / 1e9);
		if (before > bound) {
			EXPECT_GE(fp_max, hits)
				TH_LOG("%lld keys present %.3f s after their add",
				       hits, (before - t1) / 1e9);
			gone = 1;
		}
		checks++;
		sleep_ms(100);
	}
	return checks;
}

TEST_F_TIMEOUT(expire, lifetime, 300)
{
	static const struct { __u32 type, g; __u64 t_ms; } v[] = {
		{ BLOOM_TYPE_STANDARD, 3, 2000 },
		{ BLOOM_TYPE_BLOCKED, 5, 3000 },
		{ BLOOM_TYPE_BLOCKED, 2, 2000 },
		{ BLOOM_TYPE_STANDARD, 16, 4000 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		__u64 t0, t1, T = v[i].t_ms * MS;
		int fd = bt_open(), checks;

		ASSERT_LE(0, fd);
		/* every generation takes the burst: capacity (G - 1) x it */
		ASSERT_OK(expire_create(self->fd, "life", v[i].type,
					LIFE_KEYS * (v[i].g - 1), 100000,
					v[i].t_ms, v[i].g));
		ASSERT_OK(bt_bind(fd, "life"));
		/* at a random point of the period */
		sleep_ms(rand() % 700);
		t0 = boot_ns();
		ASSERT_LE(0, keys_op(fd, BLOOM_IOC_ADD, 0, LIFE_KEYS, NULL));
		t1 = boot_ns();
		/* p = 1e-4: a false positive among 2000 is rare, 5 is not */
		checks = check_life(_metadata, fd, 0, LIFE_KEYS, t0, t1, T,
				    v[i].g, 5);
		ksft_print_msg("%s G=%u T=%.1f s: %u keys checked %d times\n",
			       bt_type_str(v[i].type), v[i].g, T / 1e9,
			       LIFE_KEYS, checks);
		fflush(stdout);
		close(fd);
		ASSERT_OK(bt_destroy(self->fd, "life"));
	}
}

TEST_F_TIMEOUT(expire, refresh, 120)
{
	const __u64 T = 2000 * MS;
	__u64 t0 = 0, t1 = 0, start;
	int fd = bt_open(), checks;

	ASSERT_LE(0, fd);
	ASSERT_OK(expire_create(self->fd, "ref", BLOOM_TYPE_BLOCKED, 100,
				100000, 2000, 4));
	ASSERT_OK(bt_bind(fd, "ref"));
	start = boot_ns();
	/* added every 0.7 s for 8 s: present at every check meanwhile */
	while (boot_ns() < start + 8000 * MS) {
		__u32 missing = 0;

		if (boot_ns() >= t0 + 700 * MS) {
			t0 = boot_ns();
			ASSERT_EQ(0, keys_op(fd, BLOOM_IOC_ADD, 7, 1, NULL) < 0);
			t1 = boot_ns();
		}
		ASSERT_LE(0, keys_op(fd, BLOOM_IOC_QUERY, 7, 1, &missing));
		EXPECT_EQ(0, missing) TH_LOG("refreshed key absent");
		sleep_ms(50);
	}
	checks = check_life(_metadata, fd, 7, 1, t0, t1, T, 4, 0);
	ksft_print_msg("refreshed for 8 s, then gone (%d checks after)\n",
		       checks);
	fflush(stdout);
	close(fd);
}

#define THREADS		4
#define BATCH		512U

struct adder {
	pthread_barrier_t *start;
	int fd, err;
	__u64 first, T;
	__u32 batches, missed;
};

/*
 * Adds batch after batch, each of new keys; after each add, queries every
 * batch added less than a timeout ago (by the time before its add and the
 * time before the query): all must be there.
 */
static void *adder(void *arg)
{
	struct adder *a = arg;
	__u64 t_add[4096], end;
	__u32 j, oldest = 0;

	pthread_barrier_wait(a->start);
	end = boot_ns() + 4 * a->T;
	for (j = 0; j < 4096 && boot_ns() < end; j++) {
		__u32 missing = 0;
		__u64 before;

		t_add[j] = boot_ns();
		if (keys_op(a->fd, BLOOM_IOC_ADD, a->first + (__u64)j * BATCH,
			    BATCH, NULL) < 0) {
			a->err = errno;
			break;
		}
		before = boot_ns();
		while (oldest <= j && t_add[oldest] + a->T <= before)
			oldest++;
		/* an add that took a timeout: nothing left to check */
		if (oldest > j)
			continue;
		/* one query batch at most (BLOOM_BATCH_MAX_KEYS) */
		if (j + 1 - oldest > BLOOM_BATCH_MAX_KEYS / BATCH)
			oldest = j + 1 - BLOOM_BATCH_MAX_KEYS / BATCH;
		if (keys_op(a->fd, BLOOM_IOC_QUERY,
			    a->first + (__u64)oldest * BATCH,
			    (j + 1 - oldest) * BATCH, &missing) < 0) {
			a->err = errno;
			break;
		}
		/* a query that took past a timeout proves nothing */
		if (boot_ns() < t_add[oldest] + a->T)
			a->missed += missing;
	}
	a->batches = j;
	return NULL;
}

TEST_F_TIMEOUT(expire, adds_racing_rotations, 300)
{
	/* T = 1 s, G = 16: a rotation every 67 ms, about 60 in the run */
	struct adder a[THREADS];
	pthread_t tid[THREADS];
	pthread_barrier_t start;
	struct bloom_stage st[BLOOM_SCALE_STAGES_MAX];
	__u32 t, missed = 0, batches = 0;

	ASSERT_OK(expire_create(self->fd, "race", BLOOM_TYPE_STANDARD,
				1000000, 10000000, 1000, 16));
	ASSERT_EQ(0, pthread_barrier_init(&start, NULL, THREADS));
	for (t = 0; t < THREADS; t++) {
		a[t] = (struct adder){ .start = &start, .fd = bt_open(),
				       .first = (__u64)t << 40, .T = 1000 * MS };
		ASSERT_LE(0, a[t].fd);
		ASSERT_OK(bt_bind(a[t].fd, "race"));
		ASSERT_EQ(0, pthread_create(&tid[t], NULL, adder, &a[t]));
	}
	for (t = 0; t < THREADS; t++) {
		pthread_join(tid[t], NULL);
		EXPECT_EQ(0, a[t].err) TH_LOG("thread %u: %s", t,
					     strerror(a[t].err));
		missed += a[t].missed;
		batches += a[t].batches;
		close(a[t].fd);
	}
	pthread_barrier_destroy(&start);
	EXPECT_EQ(0, missed);
	EXPECT_LE(THREADS * 4, batches);
	ASSERT_EQ(16, get_gens(self->fd, "race", st));
	ksft_print_msg("%u threads, %u batches of %u keys over 4 s of T = 1 s, G = 16: %u keys absent within their timeout\n",
		       THREADS, batches, BATCH, missed);
	fflush(stdout);
}

/*
 * The most keys a generation of @name holds now, and into @newest_room
 * the newest's room (its share less what it holds); -1 on error.
 */
static long long gens_max_count(int fd, const char *name, __u64 *newest_room)
{
	struct bloom_stage st[BLOOM_SCALE_STAGES_MAX];
	int g, ng = get_gens(fd, name, st);
	long long most = -1;

	for (g = 0; g < ng; g++) {
		if ((long long)st[g].count > most)
			most = st[g].count;
		if (getenv("BLOOM_EXPIRE_VERBOSE"))
			ksft_print_msg("  generation %d: age %u ms, %llu keys\n",
				       g, st[g].age_ms,
				       (unsigned long long)st[g].count);
	}
	if (ng > 0) {
		/* oldest first: the newest is the last */
		g = ng - 1;
		*newest_room = st[g].count < st[g].capacity ?
			       st[g].capacity - st[g].count : 0;
	}
	return most;
}

TEST_F_TIMEOUT(expire, rate_under_steady_load, 300)
{
	/*
	 * N = 20000 per T = 2 s, for 4 timeouts, paced by the clock (a slow
	 * step adds more next time): the rate of 20000 never-added keys,
	 * measured every half timeout after the first timeout. The promise
	 * is for at most N keys per timeout, which is each generation's
	 * share (N / (G - 1)) per period. A rotation that the loaded,
	 * emulated VM runs late would let the newest generation take more
	 * than its share (keys are never lost for it, the rate rises): the
	 * keys past its share wait for the rotation, as a feed that keeps
	 * to the capacity would. Every measurement is then under the
	 * promise's load.
	 */
	const __u64 n = 20000, T = 2000 * MS;
	const __u32 absent = 20000, ppb = 10000000, gens = 5;
	__u64 start, now, k = 0, want, worst = 0, next_measure, room = 0;
	__u64 share = n / (gens - 1), held = 0;
	int fd = bt_open(), measured = 0;
	long long hits, most;

	ASSERT_LE(0, fd);
	ASSERT_OK(expire_create(self->fd, "rate", BLOOM_TYPE_BLOCKED, n, ppb,
				2000, gens));
	ASSERT_OK(bt_bind(fd, "rate"));
	start = boot_ns();
	next_measure = start + T;
	while ((now = boot_ns()) < start + 4 * T) {
		want = (now - start) * n / T;
		ASSERT_LE(0, gens_max_count(self->fd, "rate", &room));
		if (want - k > room) {
			held++;
			want = k + room;
		}
		if (want > k) {
			ASSERT_EQ(0, keys_op(fd, BLOOM_IOC_ADD, k, want - k,
					     NULL) < 0);
			k = want;
		}
		if (now >= next_measure) {
			hits = keys_op(fd, BLOOM_IOC_QUERY, 1ULL << 50, absent,
				       NULL);
			ASSERT_LE(0, hits);
			most = gens_max_count(self->fd, "rate", &room);
			ASSERT_LE(0, most);
			if (getenv("BLOOM_EXPIRE_VERBOSE"))
				ksft_print_msg("t=%.2f s: %lld of %u absent keys present\n",
					       (now - start) / 1e9, hits,
					       absent);
			/* no generation ever holds more than its share */
			EXPECT_GE(share, most);
			if ((__u64)hits > worst)
				worst = hits;
			measured++;
			fflush(stdout);
			next_measure += T / 2;
		}
		sleep_ms(20);
	}
	ksft_print_msg("%llu keys per timeout for 4 timeouts (%llu added; %llu steps held keys back for a late rotation): worst rate %.4f of %d measurements (P %.4f)\n",
		       (unsigned long long)n, (unsigned long long)k,
		       (unsigned long long)held, (double)worst / absent,
		       measured, ppb / 1e9);
	fflush(stdout);
	close(fd);
	EXPECT_LE(1, measured);
	/* 20000 absent keys at p = 0.01: sigma is 0.07 p */
	EXPECT_GE(absent * (ppb / 1e9) * 1.3, worst);
}

TEST_F(expire, flush_merge_swap_like)
{
	struct bloom_pair p;
	struct bloom_create c;
	struct bloom_info info;
	int fd = bt_open(), fd2 = bt_open();
	__u32 missing = 0;

	ASSERT_LE(0, fd);
	ASSERT_LE(0, fd2);
	ASSERT_OK(expire_create(self->fd, "a", BLOOM_TYPE_BLOCKED, 1000,
				100000, 3000, 4));
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.flags = BLOOM_CREATE_F_LIKE;
	set_name(c.name, "b");
	set_name(c.like, "a");
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	ASSERT_OK(bt_info(self->fd, "b", &info));
	EXPECT_EQ(4, info.generations);
	EXPECT_EQ(3000, info.timeout_ms);
	ASSERT_OK(bt_bind(fd, "a"));
	ASSERT_OK(bt_bind(fd2, "b"));
	ASSERT_EQ(0, keys_op(fd2, BLOOM_IOC_ADD, 100, 100, NULL));
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	set_name(p.name, "a");
	set_name(p.other, "b");
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_MERGE, &p));
	EXPECT_EQ(100, keys_op(fd, BLOOM_IOC_QUERY, 100, 100, &missing));
	/* another G, or a plain filter: not the same shape */
	ASSERT_OK(expire_create(self->fd, "c", BLOOM_TYPE_BLOCKED, 1000,
				100000, 3000, 5));
	ASSERT_OK(bt_create(self->fd, "d", BLOOM_TYPE_BLOCKED, 1000, 100000, 0));
	set_name(p.other, "c");
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_MERGE, &p));
	set_name(p.other, "d");
	EXPECT_NE(0, ioctl(self->fd, BLOOM_IOC_MERGE, &p));
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_SWAP, &p));
	/* swap two expiring filters: the keys go with the contents */
	set_name(p.other, "c");
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_SWAP, &p));
	EXPECT_EQ(0, keys_op(fd, BLOOM_IOC_QUERY, 100, 100, NULL));
	ASSERT_OK(bt_info(self->fd, "a", &info));
	EXPECT_EQ(5, info.generations);
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_SWAP, &p));
	/* flush: nothing left, the clock goes on */
	ASSERT_OK(bt_name_ioctl(self->fd, BLOOM_IOC_FLUSH, "a"));
	EXPECT_EQ(0, keys_op(fd, BLOOM_IOC_QUERY, 100, 100, NULL));
	ASSERT_EQ(0, keys_op(fd, BLOOM_IOC_ADD, 300, 10, NULL));
	EXPECT_EQ(10, keys_op(fd, BLOOM_IOC_QUERY, 300, 10, NULL));
	ASSERT_OK(bt_info(self->fd, "a", &info));
	EXPECT_GE(1000, info.next_rotation_ms);
	close(fd);
	close(fd2);
}

/*
 * Keys added at t0 and t1 = t0 + 1 s, saved, the filter destroyed, and
 * restored after a pause of @pause_ms: each key present until its add +
 * T, gone by its add + T (1 + 1/(G-1)) + slack.
 */
static void save_wait_restore(struct __test_metadata *_metadata, int ctl,
			      unsigned int pause_ms)
{
	const __u64 T = 3000 * MS;
	__u64 t0, t1, t2, len;
	struct bloom_info info;
	int fd = bt_open();
	__u8 *snap;

	ASSERT_LE(0, fd);
	ASSERT_OK(expire_create(ctl, "sv", BLOOM_TYPE_BLOCKED, 4000, 100000,
				3000, 4));
	ASSERT_OK(bt_bind(fd, "sv"));
	t0 = boot_ns();
	ASSERT_LE(0, keys_op(fd, BLOOM_IOC_ADD, 0, 500, NULL));
	sleep_ms(1000);
	t1 = boot_ns();
	ASSERT_LE(0, keys_op(fd, BLOOM_IOC_ADD, 1000, 500, NULL));
	t2 = boot_ns();
	snap = bt_save_alloc(ctl, "sv", &len);
	ASSERT_NE(NULL, snap);
	close(fd);
	ASSERT_OK(bt_destroy(ctl, "sv"));
	sleep_ms(pause_ms);
	ASSERT_OK(bt_restore_as(ctl, snap, len, "sv", 0));
	free(snap);
	ASSERT_OK(bt_info(ctl, "sv", &info));
	EXPECT_EQ(4, info.generations);
	EXPECT_EQ(3000, info.timeout_ms);
	fd = bt_open();
	ASSERT_LE(0, fd);
	ASSERT_OK(bt_bind(fd, "sv"));
	check_life(_metadata, fd, 1000, 500, t1, t2, T, 4, 3);
	/* the first keys were gone by then as well */
	EXPECT_GE(3, keys_op(fd, BLOOM_IOC_QUERY, 0, 500, NULL));
	ksft_print_msg("saved, restored %u ms later: lifetimes held (keys added %.1f s before the save)\n",
		       pause_ms, (t2 - t0) / 1e9);
	fflush(stdout);
	close(fd);
	ASSERT_OK(bt_destroy(ctl, "sv"));
}

TEST_F_TIMEOUT(expire, save_wait_restore, 240)
{
	__u64 len;
	__u8 *snap;
	int fd = bt_open();

	save_wait_restore(_metadata, self->fd, 0);
	save_wait_restore(_metadata, self->fd, 1500);
	/* past every bound: nothing left, the clock running */
	ASSERT_OK(expire_create(self->fd, "gone", BLOOM_TYPE_STANDARD, 1000,
				100000, 1000, 3));
	ASSERT_OK(bt_bind(fd, "gone"));
	ASSERT_LE(0, keys_op(fd, BLOOM_IOC_ADD, 0, 100, NULL));
	snap = bt_save_alloc(self->fd, "gone", &len);
	ASSERT_NE(NULL, snap);
	close(fd);
	ASSERT_OK(bt_destroy(self->fd, "gone"));
	sleep_ms(1500 + 1000);
	ASSERT_OK(bt_restore_as(self->fd, snap, len, "gone", 0));
	fd = bt_open();
	ASSERT_OK(bt_bind(fd, "gone"));
	EXPECT_EQ(0, keys_op(fd, BLOOM_IOC_QUERY, 0, 100, NULL));
	/* a replacing restore: only onto an expiring filter */
	ASSERT_OK(bt_create(self->fd, "plain", BLOOM_TYPE_STANDARD, 1000,
			    100000, 0));
	EXPECT_ERRNO(EINVAL, bt_restore_as(self->fd, snap, len, "plain",
					   BLOOM_RESTORE_F_REPLACE));
	EXPECT_OK(bt_restore_as(self->fd, snap, len, "gone",
				BLOOM_RESTORE_F_REPLACE));
	free(snap);
	close(fd);
}

/*
 * Filters whose clocks run fast (a rotation every 67 ms), destroyed, and
 * made in a network namespace that goes away with them: every byte back.
 * There a rotation comes every 250 ms at the most often (a 1 s timeout in
 * 16 generations is refused): they run on CPU nobody is charged for.
 */
TEST_F_TIMEOUT(expire, teardown_with_running_clocks, 120)
{
	struct bloom_create c;
	pid_t pid;
	int i, status;

	for (i = 0; i < 20; i++) {
		char name[BLOOM_NAME_LEN];

		snprintf(name, sizeof(name), "t%d", i);
		ASSERT_OK(expire_create(self->fd, name, i & 1 ?
					BLOOM_TYPE_BLOCKED : BLOOM_TYPE_STANDARD,
					100000, 10000000, 1000, 16));
	}
	sleep_ms(300);
	for (i = 0; i < 20; i += 2) {
		char name[BLOOM_NAME_LEN];

		snprintf(name, sizeof(name), "t%d", i);
		ASSERT_OK(bt_destroy(self->fd, name));
	}
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd;

		if (unshare(CLONE_NEWNET))
			_exit(2);
		fd = bt_open();
		if (fd < 0)
			_exit(3);
		c = expire_req("fast", BLOOM_TYPE_BLOCKED, 100000, 10000000,
			       1000, 16);
		if (!ioctl(fd, BLOOM_IOC_CREATE, &c) || errno != EINVAL)
			_exit(5);
		for (i = 0; i < 10; i++) {
			char name[BLOOM_NAME_LEN];

			snprintf(name, sizeof(name), "n%d", i);
			c = expire_req(name, BLOOM_TYPE_BLOCKED, 100000,
				       10000000, 4000, 16);
			if (ioctl(fd, BLOOM_IOC_CREATE, &c))
				_exit(4);
		}
		sleep_ms(300);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	sleep_ms(300);
	bt_destroy_all();
	EXPECT_EQ(0, wait_memory_used(0, BT_FREE_WAIT_MS));
	EXPECT_EQ(1, live_allocations_baseline(1));
}

/*
 * A filter whose keys have their own timeouts (BLOOM_TYPE_TIMED), of about
 * 1 GiB: the module sweeps the whole table every 8 s, a chunk of buckets
 * at a time under the store's sweep lock, yielding between chunks, so
 * that a big table never holds a CPU (run.sh fails the run on a soft
 * lockup or a hung task in the kernel log). For more than two sweeps,
 * every key without a timeout answers present, and the cells of the keys
 * whose 2 s timeout passed, which no add or delete met again, are emptied
 * (INFO's expired).
 */
#define SWEEP_KEYS	1000U
TEST_F_TIMEOUT(expire, timed_sweep_gib, 300)
{
	/* 190M keys at 1e-4: 5.3 bytes a key, about 0.95 GiB of cells */
	struct bloom_create c = bt_create_req("sweep", BLOOM_TYPE_TIMED,
					      190000000, 100000,
					      BLOOM_CREATE_F_BIND);
	long long saved = read_u64_file(BLOOM_MAX_MEMORY);
	__u8 *keys = malloc(SWEEP_KEYS * KLEN), res[SWEEP_KEYS / 8];
	struct bloom_batch b;
	struct bloom_info info;
	__u64 t0, t, worst = 0;
	__u32 i, missing = 0, rounds = 0;
	int fd = self->fd;

	ASSERT_NE(NULL, keys);
	ASSERT_LE(0, saved);
	ASSERT_EQ(0, write_u64_file(BLOOM_MAX_MEMORY, 2ULL << 30));
	if (ioctl(fd, BLOOM_IOC_CREATE, &c)) {
		write_u64_file(BLOOM_MAX_MEMORY, saved);
		SKIP(return, "no 0.95 GiB for the table: %s", strerror(errno));
	}
	for (i = 0; i < SWEEP_KEYS; i++)
		make_key16(i, keys + KLEN * i);
	ASSERT_EQ(0, bt_timed_add(fd, keys, SWEEP_KEYS, KLEN, NULL, 2, NULL,
				  &b));
	for (i = 0; i < SWEEP_KEYS; i++)
		make_key16(SWEEP_KEYS + i, keys + KLEN * i);
	ASSERT_EQ(0, bt_timed_add(fd, keys, SWEEP_KEYS, KLEN, NULL, 0, NULL,
				  &b));
	t0 = boot_ns();
	do {
		t = boot_ns();
		if (bt_batch(fd, BLOOM_IOC_QUERY, keys, SWEEP_KEYS * KLEN,
			     SWEEP_KEYS, KLEN, NULL, res, &b))
			break;
		t = boot_ns() - t;
		worst = t > worst ? t : worst;
		missing += SWEEP_KEYS - popcount_bm(res, SWEEP_KEYS);
		rounds++;
		sleep_ms(100);
	} while (boot_ns() - t0 < 20000 * MS);
	ASSERT_EQ(0, bt_info(fd, NULL, &info));
	TH_LOG("%u queries of %u keys in 20 s, the slowest %llu ms; %llu cells of expired keys emptied",
	       rounds, SWEEP_KEYS, (unsigned long long)(worst / MS),
	       (unsigned long long)info.expired);
	EXPECT_EQ(0, missing);
	EXPECT_LE(SWEEP_KEYS, info.expired);
	bt_destroy(fd, "sweep");
	free(keys);
	write_u64_file(BLOOM_MAX_MEMORY, saved);
}

BT_LEAK_CHECK_TEST()

TEST_HARNESS_MAIN
