// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * The batch ioctls themselves: one struct bloom_batch sent, and one key
 * sent as a batch of one. batch.c cuts callers' batches into them, map.c
 * falls back to them when a mapping cannot answer.
 */
#include <string.h>
#include "internal.h"

int lb_batch_ioctl(int fd, unsigned long cmd, struct bloom_batch *b)
{
	b->size = sizeof(*b);
	b->flags |= b->pinned ? BLOOM_BATCH_F_PINNED : 0;
	return bloom_ioctl(fd, cmd, b);
}

/*
 * A single key is a batch of one fixed-size key: no length array needed.
 * DELETE tells a pinned key by out_pinned.
 */
int lb_one_key(int fd, unsigned long cmd, const void *key, size_t len)
{
	struct bloom_batch b;
	int err;

	if (len == 0 || len > BLOOM_KEY_MAX)
		return -EINVAL;
	memset(&b, 0, sizeof(b));
	b.nkeys = 1;
	b.key_size = len;
	b.keys = (uintptr_t)key;
	b.keys_len = len;
	err = lb_batch_ioctl(fd, cmd, &b);
	if (err)
		return err;
	if (cmd == BLOOM_IOC_DELETE && b.out_pinned)
		return BLOOM_DELETE_PINNED;
	return b.out_hits != 0;
}
