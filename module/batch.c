// SPDX-License-Identifier: GPL-2.0
/*
 * ADD, QUERY and DELETE batches.
 *
 * A batch runs in two passes. The first copies the keys in, a chunk at a
 * time, checks every length and hashes every key; the second applies the
 * hashes to the filter. Any error of the first pass (a bad length, a bad
 * pointer) therefore leaves the filter exactly as it was, while the kernel
 * never holds more than the hashes (8 bytes a key) and one chunk of keys.
 *
 * Writers of counting and d-left filters take the filter's write_lock for
 * the second pass only: hashing, the expensive part, runs unlocked.
 */
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "alloc.h"
#include "batch.h"
#include "filter.h"

#define BLOOM_CHUNK_BYTES	(64 * 1024)	/* holds 16 keys of the longest size */
#define BLOOM_LENS_CHUNK	64
/*
 * Small batches (a daemon asking about one address) work on the stack: two
 * allocations would cost as much as the rest of the call.
 */
#define BLOOM_SMALL_KEYS	16
#define BLOOM_SMALL_BYTES	256

struct bloom_keys {
	const struct bloom_core *core;
	const u8 __user *ukeys;
	const u32 __user *ulens;
	u64 keys_len;
	u64 copied;	/* bytes of the user's keys copied so far */
	u8 *buf;
	u32 size;	/* of buf: all the keys, or at least one longest key */
	u32 have;	/* bytes in buf */
	u32 pos;	/* offset of the next key in buf */
};

static int bloom_batch_check(const struct bloom_batch *b)
{
	if (b->flags & ~BLOOM_BATCH_F_ALL)
		return -EINVAL;
	if (b->nkeys > BLOOM_BATCH_MAX_KEYS || b->keys_len > BLOOM_BATCH_MAX_BYTES)
		return -E2BIG;
	if (b->key_size) {
		if (b->key_size > BLOOM_KEY_MAX || b->lens)
			return -EINVAL;
		if ((u64)b->key_size * b->nkeys != b->keys_len)
			return -EINVAL;
	}
	if (!b->nkeys && b->keys_len)
		return -EINVAL;
	return 0;
}

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

static int bloom_hash_one(struct bloom_keys *k, u32 len, u64 *hash)
{
	int ret;

	if (len < 1 || len > BLOOM_KEY_MAX)
		return -EINVAL;
	ret = bloom_keys_fill(k, len);
	if (ret)
		return ret;
	*hash = bloom_core_hash(k->core, k->buf + k->pos, len);
	k->pos += len;
	return 0;
}

/* Pass one: copies, checks and hashes every key of the batch. */
static int bloom_batch_hash(const struct bloom_filter *f,
			    const struct bloom_batch *b, u64 *hashes)
{
	struct bloom_keys k = {
		.core = &f->core,
		.ukeys = u64_to_user_ptr(b->keys),
		.ulens = u64_to_user_ptr(b->lens),
		.keys_len = b->keys_len,
	};
	u8 small[BLOOM_SMALL_BYTES];
	u32 lens[BLOOM_LENS_CHUNK];
	u32 i, j, n;
	int ret = 0;

	if (b->keys_len <= sizeof(small)) {
		k.buf = small;
		k.size = sizeof(small);
	} else {
		k.size = min_t(u64, BLOOM_CHUNK_BYTES, b->keys_len);
		k.buf = bloom_kvzalloc(k.size, GFP_KERNEL);
		if (!k.buf)
			return -ENOMEM;
	}

	for (i = 0; i < b->nkeys && !ret; i += n) {
		n = min_t(u32, b->nkeys - i, BLOOM_LENS_CHUNK);
		if (!b->key_size &&
		    copy_from_user(lens, k.ulens + i, n * sizeof(*lens))) {
			ret = -EFAULT;
			break;
		}
		for (j = 0; j < n && !ret; j++)
			ret = bloom_hash_one(&k, b->key_size ?: lens[j],
					     &hashes[i + j]);
		/* A full batch is 4 MiB of hashing: let others run. */
		cond_resched();
	}
	/* Every byte of keys_len must belong to a key. */
	if (!ret && (k.copied != k.keys_len || k.pos != k.have))
		ret = -EINVAL;
	if (k.buf != small)
		bloom_kvfree(k.buf);
	return ret;
}

