// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_limits: memory limits. Filter memory is allocated with
 * GFP_KERNEL_ACCOUNT, so it is charged to the creator's memory cgroup: a
 * filter larger than the cgroup's memory.max must fail with ENOMEM and leave
 * the creator alive and nothing allocated; one under the limit works and
 * shows up in memory.current. What a call allocates for itself (a
 * batch's hashes) is charged to the caller's group too. The module's own cap (max_memory) must refuse
 * with EDQUOT, and absurd requests must be refused before anything is
 * allocated.
 *
 * The cgroup tests move a forked child into a fresh cgroup v2 group, so the
 * harness's own process is never the one at the limit; the child reports
 * what it saw through a pipe, the parent checks the module's counters.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "bloom_test.h"

#define CG_ROOT		"/sys/fs/cgroup"
#define CG_LIMIT	(16ULL << 20)	/* memory.max of the test group */
/* Standard filters at 1%: about 1.2 bytes per key. */
#define FPP_1PCT	10000000U
#define BIG_CAPACITY	(50ULL * 1000 * 1000)	/* ~60 MB: over CG_LIMIT */
#define SMALL_CAPACITY	(6ULL * 1000 * 1000)	/* ~7 MB: under CG_LIMIT */
/*
 * Counting filters at 1% whose tables are a little over 2 MiB (4 bits a
 * counter), three of them: what they take is 4.5 MiB short of what a
 * power of two of pages each would take, over CHARGE_SLACK.
 */
#define TABLES_CAPACITY	450000ULL
#define TABLES_FILTERS	3
/* Per-CPU charge batching (64 pages per CPU) and the child's own pages. */
#define CHARGE_SLACK	(2ULL << 20)

static long long memory_used(void)
{
	return read_u64_file(BLOOM_SYSFS "/memory_used");
}

static int write_str_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* What a child in the limited cgroup measured; sent back through a pipe. */
struct child_report {
	int create_errno;	/* errno of the CREATE, 0 on success */
	int query_present;	/* keys added then found present (of 64) */
	long long mem_before;	/* memory.current before CREATE */
	long long mem_after;	/* memory.current after CREATE */
	long long mem_destroyed;	/* memory.current after DESTROY */
	long long memory_bytes;	/* INFO's memory_bytes */
	int destroy_errno;
	int step;		/* how far the child got */
};

FIXTURE(limits) {
	int fd;
	char cg[128];			/* our cgroup's path, "" if none */
	long long saved_max_memory;	/* -1 if untouched */
	long long live0, used0;		/* baselines */
};

/*
 * Makes a child cgroup with the memory controller and memory.max set.
 * Returns NULL on success, else why the guest cannot do it (a SKIP reason:
 * only a kernel without the memory controller is a reason to skip).
 */
static const char *make_cgroup(char *cg, size_t len)
{
	char path[192], ctl[256];

	if (access(CG_ROOT "/cgroup.controllers", R_OK) &&
	    mount("none", CG_ROOT, "cgroup2", 0, NULL))
		return "cannot mount cgroup2 on " CG_ROOT;
	if (read_str_file(CG_ROOT "/cgroup.controllers", ctl, sizeof(ctl)))
		return "cannot read " CG_ROOT "/cgroup.controllers";
	if (!strstr(ctl, "memory"))
		return "the kernel has no cgroup v2 memory controller";
	/* Failing to enable it once it is offered is a failure, not a skip. */
	write_str_file(CG_ROOT "/cgroup.subtree_control", "+memory");
	snprintf(cg, len, CG_ROOT "/bloom_limits.%d", getpid());
	if (mkdir(cg, 0755) && errno != EEXIST)
		return NULL;
	snprintf(path, sizeof(path), "%s/memory.max", cg);
	snprintf(ctl, sizeof(ctl), "%llu", CG_LIMIT);
	write_str_file(path, ctl);
	/* No swap in the guest, but a host with swap would blur the limit. */
	snprintf(path, sizeof(path), "%s/memory.swap.max", cg);
	write_str_file(path, "0");
	return NULL;
}

/* In a test: self->cg made, or the test skipped when the guest cannot. */
#define LIMITS_CGROUP()							\
	do {								\
		const char *why = make_cgroup(self->cg, sizeof(self->cg)); \
									\
		if (why)						\
			SKIP(return, "%s", why);			\
		ASSERT_EQ(0, access(self->cg, F_OK))			\
			TH_LOG("cannot create cgroup %s: %s", self->cg,	\
			       strerror(errno));			\
	} while (0)

FIXTURE_SETUP(limits)
{
	self->saved_max_memory = -1;
	self->cg[0] = 0;
	self->fd = bt_open();
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", BLOOM_DEV, strerror(errno));
	/* Our descriptor and nothing else. */
	self->live0 = live_allocations_baseline(1);
	ASSERT_EQ(1, self->live0) TH_LOG("allocations left by earlier tests");
	self->used0 = memory_used();
	ASSERT_LE(0, self->used0);
}

FIXTURE_TEARDOWN(limits)
{
	int i;

	if (self->saved_max_memory >= 0)
		write_u64_file(BLOOM_MAX_MEMORY, self->saved_max_memory);
	close(self->fd);
	bt_destroy_all();
	/* The group empties when the child is reaped; removal may lag. */
	for (i = 0; self->cg[0] && i < 100 && rmdir(self->cg); i++)
		usleep(10000);
}

static long long cg_read(const char *cg, const char *file)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	return read_u64_file(path);
}

