// SPDX-License-Identifier: GPL-2.0
/*
 * ADD, QUERY and DELETE batches.
 *
 * A QUERY changes nothing, so it runs a chunk at a time when it can: its
 * keys copied in, then read, hashed with the key of the store published
 * now and looked up in one read section (bloom_query_chunk()). A few keys
 * (a daemon asking about one address) use the stack only; keys of one size
 * use one buffer of a chunk's keys and hashes. Other QUERY batches, and
 * every ADD and DELETE, run as follows.
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
 * Queries take no lock: they apply the hashes under rcu_read_lock(),
 * BLOOM_APPLY_CHUNK keys at a time, and may yield between chunks. Each
 * chunk uses the store published at its start: a destroy between two
 * chunks fails the batch with ESTALE, a replace with another hash key
 * makes the rest of the batch be hashed again with the new key from the
 * user's keys.
 *
 *
 * Addresses and netblocks (BLOOM_BATCH_F_NET, or a filter of kind ipv4 or
 * ipv6): pass one also reads every key as one (module/core/netblock.h) and
 * keeps its prefix length; ADD and DELETE count the lengths of the keys
 * they added or removed in the store they were applied to. A QUERY of
 * them keeps the parsed keys instead of hashes: each is looked up over the
 * lengths present in the store of its chunk (bloom_nb_query()), hashed
 * there with that store's key.
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
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "alloc.h"
#include "batch.h"
#include "filter.h"

#define BLOOM_CHUNK_BYTES	(16 * 1024)	/* holds 4 keys of the longest size */
#define BLOOM_LENS_CHUNK	64
/* Keys per RCU read section; a multiple of 8, one results byte per 8 keys. */
#define BLOOM_APPLY_CHUNK	1024
/*
 * Small batches (a daemon asking about one address) work on the stack: two
 * allocations would cost as much as the rest of the call.
 */
#define BLOOM_SMALL_KEYS	16
#define BLOOM_SMALL_BYTES	256
/* A QUERY of this many keys in BLOOM_SMALL_BYTES runs on the stack alone. */
#define BLOOM_STACK_QUERY_KEYS	8

/* Pass one of a batch of addresses and netblocks. */
struct bloom_net {
	bool on;
	bool implied;	/* by the filter's kind, not asked for */
	bool query;	/* keep the keys (@keys), not their hashes */
	u8 family;
	u32 kind;	/* the filter's, when pass one began */
	u8 *plens;	/* ADD, DELETE: each key's prefix length */
	struct bloom_nb_key *keys;	/* QUERY: each key */
};

struct bloom_keys {
	const struct bloom_core *hasher;
	struct bloom_net *net;
	const u8 __user *ukeys;
	const u32 __user *ulens;
	u64 keys_len;
	u64 copied;	/* bytes of the user's keys copied so far */
	u8 *buf;
	u32 size;	/* of buf: all the keys, or at least one longest key */
	u32 have;	/* bytes in buf */
	u32 pos;	/* offset of the next key in buf */
};

enum bloom_batch_op {
	BLOOM_BATCH_QUERY,
	BLOOM_BATCH_ADD,
	BLOOM_BATCH_DELETE,
};