enum bloom_batch_op {
	BLOOM_BATCH_QUERY,
	BLOOM_BATCH_ADD,
	BLOOM_BATCH_DELETE,
};

/* Pass two. Returns the number of set result bits, or a negative errno. */
static int bloom_batch_apply(struct bloom_filter *f, enum bloom_batch_op op,
			     const u64 *hashes, u32 n, u8 *results)
{
	bool exclusive;
	int ret;

	if (op == BLOOM_BATCH_QUERY)
		return bloom_core_query_batch(&f->core, hashes, n, results);

	exclusive = bloom_core_writers_exclusive(&f->core);
	if (exclusive && mutex_lock_killable(&f->write_lock))
		return -EINTR;
	if (op == BLOOM_BATCH_ADD)
		ret = bloom_core_add_batch(&f->core, hashes, n, results);
	else
		ret = bloom_core_delete_batch(&f->core, hashes, n, results);
	if (exclusive)
		mutex_unlock(&f->write_lock);
	return ret;
}

static int bloom_batch_run(struct bloom_filter *f, struct bloom_batch *b,
			   enum bloom_batch_op op)
{
	void __user *uresults = u64_to_user_ptr(b->results);
	size_t result_bytes = DIV_ROUND_UP(b->nkeys, 8);
	/* The hashes, then the results bitmap (at most 8 bytes here). */
	u64 small[BLOOM_SMALL_KEYS + 1];
	u8 *results = NULL;
	u64 *hashes = small;
	int ret;

	b->out_done = 0;
	b->out_hits = 0;
	ret = bloom_batch_check(b);
	if (ret || !b->nkeys)
		return ret;

	/* One allocation: the hashes, then the results bitmap. */
	if (b->nkeys > BLOOM_SMALL_KEYS) {
		hashes = bloom_kvzalloc(array_size(b->nkeys, sizeof(*hashes)) +
					result_bytes, GFP_KERNEL);
		if (!hashes)
			return -ENOMEM;
	}
	if (b->results)
		results = (u8 *)(hashes + b->nkeys);

	ret = bloom_batch_hash(f, b, hashes);
	if (ret)
		goto out;
	/*
	 * A results buffer that cannot be written must fail the call before
	 * the filter changes, not after.
	 */
	if (op != BLOOM_BATCH_QUERY && b->results &&
	    clear_user(uresults, result_bytes)) {
		ret = -EFAULT;
		goto out;
	}

	ret = bloom_batch_apply(f, op, hashes, b->nkeys, results);
	if (ret < 0)
		goto out;
	b->out_hits = ret;
	b->out_done = b->nkeys;
	ret = 0;
	if (results && copy_to_user(uresults, results, result_bytes))
		ret = -EFAULT;
out:
	if (hashes != small)
		bloom_kvfree(hashes);
	return ret;
}

int bloom_batch_query(struct bloom_filter *f, struct bloom_batch *b)
{
	int ret = bloom_batch_run(f, b, BLOOM_BATCH_QUERY);

	if (!ret) {
		this_cpu_add(f->stats->queries, b->out_done);
		this_cpu_add(f->stats->hits, b->out_hits);
	}
	return ret;
}

int bloom_batch_add(struct bloom_filter *f, struct bloom_batch *b)
{
	int ret = bloom_batch_run(f, b, BLOOM_BATCH_ADD);

	/* out_done is set once the keys are in, even if results faulted. */
	if (b->out_done) {
		this_cpu_add(f->stats->adds, b->out_done);
		this_cpu_add(f->stats->count, b->out_done - b->out_hits);
	}
	return ret;
}

int bloom_batch_delete(struct bloom_filter *f, struct bloom_batch *b)
{
	int ret;

	if (!bloom_core_can_delete(&f->core))
		return -EOPNOTSUPP;
	ret = bloom_batch_run(f, b, BLOOM_BATCH_DELETE);
	/* out_done is set once the keys are out, even if results faulted. */
	if (b->out_done) {
		this_cpu_add(f->stats->deletes, b->out_hits);
		this_cpu_add(f->stats->delete_misses, b->out_done - b->out_hits);
	}
	return ret;
}
