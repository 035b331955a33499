// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_scale: scalable filters through the ioctls. A filter of capacity
 * 10,000 at P = 0.001 is fed 20x and 100x its capacity: no false negatives,
 * a measured rate under P on 1,000,000 keys never added, and the stages
 * the formula says (stage i: capacity N * 2^i at floor(P * 0.15 * 0.85^i)
 * ppb; every stage but the newest full). Then: threads adding across stage
 * boundaries while another queries lose nothing (20 rounds); growth that
 * hits max_memory or the last possible stage fails the add with EDQUOT or
 * ENOSPC and keeps every key added before; the create errors; sysfs.
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stddef.h>

#include "bloom_test.h"
#include "stages.h"

/*
 * Stage @i's number in the file stage_@attr of filter @name (one number
 * per stage, oldest first); -1 when the file or the stage is not there.
 */
static long long stage_attr(const char *name, const char *attr, __u32 i)
{
	char path[256], buf[1024], *p, *end;
	long long v = -1;
	__u32 j;

	snprintf(path, sizeof(path), BLOOM_SYSFS "/filters/%s/stage_%s", name,
		 attr);
	if (read_str_file(path, buf, sizeof(buf)))
		return -1;
	for (p = buf, j = 0; j <= i; j++, p = end) {
		v = strtoll(p, &end, 10);
		if (end == p)
			return -1;
	}
	return v;
}

#define N0	10000U		/* stage 0's capacity */
#define P_PPB	1000000U	/* P = 0.001 */
#define ABSENT	1000000U
#define BATCH	65536U
#define KLEN	16U
#define ABSENT_BASE	(1ULL << 40)	/* never-added key indices */

static struct bloom_create scalable_req(const char *name, __u32 type,
					__u64 capacity, __u32 ppb,
					__u32 growth, __u32 tightening_ppm)
{
	struct bloom_create c = bt_create_req(name, type, capacity, ppb,
					      BLOOM_CREATE_F_BIND |
					      BLOOM_CREATE_F_SCALABLE);

	c.growth = growth;
	c.tightening_ppm = tightening_ppm;
	return c;
}

static int get_stages(int fd, struct bloom_stage *st, __u32 *n)
{
	struct bloom_stages s;

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.capacity = BLOOM_SCALE_STAGES_MAX;
	s.stages = u64_ptr(st);
	if (ioctl(fd, BLOOM_IOC_STAGES, &s))
		return -1;
	*n = s.out_count;
	return 0;
}

FIXTURE(growth) {
	int fd;
	__u8 *keys;
	__u8 *res;
};

FIXTURE_VARIANT(growth) {
	__u32 type;
	__u32 factor;
};

FIXTURE_VARIANT_ADD(growth, standard_20x) {
	.type = BLOOM_TYPE_STANDARD, .factor = 20,
};

FIXTURE_VARIANT_ADD(growth, standard_100x) {
	.type = BLOOM_TYPE_STANDARD, .factor = 100,
};

FIXTURE_VARIANT_ADD(growth, blocked_20x) {
	.type = BLOOM_TYPE_BLOCKED, .factor = 20,
};

FIXTURE_VARIANT_ADD(growth, blocked_100x) {
	.type = BLOOM_TYPE_BLOCKED, .factor = 100,
};

FIXTURE_SETUP(growth)
{
	struct bloom_create c = scalable_req("scale", variant->type, N0, P_PPB,
					     0, 0);

	self->fd = bt_open();
	ASSERT_LE(0, self->fd);
	self->keys = malloc((size_t)BATCH * KLEN);
	self->res = malloc(BATCH / 8);
	ASSERT_NE(NULL, self->keys);
	ASSERT_NE(NULL, self->res);
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_CREATE, &c));
}

FIXTURE_TEARDOWN(growth)
{
	close(self->fd);
	free(self->keys);
	free(self->res);
	bt_destroy_all();
}

TEST_F_TIMEOUT(growth, fed_past_capacity, 600)
{
	__u32 nkeys = N0 * variant->factor, fn = 0, ns = 0, i, full_bad = 0;
	struct bloom_stage st[BLOOM_SCALE_STAGES_MAX];
	long long hits, fp;
	struct bloom_info info;
	__u64 count = 0, bits = 0;

	hits = run_keys16(self->fd, BLOOM_IOC_ADD, self->keys, self->res,
			  BATCH, 0, nkeys, NULL);
	ASSERT_LE(0, hits);
	ASSERT_LE(0, run_keys16(self->fd, BLOOM_IOC_QUERY, self->keys,
				self->res, BATCH, 0, nkeys, &fn));
	EXPECT_EQ(0, fn) TH_LOG("%u false negatives", fn);
	fp = run_keys16(self->fd, BLOOM_IOC_QUERY, self->keys, self->res,
			BATCH, ABSENT_BASE, ABSENT, NULL);
	ASSERT_LE(0, fp);
	EXPECT_GE(ABSENT / 1000, fp)
		TH_LOG("rate %.6f over P = 0.001", fp / (double)ABSENT);

	ASSERT_OK(bt_info(self->fd, NULL, &info));
	ASSERT_OK(get_stages(self->fd, st, &ns));
	EXPECT_EQ(ns, info.stages);
	EXPECT_EQ(2, info.growth);
	EXPECT_EQ(850000, info.tightening_ppm);
	EXPECT_EQ(N0, info.capacity);
	EXPECT_EQ(P_PPB, info.fpp_ppb);
	for (i = 0; i < ns; i++) {
		double want = P_PPB * 0.15 * pow(0.85, i);

		EXPECT_EQ((__u64)N0 << i, st[i].capacity) TH_LOG("stage %u", i);
		EXPECT_GE(want + 1e-6, (double)st[i].fpp_ppb);
		EXPECT_LE(want - 1.0, (double)st[i].fpp_ppb);
		count += st[i].count;
		bits += st[i].bits;
		full_bad += i + 1 < ns && st[i].count != st[i].capacity;
	}
	EXPECT_EQ(0, full_bad) TH_LOG("an older stage not exactly full");
	EXPECT_EQ(stages_for(N0, 2, count), ns);
	EXPECT_EQ(count, info.count);
	EXPECT_EQ((__u64)nkeys, count + hits);
	EXPECT_EQ(bits, info.bits);
	/* sysfs agrees */
	EXPECT_EQ(ns, filter_attr("scale", "stages"));
	EXPECT_EQ(bits, filter_attr("scale", "bits"));
	EXPECT_EQ((long long)st[ns - 1].capacity,
		  stage_attr("scale", "capacity", ns - 1));
	EXPECT_EQ((long long)st[ns - 1].count,
		  stage_attr("scale", "count", ns - 1));
	ksft_print_msg("%s %ux: %u stages, %.3f bits/key, rate %.6f (estimate %.6f)\n",
		       variant->type == BLOOM_TYPE_STANDARD ? "standard" :
		       "blocked", variant->factor, ns,
		       (double)bits / nkeys, fp / (double)ABSENT,
		       info.estimated_fpp_ppb / 1e9);
	fflush(stdout);	/* the harness _exit()s: no flush */
}

