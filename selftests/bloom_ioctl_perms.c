// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_ioctl_perms: permissions and limits: the device node's mode, what
 * an unprivileged user and a read-only descriptor may do, max_memory
 * (EDQUOT), and that a user holding a filter open cannot keep its memory
 * after root destroys it.
 *
 * The bloom_ioctl_* programs test /dev/bloom's commands themselves, by
 * subject: the ABI (bloom_ioctl_abi); names, the list and a filter's
 * lifetime (bloom_ioctl_names); the filter types (bloom_ioctl_types);
 * permissions and limits (bloom_ioctl_perms). Keys and batches are covered
 * in bloom_batch, deleting in bloom_delete, snapshots in bloom_snapshot.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <sys/wait.h>

#include "bloom_test.h"

BT_IOCTL_FIXTURE()
BT_TYPE_FIXTURE();

TEST_F(ioctl, device_node_mode_0600)
{
	struct stat st;

	ASSERT_OK(stat(BLOOM_DEV, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0600, st.st_mode & 07777);
}

/*
 * A user who has a filter open cannot keep its memory after root destroys
 * it. The child binds a descriptor read-only, drops to uid 65534 and keeps
 * the descriptor; the filter takes more than half of max_memory, so a
 * second one of its size fits only once the first one's memory is back.
 */
TEST_F(ioctl, destroy_frees_memory_held_by_reader)
{
	int ready[2], go[2], status, child_err = -1;
	struct bloom_info info;
	long long used_before;
	pid_t pid;
	char c;

	self->saved_max_memory = read_u64_file(BLOOM_MAX_MEMORY);
	ASSERT_LT(0, self->saved_max_memory);
	ASSERT_OK(write_u64_file(BLOOM_MAX_MEMORY, 2 << 20));
	used_before = read_u64_file(BLOOM_SYSFS "/memory_used");
	/* ~1.2 MB: one fits under 2 MiB, two do not. */
	ASSERT_OK(bt_create(self->fd, "held", STD, 1000000, 10000000, 0));
	ASSERT_OK(bt_info(self->fd, "held", &info));
	EXPECT_LT(1 << 20, info.memory_bytes);
	EXPECT_ERRNO(EDQUOT, bt_create(self->fd, "held2", STD, 1000000,
				       10000000, 0));

	ASSERT_OK(pipe(ready));
	ASSERT_OK(pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		__u8 key = 1;
		int fd, err;

		fd = open(BLOOM_DEV, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || bt_bind(fd, "held") ||
		    setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534) ||
		    bt_one(fd, BLOOM_IOC_QUERY, &key, 1) < 0)
			_exit(2);
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(3);
		err = bt_batch(fd, BLOOM_IOC_QUERY, &key, 1, 1, 1, NULL,
			       NULL, NULL) ? errno : 0;
		_exit(err == ESTALE ? 0 : 4);
	}
	ASSERT_EQ(1, read(ready[0], &c, 1)) TH_LOG("the child did not bind");

	ASSERT_OK(bt_destroy(self->fd, "held"));
	/* The reader still has its descriptor; the memory is back ... */
	EXPECT_EQ(used_before, wait_memory_used(used_before, BT_FREE_WAIT_MS));
	/* ... and a filter that needs it can be created. */
	EXPECT_OK(bt_create(self->fd, "held2", STD, 1000000, 10000000, 0));

	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	child_err = WEXITSTATUS(status);
	EXPECT_EQ(0, child_err)
		TH_LOG("child: 2 setup failed, 3 pipe, 4 query was not ESTALE");
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
	ASSERT_OK(write_u64_file(BLOOM_MAX_MEMORY, self->saved_max_memory));
	self->saved_max_memory = -1;
}

