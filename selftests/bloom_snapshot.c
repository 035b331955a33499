// SPDX-License-Identifier: GPL-2.0
/*
 * SAVE, RESTORE, MERGE, FLUSH and create --like through the raw ioctls.
 *
 *  - every type round-trips: the restored filter answers exactly as the
 *    saved one on present and absent keys, and saving it again gives the
 *    same payload;
 *  - the corruption matrix: every header byte changed, header fields set to
 *    absurd or unknown values with valid checksums, random payload flips,
 *    truncation at every copy-chunk boundary (and around it), trailing
 *    bytes: each refused with its documented errno, nothing created, no
 *    memory kept, and a live filter untouched;
 *  - SAVE's buffer protocol (size query, EOVERFLOW with the size);
 *  - MERGE: the union of two filters made --like each other, saturating
 *    counters, refusals (other geometry, other key, itself, d-left,
 *    timed);
 *  - FLUSH empties and keeps the filter;
 *  - SWAP exchanges contents (names and bound descriptors stay); RESTORE
 *    with BLOOM_RESTORE_F_REPLACE replaces an existing filter's contents;
 *  - queries running on other CPUs while restore --replace and swap go on,
 *    again and again, never miss a key present in every version;
 *  - unprivileged SAVE, RESTORE, MERGE and FLUSH are refused.
 *
 * Checksums are recomputed with libxxhash's XXH64 (the kernel's xxh64()).
 */
#define _GNU_SOURCE
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <linux/userfaultfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "bloom_test.h"
/* the core, to write a timed table as earlier versions placed it */
#include "core.h"
#include "snapshot.h"
#include "timed.h"

#define HDR		256	/* header size of format version 1 */
#define CHUNK		(1U << 20)	/* the kernel's copy step */
#define NKEYS		3000
#define NABSENT		20000
#define P01		10000000U

static const __u8 fixed_key[BLOOM_HASH_KEY_LEN] = {
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
};

static void put64(__u8 *p, __u64 v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (__u8)(v >> (8 * i));
}

static void put32(__u8 *p, __u32 v)
{
	int i;

	for (i = 0; i < 4; i++)
		p[i] = (__u8)(v >> (8 * i));
}

/* Recomputes both checksums of a snapshot of @len bytes. */
static void reseal(__u8 *s, size_t len)
{
	if (len > HDR)
		put64(s + 80, XXH64(s + HDR, len - HDR, 0));
	put64(s + HDR - 8, XXH64(s, HDR - 8, 0));
}

static int save(int fd, const char *name, __u8 **buf, size_t *len)
{
	struct bloom_save s;

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	set_name(s.name, name);
	if (ioctl(fd, BLOOM_IOC_SAVE, &s))
		return -1;
	*len = s.out_len;
	*buf = malloc(*len);
	if (!*buf)
		return -1;
	s.buf = u64_ptr(*buf);
	s.buf_len = *len;
	return ioctl(fd, BLOOM_IOC_SAVE, &s);
}

static int restore_flags(int fd, const void *buf, size_t len,
			 const char *name, __u32 flags)
{
	struct bloom_restore r;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.flags = flags;
	if (name) {
		r.flags |= BLOOM_RESTORE_F_NAME;
		set_name(r.name, name);
	}
	r.buf = u64_ptr(buf);
	r.buf_len = len;
	return ioctl(fd, BLOOM_IOC_RESTORE, &r);
}

static int restore(int fd, const void *buf, size_t len, const char *name)
{
	return restore_flags(fd, buf, len, name, 0);
}

static int pair(int fd, unsigned long cmd, const char *a, const char *b)
{
	struct bloom_pair p;

	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	set_name(p.name, a);
	set_name(p.other, b);
	return ioctl(fd, cmd, &p);
}

static int create_like(int fd, const char *name, const char *like)
{
	struct bloom_create c;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.flags = BLOOM_CREATE_F_LIKE;
	set_name(c.name, name);
	set_name(c.like, like);
	return ioctl(fd, BLOOM_IOC_CREATE, &c);
}

static int create_keyed(int fd, const char *name, __u32 type, __u64 cap)
{
	struct bloom_create c = bt_typed_req(name, type, cap, P01,
					     BLOOM_CREATE_F_HASH_KEY);

	memcpy(c.hash_key, fixed_key, sizeof(fixed_key));
	return ioctl(fd, BLOOM_IOC_CREATE, &c);
}

/* Keys "<prefix>-<i>" for i in [from, to), @reps times each, through @name. */
static int add_range(int fd, const char *name, const char *prefix, int from,
		     int to, int reps, unsigned long cmd)
{
	char key[32];
	int i, r, b = open(BLOOM_DEV, O_RDWR | O_CLOEXEC), err = 0;

	if (b < 0 || bt_bind(b, name)) {
		if (b >= 0)
			close(b);
		return -1;
	}
	(void)fd;
	for (i = from; i < to && !err; i++) {
		snprintf(key, sizeof(key), "%s-%d", prefix, i);
		for (r = 0; r < reps && !err; r++)
			err = bt_one(b, cmd, key, strlen(key)) < 0;
	}
	close(b);
	return err ? -1 : 0;
}

/* Bitmap of answers for keys "<prefix>-<i>", i < n: one byte per key. */
static int answers(const char *name, const char *prefix, int n, __u8 *out)
{
	char key[32];
	int i, r, b = open(BLOOM_DEV, O_RDWR | O_CLOEXEC);

	if (b < 0 || bt_bind(b, name)) {
		if (b >= 0)
			close(b);
		return -1;
	}
	for (i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "%s-%d", prefix, i);
		r = bt_one(b, BLOOM_IOC_QUERY, key, strlen(key));
		if (r < 0) {
			close(b);
			return -1;
		}
		out[i] = (__u8)r;
	}
	close(b);
	return 0;
}

static long long memory_used(void)
{
	return read_u64_file(BLOOM_SYSFS "/memory_used");
}

static int count_filters(int fd)
{
	struct bloom_list l;

	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	return ioctl(fd, BLOOM_IOC_LIST, &l) ? -1 : (int)l.out_count;
}

FIXTURE(snap) {
	int fd;
};