/* ---------------------------------------------------------- errors */

FIXTURE(scale) {
	int fd;
	long long saved_max_memory;	/* -1 if untouched */
};

FIXTURE_SETUP(scale)
{
	self->saved_max_memory = -1;
	self->fd = bt_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(scale)
{
	if (self->saved_max_memory >= 0)
		write_u64_file(BLOOM_MAX_MEMORY, self->saved_max_memory);
	close(self->fd);
	bt_destroy_all();
}

TEST_F(scale, create_errors)
{
	struct bloom_create c;
	struct bloom_stages s;
	struct bloom_info info;
	int fd2;

	c = scalable_req("e", BLOOM_TYPE_COUNTING, 1000, 10000000, 0, 0);
	EXPECT_ERRNO(EOPNOTSUPP, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	c = scalable_req("e", BLOOM_TYPE_DLEFT, 1000, 10000000, 0, 0);
	EXPECT_ERRNO(EOPNOTSUPP, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	c = scalable_req("e", BLOOM_TYPE_STANDARD, 1000, 10000000, 0, 0);
	c.flags |= BLOOM_CREATE_F_GEOMETRY;
	c.bits = 10000;
	c.hashes = 7;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	/* sized by bits per key or memory (BLOOM_CREATE_F_SIZE): refused */
	c = scalable_req("e", BLOOM_TYPE_STANDARD, 1000, 0, 0, 0);
	c.flags |= BLOOM_CREATE_F_SIZE;
	c.bits_per_key_milli = 10000;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	c = scalable_req("e", BLOOM_TYPE_STANDARD, 1000, 10000000, 0, 0);
	c.flags |= BLOOM_CREATE_F_SIZE;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	c = scalable_req("e", BLOOM_TYPE_STANDARD, 1000, 10000000, 1, 0);
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	c = scalable_req("e", BLOOM_TYPE_STANDARD, 1000, 10000000, 17, 0);
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	c = scalable_req("e", BLOOM_TYPE_STANDARD, 1000, 10000000, 0, 499999);
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	c = scalable_req("e", BLOOM_TYPE_STANDARD, 1000, 10000000, 0, 950001);
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	/* stage 0's rate P * 0.15 under 1 ppb */
	c = scalable_req("e", BLOOM_TYPE_STANDARD, 1000, 6, 0, 0);
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	/* growth and tightening without the flag */
	c = bt_create_req("e", BLOOM_TYPE_STANDARD, 1000, 10000000, 0);
	c.growth = 2;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	c.growth = 0;
	c.tightening_ppm = 850000;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	EXPECT_ERRNO(ENOENT, bt_info(self->fd, "e", &info));

	/* growth and tightening_ppm 0: the defaults, s = 2, r = 0.85 */
	c = scalable_req("dflt", BLOOM_TYPE_BLOCKED, 1000, 10000000, 0, 0);
	c.size = offsetof(struct bloom_create, growth);
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c))
		TH_LOG("a struct that ends before growth is too short");
	c.size = sizeof(c);
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	ASSERT_OK(bt_info(self->fd, NULL, &info));
	EXPECT_EQ(1, info.stages);
	EXPECT_EQ(2, info.growth);
	EXPECT_EQ(850000, info.tightening_ppm);
	EXPECT_EQ(BLOOM_TYPE_BLOCKED, info.type);

	/* STAGES: flags, a plain filter, by name, a short buffer */
	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.flags = 1;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_STAGES, &s));
	fd2 = bt_open();
	ASSERT_LE(0, fd2);
	ASSERT_OK(bt_create(fd2, "plain", BLOOM_TYPE_STANDARD, 1000,
			    10000000, BLOOM_CREATE_F_BIND));
	s.flags = 0;
	EXPECT_ERRNO(EOPNOTSUPP, ioctl(fd2, BLOOM_IOC_STAGES, &s));
	ASSERT_OK(bt_info(fd2, NULL, &info));
	EXPECT_EQ(0, info.stages);
	EXPECT_EQ(-1, filter_attr("plain", "stages"));
	close(fd2);
	set_name(s.name, "dflt");
	s.capacity = 0;
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_STAGES, &s));
	EXPECT_EQ(1, s.out_count);
	s.capacity = 1;
	s.stages = KERNEL_PTR;
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, BLOOM_IOC_STAGES, &s));
}

/* ------------------------------------------------- limits on growth */

/*
 * P = 20 ppb, r = 0.5: stage rates 10, 5, 2, 1 ppb, and stage 4's would
 * be 0.625: 4 stages of 1, 2, 4, 8 keys at most. The 16th new key cannot
 * go anywhere: ENOSPC; the keys before it stay.
 */
