/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The QUERY paths that need no first pass over the whole batch
 * (batch_query.c), for batch.c, which checked the request.
 */
#ifndef BLOOM_BATCH_QUERY_H
#define BLOOM_BATCH_QUERY_H

#include <linux/types.h>
#include <linux/bloom.h>

#include "batch_keys.h"

struct bloom_filter;

/* Whether @b (checked) is a QUERY of a few keys, run on the stack. */
static inline bool bloom_query_is_small(const struct bloom_batch *b)
{
	return b->nkeys <= BLOOM_STACK_QUERY_KEYS &&
	       b->keys_len <= BLOOM_SMALL_BYTES;
}

int bloom_query_small(struct bloom_filter *f, struct bloom_batch *b);
/* Whether @b (checked, not small) is queried by bloom_query_chunks(). */
bool bloom_query_is_chunked(const struct bloom_batch *b);
int bloom_query_chunks(struct bloom_filter *f, struct bloom_batch *b);
/* Counts a QUERY whose answers reached the caller in the store now. */
void bloom_query_count(struct bloom_filter *f, u32 done, u32 hits);

#endif /* BLOOM_BATCH_QUERY_H */
