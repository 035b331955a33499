// SPDX-License-Identifier: GPL-2.0
/*
 * The second pass of a batch on a store (store.h): adds and deletes under
 * the filter's write lock, queries under RCU alone. What a variant needs
 * happens here: a chain grows when its newest stage is full, a timed
 * table takes each key's timeout, the netblock lengths of what went in or
 * out are counted (store_addr.c).
 *
 * Writers take the filter's write lock for the second pass only (batch.c):
 * hashing, the expensive part, runs unlocked. The core needs its writers
 * serialised (module/core/core.h): with the lock taken once a batch, an add
 * sets its bits with plain stores instead of a locked instruction per
 * word, and concurrent batches lose nothing. The keys go in
 * BLOOM_STORE_CHUNK at a time, each chunk under rcu_read_lock() too: a
 * ring's rotation waits for a grace period, not for the write lock, before
 * it clears the generation that adds stopped going to (store_work.c). A
 * chain whose newest stage is full grows between chunks, under the write
 * lock, and the batch goes on from the key that did not fit. When it cannot
 * grow, or a d-left or timed table has no room for a key, the keys before
 * that one stay added and the call reports them (@done, @partial).
 */
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "store_internal.h"

bool bloom_store_can_delete(const struct bloom_store *s)
{
	return bloom_core_can_delete(&s->core);
}

bool bloom_store_keyed(const struct bloom_store *s, const bloom_hash_key_t *key)
{
	return !memcmp(&s->core.key, key, sizeof(*key));
}

/*
 * The writers of a timed store exclude its sweep (the work's lock); a
 * ring's writers run under RCU alone. Sleeps.
 */
static void bloom_store_writers_lock(struct bloom_store *s)
{
	if (s->features & BLOOM_STORE_F_TIMEOUTS) {
		mutex_lock(&s->work->lock);
		/* after a suspend, what expired meanwhile goes first */
		bloom_work_timed_catch_up(s->work);
	}
}

static void bloom_store_writers_unlock(struct bloom_store *s)
{
	if (s->features & BLOOM_STORE_F_TIMEOUTS) {
		bloom_work_timed_catch_up(s->work);
		mutex_unlock(&s->work->lock);
	}
}

/*
 * Keys' own timeouts fit @s: a timed store (else -EOPNOTSUPP), none over
 * its largest (else -EINVAL).
 */
static int bloom_store_check_timeouts(const struct bloom_store *s,
				      const struct bloom_store_write *w)
{
	u32 max = s->core.key_timeout_max_s, i;

	if (!w->timed)
		return 0;
	if (!(s->features & BLOOM_STORE_F_TIMEOUTS))
		return -EOPNOTSUPP;
	if (!w->timeouts)
		return w->timeout_s > max ? -EINVAL : 0;
	for (i = 0; i < w->n; i++)
		if (w->timeouts[i] > max)
			return -EINVAL;
	return 0;
}

/*
 * Applies keys [@w->done, @w->done + @len) to @s; false when it stopped
 * early: a d-left or timed table with no room for a key (@w->done is that
 * key) or a chain whose newest stage is full.
 */
static bool bloom_store_write_chunk(struct bloom_store *s,
				    struct bloom_store_write *w, u32 len)
{
	u32 from = w->done, end = from + len, done, np = 0;
	u8 *results = w->results ? w->results + from / 8 : NULL;

	if (w->op == BLOOM_STORE_ADD &&
	    (s->features & (BLOOM_STORE_F_STAGES | BLOOM_STORE_F_TIMEOUTS)) ==
	    (BLOOM_STORE_F_STAGES | BLOOM_STORE_F_TIMEOUTS)) {
		/* a timed chain: keys' own timeouts, or the filter's */
		done = from;
		w->hits += bloom_scale_timed_add_batch(&s->core, w->hashes, end,
						       w->timed ? w->timeouts : NULL,
						       w->timed ? w->timeout_s :
						       s->core.key_timeout_s,
						       w->results, &done);
		done -= from;
	} else if (w->op == BLOOM_STORE_ADD &&
		   s->features & BLOOM_STORE_F_STAGES) {
		/* indices count from the batch's start, as results */
		done = from;
		w->hits += bloom_scale_add_batch(&s->core, w->hashes, end,
						 w->results, &done);
		done -= from;
	} else if (w->op == BLOOM_STORE_ADD && w->timed) {
		w->hits += bloom_timed_add_batch(&s->core, w->hashes + from,
						 len, w->timeouts ?
						 w->timeouts + from : NULL,
						 w->timeout_s, results, &done);
	} else if (w->op == BLOOM_STORE_ADD) {
		w->hits += bloom_core_add_batch_done(&s->core,
						     w->hashes + from, len,
						     results, &done);
	} else {
		w->hits += bloom_core_delete_batch(&s->core, w->hashes + from,
						   len, results,
						   w->pinned ? w->pinned + from / 8 :
							       NULL, &np);
		w->npinned += np;
		done = len;
	}
	bloom_addrs_account(w->addrs, w->op, s, w->results, from, from + done);
	w->done += done;
	return done == len;
}

/*
 * What a writer did to @s: an ADD its keys; a DELETE its hits removed,
 * the pinned ones pinned and the rest not found. A QUERY is counted once
 * its answers reached the caller: bloom_store_count_queries().
 */
static void bloom_store_count_write(struct bloom_store *s,
				    const struct bloom_store_write *w)
{
	if (w->op == BLOOM_STORE_ADD) {
		/* count: kept by the core (keys), which sees each key */
		this_cpu_add(s->stats->adds, w->done);
		return;
	}
	this_cpu_add(s->stats->deletes, w->hits);
	this_cpu_add(s->stats->delete_pinned, w->npinned);
	this_cpu_add(s->stats->delete_misses, w->done - w->hits - w->npinned);
}

int bloom_store_write(struct bloom_store *s, struct bloom_store_write *w)
{
	bool all;
	int ret;

	ret = bloom_addrs_check(w->addrs, w->op, s, w->n);
	if (!ret)
		ret = bloom_store_check_timeouts(s, w);
	if (ret)
		return ret;
	/* a timed store's sweep waits */
	bloom_store_writers_lock(s);
	while (w->done < w->n) {
		rcu_read_lock();
		all = bloom_store_write_chunk(s, w, min_t(u32, w->n - w->done,
							  BLOOM_STORE_CHUNK));
		rcu_read_unlock();
		if (!all) {
			/* a full d-left table keeps the keys before the misfit */
			ret = s->features & BLOOM_STORE_F_STAGES ?
			      bloom_store_grow(s) : -ENOSPC;
			if (ret) {
				w->partial = true;
				break;
			}
		}
		cond_resched();
	}
	bloom_store_writers_unlock(s);
	bloom_store_count_write(s, w);
	return ret;
}

u32 bloom_store_query_hashes(const struct bloom_store *s, const u64 *hashes,
			     u32 n, u8 *results)
{
	return bloom_core_query_batch(&s->core, hashes, n, results);
}

void bloom_store_count_queries(struct bloom_store *s, u32 done, u32 hits)
{
	this_cpu_add(s->stats->hits, hits);
	this_cpu_add(s->stats->query_misses, done - hits);
}
