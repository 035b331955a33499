/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pass one of a batch (batch_keys.c): the user's keys copied in a chunk at
 * a time, every length checked, each read as an address or netblock when
 * the batch is of them (store.h's struct bloom_addrs) and hashed. The calls
 * go one way: batch.c (entry points, checks, the two passes of ADD, DELETE
 * and the general QUERY) calls batch_query.c (the QUERY paths that need no
 * first pass over the whole batch) and this; batch_query.c calls this.
 */
#ifndef BLOOM_BATCH_KEYS_H
#define BLOOM_BATCH_KEYS_H

#include <linux/types.h>
#include <linux/bloom.h>

#include "store.h"

#define BLOOM_CHUNK_BYTES	(16 * 1024)	/* holds 4 keys of the longest size */
/*
 * Small batches (a daemon asking about one address) work on the stack: two
 * allocations would cost as much as the rest of the call.
 */
#define BLOOM_SMALL_KEYS	16
#define BLOOM_SMALL_BYTES	256
/* A QUERY of this many keys in BLOOM_SMALL_BYTES runs on the stack alone. */
#define BLOOM_STACK_QUERY_KEYS	8

/* The user's keys as pass one reads them. */
struct bloom_keys {
	/* what the keys are hashed with; NULL: each key's length is kept */
	const bloom_hash_key_t *key;
	struct bloom_addrs *addrs;
	const u8 __user *ukeys;
	const u32 __user *ulens;
	u64 keys_len;
	u64 copied;	/* bytes of the user's keys copied so far */
	u8 *buf;
	u32 size;	/* of buf: all the keys, or at least one longest key */
	u32 have;	/* bytes in buf */
	u32 pos;	/* offset of the next key in buf */
};

/*
 * Copies and checks every key of @b into @k's buffer, chunk by chunk, and
 * hashes each into @hashes with @k's key (or, without one, stores each
 * key's length there: the keys then all fit in the buffer, in order).
 */
int bloom_batch_read(struct bloom_keys *k, const struct bloom_batch *b,
		     u64 *hashes);
/*
 * Pass one: copies, checks and hashes every key of the batch with @key,
 * reading addresses and netblocks as @addrs says.
 */
int bloom_batch_hash(const bloom_hash_key_t *key, struct bloom_addrs *addrs,
		     const struct bloom_batch *b, u64 *hashes);

#endif /* BLOOM_BATCH_KEYS_H */