FIXTURE_VARIANT(snap) {
	__u32 type;
};

FIXTURE_VARIANT_ADD(snap, standard) { .type = BLOOM_TYPE_STANDARD, };
FIXTURE_VARIANT_ADD(snap, blocked) { .type = BLOOM_TYPE_BLOCKED, };
FIXTURE_VARIANT_ADD(snap, counting) { .type = BLOOM_TYPE_COUNTING, };
FIXTURE_VARIANT_ADD(snap, dleft) { .type = BLOOM_TYPE_DLEFT, };
FIXTURE_VARIANT_ADD(snap, timed) { .type = BLOOM_TYPE_TIMED, };

FIXTURE_SETUP(snap)
{
	bt_destroy_all();
	self->fd = bt_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(snap)
{
	close(self->fd);
	bt_destroy_all();
}

/* Saved, restored under another name: same answers, same payload. */
TEST_F(snap, round_trip)
{
	static __u8 a_abs[NABSENT], b_abs[NABSENT], a_pres[NKEYS];
	struct bloom_info ia, ib;
	__u8 *s1, *s2;
	size_t l1, l2;
	int reps = variant->type >= BLOOM_TYPE_COUNTING ? 2 : 1, i, present;

	ASSERT_OK(create_keyed(self->fd, "orig", variant->type, 10000));
	ASSERT_OK(add_range(self->fd, "orig", "k", 0, NKEYS, reps,
			    BLOOM_IOC_ADD));
	ASSERT_OK(save(self->fd, "orig", &s1, &l1));
	EXPECT_EQ(0, memcmp(s1, BLOOM_SNAP_MAGIC, 8));
	ASSERT_OK(restore(self->fd, s1, l1, "copy"));
	/* the snapshot's own name is taken: EEXIST, nothing changes */
	EXPECT_ERRNO(EEXIST, restore(self->fd, s1, l1, NULL));

	ASSERT_OK(answers("copy", "k", NKEYS, a_pres));
	for (present = 0, i = 0; i < NKEYS; i++)
		present += a_pres[i];
	EXPECT_EQ(NKEYS, present);
	ASSERT_OK(answers("orig", "absent", NABSENT, a_abs));
	ASSERT_OK(answers("copy", "absent", NABSENT, b_abs));
	EXPECT_EQ(0, memcmp(a_abs, b_abs, sizeof(a_abs)));

	ASSERT_OK(bt_info(self->fd, "orig", &ia));
	ASSERT_OK(bt_info(self->fd, "copy", &ib));
	EXPECT_EQ(ia.bits, ib.bits);
	EXPECT_EQ(ia.hashes, ib.hashes);
	EXPECT_EQ(ia.bits_set, ib.bits_set);
	EXPECT_EQ(ia.count, ib.count);
	EXPECT_EQ(ia.adds, ib.adds);
	EXPECT_EQ(ia.saturated, ib.saturated);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(ia.subtable_used[i], ib.subtable_used[i]);

	/* saved again: the same payload, byte for byte */
	ASSERT_OK(save(self->fd, "copy", &s2, &l2));
	ASSERT_EQ(l1, l2);
	EXPECT_EQ(0, memcmp(s1 + HDR, s2 + HDR, l1 - HDR));
	EXPECT_EQ(0, memcmp(s1 + 120, s2 + 120, 16));	/* hash key */
	free(s1);
	free(s2);
}

/* Every header byte changed: refused, nothing created or kept. */
TEST_F(snap, corrupt_header_bytes)
{
	long long mem;
	__u8 *s;
	size_t len;
	int i, bad = 0;

	ASSERT_OK(create_keyed(self->fd, "live", variant->type, 2000));
	ASSERT_OK(add_range(self->fd, "live", "k", 0, 500, 1, BLOOM_IOC_ADD));
	ASSERT_OK(save(self->fd, "live", &s, &len));
	mem = memory_used();
	for (i = 0; i < HDR; i++) {
		s[i] ^= 0x20;
		if (restore(self->fd, s, len, "victim") == 0 ||
		    (errno != EBADMSG && errno != EPROTONOSUPPORT)) {
			bad++;
			TH_LOG("byte %d: %s", i, strerror(errno));
			bt_destroy(self->fd, "victim");
		}
		s[i] ^= 0x20;
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(1, count_filters(self->fd));
	EXPECT_EQ(mem, memory_used());
	/* the original still loads */
	EXPECT_OK(restore(self->fd, s, len, "victim"));
	free(s);
}

/* Fields with valid checksums: each refused with its own errno. */
TEST_F(snap, corrupt_fields)
{
	static const struct {
		int off, width;
		__u64 v;
		int err;
		const char *what;
	} m[] = {
		{ 8, 4, 2, EPROTONOSUPPORT, "version 2" },
		{ 8, 4, 0, EPROTONOSUPPORT, "version 0" },
		{ 12, 4, 8, EBADMSG, "header size 8" },
		{ 12, 4, 1 << 20, EBADMSG, "header size 1 MiB" },
		{ 16, 4, 32, EPROTONOSUPPORT, "incompat flag 5" },
		/* flag 4 is TIMED_STAGES: a timed filter that grows, not this one */
		{ 16, 4, 16, EBADMSG, "incompat flag 4 without a timed chain" },
		/* flag 0 is STAGES: a scalable filter, and there is no table */
		{ 16, 4, 1, EBADMSG, "incompat flag 0 without stages" },
		/* flag 2 is GENERATIONS: an expiring filter, no table either */
		{ 16, 4, 4, EBADMSG, "incompat flag 2 without generations" },
		{ 16, 4, 1U << 31, EPROTONOSUPPORT, "incompat flag 31" },
		{ 24, 4, 0x7777, EPROTONOSUPPORT, "scheme id" },
		{ 28, 4, 99, EOPNOTSUPP, "type 99" },
		{ 32, 4, 0, EINVAL, "0 hashes" },
		{ 32, 4, 1000, EINVAL, "1000 hashes" },
		{ 40, 8, ~0ULL, E2BIG, "2^64-1 bits" },
		{ 40, 8, 1ULL << 41, E2BIG, "2^41 bits" },
		{ 48, 8, 0, EINVAL, "capacity 0" },
		{ 48, 8, 1ULL << 40, EINVAL, "capacity 2^40" },
		{ 36, 4, 0, EINVAL, "rate 0" },
		{ 72, 8, 1ULL << 50, EBADMSG, "payload 2^50 bytes" },
		{ 72, 8, 0, EBADMSG, "payload 0 bytes" },
		{ 88, 8, 0, EBADMSG, "empty name" },
		{ 88, 8, 0x2f2f2f2f2f2f2f2fULL, EINVAL, "name ////////" },
	};
	long long mem;
	__u8 *s, *c;
	size_t len, i;

	ASSERT_OK(create_keyed(self->fd, "live", variant->type, 2000));
	ASSERT_OK(add_range(self->fd, "live", "k", 0, 500, 1, BLOOM_IOC_ADD));
	ASSERT_OK(save(self->fd, "live", &s, &len));
	mem = memory_used();
	c = malloc(len);
	ASSERT_NE(NULL, c);
	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		memcpy(c, s, len);
		if (m[i].width == 4)
			put32(c + m[i].off, (__u32)m[i].v);
		else
			put64(c + m[i].off, m[i].v);
		reseal(c, len);
		/* the snapshot's own name, so a bad name is what is tested */
		EXPECT_ERRNO(m[i].err, restore(self->fd, c, len, NULL))
			TH_LOG("%s", m[i].what);
	}
	EXPECT_EQ(1, count_filters(self->fd));
	EXPECT_EQ(mem, memory_used());
	/* bad lengths of the whole buffer */
	EXPECT_ERRNO(EBADMSG, restore(self->fd, s, 0, "x"));
	EXPECT_ERRNO(EBADMSG, restore(self->fd, s, 15, "x"));
	EXPECT_ERRNO(EFAULT, restore(self->fd, NULL, len, "x"));
	EXPECT_ERRNO(EFAULT, restore(self->fd, (void *)KERNEL_PTR, len, "x"));
	/* unknown restore flags and a name without the flag */
	{
		struct bloom_restore r;

		memset(&r, 0, sizeof(r));
		r.size = sizeof(r);
		r.flags = 1U << 7;
		r.buf = u64_ptr(s);
		r.buf_len = len;
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_RESTORE, &r));
		r.flags = 0;
		set_name(r.name, "x");
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_RESTORE, &r));
	}
	EXPECT_EQ(1, count_filters(self->fd));
	free(c);
	free(s);
}

