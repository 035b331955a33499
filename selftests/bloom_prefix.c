// SPDX-License-Identifier: GPL-2.0
/*
 * Prefix expansion through /dev/bloom: a filter created with its netblock
 * lengths (BLOOM_CREATE_F_PREFIXES) refuses other lengths (EDOM), holds
 * netblocks expanded by libbloom with no false negative for any address
 * of any block, tests at most 1 + its lengths per address, deletes what
 * an add stored, and keeps its lengths through SAVE and RESTORE (a filter
 * without them saves the snapshot it always did); a merge that would
 * bring another length is refused.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "bloom_test.h"
#include "libbloom.h"

#define CAP	200000
#define PPB	1000000		/* 0.1% per test */

/* The blocks of the feed, and where each goes under lengths 19, 24, 29. */
static const char *const blocks[] = {
	"10.1.0.0/17",		/* 4 keys at /19 */
	"10.2.0.0/21",		/* 8 at /24 */
	"10.3.0.0/24",		/* itself */
	"10.4.0.64/26",		/* 8 at /29 */
	"10.5.0.0/30",		/* 4 addresses */
	"10.6.6.6",		/* an address */
};
#define NBLOCKS	(sizeof(blocks) / sizeof(blocks[0]))

static const struct bloom_prefix_plan plan = { 3, { 19, 24, 29 } };