/* One "key value" line of a cgroup file such as memory.events. */
static long long cg_key(const char *cg, const char *file, const char *key)
{
	char path[256], line[256];
	long long v = -1;
	size_t klen = strlen(key);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ' ')
			v = atoll(line + klen + 1);
	fclose(f);
	return v;
}

/*
 * The child: joins the cgroup, creates a filter of @capacity, and if that
 * worked adds and queries keys and destroys it, recording everything.
 * It never returns.
 */
static void __attribute__((noreturn)) child_run(const char *cg, __u64 capacity,
						int wfd)
{
	struct child_report r = { .step = 0 };
	struct bloom_info info;
	char path[256], pid[32];
	__u8 keys[64 * 16], res[8];
	int fd, i;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	snprintf(pid, sizeof(pid), "%d", getpid());
	if (write_str_file(path, pid))
		goto out;
	r.step = 1;
	fd = bt_open();
	if (fd < 0)
		goto out;
	r.step = 2;
	/* Touch the stack and the report now, not during the measurement. */
	memset(keys, 0, sizeof(keys));
	r.mem_before = cg_read(cg, "memory.current");
	r.create_errno = errno_of(bt_create(fd, "limits", BLOOM_TYPE_STANDARD,
					    capacity, FPP_1PCT,
					    BLOOM_CREATE_F_BIND));
	r.mem_after = cg_read(cg, "memory.current");
	r.step = 3;
	if (r.create_errno)
		goto out_close;
	if (!bt_info(fd, NULL, &info))
		r.memory_bytes = info.memory_bytes;
	for (i = 0; i < 64; i++)
		make_key16(i, keys + 16 * i);
	if (bt_batch(fd, BLOOM_IOC_ADD, keys, sizeof(keys), 64, 16, NULL,
		     NULL, NULL))
		goto out_close;
	memset(res, 0, sizeof(res));
	if (bt_batch(fd, BLOOM_IOC_QUERY, keys, sizeof(keys), 64, 16, NULL,
		     res, NULL))
		goto out_close;
	r.query_present = popcount_bm(res, 64);
	r.step = 4;
	close(fd);
	fd = bt_open();
	r.destroy_errno = errno_of(bt_destroy(fd, "limits"));
	/* The last reference is gone: the free may wait for RCU. */
	for (i = 0; i < 200; i++) {
		r.mem_destroyed = cg_read(cg, "memory.current");
		if (r.mem_destroyed < r.mem_after - (long long)r.memory_bytes / 2)
			break;
		usleep(10000);
	}
	r.step = 5;
out_close:
	close(fd);
out:
	if (write(wfd, &r, sizeof(r)) != sizeof(r))
		_exit(3);
	_exit(0);
}

/* What batch_child() measured. */
struct batch_report {
	int add_errno;		/* errno of the ADD, 0 on success */
	long long peak_before;	/* memory.peak before the ADD */
	long long peak_after;	/* and after it */
};

/*
 * A child that joins the cgroup, binds the parent's filter "calls" and adds
 * BLOOM_BATCH_MAX_KEYS keys in one call, with the group's memory.peak read
 * around it: the call's own buffers (8 bytes a key of hashes) are freed
 * before it returns, so only the peak can show whom they were charged to.
 */
