// SPDX-License-Identifier: GPL-2.0
/*
 * ADD, QUERY and DELETE batches: the entry points, the checks of a request
 * and the general path of two passes. Pass one, reading and hashing the
 * keys, is batch_keys.c's; pass two is the store's (store_batch.c); the
 * QUERY paths that need no pass over the whole batch are batch_query.c's.
 *
 * A batch runs in two passes. The first copies the keys in, a chunk at a
 * time, checks every length and hashes every key; the second applies the
 * hashes to the filter's store. Any error of the first pass (a bad length,
 * a bad pointer) therefore leaves the filter exactly as it was, while the
 * kernel never holds more than the hashes (8 bytes a key) and one chunk of
 * keys.
 *
 * Writers (ADD, DELETE) take the filter's write_lock for the second pass
 * only: hashing, the expensive part, runs unlocked. Under the lock the
 * filter's store cannot change or go (filter.h), so a batch is applied
 * whole to one store, which does what its variant needs (store.h).
 * Queries take no lock: each chunk of the second pass is looked up under
 * RCU in the store published at its start.
 */
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "alloc.h"
#include "batch.h"
#include "batch_keys.h"
#include "batch_query.h"
#include "filter.h"

/* Hash keys a batch follows before it fails with -EAGAIN. */
#define BLOOM_REHASH_MAX	8

/* What pass two needs; @key is the hash key the hashes were made with. */
struct bloom_apply {
	struct bloom_filter *f;
	struct bloom_batch *b;
	bloom_hash_key_t key;
	struct bloom_addrs addrs;
	struct bloom_store_write w;	/* @w.hashes: each key's, pass one's */
	u64 *hashes;
	u32 rehashes;	/* times the hash key changed during the call */
};