static int bloom_batch_check(const struct bloom_batch *b,
			     enum bloom_batch_op op)
{
	if (b->flags & ~BLOOM_BATCH_F_ALL || b->reserved)
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

/*
 * Key @i read as an address or netblock, kept in slot @slot of @net's
 * keys or lengths: -EINVAL when it is none or of
 * the batch's other family, -EPROTOTYPE when the filter's kind (not the
 * caller) asked for addresses or the family is not the kind's.
 */
static int bloom_net_one(struct bloom_net *net, const u8 *key, u32 len, u32 i,
			 u32 slot)
{
	struct bloom_nb_key nk;

	if (bloom_nb_parse(key, len, &nk))
		return net->implied ? -EPROTOTYPE : -EINVAL;
	if (net->kind && net->kind != bloom_nb_kind(nk.family))
		return -EPROTOTYPE;
	if (!i)
		net->family = nk.family;
	else if (nk.family != net->family)
		return -EINVAL;
	if (net->query)
		net->keys[slot] = nk;
	else
		net->plens[slot] = nk.plen;
	return 0;
}

/* Key @i, of @len bytes at @key, read (netblocks) and hashed into @hash. */
static int bloom_key_one(struct bloom_keys *k, const u8 *key, u32 len, u32 i,
			 u64 *hash)
{
	int ret;

	if (k->net->on) {
		ret = bloom_net_one(k->net, key, len, i, i);
		if (ret)
			return ret;
	}
	if (!k->hasher)
		*hash = len;	/* hashed later: bloom_batch_query_small() */
	else
		*hash = k->net->query ? 0 : bloom_core_hash(k->hasher, key, len);
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

/*
 * Copies and checks every key of @b into @k's buffer, chunk by chunk, and
 * hashes each into @hashes with @k's hasher (or, without one, stores each
 * key's length there: the keys then all fit in the buffer, in order).
 */
static int bloom_batch_read(struct bloom_keys *k, const struct bloom_batch *b,
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
		if (!b->key_size &&
		    copy_from_user(lens, k->ulens + i, n * sizeof(*lens)))
			return -EFAULT;
		for (j = 0; j < n && !ret; j++)
			ret = bloom_hash_one(k, b->key_size ?: lens[j], i + j,
					     &hashes[i + j]);
		/* A full batch is 4 MiB of hashing: let others run. */
		if (b->nkeys > BLOOM_LENS_CHUNK)
			cond_resched();
	}
	/* Every byte of keys_len must belong to a key. */
	if (!ret && (k->copied != k->keys_len || k->pos != k->have))
		ret = -EINVAL;
	return ret;
}

/*
 * Pass one: copies, checks and hashes every key of the batch with the hash
 * key of @hasher (the only field of it that is used).
 */
static int bloom_batch_hash(const struct bloom_core *hasher,
			    struct bloom_net *net,
			    const struct bloom_batch *b, u64 *hashes)
{
	struct bloom_keys k = { .hasher = hasher, .net = net };
	u8 small[BLOOM_SMALL_BYTES] __uninitialized;	/* copied in first */
	int ret;

	if (b->keys_len <= sizeof(small)) {
		k.buf = small;
		k.size = sizeof(small);
	} else {
		k.size = min_t(u64, BLOOM_CHUNK_BYTES, b->keys_len);
		/* not zeroed: only what was copied in is read */
		k.buf = bloom_kvmalloc(k.size, GFP_KERNEL);
		if (!k.buf)
			return -ENOMEM;
	}
	ret = bloom_batch_read(&k, b, hashes);
	if (k.buf != small)
		bloom_kvfree(k.buf);
	return ret;
}

/* What pass two needs; @hasher carries the hash key the hashes were made with. */
struct bloom_apply {
	struct bloom_filter *f;
	struct bloom_batch *b;
	enum bloom_batch_op op;
	struct bloom_core hasher;
	struct bloom_net net;
	u64 *hashes;
	u8 *results;	/* NULL when the caller wants no bitmap */
	u8 *pinned;	/* DELETE: NULL when the caller wants no bitmap */
	u32 done;
	u32 hits;
	u32 npinned;	/* DELETE: keys pinned */
	bool partial;	/* failed, but done and hits are what went in */
};

static bool bloom_same_key(const bloom_hash_key_t *a, const bloom_hash_key_t *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* Hashes the batch again with @key, the key of the store now published. */
static int bloom_apply_rehash(struct bloom_apply *a, const bloom_hash_key_t *key)
{
	a->hasher.key = *key;
	return bloom_batch_hash(&a->hasher, &a->net, a->b, a->hashes);
}

/* DELETE: @hits removed, @pinned pinned, the rest not found. */
static void bloom_apply_stats(struct bloom_store *s, enum bloom_batch_op op,
			      u32 done, u32 hits, u32 pinned)
{
	switch (op) {
	case BLOOM_BATCH_QUERY:
		this_cpu_add(s->stats->queries, done);
		this_cpu_add(s->stats->hits, hits);
		break;
	case BLOOM_BATCH_ADD:
		/* count: kept by the core (keys), which sees each key */
		this_cpu_add(s->stats->adds, done);
		break;
	case BLOOM_BATCH_DELETE:
		this_cpu_add(s->stats->deletes, hits);
		this_cpu_add(s->stats->delete_pinned, pinned);
		this_cpu_add(s->stats->delete_misses, done - hits - pinned);
		break;
	}
}

/*
 * A batch of addresses about to change store @s: an ADD gives a filter of
 * no kind the batch's; -EPROTOTYPE when the store holds another kind (a
 * replace brought it, or another adder was first).
 */
static int bloom_net_kind(struct bloom_apply *a, struct bloom_store *s)
{
	u32 want, kind;

	if (!a->net.on || a->op == BLOOM_BATCH_QUERY)
		return 0;
	want = bloom_nb_kind(a->net.family);
	kind = READ_ONCE(s->nb.kind);
	if (!kind && a->op == BLOOM_BATCH_ADD)
		kind = cmpxchg(&s->nb.kind, 0, want) ?: want;
	return kind && kind != want ? -EPROTOTYPE : 0;
}

/*
 * Counts the lengths of keys [@from, @to) in @s: every key an ADD applied,
 * the keys a DELETE removed (their bits in @a->results).
 */
static void bloom_net_account(struct bloom_apply *a, struct bloom_store *s,
			      u32 from, u32 to)
{
	u32 i;

	if (!a->net.on || a->op == BLOOM_BATCH_QUERY)
		return;
	for (i = from; i < to; i++) {
		if (a->op == BLOOM_BATCH_ADD)
			bloom_nb_account(&s->nb, a->net.family,
					 a->net.plens[i], 1);
		else if (a->results[i / 8] & BIT(i % 8))
			bloom_nb_account(&s->nb, a->net.family,
					 a->net.plens[i], -1);
	}
}

/* QUERY of @n addresses, results from bit 0 of @results. */
static u32 bloom_net_query(const struct bloom_nb_key *k, struct bloom_store *s,
			   u32 n, u8 *results)
{
	u32 i, hits = 0;
	bool hit;

	for (i = 0; i < n; i++, k++) {
		hit = bloom_nb_query(&s->core, &s->nb, k->family, k->addr,
				     k->plen);
		hits += hit;
		if (!results)
			continue;
		if (!(i % 8))
			results[i / 8] = 0;
		if (hit)
			results[i / 8] |= BIT(i % 8);
	}
	return hits;
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
	bloom_net_account(a, s, from, from + done);
	a->done += done;
	return done == len;
}

/*
 * ADD and DELETE: every writer of a filter holds its write_lock (the core
 * needs its writers serialised, core.h), taken once for the whole batch;
 * under it the store cannot change or go. The keys go in
 * BLOOM_APPLY_CHUNK at a time, each chunk under rcu_read_lock() too: an
 * expiring filter's rotation waits for a grace period, not for this lock,
 * before it clears the generation that adds stopped going to (expire.c).
 * A scalable filter whose newest stage is full grows here, under the lock,
 * and the batch goes on from the key that did not fit.
 */
static int bloom_apply_locked(struct bloom_apply *a)
{
	u32 n = a->b->nkeys;
	struct bloom_store *s;
	bool all;
	int ret;

	if (mutex_lock_killable(&a->f->write_lock))
		return -EINTR;
	s = bloom_filter_store_locked(a->f);
	ret = -ESTALE;
	if (!s)
		goto out;
	if (!bloom_same_key(&s->core.key, &a->hasher.key)) {
		ret = bloom_apply_rehash(a, &s->core.key);
		if (ret)
			goto out;
	}
	ret = bloom_net_kind(a, s);
	if (ret)
		goto out;
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
	bloom_apply_stats(s, a->op, a->done, a->hits, a->npinned);
out:
	mutex_unlock(&a->f->write_lock);
	return ret;
}

/* Queries: RCU only. */
static int bloom_apply_rcu(struct bloom_apply *a)
{
	u32 n = a->b->nkeys, len, hits;
	bloom_hash_key_t key;
	struct bloom_store *s;
	u8 *results;
	int ret;

	while (a->done < n) {
		len = min_t(u32, n - a->done, BLOOM_APPLY_CHUNK);
		results = a->results ? a->results + a->done / 8 : NULL;
		rcu_read_lock();
		s = bloom_filter_store(a->f);
		if (!s) {
			rcu_read_unlock();
			return -ESTALE;
		}
		if (a->net.query) {
			hits = bloom_net_query(a->net.keys + a->done, s, len,
					       results);
		} else if (!bloom_same_key(&s->core.key, &a->hasher.key)) {
			key = s->core.key;
			rcu_read_unlock();
			if (fatal_signal_pending(current))
				return -EINTR;
			ret = bloom_apply_rehash(a, &key);
			memzero_explicit(&key, sizeof(key));
			if (ret)
				return ret;
			continue;
		} else {
			hits = bloom_core_query_batch(&s->core,
						      a->hashes + a->done, len,
						      results);
		}
		/* A query counts once its answers reached the caller. */
		rcu_read_unlock();
		a->done += len;
		a->hits += hits;
		cond_resched();
	}
	return 0;
}

/* Pass two: writers under the filter's lock, queries under RCU alone. */
static int bloom_batch_apply(struct bloom_apply *a)
{
	return a->op == BLOOM_BATCH_QUERY ? bloom_apply_rcu(a) :
					    bloom_apply_locked(a);
}

/* Counts a query in the store published now (if any). */
static void bloom_batch_count_queries(struct bloom_filter *f, u32 done, u32 hits)
{
	struct bloom_store *s;

	rcu_read_lock();
	s = bloom_filter_store(f);
	if (s)
		bloom_apply_stats(s, BLOOM_BATCH_QUERY, done, hits, 0);
	rcu_read_unlock();
}

/*
 * The hash key and key kind of @f's store now: false once @f was
 * destroyed.
 */
static bool bloom_batch_key(struct bloom_filter *f, bloom_hash_key_t *key,
			    u32 *kind)
{
	struct bloom_store *s;

	rcu_read_lock();
	s = bloom_filter_store(f);
	if (s) {
		*key = s->core.key;
		*kind = READ_ONCE(s->nb.kind);
	}
	rcu_read_unlock();
	return s;
}

/* The key kind of @f's store now: -ESTALE once @f was destroyed. */
static int bloom_batch_kind(struct bloom_filter *f, u32 *kind)
{
	struct bloom_store *s;

	rcu_read_lock();
	s = bloom_filter_store(f);
	if (s)
		*kind = READ_ONCE(s->nb.kind);
	rcu_read_unlock();
	return s ? 0 : -ESTALE;
}

/*
 * Whether the batch is of addresses and netblocks (asked, or implied by
 * the kind of the filter, in @net->kind): 0 or -EPROTOTYPE (a filter of
 * strings).
 */
static int bloom_net_mode(struct bloom_net *net, const struct bloom_batch *b,
			  enum bloom_batch_op op)
{
	if (b->flags & BLOOM_BATCH_F_NET && net->kind == BLOOM_KEYS_STRINGS)
		return -EPROTOTYPE;
	net->implied = !(b->flags & BLOOM_BATCH_F_NET) &&
		       (net->kind == BLOOM_KEYS_IPV4 ||
			net->kind == BLOOM_KEYS_IPV6);
	net->on = net->implied || b->flags & BLOOM_BATCH_F_NET;
	if (net->kind == BLOOM_KEYS_STRINGS)
		net->kind = 0;
	net->query = net->on && op == BLOOM_BATCH_QUERY;
	return 0;
}

/*
 * bloom_net_mode(), and room for what pass one keeps of the keys: 0,
 * -EPROTOTYPE, -ENOMEM.
 */
static int bloom_net_setup(struct bloom_apply *a)
{
	struct bloom_net *net = &a->net;
	u32 n = a->b->nkeys;
	int ret;

	ret = bloom_net_mode(net, a->b, a->op);
	if (ret || !net->on)
		return ret;
	if (net->query)
		net->keys = bloom_kvzalloc(array_size(n, sizeof(*net->keys)),
					   GFP_KERNEL);
	else
		net->plens = bloom_kvzalloc(n, GFP_KERNEL);
	return net->keys || net->plens ? 0 : -ENOMEM;
}

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

	ret = bloom_batch_start(b, op);
	if (ret || !b->nkeys)
		return ret;
	if (!bloom_batch_key(f, &a.hasher.key, &a.net.kind))
		return -ESTALE;
	ret = bloom_net_setup(&a);
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
					  2 * result_bytes, GFP_KERNEL);
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

