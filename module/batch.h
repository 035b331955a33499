/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BLOOM_BATCH_H
#define BLOOM_BATCH_H

#include <linux/bloom.h>

struct bloom_filter;

int bloom_batch_add(struct bloom_filter *f, struct bloom_batch *b);
int bloom_batch_query(struct bloom_filter *f, struct bloom_batch *b);
int bloom_batch_delete(struct bloom_filter *f, struct bloom_batch *b);

#endif /* BLOOM_BATCH_H */
