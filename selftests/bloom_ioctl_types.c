// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_ioctl_types: the filter types: unknown ones, a given geometry, the
 * hash key, and for each type (the "type" fixture, once per filter type)
 * its range errors, its sizing as INFO and sysfs report it, and whether
 * DELETE works on it; the timed type's key timeouts (create, ADD with
 * BLOOM_BATCH_F_TIMEOUT, expiry, set semantics, INFO); and the filter
 * core's self-test in the kernel.
 *
 * The bloom_ioctl_* programs test /dev/bloom's commands themselves, by
 * subject: the ABI (bloom_ioctl_abi); names, the list and a filter's
 * lifetime (bloom_ioctl_names); the filter types (bloom_ioctl_types);
 * permissions and limits (bloom_ioctl_perms). Keys and batches are covered
 * in bloom_batch, deleting in bloom_delete, snapshots in bloom_snapshot.
 */
#define _GNU_SOURCE
#include <math.h>

#include "bloom_test.h"

BT_IOCTL_FIXTURE()
BT_TYPE_FIXTURE();

TEST_F(ioctl, create_type_errors)
{
	const __u32 unknown[] = { 0, 6, 7, 0x100, 0xffffffff };
	size_t k;

	/* The types that exist: type.create_and_destroy, per type. */
	for (k = 0; k < sizeof(unknown) / sizeof(unknown[0]); k++) {
		EXPECT_ERRNO(EOPNOTSUPP, bt_create(self->fd, "t", unknown[k],
						   1000, 10000000, 0))
			TH_LOG("type %u", unknown[k]);
	}
	EXPECT_EQ(0, nfilters(self->fd));
}

/* An ADD of @n 4-byte keys with their own timeouts, or @t for all. */
static int timed_add(int fd, const __u32 *keys, __u32 n, const __u32 *t,
		     __u32 t_all, struct bloom_batch *b)
{
	return bt_timed_add(fd, keys, n, 4, t, t_all, NULL, b);
}

TEST_F(ioctl, timed_key_timeouts)
{
	struct bloom_create c = bt_create_req("tm", BLOOM_TYPE_TIMED, 1000,
					      100000, 0);
	const __u32 keys[3] = { 1, 2, 3 }, t[3] = { 2, 600, 0 };
	struct bloom_info info;
	struct bloom_batch b;
	int fd2;

	/* timeouts: only a timed filter's, the default within the largest */
	c.key_timeout_s = 61;
	c.key_timeout_max_s = 60;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	c.type = STD;
	c.key_timeout_s = 10;
	c.key_timeout_max_s = 0;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	c.type = BLOOM_TYPE_TIMED;
	c.key_timeout_max_s = 3600;
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	ASSERT_OK(bt_info(self->fd, "tm", &info));
	EXPECT_EQ(BLOOM_TYPE_TIMED, info.type);
	EXPECT_EQ(10, info.key_timeout_s);
	EXPECT_EQ(3600, info.key_timeout_max_s);
	EXPECT_LE(1, info.tag_bits);
	ASSERT_OK(bt_create(self->fd, "plain", STD, 1000, 100000, 0));
	fd2 = bt_open();
	ASSERT_LE(0, fd2);
	ASSERT_OK(bt_bind(fd2, "plain"));
	EXPECT_ERRNO(EOPNOTSUPP, timed_add(fd2, keys, 1, NULL, 60, &b));
	close(fd2);

	ASSERT_OK(bt_bind(self->fd, "tm"));
	EXPECT_ERRNO(EINVAL, timed_add(self->fd, keys, 1, NULL, 3601, &b));
	ASSERT_OK(timed_add(self->fd, keys, 3, t, 0, &b));
	EXPECT_EQ(3, b.out_done);
	EXPECT_EQ(0, b.out_hits);
	/* a set: again, present already; one delete removes it */
	ASSERT_OK(timed_add(self->fd, keys + 1, 1, NULL, 60, &b));
	EXPECT_EQ(1, b.out_hits);
	EXPECT_EQ(1, bt_one(self->fd, BLOOM_IOC_QUERY, &keys[1], 4));
	EXPECT_EQ(1, bt_one(self->fd, BLOOM_IOC_DELETE, &keys[1], 4));
	EXPECT_EQ(0, bt_one(self->fd, BLOOM_IOC_QUERY, &keys[1], 4));
	EXPECT_EQ(0, bt_one(self->fd, BLOOM_IOC_DELETE, &keys[1], 4));
	/* the 2 s key is gone by 2 + 1 + 1 s, the one without timeout stays */
	EXPECT_EQ(1, bt_one(self->fd, BLOOM_IOC_QUERY, &keys[0], 4));
	sleep(5);
	EXPECT_EQ(0, bt_one(self->fd, BLOOM_IOC_QUERY, &keys[0], 4));
	EXPECT_EQ(1, bt_one(self->fd, BLOOM_IOC_QUERY, &keys[2], 4));
	/* a plain ADD takes the default, 10 s */
	EXPECT_EQ(0, bt_one(self->fd, BLOOM_IOC_ADD, &keys[1], 4));
	EXPECT_EQ(1, bt_one(self->fd, BLOOM_IOC_QUERY, &keys[1], 4));
	ASSERT_OK(bt_destroy(self->fd, "tm"));
	ASSERT_OK(bt_destroy(self->fd, "plain"));
}