	ret = bloom_batch_hash(&a.hasher, &a.net, b, a.hashes);
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
		/* a scalable ADD that could not grow: what went in stays */
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
		bloom_batch_count_queries(f, a.done, a.hits);
out:
	if (a.hashes != small)
		bloom_kvfree(a.hashes);
out_key:
	bloom_kvfree(a.net.keys);
	bloom_kvfree(a.net.plens);
	memzero_explicit(&a.hasher.key, sizeof(a.hasher.key));
	return ret;
}

/*
 * Queries @n keys (their lengths in @hashes, their bytes one after the
 * other in @buf), the first of them key @from of the batch: under one read
 * section, read as addresses if @net is on, hashed with the key of the
 * store published now, looked up. With @decide, whether @net is on is
 * decided first, from the store's kind. Their results go to @results from
 * bit 0 (NULL: none wanted); @hits grows by theirs.
 */
static int bloom_query_chunk(struct bloom_filter *f, const struct bloom_batch *b,
			     struct bloom_net *net, bool decide, const u8 *buf,
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
		net->kind = READ_ONCE(s->nb.kind);
		ret = bloom_net_mode(net, b, BLOOM_BATCH_QUERY);
	}
	for (i = 0; i < n && !ret; i++, off += len) {
		len = hashes[i];
		if (net->on)
			ret = bloom_net_one(net, buf + off, len, from + i, i);
		else
			hashes[i] = bloom_core_hash(&s->core, buf + off, len);
	}
	if (ret)
		goto unlock;
	if (net->on)
		*hits += bloom_net_query(net->keys, s, n, results);
	else
		*hits += bloom_core_query_batch(&s->core, hashes, n, results);
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
	bloom_batch_count_queries(f, b->nkeys, hits);
	return 0;
}

