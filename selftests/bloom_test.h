/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers for the bloom kselftests: thin wrappers around the raw
 * ioctls of uapi/linux/bloom.h (deliberately not libbloom, so that the tests
 * check the ABI itself), sysfs readers and the leak check every test program
 * ends with. The wrappers are named bt_* so that they are never mistaken for
 * libbloom's bloom_* functions, which take other arguments and return
 * -errno.
 *
 * Wrappers return the ioctl's return value and leave errno alone, so a test
 * can write EXPECT_ERRNO(EINVAL, bt_create(...)).
 */
#ifndef BLOOM_TEST_H
#define BLOOM_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <linux/bloom.h>

/*
 * The harness defines functions and data that are not static, so a program
 * of several files cannot include it in each: such a program (bloom_faults)
 * defines BT_NO_HARNESS before this header and gets kselftest.h alone.
 */
#ifdef BT_NO_HARNESS
#include "kselftest.h"
#else
#include "kselftest_harness.h"
#endif

#define BLOOM_DEV		"/dev/bloom"
#define BLOOM_SYSFS		"/sys/class/misc/bloom"
#define BLOOM_DEBUGFS		"/sys/kernel/debug/bloom"	/* not ABI */
#define BLOOM_MAX_MEMORY	"/sys/module/bloom/parameters/max_memory"

/*
 * The size of every struct of the ABI, as the kernel must expect it: a
 * change of the header that moves one is caught by struct_sizes_are_abi.
 */
#define BT_VERSION_SIZE	64
#define BT_CREATE_SIZE	192
#define BT_NAME_SIZE		48
/* 328 before late_rotations, 336 before the key timeouts, 360 before the
 * netblock lengths, 384 before the XDP holds */
#define BT_INFO_SIZE		392
/* The structs that grew since ABI version 1, as they were there. */
#define BT_CREATE_V1_SIZE	144
#define BT_INFO_V1_SIZE	288
#define BT_BATCH_V1_SIZE	72
#define BT_LIST_SIZE		32
#define BT_BATCH_SIZE	88
#define BT_SAVE_SIZE		72
#define BT_RESTORE_SIZE	64
#define BT_PAIR_SIZE		80
#define BT_STAGES_SIZE	64
#define BT_STAGE_SIZE	48
/* The largest size a caller may pass (E2BIG above, before any reading). */
#define BT_ARG_SIZE_MAX	4096

/*
 * A canonical kernel address on x86-64 (the kernel text mapping): the kernel
 * must refuse it as a user pointer with EFAULT, not read it.
 */
#define KERNEL_PTR		0xffffffff81000000ULL

/* The filter types, short, for the tables of cases. */
#define STD	BLOOM_TYPE_STANDARD
#define BLK	BLOOM_TYPE_BLOCKED
#define CNT	BLOOM_TYPE_COUNTING
#define DLF	BLOOM_TYPE_DLEFT

/*
 * 0 for a call that returned 0, its errno for one that returned -1, and -1
 * for anything else (no command returns a positive value). The argument is
 * evaluated before the call, so errno is read right after the command.
 */
static inline int errno_of(long ret)
{
	return ret == -1 ? errno : ret == 0 ? 0 : -1;
}

/*
 * Like the iommufd selftests: the call must fail with exactly this errno.
 * EXPECT rather than ASSERT, so one wrong errno in a matrix does not hide the
 * rest of it; a success shows up as "(0)". Like every harness EXPECT it may
 * be followed by TH_LOG(...), and, for that reason, a loop or if around it
 * needs braces.
 */
#define EXPECT_ERRNO(expected_errno, cmd) \
	EXPECT_EQ(expected_errno, errno_of(cmd))

/* The call must succeed; on failure the errno is printed as the value. */
#define ASSERT_OK(cmd)	ASSERT_EQ(0, errno_of(cmd))
#define EXPECT_OK(cmd)	EXPECT_EQ(0, errno_of(cmd))

static inline __u64 u64_ptr(const void *p)
{
	return (__u64)(uintptr_t)p;
}

/* Copies up to 31 bytes of name into a zeroed 32-byte name field. */
static inline void set_name(char *field, const char *name)
{
	memset(field, 0, BLOOM_NAME_LEN);
	memcpy(field, name, strnlen(name, BLOOM_NAME_LEN - 1));
}

/*
 * A page shared by the harness's forked tests (each TEST runs in a child):
 * earlier tests leave their figures there for a last one to print side by
 * side. NULL if it cannot be mapped; the tests then skip the summary.
 */