static int bloom_batch_check(const struct bloom_batch *b,
			     enum bloom_store_op op)
{
	if (b->flags & ~BLOOM_BATCH_F_ALL || b->reserved)
		return -EINVAL;
	/* keys' own timeouts: ADD only, with its flag */
	if (b->flags & BLOOM_BATCH_F_TIMEOUT ? op != BLOOM_STORE_ADD ||
	    (b->timeouts && b->timeout_s) : b->timeouts || b->timeout_s)
		return -EINVAL;
	/* The pinned bitmap: DELETE only, with its flag, both or neither. */
	if (!(b->flags & BLOOM_BATCH_F_PINNED) != !b->pinned ||
	    (b->pinned && op != BLOOM_STORE_DELETE))
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

/* The replies cleared, the request checked. */
static int bloom_batch_start(struct bloom_batch *b, enum bloom_store_op op)
{
	b->out_done = 0;
	b->out_hits = 0;
	b->out_pinned = 0;
	return bloom_batch_check(b, op);
}

/*
 * Hashes the batch again with @key, the key of the store now published,
 * from the user's keys: never under a lock. A batch whose filter changes
 * its hash key more than BLOOM_REHASH_MAX times during the call fails
 * with -EAGAIN, before a writer changed anything: a bound on what a
 * stream of swaps can make one call cost.
 */
static int bloom_apply_rehash(struct bloom_apply *a,
			      const bloom_hash_key_t *key)
{
	if (a->rehashes++ == BLOOM_REHASH_MAX)
		return -EAGAIN;
	if (fatal_signal_pending(current))
		return -EINTR;
	a->key = *key;
	return bloom_batch_hash(&a->key, &a->addrs, a->b, a->hashes);
}

/*
 * Takes @a's filter's write_lock with its store published (in @s) and the
 * batch hashed with that store's key. A store of another key (a swap, a
 * replacing restore, a flush) means the keys are read again, hashed with
 * the new key, and the lock taken again: never under the lock, which
 * DESTROY waits for with its namespace's lock held, so a caller's stalled
 * memory (userfaultfd, a slow network file) cannot hold up the namespace.
 * bloom_apply_rehash() bounds how often.
 */
static int bloom_apply_lock(struct bloom_apply *a, struct bloom_store **s)
{
	bloom_hash_key_t key;
	int ret;

	for (;;) {
		if (mutex_lock_killable(&a->f->write_lock))
			return -EINTR;
		*s = bloom_filter_store_locked(a->f);
		if (!*s) {
			mutex_unlock(&a->f->write_lock);
			return -ESTALE;
		}
		if (bloom_store_keyed(*s, &a->key))
			return 0;
		key = (*s)->core.key;
		mutex_unlock(&a->f->write_lock);
		ret = bloom_apply_rehash(a, &key);
		memzero_explicit(&key, sizeof(key));
		if (ret)
			return ret;
	}
}

/* Pass two of an ADD or DELETE: the store applies it under the lock. */
static int bloom_apply_write(struct bloom_apply *a)
{
	struct bloom_store *s;
	int ret;

	ret = bloom_apply_lock(a, &s);
	if (ret)
		return ret;
	ret = bloom_store_write(s, &a->w);
	mutex_unlock(&a->f->write_lock);
	return ret;
}

/*
 * Pass two of a QUERY that bloom_batch_query() did not run alone, under
 * RCU alone: the hashes of pass one looked up, or the addresses it read,
 * a chunk at a time in the store published at the chunk's start.
 */
static int bloom_apply_query(struct bloom_apply *a)
{
	struct bloom_store_write *w = &a->w;
	u32 len, hits;
	bloom_hash_key_t key;
	struct bloom_store *s;
	u8 *results;
	int ret;

	while (w->done < w->n) {
		len = min_t(u32, w->n - w->done, BLOOM_STORE_CHUNK);
		results = w->results ? w->results + w->done / 8 : NULL;
		rcu_read_lock();
		s = bloom_filter_store(a->f);
		if (!s) {
			rcu_read_unlock();
			return -ESTALE;
		}
		if (a->addrs.query) {
			hits = bloom_store_query_addrs(s, a->addrs.keys +
						       w->done, len, results);
		} else if (!bloom_store_keyed(s, &a->key)) {
			key = s->core.key;
			rcu_read_unlock();
			ret = bloom_apply_rehash(a, &key);
			memzero_explicit(&key, sizeof(key));
			if (ret)
				return ret;
			continue;
		} else {
			hits = bloom_store_query_hashes(s, a->hashes + w->done,
							len, results);
		}
		/*
		 * Not counted yet: the caller counts the batch once its
		 * answers reached the user (bloom_query_count()).
		 */
		rcu_read_unlock();
		w->done += len;
		w->hits += hits;
		cond_resched();
	}
	return 0;
}

/*
 * Pass one of an ADD with BLOOM_BATCH_F_TIMEOUT: the keys' timeouts, copied
 * in before the write lock is taken (no user memory is read under it).
 */
static int bloom_batch_timeouts(struct bloom_store_write *w,
				const struct bloom_batch *b)
{
	u32 *timeouts;

	if (!(b->flags & BLOOM_BATCH_F_TIMEOUT))
		return 0;
	w->timed = true;
	w->timeout_s = b->timeout_s;
	if (!b->timeouts)
		return 0;
	timeouts = bloom_kvmalloc(array_size(b->nkeys, sizeof(u32)),
				  GFP_KERNEL_ACCOUNT);
	if (!timeouts)
		return -ENOMEM;
	w->timeouts = timeouts;
	if (copy_from_user(timeouts, u64_to_user_ptr(b->timeouts),
			   array_size(b->nkeys, sizeof(u32))))
		return -EFAULT;
	return 0;
}

/* The replies of a pass two that ended: how far it got, the bitmaps. */
static int bloom_batch_reply(struct bloom_apply *a, int ret)
{
	struct bloom_store_write *w = &a->w;
	struct bloom_batch *b = a->b;
	size_t result_bytes = DIV_ROUND_UP(b->nkeys, 8);

	if (ret && !w->partial)
		return ret;
	/*
	 * an ADD that stopped early, a scalable filter that could not grow
	 * or a full d-left or timed one: what went in stays
	 */
	if (ret) {
		b->out_hits = w->hits;
		b->out_done = w->done;
		if (b->results && w->done &&
		    copy_to_user(u64_to_user_ptr(b->results), w->results,
				 DIV_ROUND_UP(w->done, 8)))
			ret = -EFAULT;
		return ret;
	}
	b->out_hits = w->hits;
	b->out_pinned = w->npinned;
	b->out_done = w->done;
	if ((b->results && copy_to_user(u64_to_user_ptr(b->results),
					w->results, result_bytes)) ||
	    (w->pinned && copy_to_user(u64_to_user_ptr(b->pinned), w->pinned,
				       result_bytes)))
		return -EFAULT;
	if (w->op == BLOOM_STORE_QUERY)
		bloom_query_count(a->f, w->done, w->hits);
	return 0;
}

/*
 * The two passes, for every ADD and DELETE and the QUERY batches
 * batch_query.c does not run alone; @b is checked and has keys.
 */
static int bloom_batch_run(struct bloom_filter *f, struct bloom_batch *b,
			   enum bloom_store_op op)
{
	size_t result_bytes = DIV_ROUND_UP(b->nkeys, 8);
	/* The hashes, then the two bitmaps (at most 8 bytes each here). */
	u64 small[BLOOM_SMALL_KEYS + 2] __uninitialized;
	struct bloom_apply a = { .f = f, .b = b };
	struct bloom_store_write *w = &a.w;
	u8 *bitmaps;
	int ret;