/*
 * A QUERY of at most BLOOM_STACK_QUERY_KEYS keys in BLOOM_SMALL_BYTES (a
 * daemon asking about one address): everything on the stack, one read
 * section.
 */
static int bloom_batch_query_small(struct bloom_filter *f,
				   struct bloom_batch *b)
{
	/*
	 * Each written before it is read: not zeroed first, which
	 * CONFIG_INIT_STACK_ALL_ZERO would do at every call.
	 */
	struct bloom_nb_key nb_keys[BLOOM_STACK_QUERY_KEYS] __uninitialized;
	u64 hashes[BLOOM_STACK_QUERY_KEYS] __uninitialized;
	u8 buf[BLOOM_SMALL_BYTES] __uninitialized;
	u8 results[BLOOM_STACK_QUERY_KEYS / 8] = { 0 };
	struct bloom_net net = { .keys = nb_keys };
	struct bloom_keys k = { .net = &net, .buf = buf, .size = sizeof(buf) };
	u32 hits = 0;
	int ret;

	/* the keys' lengths in @hashes, the keys in @buf (@net is off) */
	ret = bloom_batch_read(&k, b, hashes);
	if (!ret)
		ret = bloom_query_chunk(f, b, &net, true, buf, hashes, 0,
					b->nkeys, b->results ? results : NULL,
					&hits);
	return ret ?: bloom_query_done(f, b, results, hits);
}