/* Random payload flips, truncations and a trailing byte. */
TEST_F(snap, corrupt_payload_and_length)
{
	static __u8 before[NKEYS], after[NKEYS];
	struct bloom_info i0, i1;
	long long mem;
	__u8 *s, *c;
	size_t len, cut;
	int i, accepted = 0;

	/* a payload of a few copy chunks */
	ASSERT_OK(create_keyed(self->fd, "live", variant->type, 2500000));
	ASSERT_OK(add_range(self->fd, "live", "k", 0, NKEYS, 1,
			    BLOOM_IOC_ADD));
	ASSERT_OK(answers("live", "k", NKEYS, before));
	ASSERT_OK(bt_info(self->fd, "live", &i0));
	ASSERT_OK(save(self->fd, "live", &s, &len));
	ASSERT_LT(2 * CHUNK + HDR, len);
	mem = memory_used();
	c = malloc(len + 1);
	ASSERT_NE(NULL, c);
	srand(variant->type);
	for (i = 0; i < 30; i++) {
		size_t off = HDR + (size_t)rand() % (len - HDR);

		memcpy(c, s, len);
		c[off] ^= (__u8)(1 << (rand() % 8));
		if (!restore(self->fd, c, len, "victim") || errno != EBADMSG) {
			accepted++;
			bt_destroy(self->fd, "victim");
		}
	}
	EXPECT_EQ(0, accepted);
	/* cut at and around every chunk boundary of the payload */
	for (cut = HDR; cut < len; cut += CHUNK) {
		size_t d[] = { cut - 1, cut, cut + 1 };
		int k;

		for (k = 0; k < 3; k++) {
			if (d[k] >= len)
				continue;
			EXPECT_ERRNO(EBADMSG, restore(self->fd, s, d[k],
						      "victim"))
				TH_LOG("cut at %zu of %zu", d[k], len);
		}
	}
	EXPECT_ERRNO(EBADMSG, restore(self->fd, s, len - 1, "victim"));
	memcpy(c, s, len);
	c[len] = 0;
	EXPECT_ERRNO(EBADMSG, restore(self->fd, c, len + 1, "victim"));
	EXPECT_EQ(1, count_filters(self->fd));
	EXPECT_EQ(mem, memory_used());
	/* the live filter is untouched */
	ASSERT_OK(answers("live", "k", NKEYS, after));
	EXPECT_EQ(0, memcmp(before, after, sizeof(before)));
	ASSERT_OK(bt_info(self->fd, "live", &i1));
	EXPECT_EQ(i0.bits_set, i1.bits_set);
	EXPECT_EQ(i0.count, i1.count);
	free(c);
	free(s);
}

TEST_F(snap, save_buffer)
{
	struct bloom_save sv;
	__u8 *buf;

	ASSERT_OK(create_keyed(self->fd, "f", variant->type, 1000));
	memset(&sv, 0, sizeof(sv));
	sv.size = sizeof(sv);
	set_name(sv.name, "f");
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_SAVE, &sv));
	ASSERT_LT(HDR, sv.out_len);
	buf = malloc(sv.out_len);
	ASSERT_NE(NULL, buf);
	sv.buf = u64_ptr(buf);
	sv.buf_len = sv.out_len - 1;
	sv.out_len = 0;
	EXPECT_ERRNO(EOVERFLOW, ioctl(self->fd, BLOOM_IOC_SAVE, &sv));
	EXPECT_EQ(sv.buf_len + 1, sv.out_len);
	sv.buf_len = sv.out_len;
	EXPECT_OK(ioctl(self->fd, BLOOM_IOC_SAVE, &sv));
	sv.buf = KERNEL_PTR;
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, BLOOM_IOC_SAVE, &sv));
	sv.buf = u64_ptr(buf);
	sv.flags = 1;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_SAVE, &sv));
	sv.flags = 0;
	set_name(sv.name, "nonexistent");
	EXPECT_ERRNO(ENOENT, ioctl(self->fd, BLOOM_IOC_SAVE, &sv));
	/* the bound filter, by an all-zero name */
	memset(sv.name, 0, sizeof(sv.name));
	EXPECT_ERRNO(EBADFD, ioctl(self->fd, BLOOM_IOC_SAVE, &sv));
	ASSERT_OK(bt_bind(self->fd, "f"));
	EXPECT_OK(ioctl(self->fd, BLOOM_IOC_SAVE, &sv));
	free(buf);
}

