// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_ioctl: every /dev/bloom command's happy path and every error path of
 * the specification in uapi/linux/bloom.h, with the exact errno. Keys and
 * batches are covered in bloom_batch.c, deleting in bloom_delete.c,
 * snapshots in bloom_snapshot.c; this file is about the commands
 * themselves, names, sizing, lifetime, limits and privilege.
 *
 * Two fixtures: "ioctl" for what does not depend on a filter's type (among
 * it every_command_table, the calling convention of every command, driven
 * by one table), and "type", whose tests run once per filter type
 * (FIXTURE_VARIANT) for what every type must do alike.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <math.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "bloom_test.h"

#define STD	BLOOM_TYPE_STANDARD
#define BLK	BLOOM_TYPE_BLOCKED
#define CNT	BLOOM_TYPE_COUNTING
#define DLF	BLOOM_TYPE_DLEFT

/*
 * Room for every struct plus a zero or non-zero tail, up to a size past
 * BT_ARG_SIZE_MAX; page aligned.
 */
static __u8 argbuf[2 * 4096] __attribute__((aligned(4096)));

/*
 * Both fixtures, "ioctl" and "type", hold a descriptor and remember the
 * device node's mode and max_memory when a test changes them (-1: not
 * changed), so that teardown can put back what a failed test left.
 */
static void dev_setup(struct __test_metadata *_metadata, int *fd,
		      int *saved_mode, long long *saved_max_memory)
{
	*saved_mode = -1;
	*saved_max_memory = -1;
	*fd = bt_open();
	ASSERT_LE(0, *fd) TH_LOG("open %s: %s", BLOOM_DEV, strerror(errno));
}

static void dev_teardown(int fd, int saved_mode, long long saved_max_memory)
{
	if (saved_mode >= 0)
		chmod(BLOOM_DEV, saved_mode);
	if (saved_max_memory >= 0)
		write_u64_file(BLOOM_MAX_MEMORY, saved_max_memory);
	close(fd);
	bt_destroy_all();
}

FIXTURE(ioctl) {
	int fd;
	int saved_mode;
	long long saved_max_memory;
};

FIXTURE_SETUP(ioctl)
{
	dev_setup(_metadata, &self->fd, &self->saved_mode,
		  &self->saved_max_memory);
}

FIXTURE_TEARDOWN(ioctl)
{
	dev_teardown(self->fd, self->saved_mode, self->saved_max_memory);
}

static __u32 nfilters(int fd)
{
	struct bloom_list l = { .size = sizeof(l) };

	if (ioctl(fd, BLOOM_IOC_LIST, &l))
		return ~0U;
	return l.out_count;
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
	v.reserved = 0;
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_VERSION, &v));
	EXPECT_EQ(BLOOM_ABI_VERSION, v.abi_version);
	EXPECT_EQ(1, v.abi_version);
	EXPECT_TRUE(v.types & (1U << BLOOM_TYPE_STANDARD));
	EXPECT_TRUE(v.types & (1U << BLOOM_TYPE_BLOCKED));
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
	EXPECT_EQ(0, v.reserved);
	EXPECT_EQ(sizeof(v), v.size);
}

TEST_F(ioctl, struct_sizes_are_abi)
{
	/* Catches an accidental change of the ABI in the header itself. */
	EXPECT_EQ(BT_VERSION_SIZE, sizeof(struct bloom_version));
	EXPECT_EQ(BT_CREATE_SIZE, sizeof(struct bloom_create));
	EXPECT_EQ(BT_NAME_SIZE, sizeof(struct bloom_name));
	EXPECT_EQ(BT_INFO_SIZE, sizeof(struct bloom_info));
	EXPECT_EQ(BT_LIST_SIZE, sizeof(struct bloom_list));
	EXPECT_EQ(BT_BATCH_SIZE, sizeof(struct bloom_batch));
	EXPECT_EQ(BT_SAVE_SIZE, sizeof(struct bloom_save));
	EXPECT_EQ(BT_RESTORE_SIZE, sizeof(struct bloom_restore));
	EXPECT_EQ(BT_PAIR_SIZE, sizeof(struct bloom_pair));
	EXPECT_EQ(BT_STAGES_SIZE, sizeof(struct bloom_stages));
	EXPECT_EQ(BT_STAGE_SIZE, sizeof(struct bloom_stage));
}

/*
 * Every command in one table, the iommufd selftests' way: its struct, the
 * flag bits it takes, whether it
 * needs a descriptor open for writing, the type of the filter the
 * descriptor must be bound to (0: none), a request that succeeds, what that
 * request must have done, and its errno cases, each one field of the valid
 * request changed. One test (every_command_table) then checks, for every
 * command, each rule of the calling convention in <linux/bloom.h>: sizes
 * below the struct's (EINVAL), a larger size with a non-zero byte past
 * the struct (E2BIG), a size over BT_ARG_SIZE_MAX (E2BIG, even with the
 * bytes past the struct unmapped), every flag bit the command does not
 * take (EINVAL), a non-zero reserved field (EINVAL), every errno case of
 * the table, a NULL, unmapped, kernel or truncated
 * argument (EFAULT), a read-only one for the commands that only fill it
 * (EFAULT), a read-only descriptor (EBADF where the command changes
 * filters), that none of those refused calls changed anything, and that the
 * request succeeds with a larger size and a zero tail, and does what it
 * should. A command added to the ABI gets one entry here.
 *
 * Setup for each command, on a fresh descriptor: "tbl" (standard, or the
 * type the command needs bound) holds tbl_key, "tbl2", made like it,
 * holds tbl_key2, and snapbuf holds a snapshot of "tbl". For STAGES "tbl"
 * is scalable, which has no snapshot and no LIKE: "tbl2" is then a plain
 * standard filter.
 */