TEST_F(ioctl, max_memory_edquot)
{
	struct bloom_version v;
	struct bloom_info info;

	self->saved_max_memory = read_u64_file(BLOOM_MAX_MEMORY);
	ASSERT_LT(0, self->saved_max_memory);
	ASSERT_OK(write_u64_file(BLOOM_MAX_MEMORY, 1 << 20));
	ASSERT_OK(bt_version(self->fd, &v));
	EXPECT_EQ(1 << 20, v.memory_limit);

	/* 1,000,000 keys at 1%: ~1.2 MB of bits, over the 1 MiB cap. */
	EXPECT_ERRNO(EDQUOT, bt_create(self->fd, "big", STD, 1000000,
				       10000000, 0));
	EXPECT_ERRNO(EDQUOT, bt_create(self->fd, "big", BLK, 1000000,
				       10000000, 0));
	EXPECT_EQ(0, nfilters(self->fd));

	/* ~600 KB each: the first fits, the second would not. */
	ASSERT_OK(bt_create(self->fd, "half1", STD, 500000, 10000000, 0));
	ASSERT_OK(bt_info(self->fd, "half1", &info));
	EXPECT_ERRNO(EDQUOT, bt_create(self->fd, "half2", STD, 500000,
				       10000000, 0));
	EXPECT_EQ((long long)info.memory_bytes,
		  read_u64_file(BLOOM_SYSFS "/memory_used"));
	/* Small filters still fit beside it. */
	EXPECT_OK(bt_create(self->fd, "small", STD, 1000, 10000000, 0));
	/* Destroying returns the memory to the budget. */
	ASSERT_OK(bt_destroy(self->fd, "half1"));
	EXPECT_OK(bt_create(self->fd, "half2", STD, 500000, 10000000, 0));

	ASSERT_OK(write_u64_file(BLOOM_MAX_MEMORY, self->saved_max_memory));
	self->saved_max_memory = -1;
	EXPECT_OK(bt_create(self->fd, "big", STD, 1000000, 10000000, 0));
}

/*
 * A descriptor opened read-only never changes a filter, even root's:
 * CREATE, DESTROY, ADD and DELETE are EBADF and change nothing; everything
 * that only reads works. O_WRONLY counts as writable.
 */