/* A like B, disjoint keys, merged: every key of both present. */
TEST_F(snap, merge_and_like)
{
	static __u8 got[NKEYS];
	struct bloom_info ia, ib, iu;
	int i, n = 0;

	ASSERT_OK(bt_create(self->fd, "a", variant->type, 10000, P01, 0));
	ASSERT_OK(create_like(self->fd, "b", "a"));
	ASSERT_OK(bt_info(self->fd, "a", &ia));
	ASSERT_OK(bt_info(self->fd, "b", &ib));
	EXPECT_EQ(ia.type, ib.type);
	EXPECT_EQ(ia.bits, ib.bits);
	EXPECT_EQ(ia.hashes, ib.hashes);
	EXPECT_EQ(ia.capacity, ib.capacity);
	EXPECT_EQ(0, ib.bits_set);
	ASSERT_OK(add_range(self->fd, "a", "k", 0, NKEYS / 2, 1,
			    BLOOM_IOC_ADD));
	ASSERT_OK(add_range(self->fd, "b", "k", NKEYS / 2, NKEYS, 1,
			    BLOOM_IOC_ADD));
	/* d-left cells and timed cells (a key's expiry) do not add up */
	if (variant->type == BLOOM_TYPE_DLEFT ||
	    variant->type == BLOOM_TYPE_TIMED) {
		EXPECT_ERRNO(EOPNOTSUPP, pair(self->fd, BLOOM_IOC_MERGE, "a",
					      "b"));
		return;
	}
	ASSERT_OK(pair(self->fd, BLOOM_IOC_MERGE, "a", "b"));
	ASSERT_OK(answers("a", "k", NKEYS, got));
	for (i = 0; i < NKEYS; i++)
		n += got[i];
	EXPECT_EQ(NKEYS, n);
	/* bits_set, kept as bits turn on, is that of one filter of all keys */
	ASSERT_OK(create_like(self->fd, "u", "a"));
	ASSERT_OK(add_range(self->fd, "u", "k", 0, NKEYS, 1, BLOOM_IOC_ADD));
	ASSERT_OK(bt_info(self->fd, "u", &iu));
	ASSERT_OK(bt_info(self->fd, "a", &ia));
	EXPECT_EQ(iu.bits_set, ia.bits_set);
	/* b unchanged: only its own keys (and false positives) */
	ASSERT_OK(bt_info(self->fd, "b", &ib));
	ASSERT_OK(bt_info(self->fd, "a", &ia));
	EXPECT_LT(ib.bits_set, ia.bits_set);
	/* refusals */
	EXPECT_ERRNO(EINVAL, pair(self->fd, BLOOM_IOC_MERGE, "a", "a"));
	EXPECT_ERRNO(ENOENT, pair(self->fd, BLOOM_IOC_MERGE, "a", "zz"));
	ASSERT_OK(bt_create(self->fd, "c", variant->type, 10000, P01, 0));
	EXPECT_ERRNO(EINVAL, pair(self->fd, BLOOM_IOC_MERGE, "a", "c"))
		TH_LOG("another hash key");
	ASSERT_OK(create_keyed(self->fd, "d", variant->type, 20000));
	EXPECT_ERRNO(EINVAL, pair(self->fd, BLOOM_IOC_MERGE, "a", "d"))
		TH_LOG("another geometry");
	/* --like refuses sizing fields and a missing template */
	{
		struct bloom_create c;

		memset(&c, 0, sizeof(c));
		c.size = sizeof(c);
		c.flags = BLOOM_CREATE_F_LIKE;
		set_name(c.name, "e");
		set_name(c.like, "a");
		c.capacity = 5;
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
		c.capacity = 0;
		/* nor sizing's fields (or its flag) */
		c.memory_bytes = 1 << 20;
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
		c.memory_bytes = 0;
		c.bits_per_key_milli = 10000;
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
		c.bits_per_key_milli = 0;
		c.reserved = 1;
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
		c.reserved = 0;
		c.flags |= BLOOM_CREATE_F_SIZE;
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
		c.flags = BLOOM_CREATE_F_LIKE;
		set_name(c.like, "nonexistent");
		EXPECT_ERRNO(ENOENT, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
		c.flags = 0;
		set_name(c.like, "a");
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	}
}

TEST_F(snap, flush)
{
	static __u8 got[NKEYS];
	struct bloom_info i;
	int k, n = 0;

	ASSERT_OK(create_keyed(self->fd, "f", variant->type, 10000));
	ASSERT_OK(add_range(self->fd, "f", "k", 0, NKEYS, 1, BLOOM_IOC_ADD));
	ASSERT_OK(bt_name_ioctl(self->fd, BLOOM_IOC_FLUSH, "f"));
	ASSERT_OK(bt_info(self->fd, "f", &i));
	EXPECT_EQ(0, i.bits_set);
	EXPECT_EQ(0, i.count);
	EXPECT_EQ(0, i.adds);
	ASSERT_OK(answers("f", "k", NKEYS, got));
	for (k = 0; k < NKEYS; k++)
		n += got[k];
	EXPECT_GT(NKEYS / 100, n) TH_LOG("%d keys still answer present", n);
	/* usable again */
	ASSERT_OK(add_range(self->fd, "f", "k", 0, 10, 1, BLOOM_IOC_ADD));
	ASSERT_OK(answers("f", "k", 10, got));
	for (n = 0, k = 0; k < 10; k++)
		n += got[k];
	EXPECT_EQ(10, n);
	EXPECT_ERRNO(ENOENT, bt_name_ioctl(self->fd, BLOOM_IOC_FLUSH, "x"));
}

/* SWAP and restore --replace: contents move, names and fds stay. */
TEST_F(snap, swap_and_replace)
{
	static __u8 got[NKEYS];
	struct bloom_info ia, ib;
	__u8 *sa, *sb;
	size_t la, lb;
	int bound, i, n;

	ASSERT_OK(create_keyed(self->fd, "a", variant->type, 10000));
	ASSERT_OK(bt_create(self->fd, "b", variant->type, 20000, P01, 0));
	ASSERT_OK(add_range(self->fd, "a", "ka", 0, NKEYS, 1, BLOOM_IOC_ADD));
	ASSERT_OK(add_range(self->fd, "b", "kb", 0, NKEYS, 1, BLOOM_IOC_ADD));
	ASSERT_OK(bt_info(self->fd, "a", &ia));
	ASSERT_OK(save(self->fd, "a", &sa, &la));
	ASSERT_OK(save(self->fd, "b", &sb, &lb));
	bound = bt_open();
	ASSERT_LE(0, bound);
	ASSERT_OK(bt_bind(bound, "a"));

	ASSERT_OK(pair(self->fd, BLOOM_IOC_SWAP, "a", "b"));
	/* "a" now holds b's contents, also through the bound descriptor */
	ASSERT_OK(bt_info(self->fd, "b", &ib));
	EXPECT_EQ(ia.bits, ib.bits);
	EXPECT_EQ(ia.bits_set, ib.bits_set);
	for (n = 0, i = 0; i < 200; i++) {
		char key[32];

		snprintf(key, sizeof(key), "kb-%d", i);
		n += bt_one(bound, BLOOM_IOC_QUERY, key, strlen(key)) == 1;
	}
	EXPECT_EQ(200, n);
	ASSERT_OK(answers("b", "ka", NKEYS, got));
	for (n = 0, i = 0; i < NKEYS; i++)
		n += got[i];
	EXPECT_EQ(NKEYS, n);
	ASSERT_OK(pair(self->fd, BLOOM_IOC_SWAP, "a", "a"));
	EXPECT_ERRNO(ENOENT, pair(self->fd, BLOOM_IOC_SWAP, "a", "zz"));

	/* replace "a" (holding b's keys) with the snapshot of the old a */
	ASSERT_OK(restore_flags(self->fd, sa, la, NULL,
				BLOOM_RESTORE_F_REPLACE));
	ASSERT_OK(answers("a", "ka", NKEYS, got));
	for (n = 0, i = 0; i < NKEYS; i++)
		n += got[i];
	EXPECT_EQ(NKEYS, n);
	for (n = 0, i = 0; i < 200; i++) {
		char key[32];

		snprintf(key, sizeof(key), "ka-%d", i);
		n += bt_one(bound, BLOOM_IOC_QUERY, key, strlen(key)) == 1;
	}
	EXPECT_EQ(200, n) TH_LOG("the bound descriptor sees the new contents");
	EXPECT_EQ(2, count_filters(self->fd));
	/* replace needs the filter: ENOENT, nothing created */
	EXPECT_ERRNO(ENOENT, restore_flags(self->fd, sa, la, "new",
					   BLOOM_RESTORE_F_REPLACE));
	EXPECT_EQ(2, count_filters(self->fd));
	/* a bad snapshot changes nothing of the filter it would replace */
	sa[la - 1] ^= 1;
	EXPECT_ERRNO(EBADMSG, restore_flags(self->fd, sa, la, NULL,
					    BLOOM_RESTORE_F_REPLACE));
	ASSERT_OK(answers("a", "ka", NKEYS, got));
	for (n = 0, i = 0; i < NKEYS; i++)
		n += got[i];
	EXPECT_EQ(NKEYS, n);
	/* another type: refused */
	ASSERT_OK(bt_create(self->fd, "other", variant->type ==
			    BLOOM_TYPE_STANDARD ? BLOOM_TYPE_BLOCKED :
			    BLOOM_TYPE_STANDARD, 1000, P01, 0));
	EXPECT_ERRNO(EINVAL, pair(self->fd, BLOOM_IOC_SWAP, "a", "other"));
	EXPECT_ERRNO(EINVAL, restore_flags(self->fd, sb, lb, "other",
					   BLOOM_RESTORE_F_REPLACE));
	close(bound);
	free(sa);
	free(sb);
}

/*
 * Readers on their own descriptors query keys present in every version of
 * the filter while the main thread replaces its contents (restore
 * --replace) and swaps it with a copy, again and again. A reader may never
 * get "absent" for one of those keys.
 */
#define RR_READERS	2
#define RR_KEYS		256
#define RR_ROUNDS	40

struct rr {
	pthread_barrier_t start;
	volatile int done;
	long passes[RR_READERS];
	long misses[RR_READERS];
	long errors[RR_READERS];
};

struct rr_arg {
	struct rr *rr;
	int id;
};

static void *rr_reader(void *p)
{
	struct rr_arg *a = p;
	struct rr *rr = a->rr;
	char key[32];
	int fd = bt_open(), i, r;

	if (fd < 0 || bt_bind(fd, "r")) {
		rr->errors[a->id]++;
		pthread_barrier_wait(&rr->start);
		return NULL;
	}
	pthread_barrier_wait(&rr->start);
	do {
		for (i = 0; i < RR_KEYS; i++) {
			snprintf(key, sizeof(key), "k-%d", i);
			r = bt_one(fd, BLOOM_IOC_QUERY, key, strlen(key));
			if (r < 0)
				rr->errors[a->id]++;
			else if (!r)
				rr->misses[a->id]++;
		}
		rr->passes[a->id]++;
	} while (!rr->done);
	close(fd);
	return NULL;
}

TEST_F(snap, queries_during_replace_and_swap)
{
	struct rr_arg args[RR_READERS];
	pthread_t th[RR_READERS];
	struct rr *rr = calloc(1, sizeof(*rr));
	__u8 *s1, *s2;
	size_t l1, l2;
	long before[RR_READERS];
	int i, k;

	ASSERT_NE(NULL, rr);
	/* version 1: the keys; version 2: the keys and more, in a bigger
	 * filter with another hash key */
	ASSERT_OK(bt_create(self->fd, "r", variant->type, 5000, P01, 0));
	ASSERT_OK(add_range(self->fd, "r", "k", 0, RR_KEYS, 1, BLOOM_IOC_ADD));
	ASSERT_OK(save(self->fd, "r", &s1, &l1));
	ASSERT_OK(bt_create(self->fd, "v2", variant->type, 20000, P01, 0));
	ASSERT_OK(add_range(self->fd, "v2", "k", 0, RR_KEYS, 1,
			    BLOOM_IOC_ADD));
	ASSERT_OK(add_range(self->fd, "v2", "more", 0, 2000, 1,
			    BLOOM_IOC_ADD));
	ASSERT_OK(save(self->fd, "v2", &s2, &l2));
	ASSERT_OK(pthread_barrier_init(&rr->start, NULL, RR_READERS + 1));
	for (i = 0; i < RR_READERS; i++) {
		args[i].rr = rr;
		args[i].id = i;
		ASSERT_OK(pthread_create(&th[i], NULL, rr_reader, &args[i]));
	}
	pthread_barrier_wait(&rr->start);
	for (k = 0; k < RR_ROUNDS; k++) {
		/* each round waits for a pass of every reader: minimum work */
		for (i = 0; i < RR_READERS; i++)
			before[i] = rr->passes[i];
		EXPECT_OK(restore_flags(self->fd, k & 1 ? s1 : s2,
					k & 1 ? l1 : l2, "r",
					BLOOM_RESTORE_F_REPLACE));
		EXPECT_OK(pair(self->fd, BLOOM_IOC_SWAP, "r", "v2"));
		for (i = 0; i < RR_READERS; i++)
			while (rr->passes[i] == before[i] && !rr->errors[i])
				usleep(100);
	}
	rr->done = 1;
	for (i = 0; i < RR_READERS; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, rr->errors[i]);
		EXPECT_EQ(0, rr->misses[i]) TH_LOG("reader %d: %ld misses in %ld passes",
						   i, rr->misses[i], rr->passes[i]);
		EXPECT_LE(RR_ROUNDS, rr->passes[i]);
	}
	free(s1);
	free(s2);
	free(rr);
}