/* In a field case: an unmapped page, a read-only page (set at run time). */
#define UNMAPPED_PTR	(~0ULL - 1)
#define READONLY_PTR	(~0ULL - 2)

struct field_case {
	const char *what;
	unsigned short off, width;	/* width 1..8: an integer field */
	__u64 val;
	const char *str;		/* else a name field's contents */
	int err;
};

#define FIELD(what, type, member, v, e)					\
	{ what, offsetof(struct type, member),				\
	  sizeof(((struct type *)0)->member), v, NULL, e }
#define FIELD_AT(what, type, member, at, v, e)				\
	{ what, offsetof(struct type, member) + (at), 1, v, NULL, e }
#define NAME_FIELD(what, type, member, s, e)				\
	{ what, offsetof(struct type, member), BLOOM_NAME_LEN, 0, s, e }

/* A reserved field with its lowest or its highest bit set. */
#define RESERVED_CASES(type)						\
	FIELD("reserved", type, reserved, 1, EINVAL),			\
	FIELD_AT("reserved, top bit", type, reserved,			\
		 sizeof(((struct type *)0)->reserved) - 1, 0x80, EINVAL)

/* The errno cases every batch command shares. */
#define BATCH_CASES							\
	RESERVED_CASES(bloom_batch),					\
	FIELD("pinned without the flag", bloom_batch, pinned,		\
	      KERNEL_PTR, EINVAL),					\
	FIELD("keys NULL", bloom_batch, keys, 0, EFAULT),		\
	FIELD("keys unmapped", bloom_batch, keys, UNMAPPED_PTR, EFAULT), \
	FIELD("keys kernel", bloom_batch, keys, KERNEL_PTR, EFAULT),	\
	FIELD("results kernel", bloom_batch, results, KERNEL_PTR, EFAULT), \
	FIELD("key_size over the maximum", bloom_batch, key_size,	\
	      BLOOM_KEY_MAX + 1, EINVAL),				\
	FIELD("keys_len short", bloom_batch, keys_len, 3, EINVAL),	\
	FIELD("nkeys over the maximum", bloom_batch, nkeys,		\
	      BLOOM_BATCH_MAX_KEYS + 1, E2BIG),				\
	FIELD("lens with fixed-size keys", bloom_batch, lens,		\
	      KERNEL_PTR, EINVAL)

/* The errno cases of a bloom_name naming an existing filter. */
#define NAME_CASES(type, member)					\
	NAME_FIELD("empty name", type, member, "", EINVAL),		\
	NAME_FIELD("name with a slash", type, member, "a/b", EINVAL),	\
	NAME_FIELD("name of no filter", type, member, "nope", ENOENT)

static __u8 tbl_key[4] = { 1, 2, 3, 4 }, tbl_key2[4] = { 5, 6, 7, 8 };
static __u8 tbl_res;
static char tbl_names[4][BLOOM_NAME_LEN];
static struct bloom_stage tbl_stages[BLOOM_SCALE_STAGES_MAX];
static __u8 snapbuf[65536], savebuf[65536];
static __u64 snaplen;

static void req_version(void *p)
{
	((struct bloom_version *)p)->size = sizeof(struct bloom_version);
}

static void req_create(void *p)
{
	*(struct bloom_create *)p = bt_create_req("tbl-new", STD, 1000,
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
	struct bloom_list *l = p;

	l->size = sizeof(*l);
	l->capacity = 4;
	l->names = u64_ptr(tbl_names);
}

static void batch_of(struct bloom_batch *b, __u8 *key)
{
	b->size = sizeof(*b);
	b->nkeys = 1;
	b->key_size = 4;
	b->keys = u64_ptr(key);
	b->keys_len = 4;
	b->results = u64_ptr(&tbl_res);
}

/* ADD a key "tbl" does not hold; QUERY and DELETE the one it holds. */
static void req_add(void *p)
{
	batch_of(p, tbl_key2);
}

static void req_batch(void *p)
{
	batch_of(p, tbl_key);
}

static void req_save(void *p)
{
	struct bloom_save *s = p;

	s->size = sizeof(*s);
	set_name(s->name, "tbl");
	s->buf = u64_ptr(savebuf);
	s->buf_len = sizeof(savebuf);
}

static void req_restore(void *p)
{
	struct bloom_restore *r = p;

	r->size = sizeof(*r);
	r->flags = BLOOM_RESTORE_F_NAME;
	set_name(r->name, "tbl-new");
	r->buf = u64_ptr(snapbuf);
	r->buf_len = snaplen;
}

static void req_stages(void *p)
{
	struct bloom_stages *s = p;

	s->size = sizeof(*s);
	set_name(s->name, "tbl");
	s->capacity = BLOOM_SCALE_STAGES_MAX;
	s->stages = u64_ptr(tbl_stages);
}

static void req_pair(void *p)
{
	struct bloom_pair *pr = p;

	pr->size = sizeof(*pr);
	set_name(pr->name, "tbl");
	set_name(pr->other, "tbl2");
}

/* 1 if @name may hold @key, 0 if not, -1 on an error. */
static int holds(const char *name, const __u8 *key)
{
	int fd = bt_open(), r = -1;

	if (fd >= 0 && !bt_bind(fd, name))
		r = bt_one(fd, BLOOM_IOC_QUERY, key, 4);
	if (fd >= 0)
		close(fd);
	return r;
}

#define CHECK(cmd)							\
	static void check_##cmd(struct __test_metadata *_metadata,	\
				int fd __attribute__((unused)),		\
				const void *out __attribute__((unused)))