static void __attribute__((noreturn)) batch_child(const char *cg, __u64 unused,
						  int wfd)
{
	struct batch_report r = { .add_errno = -1 };
	__u32 nkeys = BLOOM_BATCH_MAX_KEYS, i;
	char path[256], pid[32];
	__u8 *keys;
	int fd;

	(void)unused;
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	snprintf(pid, sizeof(pid), "%d", getpid());
	keys = malloc((size_t)nkeys * 16);
	fd = bt_open();
	if (!keys || fd < 0 || bt_bind(fd, "calls") || write_str_file(path, pid))
		goto out;
	/* the keys' pages charged now, not during the measurement */
	for (i = 0; i < nkeys; i++)
		make_key16(i, keys + 16 * i);
	r.peak_before = cg_read(cg, "memory.peak");
	r.add_errno = errno_of(bt_batch(fd, BLOOM_IOC_ADD, keys,
					(__u64)nkeys * 16, nkeys, 16, NULL,
					NULL, NULL));
	r.peak_after = cg_read(cg, "memory.peak");
out:
	if (write(wfd, &r, sizeof(r)) != sizeof(r))
		_exit(3);
	_exit(0);
}

/* What tables_child() measured. */
struct tables_report {
	int create_errno;	/* errno of the first CREATE that failed */
	int made;		/* filters made */
	long long mem_before;	/* memory.current before the CREATEs */
	long long mem_after;	/* and after them */
	long long memory_bytes;	/* the sum of their INFO's memory_bytes */
};

/*
 * A child that joins the cgroup and makes TABLES_FILTERS counting filters
 * of @capacity (tables of their own, not mappable: the slab or vmalloc
 * serves them, never the mapping's pages), with the group's memory.current
 * read around them.
 */
static void __attribute__((noreturn)) tables_child(const char *cg,
						   __u64 capacity, int wfd)
{
	struct tables_report r = { .create_errno = -1 };
	struct bloom_info info;
	char path[256], pid[32], name[32];
	int fd, i;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	snprintf(pid, sizeof(pid), "%d", getpid());
	fd = bt_open();
	if (fd < 0 || write_str_file(path, pid))
		goto out;
	r.create_errno = 0;
	r.mem_before = cg_read(cg, "memory.current");
	for (i = 0; i < TABLES_FILTERS; i++) {
		snprintf(name, sizeof(name), "tables%d", i);
		r.create_errno = errno_of(bt_create(fd, name,
						    BLOOM_TYPE_COUNTING,
						    capacity, FPP_1PCT, 0));
		if (r.create_errno)
			break;
		r.made++;
	}
	r.mem_after = cg_read(cg, "memory.current");
	for (i = 0; i < r.made; i++) {
		snprintf(name, sizeof(name), "tables%d", i);
		if (!bt_info(fd, name, &info))
			r.memory_bytes += info.memory_bytes;
	}
out:
	if (write(wfd, &r, sizeof(r)) != sizeof(r))
		_exit(3);
	_exit(0);
}

/*
 * Runs @fn (child_run(), batch_child(), tables_child()) in a fork and collects its report
 * of @len bytes into @r. Returns 0 when the child exited normally, else its
 * wait status (a signal means it was killed, e.g. by the memory cgroup's
 * OOM killer).
 */
static int run_in_child(void (*fn)(const char *, __u64, int), const char *cg,
			__u64 arg, void *r, size_t len)
{
	int p[2], status;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		close(p[0]);
		fn(cg, arg, p[1]);
	}
	close(p[1]);
	if (read(p[0], r, len) != (ssize_t)len)
		memset(r, 0, len);
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : status;
}

static int run_child(const char *cg, __u64 capacity, struct child_report *r)
{
	return run_in_child(child_run, cg, capacity, r, sizeof(*r));
}

/*
 * A filter larger than the cgroup's limit but under max_memory: ENOMEM, the
 * creator survives, nothing stays allocated or reserved, no name remains.
 */
