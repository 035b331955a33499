// SPDX-License-Identifier: GPL-2.0
/*
 * The QUERY paths. A QUERY changes nothing, so it runs a chunk at a time
 * when it can: its keys copied in, then read, hashed with the key of the
 * store published now and looked up in one read section
 * (bloom_query_chunk()). A few keys (a daemon asking about one address)
 * use the stack only (bloom_query_small()); keys of one size use one
 * buffer of a chunk's keys and hashes (bloom_query_chunks()). Any other
 * QUERY runs the two passes of an ADD (batch.c).
 *
 * Queries take no lock: they look up under rcu_read_lock(),
 * BLOOM_STORE_CHUNK keys at a time, and may yield between chunks. Each
 * chunk uses the store published at its start: a destroy between two
 * chunks fails the batch with ESTALE, a replace with another hash key
 * makes the rest of the batch be hashed again with the new key from the
 * user's keys. A query is counted in the statistics of the store
 * published once its answers reached the caller (bloom_query_count()).
 */
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "alloc.h"
#include "batch_keys.h"
#include "batch_query.h"
#include "filter.h"

/* Counts a query in the store published now (if any). */
void bloom_query_count(struct bloom_filter *f, u32 done, u32 hits)
{
	struct bloom_store *s;

	rcu_read_lock();
	s = bloom_filter_store(f);
	if (s)
		bloom_store_count_queries(s, done, hits);
	rcu_read_unlock();
}

/*
 * Queries @n keys (their lengths in @hashes, their bytes one after the
 * other in @buf), the first of them key @from of the batch: under one read
 * section, read as addresses if @addrs is on, hashed with the key of the
 * store published now, looked up. With @decide, whether @addrs is on is
 * decided first, from the store's kind. Their results go to @results from
 * bit 0 (NULL: none wanted); @hits grows by theirs.
 */
static int bloom_query_chunk(struct bloom_filter *f, const struct bloom_batch *b,
			     struct bloom_addrs *addrs, bool decide, const u8 *buf,
			     u64 *hashes, u32 from, u32 n, u8 *results,
			     u32 *hits)
{
	struct bloom_store *s;
	u32 i, len, off = 0;
	int ret = 0;

	rcu_read_lock();
	s = bloom_filter_store(f);
	if (!s) {
		ret = -ESTALE;
		goto unlock;
	}
	if (decide) {
		addrs->kind = bloom_store_kind(s);
		ret = bloom_addrs_mode(addrs, b->flags, BLOOM_STORE_QUERY);
	}
	for (i = 0; i < n && !ret; i++, off += len) {
		len = hashes[i];
		if (addrs->on)
			ret = bloom_addrs_read(addrs, buf + off, len, from + i, i);
		else
			hashes[i] = bloom_store_hash(s, buf + off, len);
	}
	if (ret)
		goto unlock;
	if (addrs->on)
		*hits += bloom_store_query_addrs(s, addrs->keys, n, results);
	else
		*hits += bloom_store_query_hashes(s, hashes, n, results);
unlock:
	rcu_read_unlock();
	return ret;
}

/*
 * The answers are out: count them. Without a bitmap to copy out they are
 * as soon as the last chunk ran; a bitmap that cannot be written fails the
 * call uncounted.
 */
static int bloom_query_done(struct bloom_filter *f, struct bloom_batch *b,
			    const u8 *results, u32 hits)
{
	if (b->results && copy_to_user(u64_to_user_ptr(b->results), results,
				       DIV_ROUND_UP(b->nkeys, 8)))
		return -EFAULT;
	b->out_done = b->nkeys;
	b->out_hits = hits;
	bloom_query_count(f, b->nkeys, hits);
	return 0;
}

/*
 * A QUERY of at most BLOOM_STACK_QUERY_KEYS keys in BLOOM_SMALL_BYTES
 * (bloom_query_is_small(): a daemon asking about one address): everything
 * on the stack, one read section.
 */