CHECK(version)
{
	EXPECT_EQ(BLOOM_ABI_VERSION,
		  ((const struct bloom_version *)out)->abi_version);
}

CHECK(create)
{
	struct bloom_info info;

	ASSERT_OK(bt_info(fd, "tbl-new", &info));
	EXPECT_EQ(STD, info.type);
	EXPECT_EQ(1000, info.capacity);
}

CHECK(destroy)
{
	struct bloom_info info;

	EXPECT_ERRNO(ENOENT, bt_info(fd, "tbl", &info));
	EXPECT_EQ(1, nfilters(fd));
}

CHECK(bind)
{
	struct bloom_info info;

	ASSERT_OK(bt_info(fd, NULL, &info));
	EXPECT_STREQ("tbl", info.name);
}

CHECK(info)
{
	const struct bloom_info *i = out;

	EXPECT_STREQ("tbl", i->name);
	EXPECT_EQ(1000, i->capacity);
	EXPECT_EQ(1, i->adds);
}

CHECK(list)
{
	EXPECT_EQ(2, ((const struct bloom_list *)out)->out_count);
	EXPECT_STREQ("tbl", tbl_names[0]);
	EXPECT_STREQ("tbl2", tbl_names[1]);
}

/* A one-key batch was done, and its result (count and bit) is @hit. */
static void expect_one_key(struct __test_metadata *_metadata,
			   const struct bloom_batch *b, __u32 hit)
{
	EXPECT_EQ(1, b->out_done);
	EXPECT_EQ(hit, b->out_hits);
	EXPECT_EQ(hit, tbl_res & 1);
}

CHECK(add)
{
	expect_one_key(_metadata, out, 0);
	EXPECT_EQ(1, holds("tbl", tbl_key2));
}

CHECK(query)
{
	expect_one_key(_metadata, out, 1);
}

CHECK(delete)
{
	expect_one_key(_metadata, out, 1);
	/* its only key: every counter back at 0 */
	EXPECT_EQ(0, holds("tbl", tbl_key));
}

CHECK(save)
{
	EXPECT_EQ(snaplen, ((const struct bloom_save *)out)->out_len);
	EXPECT_EQ(0, memcmp(BLOOM_SNAP_MAGIC, savebuf, 8));
}

CHECK(restore)
{
	struct bloom_info a, b;

	ASSERT_OK(bt_info(fd, "tbl", &a));
	ASSERT_OK(bt_info(fd, "tbl-new", &b));
	EXPECT_EQ(a.type, b.type);
	EXPECT_EQ(a.bits, b.bits);
	EXPECT_EQ(1, holds("tbl-new", tbl_key));
}

CHECK(merge)
{
	EXPECT_EQ(1, holds("tbl", tbl_key));
	EXPECT_EQ(1, holds("tbl", tbl_key2));
	EXPECT_EQ(1, holds("tbl2", tbl_key2));
}

CHECK(swap)
{
	struct bloom_info info;

	EXPECT_EQ(1, holds("tbl", tbl_key2));
	EXPECT_EQ(1, holds("tbl2", tbl_key));
	ASSERT_OK(bt_info(fd, "tbl", &info));
	EXPECT_EQ(1, info.adds) TH_LOG("statistics go with the contents");
}

CHECK(stages)
{
	/* 1000 keys asked for, one added: the first stage only */
	EXPECT_EQ(1, ((const struct bloom_stages *)out)->out_count);
	EXPECT_EQ(1000, tbl_stages[0].capacity);
	EXPECT_EQ(1, tbl_stages[0].count);
}

CHECK(flush)
{
	struct bloom_info info;

	ASSERT_OK(bt_info(fd, "tbl", &info));
	EXPECT_EQ(0, info.bits_set);
	EXPECT_EQ(0, info.adds);
	EXPECT_EQ(0, holds("tbl", tbl_key));
}

