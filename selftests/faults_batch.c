// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_faults' operations: batches (ADD, QUERY, DELETE) on the filter "a"
 * bound to c->fd, and a scalable filter's growth.
 */
#define _GNU_SOURCE
#include "bloom_faults.h"

int run_add_small(struct ctx *c)
{
	return add_keys(c->fd, BLOOM_IOC_ADD, c->key_base, NKEYS_SMALL, NULL);
}

int works_add_small(struct ctx *c)
{
	return keys_present(c->fd, c->key_base, NKEYS_SMALL) ?:
	       keys_present(c->fd, 1, 64);
}

int run_add_large(struct ctx *c)
{
	return add_keys(c->fd, BLOOM_IOC_ADD, c->key_base, NKEYS_LARGE, NULL);
}

int works_add_large(struct ctx *c)
{
	return keys_present(c->fd, c->key_base, NKEYS_LARGE) ?:
	       keys_present(c->fd, 1, 64);
}

int run_query(struct ctx *c)
{
	struct bloom_batch b;
	int ret = add_keys(c->fd, BLOOM_IOC_QUERY, 1, 64, &b);

	/* the reply's hits are checked by works: a query changes nothing */
	return ret;
}

int works_query(struct ctx *c)
{
	return keys_present(c->fd, 1, 64);
}

int run_delete(struct ctx *c)
{
	return add_keys(c->fd, BLOOM_IOC_DELETE, 1, 32, NULL);
}

int works_delete(struct ctx *c)
{
	/* the 32 others stay */
	return keys_present(c->fd, 33, 32);
}

/* expiring filters: 16 generations of 10 s / 15 each */

/* "a", scalable from 100 keys, bound to c->fd, with the keys 1..64. */
static void setup_scalable_a(struct ctx *c)
{
	struct bloom_create req = bt_create_req("a", c->type, 100, 10000000,
						BLOOM_CREATE_F_SCALABLE);
	struct bloom_batch b;

	must(ioctl(c->fd, BLOOM_IOC_CREATE, &req), "create scalable a");
	must(bind_new(c, "a"), "bind a");
	must(add_keys(c->fd, BLOOM_IOC_ADD, 1, 64, &b), "add to a");
}

void setup_scalable_full(struct ctx *c)
{
	struct bloom_batch b;

	setup_scalable_a(c);
	/* stage 0 filled to its capacity exactly: false positives do not count */
	c->key_base = 1000000;
	while (info_of(c->fd, NULL, &c->info) == 0 && c->info.stages == 1) {
		struct bloom_stages s;
		struct bloom_stage st[1];

		memset(&s, 0, sizeof(s));
		s.size = sizeof(s);
		s.capacity = 1;
		s.stages = u64_ptr(st);
		must(ioctl(c->fd, BLOOM_IOC_STAGES, &s), "stages");
		if (st[0].count >= st[0].capacity)
			break;
		must(add_keys(c->fd, BLOOM_IOC_ADD, c->key_base++, 1, &b),
		     "fill a");
	}
}

int run_grow(struct ctx *c)
{
	return add_keys(c->fd, BLOOM_IOC_ADD, c->key_base, NKEYS_SMALL, NULL);
}

int works_grow(struct ctx *c)
{
	struct bloom_info info;

	if (info_of(c->fd, NULL, &info) || info.stages != 2)
		return -1;
	return works_add_small(c);
}

/* two filters */

/* "a" grown to 3 stages. */
void setup_scalable_grown(struct ctx *c)
{
	struct bloom_batch b;

	setup_scalable_a(c);
	must(add_keys(c->fd, BLOOM_IOC_ADD, 100000, 400, &b), "grow a");
}

/* snapshots */
