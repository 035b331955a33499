// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_faults' operations: what they share (keys in and out, binding, the
 * filters they start from), and their table, in the order they run.
 */
#define _GNU_SOURCE
#include "bloom_faults.h"

__u8 keybuf[NKEYS_LARGE * 16];
static __u8 resbuf[NKEYS_LARGE / 8 + 1];

int add_keys(int fd, unsigned long cmd, __u64 first, __u32 n,
	     struct bloom_batch *b)
{
	__u32 i;

	for (i = 0; i < n; i++)
		make_key16(first + i, keybuf + 16 * i);
	return bt_batch(fd, cmd, keybuf, (__u64)n * 16, n, 16, NULL, resbuf,
			b);
}

/* 0 when every key [first, first + n) tests present in the bound filter. */
int keys_present(int fd, __u64 first, __u32 n)
{
	struct bloom_batch b;

	if (add_keys(fd, BLOOM_IOC_QUERY, first, n, &b))
		return -1;
	return b.out_hits == n ? 0 : -1;
}

int info_of(int fd, const char *name, struct bloom_info *info)
{
	return bt_info(fd, name, info);
}

void must(int ret, const char *what)
{
	if (ret)
		faults_bail("setup: %s: %s\n", what, strerror(errno));
}

int bind_new(struct ctx *c, const char *name)
{
	close(c->fd);
	c->fd = bt_open();
	return c->fd < 0 ? -1 : bt_bind(c->fd, name);
}

/* create, every way */

int create_named(struct ctx *c, struct bloom_create *req)
{
	return ioctl(c->fd, BLOOM_IOC_CREATE, req);
}

static int works_a(struct ctx *c)
{
	struct bloom_batch b;

	if (bind_new(c, "a") || add_keys(c->fd, BLOOM_IOC_ADD, 1, 64, &b))
		return -1;
	return keys_present(c->fd, 1, 64);
}

/* A filter of c->type named @name, bound to c->fd, with 64 keys from @first. */
static void setup_filled(struct ctx *c, const char *name, __u64 first)
{
	struct bloom_batch b;

	must(bt_create(c->fd, name, c->type, 1000, 10000000, 0), "create");
	must(bind_new(c, name), "bind");
	must(add_keys(c->fd, BLOOM_IOC_ADD, first, 64, &b), "add");
}

void setup_src(struct ctx *c)
{
	setup_filled(c, "src", 1000);
}

static void setup_fresh_fd(struct ctx *c)
{
	c->fd2 = bt_open();
	must(c->fd2 < 0, "open");
}

int works_bound_fd2(struct ctx *c)
{
	struct bloom_batch b;

	if (add_keys(c->fd2, BLOOM_IOC_ADD, 1, 64, &b))
		return -1;
	return keys_present(c->fd2, 1, 64);
}

/* open, bind */

void setup_a(struct ctx *c)
{
	setup_filled(c, "a", 1);
}

static void setup_a_fd2(struct ctx *c)
{
	setup_a(c);
	setup_fresh_fd(c);
}

#define CREATE_OP(_name, _run, _type)					\
	{ .name = _name, .run = _run, .works = works_a, .type = _type }