static const struct cmd_case {
	const char *name;
	unsigned long cmd;
	size_t len;
	size_t v1_len;		/* ABI version 1's size, if smaller than len */
	__u32 flags_ok;		/* every other flag bit is EINVAL */
	__u32 bind;		/* type of the bound filter; 0: unbound */
	bool writes;		/* needs a descriptor open for writing */
	bool fills;		/* only fills the struct: no side effect */
	bool scalable;		/* "tbl" is a scalable filter */
	void (*req)(void *buf);
	void (*check)(struct __test_metadata *_metadata, int fd,
		      const void *out);
	struct field_case bad[20];
} cmd_table[] = {
#define CMD(c, s, fl, ...)						\
	.name = #c, .cmd = BLOOM_IOC_##c, .len = sizeof(struct s),	\
	.flags_ok = fl, __VA_ARGS__
	{ CMD(VERSION, bloom_version, 0,
	      .fills = true, .req = req_version, .check = check_version),
	  .bad = { RESERVED_CASES(bloom_version) } },
	{ CMD(CREATE, bloom_create, BLOOM_CREATE_F_ALL,
	      .v1_len = BT_CREATE_V1_SIZE, .writes = true, .req = req_create, .check = check_create),
	  .bad = {
		RESERVED_CASES(bloom_create),
		FIELD("bits without GEOMETRY", bloom_create, bits, 4096,
		      EINVAL),
		FIELD("generations without TIMEOUT", bloom_create,
		      generations, 4, EINVAL),
		FIELD("timeout_ms without TIMEOUT", bloom_create, timeout_ms,
		      60000, EINVAL),
		FIELD("hashes without GEOMETRY", bloom_create, hashes, 3,
		      EINVAL),
		FIELD_AT("hash_key without HASH_KEY", bloom_create, hash_key,
			 BLOOM_HASH_KEY_LEN - 1, 1, EINVAL),
		FIELD("memory_bytes without SIZE", bloom_create, memory_bytes,
		      4096, EINVAL),
		FIELD("bits_per_key_milli without SIZE", bloom_create,
		      bits_per_key_milli, 9000, EINVAL),
		FIELD("growth without SCALABLE", bloom_create, growth, 2,
		      EINVAL),
		FIELD("tightening_ppm without SCALABLE", bloom_create,
		      tightening_ppm, 850000, EINVAL),
		NAME_FIELD("like without LIKE", bloom_create, like, "tbl",
			   EINVAL),
		FIELD("type 0", bloom_create, type, 0, EOPNOTSUPP),
		FIELD("type 5", bloom_create, type, 5, EOPNOTSUPP),
		FIELD("capacity 0", bloom_create, capacity, 0, EINVAL),
		FIELD("fpp_ppb 0", bloom_create, fpp_ppb, 0, EINVAL),
		FIELD("fpp_ppb over the maximum", bloom_create, fpp_ppb,
		      BLOOM_FPP_PPB_MAX + 1, EINVAL),
		NAME_FIELD("empty name", bloom_create, name, "", EINVAL),
		NAME_FIELD("name with a slash", bloom_create, name, "a/b",
			   EINVAL),
		NAME_FIELD("name taken", bloom_create, name, "tbl", EEXIST),
	} },
	{ CMD(DESTROY, bloom_name, 0,
	      .writes = true, .req = req_name, .check = check_destroy),
	  .bad = { RESERVED_CASES(bloom_name), NAME_CASES(bloom_name, name) } },
	{ CMD(BIND, bloom_name, 0,
	      .req = req_name, .check = check_bind),
	  .bad = { RESERVED_CASES(bloom_name), NAME_CASES(bloom_name, name) } },
	{ CMD(INFO, bloom_info, 0,
	      .v1_len = BT_INFO_V1_SIZE, .fills = true, .req = req_info, .check = check_info),
	  .bad = {
		RESERVED_CASES(bloom_info),
		NAME_FIELD("name with a slash", bloom_info, name, "a/b",
			   EINVAL),
		NAME_FIELD("name of no filter", bloom_info, name, "nope",
			   ENOENT),
		NAME_FIELD("no name, descriptor unbound", bloom_info, name,
			   "", EBADFD),
	} },
	{ CMD(LIST, bloom_list, 0,
	      .fills = true, .req = req_list, .check = check_list),
	  .bad = {
		RESERVED_CASES(bloom_list),
		FIELD("names NULL", bloom_list, names, 0, EFAULT),
		FIELD("names unmapped", bloom_list, names, UNMAPPED_PTR,
		      EFAULT),
		FIELD("names kernel", bloom_list, names, KERNEL_PTR, EFAULT),
		FIELD("names read-only", bloom_list, names, READONLY_PTR,
		      EFAULT),
	} },
	/* BLOOM_BATCH_F_NET: the keys are addresses (test_netblock.sh) */
	{ CMD(ADD, bloom_batch, BLOOM_BATCH_F_NET, .bind = STD,
	      .writes = true, .req = req_add, .check = check_add),
	  .bad = { BATCH_CASES } },
	{ CMD(QUERY, bloom_batch, BLOOM_BATCH_F_NET, .bind = STD,
	      .req = req_batch, .check = check_query),
	  .bad = { BATCH_CASES } },
	{ CMD(DELETE, bloom_batch, BLOOM_BATCH_F_ALL,
	      .bind = CNT, .writes = true, .req = req_batch,
	      .check = check_delete),
	  .bad = { BATCH_CASES } },
	{ CMD(SAVE, bloom_save, 0,
	      .fills = true, .req = req_save, .check = check_save),
	  .bad = {
		RESERVED_CASES(bloom_save),
		NAME_FIELD("name with a slash", bloom_save, name, "a/b",
			   EINVAL),
		NAME_FIELD("name of no filter", bloom_save, name, "nope",
			   ENOENT),
		NAME_FIELD("no name, descriptor unbound", bloom_save, name,
			   "", EBADFD),
		FIELD("buf unmapped", bloom_save, buf, UNMAPPED_PTR, EFAULT),
		FIELD("buf kernel", bloom_save, buf, KERNEL_PTR, EFAULT),
		FIELD("buf_len too small", bloom_save, buf_len, 16,
		      EOVERFLOW),
	} },
	{ CMD(RESTORE, bloom_restore, BLOOM_RESTORE_F_ALL,
	      .writes = true, .req = req_restore, .check = check_restore),
	  .bad = {
		RESERVED_CASES(bloom_restore),
		NAME_FIELD("empty name", bloom_restore, name, "", EINVAL),
		NAME_FIELD("name with a slash", bloom_restore, name, "a/b",
			   EINVAL),
		NAME_FIELD("name taken", bloom_restore, name, "tbl", EEXIST),
		FIELD("name without NAME", bloom_restore, flags, 0, EINVAL),
		FIELD("buf NULL", bloom_restore, buf, 0, EFAULT),
		FIELD("buf unmapped", bloom_restore, buf, UNMAPPED_PTR,
		      EFAULT),
		FIELD("buf kernel", bloom_restore, buf, KERNEL_PTR, EFAULT),
		FIELD("buf_len 0", bloom_restore, buf_len, 0, EBADMSG),
		FIELD("buf_len 16", bloom_restore, buf_len, 16, EBADMSG),
	} },
	{ CMD(MERGE, bloom_pair, 0, .writes = true,
	      .req = req_pair, .check = check_merge),
	  .bad = {
		RESERVED_CASES(bloom_pair),
		NAME_CASES(bloom_pair, name),
		NAME_CASES(bloom_pair, other),
		NAME_FIELD("with itself", bloom_pair, other, "tbl", EINVAL),
	} },
	{ CMD(SWAP, bloom_pair, 0, .writes = true,
	      .req = req_pair, .check = check_swap),
	  .bad = {
		RESERVED_CASES(bloom_pair),
		NAME_CASES(bloom_pair, name),
		NAME_CASES(bloom_pair, other),
	} },
	{ CMD(FLUSH, bloom_name, 0, .writes = true,
	      .req = req_name, .check = check_flush),
	  .bad = { RESERVED_CASES(bloom_name), NAME_CASES(bloom_name, name) } },
	{ CMD(STAGES, bloom_stages, 0, .fills = true,
	      .scalable = true, .req = req_stages, .check = check_stages),
	  .bad = {
		RESERVED_CASES(bloom_stages),
		NAME_FIELD("name with a slash", bloom_stages, name, "a/b",
			   EINVAL),
		NAME_FIELD("name of no filter", bloom_stages, name, "nope",
			   ENOENT),
		NAME_FIELD("no name, descriptor unbound", bloom_stages, name,
			   "", EBADFD),
		NAME_FIELD("a filter that is not scalable", bloom_stages, name,
			   "tbl2", EOPNOTSUPP),
		FIELD("stages NULL", bloom_stages, stages, 0, EFAULT),
		FIELD("stages unmapped", bloom_stages, stages, UNMAPPED_PTR,
		      EFAULT),
		FIELD("stages kernel", bloom_stages, stages, KERNEL_PTR,
		      EFAULT),
		FIELD("stages read-only", bloom_stages, stages, READONLY_PTR,
		      EFAULT),
	} },
#undef CMD
};