TEST_F(limits, cgroup_over_limit_enomem)
{
	struct child_report r;
	struct bloom_info info;
	int st;

	LIMITS_CGROUP();
	ASSERT_EQ((long long)CG_LIMIT, cg_read(self->cg, "memory.max"));
	/* Make sure it is the cgroup, not max_memory, that refuses. */
	self->saved_max_memory = read_u64_file(BLOOM_MAX_MEMORY);
	ASSERT_LE(0, self->saved_max_memory);
	ASSERT_OK(write_u64_file(BLOOM_MAX_MEMORY, 1ULL << 30));

	st = run_child(self->cg, BIG_CAPACITY, &r);
	/* Report a dead creator, but still check for leaks below. */
	EXPECT_EQ(0, st)
		TH_LOG("the creator did not survive: %s %d (memory cgroup OOM kill instead of ENOMEM?)",
		       WIFSIGNALED(st) ? "killed by signal" : "wait status",
		       WIFSIGNALED(st) ? WTERMSIG(st) : st);
	if (!st) {
		EXPECT_LE(3, r.step) TH_LOG("child stopped at step %d", r.step);
		EXPECT_EQ(ENOMEM, r.create_errno)
			TH_LOG("CREATE of a ~60 MB filter in a 16 MB cgroup");
	}
	TH_LOG("over the limit: errno %d, memory.current %lld -> %lld, memory.events max %lld oom %lld oom_kill %lld",
	       r.create_errno, r.mem_before, r.mem_after,
	       cg_key(self->cg, "memory.events", "max"),
	       cg_key(self->cg, "memory.events", "oom"),
	       cg_key(self->cg, "memory.events", "oom_kill"));
	EXPECT_EQ(self->live0, wait_live_allocations(self->live0, BT_FREE_WAIT_MS))
		TH_LOG("live_allocations not back at the baseline");
	EXPECT_EQ(self->used0, memory_used())
		TH_LOG("memory_used not back at the baseline");
	EXPECT_ERRNO(ENOENT, bt_info(self->fd, "limits", &info));
	/* The charge is gone again with the allocation. */
	EXPECT_GT((long long)CHARGE_SLACK, cg_read(self->cg, "memory.current"));
}

/* A filter under the limit works, and its memory is charged to the group. */
TEST_F(limits, cgroup_under_limit_charged)
{
	struct child_report r;
	long long delta;
	int st;

	LIMITS_CGROUP();
	st = run_child(self->cg, SMALL_CAPACITY, &r);
	ASSERT_EQ(0, st) TH_LOG("child wait status %d", st);
	ASSERT_LE(3, r.step) TH_LOG("child stopped at step %d", r.step);
	ASSERT_EQ(0, r.create_errno)
		TH_LOG("CREATE of a ~7 MB filter in a 16 MB cgroup: %s",
		       strerror(r.create_errno));
	EXPECT_EQ(5, r.step) TH_LOG("child stopped at step %d", r.step);
	EXPECT_EQ(64, r.query_present);
	EXPECT_EQ(0, r.destroy_errno);
	delta = r.mem_after - r.mem_before;
	TH_LOG("under the limit: memory_bytes %lld, memory.current %lld -> %lld (+%lld), after destroy %lld",
	       r.memory_bytes, r.mem_before, r.mem_after, delta,
	       r.mem_destroyed);
	EXPECT_LT(6LL << 20, r.memory_bytes);
	/* Charged: the group grew by the filter, give or take the batching. */
	EXPECT_LE(r.memory_bytes - (long long)CHARGE_SLACK, delta);
	EXPECT_GE(r.memory_bytes + (long long)CHARGE_SLACK, delta);
	/*
	 * And uncharged once the filter is freed: a grace period after the
	 * destroy (the child's mem_destroyed may still hold it on a slow
	 * kernel), so after the wait for its allocations.
	 */
	EXPECT_EQ(self->live0, wait_live_allocations(self->live0, BT_FREE_WAIT_MS));
	EXPECT_GT(r.mem_after - r.memory_bytes + (long long)CHARGE_SLACK,
		  cg_read(self->cg, "memory.current"));
	EXPECT_EQ(self->used0, memory_used());
}

/*
 * memory_bytes is what a filter takes, for tables the mapping does not
 * serve too: three counting filters of TABLES_CAPACITY (tables of a little
 * over 2 MiB each, which the page allocator would round up to 4 MiB) grow
 * the group by the sum of their memory_bytes, give or take the batching.
 */
