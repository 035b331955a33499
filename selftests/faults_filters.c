// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_faults' operations on filters by name: two filters (MERGE, SWAP),
 * FLUSH, DESTROY, and the replies that allocate or copy (LIST, INFO,
 * STAGES).
 */
#define _GNU_SOURCE
#include "bloom_faults.h"

void setup_pair(struct ctx *c)
{
	struct bloom_create like = bt_create_req("b", 0, 0, 0,
						 BLOOM_CREATE_F_LIKE);
	struct bloom_batch b;

	setup_a(c);
	set_name(like.like, "a");
	must(ioctl(c->fd, BLOOM_IOC_CREATE, &like), "create b like a");
	c->fd2 = bt_open();
	must(c->fd2 < 0 || bt_bind(c->fd2, "b"), "bind b");
	must(add_keys(c->fd2, BLOOM_IOC_ADD, 5000, 64, &b), "add to b");
}

static int pair_ioctl(struct ctx *c, unsigned long cmd)
{
	struct bloom_pair p;

	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	set_name(p.name, "a");
	set_name(p.other, "b");
	return ioctl(c->fd, cmd, &p);
}

int run_merge(struct ctx *c)
{
	return pair_ioctl(c, BLOOM_IOC_MERGE);
}

int works_merge(struct ctx *c)
{
	return keys_present(c->fd, 1, 64) ?: keys_present(c->fd, 5000, 64);
}

int run_swap(struct ctx *c)
{
	return pair_ioctl(c, BLOOM_IOC_SWAP);
}

int works_swap(struct ctx *c)
{
	/* each descriptor stays with its name: a has b's keys now */
	return keys_present(c->fd, 5000, 64) ?: keys_present(c->fd2, 1, 64);
}

int run_flush(struct ctx *c)
{
	return bt_name_ioctl(c->fd, BLOOM_IOC_FLUSH, "a");
}

int works_flush(struct ctx *c)
{
	struct bloom_info info;

	if (info_of(c->fd, NULL, &info) || info.bits_set || info.count)
		return -1;
	return 0;
}

int run_destroy(struct ctx *c)
{
	return bt_destroy(c->fd, "a");
}

int works_destroy(struct ctx *c)
{
	struct bloom_info info;

	return bt_info(c->fd, "a", &info) == -1 && errno == ENOENT ? 0 : -1;
}

/* replies that allocate or copy */

int run_list(struct ctx *c)
{
	char names[4][BLOOM_NAME_LEN];
	struct bloom_list l;

	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	l.capacity = 4;
	l.names = u64_ptr(names);
	if (ioctl(c->fd, BLOOM_IOC_LIST, &l))
		return -1;
	return l.out_count == 1 && !strcmp(names[0], "a") ? 0 : -2;
}

int run_info(struct ctx *c)
{
	struct bloom_info info;

	return bt_info(c->fd, "a", &info);
}

int run_stages(struct ctx *c)
{
	struct bloom_stage st[BLOOM_SCALE_STAGES_MAX];
	struct bloom_stages s;

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.capacity = BLOOM_SCALE_STAGES_MAX;
	s.stages = u64_ptr(st);
	return ioctl(c->fd, BLOOM_IOC_STAGES, &s);
}
