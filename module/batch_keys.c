// SPDX-License-Identifier: GPL-2.0
/*
 * Pass one of a batch (batch_keys.h): the user's keys copied in, a chunk
 * at a time, every length checked, every key read as an address or
 * netblock when the batch is of them (store_addr.c) and hashed. The kernel
 * never holds more than the hashes (8 bytes a key) and one chunk of keys.
 */
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "alloc.h"
#include "batch_keys.h"

#define BLOOM_LENS_CHUNK	64

/* Makes the next @len bytes of keys available at k->buf + k->pos. */
static int bloom_keys_fill(struct bloom_keys *k, u32 len)
{
	u32 room, want;

	if (k->have - k->pos >= len)
		return 0;
	if (len > k->keys_len - k->copied + (k->have - k->pos))
		return -EINVAL;	/* the lengths add up to more than keys_len */
	memmove(k->buf, k->buf + k->pos, k->have - k->pos);
	k->have -= k->pos;
	k->pos = 0;
	room = k->size - k->have;
	want = min_t(u64, room, k->keys_len - k->copied);
	if (copy_from_user(k->buf + k->have, k->ukeys + k->copied, want))
		return -EFAULT;
	k->copied += want;
	k->have += want;
	return 0;
}

/* Key @i, of @len bytes at @key, read (netblocks) and hashed into @hash. */
static int bloom_key_one(struct bloom_keys *k, const u8 *key, u32 len, u32 i,
			 u64 *hash)
{
	int ret;

	if (k->addrs->on) {
		ret = bloom_addrs_read(k->addrs, key, len, i, i);
		if (ret)
			return ret;
	}
	if (!k->key)
		*hash = len;	/* hashed later: bloom_query_small() */
	else
		*hash = k->addrs->query ? 0 : bloom_hash(k->key, key, len);
	return 0;
}

static int bloom_hash_one(struct bloom_keys *k, u32 len, u32 i, u64 *hash)
{
	int ret;

	if (len < 1 || len > BLOOM_KEY_MAX)
		return -EINVAL;
	ret = bloom_keys_fill(k, len);
	if (ret)
		return ret;
	ret = bloom_key_one(k, k->buf + k->pos, len, i, hash);
	k->pos += len;
	return ret;
}

/*
 * bloom_batch_read() of keys of one size (bloom_batch_check() checked it
 * and keys_len): as many whole keys a copy as @k's buffer holds.
 */
static int bloom_batch_read_fixed(struct bloom_keys *k,
				  const struct bloom_batch *b, u64 *hashes)
{
	u32 size = b->key_size, per = k->size / size;
	u32 i, j, n;
	int ret;

	for (i = 0; i < b->nkeys; i += n) {
		n = min(b->nkeys - i, per);
		if (copy_from_user(k->buf, k->ukeys + (u64)i * size, n * size))
			return -EFAULT;
		for (j = 0; j < n; j++) {
			ret = bloom_key_one(k, k->buf + j * size, size, i + j,
					    &hashes[i + j]);
			if (ret)
				return ret;
		}
		if (b->nkeys > per)
			cond_resched();
	}
	return 0;
}

int bloom_batch_read(struct bloom_keys *k, const struct bloom_batch *b,
		     u64 *hashes)
{
	u32 lens[BLOOM_LENS_CHUNK] __uninitialized;	/* copied in first */
	u32 i, j, n;
	int ret = 0;

	k->ukeys = u64_to_user_ptr(b->keys);
	k->ulens = u64_to_user_ptr(b->lens);
	k->keys_len = b->keys_len;
	if (b->key_size)
		return bloom_batch_read_fixed(k, b, hashes);
	for (i = 0; i < b->nkeys && !ret; i += n) {
		n = min_t(u32, b->nkeys - i, BLOOM_LENS_CHUNK);
		if (copy_from_user(lens, k->ulens + i, n * sizeof(*lens)))
			return -EFAULT;
		for (j = 0; j < n && !ret; j++)
			ret = bloom_hash_one(k, lens[j], i + j, &hashes[i + j]);
		/* A full batch is 4 MiB of hashing: let others run. */
		if (b->nkeys > BLOOM_LENS_CHUNK)
			cond_resched();
	}
	/* Every byte of keys_len must belong to a key. */
	if (!ret && (k->copied != k->keys_len || k->pos != k->have))
		ret = -EINVAL;
	return ret;
}

int bloom_batch_hash(const bloom_hash_key_t *key, struct bloom_addrs *addrs,
		     const struct bloom_batch *b, u64 *hashes)
{
	struct bloom_keys k = { .key = key, .addrs = addrs };
	u8 small[BLOOM_SMALL_BYTES] __uninitialized;	/* copied in first */
	int ret;

	if (b->keys_len <= sizeof(small)) {
		k.buf = small;
		k.size = sizeof(small);
	} else {
		k.size = min_t(u64, BLOOM_CHUNK_BYTES, b->keys_len);
		/* not zeroed: only what was copied in is read */
		k.buf = bloom_kvmalloc(k.size, GFP_KERNEL_ACCOUNT);
		if (!k.buf)
			return -ENOMEM;
	}
	ret = bloom_batch_read(&k, b, hashes);
	if (k.buf != small)
		bloom_kvfree(k.buf);
	return ret;
}