int bloom_query_small(struct bloom_filter *f, struct bloom_batch *b)
{
	/*
	 * Each written before it is read: not zeroed first, which
	 * CONFIG_INIT_STACK_ALL_ZERO would do at every call.
	 */
	struct bloom_nb_key nb_keys[BLOOM_STACK_QUERY_KEYS] __uninitialized;
	u64 hashes[BLOOM_STACK_QUERY_KEYS] __uninitialized;
	u8 buf[BLOOM_SMALL_BYTES] __uninitialized;
	u8 results[BLOOM_STACK_QUERY_KEYS / 8] = { 0 };
	struct bloom_addrs addrs = { .keys = nb_keys };
	struct bloom_keys k = { .addrs = &addrs, .buf = buf,
				.size = sizeof(buf) };
	u32 hits = 0;
	int ret;

	/* the keys' lengths in @hashes, the keys in @buf (@addrs is off) */
	ret = bloom_batch_read(&k, b, hashes);
	if (ret)
		return ret;
	ret = bloom_query_chunk(f, b, &addrs, true, buf, hashes, 0, b->nkeys,
				b->results ? results : NULL, &hits);
	if (ret)
		return ret;
	return bloom_query_done(f, b, results, hits);
}

/*
 * Keys of one size per chunk of a larger QUERY: a multiple of 8 (a
 * results byte per 8 keys), at most BLOOM_STORE_CHUNK in BLOOM_CHUNK_BYTES;
 * 0 for keys too long for 8 a chunk.
 */
static u32 bloom_query_chunk_keys(const struct bloom_batch *b)
{
	return min_t(u32, BLOOM_STORE_CHUNK,
		     BLOOM_CHUNK_BYTES / b->key_size) & ~7U;
}

/* Whether @b (checked, not small) is queried by bloom_query_chunks(). */
bool bloom_query_is_chunked(const struct bloom_batch *b)
{
	return b->key_size && bloom_query_chunk_keys(b);
}

/*
 * A larger QUERY of keys of one size, a chunk at a time: copied in, then
 * queried as bloom_query_small() does. A QUERY changes nothing, so it
 * needs no first pass over the whole batch (the ADD and DELETE paths check
 * every key before the filter changes); an error in a later chunk fails
 * the call as it would have before any lookup. The memory is a chunk's,
 * not 8 bytes a key of the whole batch.
 */
int bloom_query_chunks(struct bloom_filter *f, struct bloom_batch *b)
{
	u32 size = b->key_size, chunk = bloom_query_chunk_keys(b);
	const u8 __user *ukeys = u64_to_user_ptr(b->keys);
	u32 i, j, n, hits = 0, nkeys = b->nkeys;
	size_t nb_bytes, result_bytes = DIV_ROUND_UP(nkeys, 8);
	struct bloom_addrs addrs = { };
	u8 *buf, *results;
	u64 *hashes;
	int ret;

	/*
	 * Whether the keys are addresses is decided once, from the kind the
	 * filter has now, as bloom_batch_run() does: a filter that gains
	 * its kind with a first add meanwhile is queried for these keys as
	 * they are, which for an address is its /32 or /128.
	 */
	ret = bloom_filter_keys(f, &addrs.kind, NULL);
	if (ret)
		return ret;
	ret = bloom_addrs_mode(&addrs, b->flags, BLOOM_STORE_QUERY);
	if (ret)
		return ret;
	/* no more room than the batch needs: the allocator may zero it all */
	chunk = min(chunk, round_up(nkeys, 8));
	nb_bytes = addrs.on ? array_size(chunk, sizeof(*addrs.keys)) : 0;
	hashes = bloom_kvmalloc(array_size(chunk, sizeof(*hashes) + size) +
				nb_bytes + result_bytes, GFP_KERNEL_ACCOUNT);
	if (!hashes)
		return -ENOMEM;
	buf = (u8 *)(hashes + chunk);
	results = buf + chunk * size;
	memset(results, 0, result_bytes);
	if (addrs.on)
		addrs.keys = (struct bloom_nb_key *)(results + result_bytes);
	for (i = 0; i < nkeys; i += n) {
		n = min(nkeys - i, chunk);
		ret = -EFAULT;
		if (copy_from_user(buf, ukeys + (u64)i * size, n * size))
			break;
		for (j = 0; j < n; j++)
			hashes[j] = size;
		ret = bloom_query_chunk(f, b, &addrs, false, buf, hashes, i, n,
					b->results ? results + i / 8 : NULL,
					&hits);
		if (ret)
			break;
		cond_resched();
	}
	if (!ret)
		ret = bloom_query_done(f, b, results, hits);
	bloom_kvfree(hashes);
	return ret;
}
