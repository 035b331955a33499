// SPDX-License-Identifier: GPL-2.0
/*
 * ADD, QUERY and DELETE batches: the entry points, the checks of a request
 * and the general path of two passes, with the second pass of ADD and
 * DELETE. Pass one, reading and hashing the keys, is batch_keys.c's;
 * addresses and netblocks are batch_net.c's; the QUERY paths, of which
 * only the general one comes here, are batch_query.c's.
 *
 * A batch runs in two passes. The first copies the keys in, a chunk at a
 * time, checks every length and hashes every key; the second applies the
 * hashes to the filter. Any error of the first pass (a bad length, a bad
 * pointer) therefore leaves the filter exactly as it was, while the kernel
 * never holds more than the hashes (8 bytes a key) and one chunk of keys.
 *
 * Writers (ADD, DELETE) of every type take the filter's write_lock for the
 * second pass only: hashing, the expensive part, runs unlocked. The core
 * needs its writers serialised (module/core/core.h): with the lock taken
 * once a batch, an add sets its bits with plain stores instead of a locked
 * instruction per word, and concurrent batches lose nothing. Under the lock
 * the filter's store cannot change or go (filter.h), so a batch is applied
 * whole to one store. The keys go in BLOOM_APPLY_CHUNK at a time, each
 * chunk under rcu_read_lock() as well, with a yield between chunks.
 *
 * An ADD to a scalable filter stops where its newest stage is full, grows
 * the filter (bloom_store_grow(), under the write lock it holds) and goes
 * on from that key. When it cannot grow, the keys before that one stay
 * added and the call reports them in out_done, with their result bits. An
 * ADD to a d-left filter stops the same way at the first key none of whose
 * buckets has room (ENOSPC, out_done).
 */
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "alloc.h"
#include "batch.h"
#include "batch_internal.h"
#include "filter.h"

static int bloom_batch_check(const struct bloom_batch *b,
			     enum bloom_batch_op op)
{
	if (b->flags & ~BLOOM_BATCH_F_ALL || b->reserved)
		return -EINVAL;
	/* keys' own timeouts: ADD only, with its flag */
	if (b->flags & BLOOM_BATCH_F_TIMEOUT ? op != BLOOM_BATCH_ADD ||
	    (b->timeouts && b->timeout_s) : b->timeouts || b->timeout_s)
		return -EINVAL;
	/* The pinned bitmap: DELETE only, with its flag, both or neither. */
	if (!(b->flags & BLOOM_BATCH_F_PINNED) != !b->pinned ||
	    (b->pinned && op != BLOOM_BATCH_DELETE))
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
static int bloom_batch_start(struct bloom_batch *b, enum bloom_batch_op op)
{
	b->out_done = 0;
	b->out_hits = 0;
	b->out_pinned = 0;
	return bloom_batch_check(b, op);
}

/*
 * What a writer did to @s: an ADD its keys; a DELETE its @hits removed,
 * @pinned pinned and the rest not found. A QUERY is counted once its
 * answers reached the caller: bloom_query_count().
 */
static void bloom_apply_stats(struct bloom_store *s, enum bloom_batch_op op,
			      u32 done, u32 hits, u32 pinned)
{
	if (op == BLOOM_BATCH_ADD) {
		/* count: kept by the core (keys), which sees each key */
		this_cpu_add(s->stats->adds, done);
		return;
	}
	this_cpu_add(s->stats->deletes, hits);
	this_cpu_add(s->stats->delete_pinned, pinned);
	this_cpu_add(s->stats->delete_misses, done - hits - pinned);
}

/*
 * Applies keys [@a->done, @a->done + @len) of an ADD or DELETE to @s;
 * false when it stopped early: a d-left filter with no room for a key
 * (@a->done is that key) or a scalable one whose newest stage is full.
 */
static bool bloom_apply_chunk(struct bloom_apply *a, struct bloom_store *s,
			      u32 len)
{
	u32 from = a->done, end = from + len, done, np = 0;
	u8 *results = a->results ? a->results + from / 8 : NULL;

	if (a->op == BLOOM_BATCH_ADD && bloom_core_is_scalable(&s->core)) {
		/* indices count from the batch's start, as results */
		done = from;
		a->hits += bloom_scale_add_batch(&s->core, a->hashes, end,
						 a->results, &done);
		done -= from;
	} else if (a->op == BLOOM_BATCH_ADD && a->timed) {
		a->hits += bloom_timed_add_batch(&s->core, a->hashes + from,
						 len, a->timeouts ?
						 a->timeouts + from : NULL,
						 a->timeout_s, bloom_clock_s(),
						 results, &done);
	} else if (a->op == BLOOM_BATCH_ADD) {
		a->hits += bloom_core_add_batch_done(&s->core,
						     a->hashes + from, len,
						     results, &done);
	} else {
		a->hits += bloom_core_delete_batch(&s->core, a->hashes + from,
						   len, results,
						   a->pinned ? a->pinned + from / 8 :
							       NULL, &np);
		a->npinned += np;
		done = len;
	}
	bloom_net_account(&a->net, a->op, s, a->results, from, from + done);
	a->done += done;
	return done == len;
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
		if (bloom_same_key(&(*s)->core.key, &a->key))
			return 0;
		key = (*s)->core.key;
		mutex_unlock(&a->f->write_lock);
		ret = bloom_apply_rehash(a, &key);
		memzero_explicit(&key, sizeof(key));
		if (ret)
			return ret;
	}
}