TEST_F(scale, last_stage_enospc)
{
	struct bloom_create c = scalable_req("last", BLOOM_TYPE_STANDARD, 1,
					     20, 2, 500000);
	__u8 keys[100 * KLEN], res[13];
	struct bloom_batch b;
	struct bloom_info info;
	__u32 i;

	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	for (i = 0; i < 100; i++)
		make_key16(i, keys + KLEN * i);
	EXPECT_ERRNO(ENOSPC, bt_batch(self->fd, BLOOM_IOC_ADD, keys,
				      sizeof(keys), 100, KLEN, NULL, res,
				      &b));
	/* 15 new keys fit; a false positive or two may come free */
	EXPECT_LE(15, b.out_done);
	EXPECT_GT(100, b.out_done);
	ASSERT_OK(bt_info(self->fd, NULL, &info));
	EXPECT_EQ(4, info.stages);
	EXPECT_EQ(15, info.count);
	EXPECT_EQ(b.out_done, info.adds);
	EXPECT_EQ(b.out_done - b.out_hits, info.count);
	/* every key before out_done is present, with the right bits */
	ASSERT_OK(bt_batch(self->fd, BLOOM_IOC_QUERY, keys,
			   (__u64)b.out_done * KLEN, b.out_done, KLEN, NULL,
			   res, NULL));
	EXPECT_EQ(b.out_done, popcount_bm(res, b.out_done));
	/* a present key needs no new stage */
	EXPECT_EQ(1, bt_one(self->fd, BLOOM_IOC_ADD, keys, KLEN));
}

/*
 * A timed filter that grows (BLOOM_TYPE_TIMED with F_SCALABLE): growth 0
 * is BLOOM_TIMED_GROWTH_DEFAULT; ten times its capacity of keys with their
 * own timeouts go in with no failed add, in two stages; STAGES counts each
 * stage's cells; a delete finds a key in the first stage, a re-add puts it
 * back; a timeout over the filter's largest is refused (EINVAL), nothing
 * added.
 */
TEST_F(scale, timed_grows)
{
	struct bloom_create c = scalable_req("tg", BLOOM_TYPE_TIMED, 1000,
					     1000000, 0, 0);
	static __u8 keys[10000 * KLEN], res[10000 / 8];
	static __u32 timeouts[10000];
	struct bloom_stage st[BLOOM_SCALE_STAGES_MAX];
	struct bloom_info info;
	struct bloom_batch b;
	__u64 cells = 0, first;
	__u32 i, n;

	c.key_timeout_max_s = 3600;
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	for (i = 0; i < 10000; i++) {
		make_key16(i, keys + KLEN * i);
		timeouts[i] = 600 + i % 3000;
	}
	ASSERT_OK(bt_timed_add(self->fd, keys, 10000, KLEN, timeouts, 0, res,
			       &b));
	EXPECT_EQ(10000, b.out_done);
	ASSERT_OK(bt_info(self->fd, NULL, &info));
	EXPECT_EQ(BLOOM_TIMED_GROWTH_DEFAULT, info.growth);
	EXPECT_EQ(2, info.stages);
	ASSERT_OK(get_stages(self->fd, st, &n));
	ASSERT_EQ(2, n);
	EXPECT_EQ(1000, st[0].capacity);
	EXPECT_EQ(10000, st[1].capacity);
	for (i = 0; i < n; i++)
		cells += st[i].count;
	/* keys sharing a cell (fingerprint and tag) count once */
	EXPECT_EQ(cells, info.count);
	EXPECT_LE(9990, cells);
	ASSERT_OK(bt_batch(self->fd, BLOOM_IOC_QUERY, keys, sizeof(keys),
			   10000, KLEN, NULL, res, NULL));
	EXPECT_EQ(10000, popcount_bm(res, 10000));
	/* key 0 went to the first stage */
	first = st[0].count;
	EXPECT_EQ(1, bt_one(self->fd, BLOOM_IOC_DELETE, keys, KLEN));
	EXPECT_EQ(0, bt_one(self->fd, BLOOM_IOC_QUERY, keys, KLEN));
	ASSERT_OK(get_stages(self->fd, st, &n));
	EXPECT_EQ(first - 1, st[0].count);
	EXPECT_EQ(0, bt_one(self->fd, BLOOM_IOC_ADD, keys, KLEN));
	EXPECT_EQ(1, bt_one(self->fd, BLOOM_IOC_QUERY, keys, KLEN));
	timeouts[0] = 3601;
	EXPECT_ERRNO(EINVAL, bt_timed_add(self->fd, keys + KLEN * 5000, 1,
					  KLEN, timeouts, 0, res, &b));
	EXPECT_EQ(0, b.out_done);
}

/*
 * max_memory leaves room for some stages, not for all: the add that needs
 * the next stage fails with EDQUOT and reports how far it got; every key
 * added before stays present; memory_used never goes over the limit, and
 * comes back when the filter goes.
 */