	w->op = op;
	w->n = b->nkeys;
	w->addrs = &a.addrs;
	if (bloom_filter_keys(f, &a.addrs.kind, &a.key))
		return -ESTALE;
	ret = bloom_addrs_setup(&a.addrs, b->flags, op, b->nkeys);
	if (ret)
		goto out_key;

	/*
	 * One allocation: the hashes, then the two bitmaps. Only the bitmaps
	 * are zeroed: pass one writes every hash, and zeroing 8 bytes a key
	 * costs more than a query of it.
	 */
	a.hashes = small;
	if (b->nkeys > BLOOM_SMALL_KEYS) {
		a.hashes = bloom_kvmalloc(array_size(b->nkeys,
						     sizeof(*a.hashes)) +
					  2 * result_bytes, GFP_KERNEL_ACCOUNT);
		if (!a.hashes) {
			ret = -ENOMEM;
			goto out_key;
		}
	}
	w->hashes = a.hashes;
	bitmaps = (u8 *)(a.hashes + b->nkeys);
	memset(bitmaps, 0, 2 * result_bytes);
	/* a DELETE of netblocks counts what its results say it removed */
	if (b->results || (a.addrs.on && op == BLOOM_STORE_DELETE))
		w->results = bitmaps;
	if (b->pinned)
		w->pinned = bitmaps + result_bytes;

	ret = bloom_batch_hash(&a.key, &a.addrs, b, a.hashes);
	if (!ret)
		ret = bloom_batch_timeouts(w, b);
	if (ret)
		goto out;
	/*
	 * A results buffer that cannot be written must fail the call before
	 * the filter changes, not after.
	 */
	if (op != BLOOM_STORE_QUERY &&
	    ((b->results && clear_user(u64_to_user_ptr(b->results),
				       result_bytes)) ||
	     (b->pinned && clear_user(u64_to_user_ptr(b->pinned),
				      result_bytes)))) {
		ret = -EFAULT;
		goto out;
	}
	ret = op == BLOOM_STORE_QUERY ? bloom_apply_query(&a) :
					bloom_apply_write(&a);
	ret = bloom_batch_reply(&a, ret);
out:
	if (a.hashes != small)
		bloom_kvfree(a.hashes);
	bloom_kvfree(w->timeouts);
out_key:
	bloom_addrs_free(&a.addrs);
	memzero_explicit(&a.key, sizeof(a.key));
	return ret;
}

int bloom_batch_query(struct bloom_filter *f, struct bloom_batch *b)
{
	int ret;

	ret = bloom_batch_start(b, BLOOM_STORE_QUERY);
	if (ret || !b->nkeys)
		return ret;
	if (bloom_query_is_small(b))
		return bloom_query_small(f, b);
	if (bloom_query_is_chunked(b))
		return bloom_query_chunks(f, b);
	return bloom_batch_run(f, b, BLOOM_STORE_QUERY);
}

/* out_done is set once the keys are in, even if results faulted. */
int bloom_batch_add(struct bloom_filter *f, struct bloom_batch *b)
{
	int ret;

	ret = bloom_batch_start(b, BLOOM_STORE_ADD);
	if (ret || !b->nkeys)
		return ret;
	return bloom_batch_run(f, b, BLOOM_STORE_ADD);
}

/* out_done is set once the keys are out, even if results faulted. */
int bloom_batch_delete(struct bloom_filter *f, struct bloom_batch *b)
{
	struct bloom_store *s;
	bool can;
	int ret;

	rcu_read_lock();
	s = bloom_filter_store(f);
	can = s && bloom_store_can_delete(s);
	rcu_read_unlock();
	if (!s)
		return -ESTALE;
	if (!can)
		return -EOPNOTSUPP;
	ret = bloom_batch_start(b, BLOOM_STORE_DELETE);
	if (ret || !b->nkeys)
		return ret;
	return bloom_batch_run(f, b, BLOOM_STORE_DELETE);
}