TEST_F(ioctl, create_geometry)
{
	const struct { __u32 type; __u64 bits; __u32 hashes; int err; } g[] = {
		{ STD, 0, 7, EINVAL },
		{ STD, 63, 7, EINVAL },
		{ STD, 4096, 0, EINVAL },
		{ STD, 4096, BLOOM_HASHES_MAX + 1, EINVAL },
		{ STD, 4096, 0xffffffff, EINVAL },
		{ CNT, 0, 7, EINVAL },
		{ CNT, 63, 7, EINVAL },
		{ CNT, 4096, 0, EINVAL },
		{ CNT, 4096, BLOOM_HASHES_MAX + 1, EINVAL },
		{ CNT, BLOOM_BITS_MAX + 64, 7, E2BIG },
		/* d-left is only ever sized by the module */
		{ DLF, 4096, 4, EOPNOTSUPP },
		{ DLF, 65536, 1, EOPNOTSUPP },
		{ DLF, 1 << 20, 7, EOPNOTSUPP },
		{ DLF, 65536, 4, EOPNOTSUPP },
		{ DLF, 4096, 1, EOPNOTSUPP },
		{ BLK, 1000, 7, EINVAL },	/* not a multiple of 512 */
		{ BLK, 256, 7, EINVAL },
		{ BLK, 512 + 64, 7, EINVAL },
		{ BLK, 0, 7, EINVAL },
		{ BLK, 4096, 0, EINVAL },
		{ BLK, 4096, BLOOM_HASHES_MAX + 1, EINVAL },
		{ STD, BLOOM_BITS_MAX + 64, 7, E2BIG },
		{ BLK, BLOOM_BITS_MAX + 512, 7, E2BIG },
		{ STD, ~0ULL & ~511ULL, 7, E2BIG },
		/* allowed by the ranges, but 128 GiB > 1 GiB max_memory */
		{ STD, BLOOM_BITS_MAX, 7, EDQUOT },
		{ STD, 64, 1, 0 },
		{ STD, 1000, 7, 0 },
		{ STD, 4097, BLOOM_HASHES_MAX, 0 },
		{ BLK, 512, 1, 0 },
		{ BLK, 8192, BLOOM_HASHES_MAX, 0 },
		{ CNT, 64, 1, 0 },
		{ CNT, 1000, 7, 0 },
		{ CNT, 4097, BLOOM_HASHES_MAX, 0 },
	};
	struct bloom_create c;
	struct bloom_info info;
	size_t k;
	int fd2 = bt_open();

	ASSERT_LE(0, fd2);
	for (k = 0; k < sizeof(g) / sizeof(g[0]); k++) {
		c = bt_create_req("geo", g[k].type, 12345, 2000000,
				  BLOOM_CREATE_F_GEOMETRY);
		c.bits = g[k].bits;
		c.hashes = g[k].hashes;
		if (g[k].err) {
			EXPECT_ERRNO(g[k].err,
				     ioctl(self->fd, BLOOM_IOC_CREATE, &c))
				TH_LOG("type %u bits %llu hashes %u", g[k].type,
				       (unsigned long long)g[k].bits,
				       g[k].hashes);
			/* the same with BIND: refused, and nothing bound */
			c.flags |= BLOOM_CREATE_F_BIND;
			EXPECT_ERRNO(g[k].err, ioctl(fd2, BLOOM_IOC_CREATE, &c))
				TH_LOG("type %u bits %llu hashes %u, BIND",
				       g[k].type,
				       (unsigned long long)g[k].bits,
				       g[k].hashes);
			continue;
		}
		EXPECT_OK(ioctl(self->fd, BLOOM_IOC_CREATE, &c))
			TH_LOG("type %u bits %llu hashes %u", g[k].type,
			       (unsigned long long)g[k].bits, g[k].hashes);
		ASSERT_OK(bt_info(self->fd, "geo", &info));
		EXPECT_EQ(g[k].type, info.type);
		EXPECT_EQ(g[k].bits, info.bits);
		EXPECT_EQ(g[k].hashes, info.hashes);
		/* Recorded as given, not recomputed. */
		EXPECT_EQ(12345, info.capacity);
		EXPECT_EQ(2000000, info.fpp_ppb);
		EXPECT_OK(bt_destroy(self->fd, "geo"));
	}
	EXPECT_EQ(0, nfilters(self->fd));
	EXPECT_ERRNO(EBADFD, bt_info(fd2, NULL, &info));
	close(fd2);
}

