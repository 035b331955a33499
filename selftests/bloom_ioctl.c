// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_ioctl: every /dev/bloom command's happy path and every error path of
 * the specification in uapi/linux/bloom.h, with the exact errno. Keys and
 * batches are covered in bloom_batch.c; this file is about the commands
 * themselves, names, sizing, lifetime, limits and privilege.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "bloom_test.h"

#define STD	BLOOM_TYPE_STANDARD
#define BLK	BLOOM_TYPE_BLOCKED
#define CNT	BLOOM_TYPE_COUNTING
#define DLF	BLOOM_TYPE_DLEFT

/* Room for every struct plus a zero or non-zero tail, page aligned. */
static __u8 argbuf[4096] __attribute__((aligned(4096)));

FIXTURE(ioctl) {
	int fd;
	int saved_mode;			/* /dev/bloom mode, -1 if untouched */
	long long saved_max_memory;	/* -1 if untouched */
};

FIXTURE_SETUP(ioctl)
{
	self->saved_mode = -1;
	self->saved_max_memory = -1;
	self->fd = bloom_open();
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", BLOOM_DEV, strerror(errno));
}

FIXTURE_TEARDOWN(ioctl)
{
	/* Put back what a failed test may have left changed. */
	if (self->saved_mode >= 0)
		chmod(BLOOM_DEV, self->saved_mode);
	if (self->saved_max_memory >= 0)
		write_u64_file(BLOOM_MAX_MEMORY, self->saved_max_memory);
	close(self->fd);
	bloom_destroy_all();
}

static __u32 nfilters(int fd)
{
	struct bloom_list l = { .size = sizeof(l) };

	if (ioctl(fd, BLOOM_IOC_LIST, &l))
		return ~0U;
	return l.out_count;
}

/*
 * The size rules every command shares: smaller than the first version of
 * the struct (min_len) is EINVAL, a larger size with a non-zero byte past
 * the kernel's struct (len) is E2BIG. "valid" is a request that would
 * succeed with size == len, so only the size can be what the kernel refuses.
 */
static void size_errors(struct __test_metadata *_metadata, int fd,
			unsigned long cmd, const void *valid, size_t len,
			size_t min_len)
{
	const __u32 small[] = { 0, 1, 4, 8, min_len - 8, min_len - 1 };
	const struct { __u32 size; __u32 nonzero_at; } big[] = {
		{ len + 1, len }, { len + 8, len + 7 }, { 4096, 4095 },
	};
	size_t i;

	for (i = 0; i < sizeof(small) / sizeof(small[0]); i++) {
		memset(argbuf, 0, sizeof(argbuf));
		memcpy(argbuf, valid, len);
		*(__u32 *)argbuf = small[i];
		EXPECT_ERRNO(EINVAL, ioctl(fd, cmd, argbuf))
			TH_LOG("cmd %#lx size %u", cmd, small[i]);
	}
	for (i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		memset(argbuf, 0, sizeof(argbuf));
		memcpy(argbuf, valid, len);
		*(__u32 *)argbuf = big[i].size;
		argbuf[big[i].nonzero_at] = 0x5a;
		EXPECT_ERRNO(E2BIG, ioctl(fd, cmd, argbuf))
			TH_LOG("cmd %#lx size %u", cmd, big[i].size);
	}
}

/* Same request with size = len + 8 and a zero tail: must succeed. */
static int ioctl_bigger(int fd, unsigned long cmd, const void *req, size_t len)
{
	memset(argbuf, 0, sizeof(argbuf));
	memcpy(argbuf, req, len);
	*(__u32 *)argbuf = len + 8;
	return ioctl(fd, cmd, argbuf);
}

static void *unmapped_page(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED)
		munmap(p, 4096);
	return p;
}

/* A read-only page holding req: the kernel can read it but not write it. */
static void *readonly_copy(const void *req, size_t len)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memcpy(p, req, len);
	mprotect(p, 4096, PROT_READ);
	return p;
}

TEST_F(ioctl, device_node_mode_0600)
{
	struct stat st;

	ASSERT_OK(stat(BLOOM_DEV, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0600, st.st_mode & 07777);
}

TEST_F(ioctl, version)
{
	struct bloom_version v;

	/* Garbage in the output fields: the kernel must overwrite all. */
	memset(&v, 0xaa, sizeof(v));
	v.size = sizeof(v);
	v.flags = 0;
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_VERSION, &v));
	EXPECT_EQ(BLOOM_ABI_VERSION, v.abi_version);
	EXPECT_EQ(3, v.abi_version);
	EXPECT_TRUE(v.types & (1U << BLOOM_TYPE_STANDARD));
	EXPECT_TRUE(v.types & (1U << BLOOM_TYPE_BLOCKED));
	/* ABI version 2 is the deletable types. */
	EXPECT_TRUE(v.types & (1U << BLOOM_TYPE_COUNTING));
	EXPECT_TRUE(v.types & (1U << BLOOM_TYPE_DLEFT));
	/* Only the types this header defines can be implemented. */
	EXPECT_EQ(0, v.types & ~0x1eU);
	EXPECT_EQ(BLOOM_CREATE_F_ALL, v.create_flags);
	EXPECT_EQ(BLOOM_BATCH_F_ALL, v.batch_flags);
	EXPECT_EQ(BLOOM_KEY_MAX, v.key_max);
	EXPECT_EQ(BLOOM_BATCH_MAX_KEYS, v.batch_max_keys);
	EXPECT_EQ(BLOOM_BATCH_MAX_BYTES, v.batch_max_bytes);
	EXPECT_EQ(read_u64_file(BLOOM_MAX_MEMORY), (long long)v.memory_limit);
	EXPECT_EQ(0, v.memory_used);
	EXPECT_EQ(0, read_u64_file(BLOOM_SYSFS "/memory_used"));
	EXPECT_EQ(1ULL << 30, read_u64_file(BLOOM_MAX_MEMORY))
		TH_LOG("max_memory default is 1 GiB");
	EXPECT_EQ(sizeof(v), v.size);
}

TEST_F(ioctl, struct_sizes_are_abi)
{
	/* Catches an accidental change of the ABI in the header itself. */
	EXPECT_EQ(BLOOM_VERSION_SIZE_VER0, sizeof(struct bloom_version));
	EXPECT_EQ(BLOOM_CREATE_SIZE_VER3, sizeof(struct bloom_create));
	EXPECT_EQ(BLOOM_SAVE_SIZE_VER3, sizeof(struct bloom_save));
	EXPECT_EQ(BLOOM_RESTORE_SIZE_VER3, sizeof(struct bloom_restore));
	EXPECT_EQ(BLOOM_PAIR_SIZE_VER3, sizeof(struct bloom_pair));
	EXPECT_EQ(BLOOM_NAME_SIZE_VER0, sizeof(struct bloom_name));
	EXPECT_EQ(BLOOM_INFO_SIZE_VER3, sizeof(struct bloom_info));
	EXPECT_EQ(BLOOM_LIST_SIZE_VER0, sizeof(struct bloom_list));
	EXPECT_EQ(BLOOM_BATCH_SIZE_VER2, sizeof(struct bloom_batch));
}