TEST_F(scale, max_memory_edquot)
{
	struct bloom_create c = scalable_req("mem", BLOOM_TYPE_STANDARD, 1000,
					     10000000, 2, 850000);
	__u8 *keys = malloc((size_t)BATCH * KLEN), *res = malloc(BATCH / 8);
	long long used0 = read_u64_file(BLOOM_SYSFS "/memory_used"), used;
	struct bloom_batch b;
	struct bloom_info info;
	__u32 i, missing = 0;
	int ret;

	ASSERT_NE(NULL, keys);
	ASSERT_NE(NULL, res);
	ASSERT_LE(0, used0);
	self->saved_max_memory = read_u64_file(BLOOM_MAX_MEMORY);
	ASSERT_LE(0, self->saved_max_memory);
	/* stage 0 is ~1.3 KB, stages double: about 64 KB holds 5 or 6 */
	ASSERT_OK(write_u64_file(BLOOM_MAX_MEMORY, used0 + (64 << 10)));
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	for (i = 0; i < BATCH; i++)
		make_key16(i, keys + (size_t)KLEN * i);
	ret = bt_batch(self->fd, BLOOM_IOC_ADD, keys, (__u64)BATCH * KLEN,
		       BATCH, KLEN, NULL, res, &b);
	EXPECT_ERRNO(EDQUOT, ret);
	ASSERT_OK(bt_info(self->fd, NULL, &info));
	TH_LOG("EDQUOT after %u keys, %u stages, memory_bytes %llu",
	       b.out_done, info.stages, (unsigned long long)info.memory_bytes);
	EXPECT_LE(3, info.stages);
	EXPECT_GT(BLOOM_SCALE_STAGES_MAX, info.stages);
	EXPECT_LE(7000, b.out_done);
	EXPECT_GT(BATCH, b.out_done);
	EXPECT_EQ(b.out_done, info.adds);
	used = read_u64_file(BLOOM_SYSFS "/memory_used");
	EXPECT_GE(used0 + (64 << 10), used);
	EXPECT_EQ(used0 + (long long)info.memory_bytes, used);
	/* what went in stays, also after more failed adds */
	EXPECT_ERRNO(EDQUOT, bt_batch(self->fd, BLOOM_IOC_ADD,
				      keys + (size_t)KLEN * b.out_done,
				      (__u64)(BATCH - b.out_done) * KLEN,
				      BATCH - b.out_done, KLEN, NULL, NULL,
				      NULL));
	ASSERT_LE(0, run_keys16(self->fd, BLOOM_IOC_QUERY, keys, res, BATCH,
				0, b.out_done, &missing));
	EXPECT_EQ(0, missing);
	/* raise the limit: it grows again */
	ASSERT_OK(write_u64_file(BLOOM_MAX_MEMORY, self->saved_max_memory));
	EXPECT_LE(0, run_keys16(self->fd, BLOOM_IOC_ADD, keys, res, BATCH,
				0, BATCH, NULL));
	ASSERT_LE(0, run_keys16(self->fd, BLOOM_IOC_QUERY, keys, res, BATCH,
				0, BATCH, &missing));
	EXPECT_EQ(0, missing);
	close(self->fd);
	self->fd = bt_open();
	EXPECT_OK(bt_destroy(self->fd, "mem"));
	EXPECT_EQ(used0, read_u64_file(BLOOM_SYSFS "/memory_used"));
	free(keys);
	free(res);
}

/* ---------------------------------------------------- concurrency */

#define THREADS		4
#define PER_THREAD	3000U
#define CHUNK		16U
#define ROUNDS		20
#define PRESENT		256U	/* added before the threads start */

struct adder {
	pthread_barrier_t *start;
	int fd;
	__u64 first;
	int err;
	volatile int *stop;
	__u32 query_misses;
	__u32 queries;
};

static void *add_thread(void *arg)
{
	struct adder *a = arg;
	__u8 keys[CHUNK * KLEN];
	__u32 i, j;

	pthread_barrier_wait(a->start);
	for (i = 0; i < PER_THREAD && !a->err; i += CHUNK) {
		for (j = 0; j < CHUNK; j++)
			make_key16(a->first + i + j, keys + KLEN * j);
		if (bt_batch(a->fd, BLOOM_IOC_ADD, keys, sizeof(keys), CHUNK,
			     KLEN, NULL, NULL, NULL))
			a->err = errno;
	}
	return NULL;
}

/* Queries the keys added before the start, over and over, during growth. */
static void *query_thread(void *arg)
{
	struct adder *a = arg;
	__u8 keys[PRESENT * KLEN], res[PRESENT / 8];
	__u32 i;

	for (i = 0; i < PRESENT; i++)
		make_key16(a->first + i, keys + KLEN * i);
	pthread_barrier_wait(a->start);
	while (!*a->stop && !a->err) {
		if (bt_batch(a->fd, BLOOM_IOC_QUERY, keys, sizeof(keys),
			     PRESENT, KLEN, NULL, res, NULL))
			a->err = errno;
		a->query_misses += PRESENT - popcount_bm(res, PRESENT);
		a->queries++;
	}
	return NULL;
}

/*
 * Four threads, each with its own descriptor, add 3000 keys each in
 * batches of 16 to a filter of capacity 100 (stages 100, 200, ..., so
 * 7 boundaries are crossed, most of them by several threads at once),
 * while a fifth queries 256 keys added before: nothing may be lost, no
 * query may miss, no stage may take more than its capacity.
 */