TEST_F(limits, cgroup_tables_charged_as_reported)
{
	struct tables_report r;
	long long delta;
	int st;

	LIMITS_CGROUP();
	st = run_in_child(tables_child, self->cg, TABLES_CAPACITY, &r,
			  sizeof(r));
	ASSERT_EQ(0, st) TH_LOG("child wait status %d", st);
	ASSERT_EQ(0, r.create_errno)
		TH_LOG("CREATE %d of %d counting filters of %llu keys: %s",
		       r.made + 1, TABLES_FILTERS, TABLES_CAPACITY,
		       strerror(r.create_errno));
	delta = r.mem_after - r.mem_before;
	TH_LOG("%d counting filters: memory_bytes %lld in all, memory.current +%lld",
	       r.made, r.memory_bytes, delta);
	EXPECT_LT((long long)TABLES_FILTERS * (2LL << 20), r.memory_bytes);
	EXPECT_LE(r.memory_bytes - (long long)CHARGE_SLACK, delta);
	EXPECT_GE(r.memory_bytes + (long long)CHARGE_SLACK, delta);
}

/*
 * What a call allocates for itself is charged to the caller's cgroup: an
 * ADD of BLOOM_BATCH_MAX_KEYS keys holds 512 KiB of hashes while it runs,
 * to a filter made outside the group.
 */
TEST_F(limits, cgroup_call_buffers_charged)
{
	struct batch_report r;
	int st;

	LIMITS_CGROUP();
	ASSERT_OK(bt_create(self->fd, "calls", BLOOM_TYPE_STANDARD,
			    2 * BLOOM_BATCH_MAX_KEYS, FPP_1PCT, 0));
	st = run_in_child(batch_child, self->cg, 0, &r, sizeof(r));
	ASSERT_EQ(0, st) TH_LOG("child wait status %d", st);
	ASSERT_EQ(0, r.add_errno) TH_LOG("ADD: %s", strerror(r.add_errno));
	ASSERT_LT(0, r.peak_before) TH_LOG("no memory.peak in the group");
	TH_LOG("memory.peak %lld -> %lld (+%lld) around an ADD of %d keys",
	       r.peak_before, r.peak_after, r.peak_after - r.peak_before,
	       BLOOM_BATCH_MAX_KEYS);
	/* 8 bytes a key, less what the per-CPU charge batch held already */
	EXPECT_LE(BLOOM_BATCH_MAX_KEYS * 8LL - (256LL << 10),
		  r.peak_after - r.peak_before);
}

/*
 * The module's cap: a filter that would take memory_used over max_memory
 * fails with EDQUOT, allocates nothing, and the filters that exist keep
 * working; what fits in the rest still works.
 */
TEST_F(limits, max_memory_edquot)
{
	struct bloom_info info;
	long long live, used, cap, bytes;
	__u8 key[16];

	self->saved_max_memory = read_u64_file(BLOOM_MAX_MEMORY);
	ASSERT_LE(0, self->saved_max_memory);
	ASSERT_OK(bt_create(self->fd, "a", BLOOM_TYPE_STANDARD, 100000,
			    FPP_1PCT, BLOOM_CREATE_F_BIND));
	ASSERT_OK(bt_info(self->fd, NULL, &info));
	make_key16(1, key);
	ASSERT_EQ(0, bt_one(self->fd, BLOOM_IOC_ADD, key, 16));

	/* Room for exactly one more filter like "a", not two. */
	bytes = info.memory_bytes;
	cap = memory_used() + bytes;
	ASSERT_OK(write_u64_file(BLOOM_MAX_MEMORY, cap));
	live = live_allocations();
	used = memory_used();
	EXPECT_ERRNO(EDQUOT, bt_create(self->fd, "big", BLOOM_TYPE_COUNTING,
				       100000, FPP_1PCT, 0));
	EXPECT_ERRNO(EDQUOT, bt_create(self->fd, "big", BLOOM_TYPE_STANDARD,
				       200000, FPP_1PCT, 0));
	EXPECT_EQ(live, live_allocations());
	EXPECT_EQ(used, memory_used());
	EXPECT_ERRNO(ENOENT, bt_info(self->fd, "big", &info));
	/* Exactly at the limit is allowed. */
	EXPECT_OK(bt_create(self->fd, "b", BLOOM_TYPE_STANDARD, 100000,
			    FPP_1PCT, 0));
	EXPECT_EQ(cap, memory_used());
	EXPECT_ERRNO(EDQUOT, bt_create(self->fd, "c", BLOOM_TYPE_STANDARD,
				       1, FPP_1PCT, 0));

	/* A limit below what is in use: no new filter, the old ones work. */
	ASSERT_OK(write_u64_file(BLOOM_MAX_MEMORY, 4096));
	EXPECT_ERRNO(EDQUOT, bt_create(self->fd, "c", BLOOM_TYPE_DLEFT, 1,
				       FPP_1PCT, 0));
	EXPECT_EQ(1, bt_one(self->fd, BLOOM_IOC_QUERY, key, 16));
	EXPECT_OK(bt_destroy(self->fd, "b"));
	EXPECT_EQ(cap - bytes, memory_used());
}