TEST_F(ioctl, size_matrix_version_info_list)
{
	struct bloom_version v = { .size = sizeof(v) }, v2;
	struct bloom_info i, i2;
	struct bloom_list l = { .size = sizeof(l) };

	size_errors(_metadata, self->fd, BLOOM_IOC_VERSION, &v, sizeof(v),
		    sizeof(v));
	ASSERT_OK(bloom_version(self->fd, &v2));
	ASSERT_OK(ioctl_bigger(self->fd, BLOOM_IOC_VERSION, &v, sizeof(v)));
	EXPECT_EQ(0, memcmp((__u8 *)&v2 + 8, argbuf + 8, sizeof(v) - 8));
	/* A zero tail is read, never written. */
	EXPECT_EQ(0, *(__u64 *)(argbuf + sizeof(v)));

	ASSERT_OK(bloom_create(self->fd, "sz", STD, 1000, 10000000, 0));
	memset(&i, 0, sizeof(i));
	i.size = sizeof(i);
	strcpy(i.name, "sz");
	size_errors(_metadata, self->fd, BLOOM_IOC_INFO, &i, sizeof(i),
		    BLOOM_INFO_SIZE_VER0);
	ASSERT_OK(bloom_info(self->fd, "sz", &i2));
	ASSERT_OK(ioctl_bigger(self->fd, BLOOM_IOC_INFO, &i, sizeof(i)));
	EXPECT_EQ(0, memcmp((__u8 *)&i2 + 8, argbuf + 8, sizeof(i) - 8));
	EXPECT_EQ(0, *(__u64 *)(argbuf + sizeof(i)));

	/*
	 * A caller of ABI version 1 (or any size from it up) gets the fields
	 * its size covers, the same values, and not one byte more written.
	 */
	{
		const __u32 sizes[] = { BLOOM_INFO_SIZE_VER0,
					BLOOM_INFO_SIZE_VER0 + 8,
					BLOOM_INFO_SIZE_VER1 - 1 };
		size_t k, j;

		for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			memset(argbuf, 0, sizeof(argbuf));
			memcpy(argbuf, &i, sizes[k]);
			*(__u32 *)argbuf = sizes[k];
			memset(argbuf + sizes[k], 0x5a, 64);
			EXPECT_OK(ioctl(self->fd, BLOOM_IOC_INFO, argbuf))
				TH_LOG("size %u", sizes[k]);
			EXPECT_EQ(0, memcmp((__u8 *)&i2 + 8, argbuf + 8,
					    sizes[k] - 8))
				TH_LOG("size %u", sizes[k]);
			for (j = sizes[k]; j < sizes[k] + 64; j++) {
				EXPECT_EQ(0x5a, argbuf[j])
					TH_LOG("size %u: byte %zu written",
					       sizes[k], j);
			}
		}
	}

	size_errors(_metadata, self->fd, BLOOM_IOC_LIST, &l, sizeof(l),
		    sizeof(l));
	ASSERT_OK(ioctl_bigger(self->fd, BLOOM_IOC_LIST, &l, sizeof(l)));
	EXPECT_EQ(1, ((struct bloom_list *)argbuf)->out_count);
}

TEST_F(ioctl, size_matrix_create_destroy_bind)
{
	struct bloom_create c = bloom_create_req("sz", STD, 1000, 10000000, 0);
	struct bloom_name n = { .size = sizeof(n) };
	struct bloom_info info;

	/* sizes from the first version's (88) up are accepted */
	size_errors(_metadata, self->fd, BLOOM_IOC_CREATE, &c, sizeof(c),
		    BLOOM_CREATE_SIZE_VER0);
	/* None of the refused creates may have left a filter behind. */
	EXPECT_EQ(0, nfilters(self->fd));
	ASSERT_OK(ioctl_bigger(self->fd, BLOOM_IOC_CREATE, &c, sizeof(c)));
	ASSERT_OK(bloom_info(self->fd, "sz", &info));
	EXPECT_EQ(1000, info.capacity);

	strcpy(n.name, "sz");
	size_errors(_metadata, self->fd, BLOOM_IOC_BIND, &n, sizeof(n),
		    sizeof(n));
	EXPECT_ERRNO(EBADFD, bloom_info(self->fd, NULL, &info))
		TH_LOG("a refused BIND bound the descriptor");
	ASSERT_OK(ioctl_bigger(self->fd, BLOOM_IOC_BIND, &n, sizeof(n)));
	EXPECT_OK(bloom_info(self->fd, NULL, &info));

	size_errors(_metadata, self->fd, BLOOM_IOC_DESTROY, &n, sizeof(n),
		    sizeof(n));
	EXPECT_EQ(1, nfilters(self->fd));
	ASSERT_OK(ioctl_bigger(self->fd, BLOOM_IOC_DESTROY, &n, sizeof(n)));
	EXPECT_EQ(0, nfilters(self->fd));
}

TEST_F(ioctl, size_matrix_add_query)
{
	struct bloom_batch b;
	struct bloom_info info;
	__u8 key[4] = { 1, 2, 3, 4 }, res;

	ASSERT_OK(bloom_create(self->fd, "sz", STD, 1000, 10000000,
			       BLOOM_CREATE_F_BIND));
	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	b.nkeys = 1;
	b.key_size = 4;
	b.keys = u64_ptr(key);
	b.keys_len = 4;
	b.results = u64_ptr(&res);
	size_errors(_metadata, self->fd, BLOOM_IOC_ADD, &b, sizeof(b),
		    BLOOM_BATCH_SIZE_VER0);
	size_errors(_metadata, self->fd, BLOOM_IOC_QUERY, &b, sizeof(b),
		    BLOOM_BATCH_SIZE_VER0);
	ASSERT_OK(bloom_info(self->fd, NULL, &info));
	EXPECT_EQ(0, info.adds);
	EXPECT_EQ(0, info.queries);
	EXPECT_EQ(0, info.bits_set);

	res = 0xff;
	ASSERT_OK(ioctl_bigger(self->fd, BLOOM_IOC_ADD, &b, sizeof(b)));
	EXPECT_EQ(1, ((struct bloom_batch *)argbuf)->out_done);
	EXPECT_EQ(0, res & 1);
	res = 0;
	ASSERT_OK(ioctl_bigger(self->fd, BLOOM_IOC_QUERY, &b, sizeof(b)));
	EXPECT_EQ(1, ((struct bloom_batch *)argbuf)->out_done);
	EXPECT_EQ(1, ((struct bloom_batch *)argbuf)->out_hits);
	EXPECT_EQ(1, res & 1);
}