/*
 * Keys of one size per chunk of a larger QUERY: a multiple of 8 (a
 * results byte per 8 keys), at most BLOOM_APPLY_CHUNK in BLOOM_CHUNK_BYTES;
 * 0 for keys too long for 8 a chunk.
 */
static u32 bloom_query_chunk_keys(const struct bloom_batch *b)
{
	return min_t(u32, BLOOM_APPLY_CHUNK,
		     BLOOM_CHUNK_BYTES / b->key_size) & ~7U;
}

/*
 * A larger QUERY of keys of one size, a chunk at a time: copied in, then
 * queried as bloom_batch_query_small() does. A QUERY changes nothing, so
 * it needs no first pass over the whole batch (the ADD and DELETE paths
 * check every key before the filter changes); an error in a later chunk
 * fails the call as it would have before any lookup. The memory is a
 * chunk's, not 8 bytes a key of the whole batch.
 */
static int bloom_batch_query_chunks(struct bloom_filter *f,
				    struct bloom_batch *b)
{
	u32 size = b->key_size, chunk = bloom_query_chunk_keys(b);
	const u8 __user *ukeys = u64_to_user_ptr(b->keys);
	u32 i, j, n, hits = 0, nkeys = b->nkeys;
	size_t nb_bytes, result_bytes = DIV_ROUND_UP(nkeys, 8);
	struct bloom_net net = { };
	u8 *buf, *results;
	u64 *hashes;
	int ret;

