// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_ioctl_names: filter names (malformed, valid, taken), the lookups by
 * name and the binding of a descriptor (ENOENT, EBUSY, EBADFD), the list,
 * and a filter's lifetime: it outlives the descriptor that made it; once
 * destroyed its name is gone and a descriptor bound to it gets ESTALE (the
 * "type" fixture: once per filter type).
 *
 * The bloom_ioctl_* programs test /dev/bloom's commands themselves, by
 * subject: the ABI (bloom_ioctl_abi); names, the list and a filter's
 * lifetime (bloom_ioctl_names); the filter types (bloom_ioctl_types);
 * permissions and limits (bloom_ioctl_perms). Keys and batches are covered
 * in bloom_batch, deleting in bloom_delete, snapshots in bloom_snapshot.
 */
#define _GNU_SOURCE
#include "bloom_test.h"

BT_IOCTL_FIXTURE()
BT_TYPE_FIXTURE();

/* A malformed name, as the raw 32 bytes of the name field. */
struct bad_name {
	const char *what;
	char raw[BLOOM_NAME_LEN];
};

static void bad_names(struct bad_name *t, size_t *n)
{
	size_t k = 0;

	memset(t, 0, sizeof(*t) * 16);
	t[k++].what = "empty";
	t[k].what = "32 chars, no NUL";
	memset(t[k++].raw, 'a', BLOOM_NAME_LEN);
	t[k].what = "non-zero byte after NUL";
	strcpy(t[k].raw, "abc");
	t[k++].raw[5] = 'x';
	t[k].what = "non-zero last byte after NUL";
	strcpy(t[k].raw, "abc");
	t[k++].raw[BLOOM_NAME_LEN - 1] = 'x';
	t[k].what = "control char";
	strcpy(t[k++].raw, "a\x01" "b");
	t[k].what = "space";
	strcpy(t[k++].raw, "a b");
	t[k].what = "DEL";
	strcpy(t[k++].raw, "a\x7f");
	t[k].what = "8-bit";
	strcpy(t[k++].raw, "a\x80");
	t[k].what = "newline";
	strcpy(t[k++].raw, "a\n");
	t[k].what = "slash";
	strcpy(t[k++].raw, "a/b");
	t[k].what = "only slash";
	strcpy(t[k++].raw, "/");
	t[k].what = "dot";
	strcpy(t[k++].raw, ".");
	t[k].what = "dotdot";
	strcpy(t[k++].raw, "..");
	*n = k;
}

TEST_F(ioctl, malformed_names_einval)
{
	struct bad_name t[16];
	struct bloom_create c;
	struct bloom_name nm;
	struct bloom_info info;
	size_t n, k;
	int fd2;

	bad_names(t, &n);
	fd2 = bt_open();
	ASSERT_LE(0, fd2);
	for (k = 0; k < n; k++) {
		c = bt_create_req("", STD, 1000, 10000000, 0);
		memcpy(c.name, t[k].raw, BLOOM_NAME_LEN);
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c))
			TH_LOG("CREATE: %s", t[k].what);

		memset(&nm, 0, sizeof(nm));
		nm.size = sizeof(nm);
		memcpy(nm.name, t[k].raw, BLOOM_NAME_LEN);
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_DESTROY, &nm))
			TH_LOG("DESTROY: %s", t[k].what);
		EXPECT_ERRNO(EINVAL, ioctl(fd2, BLOOM_IOC_BIND, &nm))
			TH_LOG("BIND: %s", t[k].what);

		/* An all-zero name means "the bound filter", not a name. */
		if (k == 0)
			continue;
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		memcpy(info.name, t[k].raw, BLOOM_NAME_LEN);
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_INFO, &info))
			TH_LOG("INFO: %s", t[k].what);
	}
	EXPECT_EQ(0, nfilters(self->fd));
	close(fd2);
}