TEST_F(ioctl, nonzero_flags_einval)
{
	struct bloom_version v = { .size = sizeof(v), .flags = 1 };
	struct bloom_name n = { .size = sizeof(n), .flags = 1 };
	struct bloom_list l = { .size = sizeof(l), .flags = 1U << 31 };
	struct bloom_info i = { .size = sizeof(i), .flags = 1 };
	struct bloom_batch b = { .size = sizeof(b), .flags = 1 };
	struct bloom_create c;
	const __u32 bad_create[] = { 1U << 15, 1U << 16, 1U << 31 };
	__u8 key = 7;
	size_t k;

	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_VERSION, &v));
	for (k = 0; k < sizeof(bad_create) / sizeof(bad_create[0]); k++) {
		c = bloom_create_req("fl", STD, 1000, 10000000, bad_create[k]);
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	}
	EXPECT_EQ(0, nfilters(self->fd));

	ASSERT_OK(bloom_create(self->fd, "fl", STD, 1000, 10000000,
			       BLOOM_CREATE_F_BIND));
	strcpy(n.name, "fl");
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_DESTROY, &n));
	EXPECT_EQ(1, nfilters(self->fd));
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_BIND, &n));
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_LIST, &l));
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_INFO, &i));
	strcpy(i.name, "fl");
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_INFO, &i));

	b.nkeys = 1;
	b.key_size = 1;
	b.keys = u64_ptr(&key);
	b.keys_len = 1;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_ADD, &b));
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_QUERY, &b));
	ASSERT_OK(bloom_info(self->fd, NULL, &i));
	EXPECT_EQ(0, i.adds);
	EXPECT_EQ(0, i.queries);
	EXPECT_EQ(0, i.bits_set);
}

/*
 * Every command in one table, the iommufd selftests' way: its struct's size
 * now and in its first version (a smaller size is EINVAL), the type of the
 * filter the descriptor must be bound to (0: none), and a request that
 * would succeed. One test then checks, for every command, each rule of the
 * calling convention in <linux/bloom.h>: sizes below the first version
 * (EINVAL), a larger size with a non-zero byte past the struct (E2BIG), an
 * unknown flag bit (EINVAL), a NULL, unmapped or kernel argument pointer
 * (EFAULT), that none of those refused calls changed anything, and that the
 * same request with a larger size and a zero tail succeeds. A command added
 * to the ABI gets one line here.
 */
static __u8 tbl_key[4] = { 1, 2, 3, 4 }, tbl_res;

static void req_version(void *p)
{
	((struct bloom_version *)p)->size = sizeof(struct bloom_version);
}

static void req_create(void *p)
{
	*(struct bloom_create *)p = bloom_create_req("tbl-new", STD, 1000,
						     10000000, 0);
}

static void req_name(void *p)
{
	struct bloom_name *n = p;

	n->size = sizeof(*n);
	set_name(n->name, "tbl");
}

static void req_info(void *p)
{
	struct bloom_info *i = p;

	i->size = sizeof(*i);
	set_name(i->name, "tbl");
}

static void req_list(void *p)
{
	((struct bloom_list *)p)->size = sizeof(struct bloom_list);
}

static void req_batch(void *p)
{
	struct bloom_batch *b = p;

	b->size = sizeof(*b);
	b->nkeys = 1;
	b->key_size = sizeof(tbl_key);
	b->keys = u64_ptr(tbl_key);
	b->keys_len = sizeof(tbl_key);
	b->results = u64_ptr(&tbl_res);
}

static const struct cmd_case {
	const char *name;
	unsigned long cmd;
	size_t len, min_len;
	__u32 bind;
	void (*req)(void *buf);
} cmd_table[] = {
#define CMD(c, s, bind, req) \
	{ #c, BLOOM_IOC_##c, sizeof(struct s), BLOOM_##c##_MIN_SIZE, bind, req }
#define BLOOM_VERSION_MIN_SIZE	BLOOM_VERSION_SIZE_VER0
#define BLOOM_CREATE_MIN_SIZE	BLOOM_CREATE_SIZE_VER0
#define BLOOM_DESTROY_MIN_SIZE	BLOOM_NAME_SIZE_VER0
#define BLOOM_BIND_MIN_SIZE	BLOOM_NAME_SIZE_VER0
#define BLOOM_INFO_MIN_SIZE	BLOOM_INFO_SIZE_VER0
#define BLOOM_LIST_MIN_SIZE	BLOOM_LIST_SIZE_VER0
#define BLOOM_ADD_MIN_SIZE	BLOOM_BATCH_SIZE_VER0
#define BLOOM_QUERY_MIN_SIZE	BLOOM_BATCH_SIZE_VER0
#define BLOOM_DELETE_MIN_SIZE	BLOOM_BATCH_SIZE_VER0
	CMD(VERSION, bloom_version, 0, req_version),
	CMD(CREATE, bloom_create, 0, req_create),
	CMD(DESTROY, bloom_name, 0, req_name),
	CMD(BIND, bloom_name, 0, req_name),
	CMD(INFO, bloom_info, 0, req_info),
	CMD(LIST, bloom_list, 0, req_list),
	CMD(ADD, bloom_batch, STD, req_batch),
	CMD(QUERY, bloom_batch, STD, req_batch),
	CMD(DELETE, bloom_batch, CNT, req_batch),
#undef CMD
};

/* What a refused call must leave as it was. */
struct tbl_state {
	__u32 filters;
	__u64 adds, queries, deletes, bits_set;
};

static void tbl_state(int fd, struct tbl_state *s)
{
	struct bloom_info i;

	memset(s, 0, sizeof(*s));
	s->filters = nfilters(fd);
	if (!bloom_info(fd, "tbl", &i)) {
		s->adds = i.adds;
		s->queries = i.queries;
		s->deletes = i.deletes;
		s->bits_set = i.bits_set;
	}
}

TEST_F(ioctl, every_command_table)
{
	void *gone = unmapped_page();
	const void *bad_ptrs[] = { NULL, gone, (void *)(uintptr_t)KERNEL_PTR };
	struct tbl_state before, after;
	size_t k, p;

	ASSERT_NE(MAP_FAILED, gone);
	for (k = 0; k < sizeof(cmd_table) / sizeof(cmd_table[0]); k++) {
		const struct cmd_case *c = &cmd_table[k];
		__u8 req[1024] = { 0 };
		int fd = bloom_open();

		ASSERT_LE(0, fd);
		ASSERT_GE(sizeof(req), c->len);
		/* "tbl" exists for every command; bound where it needs to be */
		ASSERT_OK(bloom_create(fd, "tbl", c->bind ? c->bind : STD, 1000,
				       10000000, c->bind ? BLOOM_CREATE_F_BIND : 0));
		c->req(req);
		tbl_state(fd, &before);

		size_errors(_metadata, fd, c->cmd, req, c->len, c->min_len);

		memcpy(argbuf, req, c->len);
		((__u32 *)argbuf)[1] = 1U << 31;	/* flags: unknown bit */
		EXPECT_ERRNO(EINVAL, ioctl(fd, c->cmd, argbuf))
			TH_LOG("%s: unknown flag", c->name);

		for (p = 0; p < sizeof(bad_ptrs) / sizeof(bad_ptrs[0]); p++)
			EXPECT_ERRNO(EFAULT, ioctl(fd, c->cmd, bad_ptrs[p]))
				TH_LOG("%s: argument pointer %p", c->name, bad_ptrs[p]);

		tbl_state(fd, &after);
		EXPECT_EQ(0, memcmp(&before, &after, sizeof(before)))
			TH_LOG("%s: a refused call changed something", c->name);

		EXPECT_OK(ioctl_bigger(fd, c->cmd, req, c->len))
			TH_LOG("%s: a zero tail past the struct must be accepted",
			       c->name);
		close(fd);
		bloom_destroy_all();
	}
}

TEST_F(ioctl, readonly_output_efault)
{
	struct bloom_version v = { .size = sizeof(v) };
	struct bloom_info i = { .size = sizeof(i) };
	struct bloom_list l = { .size = sizeof(l) };
	void *p;

	ASSERT_OK(bloom_create(self->fd, "ro", STD, 1000, 10000000,
			       BLOOM_CREATE_F_BIND));
	p = readonly_copy(&v, sizeof(v));
	ASSERT_NE(NULL, p);
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, BLOOM_IOC_VERSION, p));
	munmap(p, 4096);
	p = readonly_copy(&i, sizeof(i));
	ASSERT_NE(NULL, p);
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, BLOOM_IOC_INFO, p));
	munmap(p, 4096);
	p = readonly_copy(&l, sizeof(l));
	ASSERT_NE(NULL, p);
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, BLOOM_IOC_LIST, p));
	munmap(p, 4096);
}