/* Counters merged saturate at 15 and are counted as saturated. */
struct stalled_save {
	int fd;
	void *buf;
	__u64 len;
	int ret;
};

static void *stalled_save_thread(void *arg)
{
	struct stalled_save *st = arg;
	struct bloom_save sv;

	memset(&sv, 0, sizeof(sv));
	sv.size = sizeof(sv);
	set_name(sv.name, "f");
	sv.buf = u64_ptr(st->buf);
	sv.buf_len = st->len;
	st->ret = errno_of(ioctl(st->fd, BLOOM_IOC_SAVE, &sv));
	return NULL;
}

/*
 * A SAVE whose buffer stalls (a userfaultfd mapping nobody serves yet)
 * holds no lock of the filter: adds, a flush, a replacing restore and
 * the destroy all finish while it waits; served, it completes.
 */
TEST_F(snap, stalled_save_blocks_nobody)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	struct uffdio_copy cp;
	struct stalled_save st;
	struct bloom_restore r;
	struct bloom_save sv;
	struct uffd_msg msg;
	struct pollfd pfd;
	pthread_t t;
	__u8 *snap, key = 7;
	long page = sysconf(_SC_PAGESIZE);
	int uffd, fd2, i;

	uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api))
		SKIP(return, "no userfaultfd: %s", strerror(errno));
	ASSERT_OK(create_keyed(self->fd, "f", variant->type, 20000));
	ASSERT_OK(bt_bind(self->fd, "f"));
	memset(&sv, 0, sizeof(sv));
	sv.size = sizeof(sv);
	set_name(sv.name, "f");
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_SAVE, &sv));
	/* a snapshot to restore over it meanwhile */
	snap = malloc(sv.out_len);
	ASSERT_NE(NULL, snap);
	sv.buf = u64_ptr(snap);
	sv.buf_len = sv.out_len;
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_SAVE, &sv));

	st.fd = self->fd;
	st.len = (sv.out_len + page - 1) / page * page;
	st.buf = mmap(NULL, st.len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, st.buf);
	reg.range.start = (unsigned long)st.buf;
	reg.range.len = st.len;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	ASSERT_OK(ioctl(uffd, UFFDIO_REGISTER, &reg));
	ASSERT_EQ(0, pthread_create(&t, NULL, stalled_save_thread, &st));

	/* the SAVE is stuck in its copy to the buffer */
	pfd.fd = uffd;
	pfd.events = POLLIN;
	ASSERT_EQ(1, poll(&pfd, 1, 60000)) TH_LOG("SAVE never touched its buffer");
	ASSERT_EQ(sizeof(msg), read(uffd, &msg, sizeof(msg)));
	EXPECT_EQ(UFFD_EVENT_PAGEFAULT, msg.event);

	/* meanwhile: adds, a flush, a replacing restore, the destroy */
	for (i = 0; i < 10; i++) {
		key = i;
		EXPECT_LE(0, bt_one(self->fd, BLOOM_IOC_ADD, &key, 1));
	}
	EXPECT_OK(bt_name_ioctl(self->fd, BLOOM_IOC_FLUSH, "f"));
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.flags = BLOOM_RESTORE_F_REPLACE;
	r.buf = u64_ptr(snap);
	r.buf_len = sv.out_len;
	EXPECT_OK(ioctl(self->fd, BLOOM_IOC_RESTORE, &r));
	fd2 = bt_open();
	ASSERT_LE(0, fd2);
	EXPECT_OK(bt_destroy(fd2, "f"));
	close(fd2);

	/* served: the SAVE finishes, with the filter as it was */
	memset(&cp, 0, sizeof(cp));
	cp.dst = (unsigned long)st.buf;
	cp.src = (unsigned long)snap;	/* any bytes: the SAVE overwrites them */
	cp.len = st.len <= sv.out_len ? st.len : sv.out_len / page * page;
	if (cp.len)
		EXPECT_OK(ioctl(uffd, UFFDIO_COPY, &cp));
	if (cp.len < st.len) {
		struct uffdio_zeropage zp = {
			.range = { .start = cp.dst + cp.len,
				   .len = st.len - cp.len },
		};

		EXPECT_OK(ioctl(uffd, UFFDIO_ZEROPAGE, &zp));
	}
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, st.ret) TH_LOG("SAVE: %s", strerror(st.ret));
	EXPECT_EQ(0, memcmp(st.buf, BLOOM_SNAP_MAGIC, 8));
	munmap(st.buf, st.len);
	close(uffd);
	free(snap);
}