struct absurd {
	const char *what;
	__u32 type, flags, hashes, fpp_ppb;
	__u64 capacity, bits;
	int expect;	/* errno */
};

/*
 * Requests that can never be satisfied are refused by validation, before
 * the module reserves or allocates anything. A legal but huge one is
 * refused by max_memory (EDQUOT), also before any allocation.
 */
TEST_F(limits, absurd_requests_refused_before_allocation)
{
	static const struct absurd cases[] = {
		{ "capacity 0", 1, 0, 0, FPP_1PCT, 0, 0, EINVAL },
		{ "capacity 2^32", 1, 0, 0, FPP_1PCT, 1ULL << 32, 0, EINVAL },
		{ "capacity 2^64-1", 3, 0, 0, FPP_1PCT, ~0ULL, 0, EINVAL },
		{ "fpp 0", 2, 0, 0, 0, 1000, 0, EINVAL },
		{ "fpp > 0.5", 4, 0, 0, 500000001, 1000, 0, EINVAL },
		{ "fpp 2^32-1", 1, 0, 0, ~0U, 1000, 0, EINVAL },
		{ "geometry bits 2^40+512", 1, BLOOM_CREATE_F_GEOMETRY, 7,
		  FPP_1PCT, 1000, (1ULL << 40) + 512, E2BIG },
		{ "geometry bits 2^64-512", 2, BLOOM_CREATE_F_GEOMETRY, 7,
		  FPP_1PCT, 1000, ~0ULL << 9, E2BIG },
		{ "geometry bits 2^63 counting", 3, BLOOM_CREATE_F_GEOMETRY, 7,
		  FPP_1PCT, 1000, 1ULL << 63, E2BIG },
		{ "geometry hashes 0", 1, BLOOM_CREATE_F_GEOMETRY, 0,
		  FPP_1PCT, 1000, 4096, EINVAL },
		{ "geometry hashes 2^32-1", 1, BLOOM_CREATE_F_GEOMETRY, ~0U,
		  FPP_1PCT, 1000, 4096, EINVAL },
		{ "geometry bits 0", 1, BLOOM_CREATE_F_GEOMETRY, 3,
		  FPP_1PCT, 1000, 0, EINVAL },
		/* Legal, 128 GiB: only max_memory stands in the way. */
		{ "geometry bits 2^40", 1, BLOOM_CREATE_F_GEOMETRY, 7,
		  FPP_1PCT, 1000, 1ULL << 40, EDQUOT },
		{ "capacity 2^32-1 at 1e-9", 3, 0, 0, 1, 0xffffffffULL, 0,
		  EDQUOT },
		/*
		 * 64-bit d-left cells, 85.3 bits per key: 42.7 GiB, legal
		 * (E2BIG while cells were at most 32 bits: 2^42 bits)
		 */
		{ "d-left capacity 2^32-1 at 1e-9", 4, 0, 0, 1, 0xffffffffULL,
		  0, EDQUOT },
	};
	long long live = self->live0, used = memory_used();
	struct bloom_create c;
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		c = bt_create_req("absurd", cases[i].type, cases[i].capacity,
				  cases[i].fpp_ppb, cases[i].flags);
		c.hashes = cases[i].hashes;
		c.bits = cases[i].bits;
		EXPECT_ERRNO(cases[i].expect, ioctl(self->fd, BLOOM_IOC_CREATE,
						    &c))
			TH_LOG("%s", cases[i].what);
		EXPECT_EQ(live, live_allocations()) TH_LOG("%s", cases[i].what);
		EXPECT_EQ(used, memory_used()) TH_LOG("%s", cases[i].what);
	}
}

BT_LEAK_CHECK_TEST()

TEST_HARNESS_MAIN
