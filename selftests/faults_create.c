// SPDX-License-Identifier: GPL-2.0
/* bloom_faults' operations: create, every way; open; bind. */
#define _GNU_SOURCE
#include "bloom_faults.h"

int run_create_plain(struct ctx *c)
{
	struct bloom_create req = bt_create_req("a", c->type, 1000, 10000000,
						0);

	return create_named(c, &req);
}

int run_create_hashkey(struct ctx *c)
{
	struct bloom_create req = bt_create_req("a", c->type, 1000, 10000000,
						BLOOM_CREATE_F_HASH_KEY);

	memset(req.hash_key, 0x5a, sizeof(req.hash_key));
	return create_named(c, &req);
}

int run_create_sized(struct ctx *c)
{
	struct bloom_create req = bt_create_req("a", c->type, 0, 10000000,
						BLOOM_CREATE_F_SIZE);

	req.memory_bytes = 64 << 10;
	return create_named(c, &req);
}

int run_create_geometry(struct ctx *c)
{
	struct bloom_create req = bt_create_req("a", c->type, 1000, 10000000,
						BLOOM_CREATE_F_GEOMETRY);

	req.bits = 16384;
	req.hashes = 5;
	return create_named(c, &req);
}

int run_create_scalable(struct ctx *c)
{
	struct bloom_create req = bt_create_req("a", c->type, 100, 10000000,
						BLOOM_CREATE_F_SCALABLE);

	return create_named(c, &req);
}

int run_create_like(struct ctx *c)
{
	struct bloom_create req = bt_create_req("a", 0, 0, 0,
						BLOOM_CREATE_F_LIKE);

	set_name(req.like, "src");
	return create_named(c, &req);
}

int run_create_bind(struct ctx *c)
{
	struct bloom_create req = bt_create_req("a", c->type, 1000, 10000000,
						BLOOM_CREATE_F_BIND);

	return ioctl(c->fd2, BLOOM_IOC_CREATE, &req);
}

int run_open(struct ctx *c)
{
	c->fd2 = open(BLOOM_DEV, O_RDWR | O_CLOEXEC);
	return c->fd2 < 0 ? -1 : 0;
}

int works_open(struct ctx *c)
{
	struct bloom_version v;

	return bt_version(c->fd2, &v);
}

int run_bind(struct ctx *c)
{
	return bt_bind(c->fd2, "a");
}

int works_bind(struct ctx *c)
{
	return keys_present(c->fd2, 1, 64);
}

/* batches on the filter "a" bound to c->fd */