TEST_F_TIMEOUT(scale, concurrent_adds_across_boundaries, 600)
{
	__u32 round, lost_total = 0, misses_total = 0, queries = 0;

	for (round = 0; round < ROUNDS; round++) {
		struct bloom_create c = scalable_req("conc", BLOOM_TYPE_STANDARD,
						     100, 10000000, 0, 0);
		__u64 base = (__u64)round << 32;
		struct bloom_stage st[BLOOM_SCALE_STAGES_MAX];
		struct adder a[THREADS + 1];
		pthread_t tid[THREADS + 1];
		pthread_barrier_t start;
		volatile int stop = 0;
		__u8 *keys, *res;
		__u32 t, ns = 0, i, lost = 0;
		__u64 count = 0;

		ASSERT_OK(ioctl(self->fd, BLOOM_IOC_CREATE, &c));
		keys = malloc((size_t)THREADS * PER_THREAD * KLEN);
		res = malloc(THREADS * PER_THREAD / 8 + 1);
		ASSERT_NE(NULL, keys);
		ASSERT_NE(NULL, res);
		for (i = 0; i < PRESENT; i++)
			make_key16(base + (1ULL << 31) + i, keys + KLEN * i);
		ASSERT_OK(bt_batch(self->fd, BLOOM_IOC_ADD, keys,
				   PRESENT * KLEN, PRESENT, KLEN, NULL,
				   NULL, NULL));
		ASSERT_EQ(0, pthread_barrier_init(&start, NULL, THREADS + 1));
		for (t = 0; t <= THREADS; t++) {
			a[t] = (struct adder){
				.start = &start, .fd = bt_open(),
				.first = t < THREADS ? base + t * PER_THREAD :
					 base + (1ULL << 31),
				.stop = &stop,
			};
			ASSERT_LE(0, a[t].fd);
			ASSERT_OK(bt_bind(a[t].fd, "conc"));
			ASSERT_EQ(0, pthread_create(&tid[t], NULL,
						    t < THREADS ? add_thread :
						    query_thread, &a[t]));
		}
		for (t = 0; t < THREADS; t++)
			pthread_join(tid[t], NULL);
		stop = 1;
		pthread_join(tid[THREADS], NULL);
		pthread_barrier_destroy(&start);
		for (t = 0; t <= THREADS; t++) {
			EXPECT_EQ(0, a[t].err) TH_LOG("thread %u: %s", t,
						     strerror(a[t].err));
			close(a[t].fd);
		}
		misses_total += a[THREADS].query_misses;
		queries += a[THREADS].queries;

		for (i = 0; i < THREADS * PER_THREAD; i++)
			make_key16(base + i, keys + (size_t)KLEN * i);
		ASSERT_OK(bt_batch(self->fd, BLOOM_IOC_QUERY, keys,
				   (__u64)THREADS * PER_THREAD * KLEN,
				   THREADS * PER_THREAD, KLEN, NULL, res,
				   NULL));
		lost = THREADS * PER_THREAD -
		       popcount_bm(res, THREADS * PER_THREAD);
		lost_total += lost;
		ASSERT_OK(get_stages(self->fd, st, &ns));
		EXPECT_LE(7, ns);
		for (i = 0; i < ns; i++) {
			EXPECT_GE(st[i].capacity, st[i].count)
				TH_LOG("round %u stage %u over capacity", round, i);
			count += st[i].count;
		}
		EXPECT_EQ(stages_for(100, 2, count), ns);
		free(keys);
		free(res);
		ASSERT_OK(bt_destroy(self->fd, "conc"));
		close(self->fd);
		self->fd = bt_open();
		ASSERT_LE(0, self->fd);
	}
	EXPECT_EQ(0, lost_total) TH_LOG("keys lost over %d rounds", ROUNDS);
	EXPECT_EQ(0, misses_total)
		TH_LOG("present keys missed by %u queries during growth",
		       queries);
	ksft_print_msg("%d rounds: %u keys lost, %u of %u query batches (256 present keys each) during growth missed a key\n",
		       ROUNDS, lost_total, misses_total, queries);
	fflush(stdout);
}

TEST_F(scale, sysfs_stages)
{
	struct bloom_create c = scalable_req("sys", BLOOM_TYPE_BLOCKED, 1000,
					     10000000, 4, 750000);
	__u8 keys[64 * KLEN];
	struct bloom_stage st[BLOOM_SCALE_STAGES_MAX];
	__u32 i, ns = 0;

	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	EXPECT_EQ(4, filter_attr("sys", "growth"));
	EXPECT_EQ(750000, filter_attr("sys", "tightening_ppm"));
	EXPECT_EQ(1, filter_attr("sys", "stages"));
	EXPECT_EQ(0, filter_attr("sys", "estimated_fpp_ppb"));
	EXPECT_EQ(1000, stage_attr("sys", "capacity", 0));
	EXPECT_EQ(2500000, stage_attr("sys", "fpp_ppb", 0));
	EXPECT_EQ(0, stage_attr("sys", "count", 0));
	EXPECT_EQ(-1, stage_attr("sys", "capacity", 1));
	for (i = 0; i < 1100 / 64 + 1; i++) {
		__u32 j;

		for (j = 0; j < 64; j++)
			make_key16(i * 64 + j, keys + KLEN * j);
		ASSERT_OK(bt_batch(self->fd, BLOOM_IOC_ADD, keys,
				   sizeof(keys), 64, KLEN, NULL, NULL,
				   NULL));
	}
	ASSERT_OK(get_stages(self->fd, st, &ns));
	EXPECT_EQ(2, ns);
	EXPECT_EQ(2, filter_attr("sys", "stages"));
	for (i = 0; i < ns; i++) {
		EXPECT_EQ((long long)st[i].capacity,
			  stage_attr("sys", "capacity", i));
		EXPECT_EQ(st[i].fpp_ppb, stage_attr("sys", "fpp_ppb", i));
		EXPECT_EQ((long long)st[i].bits, stage_attr("sys", "bits", i));
		EXPECT_EQ(st[i].hashes, stage_attr("sys", "hashes", i));
		EXPECT_EQ((long long)st[i].count, stage_attr("sys", "count", i));
		EXPECT_EQ((long long)st[i].bits_set,
			  stage_attr("sys", "bits_set", i));
		EXPECT_EQ(st[i].estimated_fpp_ppb,
			  stage_attr("sys", "estimated_fpp_ppb", i));
	}
	EXPECT_EQ(-1, stage_attr("sys", "capacity", ns));
	EXPECT_EQ(4000, st[1].capacity);
	EXPECT_EQ(1875000, st[1].fpp_ppb);
	EXPECT_LT(0, filter_attr("sys", "estimated_fpp_ppb"));
	EXPECT_GT(10000000, filter_attr("sys", "estimated_fpp_ppb"));
	ASSERT_OK(bt_destroy(self->fd, "sys"));
	EXPECT_EQ(-1, stage_attr("sys", "capacity", 0));
}


/* Keys [0, n) of @fd's bound filter that test absent (0: all present). */
static long long absent16(int fd, __u32 n)
{
	static __u8 keys[4096 * KLEN], res[4096 / 8];
	__u32 missing = 0;

	if (run_keys16(fd, BLOOM_IOC_QUERY, keys, res, 4096, 0, n,
		       &missing) < 0)
		return -1;
	return missing;
}

/*
 * What cannot be done with stages refuses cleanly and changes nothing:
 * MERGE with a filter that is not scalable and LIKE EOPNOTSUPP, MERGE of
 * two whose stages do not line up EINVAL; SWAP with a filter that is not
 * scalable, or a RESTORE replacing a scalable filter's contents with a
 * plain snapshot or a plain filter's with a scalable one, EINVAL. Two
 * scalable filters swap, the stage_* files following.
 */