TEST(merge_saturates)
{
	struct bloom_info i;
	int fd = bt_open();

	ASSERT_LE(0, fd);
	bt_destroy_all();
	ASSERT_OK(bt_create(fd, "a", BLOOM_TYPE_COUNTING, 1000, P01, 0));
	ASSERT_OK(create_like(fd, "b", "a"));
	ASSERT_OK(add_range(fd, "a", "same", 0, 1, 9, BLOOM_IOC_ADD));
	ASSERT_OK(add_range(fd, "b", "same", 0, 1, 9, BLOOM_IOC_ADD));
	ASSERT_OK(pair(fd, BLOOM_IOC_MERGE, "a", "b"));
	ASSERT_OK(bt_info(fd, "a", &i));
	/* k counters, fewer if two of the key's positions coincide */
	EXPECT_LE(1, i.saturated);
	EXPECT_GE(i.hashes, i.saturated);
	/* deleting 18 times leaves the key: saturated counters stay */
	ASSERT_OK(add_range(fd, "a", "same", 0, 1, 18, BLOOM_IOC_DELETE));
	{
		__u8 got;

		ASSERT_OK(answers("a", "same", 1, &got));
		EXPECT_EQ(1, got);
	}
	bt_destroy_all();
	close(fd);
}

/* CREATE of @name with @flags (BLOOM_CREATE_F_HASH: @hash) under fixed_key. */
static int create_hashed(int fd, const char *name, __u32 flags, __u32 hash)
{
	struct bloom_create c = bt_create_req(name, BLOOM_TYPE_BLOCKED, 1000,
					      P01,
					      flags | BLOOM_CREATE_F_HASH_KEY);

	memcpy(c.hash_key, fixed_key, sizeof(fixed_key));
	c.hash = hash;
	return ioctl(fd, BLOOM_IOC_CREATE, &c);
}