/* What a refused call must leave as it was. */
struct tbl_state {
	__u32 filters;
	int bound;			/* errno of INFO of the bound filter */
	struct {
		int exists;
		__u64 adds, queries, deletes, delete_misses, bits_set;
	} f[2];
};

static void tbl_state(int fd, struct tbl_state *s)
{
	const char *names[2] = { "tbl", "tbl2" };
	struct bloom_info i;
	int k;

	memset(s, 0, sizeof(*s));
	s->filters = nfilters(fd);
	s->bound = errno_of(bt_info(fd, NULL, &i));
	for (k = 0; k < 2; k++) {
		if (bt_info(fd, names[k], &i))
			continue;
		s->f[k].exists = 1;
		s->f[k].adds = i.adds;
		s->f[k].queries = i.queries;
		s->f[k].deletes = i.deletes;
		s->f[k].delete_misses = i.delete_misses;
		s->f[k].bits_set = i.bits_set;
	}
}

/* "tbl" with tbl_key, "tbl2" like it with tbl_key2, a snapshot of "tbl". */
static void tbl_setup(struct __test_metadata *_metadata, __u32 type,
		      bool scalable)
{
	struct bloom_create c = bt_create_req("tbl", type, 1000, 10000000,
					      BLOOM_CREATE_F_BIND);
	struct bloom_save s = { .size = sizeof(s) };
	int a = bt_open(), b = bt_open();

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	if (scalable)
		c.flags |= BLOOM_CREATE_F_SCALABLE;
	ASSERT_OK(ioctl(a, BLOOM_IOC_CREATE, &c));
	ASSERT_EQ(0, bt_one(a, BLOOM_IOC_ADD, tbl_key, 4));
	if (scalable) {
		c = bt_create_req("tbl2", type, 1000, 10000000,
				  BLOOM_CREATE_F_BIND);
	} else {
		memset(&c, 0, sizeof(c));
		c.size = sizeof(c);
		c.flags = BLOOM_CREATE_F_LIKE | BLOOM_CREATE_F_BIND;
		set_name(c.name, "tbl2");
		set_name(c.like, "tbl");
	}
	ASSERT_OK(ioctl(b, BLOOM_IOC_CREATE, &c));
	ASSERT_EQ(0, bt_one(b, BLOOM_IOC_ADD, tbl_key2, 4));
	if (scalable) {
		close(a);
		close(b);
		return;
	}
	set_name(s.name, "tbl");
	s.buf = u64_ptr(snapbuf);
	s.buf_len = sizeof(snapbuf);
	ASSERT_OK(ioctl(a, BLOOM_IOC_SAVE, &s));
	snaplen = s.out_len;
	close(a);
	close(b);
}