const struct op_entry ops[] = {
	{ "open", NULL, run_open, works_open, 0, 0 },
	CREATE_OP("create standard", run_create_plain, BLOOM_TYPE_STANDARD),
	CREATE_OP("create blocked", run_create_plain, BLOOM_TYPE_BLOCKED),
	CREATE_OP("create counting", run_create_plain, BLOOM_TYPE_COUNTING),
	CREATE_OP("create dleft", run_create_plain, BLOOM_TYPE_DLEFT),
	CREATE_OP("create with hash key", run_create_hashkey,
		  BLOOM_TYPE_STANDARD),
	CREATE_OP("create sized (memory, rate)", run_create_sized,
		  BLOOM_TYPE_BLOCKED),
	CREATE_OP("create geometry standard", run_create_geometry,
		  BLOOM_TYPE_STANDARD),
	CREATE_OP("create geometry counting", run_create_geometry,
		  BLOOM_TYPE_COUNTING),
	CREATE_OP("create scalable standard", run_create_scalable,
		  BLOOM_TYPE_STANDARD),
	CREATE_OP("create scalable blocked", run_create_scalable,
		  BLOOM_TYPE_BLOCKED),
	CREATE_OP("create expiring standard", run_create_expiring,
		  BLOOM_TYPE_STANDARD),
	CREATE_OP("create expiring blocked", run_create_expiring,
		  BLOOM_TYPE_BLOCKED),
	{ "create like", setup_src, run_create_like, works_a,
	  BLOOM_TYPE_COUNTING, 0 },
	{ "create bind", setup_fresh_fd, run_create_bind, works_bound_fd2,
	  BLOOM_TYPE_DLEFT, 0 },
	{ "bind", setup_a_fd2, run_bind, works_bind, BLOOM_TYPE_STANDARD, 0 },
	{ "add small batch standard", setup_a, run_add_small, works_add_small,
	  BLOOM_TYPE_STANDARD, OP_A_CHANGES_EFAULT },
	{ "add small batch dleft", setup_a, run_add_small, works_add_small,
	  BLOOM_TYPE_DLEFT, OP_A_CHANGES_EFAULT },
	{ "add large batch blocked", setup_a, run_add_large, works_add_large,
	  BLOOM_TYPE_BLOCKED, OP_A_CHANGES_EFAULT },
	{ "add large batch counting", setup_a, run_add_large, works_add_large,
	  BLOOM_TYPE_COUNTING, OP_A_CHANGES_EFAULT },
	{ "query batch", setup_a, run_query, works_query,
	  BLOOM_TYPE_STANDARD, 0 },
	{ "delete batch counting", setup_a, run_delete, works_delete,
	  BLOOM_TYPE_COUNTING, OP_A_CHANGES_EFAULT },
	{ "add netblocks expanded", setup_prefix_a, run_add_expanded,
	  works_add_expanded, BLOOM_TYPE_COUNTING, OP_A_CHANGES_EFAULT },
	{ "scalable growth", setup_scalable_full, run_grow, works_grow,
	  BLOOM_TYPE_STANDARD, OP_A_CHANGES | OP_A_MEMORY_EFAULT },
	{ "save counting", setup_a, run_save, works_query,
	  BLOOM_TYPE_COUNTING, 0 },
	{ "save scalable", setup_scalable_grown, run_save, works_query,
	  BLOOM_TYPE_STANDARD, 0 },
	{ "restore plain", NULL, run_restore_plain, works_restored, 0, 0 },
	{ "restore scalable", NULL, run_restore_scalable, works_restored, 0, 0 },
	{ "restore replace", setup_counting_empty, run_restore_replace,
	  works_replaced, 0, 0 },
	{ "merge", setup_pair, run_merge, works_merge, BLOOM_TYPE_COUNTING, 0 },
	{ "swap", setup_pair, run_swap, works_swap, BLOOM_TYPE_COUNTING, 0 },
	{ "flush", setup_a, run_flush, works_flush, BLOOM_TYPE_COUNTING, 0 },
	{ "destroy", setup_a, run_destroy, works_destroy, BLOOM_TYPE_BLOCKED,
	  0 },
	{ "list", setup_a, run_list, NULL, BLOOM_TYPE_STANDARD, 0 },
	{ "info", setup_a, run_info, NULL, BLOOM_TYPE_DLEFT, 0 },
	{ "stages", setup_scalable_grown, run_stages, NULL, BLOOM_TYPE_STANDARD,
	  0 },
	{ "map standard", setup_map, run_map, works_map, BLOOM_TYPE_STANDARD,
	  0 },
	{ "map blocked, destroy, unmap", setup_map, run_map,
	  works_map_destroyed, BLOOM_TYPE_BLOCKED, 0 },
	{ "save expiring", setup_expiring_a, run_save, works_query,
	  BLOOM_TYPE_BLOCKED, 0 },
	{ "expiring rotation", setup_rotate, run_rotate, works_rotate,
	  BLOOM_TYPE_STANDARD, 0 },
	CREATE_OP("create timed", run_create_timed, BLOOM_TYPE_TIMED),
	{ "add small batch timed, a timeout per key", setup_timed_a,
	  run_add_timed_small, works_add_small, BLOOM_TYPE_TIMED,
	  OP_A_CHANGES_EFAULT },
	{ "add large batch timed, a timeout per key", setup_timed_a,
	  run_add_timed_large, works_add_large, BLOOM_TYPE_TIMED,
	  OP_A_CHANGES_EFAULT },
	{ "delete batch timed", setup_timed_a, run_delete, works_delete,
	  BLOOM_TYPE_TIMED, OP_A_CHANGES_EFAULT },
	{ "save timed", setup_timed_a, run_save, works_query, BLOOM_TYPE_TIMED,
	  0 },
	{ "restore timed", setup_snapshot_timed, run_restore_timed,
	  works_restored_timed, BLOOM_TYPE_TIMED, 0 },
	{ "xdp hold, released by the map's free", setup_xdp_hold,
	  run_xdp_hold, works_xdp_hold, BLOOM_TYPE_BLOCKED,
	  OP_A_CHANGES_EFAULT | OP_XDP },
	{ "create growing the id table", setup_id_table, run_create_plain,
	  works_a, BLOOM_TYPE_STANDARD, OP_NETNS_ONLY },
	{ "insert rule", setup_rule, run_rule, works_rule, BLOOM_TYPE_STANDARD,
	  OP_NETNS_ONLY },
	{ "unshare and create", setup_netns, run_netns, works_netns,
	  BLOOM_TYPE_BLOCKED, OP_LAST },
};

const unsigned int nops = ARRAY_SIZE(ops);