TEST_F(scale, snapshot_ops)
{
	struct bloom_create c = scalable_req("sa", BLOOM_TYPE_STANDARD, 1000,
					     10000000, 2, 850000);
	static __u8 keys[4096 * KLEN], res[4096 / 8];
	struct bloom_info ia, ib;
	int fb, fp;
	__u64 len;
	__u8 *buf;

	/* sa: 3100 keys, 3 stages; sb: 1 stage; pl: plain */
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	ASSERT_LE(0, run_keys16(self->fd, BLOOM_IOC_ADD, keys, res, 4096, 0,
				3100, NULL));
	fb = bt_open();
	ASSERT_LE(0, fb);
	c = scalable_req("sb", BLOOM_TYPE_STANDARD, 1000, 10000000, 2,
			 850000);
	ASSERT_OK(ioctl(fb, BLOOM_IOC_CREATE, &c));
	fp = bt_open();
	ASSERT_LE(0, fp);
	ASSERT_OK(bt_create(fp, "pl", BLOOM_TYPE_STANDARD, 1000, 10000000,
			    BLOOM_CREATE_F_BIND));
	ASSERT_OK(bt_info(self->fd, NULL, &ia));
	ASSERT_EQ(3, ia.stages);

	EXPECT_ERRNO(EOPNOTSUPP, bt_pair(self->fd, BLOOM_IOC_MERGE, "sa",
					    "pl"));
	EXPECT_ERRNO(EOPNOTSUPP, bt_pair(self->fd, BLOOM_IOC_MERGE, "pl",
					    "sa"));
	/* alike but for their random hash keys: stages that do not line up */
	EXPECT_ERRNO(EINVAL, bt_pair(self->fd, BLOOM_IOC_MERGE, "sa",
					"sb"));
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.flags = BLOOM_CREATE_F_LIKE;
	set_name(c.name, "lk");
	set_name(c.like, "sa");
	/* LIKE of a scalable filter: an empty chain that merges with it */
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	ASSERT_OK(bt_info(self->fd, "lk", &ia));
	EXPECT_EQ(1, ia.stages);
	EXPECT_EQ(0, ia.count);
	EXPECT_OK(bt_pair(self->fd, BLOOM_IOC_MERGE, "lk", "sa"));
	ASSERT_OK(bt_info(self->fd, "lk", &ia));
	EXPECT_EQ(3, ia.stages);
	ASSERT_OK(bt_name_ioctl(self->fd, BLOOM_IOC_DESTROY, "lk"));
	/* LIKE takes nothing of its own: not growth either */
	set_name(c.like, "pl");
	c.growth = 2;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	c.growth = 0;
	c.flags |= BLOOM_CREATE_F_SCALABLE;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	EXPECT_ERRNO(ENOENT, bt_info(self->fd, "lk", &ib));

	EXPECT_ERRNO(EINVAL, bt_pair(self->fd, BLOOM_IOC_SWAP, "sa", "pl"));
	EXPECT_ERRNO(EINVAL, bt_pair(self->fd, BLOOM_IOC_SWAP, "pl", "sa"));

	/* a plain snapshot does not replace a scalable filter's stages */
	buf = bt_save_alloc(self->fd, "pl", &len);
	ASSERT_NE(NULL, buf);
	EXPECT_ERRNO(EINVAL, bt_restore_as(self->fd, buf, len, "sa",
					BLOOM_RESTORE_F_REPLACE));
	free(buf);
	/* nor a scalable one a plain filter's contents */
	buf = bt_save_alloc(self->fd, "sa", &len);
	ASSERT_NE(NULL, buf);
	EXPECT_ERRNO(EINVAL, bt_restore_as(self->fd, buf, len, "pl",
					BLOOM_RESTORE_F_REPLACE));
	free(buf);

	/* nothing changed: sa has its stages and keys */
	ASSERT_OK(bt_info(self->fd, NULL, &ib));
	EXPECT_EQ(3, ib.stages);
	EXPECT_EQ(ia.bits, ib.bits);
	EXPECT_EQ(ia.bits_set, ib.bits_set);
	EXPECT_EQ(0, absent16(self->fd, 3100));
	EXPECT_EQ(3, filter_attr("sa", "stages"));

	/* two scalable filters swap; each shows the stages it holds now */
	ASSERT_OK(bt_pair(self->fd, BLOOM_IOC_SWAP, "sa", "sb"));
	EXPECT_EQ(1, filter_attr("sa", "stages"));
	EXPECT_EQ(3, filter_attr("sb", "stages"));
	EXPECT_EQ(4000, stage_attr("sb", "capacity", 2));
	EXPECT_EQ(-1, stage_attr("sa", "capacity", 1));
	EXPECT_EQ(0, absent16(fb, 3100));
	ASSERT_OK(bt_info(fb, NULL, &ib));
	EXPECT_EQ(ia.bits, ib.bits);
	close(fb);
	close(fp);
}

/* A scalable filter like scalable_req()'s, with an explicit hash key. */
static struct bloom_create keyed_req(const char *name, __u64 capacity,
				     __u32 growth, __u8 key0)
{
	struct bloom_create c = scalable_req(name, BLOOM_TYPE_STANDARD,
					     capacity, 10000000, growth,
					     850000);

	c.flags |= BLOOM_CREATE_F_HASH_KEY;
	memset(c.hash_key, key0, sizeof(c.hash_key));
	return c;
}

/*
 * MERGE of two scalable filters with the same parameters and hash key,
 * stage by stage: a destination of 1 stage merged with a source of 3
 * gets the 2 it lacks and then answers for the keys of both; the source
 * is left as it was. Other parameters or another hash key: EINVAL, and
 * nothing changes.
 */