/*
 * The hash key decides which bits a key sets: two filters with the same key
 * and geometry answer identically for every key, two with random keys do
 * not (at p = 0.1 over 8192 absent keys, identical false-positive sets have
 * probability ~0).
 */
TEST_F(ioctl, create_hash_key)
{
	enum { N = 2048, Q = 8192 };
	static __u8 keys[N * 16], absent[Q * 16];
	__u8 r[4][Q / 8];
	const char *names[4] = { "hk_a", "hk_b", "hk_r1", "hk_r2" };
	struct bloom_create c;
	int fds[4], k;
	__u32 i;

	for (i = 0; i < N; i++)
		make_key16(i, keys + 16 * i);
	for (i = 0; i < Q; i++)
		make_key16(N + i, absent + 16 * i);
	for (k = 0; k < 4; k++) {
		fds[k] = bt_open();
		ASSERT_LE(0, fds[k]);
		c = bt_create_req(names[k], STD, N, 100000000,
				  BLOOM_CREATE_F_BIND |
				  (k < 2 ? BLOOM_CREATE_F_HASH_KEY : 0));
		if (k < 2)
			memcpy(c.hash_key, "0123456789abcdef", 16);
		ASSERT_OK(ioctl(fds[k], BLOOM_IOC_CREATE, &c));
		ASSERT_OK(bt_batch(fds[k], BLOOM_IOC_ADD, keys, sizeof(keys),
				   N, 16, NULL, NULL, NULL));
		ASSERT_OK(bt_batch(fds[k], BLOOM_IOC_QUERY, absent,
				   sizeof(absent), Q, 16, NULL, r[k], NULL));
	}
	EXPECT_EQ(0, memcmp(r[0], r[1], sizeof(r[0])));
	EXPECT_NE(0, memcmp(r[2], r[3], sizeof(r[2])));
	EXPECT_NE(0, memcmp(r[0], r[2], sizeof(r[0])));
	for (k = 0; k < 4; k++)
		close(fds[k]);
}

/*
 * The filter core's self-test runs in the kernel on demand (not at every
 * load): the published SipHash-2-4 and SipHash-1-3 vectors through every
 * build of the core's SipHash.
 */
TEST_F(ioctl, core_selftest_in_kernel)
{
	char buf[64] = "";

	bt_debugfs_mount();
	ASSERT_OK(read_str_file(BLOOM_DEBUGFS "/core_selftest", buf,
				sizeof(buf)));
	EXPECT_STREQ("ok", buf);
}