/* Writes a field case into the request at @buf. */
static void apply_case(const struct field_case *fc, __u8 *buf,
		       void *unmapped, void *readonly)
{
	__u64 v = fc->val == UNMAPPED_PTR ? u64_ptr(unmapped) :
		  fc->val == READONLY_PTR ? u64_ptr(readonly) : fc->val;

	if (fc->str) {
		set_name((char *)buf + fc->off, fc->str);
		return;
	}
	switch (fc->width) {
	case 1:
		buf[fc->off] = v;
		break;
	case 4:
		*(__u32 *)(buf + fc->off) = v;
		break;
	case 8:
		*(__u64 *)(buf + fc->off) = v;
		break;
	}
}

/*
 * The size rules every command shares: smaller than the struct of ABI
 * version 1 is EINVAL, a larger size with a non-zero byte past it is E2BIG.
 */
static void size_errors(struct __test_metadata *_metadata, int fd,
			const struct cmd_case *c, const void *valid)
{
	const __u32 v1 = c->v1_len ?: c->len;
	const __u32 small[] = { 0, 1, 4, 8, v1 - 8, v1 - 1 };
	const struct { __u32 size; __u32 nonzero_at; } big[] = {
		{ c->len + 1, c->len }, { c->len + 8, c->len + 7 },
		{ 4096, 4095 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(small); i++) {
		memset(argbuf, 0, sizeof(argbuf));
		memcpy(argbuf, valid, c->len);
		*(__u32 *)argbuf = small[i];
		EXPECT_ERRNO(EINVAL, ioctl(fd, c->cmd, argbuf))
			TH_LOG("%s: size %u", c->name, small[i]);
	}
	for (i = 0; i < ARRAY_SIZE(big); i++) {
		memset(argbuf, 0, sizeof(argbuf));
		memcpy(argbuf, valid, c->len);
		*(__u32 *)argbuf = big[i].size;
		argbuf[big[i].nonzero_at] = 0x5a;
		EXPECT_ERRNO(E2BIG, ioctl(fd, c->cmd, argbuf))
			TH_LOG("%s: size %u", c->name, big[i].size);
	}
}

/*
 * A size over BT_ARG_SIZE_MAX is E2BIG before the kernel reads past the
 * struct: the request sits at the end of the mapping at @edge_end, so a
 * read of the tail would fault, yet the answer must be E2BIG.
 */
static void oversize_errors(struct __test_metadata *_metadata, int fd,
			    const struct cmd_case *c, const void *valid,
			    __u8 *edge_end)
{
	const __u32 sizes[] = { BT_ARG_SIZE_MAX + 1, BT_ARG_SIZE_MAX + 8,
				65536, 0x80000000U, 0xffffffffU };
	__u8 *arg = edge_end - c->len;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		memcpy(arg, valid, c->len);
		*(__u32 *)arg = sizes[i];
		EXPECT_ERRNO(E2BIG, ioctl(fd, c->cmd, arg))
			TH_LOG("%s: size %u, the tail unmapped", c->name,
			       sizes[i]);
	}
	/* With the tail readable and zero: still E2BIG. */
	memset(argbuf, 0, sizeof(argbuf));
	memcpy(argbuf, valid, c->len);
	*(__u32 *)argbuf = BT_ARG_SIZE_MAX + 1;
	EXPECT_ERRNO(E2BIG, ioctl(fd, c->cmd, argbuf))
		TH_LOG("%s: size %u, a zero tail", c->name,
		       BT_ARG_SIZE_MAX + 1);
}

/* Same request with size = len + 8 and a zero tail. */
static int ioctl_bigger(int fd, unsigned long cmd, const void *req, size_t len)
{
	memset(argbuf, 0, sizeof(argbuf));
	memcpy(argbuf, req, len);
	*(__u32 *)argbuf = len + 8;
	return ioctl(fd, cmd, argbuf);
}