TEST_F(ioctl, valid_names_and_eexist)
{
	const char *good[] = {
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",	/* 31 chars */
		"...",
		".a",
		"a..b",
		"!\"#$%&'()*+,-.:;<=>?@[\\]^_`{|}~",	/* 31 punctuation */
		"~",
		"0",
	};
	struct bloom_info info;
	size_t k, n = sizeof(good) / sizeof(good[0]);

	ASSERT_EQ(31, strlen(good[0]));
	ASSERT_EQ(31, strlen(good[4]));
	for (k = 0; k < n; k++) {
		EXPECT_OK(bt_create(self->fd, good[k], STD, 1000, 10000000,
				    0))
			TH_LOG("name '%s'", good[k]);
		EXPECT_OK(bt_info(self->fd, good[k], &info));
		EXPECT_STREQ(good[k], info.name);
	}
	EXPECT_EQ(n, nfilters(self->fd));

	/* A duplicate fails whatever its type, and leaves the first alone. */
	EXPECT_ERRNO(EEXIST, bt_create(self->fd, good[0], STD, 1000,
				       10000000, 0));
	EXPECT_ERRNO(EEXIST, bt_create(self->fd, good[0], BLK, 5000,
				       1000000, BLOOM_CREATE_F_BIND));
	ASSERT_OK(bt_info(self->fd, good[0], &info));
	EXPECT_EQ(STD, info.type);
	EXPECT_EQ(1000, info.capacity);
	EXPECT_ERRNO(EBADFD, bt_info(self->fd, NULL, &info))
		TH_LOG("a create that failed with EEXIST bound the fd");
	EXPECT_EQ(n, nfilters(self->fd));

	for (k = 0; k < n; k++) {
		EXPECT_OK(bt_destroy(self->fd, good[k]));
	}
	EXPECT_EQ(0, nfilters(self->fd));
}

TEST_F(ioctl, enoent_ebusy_ebadfd)
{
	struct bloom_info info;
	__u8 key = 1, res;
	int fd2 = bt_open();

	ASSERT_LE(0, fd2);
	EXPECT_ERRNO(ENOENT, bt_destroy(self->fd, "nope"));
	EXPECT_ERRNO(ENOENT, bt_bind(self->fd, "nope"));
	EXPECT_ERRNO(ENOENT, bt_info(self->fd, "nope", &info));

	/* Unbound: INFO without a name, ADD, QUERY, DELETE need a binding. */
	EXPECT_ERRNO(EBADFD, bt_info(self->fd, NULL, &info));
	/* ... but a bad flag is refused as such. */
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	info.flags = 1;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_INFO, &info));
	EXPECT_ERRNO(EBADFD, bt_batch(self->fd, BLOOM_IOC_ADD, &key, 1, 1, 1,
				      NULL, &res, NULL));
	EXPECT_ERRNO(EBADFD, bt_batch(self->fd, BLOOM_IOC_QUERY, &key, 1, 1,
				      1, NULL, &res, NULL));
	EXPECT_ERRNO(EBADFD, bt_batch(self->fd, BLOOM_IOC_DELETE, &key, 1, 1,
				      1, NULL, &res, NULL));
	/* ... even an empty batch. */
	EXPECT_ERRNO(EBADFD, bt_batch(self->fd, BLOOM_IOC_ADD, NULL, 0, 0, 1,
				      NULL, NULL, NULL));
	EXPECT_ERRNO(EBADFD, bt_batch(self->fd, BLOOM_IOC_DELETE, NULL, 0, 0,
				      1, NULL, NULL, NULL));

	ASSERT_OK(bt_create(self->fd, "one", STD, 1000, 10000000, 0));
	ASSERT_OK(bt_create(self->fd, "two", BLK, 1000, 10000000, 0));
	ASSERT_OK(bt_create(self->fd, "del", CNT, 1000, 10000000, 0));
	/* A filter existing by name does not bind the descriptor. */
	EXPECT_ERRNO(EBADFD, bt_batch(self->fd, BLOOM_IOC_DELETE, &key, 1, 1,
				      1, NULL, &res, NULL));
	ASSERT_OK(bt_destroy(self->fd, "del"));
	EXPECT_ERRNO(ENOENT, bt_bind(self->fd, "on"));
	EXPECT_ERRNO(ENOENT, bt_info(self->fd, "onee", &info));
	ASSERT_OK(bt_bind(self->fd, "one"));
	EXPECT_ERRNO(EBUSY, bt_bind(self->fd, "one"));
	EXPECT_ERRNO(EBUSY, bt_bind(self->fd, "two"));
	ASSERT_OK(bt_info(self->fd, NULL, &info));
	EXPECT_STREQ("one", info.name);

	/* CREATE|BIND on a bound fd: EBUSY, and no filter is created. */
	EXPECT_ERRNO(EBUSY, bt_create(self->fd, "three", STD, 1000,
				      10000000, BLOOM_CREATE_F_BIND));
	EXPECT_ERRNO(ENOENT, bt_info(fd2, "three", &info));
	EXPECT_EQ(2, nfilters(self->fd));
	/* A bound fd may still create without BIND, and destroy others. */
	EXPECT_OK(bt_create(self->fd, "three", STD, 1000, 10000000, 0));
	EXPECT_OK(bt_destroy(self->fd, "three"));
	EXPECT_ERRNO(ENOENT, bt_destroy(self->fd, "three"));

	/* Many descriptors may bind the same filter. */
	ASSERT_OK(bt_bind(fd2, "one"));
	EXPECT_EQ(0, bt_one(fd2, BLOOM_IOC_ADD, &key, 1));
	EXPECT_EQ(1, bt_one(self->fd, BLOOM_IOC_QUERY, &key, 1));
	close(fd2);
}

