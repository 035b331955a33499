// SPDX-License-Identifier: GPL-2.0
/* bloom_faults' operations: expiring filters, created and rotated. */
#define _GNU_SOURCE
#include "bloom_faults.h"

#define EXPIRE_TIMEOUT_MS	10000
#define EXPIRE_GENERATIONS	16

int run_create_expiring(struct ctx *c)
{
	struct bloom_create req = bt_create_req("a", c->type, 1000, 10000000,
						BLOOM_CREATE_F_TIMEOUT);

	req.timeout_ms = EXPIRE_TIMEOUT_MS;
	req.generations = EXPIRE_GENERATIONS;
	return create_named(c, &req);
}

/* "a", expiring, bound to c->fd, with the keys 1..64. */
void setup_expiring_a(struct ctx *c)
{
	struct bloom_batch b;

	must(run_create_expiring(c), "create expiring a");
	must(bind_new(c, "a"), "bind a");
	must(add_keys(c->fd, BLOOM_IOC_ADD, 1, 64, &b), "add to a");
}

/*
 * A rotation in this task (debugfs bloom/rotate, module/debug.c): the
 * workqueue's would run where fail-nth cannot reach it.
 */
void setup_rotate(struct ctx *c)
{
	setup_expiring_a(c);
	c->fd2 = open(BLOOM_DEBUGFS "/rotate", O_WRONLY | O_CLOEXEC);
	must(c->fd2 < 0, "open " BLOOM_DEBUGFS "/rotate");
}

int run_rotate(struct ctx *c)
{
	return write(c->fd2, "a", 1) == 1 ? 0 : -1;
}

/* the keys of the last 10 s stay; the rotation was one period's */
int works_rotate(struct ctx *c)
{
	struct bloom_info info;

	if (info_of(c->fd, NULL, &info) ||
	    info.next_rotation_ms >
	    EXPIRE_TIMEOUT_MS / (EXPIRE_GENERATIONS - 1) + 1)
		return -1;
	return keys_present(c->fd, 1, 64);
}