TEST_F(ioctl, list_names_pointer_efault)
{
	struct bloom_list l = { .size = sizeof(l), .capacity = 4 };
	/* In this order: an mmap after the munmap could refill the hole. */
	void *ro = readonly_copy("", 1);
	void *gone = unmapped_page();

	ASSERT_NE(NULL, ro);
	ASSERT_OK(bloom_create(self->fd, "lp", STD, 1000, 10000000, 0));
	l.names = 0;
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, BLOOM_IOC_LIST, &l));
	l.names = u64_ptr(gone);
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, BLOOM_IOC_LIST, &l));
	l.names = KERNEL_PTR;
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, BLOOM_IOC_LIST, &l));
	l.names = u64_ptr(ro);
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, BLOOM_IOC_LIST, &l));
	munmap(ro, 4096);
}

TEST_F(ioctl, unknown_commands_enotty)
{
	const unsigned long cmds[] = {
		_IO(BLOOM_IOC_MAGIC, 0x3f),	/* none of the reserved ones */
		_IO(BLOOM_IOC_MAGIC, 0x40),
		_IO(BLOOM_IOC_MAGIC, 0x7f),
		_IO(BLOOM_IOC_MAGIC, 0xff),
		_IO(BLOOM_IOC_MAGIC - 1, 0x00),	/* other magic, same nr */
		_IO(BLOOM_IOC_MAGIC + 1, 0x01),
		_IO('T', 0x01),
		0x5401,				/* TCGETS */
		/* right magic and nr, but direction/size bits set */
		_IOR(BLOOM_IOC_MAGIC, 0x00, struct bloom_version),
		_IOW(BLOOM_IOC_MAGIC, 0x01, struct bloom_create),
		_IOWR(BLOOM_IOC_MAGIC, 0x04, struct bloom_info),
		_IOWR(BLOOM_IOC_MAGIC, 0x06, struct bloom_batch),
		_IOWR(BLOOM_IOC_MAGIC, 0x08, struct bloom_batch),
		_IOC(_IOC_NONE, BLOOM_IOC_MAGIC, 0x07,
		     sizeof(struct bloom_batch)),
	};
	struct bloom_version v = { .size = sizeof(v) };
	size_t k;

	for (k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++) {
		memset(argbuf, 0, sizeof(argbuf));
		memcpy(argbuf, &v, sizeof(v));
		EXPECT_ERRNO(ENOTTY, ioctl(self->fd, cmds[k], argbuf))
			TH_LOG("cmd %#lx", cmds[k]);
	}
}

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
	fd2 = bloom_open();
	ASSERT_LE(0, fd2);
	for (k = 0; k < n; k++) {
		c = bloom_create_req("", STD, 1000, 10000000, 0);
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
		EXPECT_OK(bloom_create(self->fd, good[k], STD, 1000, 10000000,
				       0))
			TH_LOG("name '%s'", good[k]);
		EXPECT_OK(bloom_info(self->fd, good[k], &info));
		EXPECT_STREQ(good[k], info.name);
	}
	EXPECT_EQ(n, nfilters(self->fd));

	/* A duplicate fails whatever its type, and leaves the first alone. */
	EXPECT_ERRNO(EEXIST, bloom_create(self->fd, good[0], STD, 1000,
					  10000000, 0));
	EXPECT_ERRNO(EEXIST, bloom_create(self->fd, good[0], BLK, 5000,
					  1000000, BLOOM_CREATE_F_BIND));
	ASSERT_OK(bloom_info(self->fd, good[0], &info));
	EXPECT_EQ(STD, info.type);
	EXPECT_EQ(1000, info.capacity);
	EXPECT_ERRNO(EBADFD, bloom_info(self->fd, NULL, &info))
		TH_LOG("a create that failed with EEXIST bound the fd");
	EXPECT_EQ(n, nfilters(self->fd));

	for (k = 0; k < n; k++) {
		EXPECT_OK(bloom_destroy(self->fd, good[k]));
	}
	EXPECT_EQ(0, nfilters(self->fd));
}

TEST_F(ioctl, create_type_errors)
{
	struct bloom_version v;
	const __u32 unknown[] = { 0, 5, 6, 0x100, 0xffffffff };
	size_t k;

	for (k = 0; k < sizeof(unknown) / sizeof(unknown[0]); k++) {
		EXPECT_ERRNO(EOPNOTSUPP, bloom_create(self->fd, "t", unknown[k],
						      1000, 10000000, 0))
			TH_LOG("type %u", unknown[k]);
	}

	/* ABI version 2: every type of the header exists, VERSION says so. */
	ASSERT_OK(bloom_version(self->fd, &v));
	for (k = STD; k <= DLF; k++) {
		EXPECT_TRUE(v.types & (1U << k)) TH_LOG("type %zu", k);
		EXPECT_OK(bloom_create(self->fd, "t", k, 1000, 10000000, 0))
			TH_LOG("type %zu", k);
		EXPECT_OK(bloom_destroy(self->fd, "t"));
	}
	EXPECT_EQ(0, nfilters(self->fd));
}

