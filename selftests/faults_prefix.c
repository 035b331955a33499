// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_faults' operations: a filter with its own netblock lengths (prefix
 * expansion). "a" stores IPv4 netblocks at /19, /24 and /29 only; the
 * operation adds 10.2.0.0/21 as the eight /24s it is stored as, and a
 * success leaves every address of the block present.
 */
#define _GNU_SOURCE
#include "bloom_faults.h"

#define PREFIX_BLOCKS	8	/* 10.2.0.0/21 at /24 */

static __u8 prefix_res[PREFIX_BLOCKS / 8 + 1];

/* "a", counting, of kind ipv4 with lengths 19 24 29, bound to c->fd. */
void setup_prefix_a(struct ctx *c)
{
	struct bloom_create req = bt_create_req("a", c->type, 1000, 10000000,
						BLOOM_CREATE_F_PREFIXES);

	req.keys = BLOOM_KEYS_IPV4;
	req.prefix_lengths4 = 1U << 19 | 1U << 24 | 1U << 29;
	must(ioctl(c->fd, BLOOM_IOC_CREATE, &req), "create a with lengths");
	must(bind_new(c, "a"), "bind a");
}

int run_add_expanded(struct ctx *c)
{
	__u8 keys[PREFIX_BLOCKS * 5];
	__u32 i;

	for (i = 0; i < PREFIX_BLOCKS; i++) {
		__u8 *k = keys + 5 * i;

		k[0] = 10;
		k[1] = 2;
		k[2] = (__u8)i;
		k[3] = 0;
		k[4] = 24;
	}
	return bt_batch(c->fd, BLOOM_IOC_ADD, keys, sizeof(keys),
			PREFIX_BLOCKS, 5, NULL, prefix_res, NULL);
}

/* Every address of 10.2.0.0/21 tests present: 2048 addresses. */
int works_add_expanded(struct ctx *c)
{
	static __u8 addrs[2048 * 4];
	static __u8 res[2048 / 8];
	struct bloom_batch b;
	__u32 i;

	for (i = 0; i < 2048; i++) {
		addrs[4 * i] = 10;
		addrs[4 * i + 1] = 2;
		addrs[4 * i + 2] = (__u8)(i / 256);
		addrs[4 * i + 3] = (__u8)(i % 256);
	}
	if (bt_batch(c->fd, BLOOM_IOC_QUERY, addrs, sizeof(addrs), 2048, 4,
		     NULL, res, &b))
		return -1;
	return b.out_hits == 2048 ? 0 : -1;
}