	/*
	 * Whether the keys are addresses is decided once, from the kind the
	 * filter has now, as bloom_batch_run() does: a filter that gains
	 * its kind with a first add meanwhile is queried for these keys as
	 * they are, which for an address is its /32 or /128.
	 */
	ret = bloom_batch_kind(f, &net.kind);
	if (!ret)
		ret = bloom_net_mode(&net, b, BLOOM_BATCH_QUERY);
	if (ret)
		return ret;
	/* no more room than the batch needs: the allocator may zero it all */
	chunk = min(chunk, round_up(nkeys, 8));
	nb_bytes = net.on ? array_size(chunk, sizeof(*net.keys)) : 0;
	hashes = bloom_kvmalloc(array_size(chunk, sizeof(*hashes) + size) +
				nb_bytes + result_bytes, GFP_KERNEL);
	if (!hashes)
		return -ENOMEM;
	buf = (u8 *)(hashes + chunk);
	results = buf + chunk * size;
	memset(results, 0, result_bytes);
	if (net.on)
		net.keys = (struct bloom_nb_key *)(results + result_bytes);
	for (i = 0; i < nkeys; i += n) {
		n = min(nkeys - i, chunk);
		ret = -EFAULT;
		if (copy_from_user(buf, ukeys + (u64)i * size, n * size))
			break;
		for (j = 0; j < n; j++)
			hashes[j] = size;
		ret = bloom_query_chunk(f, b, &net, false, buf, hashes, i, n,
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

int bloom_batch_query(struct bloom_filter *f, struct bloom_batch *b)
{
	int ret;

	ret = bloom_batch_start(b, BLOOM_BATCH_QUERY);
	if (ret || !b->nkeys)
		return ret;
	if (b->nkeys <= BLOOM_STACK_QUERY_KEYS &&
	    b->keys_len <= BLOOM_SMALL_BYTES)
		return bloom_batch_query_small(f, b);
	if (b->key_size && bloom_query_chunk_keys(b))
		return bloom_batch_query_chunks(f, b);
	return bloom_batch_run(f, b, BLOOM_BATCH_QUERY);
}

/* out_done is set once the keys are in, even if results faulted. */
int bloom_batch_add(struct bloom_filter *f, struct bloom_batch *b)
{
	return bloom_batch_run(f, b, BLOOM_BATCH_ADD);
}

/* out_done is set once the keys are out, even if results faulted. */
int bloom_batch_delete(struct bloom_filter *f, struct bloom_batch *b)
{
	struct bloom_store *s;
	bool can;

	rcu_read_lock();
	s = bloom_filter_store(f);
	can = s && bloom_core_can_delete(&s->core);
	rcu_read_unlock();
	if (!s)
		return -ESTALE;
	if (!can)
		return -EOPNOTSUPP;
	return bloom_batch_run(f, b, BLOOM_BATCH_DELETE);
}