TEST_F(ioctl, create_range_errors)
{
	struct bloom_create c;
	int t;

	for (t = STD; t <= DLF; t++) {
		EXPECT_ERRNO(EINVAL, bloom_create(self->fd, "r", t, 0,
						  10000000, 0));
		EXPECT_ERRNO(EINVAL, bloom_create(self->fd, "r", t,
						  BLOOM_CAPACITY_MAX + 1,
						  10000000, 0));
		EXPECT_ERRNO(EINVAL, bloom_create(self->fd, "r", t, 1ULL << 63,
						  10000000, 0));
		EXPECT_ERRNO(EINVAL, bloom_create(self->fd, "r", t, ~0ULL,
						  10000000, 0));
		EXPECT_ERRNO(EINVAL, bloom_create(self->fd, "r", t, 1000, 0,
						  0));
		EXPECT_ERRNO(EINVAL, bloom_create(self->fd, "r", t, 1000,
						  BLOOM_FPP_PPB_MAX + 1, 0));
		EXPECT_ERRNO(EINVAL, bloom_create(self->fd, "r", t, 1000,
						  1000000000, 0));
		EXPECT_ERRNO(EINVAL, bloom_create(self->fd, "r", t, 1000,
						  0xffffffff, 0));
		/*
		 * The biggest filter the ranges allow: about 1.85e11 bits
		 * (23 GB) for the standard type, under BLOOM_BITS_MAX but far
		 * over the default 1 GiB max_memory.
		 */
		if (t != DLF) {
			EXPECT_ERRNO(EDQUOT, bloom_create(self->fd, "r", t,
							  BLOOM_CAPACITY_MAX,
							  BLOOM_FPP_PPB_MIN, 0))
				TH_LOG("type %d", t);
		} else {
			/* How d-left fails there (EDQUOT, E2BIG) is open. */
			EXPECT_EQ(-1, bloom_create(self->fd, "r", t,
						   BLOOM_CAPACITY_MAX,
						   BLOOM_FPP_PPB_MIN, 0));
		}

		c = bloom_create_req("r", t, 1000, 10000000, 0);
		c.reserved = 1;
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
		c.reserved = 0x80000000;
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));

		/* Geometry fields without the GEOMETRY flag. */
		c = bloom_create_req("r", t, 1000, 10000000, 0);
		c.bits = 4096;
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
		c = bloom_create_req("r", t, 1000, 10000000, 0);
		c.hashes = 3;
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));

		/* A hash key without the HASH_KEY flag. */
		c = bloom_create_req("r", t, 1000, 10000000, 0);
		c.hash_key[BLOOM_HASH_KEY_LEN - 1] = 1;
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
		c = bloom_create_req("r", t, 1000, 10000000,
				     BLOOM_CREATE_F_BIND);
		c.hash_key[0] = 0x80;
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_CREATE, &c));
	}
	/* Nothing was created, and the BIND attempts did not bind. */
	EXPECT_EQ(0, nfilters(self->fd));
	EXPECT_EQ(0, read_u64_file(BLOOM_SYSFS "/memory_used"));
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

	for (k = 0; k < sizeof(g) / sizeof(g[0]); k++) {
		c = bloom_create_req("geo", g[k].type, 12345, 2000000,
				     BLOOM_CREATE_F_GEOMETRY);
		c.bits = g[k].bits;
		c.hashes = g[k].hashes;
		if (g[k].err) {
			EXPECT_ERRNO(g[k].err,
				     ioctl(self->fd, BLOOM_IOC_CREATE, &c))
				TH_LOG("type %u bits %llu hashes %u", g[k].type,
				       (unsigned long long)g[k].bits,
				       g[k].hashes);
			continue;
		}
		EXPECT_OK(ioctl(self->fd, BLOOM_IOC_CREATE, &c))
			TH_LOG("type %u bits %llu hashes %u", g[k].type,
			       (unsigned long long)g[k].bits, g[k].hashes);
		ASSERT_OK(bloom_info(self->fd, "geo", &info));
		EXPECT_EQ(g[k].type, info.type);
		EXPECT_EQ(g[k].bits, info.bits);
		EXPECT_EQ(g[k].hashes, info.hashes);
		/* Recorded as given, not recomputed. */
		EXPECT_EQ(12345, info.capacity);
		EXPECT_EQ(2000000, info.fpp_ppb);
		EXPECT_OK(bloom_destroy(self->fd, "geo"));
	}
	EXPECT_EQ(0, nfilters(self->fd));
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
		fds[k] = bloom_open();
		ASSERT_LE(0, fds[k]);
		c = bloom_create_req(names[k], STD, N, 100000000,
				     BLOOM_CREATE_F_BIND |
				     (k < 2 ? BLOOM_CREATE_F_HASH_KEY : 0));
		if (k < 2)
			memcpy(c.hash_key, "0123456789abcdef", 16);
		ASSERT_OK(ioctl(fds[k], BLOOM_IOC_CREATE, &c));
		ASSERT_OK(bloom_batch(fds[k], BLOOM_IOC_ADD, keys, sizeof(keys),
				      N, 16, NULL, NULL, NULL));
		ASSERT_OK(bloom_batch(fds[k], BLOOM_IOC_QUERY, absent,
				      sizeof(absent), Q, 16, NULL, r[k], NULL));
	}
	EXPECT_EQ(0, memcmp(r[0], r[1], sizeof(r[0])));
	EXPECT_NE(0, memcmp(r[2], r[3], sizeof(r[2])));
	EXPECT_NE(0, memcmp(r[0], r[2], sizeof(r[0])));
	for (k = 0; k < 4; k++)
		close(fds[k]);
}

TEST_F(ioctl, enoent_ebusy_ebadfd)
{
	struct bloom_info info;
	__u8 key = 1, res;
	int fd2 = bloom_open();

	ASSERT_LE(0, fd2);
	EXPECT_ERRNO(ENOENT, bloom_destroy(self->fd, "nope"));
	EXPECT_ERRNO(ENOENT, bloom_bind(self->fd, "nope"));
	EXPECT_ERRNO(ENOENT, bloom_info(self->fd, "nope", &info));

	/* Unbound: INFO without a name, ADD and QUERY need a binding. */
	EXPECT_ERRNO(EBADFD, bloom_info(self->fd, NULL, &info));
	EXPECT_ERRNO(EBADFD, bloom_batch(self->fd, BLOOM_IOC_ADD, &key, 1, 1, 1,
					 NULL, &res, NULL));
	EXPECT_ERRNO(EBADFD, bloom_batch(self->fd, BLOOM_IOC_QUERY, &key, 1, 1,
					 1, NULL, &res, NULL));
	/* ... even an empty batch. */
	EXPECT_ERRNO(EBADFD, bloom_batch(self->fd, BLOOM_IOC_ADD, NULL, 0, 0, 1,
					 NULL, NULL, NULL));

	ASSERT_OK(bloom_create(self->fd, "one", STD, 1000, 10000000, 0));
	ASSERT_OK(bloom_create(self->fd, "two", BLK, 1000, 10000000, 0));
	EXPECT_ERRNO(ENOENT, bloom_bind(self->fd, "on"));
	EXPECT_ERRNO(ENOENT, bloom_info(self->fd, "onee", &info));
	ASSERT_OK(bloom_bind(self->fd, "one"));
	EXPECT_ERRNO(EBUSY, bloom_bind(self->fd, "one"));
	EXPECT_ERRNO(EBUSY, bloom_bind(self->fd, "two"));
	ASSERT_OK(bloom_info(self->fd, NULL, &info));
	EXPECT_STREQ("one", info.name);

	/* CREATE|BIND on a bound fd: EBUSY, and no filter is created. */
	EXPECT_ERRNO(EBUSY, bloom_create(self->fd, "three", STD, 1000,
					 10000000, BLOOM_CREATE_F_BIND));
	EXPECT_ERRNO(ENOENT, bloom_info(fd2, "three", &info));
	EXPECT_EQ(2, nfilters(self->fd));
	/* A bound fd may still create without BIND, and destroy others. */
	EXPECT_OK(bloom_create(self->fd, "three", STD, 1000, 10000000, 0));
	EXPECT_OK(bloom_destroy(self->fd, "three"));
	EXPECT_ERRNO(ENOENT, bloom_destroy(self->fd, "three"));

	/* Many descriptors may bind the same filter. */
	ASSERT_OK(bloom_bind(fd2, "one"));
	EXPECT_EQ(0, bloom_one(fd2, BLOOM_IOC_ADD, &key, 1));
	EXPECT_EQ(1, bloom_one(self->fd, BLOOM_IOC_QUERY, &key, 1));
	close(fd2);
}