TEST_F(scale, merge)
{
	struct bloom_create c = keyed_req("ms", 1000, 2, 7);
	static __u8 keys[4096 * KLEN], res[4096 / 8];
	struct bloom_info is, id;
	__u32 missing = 0;
	int fd_dst;

	/* ms: keys [0, 3100) in 3 stages; md: keys [100000, 100500) */
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	ASSERT_LE(0, run_keys16(self->fd, BLOOM_IOC_ADD, keys, res, 4096, 0,
				3100, NULL));
	fd_dst = bt_open();
	ASSERT_LE(0, fd_dst);
	c = keyed_req("md", 1000, 2, 7);
	ASSERT_OK(ioctl(fd_dst, BLOOM_IOC_CREATE, &c));
	ASSERT_LE(0, run_keys16(fd_dst, BLOOM_IOC_ADD, keys, res, 4096,
				100000, 500, NULL));
	ASSERT_OK(bt_info(fd_dst, NULL, &id));
	ASSERT_EQ(1, id.stages);

	/* other growth, other hash key: refused, md unchanged */
	c = keyed_req("mg", 1000, 4, 7);
	c.flags &= ~BLOOM_CREATE_F_BIND;
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	c = keyed_req("mk", 1000, 2, 8);
	c.flags &= ~BLOOM_CREATE_F_BIND;
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	EXPECT_ERRNO(EINVAL, bt_pair(self->fd, BLOOM_IOC_MERGE, "md", "mg"));
	EXPECT_ERRNO(EINVAL, bt_pair(self->fd, BLOOM_IOC_MERGE, "md", "mk"));
	EXPECT_EQ(1, filter_attr("md", "stages"));

	ASSERT_OK(bt_pair(self->fd, BLOOM_IOC_MERGE, "md", "ms"));
	EXPECT_EQ(3, filter_attr("md", "stages"));
	EXPECT_EQ(2000, stage_attr("md", "capacity", 1));
	ASSERT_LE(0, run_keys16(fd_dst, BLOOM_IOC_QUERY, keys, res, 4096, 0,
				3100, &missing));
	EXPECT_EQ(0, missing);
	ASSERT_LE(0, run_keys16(fd_dst, BLOOM_IOC_QUERY, keys, res, 4096,
				100000, 500, &missing));
	EXPECT_EQ(0, missing);
	/* stage 0 held 500 keys and got 1000 more: full at its capacity */
	EXPECT_EQ(1000, stage_attr("md", "count", 0));
	/* the source keeps its stages and keys */
	ASSERT_OK(bt_info(self->fd, NULL, &is));
	EXPECT_EQ(3, is.stages);
	ASSERT_LE(0, run_keys16(self->fd, BLOOM_IOC_QUERY, keys, res, 4096,
				100000, 500, &missing));
	EXPECT_LT(0, missing);
	/* and the destination goes on growing */
	ASSERT_LE(0, run_keys16(fd_dst, BLOOM_IOC_ADD, keys, res, 4096,
				200000, 5000, NULL));
	EXPECT_LE(4, filter_attr("md", "stages"));
	close(fd_dst);
}

/*
 * FLUSH of a scalable filter: it starts again from its first stage, empty
 * (the other stages' memory is given back), with its parameters, hash key
 * and statistics from zero; the descriptor bound to it stays bound and the
 * filter grows again. Without room under max_memory for the new first
 * stage beside the old stages: EDQUOT, and nothing changed.
 */
TEST_F(scale, flush)
{
	struct bloom_create c = scalable_req("fl", BLOOM_TYPE_BLOCKED, 1000,
					     10000000, 2, 850000);
	static __u8 keys[4096 * KLEN], res[4096 / 8];
	struct bloom_info ia, ib;
	__u8 *before, *after;
	long long used;
	__u64 la, lb;

	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	ASSERT_LE(0, run_keys16(self->fd, BLOOM_IOC_ADD, keys, res, 4096, 0,
				3100, NULL));
	ASSERT_OK(bt_info(self->fd, NULL, &ia));
	ASSERT_EQ(3, ia.stages);
	before = bt_save_alloc(self->fd, "fl", &lb);
	ASSERT_NE(NULL, before);

	/* no room for a new first stage beside the three: nothing changes */
	used = read_u64_file(BLOOM_SYSFS "/memory_used");
	self->saved_max_memory = read_u64_file(BLOOM_MAX_MEMORY);
	ASSERT_LE(0, self->saved_max_memory);
	ASSERT_OK(write_u64_file(BLOOM_MAX_MEMORY, used));
	EXPECT_ERRNO(EDQUOT, bt_name_ioctl(self->fd, BLOOM_IOC_FLUSH, "fl"));
	ASSERT_OK(write_u64_file(BLOOM_MAX_MEMORY, self->saved_max_memory));
	EXPECT_EQ(3, filter_attr("fl", "stages"));
	EXPECT_EQ(0, absent16(self->fd, 3100));

	ASSERT_OK(bt_name_ioctl(self->fd, BLOOM_IOC_FLUSH, "fl"));
	ASSERT_OK(bt_info(self->fd, NULL, &ib));
	EXPECT_EQ(1, ib.stages);
	EXPECT_EQ(1, filter_attr("fl", "stages"));
	EXPECT_EQ(0, ib.count);
	EXPECT_EQ(0, ib.adds);
	EXPECT_EQ(0, ib.bits_set);
	EXPECT_EQ(ia.capacity, ib.capacity);
	EXPECT_EQ(ia.fpp_ppb, ib.fpp_ppb);
	EXPECT_EQ(ia.growth, ib.growth);
	EXPECT_EQ(ia.tightening_ppm, ib.tightening_ppm);
	EXPECT_EQ(stage_attr("fl", "bits", 0), (long long)ib.bits);
	EXPECT_GT(ia.memory_bytes, ib.memory_bytes);
	EXPECT_GT(used, read_u64_file(BLOOM_SYSFS "/memory_used"));
	/* an empty filter answers absent for every key */
	EXPECT_EQ(3100, absent16(self->fd, 3100));
	/* the same hash key: the snapshot header's bytes 120..135 */
	after = bt_save_alloc(self->fd, "fl", &la);
	ASSERT_NE(NULL, after);
	EXPECT_EQ(0, memcmp(before + 120, after + 120, 16));
	free(before);
	free(after);

	/* it grows again, through the descriptor bound before the flush */
	ASSERT_LE(0, run_keys16(self->fd, BLOOM_IOC_ADD, keys, res, 4096, 0,
				3100, NULL));
	EXPECT_EQ(0, absent16(self->fd, 3100));
	EXPECT_EQ(3, filter_attr("fl", "stages"));
}