/* Every type of the header exists, and VERSION says so. */
TEST_F(type, create_and_destroy)
{
	struct bloom_version v;
	struct bloom_info info;

	ASSERT_OK(bt_version(self->fd, &v));
	EXPECT_TRUE(v.types & (1U << variant->type));
	ASSERT_OK(bt_create(self->fd, "t", variant->type, 1000, 10000000,
			    0));
	ASSERT_OK(bt_info(self->fd, "t", &info));
	EXPECT_EQ(variant->type, info.type);
	EXPECT_OK(bt_destroy(self->fd, "t"));
	EXPECT_EQ(0, nfilters(self->fd));
}

TEST_F(type, create_range_errors)
{
	const __u32 t = variant->type;
	struct bloom_create c;

	EXPECT_ERRNO(EINVAL, bt_create(self->fd, "r", t, 0,
				       10000000, 0));
	EXPECT_ERRNO(EINVAL, bt_create(self->fd, "r", t,
				       BLOOM_CAPACITY_MAX + 1,
				       10000000, 0));
	EXPECT_ERRNO(EINVAL, bt_create(self->fd, "r", t, 1ULL << 63,
				       10000000, 0));
	EXPECT_ERRNO(EINVAL, bt_create(self->fd, "r", t, ~0ULL,
				       10000000, 0));
	EXPECT_ERRNO(EINVAL, bt_create(self->fd, "r", t, 1000, 0,
				       0));
	EXPECT_ERRNO(EINVAL, bt_create(self->fd, "r", t, 1000,
				       BLOOM_FPP_PPB_MAX + 1, 0));
	EXPECT_ERRNO(EINVAL, bt_create(self->fd, "r", t, 1000,
				       1000000000, 0));
	EXPECT_ERRNO(EINVAL, bt_create(self->fd, "r", t, 1000,
				       0xffffffff, 0));
	/*
	 * The biggest filter the ranges allow: about 1.85e11 bits
	 * (23 GB) for the standard type, under BLOOM_BITS_MAX but far
	 * over the default 1 GiB max_memory.
	 */
	if (t != DLF) {
		EXPECT_ERRNO(EDQUOT, bt_create(self->fd, "r", t,
					       BLOOM_CAPACITY_MAX,
					       BLOOM_FPP_PPB_MIN, 0))
			TH_LOG("type %d", t);
	} else {
		/* How d-left fails there (EDQUOT, E2BIG) is open. */
		EXPECT_EQ(-1, bt_create(self->fd, "r", t,
					BLOOM_CAPACITY_MAX,
					BLOOM_FPP_PPB_MIN, 0));
	}

	c = bt_create_req("r", t, 1000, 10000000, 0);
	c.reserved = 1;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	c.reserved = 1U << 31;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	/* a key kind past BLOOM_KEYS_IPV6 */
	c.reserved = 0;
	c.keys = BLOOM_KEYS_IPV6 + 1;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));

	/* Geometry fields without the GEOMETRY flag. */
	c = bt_create_req("r", t, 1000, 10000000, 0);
	c.bits = 4096;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	c = bt_create_req("r", t, 1000, 10000000, 0);
	c.hashes = 3;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));

	/* A hash key without the HASH_KEY flag. */
	c = bt_create_req("r", t, 1000, 10000000, 0);
	c.hash_key[BLOOM_HASH_KEY_LEN - 1] = 1;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	c = bt_create_req("r", t, 1000, 10000000,
			  BLOOM_CREATE_F_BIND);
	c.hash_key[0] = 0x80;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	/* Nothing was created, and the BIND attempts did not bind. */
	EXPECT_EQ(0, nfilters(self->fd));
	EXPECT_EQ(0, read_u64_file(BLOOM_SYSFS "/memory_used"));
}

/*
 * Every statistic in sysfs equals INFO's. The files of the deleting and
 * d-left statistics must exist where the type has them (deletes, delete_misses, saturated for the
 * deletable types, and the d-left ones for d-left); elsewhere they may be
 * absent, and if present must agree too.
 */