/* The whole of a small file, NUL-terminated: its length, or -1. */
static ssize_t read_all(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/* A filter of @type with hash key 1, 2, 3..., and lengths 19 24 29 or any. */
static int create_keyed(int fd, const char *name, __u32 type, bool planned)
{
	struct bloom_create c = bt_create_req(name, type, CAP, PPB,
					      BLOOM_CREATE_F_HASH_KEY);
	int i;

	for (i = 0; i < BLOOM_HASH_KEY_LEN; i++)
		c.hash_key[i] = (__u8)(i + 1);
	c.keys = BLOOM_KEYS_IPV4;
	if (planned) {
		c.flags |= BLOOM_CREATE_F_PREFIXES;
		c.prefix_lengths4 = 1U << 19 | 1U << 24 | 1U << 29;
	}
	return ioctl(fd, BLOOM_IOC_CREATE, &c);
}

static int create_planned(int fd, const char *name, __u32 type)
{
	return create_keyed(fd, name, type, true);
}

/* @cmd of block @text, expanded under @p, to the filter bound to @fd. */
static long block_op(int fd, unsigned long cmd,
		     const struct bloom_prefix_plan *p, const char *text,
		     long *keys)
{
	static __u8 out[65536 * BLOOM_NETBLOCK_KEY_MAX];
	__u8 key[BLOOM_NETBLOCK_KEY_MAX], res[8192];
	struct bloom_batch b;
	int klen, olen;
	long n;

	klen = bloom_netblock_parse(text, AF_INET, 0, key);
	if (klen < 0)
		return klen;
	n = bloom_plan_expand(p, AF_INET, key, klen, out, 65536, &olen);
	if (n < 0)
		return n;
	*keys = n;
	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	b.flags = BLOOM_BATCH_F_NET;
	b.nkeys = (__u32)n;
	b.key_size = (__u32)olen;
	b.keys = u64_ptr(out);
	b.keys_len = (__u64)n * olen;
	b.results = u64_ptr(res);
	if (ioctl(fd, cmd, &b))
		return -errno;
	return b.out_hits;
}

/* Addresses of @text that test present (of *@total). */
static long block_hits(int fd, const char *text, long *total)
{
	static __u8 addrs[32768 * 4], res[32768 / 8];
	__u8 key[BLOOM_NETBLOCK_KEY_MAX];
	struct bloom_batch b;
	__u32 base, n, i;
	int klen;

	klen = bloom_netblock_parse(text, AF_INET, 0, key);
	if (klen < 0)
		return klen;
	n = klen == 4 ? 1 : 1U << (32 - key[4]);
	memcpy(&base, key, 4);
	base = ntohl(base);
	for (i = 0; i < n; i++) {
		__u32 a = htonl(base + i);

		memcpy(addrs + 4 * i, &a, 4);
	}
	*total = n;
	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	b.flags = BLOOM_BATCH_F_NET;
	b.nkeys = n;
	b.key_size = 4;
	b.keys = u64_ptr(addrs);
	b.keys_len = (__u64)n * 4;
	b.results = u64_ptr(res);
	if (ioctl(fd, BLOOM_IOC_QUERY, &b))
		return -errno;
	return b.out_hits;
}

/* SAVE of filter @name into @buf; @s has the reply (out_len). */
static int save_to(int fd, const char *name, void *buf, __u64 len,
		   struct bloom_save *s)
{
	memset(s, 0, sizeof(*s));
	s->size = sizeof(*s);
	set_name(s->name, name);
	s->buf = u64_ptr(buf);
	s->buf_len = len;
	return ioctl(fd, BLOOM_IOC_SAVE, s);
}

BT_DEV_FIXTURE(prefix)

TEST_F(prefix, create_refusals)
{
	struct bloom_create c;

	c = bt_create_req("p", STD, CAP, PPB, 0);
	c.prefix_lengths4 = 1U << 24;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	c = bt_create_req("p", STD, CAP, PPB, BLOOM_CREATE_F_PREFIXES);
	c.prefix_lengths4 = 1;	/* a /0 */
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	c.prefix_lengths4 = 0xff00;	/* 8 lengths */
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	c.prefix_lengths4 = 1U << 24;
	c.keys = BLOOM_KEYS_STRINGS;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	c.keys = 0;
	c.hash = 1;	/* without BLOOM_CREATE_F_HASH */
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	c.hash = 0;
	c.prefix_lengths6[0] = 1ULL << 48;
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	EXPECT_OK(bt_destroy(self->fd, "p"));
}

TEST_F(prefix, no_false_negative_and_bounded_lookups)
{
	struct bloom_info info;
	long keys, total, hits;
	__u8 key[BLOOM_NETBLOCK_KEY_MAX];
	char buf[256];
	size_t i;
	int klen;

	ASSERT_OK(create_planned(self->fd, "p", CNT));
	ASSERT_OK(bt_bind(self->fd, "p"));
	ASSERT_OK(bt_info(self->fd, NULL, &info));
	EXPECT_EQ(1U << 19 | 1U << 24 | 1U << 29, info.prefix_lengths4);
	EXPECT_EQ(0, info.prefix_lengths6[0] | info.prefix_lengths6[1]);

	/* a length it does not store: refused, nothing added */
	klen = bloom_netblock_parse("10.9.0.0/20", AF_INET, 0, key);
	EXPECT_ERRNO(EDOM, bt_batch(self->fd, BLOOM_IOC_ADD, key, klen, 1,
				    klen, NULL, NULL, NULL));
	ASSERT_OK(bt_info(self->fd, NULL, &info));
	EXPECT_EQ(0, info.adds);

	for (i = 0; i < NBLOCKS; i++)
		ASSERT_LE(0, block_op(self->fd, BLOOM_IOC_ADD, &plan,
				      blocks[i], &keys));
	ASSERT_OK(bt_info(self->fd, NULL, &info));
	EXPECT_EQ(4 + 8 + 1 + 8 + 4 + 1, info.adds);
	/* the address and 19, 24, 29: never more */
	EXPECT_EQ(4, info.address_lookups);
	EXPECT_EQ(1U << 19 | 1U << 24 | 1U << 29, info.prefixes4);
	/* sysfs: the lengths stored and their keys, nothing else */
	ASSERT_LT(0, read_all(BLOOM_SYSFS "/filters/p/prefixes", buf,
			      sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "ipv4/19 4\nipv4/24 9\nipv4/29 8\nipv4/32 5"))
		TH_LOG("prefixes: %s", buf);

	for (i = 0; i < NBLOCKS; i++) {
		hits = block_hits(self->fd, blocks[i], &total);
		EXPECT_EQ(total, hits) TH_LOG("%s: %ld of %ld addresses present",
					      blocks[i], hits, total);
	}

	/* a delete of an expanded block removes the keys its add stored */
	EXPECT_EQ(8, block_op(self->fd, BLOOM_IOC_DELETE, &plan,
			      "10.2.0.0/21", &keys));
	hits = block_hits(self->fd, "10.2.0.0/21", &total);
	/* 2048 addresses, 4 tests of 0.1% each at most: a few, not many */
	EXPECT_GT(40, hits);
	for (i = 0; i < NBLOCKS; i++) {
		if (!strcmp(blocks[i], "10.2.0.0/21"))
			continue;
		hits = block_hits(self->fd, blocks[i], &total);
		EXPECT_EQ(total, hits) TH_LOG("%s after the delete", blocks[i]);
	}
	EXPECT_OK(bt_destroy(self->fd, "p"));
}

TEST_F(prefix, snapshot_and_merge)
{
	static __u8 snap[1 << 21];
	struct bloom_restore r;
	struct bloom_save s;
	struct bloom_info info;
	__u8 key[BLOOM_NETBLOCK_KEY_MAX];
	long keys, total;
	int fd2, klen;

	ASSERT_OK(create_planned(self->fd, "p", STD));
	ASSERT_OK(bt_bind(self->fd, "p"));
	ASSERT_LE(0, block_op(self->fd, BLOOM_IOC_ADD, &plan, "10.2.0.0/21",
			      &keys));
	ASSERT_OK(save_to(self->fd, "p", snap, sizeof(snap), &s));
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.flags = BLOOM_RESTORE_F_NAME;
	set_name(r.name, "q");
	r.buf = u64_ptr(snap);
	r.buf_len = s.out_len;
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_RESTORE, &r));
	ASSERT_OK(bt_info(self->fd, "q", &info));
	EXPECT_EQ(1U << 19 | 1U << 24 | 1U << 29, info.prefix_lengths4);
	fd2 = bt_open();
	ASSERT_LE(0, fd2);
	ASSERT_OK(bt_bind(fd2, "q"));
	EXPECT_EQ(2048, block_hits(fd2, "10.2.0.0/21", &total));
	klen = bloom_netblock_parse("10.9.0.0/20", AF_INET, 0, key);
	EXPECT_ERRNO(EDOM, bt_batch(fd2, BLOOM_IOC_ADD, key, klen, 1, klen,
				    NULL, NULL, NULL));
	close(fd2);

	/* a filter of any length: /20s cannot merge into p */
	ASSERT_OK(create_keyed(self->fd, "any", STD, false));
	fd2 = bt_open();
	ASSERT_LE(0, fd2);
	ASSERT_OK(bt_bind(fd2, "any"));
	ASSERT_OK(bt_batch(fd2, BLOOM_IOC_ADD, key, klen, 1, klen, NULL, NULL,
			   NULL));
	ASSERT_OK(bt_info(fd2, NULL, &info));
	EXPECT_EQ(0, info.prefix_lengths4);
	EXPECT_EQ(2, info.address_lookups);
	close(fd2);
	ASSERT_OK(save_to(self->fd, "any", snap, sizeof(snap), &s));
	/* no prefix lengths: compat is KEYS (bit 0) alone, as before them */
	EXPECT_EQ(1, snap[20]);
	EXPECT_ERRNO(EINVAL, bt_pair(self->fd, BLOOM_IOC_MERGE, "p", "any"));
	/* the other way: any filter may take p's lengths */
	EXPECT_OK(bt_pair(self->fd, BLOOM_IOC_MERGE, "any", "p"));
	EXPECT_OK(bt_destroy(self->fd, "any"));
	EXPECT_OK(bt_destroy(self->fd, "q"));
	EXPECT_OK(bt_destroy(self->fd, "p"));
}

TEST_HARNESS_MAIN