/*
 * SAVE and RESTORE keep the stages: a scalable filter restored under
 * another name has the same stages (capacity, rate, bits, hashes, count,
 * bits set), memory and keys, and goes on growing; a replacing restore of
 * another scalable filter takes the stages, and its sysfs follows; the
 * restore counts every stage against max_memory.
 */
TEST_F(scale, snapshot_keeps_stages)
{
	struct bloom_create c = scalable_req("ss", BLOOM_TYPE_BLOCKED, 1000,
					     1000000, 2, 850000);
	static __u8 keys[4096 * KLEN], res[4096 / 8];
	struct bloom_stage sa[BLOOM_SCALE_STAGES_MAX], sb[BLOOM_SCALE_STAGES_MAX];
	struct bloom_info ia, ib;
	__u32 na = 0, nb = 0, i;
	long long used;
	int fr, fo;
	__u64 len;
	__u8 *buf;

	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	ASSERT_LE(0, run_keys16(self->fd, BLOOM_IOC_ADD, keys, res, 4096, 0,
				5000, NULL));
	ASSERT_OK(get_stages(self->fd, sa, &na));
	ASSERT_EQ(3, na);
	ASSERT_OK(bt_info(self->fd, NULL, &ia));
	buf = bt_save_alloc(self->fd, "ss", &len);
	ASSERT_NE(NULL, buf);

	ASSERT_OK(bt_restore_as(self->fd, buf, len, "sr", 0));
	fr = bt_open();
	ASSERT_LE(0, fr);
	ASSERT_OK(bt_bind(fr, "sr"));
	ASSERT_OK(get_stages(fr, sb, &nb));
	ASSERT_EQ(na, nb);
	for (i = 0; i < na; i++) {
		EXPECT_EQ(sa[i].capacity, sb[i].capacity) TH_LOG("stage %u", i);
		EXPECT_EQ(sa[i].fpp_ppb, sb[i].fpp_ppb) TH_LOG("stage %u", i);
		EXPECT_EQ(sa[i].bits, sb[i].bits) TH_LOG("stage %u", i);
		EXPECT_EQ(sa[i].hashes, sb[i].hashes) TH_LOG("stage %u", i);
		EXPECT_EQ(sa[i].count, sb[i].count) TH_LOG("stage %u", i);
		EXPECT_EQ(sa[i].bits_set, sb[i].bits_set) TH_LOG("stage %u", i);
	}
	ASSERT_OK(bt_info(fr, NULL, &ib));
	EXPECT_EQ(BLOOM_TYPE_BLOCKED, ib.type);
	EXPECT_EQ(ia.stages, ib.stages);
	EXPECT_EQ(2, ib.growth);
	EXPECT_EQ(850000, ib.tightening_ppm);
	EXPECT_EQ(ia.capacity, ib.capacity);
	EXPECT_EQ(ia.fpp_ppb, ib.fpp_ppb);
	EXPECT_EQ(ia.bits, ib.bits);
	EXPECT_EQ(ia.bits_set, ib.bits_set);
	EXPECT_EQ(ia.memory_bytes, ib.memory_bytes);
	EXPECT_EQ(ia.estimated_fpp_ppb, ib.estimated_fpp_ppb);
	EXPECT_EQ(3, filter_attr("sr", "stages"));
	EXPECT_EQ((long long)sa[2].count, stage_attr("sr", "count", 2));
	EXPECT_EQ(0, absent16(fr, 5000));
	/* it goes on: 4000 more keys need a fourth stage */
	ASSERT_LE(0, run_keys16(fr, BLOOM_IOC_ADD, keys, res, 4096, 5000,
				4000, NULL));
	EXPECT_EQ(4, filter_attr("sr", "stages"));
	EXPECT_EQ(0, absent16(fr, 9000));

	/* replacing another scalable filter's contents: its stages now */
	fo = bt_open();
	ASSERT_LE(0, fo);
	c = scalable_req("so", BLOOM_TYPE_BLOCKED, 1000, 1000000, 2, 850000);
	ASSERT_OK(ioctl(fo, BLOOM_IOC_CREATE, &c));
	EXPECT_EQ(1, filter_attr("so", "stages"));
	ASSERT_OK(bt_restore_as(self->fd, buf, len, "so",
			     BLOOM_RESTORE_F_REPLACE));
	EXPECT_EQ(3, filter_attr("so", "stages"));
	EXPECT_EQ(4000, stage_attr("so", "capacity", 2));
	EXPECT_EQ(0, absent16(fo, 5000)) TH_LOG("through the bound descriptor");

	/* every stage counts against max_memory: a limit just short fails */
	ASSERT_OK(bt_destroy(self->fd, "sr"));
	ASSERT_OK(bt_destroy(self->fd, "so"));
	used = read_u64_file(BLOOM_SYSFS "/memory_used");
	ASSERT_LE(0, used);
	self->saved_max_memory = read_u64_file(BLOOM_MAX_MEMORY);
	ASSERT_LE(0, self->saved_max_memory);
	ASSERT_OK(write_u64_file(BLOOM_MAX_MEMORY,
				 used + ia.memory_bytes - 1));
	EXPECT_ERRNO(EDQUOT, bt_restore_as(self->fd, buf, len, "sq", 0));
	EXPECT_ERRNO(ENOENT, bt_info(self->fd, "sq", &ib));
	EXPECT_EQ(used, read_u64_file(BLOOM_SYSFS "/memory_used"));
	ASSERT_OK(write_u64_file(BLOOM_MAX_MEMORY, used + ia.memory_bytes));
	EXPECT_OK(bt_restore_as(self->fd, buf, len, "sq", 0));
	free(buf);
	close(fr);
	close(fo);
}

BT_LEAK_CHECK_TEST()

TEST_HARNESS_MAIN