static inline void *bt_shared_page(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static inline int bt_open(void)
{
	return open(BLOOM_DEV, O_RDWR | O_CLOEXEC);
}

/* A filled-in create request; callers tweak fields before the ioctl. */
static inline struct bloom_create bt_create_req(const char *name, __u32 type,
						__u64 capacity, __u32 fpp_ppb,
						__u32 flags)
{
	struct bloom_create c;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.flags = flags;
	c.type = type;
	c.capacity = capacity;
	c.fpp_ppb = fpp_ppb;
	set_name(c.name, name);
	return c;
}

/*
 * The key timeout a timed filter of the type-parametrised tests gives keys
 * added without one, and the largest: an hour, longer than any test runs,
 * so that no key of such a test expires while it is looked at.
 */
#define BT_TIMED_KEY_TIMEOUT_S	3600

/* bt_create_req() of any type: a timed filter gets BT_TIMED_KEY_TIMEOUT_S. */
static inline struct bloom_create bt_typed_req(const char *name, __u32 type,
					       __u64 capacity, __u32 fpp_ppb,
					       __u32 flags)
{
	struct bloom_create c = bt_create_req(name, type, capacity, fpp_ppb,
					      flags);

	if (type == BLOOM_TYPE_TIMED) {
		c.key_timeout_s = BT_TIMED_KEY_TIMEOUT_S;
		c.key_timeout_max_s = BT_TIMED_KEY_TIMEOUT_S;
	}
	return c;
}

/* CREATE of bt_typed_req(). */
static inline int bt_create(int fd, const char *name, __u32 type,
			    __u64 capacity, __u32 fpp_ppb, __u32 flags)
{
	struct bloom_create c = bt_typed_req(name, type, capacity, fpp_ppb,
					     flags);

	return ioctl(fd, BLOOM_IOC_CREATE, &c);
}

static inline int bt_name_ioctl(int fd, unsigned long cmd, const char *name)
{
	struct bloom_name n;

	memset(&n, 0, sizeof(n));
	n.size = sizeof(n);
	set_name(n.name, name);
	return ioctl(fd, cmd, &n);
}

static inline int bt_destroy(int fd, const char *name)
{
	return bt_name_ioctl(fd, BLOOM_IOC_DESTROY, name);
}

static inline int bt_bind(int fd, const char *name)
{
	return bt_name_ioctl(fd, BLOOM_IOC_BIND, name);
}

/* INFO by name, or of the bound filter when name is NULL. */
static inline int bt_info(int fd, const char *name, struct bloom_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	if (name)
		set_name(info->name, name);
	return ioctl(fd, BLOOM_IOC_INFO, info);
}

static inline int bt_version(int fd, struct bloom_version *v)
{
	memset(v, 0, sizeof(*v));
	v->size = sizeof(*v);
	return ioctl(fd, BLOOM_IOC_VERSION, v);
}

/* The number of filters LIST counts; ~0U if LIST fails. */
static inline __u32 nfilters(int fd)
{
	struct bloom_list l = { .size = sizeof(l) };

	if (ioctl(fd, BLOOM_IOC_LIST, &l))
		return ~0U;
	return l.out_count;
}

/*
 * One ADD, QUERY or DELETE batch. key_size != 0: fixed-size keys, lens must be NULL;
 * key_size == 0: lengths at lens. The filled struct is returned through b so
 * callers can look at out_done/out_hits.
 */
static inline int bt_batch(int fd, unsigned long cmd, const void *keys,
			   __u64 keys_len, __u32 nkeys, __u32 key_size,
			   const __u32 *lens, void *results,
			   struct bloom_batch *b)
{
	struct bloom_batch local;

	if (!b)
		b = &local;
	memset(b, 0, sizeof(*b));
	b->size = sizeof(*b);
	b->nkeys = nkeys;
	b->key_size = key_size;
	b->keys = u64_ptr(keys);
	b->lens = u64_ptr(lens);
	b->keys_len = keys_len;
	b->results = u64_ptr(results);
	return ioctl(fd, cmd, b);
}

/*
 * An ADD to a timed filter of @nkeys keys of @key_size bytes, key i with
 * timeout @timeouts[i], or @timeout_s for all when @timeouts is NULL.
 */
static inline int bt_timed_add(int fd, const void *keys, __u32 nkeys,
			       __u32 key_size, const __u32 *timeouts,
			       __u32 timeout_s, void *results,
			       struct bloom_batch *b)
{
	memset(b, 0, sizeof(*b));
	b->size = sizeof(*b);
	b->flags = BLOOM_BATCH_F_TIMEOUT;
	b->nkeys = nkeys;
	b->key_size = key_size;
	b->keys = u64_ptr(keys);
	b->keys_len = (__u64)nkeys * key_size;
	b->results = u64_ptr(results);
	b->timeouts = u64_ptr(timeouts);
	b->timeout_s = timeouts ? 0 : timeout_s;
	return ioctl(fd, BLOOM_IOC_ADD, b);
}

/* Single key through a one-key batch. Returns 1 if "may be present". */
static inline int bt_one(int fd, unsigned long cmd, const void *key,
			 __u32 len)
{
	struct bloom_batch b;
	__u8 res = 0;

	if (bt_batch(fd, cmd, key, len, 1, len, NULL, &res, &b))
		return -1;
	return res & 1;
}

/* MERGE or SWAP (@cmd) of the filters @a and @b. */
static inline int bt_pair(int fd, unsigned long cmd, const char *a,
			  const char *b)
{
	struct bloom_pair p;

	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	set_name(p.name, a);
	set_name(p.other, b);
	return ioctl(fd, cmd, &p);
}

/* Reads one unsigned decimal value from a sysfs file; -1 on any error. */
static inline long long read_u64_file(const char *path)
{
	unsigned long long v;
	FILE *f = fopen(path, "r");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "%llu", &v);
	fclose(f);
	return n == 1 ? (long long)v : -1;
}