/*
 * The hash scheme: SipHash-1-3 unless CREATE asks (INFO and sysfs say
 * which); a bad request refused; --like keeps it; two filters that differ
 * only in it cannot be merged; a snapshot names it in its scheme id (2
 * for SipHash-2-4, as every snapshot before, 3 for SipHash-1-3) and
 * restores it, answering every key.
 */
TEST(hash_scheme)
{
	static const char *const names[] = { "h13", "h24", "r13", "r24" };
	__u8 got[200], *snap;
	struct bloom_info i;
	char sysfs[128];
	size_t len;
	int fd = bt_open(), n, j;

	ASSERT_LE(0, fd);
	bt_destroy_all();
	ASSERT_OK(create_hashed(fd, "h13", 0, 0));
	ASSERT_OK(create_hashed(fd, "h24", BLOOM_CREATE_F_HASH,
				BLOOM_HASH_SIPHASH_2_4));
	EXPECT_ERRNO(EINVAL, create_hashed(fd, "bad", BLOOM_CREATE_F_HASH, 2));
	EXPECT_ERRNO(EINVAL, create_hashed(fd, "bad", 0,
					   BLOOM_HASH_SIPHASH_1_3));
	ASSERT_OK(bt_info(fd, "h13", &i));
	EXPECT_EQ(BLOOM_HASH_SIPHASH_1_3, i.hash);
	ASSERT_OK(bt_info(fd, "h24", &i));
	EXPECT_EQ(BLOOM_HASH_SIPHASH_2_4, i.hash);
	ASSERT_OK(read_str_file(BLOOM_SYSFS "/filters/h13/hash", sysfs,
				sizeof(sysfs)));
	EXPECT_STREQ("siphash-1-3", sysfs);
	ASSERT_OK(read_str_file(BLOOM_SYSFS "/filters/h24/hash", sysfs,
				sizeof(sysfs)));
	EXPECT_STREQ("siphash-2-4", sysfs);
	ASSERT_OK(add_range(fd, "h13", "k", 0, 200, 1, BLOOM_IOC_ADD));
	ASSERT_OK(add_range(fd, "h24", "k", 0, 200, 1, BLOOM_IOC_ADD));

	/* same type, geometry and key, another hash: no merge */
	EXPECT_ERRNO(EINVAL, pair(fd, BLOOM_IOC_MERGE, "h13", "h24"));
	ASSERT_OK(create_like(fd, "l24", "h24"));
	ASSERT_OK(bt_info(fd, "l24", &i));
	EXPECT_EQ(BLOOM_HASH_SIPHASH_2_4, i.hash);
	EXPECT_OK(pair(fd, BLOOM_IOC_MERGE, "l24", "h24"));

	for (n = 0; n < 2; n++) {
		ASSERT_OK(save(fd, names[n], &snap, &len));
		ASSERT_LT(HDR, len);
		/* scheme_id, little-endian at offset 24 */
		EXPECT_EQ(n ? 2 : 3, snap[24] | snap[25] << 8 | snap[26] << 16 |
				     (__u32)snap[27] << 24)
			TH_LOG("scheme id");
		ASSERT_OK(restore(fd, snap, len, names[n + 2]));
		free(snap);
		ASSERT_OK(bt_info(fd, names[n + 2], &i));
		EXPECT_EQ(n ? BLOOM_HASH_SIPHASH_2_4 : BLOOM_HASH_SIPHASH_1_3,
			  i.hash);
		ASSERT_OK(answers(names[n + 2], "k", 200, got));
		for (j = 0; j < 200; j++)
			EXPECT_EQ(1, got[j]) TH_LOG("%s: k-%d", names[n + 2], j);
	}
	ASSERT_OK(answers("l24", "k", 200, got));
	for (j = 0; j < 200; j++)
		EXPECT_EQ(1, got[j]) TH_LOG("l24 after the merge: k-%d", j);
	bt_destroy_all();
	close(fd);
}