static void expect_info_matches_sysfs(struct __test_metadata *_metadata,
				      const struct bloom_info *info)
{
	static const char *const attrs[] = {
		"bits", "hashes", "capacity", "fpp_ppb", "count", "adds",
		"memory_bytes", "queries", "hits", "bits_set",
		"deletes", "delete_misses", "saturated",
		"insert_failures", "fingerprint_bits", "subtable_cells",
	};
	const __u64 vals[] = {
		info->bits, info->hashes, info->capacity, info->fpp_ppb,
		info->count, info->adds, info->memory_bytes, info->queries,
		info->hits, info->bits_set,
		info->deletes, info->delete_misses, info->saturated,
		info->insert_failures, info->fingerprint_bits,
		info->subtable_cells,
	};
	int deletable = info->type == CNT || info->type == DLF;
	char path[128], type[32], buf[128];
	size_t k;

	for (k = 0; k < sizeof(attrs) / sizeof(attrs[0]); k++) {
		int required = k < 10 || (k < 13 && deletable) ||
			       info->type == DLF;
		long long v = filter_attr(info->name, attrs[k]);

		if (v < 0 && !required)
			continue;
		EXPECT_EQ((long long)vals[k], v)
			TH_LOG("%s/%s", info->name, attrs[k]);
	}
	snprintf(path, sizeof(path), BLOOM_SYSFS "/filters/%s/type",
		 info->name);
	ASSERT_OK(read_str_file(path, type, sizeof(type)));
	EXPECT_STREQ(bt_type_str(info->type), type);
	if (info->type == DLF) {
		unsigned long long u[4];

		snprintf(path, sizeof(path),
			 BLOOM_SYSFS "/filters/%s/subtable_used", info->name);
		ASSERT_OK(read_str_file(path, buf, sizeof(buf)));
		ASSERT_EQ(4, sscanf(buf, "%llu %llu %llu %llu", &u[0], &u[1],
				    &u[2], &u[3])) TH_LOG("'%s'", buf);
		for (k = 0; k < 4; k++) {
			EXPECT_EQ(info->subtable_used[k], u[k]);
		}
	}
}

/* -log2(ppb / 1e9) */
static double neg_log2_p(__u32 ppb)
{
	return -log2(ppb / 1e9);
}