static inline int read_str_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char *nl;

	if (!f)
		return -1;
	if (!fgets(buf, len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = 0;
	return 0;
}

static inline int write_u64_file(const char *path, unsigned long long v)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fprintf(f, "%llu\n", v) < 0 ? -1 : 0;
	if (fclose(f))
		ret = -1;
	return ret;
}

static inline long long filter_attr(const char *name, const char *attr)
{
	char path[256];

	snprintf(path, sizeof(path), BLOOM_SYSFS "/filters/%s/%s", name, attr);
	return read_u64_file(path);
}

/*
 * The module's debugfs directory holds the test scaffolding
 * (live_allocations, core_selftest). Mounts debugfs when the VM has not.
 */
static inline void bt_debugfs_mount(void)
{
	if (access(BLOOM_DEBUGFS, F_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
}

static inline long long live_allocations(void)
{
	bt_debugfs_mount();
	return read_u64_file(BLOOM_DEBUGFS "/live_allocations");
}

/*
 * Destroys every filter. Test programs run one at a time in the VM and each
 * test starts from an empty module, so a teardown may remove everything,
 * including what a failed test left behind under an unexpected name.
 * Returns the number of filters destroyed, or -1.
 */
static inline int bt_destroy_all(void)
{
	char names[256][BLOOM_NAME_LEN];
	struct bloom_list l;
	int fd, n = 0;
	__u32 i;

	fd = bt_open();
	if (fd < 0)
		return -1;
	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	l.capacity = 256;
	l.names = u64_ptr(names);
	if (ioctl(fd, BLOOM_IOC_LIST, &l)) {
		close(fd);
		return -1;
	}
	for (i = 0; i < l.out_count && i < l.capacity; i++)
		if (!bt_destroy(fd, names[i]))
			n++;
	close(fd);
	return n;
}

/*
 * The fixtures of the bloom_ioctl_* programs: "ioctl" for what does not
 * depend on a filter's type, and "type", whose tests run once per filter
 * type (FIXTURE_VARIANT) for what every type must do alike. Both hold a
 * descriptor and remember the device node's mode and max_memory when a test
 * changes them (-1: not changed), so that teardown can put back what a
 * failed test left.
 */
#ifndef BT_NO_HARNESS
static inline void bt_dev_setup(struct __test_metadata *_metadata, int *fd,
				int *saved_mode, long long *saved_max_memory)
{
	*saved_mode = -1;
	*saved_max_memory = -1;
	*fd = bt_open();
	ASSERT_LE(0, *fd) TH_LOG("open %s: %s", BLOOM_DEV, strerror(errno));
}

#endif

static inline void bt_dev_teardown(int fd, int saved_mode,
				   long long saved_max_memory)
{
	if (saved_mode >= 0)
		chmod(BLOOM_DEV, saved_mode);
	if (saved_max_memory >= 0)
		write_u64_file(BLOOM_MAX_MEMORY, saved_max_memory);
	close(fd);
	bt_destroy_all();
}

#define BT_DEV_FIXTURE(name)						\
	FIXTURE(name) {							\
		int fd;							\
		int saved_mode;						\
		long long saved_max_memory;				\
	};								\
	FIXTURE_SETUP(name)						\
	{								\
		bt_dev_setup(_metadata, &self->fd, &self->saved_mode,	\
			     &self->saved_max_memory);			\
	}								\
	FIXTURE_TEARDOWN(name)						\
	{								\
		bt_dev_teardown(self->fd, self->saved_mode,		\
				self->saved_max_memory);		\
	}

#define BT_IOCTL_FIXTURE()	BT_DEV_FIXTURE(ioctl)

/* deletable: BLOOM_IOC_DELETE works on the type. */
#define BT_TYPE_FIXTURE()						\
	BT_DEV_FIXTURE(type)						\
	FIXTURE_VARIANT(type) {						\
		__u32 type;						\
		bool deletable;						\
	};								\
	FIXTURE_VARIANT_ADD(type, standard) { .type = STD, };		\
	FIXTURE_VARIANT_ADD(type, blocked) { .type = BLK, };		\
	FIXTURE_VARIANT_ADD(type, counting) {				\
		.type = CNT, .deletable = true,				\
	};								\
	FIXTURE_VARIANT_ADD(type, dleft) {				\
		.type = DLF, .deletable = true,				\
	}

/*
 * How long a test waits for a deferred free: a destroyed filter's store
 * goes an RCU grace period after the destroy, its struct with its
 * kobject's release, which CONFIG_DEBUG_KOBJECT_RELEASE delays by 1-4 s,
 * and a debug kernel under TCG on a loaded machine is slow at both. The
 * waits poll and return as soon as the value is there; this is only the
 * bound after which a test calls it a leak.
 */
#define BT_FREE_WAIT_MS	20000

/*
 * Polls the number in @path every 10 ms for up to @timeout_ms until it is
 * @want. Returns the last value read.
 */
static inline long long wait_u64_file(const char *path, long long want,
				      int timeout_ms)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	long long v = -1;
	int waited;

	for (waited = 0; waited <= timeout_ms; waited += 10) {
		v = read_u64_file(path);
		if (v == want)
			break;
		nanosleep(&ts, NULL);
	}
	return v;
}

/*
 * Waits up to timeout_ms for live_allocations to reach @want. A destroyed
 * filter's storage is freed an RCU grace period after the destroy, and its
 * struct by its kobject's release, which a debug kernel
 * (CONFIG_DEBUG_KOBJECT_RELEASE) delays by seconds, so the count can lag the
 * destroy or the last close(); we poll instead of expecting it at once.
 * Returns the last value read.
 */
static inline long long wait_live_allocations(long long want, int timeout_ms)
{
	bt_debugfs_mount();
	return wait_u64_file(BLOOM_DEBUGFS "/live_allocations", want,
			     timeout_ms);
}

/*
 * A test's baseline: what earlier tests destroyed is freed a grace period
 * after each destroy, so a test that holds @fds open descriptors and no
 * filter first waits for live_allocations to come down to exactly that.
 * Returns the value (the caller asserts it is @fds).
 */
static inline long long live_allocations_baseline(long long fds)
{
	return wait_live_allocations(fds, BT_FREE_WAIT_MS);
}

/*
 * Waits up to timeout_ms for memory_used to reach @want. Destroy gives a
 * filter's bytes back at once, but tests do not depend on when.
 */
static inline long long wait_memory_used(long long want, int timeout_ms)
{
	return wait_u64_file(BLOOM_SYSFS "/memory_used", want, timeout_ms);
}

static inline long long wait_live_allocations_zero(int timeout_ms)
{
	return wait_live_allocations(0, timeout_ms);
}

/*
 * The leak check every test program ends with: nothing left behind by the
 * earlier tests (they destroy what they create), then the module's own count
 * of live allocations back at 0 once our descriptors are closed.
 */
#define BT_LEAK_CHECK_TEST()						\
	FIXTURE(zz_leaks) { int unused; };				\
	FIXTURE_SETUP(zz_leaks) {}					\
	FIXTURE_TEARDOWN(zz_leaks) {}					\
	TEST_F(zz_leaks, no_filters_left_and_live_allocations_zero)	\
	{								\
		struct bloom_list l = { .size = sizeof(l) };		\
		int fd = bt_open();					\
									\
		ASSERT_LE(0, fd);					\
		ASSERT_OK(ioctl(fd, BLOOM_IOC_LIST, &l));		\
		EXPECT_EQ(0, l.out_count)				\
			TH_LOG("filters left behind by earlier tests");	\
		close(fd);						\
		bt_destroy_all();					\
		EXPECT_EQ(0, wait_live_allocations_zero(BT_FREE_WAIT_MS))	\
			TH_LOG("live_allocations did not return to 0");	\
	}

/* A type's name as sysfs shows it, from the header's one table. */
static inline const char *bt_type_str(__u32 type)
{
	static const char *const names[] = BLOOM_TYPE_NAMES;

	return type < sizeof(names) / sizeof(names[0]) && names[type] ?
	       names[type] : "?";
}

/* Bit i of an LSB-first results bitmap. */
static inline int bit_at(const __u8 *bm, __u32 i)
{
	return (bm[i / 8] >> (i % 8)) & 1;
}

static inline __u32 popcount_bm(const __u8 *bm, __u32 nkeys)
{
	__u32 i, n = 0;

	for (i = 0; i < nkeys; i++)
		n += bit_at(bm, i);
	return n;
}

/*
 * Deterministic distinct keys: the first 8 bytes are a bijective mix of the
 * index (the splitmix64 finalizer is a bijection on 64-bit values), so keys
 * with different indices never collide; the second 8 bytes only spread them.
 */
static inline __u64 mix64(__u64 z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline void make_key16(__u64 i, __u8 *out)
{
	__u64 a = mix64(i ^ 0x5bd1e9955bd1e995ULL);
	__u64 b = mix64(i + 0x9e3779b97f4a7c15ULL);

	memcpy(out, &a, 8);
	memcpy(out + 8, &b, 8);
}

/*
 * Runs the 16-byte keys [first, first + n) (make_key16) through @cmd in
 * batches of @batch keys, using @keys (@batch * 16 bytes) and @res
 * (@batch / 8 bytes). Returns the total of out_hits, or -1 after a failed
 * ioctl or one that did not do every key; *@missing (when not NULL) counts
 * the keys whose result bit is clear.
 */
static inline long long run_keys16(int fd, unsigned long cmd, __u8 *keys,
				   __u8 *res, __u32 batch, __u64 first, __u32 n,
				   __u32 *missing)
{
	long long hits = 0;
	__u32 done, i;

	for (done = 0; done < n; done += batch) {
		__u32 cnt = n - done < batch ? n - done : batch;
		struct bloom_batch b;

		for (i = 0; i < cnt; i++)
			make_key16(first + done + i, keys + (size_t)16 * i);
		if (bt_batch(fd, cmd, keys, (__u64)cnt * 16, cnt, 16, NULL,
			     res, &b) || b.out_done != cnt)
			return -1;
		hits += b.out_hits;
		if (missing)
			*missing += cnt - popcount_bm(res, cnt);
	}
	return hits;
}

/* SAVE of @name into a new buffer of *@len bytes; NULL on failure. */
static inline __u8 *bt_save_alloc(int fd, const char *name, __u64 *len)
{
	struct bloom_save sv;
	__u8 *buf;

	memset(&sv, 0, sizeof(sv));
	sv.size = sizeof(sv);
	set_name(sv.name, name);
	if (ioctl(fd, BLOOM_IOC_SAVE, &sv))
		return NULL;
	buf = malloc(sv.out_len);
	if (!buf)
		return NULL;
	sv.buf = u64_ptr(buf);
	sv.buf_len = sv.out_len;
	if (ioctl(fd, BLOOM_IOC_SAVE, &sv)) {
		free(buf);
		return NULL;
	}
	*len = sv.out_len;
	return buf;
}

/* RESTORE of @buf (@len bytes) under @name, with @flags too. */
static inline int bt_restore_as(int fd, const __u8 *buf, __u64 len,
				const char *name, __u32 flags)
{
	struct bloom_restore r;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.flags = flags | BLOOM_RESTORE_F_NAME;
	set_name(r.name, name);
	r.buf = u64_ptr(buf);
	r.buf_len = len;
	return ioctl(fd, BLOOM_IOC_RESTORE, &r);
}

static inline double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif /* BLOOM_TEST_H */