TEST_F(ioctl, filter_outlives_creating_fd)
{
	__u8 key[3] = { 'k', 'e', 'y' };
	int fd2 = bloom_open();

	ASSERT_LE(0, fd2);
	ASSERT_OK(bloom_create(fd2, "keep", STD, 1000, 10000000,
			       BLOOM_CREATE_F_BIND));
	ASSERT_EQ(0, bloom_one(fd2, BLOOM_IOC_ADD, key, 3));
	close(fd2);
	EXPECT_EQ(1, nfilters(self->fd));
	ASSERT_OK(bloom_bind(self->fd, "keep"));
	EXPECT_EQ(1, bloom_one(self->fd, BLOOM_IOC_QUERY, key, 3));
}

TEST_F(ioctl, destroyed_filter_estale)
{
	struct bloom_info info;
	__u8 key = 9;
	int fd2 = bloom_open();
	long long used_before, used_at_once;
	double t0;

	ASSERT_LE(0, fd2);
	/*
	 * Our two descriptors are all there is, once what earlier tests
	 * destroyed has been freed (a grace period after each destroy).
	 */
	ASSERT_EQ(2, wait_live_allocations(2, 2000));
	used_before = read_u64_file(BLOOM_SYSFS "/memory_used");
	ASSERT_OK(bloom_create(self->fd, "st", STD, 1000, 10000000,
			       BLOOM_CREATE_F_BIND));
	EXPECT_LT(3, live_allocations());
	ASSERT_EQ(0, bloom_one(self->fd, BLOOM_IOC_ADD, &key, 1));
	EXPECT_LT(used_before, read_u64_file(BLOOM_SYSFS "/memory_used"));
	ASSERT_OK(bloom_destroy(fd2, "st"));
	t0 = now_sec();
	used_at_once = read_u64_file(BLOOM_SYSFS "/memory_used");

	/* The name is gone at once ... */
	EXPECT_ERRNO(ENOENT, bloom_info(fd2, "st", &info));
	EXPECT_ERRNO(ENOENT, bloom_info(self->fd, "st", &info));
	EXPECT_ERRNO(ENOENT, bloom_destroy(fd2, "st"));
	EXPECT_ERRNO(ENOENT, bloom_bind(fd2, "st"));
	EXPECT_EQ(0, nfilters(fd2));
	{
		char path[128];

		snprintf(path, sizeof(path), BLOOM_SYSFS "/filters/st");
		EXPECT_NE(0, access(path, F_OK))
			TH_LOG("sysfs directory of a destroyed filter remains");
	}
	/* ... while the bound descriptor sees ESTALE for everything ... */
	EXPECT_ERRNO(ESTALE, bloom_batch(self->fd, BLOOM_IOC_ADD, &key, 1, 1, 1,
					 NULL, NULL, NULL));
	EXPECT_ERRNO(ESTALE, bloom_batch(self->fd, BLOOM_IOC_QUERY, &key, 1, 1,
					 1, NULL, NULL, NULL));
	EXPECT_ERRNO(ESTALE, bloom_info(self->fd, NULL, &info));
	EXPECT_ERRNO(EBUSY, bloom_bind(self->fd, "st"));

	/*
	 * ... and holds none of its memory: memory_used is back where it was
	 * and everything the filter was made of is freed after a grace period
	 * but its small struct, which the descriptor still names: three
	 * allocations are left, the two descriptors' and that struct.
	 */
	EXPECT_EQ(used_before, wait_memory_used(used_before, 2000));
	EXPECT_EQ(3, wait_live_allocations(3, 2000))
		TH_LOG("a destroyed filter's store must be freed while a descriptor is bound");
	/* For the notes: when the bytes and the memory came back. */
	TH_LOG("destroy: memory_used read right after it %s; store freed %.0f ms later (10 ms polls)",
	       used_at_once == used_before ? "was back already" :
	       "was not back yet", (now_sec() - t0) * 1e3);

	/* A new filter of the same name is not the stale one. */
	ASSERT_OK(bloom_create(fd2, "st", STD, 1000, 10000000, 0));
	EXPECT_ERRNO(ESTALE, bloom_batch(self->fd, BLOOM_IOC_QUERY, &key, 1, 1,
					 1, NULL, NULL, NULL));
	ASSERT_OK(bloom_info(fd2, "st", &info));
	EXPECT_EQ(0, info.adds);
	EXPECT_EQ(0, info.bits_set);
	ASSERT_OK(bloom_destroy(fd2, "st"));
	close(fd2);

	close(self->fd);
	EXPECT_EQ(used_before, read_u64_file(BLOOM_SYSFS "/memory_used"));
	self->fd = bloom_open();
	ASSERT_LE(0, self->fd);
	close(self->fd);
	EXPECT_EQ(0, wait_live_allocations_zero(2000));
	self->fd = bloom_open();
}

/*
 * Issue 10 item 3: a user who has a filter open cannot keep its memory
 * after root destroys it. The child binds a descriptor read-only, drops to
 * uid 65534 and keeps the descriptor; the filter takes more than half of
 * max_memory, so a second one of its size fits only once the first one's
 * memory is back.
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
	ASSERT_OK(bloom_create(self->fd, "held", STD, 1000000, 10000000, 0));
	ASSERT_OK(bloom_info(self->fd, "held", &info));
	EXPECT_LT(1 << 20, info.memory_bytes);
	EXPECT_ERRNO(EDQUOT, bloom_create(self->fd, "held2", STD, 1000000,
					  10000000, 0));

	ASSERT_OK(pipe(ready));
	ASSERT_OK(pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		__u8 key = 1;
		int fd, err;

		fd = open(BLOOM_DEV, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || bloom_bind(fd, "held") ||
		    setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534) ||
		    bloom_one(fd, BLOOM_IOC_QUERY, &key, 1) < 0)
			_exit(2);
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(3);
		err = bloom_batch(fd, BLOOM_IOC_QUERY, &key, 1, 1, 1, NULL,
				  NULL, NULL) ? errno : 0;
		_exit(err == ESTALE ? 0 : 4);
	}
	ASSERT_EQ(1, read(ready[0], &c, 1)) TH_LOG("the child did not bind");

	ASSERT_OK(bloom_destroy(self->fd, "held"));
	/* The reader still has its descriptor; the memory is back ... */
	EXPECT_EQ(used_before, wait_memory_used(used_before, 2000));
	/* ... and a filter that needs it can be created. */
	EXPECT_OK(bloom_create(self->fd, "held2", STD, 1000000, 10000000, 0));

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

/*
 * The filter core's self-test runs in the kernel on demand (not at every
 * load): the published SipHash vectors through the kernel's siphash().
 */