/*
 * Keys' own timeouts fit @s: a timed store (else -EOPNOTSUPP), none over
 * its largest (else -EINVAL). Under the write lock: the store is the one
 * the keys go to.
 */
static int bloom_apply_timeouts(const struct bloom_apply *a,
				const struct bloom_store *s)
{
	u32 max = s->core.key_timeout_max_s, i;

	if (!a->timed)
		return 0;
	if (!bloom_core_is_timed(&s->core))
		return -EOPNOTSUPP;
	if (!a->timeouts)
		return a->timeout_s > max ? -EINVAL : 0;
	for (i = 0; i < a->b->nkeys; i++)
		if (a->timeouts[i] > max)
			return -EINVAL;
	return 0;
}

/*
 * ADD and DELETE: every writer of a filter holds its write_lock (the core
 * needs its writers serialised, core.h), taken once for the whole batch;
 * under it the store cannot change or go. The keys go in
 * BLOOM_APPLY_CHUNK at a time, each chunk under rcu_read_lock() too: an
 * expiring filter's rotation waits for a grace period, not for this lock,
 * before it clears the generation that adds stopped going to (clock.c).
 * A scalable filter whose newest stage is full grows here, under the lock,
 * and the batch goes on from the key that did not fit.
 */
static int bloom_apply_locked(struct bloom_apply *a)
{
	u32 n = a->b->nkeys;
	struct bloom_store *s;
	bool all;
	int ret;

	ret = bloom_apply_lock(a, &s);
	if (ret)
		return ret;
	ret = bloom_net_kind(&a->net, a->op, s);
	if (!ret)
		ret = bloom_net_plan(&a->net, a->op, s, n);
	if (!ret)
		ret = bloom_apply_timeouts(a, s);
	if (ret)
		goto out;
	/* a timed store's sweep waits (sweep.h) */
	bloom_store_writers_lock(s);
	while (a->done < n) {
		rcu_read_lock();
		all = bloom_apply_chunk(a, s, min_t(u32, n - a->done,
						    BLOOM_APPLY_CHUNK));
		rcu_read_unlock();
		if (!all) {
			/* a full d-left filter keeps the keys before the misfit */
			ret = bloom_core_is_scalable(&s->core) ?
			      bloom_store_grow(s) : -ENOSPC;
			if (ret) {
				a->partial = true;
				break;
			}
		}
		cond_resched();
	}
	bloom_store_writers_unlock(s);
	bloom_apply_stats(s, a->op, a->done, a->hits, a->npinned);
out:
	mutex_unlock(&a->f->write_lock);
	return ret;
}

/* Pass two: writers under the filter's lock, queries under RCU alone. */
static int bloom_batch_apply(struct bloom_apply *a)
{
	if (a->op == BLOOM_BATCH_QUERY)
		return bloom_query_apply(a);
	return bloom_apply_locked(a);
}

/*
 * Pass one of an ADD with BLOOM_BATCH_F_TIMEOUT: the keys' timeouts, copied
 * in before the write lock is taken (no user memory is read under it).
 */
static int bloom_batch_timeouts(struct bloom_apply *a,
				const struct bloom_batch *b)
{
	if (!(b->flags & BLOOM_BATCH_F_TIMEOUT))
		return 0;
	a->timed = true;
	a->timeout_s = b->timeout_s;
	if (!b->timeouts)
		return 0;
	a->timeouts = bloom_kvmalloc(array_size(b->nkeys, sizeof(u32)),
				     GFP_KERNEL_ACCOUNT);
	if (!a->timeouts)
		return -ENOMEM;
	if (copy_from_user(a->timeouts, u64_to_user_ptr(b->timeouts),
			   array_size(b->nkeys, sizeof(u32))))
		return -EFAULT;
	return 0;
}