TEST_F(type, info_sizing_and_sysfs)
{
	const __u32 t = variant->type;
	const struct { __u64 n; __u32 ppb; } s[] = {
		{ 1000, 10000000 }, { 1000000, 1000000 }, { 12345, 500000000 },
		{ 100, 1 }, { 1000000, 100000000 }, { 777777, 50000000 },
		{ 3, 250000000 }, { 65536, 12345678 }, { 10000, 10000000 },
	};
	struct bloom_info info;
	long long used = 0;
	__u8 keys[100 * 16];
	__u64 storage;
	size_t k;
	int j, fd2;

	for (k = 0; k < sizeof(s) / sizeof(s[0]); k++) {
		double nl = neg_log2_p(s[k].ppb);
		/* The optimum for a real k, at least one word. */
		double m = fmax(64, ceil(s[k].n * nl / log(2)));
		char name[32];

		snprintf(name, sizeof(name), "sz_%zu", k);
		ASSERT_OK(bt_create(self->fd, name, t, s[k].n,
				    s[k].ppb, 0));
		ASSERT_OK(bt_info(self->fd, name, &info));
		EXPECT_STREQ(name, info.name);
		EXPECT_EQ(t, info.type);
		EXPECT_EQ(s[k].n, info.capacity);
		EXPECT_EQ(s[k].ppb, info.fpp_ppb);
		EXPECT_EQ(0, info.count);
		EXPECT_EQ(0, info.adds);
		EXPECT_EQ(0, info.queries);
		EXPECT_EQ(0, info.hits);
		EXPECT_EQ(0, info.bits_set);
		EXPECT_EQ(0, info.reserved);
		EXPECT_EQ(0, info.deletes);
		EXPECT_EQ(0, info.delete_misses);
		EXPECT_EQ(0, info.saturated);
		EXPECT_EQ(0, info.insert_failures);
		EXPECT_EQ(0, info.delete_pinned);
		for (j = 0; j < 4; j++) {
			EXPECT_EQ(0, info.subtable_used[j]);
		}
		/* counting: bits counts 4-bit counters */
		storage = t == CNT ? info.bits / 2 : info.bits / 8;
		EXPECT_LE(storage, info.memory_bytes);
		EXPECT_GE(storage + storage / 10 + 65536,
			  info.memory_bytes)
			TH_LOG("%s: %llu bits take %llu bytes", name,
			       (unsigned long long)info.bits,
			       (unsigned long long)info.memory_bytes);
		if (t != DLF) {
			EXPECT_EQ(0, info.fingerprint_bits);
			EXPECT_EQ(0, info.subtables);
			EXPECT_EQ(0, info.subtable_cells);
		}
		if (t == STD || t == CNT) {
			/*
			 * The header: the fewest bits with the rate
			 * bound (1 - (1 - k/m)^n)^k <= p, k within 2
			 * of -log2 p; near the classic size for that
			 * k, -k n / ln(1 - p^(1/k)), at least 64. The
			 * unit tests check how near; here the kernel's
			 * integer arithmetic must agree roughly.
			 */
			double kk = info.hashes, pp = s[k].ppb / 1e9;
			double mc = fmax(64, ceil(-kk * s[k].n /
					 log1p(-pow(pp, 1 / kk))));

			EXPECT_GE(2.5, fabs(nl - kk))
				TH_LOG("%s: p=%g k=%u", name, pp,
				       info.hashes);
			EXPECT_GE(pp * (1 + 1e-9),
				  pow(-expm1(s[k].n *
					     log1p(-kk / info.bits)),
				      kk))
				TH_LOG("%s: rate bound over p", name);
			EXPECT_GE(mc * 0.08 + 8, fabs(info.bits - mc))
				TH_LOG("%s: bits %llu, classic %.0f",
				       name,
				       (unsigned long long)info.bits,
				       mc);
			EXPECT_LE(m, info.bits * 1.08 + 8);
			/* At this size, within 0.1% of the classic size. */
			if (s[k].n == 10000) {
				EXPECT_GE(mc * 1e-3 + 1, fabs(info.bits - mc))
					TH_LOG("%s: bits %llu, classic %.0f",
					       name,
					       (unsigned long long)info.bits,
					       mc);
			}
		} else if (t == DLF) {
			__u64 cells = 4 * info.subtable_cells;
			__u32 w = info.fingerprint_bits + 2;
			double rate;

			EXPECT_EQ(4, info.hashes);
			EXPECT_EQ(4, info.subtables);
			EXPECT_LT(0, info.fingerprint_bits);
			ASSERT_LT(0, info.subtable_cells);
			EXPECT_EQ(0, info.subtable_cells % 8);
			EXPECT_LE(s[k].n, cells);
			/*
			 * w-bit cells, the widest for floor(64 / w)
			 * to a 64-bit word; the table whole words
			 */
			ASSERT_LE(8, w);
			ASSERT_GE(64, w);
			EXPECT_EQ(w, 64 / (64 / w));
			EXPECT_EQ((cells + 64 / w - 1) / (64 / w) * 64,
				  info.bits);
			/*
			 * At capacity a query meets n / buckets
			 * fingerprints of f bits: at most p.
			 */
			rate = s[k].n / (info.subtable_cells / 8.0) *
			       ldexp(1, -(int)info.fingerprint_bits);
			EXPECT_GE(s[k].ppb / 1e9 * 1.0001, rate)
				TH_LOG("%s: f=%u, %llu cells: rate %g",
				       name, info.fingerprint_bits,
				       (unsigned long long)info.subtable_cells,
				       rate);
		} else {
			EXPECT_EQ(0, info.bits % 512);
			EXPECT_LE(1, info.hashes);
			EXPECT_GE(BLOOM_HASHES_MAX, info.hashes);
			/* Packing never beats the optimum. */
			EXPECT_LE(m, info.bits + 512)
				TH_LOG("%s: bits %llu < %.0f", name,
				       (unsigned long long)info.bits, m);
		}
		expect_info_matches_sysfs(_metadata, &info);
		used += info.memory_bytes;
	}
	EXPECT_EQ(used, read_u64_file(BLOOM_SYSFS "/memory_used"));
	{
		struct bloom_version v;

		ASSERT_OK(bt_version(self->fd, &v));
		EXPECT_EQ(used, (long long)v.memory_used);
	}

	/* Statistics move and sysfs follows INFO. */
	fd2 = bt_open();
	ASSERT_LE(0, fd2);
	ASSERT_OK(bt_bind(fd2, "sz_0"));
	for (k = 0; k < 100; k++)
		make_key16(k, keys + 16 * k);
	ASSERT_OK(bt_batch(fd2, BLOOM_IOC_ADD, keys, sizeof(keys), 100, 16,
			   NULL, NULL, NULL));
	ASSERT_OK(bt_batch(fd2, BLOOM_IOC_QUERY, keys, sizeof(keys), 100, 16,
			   NULL, NULL, NULL));
	ASSERT_OK(bt_info(fd2, NULL, &info));
	EXPECT_EQ(100, info.adds);
	EXPECT_EQ(100, info.queries);
	EXPECT_EQ(100, info.hits);
	EXPECT_LE(99, info.count);
	if (t == DLF) {
		/* a cell per key, but where two share a fingerprint */
		EXPECT_EQ(info.count, info.bits_set);
	} else {
		EXPECT_GE(100 * info.hashes, info.bits_set);
		EXPECT_LE(90 * info.hashes / 2, info.bits_set);
	}
	expect_info_matches_sysfs(_metadata, &info);
	close(fd2);
}