TEST_F(ioctl, core_selftest_in_kernel)
{
	char buf[64] = "";

	bloom_debugfs_mount();
	ASSERT_OK(read_str_file(BLOOM_DEBUGFS "/core_selftest", buf,
				sizeof(buf)));
	EXPECT_STREQ("ok", buf);
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
		ASSERT_OK(bloom_create(self->fd, order[k], k & 1 ? BLK : STD,
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

	ASSERT_OK(bloom_destroy(self->fd, "list_b"));
	l.capacity = 8;
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_LIST, &l));
	EXPECT_EQ(4, l.out_count);
	EXPECT_STREQ("list_c", names[2]);
}

static const char *type_str(__u32 type)
{
	static const char *const names[] = {
		[STD] = "standard", [BLK] = "blocked", [CNT] = "counting",
		[DLF] = "dleft",
	};

	return type >= STD && type <= DLF ? names[type] : "?";
}

/*
 * Every statistic in sysfs equals INFO's. The files of ABI version 2 must
 * exist where the type has them (deletes, delete_misses, saturated for the
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
	EXPECT_STREQ(type_str(info->type), type);
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

TEST_F(ioctl, info_sizing_and_sysfs)
{
	const struct { __u64 n; __u32 ppb; } s[] = {
		{ 1000, 10000000 }, { 1000000, 1000000 }, { 12345, 500000000 },
		{ 100, 1 }, { 1000000, 100000000 }, { 777777, 50000000 },
		{ 3, 250000000 }, { 65536, 12345678 },
	};
	struct bloom_info info;
	long long used = 0;
	__u8 keys[100 * 16];
	__u64 storage;
	size_t k;
	int t, fd2;

	for (t = STD; t <= DLF; t++) {
		for (k = 0; k < sizeof(s) / sizeof(s[0]); k++) {
			double nl = neg_log2_p(s[k].ppb);
			/* The optimum for a real k, at least one word. */
			double m = fmax(64, ceil(s[k].n * nl / log(2)));
			char name[32];

			snprintf(name, sizeof(name), "sz%d_%zu", t, k);
			ASSERT_OK(bloom_create(self->fd, name, t, s[k].n,
					       s[k].ppb, 0));
			ASSERT_OK(bloom_info(self->fd, name, &info));
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
			} else if (t == DLF) {
				__u64 cells = 4 * info.subtable_cells;
				__u32 w = info.fingerprint_bits + 2;
				double rate;

				EXPECT_EQ(4, info.hashes);
				EXPECT_EQ(4, info.subtables);
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
	}
	EXPECT_EQ(used, read_u64_file(BLOOM_SYSFS "/memory_used"));
	{
		struct bloom_version v;

		ASSERT_OK(bloom_version(self->fd, &v));
		EXPECT_EQ(used, (long long)v.memory_used);
	}

	/* Statistics move and sysfs follows INFO. */
	fd2 = bloom_open();
	ASSERT_LE(0, fd2);
	ASSERT_OK(bloom_bind(fd2, "sz1_0"));
	for (k = 0; k < 100; k++)
		make_key16(k, keys + 16 * k);
	ASSERT_OK(bloom_batch(fd2, BLOOM_IOC_ADD, keys, sizeof(keys), 100, 16,
			      NULL, NULL, NULL));
	ASSERT_OK(bloom_batch(fd2, BLOOM_IOC_QUERY, keys, sizeof(keys), 100, 16,
			      NULL, NULL, NULL));
	ASSERT_OK(bloom_info(fd2, NULL, &info));
	EXPECT_EQ(100, info.adds);
	EXPECT_EQ(100, info.queries);
	EXPECT_EQ(100, info.hits);
	EXPECT_LE(99, info.count);
	EXPECT_GE(100 * info.hashes, info.bits_set);
	EXPECT_LE(90 * info.hashes / 2, info.bits_set);
	expect_info_matches_sysfs(_metadata, &info);
	close(fd2);
}

TEST_F(ioctl, info_output_zeroed)
{
	struct bloom_info info;
	int j;

	ASSERT_OK(bloom_create(self->fd, "z", STD, 1000, 10000000,
			       BLOOM_CREATE_F_BIND));
	/*
	 * Garbage in every output field except reserved (which a strict
	 * kernel may refuse as input): all must come back overwritten, the
	 * name's tail and reserved zero.
	 */
	memset(&info, 0xaa, sizeof(info));
	info.size = sizeof(info);
	info.flags = 0;
	memset(info.name, 0, sizeof(info.name));
	info.reserved = 0;
	info.reserved2 = 0;
	info.reserved3 = 0;
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_INFO, &info));
	EXPECT_STREQ("z", info.name);
	for (j = 1; j < BLOOM_NAME_LEN; j++) {
		EXPECT_EQ(0, info.name[j]) TH_LOG("name byte %d", j);
	}
	EXPECT_EQ(0, info.reserved);
	EXPECT_EQ(STD, info.type);
	EXPECT_EQ(7, info.hashes);
	EXPECT_EQ(1000, info.capacity);
	EXPECT_EQ(10000000, info.fpp_ppb);
	EXPECT_EQ(0, info.count);
	EXPECT_EQ(0, info.adds);
	EXPECT_EQ(0, info.queries);
	EXPECT_EQ(0, info.hits);
	EXPECT_EQ(0, info.bits_set);
	/* the rate bound's fewest bits for k = 7 (sizing.c) */
	EXPECT_EQ(9599, info.bits);
	/* The fields of ABI version 2 mean nothing here: zero. */
	EXPECT_EQ(0, info.deletes);
	EXPECT_EQ(0, info.delete_misses);
	EXPECT_EQ(0, info.saturated);
	EXPECT_EQ(0, info.insert_failures);
	EXPECT_EQ(0, info.fingerprint_bits);
	EXPECT_EQ(0, info.subtables);
	EXPECT_EQ(0, info.subtable_cells);
	for (j = 0; j < 4; j++) {
		EXPECT_EQ(0, info.subtable_used[j]);
	}
	/* ABI version 3: nothing deleted, an empty filter's estimates */
	EXPECT_EQ(0, info.delete_pinned);
	EXPECT_EQ(0, info.estimated_keys);
	EXPECT_EQ(0, info.estimated_fpp_ppb);
	EXPECT_EQ(0, info.reserved2);
	/* not scalable */
	EXPECT_EQ(0, info.stages);
	EXPECT_EQ(0, info.growth);
	EXPECT_EQ(0, info.tightening_ppm);
	EXPECT_EQ(0, info.reserved3);

	/* By name, from another (unbound) descriptor: the same answer. */
	{
		struct bloom_info by_name;
		int fd2 = bloom_open();

		ASSERT_LE(0, fd2);
		ASSERT_OK(bloom_info(fd2, "z", &by_name));
		EXPECT_EQ(0, memcmp(&info, &by_name, sizeof(info)));
		close(fd2);
	}
}