TEST_F(ioctl, filter_outlives_creating_fd)
{
	__u8 key[3] = { 'k', 'e', 'y' };
	int fd2 = bt_open();

	ASSERT_LE(0, fd2);
	ASSERT_OK(bt_create(fd2, "keep", STD, 1000, 10000000,
			    BLOOM_CREATE_F_BIND));
	ASSERT_EQ(0, bt_one(fd2, BLOOM_IOC_ADD, key, 3));
	close(fd2);
	EXPECT_EQ(1, nfilters(self->fd));
	ASSERT_OK(bt_bind(self->fd, "keep"));
	EXPECT_EQ(1, bt_one(self->fd, BLOOM_IOC_QUERY, key, 3));
}

TEST_F(ioctl, list)
{
	const char *order[] = { "list_c", "list_a", "list_e", "list_b",
				"List_d" };
	const char *sorted[] = { "List_d", "list_a", "list_b", "list_c",
				 "list_e" };
	char names[8][BLOOM_NAME_LEN];
	struct bloom_list l;
	int k, j;

	/* Empty module. */
	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	l.out_count = 77;
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_LIST, &l));
	EXPECT_EQ(0, l.out_count);

	for (k = 0; k < 5; k++) {
		ASSERT_OK(bt_create(self->fd, order[k], k & 1 ? BLK : STD,
				    1000, 10000000, 0));
	}

	/* capacity 0: just the count; names may be NULL. */
	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_LIST, &l));
	EXPECT_EQ(5, l.out_count);
	l.names = u64_ptr(names);
	memset(names, 0xaa, sizeof(names));
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_LIST, &l));
	EXPECT_EQ(5, l.out_count);
	EXPECT_EQ((char)0xaa, names[0][0]) TH_LOG("capacity 0 wrote a name");

	/* Truncated: the first 2 in order, nothing past the 2 slots. */
	memset(names, 0xaa, sizeof(names));
	l.capacity = 2;
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_LIST, &l));
	EXPECT_EQ(5, l.out_count);
	EXPECT_STREQ(sorted[0], names[0]);
	EXPECT_STREQ(sorted[1], names[1]);
	for (j = 0; j < BLOOM_NAME_LEN; j++) {
		EXPECT_EQ((char)0xaa, names[2][j]);
	}

	/* Room for all: sorted (bytewise), every byte after the NUL zero. */
	memset(names, 0xaa, sizeof(names));
	l.capacity = 8;
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_LIST, &l));
	EXPECT_EQ(5, l.out_count);
	for (k = 0; k < 5; k++) {
		EXPECT_STREQ(sorted[k], names[k]);
		for (j = strlen(sorted[k]); j < BLOOM_NAME_LEN; j++) {
			EXPECT_EQ(0, names[k][j]) TH_LOG("slot %d byte %d", k, j);
		}
	}
	/* Exactly enough room. */
	l.capacity = 5;
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_LIST, &l));
	EXPECT_EQ(5, l.out_count);
	EXPECT_STREQ(sorted[4], names[4]);

	ASSERT_OK(bt_destroy(self->fd, "list_b"));
	l.capacity = 8;
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_LIST, &l));
	EXPECT_EQ(4, l.out_count);
	EXPECT_STREQ("list_c", names[2]);
}

/*
 * Destroy removes the name at once; a descriptor bound to the filter gets
 * ESTALE for everything it did with it, and holds none of its memory.
 */