/* A snapshot's scheme id, little-endian at offset 24. */
static __u32 scheme_of(const __u8 *snap)
{
	return snap[24] | snap[25] << 8 | snap[26] << 16 |
	       (__u32)snap[27] << 24;
}

/*
 * A timed filter's snapshot as the versions before the placement by
 * fingerprint wrote it (position scheme 3: SipHash-1-3, the Feistel
 * placement, module/core/timed_table.h): "k-0".."k-@n-1", without
 * timeouts (a snapshot built outside the module carries no save clocks to
 * rebase timeouts on, as bloomctl build's), in a table the core builds
 * here. Returns its bytes.
 */
static __u8 *feistel_snapshot(const char *name, int n, size_t *len)
{
	struct bloom_geometry g;
	bloom_hash_key_t hk;
	struct bloom_core c;
	__u8 *buf, *mem;
	size_t hdr, bytes;
	char key[32];
	u64 h;
	u32 done;
	int i;

	if (bloom_geometry_size(BLOOM_CORE_TIMED, 4000, P01, &g))
		return NULL;
	bytes = bloom_core_storage_bytes(&g);
	mem = aligned_alloc(64, bytes);
	if (!mem)
		return NULL;
	memset(mem, 0, bytes);
	bloom_hash_key_init(&hk, fixed_key, BLOOM_CORE_SIPHASH_1_3);
	hk.placement = BLOOM_CORE_PLACE_FEISTEL;
	bloom_core_init(&c, &g, &hk, mem);
	bloom_timed_set_timeouts(&c, 0, 0);
	for (i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "k-%d", i);
		h = bloom_core_hash(&c, key, strlen(key));
		bloom_timed_add_batch(&c, &h, 1, NULL, 0, NULL, &done);
		if (!done)
			break;
	}
	hdr = bloom_image_header_bytes(&c);
	*len = hdr + bytes;
	buf = i == n ? malloc(*len) : NULL;
	if (buf) {
		bloom_image_header_make(buf, &c, name, NULL);
		memcpy(buf + hdr, mem, bytes);
	}
	free(mem);
	return buf;
}

/*
 * Timed tables of both placements: a new filter's snapshot names the
 * placement by fingerprint (scheme 5); one of the earlier placement
 * (scheme 3) restores with every key present, takes adds and is saved
 * again as scheme 3, and that snapshot restores too.
 */
TEST(timed_placements)
{
	__u8 got[200], *snap, *old;
	size_t len, olen;
	int fd = bt_open(), j;

	ASSERT_LE(0, fd);
	bt_destroy_all();
	ASSERT_OK(bt_create(fd, "tnew", BLOOM_TYPE_TIMED, 4000, P01, 0));
	ASSERT_OK(add_range(fd, "tnew", "k", 0, 200, 1, BLOOM_IOC_ADD));
	ASSERT_OK(save(fd, "tnew", &snap, &len));
	EXPECT_EQ(5, scheme_of(snap)) TH_LOG("a new timed filter's scheme");
	free(snap);

	old = feistel_snapshot("told", 200, &olen);
	ASSERT_NE(NULL, old);
	EXPECT_EQ(3, scheme_of(old));
	ASSERT_OK(restore(fd, old, olen, "told"));
	free(old);
	ASSERT_OK(answers("told", "k", 200, got));
	for (j = 0; j < 200; j++)
		EXPECT_EQ(1, got[j]) TH_LOG("told: k-%d", j);
	ASSERT_OK(add_range(fd, "told", "n", 0, 200, 1, BLOOM_IOC_ADD));
	ASSERT_OK(answers("told", "n", 200, got));
	for (j = 0; j < 200; j++)
		EXPECT_EQ(1, got[j]) TH_LOG("told, added after: n-%d", j);
	ASSERT_OK(save(fd, "told", &snap, &len));
	EXPECT_EQ(3, scheme_of(snap)) TH_LOG("saved again in its placement");
	ASSERT_OK(restore(fd, snap, len, "told2"));
	free(snap);
	ASSERT_OK(answers("told2", "k", 200, got));
	for (j = 0; j < 200; j++)
		EXPECT_EQ(1, got[j]) TH_LOG("told2: k-%d", j);
	bt_destroy_all();
	close(fd);
}

struct unpriv {
	int save, restore, merge, flush;
};

static void drop_privileges(void)
{
	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		_exit(99);
}

TEST(unprivileged_refused)
{
	struct unpriv *r = bt_shared_page();
	__u8 *s;
	size_t len;
	pid_t pid;
	int fd = bt_open(), st;

	ASSERT_LE(0, fd);
	ASSERT_NE(NULL, r);
	bt_destroy_all();
	ASSERT_OK(bt_create(fd, "a", BLOOM_TYPE_STANDARD, 1000, P01, 0));
	ASSERT_OK(create_like(fd, "b", "a"));
	ASSERT_OK(save(fd, "a", &s, &len));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct bloom_save sv;

		drop_privileges();
		memset(&sv, 0, sizeof(sv));
		sv.size = sizeof(sv);
		set_name(sv.name, "a");
		r->save = errno_of(ioctl(fd, BLOOM_IOC_SAVE, &sv));
		r->restore = errno_of(restore(fd, s, len, "c"));
		r->merge = errno_of(pair(fd, BLOOM_IOC_MERGE, "a", "b"));
		r->flush = errno_of(bt_name_ioctl(fd, BLOOM_IOC_FLUSH, "a"));
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(EPERM, r->save);
	EXPECT_EQ(EPERM, r->restore);
	EXPECT_EQ(EPERM, r->merge);
	EXPECT_EQ(EPERM, r->flush);
	EXPECT_EQ(2, count_filters(fd));
	free(s);
	bt_destroy_all();
	close(fd);
}

TEST_HARNESS_MAIN