/*
 * DELETE works on the deletable types only: on a standard or blocked
 * filter it is EOPNOTSUPP, whatever the batch, and nothing moves.
 */
TEST_F(type, delete_only_on_deletable_types)
{
	enum { N = 200, KLEN = 16 };
	static __u8 keys[N * KLEN];
	struct bloom_info before, now;
	struct bloom_batch b;
	__u32 lens[N], i;
	__u8 res[N / 8];

	for (i = 0; i < N; i++) {
		make_key16(100 + i, keys + KLEN * i);
		lens[i] = KLEN;
	}
	ASSERT_OK(bt_create(self->fd, "del", variant->type, 1000, 10000000,
			    BLOOM_CREATE_F_BIND));
	ASSERT_OK(bt_batch(self->fd, BLOOM_IOC_ADD, keys, sizeof(keys), N,
			   KLEN, NULL, NULL, NULL));
	ASSERT_OK(bt_info(self->fd, NULL, &before));
	if (variant->deletable) {
		ASSERT_OK(bt_batch(self->fd, BLOOM_IOC_DELETE, keys,
				   sizeof(keys), N, KLEN, NULL, res, &b));
		/*
		 * Each key found (exactly, for counting; a d-left delete
		 * may take a false positive's cell): bloom_delete.c has
		 * the details.
		 */
		EXPECT_EQ(N, b.out_done);
		ASSERT_OK(bt_info(self->fd, NULL, &now));
		EXPECT_EQ(now.deletes, b.out_hits);
		EXPECT_EQ(N, now.deletes + now.delete_misses +
			  now.delete_pinned);
		if (variant->type == CNT) {
			EXPECT_EQ(N, b.out_hits);
			EXPECT_EQ(0, now.bits_set);
		}
		return;
	}
	EXPECT_ERRNO(EOPNOTSUPP, bt_batch(self->fd, BLOOM_IOC_DELETE, keys,
					  sizeof(keys), N, KLEN, NULL, res,
					  &b));
	EXPECT_ERRNO(EOPNOTSUPP, bt_batch(self->fd, BLOOM_IOC_DELETE, keys,
					  sizeof(keys), N, 0, lens, NULL,
					  NULL));
	EXPECT_ERRNO(EOPNOTSUPP, bt_batch(self->fd, BLOOM_IOC_DELETE, keys,
					  KLEN, 1, KLEN, NULL, res, NULL));
	ASSERT_OK(bt_info(self->fd, NULL, &now));
	EXPECT_EQ(before.bits_set, now.bits_set);
	EXPECT_EQ(before.count, now.count);
	EXPECT_EQ(before.adds, now.adds);
	EXPECT_EQ(before.queries, now.queries);
	EXPECT_EQ(before.hits, now.hits);
	EXPECT_EQ(0, now.deletes);
	EXPECT_EQ(0, now.delete_misses);
	/* Every key still there. */
	ASSERT_OK(bt_batch(self->fd, BLOOM_IOC_QUERY, keys, sizeof(keys), N,
			   KLEN, NULL, NULL, &b));
	EXPECT_EQ(N, b.out_hits);
}

BT_LEAK_CHECK_TEST()

TEST_HARNESS_MAIN