TEST_F(type, destroyed_filter_estale)
{
	struct bloom_info info;
	__u8 key = 9;
	int fd2 = bt_open();
	long long used_before, used_at_once;
	double t0;

	ASSERT_LE(0, fd2);
	/*
	 * Our two descriptors are all there is, once what earlier tests
	 * destroyed has been freed (a grace period after each destroy).
	 */
	ASSERT_EQ(2, wait_live_allocations(2, BT_FREE_WAIT_MS));
	used_before = read_u64_file(BLOOM_SYSFS "/memory_used");
	ASSERT_OK(bt_create(self->fd, "st", variant->type, 1000, 10000000,
			    BLOOM_CREATE_F_BIND));
	EXPECT_LT(3, live_allocations());
	ASSERT_EQ(0, bt_one(self->fd, BLOOM_IOC_ADD, &key, 1));
	EXPECT_LT(used_before, read_u64_file(BLOOM_SYSFS "/memory_used"));
	ASSERT_OK(bt_destroy(fd2, "st"));
	t0 = now_sec();
	used_at_once = read_u64_file(BLOOM_SYSFS "/memory_used");

	/* The name is gone at once ... */
	EXPECT_ERRNO(ENOENT, bt_info(fd2, "st", &info));
	EXPECT_ERRNO(ENOENT, bt_info(self->fd, "st", &info));
	EXPECT_ERRNO(ENOENT, bt_destroy(fd2, "st"));
	EXPECT_ERRNO(ENOENT, bt_bind(fd2, "st"));
	EXPECT_EQ(0, nfilters(fd2));
	{
		char path[128];

		snprintf(path, sizeof(path), BLOOM_SYSFS "/filters/st");
		EXPECT_NE(0, access(path, F_OK))
			TH_LOG("sysfs directory of a destroyed filter remains");
	}
	/* ... while the bound descriptor sees ESTALE for everything ... */
	EXPECT_ERRNO(ESTALE, bt_batch(self->fd, BLOOM_IOC_ADD, &key, 1, 1, 1,
				      NULL, NULL, NULL));
	EXPECT_ERRNO(ESTALE, bt_batch(self->fd, BLOOM_IOC_QUERY, &key, 1, 1,
				      1, NULL, NULL, NULL));
	EXPECT_ERRNO(ESTALE, bt_info(self->fd, NULL, &info));
	/* DELETE too, whatever the type: the filter is gone, not its type */
	EXPECT_ERRNO(ESTALE, bt_batch(self->fd, BLOOM_IOC_DELETE, &key, 1, 1,
				      1, NULL, NULL, NULL));
	EXPECT_ERRNO(ESTALE, bt_batch(self->fd, BLOOM_IOC_DELETE, NULL, 0, 0,
				      1, NULL, NULL, NULL));
	EXPECT_ERRNO(EBUSY, bt_bind(self->fd, "st"));

	/*
	 * ... and holds none of its memory: memory_used is back where it was
	 * and everything the filter was made of is freed after a grace period
	 * but its small struct, which the descriptor still names: three
	 * allocations are left, the two descriptors' and that struct.
	 */
	EXPECT_EQ(used_before, wait_memory_used(used_before, BT_FREE_WAIT_MS));
	EXPECT_EQ(3, wait_live_allocations(3, BT_FREE_WAIT_MS))
		TH_LOG("a destroyed filter's store must be freed while a descriptor is bound");
	/* For the notes: when the bytes and the memory came back. */
	TH_LOG("destroy: memory_used read right after it %s; store freed %.0f ms later (10 ms polls)",
	       used_at_once == used_before ? "was back already" :
	       "was not back yet", (now_sec() - t0) * 1e3);

	/* A new filter of the same name is not the stale one. */
	ASSERT_OK(bt_create(fd2, "st", variant->type, 1000, 10000000, 0));
	EXPECT_ERRNO(ESTALE, bt_batch(self->fd, BLOOM_IOC_QUERY, &key, 1, 1,
				      1, NULL, NULL, NULL));
	EXPECT_ERRNO(ESTALE, bt_batch(self->fd, BLOOM_IOC_DELETE, &key, 1, 1,
				      1, NULL, NULL, NULL));
	ASSERT_OK(bt_info(fd2, "st", &info));
	EXPECT_EQ(0, info.adds);
	EXPECT_EQ(0, info.bits_set);
	ASSERT_OK(bt_destroy(fd2, "st"));
	close(fd2);

	close(self->fd);
	EXPECT_EQ(used_before, read_u64_file(BLOOM_SYSFS "/memory_used"));
	self->fd = bt_open();
	ASSERT_LE(0, self->fd);
	close(self->fd);
	EXPECT_EQ(0, wait_live_allocations_zero(BT_FREE_WAIT_MS));
	self->fd = bt_open();
}

BT_LEAK_CHECK_TEST()

TEST_HARNESS_MAIN