TEST_F(ioctl, every_command_table)
{
	/* In this order: an mmap after the munmap could refill the hole. */
	__u8 *edge = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *ro_page = readonly_copy("", 1);
	void *gone = unmapped_page();
	const void *bad_ptrs[] = { NULL, gone, (void *)(uintptr_t)KERNEL_PTR,
				   NULL };
	struct tbl_state before, after;
	size_t k, j;
	int b;

	ASSERT_NE(MAP_FAILED, edge);
	ASSERT_NE(MAP_FAILED, gone);
	ASSERT_NE(NULL, ro_page);
	ASSERT_OK(munmap(edge + 4096, 4096));
	/*
	 * Every command the module knows is in the table, and only those:
	 * with a zeroed argument (size 0) a known command is EINVAL, an
	 * unknown one ENOTTY.
	 */
	for (k = 0; k < 256; k++) {
		unsigned long cmd = _IO(BLOOM_IOC_MAGIC, k);
		bool listed = false;
		int err;

		for (j = 0; j < ARRAY_SIZE(cmd_table); j++)
			listed |= cmd_table[j].cmd == cmd;
		memset(argbuf, 0, sizeof(argbuf));
		err = errno_of(ioctl(self->fd, cmd, argbuf));
		EXPECT_EQ(listed ? EINVAL : ENOTTY, err)
			TH_LOG("command %#zx: %s", k, listed ?
			       "in the table, unknown to the module" :
			       "known to the module, not in the table");
	}

	for (k = 0; k < ARRAY_SIZE(cmd_table); k++) {
		const struct cmd_case *c = &cmd_table[k];
		__u8 req[1024] = { 0 }, exact[1024];
		int fd = bt_open(), ro;

		ASSERT_LE(0, fd);
		ASSERT_GE(sizeof(req), c->len);
		tbl_setup(_metadata, c->bind ? c->bind : STD, c->scalable);
		if (c->bind) {
			ASSERT_OK(bt_bind(fd, "tbl"));
		}
		c->req(req);
		tbl_state(fd, &before);

		size_errors(_metadata, fd, c, req);
		oversize_errors(_metadata, fd, c, req, edge + 4096);

		for (b = 0; b < 32; b++) {
			if (c->flags_ok & (1U << b))
				continue;
			memcpy(argbuf, req, c->len);
			((__u32 *)argbuf)[1] |= 1U << b;
			EXPECT_ERRNO(EINVAL, ioctl(fd, c->cmd, argbuf))
				TH_LOG("%s: flag bit %d", c->name, b);
		}

		for (j = 0; j < ARRAY_SIZE(c->bad) && c->bad[j].what; j++) {
			memcpy(argbuf, req, c->len);
			apply_case(&c->bad[j], argbuf, gone, ro_page);
			EXPECT_ERRNO(c->bad[j].err, ioctl(fd, c->cmd, argbuf))
				TH_LOG("%s: %s", c->name, c->bad[j].what);
		}

		/* The struct running off the end of the mapping. */
		bad_ptrs[3] = edge + 4096 - c->len / 2;
		memcpy(edge + 4096 - c->len / 2, req, c->len / 2);
		for (j = 0; j < ARRAY_SIZE(bad_ptrs); j++) {
			EXPECT_ERRNO(EFAULT, ioctl(fd, c->cmd, bad_ptrs[j]))
				TH_LOG("%s: argument %p", c->name, bad_ptrs[j]);
		}
		if (c->fills) {
			void *p = readonly_copy(req, c->len);

			ASSERT_NE(NULL, p);
			EXPECT_ERRNO(EFAULT, ioctl(fd, c->cmd, p))
				TH_LOG("%s: read-only argument", c->name);
			munmap(p, 4096);
		}

		/* A descriptor opened read-only changes nothing. */
		ro = open(BLOOM_DEV, O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, ro);
		if (c->bind) {
			ASSERT_OK(bt_bind(ro, "tbl"));
		}
		if (c->writes) {
			memcpy(argbuf, req, c->len);
			EXPECT_ERRNO(EBADF, ioctl(ro, c->cmd, argbuf))
				TH_LOG("%s: read-only descriptor", c->name);
		}

		tbl_state(fd, &after);
		EXPECT_EQ(0, memcmp(&before, &after, sizeof(before)))
			TH_LOG("%s: a refused call changed something", c->name);

		if (!c->writes) {
			memcpy(argbuf, req, c->len);
			EXPECT_OK(ioctl(ro, c->cmd, argbuf))
				TH_LOG("%s: read-only descriptor", c->name);
		}
		close(ro);

		/*
		 * A zero tail past the struct is accepted; a command that
		 * only fills the struct gives the same bytes and writes
		 * nothing past the size it knows.
		 */
		if (c->fills) {
			memcpy(exact, req, c->len);
			ASSERT_OK(ioctl(fd, c->cmd, exact));
		}
		EXPECT_OK(ioctl_bigger(fd, c->cmd, req, c->len))
			TH_LOG("%s: a zero tail past the struct must be accepted",
			       c->name);
		if (c->fills) {
			EXPECT_EQ(0, memcmp(exact + 8, argbuf + 8, c->len - 8))
				TH_LOG("%s: other answer with a larger size",
				       c->name);
			EXPECT_EQ(0, *(__u64 *)(argbuf + c->len))
				TH_LOG("%s: wrote past its struct", c->name);
		}
		c->check(_metadata, fd, argbuf);
		close(fd);
		bt_destroy_all();
	}
	munmap(edge, 4096);
	munmap(ro_page, 4096);
}

/*
 * A caller built against ABI version 1 passes the smaller CREATE and INFO
 * structs: CREATE takes them, INFO fills that much and not a byte more.
 */