TEST_F(ioctl, max_memory_edquot)
{
	struct bloom_version v;
	struct bloom_info info;

	self->saved_max_memory = read_u64_file(BLOOM_MAX_MEMORY);
	ASSERT_LT(0, self->saved_max_memory);
	ASSERT_OK(write_u64_file(BLOOM_MAX_MEMORY, 1 << 20));
	ASSERT_OK(bloom_version(self->fd, &v));
	EXPECT_EQ(1 << 20, v.memory_limit);

	/* 1,000,000 keys at 1%: ~1.2 MB of bits, over the 1 MiB cap. */
	EXPECT_ERRNO(EDQUOT, bloom_create(self->fd, "big", STD, 1000000,
					  10000000, 0));
	EXPECT_ERRNO(EDQUOT, bloom_create(self->fd, "big", BLK, 1000000,
					  10000000, 0));
	EXPECT_EQ(0, nfilters(self->fd));

	/* ~600 KB each: the first fits, the second would not. */
	ASSERT_OK(bloom_create(self->fd, "half1", STD, 500000, 10000000, 0));
	ASSERT_OK(bloom_info(self->fd, "half1", &info));
	EXPECT_ERRNO(EDQUOT, bloom_create(self->fd, "half2", STD, 500000,
					  10000000, 0));
	EXPECT_EQ((long long)info.memory_bytes,
		  read_u64_file(BLOOM_SYSFS "/memory_used"));
	/* Small filters still fit beside it. */
	EXPECT_OK(bloom_create(self->fd, "small", STD, 1000, 10000000, 0));
	/* Destroying returns the memory to the budget. */
	ASSERT_OK(bloom_destroy(self->fd, "half1"));
	EXPECT_OK(bloom_create(self->fd, "half2", STD, 500000, 10000000, 0));

	ASSERT_OK(write_u64_file(BLOOM_MAX_MEMORY, self->saved_max_memory));
	self->saved_max_memory = -1;
	EXPECT_OK(bloom_create(self->fd, "big", STD, 1000000, 10000000, 0));
}

/*
 * Issue 10 item 7: a descriptor opened read-only never changes a filter,
 * even root's: CREATE, DESTROY, ADD and DELETE are EBADF and change
 * nothing; everything that only reads works. O_WRONLY counts as writable.
 */
TEST_F(ioctl, readonly_descriptor_cannot_change)
{
	struct bloom_info info;
	struct bloom_version v;
	struct bloom_list l = { .size = sizeof(l) };
	__u8 key = 7, other = 8;
	int ro, wo;

	ASSERT_OK(bloom_create(self->fd, "ro", CNT, 1000, 10000000,
			       BLOOM_CREATE_F_BIND));
	ASSERT_EQ(0, bloom_one(self->fd, BLOOM_IOC_ADD, &key, 1));
	ro = open(BLOOM_DEV, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, ro);

	/* Unbound: the changes that name a filter. */
	EXPECT_ERRNO(EBADF, bloom_create(ro, "ro2", STD, 1000, 10000000, 0));
	EXPECT_ERRNO(EBADF, bloom_create(ro, "ro2", STD, 1000, 10000000,
					 BLOOM_CREATE_F_BIND));
	EXPECT_ERRNO(EBADF, bloom_destroy(ro, "ro"));
	/* EBADF comes before the name is looked at. */
	EXPECT_ERRNO(EBADF, bloom_destroy(ro, "no such filter"));
	/* Reading works. */
	EXPECT_OK(bloom_version(ro, &v));
	EXPECT_OK(ioctl(ro, BLOOM_IOC_LIST, &l));
	EXPECT_EQ(1, l.out_count);
	EXPECT_OK(bloom_info(ro, "ro", &info));
	ASSERT_OK(bloom_bind(ro, "ro"));
	EXPECT_EQ(1, bloom_one(ro, BLOOM_IOC_QUERY, &key, 1));
	EXPECT_OK(bloom_info(ro, NULL, &info));

	/* Bound: the changes of the filter's keys. */
	EXPECT_ERRNO(EBADF, bloom_batch(ro, BLOOM_IOC_ADD, &other, 1, 1, 1,
					NULL, NULL, NULL));
	EXPECT_ERRNO(EBADF, bloom_batch(ro, BLOOM_IOC_DELETE, &key, 1, 1, 1,
					NULL, NULL, NULL));
	/* Even an empty batch: the mode is checked first. */
	EXPECT_ERRNO(EBADF, bloom_batch(ro, BLOOM_IOC_ADD, NULL, 0, 0, 1,
					NULL, NULL, NULL));

	/* Nothing changed. */
	ASSERT_OK(bloom_info(self->fd, NULL, &info));
	EXPECT_EQ(1, info.adds);
	EXPECT_EQ(0, info.deletes);
	EXPECT_EQ(0, info.delete_misses);
	EXPECT_EQ(1, nfilters(self->fd));
	EXPECT_EQ(1, bloom_one(self->fd, BLOOM_IOC_QUERY, &key, 1));
	close(ro);

	/* Write-only is writable: it may change, and query too. */
	wo = open(BLOOM_DEV, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, wo);
	ASSERT_OK(bloom_bind(wo, "ro"));
	EXPECT_EQ(0, bloom_one(wo, BLOOM_IOC_ADD, &other, 1));
	EXPECT_EQ(1, bloom_one(wo, BLOOM_IOC_QUERY, &other, 1));
	EXPECT_EQ(1, bloom_one(wo, BLOOM_IOC_DELETE, &other, 1));
	close(wo);
	ASSERT_OK(bloom_info(self->fd, NULL, &info));
	EXPECT_EQ(2, info.adds);
	EXPECT_EQ(1, info.deletes);
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
	r->ret[0] = step(bloom_version(fd, &v));
	r->ret[1] = step(ioctl(fd, BLOOM_IOC_LIST, &l));
	r->ret[2] = step(bloom_info(fd, "perm", &info));
	r->ret[3] = step(bloom_create(fd, "perm2", STD, 1000, 10000000, 0));
	r->ret[4] = step(bloom_create(fd, "perm3", STD, 1000, 10000000,
				      BLOOM_CREATE_F_BIND));
	r->ret[5] = step(bloom_destroy(fd, "perm"));
	r->ret[6] = step(bloom_bind(fd, "perm"));
	r->present = bloom_one(fd, BLOOM_IOC_QUERY, key, 4);
	key[3] = 2;
	r->ret[7] = step(bloom_batch(fd, BLOOM_IOC_ADD, key, 4, 1, 4, NULL,
				     NULL, NULL));
	r->ret[8] = step(bloom_info(fd, NULL, &info));
	/* Privilege comes before name validation: no probing as a user. */
	r->ret[9] = step(bloom_destroy(fd, "nope"));
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

TEST_F(ioctl, unprivileged_eperm)
{
	struct perm_result *r;
	struct bloom_info info;
	__u8 key[4] = { 10, 0, 0, 1 };
	struct stat st;

	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, r);
	ASSERT_OK(bloom_create(self->fd, "perm", STD, 1000, 10000000,
			       BLOOM_CREATE_F_BIND));
	ASSERT_EQ(0, bloom_one(self->fd, BLOOM_IOC_ADD, key, 4));

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

	/* Nothing changed: one filter, one key added, one query. */
	EXPECT_EQ(1, nfilters(self->fd));
	ASSERT_OK(bloom_info(self->fd, "perm", &info));
	EXPECT_EQ(1, info.adds);
	EXPECT_EQ(1, info.queries);
	EXPECT_EQ(1, info.hits);
	munmap(r, sizeof(*r));
}

BLOOM_LEAK_CHECK_TEST()

TEST_HARNESS_MAIN
