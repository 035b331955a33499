// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_ioctl_abi: the ABI of every /dev/bloom command as uapi/linux/bloom.h
 * specifies it, with the exact errno: the structs' sizes, VERSION, the
 * calling convention of every command, driven by one table
 * (every_command_table), ABI version 1's smaller structs, unknown commands,
 * and INFO's output.
 *
 * The bloom_ioctl_* programs test /dev/bloom's commands themselves, by
 * subject: the ABI (bloom_ioctl_abi); names, the list and a filter's
 * lifetime (bloom_ioctl_names); the filter types (bloom_ioctl_types);
 * permissions and limits (bloom_ioctl_perms). Keys and batches are covered
 * in bloom_batch, deleting in bloom_delete, snapshots in bloom_snapshot.
 */
#define _GNU_SOURCE
#include <stddef.h>

#include "bloom_test.h"

BT_IOCTL_FIXTURE()

/*
 * Room for every struct plus a zero or non-zero tail, up to a size past
 * BT_ARG_SIZE_MAX; page aligned.
 */
static __u8 argbuf[2 * 4096] __attribute__((aligned(4096)));

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
	EXPECT_TRUE(v.types & (1U << BLOOM_TYPE_TIMED));
	/* Only the types this header defines can be implemented. */
	EXPECT_EQ(0, v.types & ~0x3eU);
	EXPECT_EQ(BLOOM_CREATE_F_ALL, v.create_flags);
	EXPECT_EQ(BLOOM_BATCH_F_ALL, v.batch_flags);
	EXPECT_EQ(BLOOM_FEATURE_ALL, v.features);
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
	      KERNEL_PTR, EINVAL),					\
	FIELD("timeout_s without the flag", bloom_batch, timeout_s,	\
	      60, EINVAL),						\
	FIELD("timeouts without the flag", bloom_batch, timeouts,	\
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
		FIELD("type 6", bloom_create, type, 6, EOPNOTSUPP),
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
	{ CMD(ADD, bloom_batch, BLOOM_BATCH_F_NET | BLOOM_BATCH_F_TIMEOUT,
	      .bind = STD, .v1_len = BT_BATCH_V1_SIZE,
	      .writes = true, .req = req_add, .check = check_add),
	  .bad = { BATCH_CASES } },
	{ CMD(QUERY, bloom_batch, BLOOM_BATCH_F_NET, .bind = STD,
	      .v1_len = BT_BATCH_V1_SIZE,
	      .req = req_batch, .check = check_query),
	  .bad = { BATCH_CASES } },
	{ CMD(DELETE, bloom_batch, BLOOM_BATCH_F_ALL,
	      .bind = CNT, .v1_len = BT_BATCH_V1_SIZE, .writes = true,
	      .req = req_batch,
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

TEST_F(ioctl, info_output_zeroed)
{
	struct bloom_info info;
	int j;

	ASSERT_OK(bt_create(self->fd, "z", STD, 1000, 10000000,
			    BLOOM_CREATE_F_BIND));
	/*
	 * Garbage in every output field except the reserved ones (input
	 * too, and refused when not zero): all must come back overwritten,
	 * the name's tail zero.
	 */
	memset(&info, 0xaa, sizeof(info));
	info.size = sizeof(info);
	info.flags = 0;
	memset(info.name, 0, sizeof(info.name));
	info.reserved = 0;
	info.hash = 0;
	info.reserved2 = 0;
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
	/* not timed */
	EXPECT_EQ(0, info.key_timeout_s);
	EXPECT_EQ(0, info.key_timeout_max_s);
	EXPECT_EQ(0, info.tag_bits);
	/* created without BLOOM_CREATE_F_HASH: SipHash-1-3 */
	EXPECT_EQ(BLOOM_HASH_SIPHASH_1_3, info.hash);
	EXPECT_EQ(0, info.expired);
	/* no prefix lengths: any length */
	EXPECT_EQ(0, info.prefix_lengths4);
	EXPECT_EQ(0, info.reserved2);
	EXPECT_EQ(0, info.prefix_lengths6[0]);
	EXPECT_EQ(0, info.prefix_lengths6[1]);

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
		bad.reserved = 0;
		bad.hash = 1;
		EXPECT_ERRNO(EINVAL, ioctl(self->fd, BLOOM_IOC_INFO, &bad));
		EXPECT_EQ(0, bad.type);
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

BT_LEAK_CHECK_TEST()

TEST_HARNESS_MAIN