TEST_F(type, readonly_descriptor_cannot_change)
{
	struct bloom_info info;
	struct bloom_version v;
	struct bloom_list l = { .size = sizeof(l) };
	__u8 key = 7, other = 8;
	int ro, wo;

	ASSERT_OK(bt_create(self->fd, "ro", variant->type, 1000, 10000000,
			    BLOOM_CREATE_F_BIND));
	ASSERT_EQ(0, bt_one(self->fd, BLOOM_IOC_ADD, &key, 1));
	ro = open(BLOOM_DEV, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, ro);

	/* Unbound: the changes that name a filter. */
	EXPECT_ERRNO(EBADF, bt_create(ro, "ro2", STD, 1000, 10000000, 0));
	EXPECT_ERRNO(EBADF, bt_create(ro, "ro2", STD, 1000, 10000000,
				      BLOOM_CREATE_F_BIND));
	EXPECT_ERRNO(EBADF, bt_destroy(ro, "ro"));
	/* EBADF comes before the name is looked at. */
	EXPECT_ERRNO(EBADF, bt_destroy(ro, "no such filter"));
	/* Reading works. */
	EXPECT_OK(bt_version(ro, &v));
	EXPECT_OK(ioctl(ro, BLOOM_IOC_LIST, &l));
	EXPECT_EQ(1, l.out_count);
	EXPECT_OK(bt_info(ro, "ro", &info));
	ASSERT_OK(bt_bind(ro, "ro"));
	EXPECT_EQ(1, bt_one(ro, BLOOM_IOC_QUERY, &key, 1));
	EXPECT_OK(bt_info(ro, NULL, &info));

	/* Bound: the changes of the filter's keys. */
	EXPECT_ERRNO(EBADF, bt_batch(ro, BLOOM_IOC_ADD, &other, 1, 1, 1,
				     NULL, NULL, NULL));
	EXPECT_ERRNO(EBADF, bt_batch(ro, BLOOM_IOC_DELETE, &key, 1, 1, 1,
				     NULL, NULL, NULL));
	/* Even an empty batch: the mode is checked first. */
	EXPECT_ERRNO(EBADF, bt_batch(ro, BLOOM_IOC_ADD, NULL, 0, 0, 1,
				     NULL, NULL, NULL));

	/* Nothing changed. */
	ASSERT_OK(bt_info(self->fd, NULL, &info));
	EXPECT_EQ(1, info.adds);
	EXPECT_EQ(0, info.deletes);
	EXPECT_EQ(0, info.delete_misses);
	EXPECT_EQ(1, nfilters(self->fd));
	EXPECT_EQ(1, bt_one(self->fd, BLOOM_IOC_QUERY, &key, 1));
	close(ro);

	/* Write-only is writable: it may change, and query too. */
	wo = open(BLOOM_DEV, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, wo);
	ASSERT_OK(bt_bind(wo, "ro"));
	EXPECT_EQ(0, bt_one(wo, BLOOM_IOC_ADD, &other, 1));
	EXPECT_EQ(1, bt_one(wo, BLOOM_IOC_QUERY, &other, 1));
	if (variant->deletable) {
		EXPECT_EQ(1, bt_one(wo, BLOOM_IOC_DELETE, &other, 1));
	} else {
		EXPECT_ERRNO(EOPNOTSUPP, bt_batch(wo, BLOOM_IOC_DELETE,
						  &other, 1, 1, 1, NULL,
						  NULL, NULL));
	}
	close(wo);
	ASSERT_OK(bt_info(self->fd, NULL, &info));
	EXPECT_EQ(2, info.adds);
	EXPECT_EQ(variant->deletable ? 1 : 0, info.deletes);
}

/* What the unprivileged child saw, written to shared memory. */
struct perm_result {
	int open_err;		/* errno of open(), 0 on success */
	int ret[16];		/* 0, or the errno of each step */
	int present;		/* query answer for the added key */
};

static int step(long ret)
{
	return ret < 0 ? errno : 0;
}

static void unprivileged_child(struct perm_result *r)
{
	struct bloom_version v;
	struct bloom_info info;
	struct bloom_list l = { .size = sizeof(l) };
	__u8 key[4] = { 10, 0, 0, 1 };
	int fd;

	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		_exit(2);
	fd = open(BLOOM_DEV, O_RDWR);
	if (fd < 0) {
		r->open_err = errno;
		_exit(0);
	}
	r->ret[0] = step(bt_version(fd, &v));
	r->ret[1] = step(ioctl(fd, BLOOM_IOC_LIST, &l));
	r->ret[2] = step(bt_info(fd, "perm", &info));
	r->ret[3] = step(bt_create(fd, "perm2", STD, 1000, 10000000, 0));
	r->ret[4] = step(bt_create(fd, "perm3", STD, 1000, 10000000,
				   BLOOM_CREATE_F_BIND));
	r->ret[5] = step(bt_destroy(fd, "perm"));
	r->ret[6] = step(bt_bind(fd, "perm"));
	r->present = bt_one(fd, BLOOM_IOC_QUERY, key, 4);
	key[3] = 2;
	r->ret[7] = step(bt_batch(fd, BLOOM_IOC_ADD, key, 4, 1, 4, NULL,
				  NULL, NULL));
	r->ret[8] = step(bt_info(fd, NULL, &info));
	r->ret[10] = step(bt_batch(fd, BLOOM_IOC_DELETE, key, 4, 1, 4, NULL,
				   NULL, NULL));
	r->ret[11] = step(bt_batch(fd, BLOOM_IOC_DELETE, NULL, 0, 0, 4,
				   NULL, NULL, NULL));
	/* Privilege comes before name validation: no probing as a user. */
	r->ret[9] = step(bt_destroy(fd, "nope"));
	close(fd);
	_exit(0);
}