TEST_F(ioctl, abi_v1_sizes_taken)
{
	struct bloom_create c = bt_create_req("v1", BLOOM_TYPE_STANDARD,
					      1000, 10000000, 0);
	struct bloom_info full;
	__u8 buf[BT_INFO_V1_SIZE + 8];
	int fd = bt_open();

	ASSERT_LE(0, fd);
	c.size = BT_CREATE_V1_SIZE;
	ASSERT_OK(ioctl(fd, BLOOM_IOC_CREATE, &c));
	memset(&full, 0, sizeof(full));
	full.size = sizeof(full);
	set_name(full.name, "v1");
	ASSERT_OK(ioctl(fd, BLOOM_IOC_INFO, &full));
	memset(buf, 0xa5, sizeof(buf));
	memcpy(buf, &full, BT_INFO_V1_SIZE);
	memset(buf + offsetof(struct bloom_info, type), 0,
	       BT_INFO_V1_SIZE - offsetof(struct bloom_info, type));
	*(__u32 *)buf = BT_INFO_V1_SIZE;
	ASSERT_OK(ioctl(fd, BLOOM_IOC_INFO, buf));
	EXPECT_EQ(0, memcmp(buf + 8, (__u8 *)&full + 8, BT_INFO_V1_SIZE - 8));
	EXPECT_EQ(0xa5, buf[BT_INFO_V1_SIZE]);
	EXPECT_EQ(0xa5, buf[sizeof(buf) - 1]);
	c.size = BT_CREATE_V1_SIZE - 1;
	EXPECT_ERRNO(EINVAL, ioctl(fd, BLOOM_IOC_CREATE, &c));
	close(fd);
	bt_destroy_all();
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

TEST_F(ioctl, create_type_errors)
{
	const __u32 unknown[] = { 0, 5, 6, 0x100, 0xffffffff };
	size_t k;

	/* The types that exist: type.create_and_destroy, per type. */
	for (k = 0; k < sizeof(unknown) / sizeof(unknown[0]); k++) {
		EXPECT_ERRNO(EOPNOTSUPP, bt_create(self->fd, "t", unknown[k],
						   1000, 10000000, 0))
			TH_LOG("type %u", unknown[k]);
	}
	EXPECT_EQ(0, nfilters(self->fd));
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

/*
 * The filter core's self-test runs in the kernel on demand (not at every
 * load): the published SipHash vectors through the kernel's siphash().
 */
TEST_F(ioctl, core_selftest_in_kernel)
{
	char buf[64] = "";

	bt_debugfs_mount();
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

TEST_F(ioctl, info_output_zeroed)
{
	struct bloom_info info;
	int j;

	ASSERT_OK(bt_create(self->fd, "z", STD, 1000, 10000000,
			    BLOOM_CREATE_F_BIND));
	/*
	 * Garbage in every output field except reserved (input too, and
	 * refused when not zero): all must come back overwritten, the
	 * name's tail zero.
	 */
	memset(&info, 0xaa, sizeof(info));
	info.size = sizeof(info);
	info.flags = 0;
	memset(info.name, 0, sizeof(info.name));
	info.reserved = 0;
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_INFO, &info));
	EXPECT_STREQ("z", info.name);
	for (j = 1; j < BLOOM_NAME_LEN; j++) {
		EXPECT_EQ(0, info.name[j]) TH_LOG("name byte %d", j);
	}
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
	/* Nothing deleted, nothing d-left: zero. */
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
	EXPECT_EQ(0, info.delete_pinned);
	/* an empty filter's estimates */
	EXPECT_EQ(0, info.estimated_keys);
	EXPECT_EQ(0, info.estimated_fpp_ppb);
	/* not scalable */
	EXPECT_EQ(0, info.stages);
	EXPECT_EQ(0, info.growth);
	EXPECT_EQ(0, info.tightening_ppm);
	/* no firewall rule */
	EXPECT_EQ(0, info.rules);
	EXPECT_EQ(0, info.packets);
	EXPECT_EQ(0, info.packet_hits);
	EXPECT_EQ(0, info.reserved);

	/* A non-zero reserved on input is refused, and nothing written. */
	{
		struct bloom_info bad;

		memset(&bad, 0, sizeof(bad));
		bad.size = sizeof(bad);
		bad.reserved = 1ULL << 63;
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_INFO, &bad));
		EXPECT_EQ(0, bad.name[0]);
		EXPECT_EQ(0, bad.type);
		EXPECT_EQ(0, bad.bits);
	}

	/* By name, from another (unbound) descriptor: the same answer. */
	{
		struct bloom_info by_name;
		int fd2 = bt_open();

		ASSERT_LE(0, fd2);
		ASSERT_OK(bt_info(fd2, "z", &by_name));
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

/* ---------------------------------------------------------------------- */
/* What every filter type does alike: one test body per type               */
/* ---------------------------------------------------------------------- */

FIXTURE(type) {
	int fd;
	int saved_mode;
	long long saved_max_memory;
};

FIXTURE_VARIANT(type) {
	__u32 type;
	bool deletable;		/* BLOOM_IOC_DELETE works */
};

FIXTURE_VARIANT_ADD(type, standard) { .type = BLOOM_TYPE_STANDARD, };
FIXTURE_VARIANT_ADD(type, blocked) { .type = BLOOM_TYPE_BLOCKED, };
FIXTURE_VARIANT_ADD(type, counting) {
	.type = BLOOM_TYPE_COUNTING, .deletable = true,
};
FIXTURE_VARIANT_ADD(type, dleft) {
	.type = BLOOM_TYPE_DLEFT, .deletable = true,
};

FIXTURE_SETUP(type)
{
	dev_setup(_metadata, &self->fd, &self->saved_mode,
		  &self->saved_max_memory);
}

FIXTURE_TEARDOWN(type)
{
	dev_teardown(self->fd, self->saved_mode, self->saved_max_memory);
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


/*
 * Issue 10 item 7: a descriptor opened read-only never changes a filter,
 * even root's: CREATE, DESTROY, ADD and DELETE are EBADF and change
 * nothing; everything that only reads works. O_WRONLY counts as writable.
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

