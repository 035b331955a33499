// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * The batch builder: collects a stream of keys into one ioctl-sized batch,
 * so that reading a file of millions of keys costs one system call per
 * BLOOM_BATCH_MAX_KEYS keys instead of one per key.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

struct bloom_builder {
	int fd;
	unsigned long cmd;
	size_t key_size;	/* 0: variable-size keys, lengths in @lens */
	size_t nkeys;
	size_t bytes;
	int flushed;		/* the batch was sent; next push starts anew */
	uint8_t *keys;		/* BLOOM_BATCH_MAX_BYTES */
	uint32_t *lens;		/* BLOOM_BATCH_MAX_KEYS, variable keys only */
	size_t *offs;		/* where key i starts, variable keys only */
	uint32_t npinned;	/* DELETE: pinned keys of the last flush */
	size_t done;		/* keys of the last flush done, also on an error */
	int timed;		/* ADD: @timeouts holds each key's timeout */
	uint32_t timeout_s;	/* ADD: the timeout of the keys pushed next */
	uint32_t *timeouts;	/* ADD: BLOOM_BATCH_MAX_KEYS, once timed */
	uint32_t add_flags;	/* ADD: BLOOM_ADD_F_* */
	uint8_t results[BLOOM_BATCH_MAX_KEYS / 8];
	uint8_t pinned[BLOOM_BATCH_MAX_KEYS / 8];	/* DELETE */
};

int bloom_builder_new(struct bloom_builder **out, int fd, unsigned long cmd,
		      size_t key_size)
{
	struct bloom_builder *b;

	*out = NULL;
	if ((cmd != BLOOM_IOC_ADD && cmd != BLOOM_IOC_QUERY &&
	     cmd != BLOOM_IOC_DELETE) || key_size > BLOOM_KEY_MAX)
		return -EINVAL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->fd = fd;
	b->cmd = cmd;
	b->key_size = key_size;
	b->keys = malloc(BLOOM_BATCH_MAX_BYTES);
	if (!key_size) {
		b->lens = malloc(BLOOM_BATCH_MAX_KEYS * sizeof(*b->lens));
		b->offs = malloc(BLOOM_BATCH_MAX_KEYS * sizeof(*b->offs));
	}
	if (!b->keys || (!key_size && (!b->lens || !b->offs))) {
		bloom_builder_free(b);
		return -ENOMEM;
	}
	*out = b;
	return 0;
}

void bloom_builder_free(struct bloom_builder *b)
{
	if (!b)
		return;
	free(b->keys);
	free(b->lens);
	free(b->offs);
	free(b->timeouts);
	free(b);
}

int bloom_builder_timeout(struct bloom_builder *b, uint32_t timeout_s)
{
	if (b->cmd != BLOOM_IOC_ADD)
		return -EINVAL;
	if (!b->timeouts) {
		b->timeouts = calloc(BLOOM_BATCH_MAX_KEYS, sizeof(*b->timeouts));
		if (!b->timeouts)
			return -ENOMEM;
	}
	b->timed = 1;
	b->timeout_s = timeout_s;
	return 0;
}

int bloom_builder_add_flags(struct bloom_builder *b, uint32_t add_flags)
{
	if (b->cmd != BLOOM_IOC_ADD || add_flags & ~BLOOM_ADD_F_OVERFILL)
		return -EINVAL;
	b->add_flags = add_flags;
	return 0;
}

static void restart(struct bloom_builder *b)
{
	if (b->flushed) {
		b->nkeys = 0;
		b->bytes = 0;
		b->flushed = 0;
	}
}

int bloom_builder_room(const struct bloom_builder *b, size_t len)
{
	size_t nkeys = b->flushed ? 0 : b->nkeys;
	size_t bytes = b->flushed ? 0 : b->bytes;

	if (len == 0 || len > BLOOM_KEY_MAX ||
	    (b->key_size && len != b->key_size))
		return -EINVAL;
	return nkeys < BLOOM_BATCH_MAX_KEYS &&
	       bytes + len <= BLOOM_BATCH_MAX_BYTES;
}

int bloom_builder_push(struct bloom_builder *b, const void *key, size_t len)
{
	int room = bloom_builder_room(b, len);

	if (room <= 0)
		return room < 0 ? room : -ENOSPC;
	restart(b);
	if (!b->key_size) {
		b->lens[b->nkeys] = len;
		b->offs[b->nkeys] = b->bytes;
	}
	if (b->timed)
		b->timeouts[b->nkeys] = b->timeout_s;
	memcpy(b->keys + b->bytes, key, len);
	b->bytes += len;
	b->nkeys++;
	return 0;
}

long bloom_builder_flush(struct bloom_builder *b)
{
	struct bloom_batch bb;
	int err;

	b->npinned = 0;
	b->done = b->flushed ? b->nkeys : 0;
	if (b->flushed || b->nkeys == 0) {
		/* Nothing new: an empty batch has no results to show. */
		if (!b->flushed)
			b->flushed = 1;
		return 0;
	}
	/* past the overfill bound: none sent, the keys stay pending */
	if (b->cmd == BLOOM_IOC_ADD && !(b->add_flags & BLOOM_ADD_F_OVERFILL)) {
		err = lb_overfill_check(b->fd, b->nkeys);
		if (err)
			return err;
	}
	memset(&bb, 0, sizeof(bb));
	bb.nkeys = b->nkeys;
	bb.key_size = b->key_size;
	bb.keys = (uintptr_t)b->keys;
	bb.lens = (uintptr_t)b->lens;
	bb.keys_len = b->bytes;
	bb.results = (uintptr_t)b->results;
	if (b->cmd == BLOOM_IOC_DELETE)
		bb.pinned = (uintptr_t)b->pinned;
	if (b->timed) {
		bb.flags |= BLOOM_BATCH_F_TIMEOUT;
		bb.timeouts = (uintptr_t)b->timeouts;
	}
	err = lb_batch_ioctl(b->fd, b->cmd, &bb);
	if (err) {
		/* a full filter keeps the keys before the first misfit */
		b->done = bb.out_done <= b->nkeys ? bb.out_done : 0;
		return err;
	}
	b->done = b->nkeys;
	b->npinned = bb.out_pinned;
	b->flushed = 1;
	return bb.out_hits;
}

size_t bloom_builder_done(const struct bloom_builder *b)
{
	return b->done;
}

size_t bloom_builder_count(const struct bloom_builder *b)
{
	return b->nkeys;
}

int bloom_builder_result(const struct bloom_builder *b, size_t i)
{
	return bloom_result(b->results, i);
}

int bloom_builder_pinned(const struct bloom_builder *b, size_t i)
{
	return b->cmd == BLOOM_IOC_DELETE && bloom_result(b->pinned, i);
}

size_t bloom_builder_npinned(const struct bloom_builder *b)
{
	return b->npinned;
}

void bloom_builder_key(const struct bloom_builder *b, size_t i,
		       const void **key, size_t *len)
{
	if (b->key_size) {
		*key = b->keys + i * b->key_size;
		*len = b->key_size;
	} else {
		*key = b->keys + b->offs[i];
		*len = b->lens[i];
	}
}