static void run_unprivileged(struct __test_metadata *_metadata,
			     struct perm_result *r)
{
	int status;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->present = -2;
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		unprivileged_child(r);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status)) TH_LOG("could not drop privileges");
}

TEST_F(type, unprivileged_eperm)
{
	struct perm_result *r;
	struct bloom_info info, before;
	__u8 key[4] = { 10, 0, 0, 1 };
	struct stat st;

	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, r);
	ASSERT_OK(bt_create(self->fd, "perm", variant->type, 1000, 10000000,
			    BLOOM_CREATE_F_BIND));
	ASSERT_EQ(0, bt_one(self->fd, BLOOM_IOC_ADD, key, 4));
	ASSERT_OK(bt_info(self->fd, "perm", &before));

	/* Mode 0600: a user cannot even open the node. */
	run_unprivileged(_metadata, r);
	EXPECT_EQ(EACCES, r->open_err);

	ASSERT_OK(stat(BLOOM_DEV, &st));
	self->saved_mode = st.st_mode & 07777;
	ASSERT_OK(chmod(BLOOM_DEV, 0666));
	run_unprivileged(_metadata, r);
	ASSERT_OK(chmod(BLOOM_DEV, self->saved_mode));
	self->saved_mode = -1;

	ASSERT_EQ(0, r->open_err);
	EXPECT_EQ(0, r->ret[0]) TH_LOG("VERSION: %s", strerror(r->ret[0]));
	EXPECT_EQ(0, r->ret[1]) TH_LOG("LIST: %s", strerror(r->ret[1]));
	EXPECT_EQ(0, r->ret[2]) TH_LOG("INFO: %s", strerror(r->ret[2]));
	EXPECT_EQ(EPERM, r->ret[3]) TH_LOG("CREATE: %s", strerror(r->ret[3]));
	EXPECT_EQ(EPERM, r->ret[4]) TH_LOG("CREATE|BIND: %s",
					   strerror(r->ret[4]));
	EXPECT_EQ(EPERM, r->ret[5]) TH_LOG("DESTROY: %s", strerror(r->ret[5]));
	EXPECT_EQ(0, r->ret[6]) TH_LOG("BIND: %s", strerror(r->ret[6]));
	EXPECT_EQ(1, r->present) TH_LOG("QUERY as a user");
	EXPECT_EQ(EPERM, r->ret[7]) TH_LOG("ADD: %s", strerror(r->ret[7]));
	EXPECT_EQ(0, r->ret[8]) TH_LOG("INFO bound: %s", strerror(r->ret[8]));
	EXPECT_EQ(EPERM, r->ret[9]) TH_LOG("DESTROY nope: %s",
					   strerror(r->ret[9]));
	/* Privilege before the type: EPERM even where DELETE cannot work. */
	EXPECT_EQ(EPERM, r->ret[10]) TH_LOG("DELETE: %s", strerror(r->ret[10]));
	EXPECT_EQ(EPERM, r->ret[11]) TH_LOG("empty DELETE: %s",
					    strerror(r->ret[11]));

	/* Nothing changed: one filter, one key added, one query. */
	EXPECT_EQ(1, nfilters(self->fd));
	ASSERT_OK(bt_info(self->fd, "perm", &info));
	EXPECT_EQ(1, info.adds);
	EXPECT_EQ(1, info.queries);
	EXPECT_EQ(1, info.hits);
	EXPECT_EQ(0, info.deletes);
	EXPECT_EQ(0, info.delete_misses);
	EXPECT_EQ(before.bits_set, info.bits_set);
	EXPECT_EQ(before.count, info.count);
	munmap(r, sizeof(*r));
}

BT_LEAK_CHECK_TEST()

TEST_HARNESS_MAIN
