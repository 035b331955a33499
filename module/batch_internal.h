/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the passes of a batch share (batch.c has the order they run in).
 * The calls go one way: batch.c (entry points, checks, pass two of ADD and
 * DELETE) calls batch_query.c (the QUERY paths), batch_keys.c (reading and
 * hashing keys) and batch_net.c (addresses and netblocks); batch_query.c
 * calls batch_keys.c and batch_net.c; batch_keys.c calls batch_net.c.
 */
#ifndef BLOOM_BATCH_INTERNAL_H
#define BLOOM_BATCH_INTERNAL_H

#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/bloom.h>

#include "core.h"
#include "netblock.h"

struct bloom_filter;
struct bloom_store;

#define BLOOM_CHUNK_BYTES	(16 * 1024)	/* holds 4 keys of the longest size */
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
/* Hash keys a batch follows before it fails with -EAGAIN. */
#define BLOOM_REHASH_MAX	8

enum bloom_batch_op {
	BLOOM_BATCH_QUERY,
	BLOOM_BATCH_ADD,
	BLOOM_BATCH_DELETE,
};

/* Pass one of a batch of addresses and netblocks (batch_net.c). */
struct bloom_net {
	bool on;
	bool implied;	/* by the filter's kind, not asked for */
	bool query;	/* keep the keys (@keys), not their hashes */
	u8 family;
	u32 kind;	/* the filter's, when pass one began */
	u8 *plens;	/* ADD, DELETE: each key's prefix length */
	struct bloom_nb_key *keys;	/* QUERY: each key */
};

/* The user's keys as pass one reads them (batch_keys.c). */
struct bloom_keys {
	/* what the keys are hashed with; NULL: each key's length is kept */
	const bloom_hash_key_t *key;
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

/* What pass two needs; @key is the hash key the hashes were made with. */
struct bloom_apply {
	struct bloom_filter *f;
	struct bloom_batch *b;
	enum bloom_batch_op op;
	bloom_hash_key_t key;
	struct bloom_net net;
	u64 *hashes;
	u8 *results;	/* NULL when the caller wants no bitmap */
	u8 *pinned;	/* DELETE: NULL when the caller wants no bitmap */
	u32 done;
	u32 hits;
	u32 npinned;	/* DELETE: keys pinned */
	u32 rehashes;	/* times the hash key changed during the call */
	bool partial;	/* failed, but done and hits are what went in */
	/* ADD with BLOOM_BATCH_F_TIMEOUT: each key's, or NULL: @timeout_s */
	bool timed;
	u32 timeout_s;
	u32 *timeouts;
};

/* batch_keys.c: pass one. */

/*
 * Copies and checks every key of @b into @k's buffer, chunk by chunk, and
 * hashes each into @hashes with @k's key (or, without one, stores each
 * key's length there: the keys then all fit in the buffer, in order).
 */
int bloom_batch_read(struct bloom_keys *k, const struct bloom_batch *b,
		     u64 *hashes);
/*
 * Pass one: copies, checks and hashes every key of the batch with @key,
 * reading addresses and netblocks as @net says.
 */
int bloom_batch_hash(const bloom_hash_key_t *key, struct bloom_net *net,
		     const struct bloom_batch *b, u64 *hashes);

static inline bool bloom_same_key(const bloom_hash_key_t *a,
				  const bloom_hash_key_t *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/*
 * Hashes the batch again with @key, the key of the store now published,
 * from the user's keys: never under a lock. A batch whose filter changes
 * its hash key more than BLOOM_REHASH_MAX times during the call fails
 * with -EAGAIN, before a writer changed anything: a bound on what a
 * stream of swaps can make one call cost.
 */
static inline int bloom_apply_rehash(struct bloom_apply *a,
				     const bloom_hash_key_t *key)
{
	if (a->rehashes++ == BLOOM_REHASH_MAX)
		return -EAGAIN;
	if (fatal_signal_pending(current))
		return -EINTR;
	a->key = *key;
	return bloom_batch_hash(&a->key, &a->net, a->b, a->hashes);
}

/* batch_net.c: addresses and netblocks. */

int bloom_net_one(struct bloom_net *net, const u8 *key, u32 len, u32 i,
		  u32 slot);
int bloom_net_mode(struct bloom_net *net, const struct bloom_batch *b,
		   enum bloom_batch_op op);
int bloom_net_setup(struct bloom_net *net, const struct bloom_batch *b,
		    enum bloom_batch_op op);
void bloom_net_free(struct bloom_net *net);
int bloom_net_kind(const struct bloom_net *net, enum bloom_batch_op op,
		   struct bloom_store *s);
int bloom_net_plan(const struct bloom_net *net, enum bloom_batch_op op,
		   const struct bloom_store *s, u32 n);
void bloom_net_account(const struct bloom_net *net, enum bloom_batch_op op,
		       struct bloom_store *s, const u8 *results, u32 from,
		       u32 to);
u32 bloom_net_query(const struct bloom_nb_key *k, struct bloom_store *s,
		    u32 n, u8 *results);

/* batch_query.c: the QUERY paths. */

/* Whether @b (checked) is a QUERY of a few keys, run on the stack. */
static inline bool bloom_query_is_small(const struct bloom_batch *b)
{
	return b->nkeys <= BLOOM_STACK_QUERY_KEYS &&
	       b->keys_len <= BLOOM_SMALL_BYTES;
}

int bloom_query_small(struct bloom_filter *f, struct bloom_batch *b);
bool bloom_query_is_chunked(const struct bloom_batch *b);
int bloom_query_chunks(struct bloom_filter *f, struct bloom_batch *b);
int bloom_query_apply(struct bloom_apply *a);
void bloom_query_count(struct bloom_filter *f, u32 done, u32 hits);

#endif /* BLOOM_BATCH_INTERNAL_H */