/*
 * The two passes, for every ADD and DELETE and the QUERY batches
 * batch_query.c does not run alone; @b is checked and has keys.
 */
static int bloom_batch_run(struct bloom_filter *f, struct bloom_batch *b,
			   enum bloom_batch_op op)
{
	void __user *uresults = u64_to_user_ptr(b->results);
	void __user *upinned = u64_to_user_ptr(b->pinned);
	size_t result_bytes = DIV_ROUND_UP(b->nkeys, 8);
	/* The hashes, then the two bitmaps (at most 8 bytes each here). */
	u64 small[BLOOM_SMALL_KEYS + 2] __uninitialized;
	struct bloom_apply a = { .f = f, .b = b, .op = op };
	int ret;

	if (bloom_filter_keys(f, &a.net.kind, &a.key))
		return -ESTALE;
	ret = bloom_net_setup(&a.net, b, op);
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
	memset(a.hashes + b->nkeys, 0, 2 * result_bytes);
	/* a DELETE of netblocks counts what its results say it removed */
	if (b->results || (a.net.on && op == BLOOM_BATCH_DELETE))
		a.results = (u8 *)(a.hashes + b->nkeys);
	if (b->pinned)
		a.pinned = (u8 *)(a.hashes + b->nkeys) + result_bytes;

	ret = bloom_batch_hash(&a.key, &a.net, b, a.hashes);
	if (!ret)
		ret = bloom_batch_timeouts(&a, b);
	if (ret)
		goto out;
	/*
	 * A results buffer that cannot be written must fail the call before
	 * the filter changes, not after.
	 */
	if (op != BLOOM_BATCH_QUERY &&
	    ((b->results && clear_user(uresults, result_bytes)) ||
	     (b->pinned && clear_user(upinned, result_bytes)))) {
		ret = -EFAULT;
		goto out;
	}

	ret = bloom_batch_apply(&a);
	if (ret && a.partial) {
		/*
		 * an ADD that stopped early, a scalable filter that could
		 * not grow or a full d-left one: what went in stays
		 */
		b->out_hits = a.hits;
		b->out_done = a.done;
		if (b->results && a.done &&
		    copy_to_user(uresults, a.results, DIV_ROUND_UP(a.done, 8)))
			ret = -EFAULT;
		goto out;
	}
	if (ret)
		goto out;
	b->out_hits = a.hits;
	b->out_pinned = a.npinned;
	b->out_done = a.done;
	if ((b->results && copy_to_user(uresults, a.results, result_bytes)) ||
	    (a.pinned && copy_to_user(upinned, a.pinned, result_bytes)))
		ret = -EFAULT;
	else if (op == BLOOM_BATCH_QUERY)
		bloom_query_count(f, a.done, a.hits);
out:
	if (a.hashes != small)
		bloom_kvfree(a.hashes);
	bloom_kvfree(a.timeouts);
out_key:
	bloom_net_free(&a.net);
	memzero_explicit(&a.key, sizeof(a.key));
	return ret;
}

int bloom_batch_query(struct bloom_filter *f, struct bloom_batch *b)
{
	int ret;

	ret = bloom_batch_start(b, BLOOM_BATCH_QUERY);
	if (ret || !b->nkeys)
		return ret;
	if (bloom_query_is_small(b))
		return bloom_query_small(f, b);
	if (bloom_query_is_chunked(b))
		return bloom_query_chunks(f, b);
	return bloom_batch_run(f, b, BLOOM_BATCH_QUERY);
}

/* out_done is set once the keys are in, even if results faulted. */
int bloom_batch_add(struct bloom_filter *f, struct bloom_batch *b)
{
	int ret;

	ret = bloom_batch_start(b, BLOOM_BATCH_ADD);
	if (ret || !b->nkeys)
		return ret;
	return bloom_batch_run(f, b, BLOOM_BATCH_ADD);
}

/* out_done is set once the keys are out, even if results faulted. */
int bloom_batch_delete(struct bloom_filter *f, struct bloom_batch *b)
{
	struct bloom_store *s;
	bool can;
	int ret;

	rcu_read_lock();
	s = bloom_filter_store(f);
	can = s && bloom_core_can_delete(&s->core);
	rcu_read_unlock();
	if (!s)
		return -ESTALE;
	if (!can)
		return -EOPNOTSUPP;
	ret = bloom_batch_start(b, BLOOM_BATCH_DELETE);
	if (ret || !b->nkeys)
		return ret;
	return bloom_batch_run(f, b, BLOOM_BATCH_DELETE);
}
