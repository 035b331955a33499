/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whole-filter commands (snap.c): SAVE, RESTORE, MERGE, SWAP, FLUSH and
 * create with BLOOM_CREATE_F_LIKE. Each returns 0 or a negative errno of the
 * uapi header's list; the caller checked CAP_NET_ADMIN and holds a
 * reference to every filter it passes.
 */
#ifndef BLOOM_SNAP_H
#define BLOOM_SNAP_H

#include <linux/bloom.h>

struct bloom_filter;
struct net;

int bloom_snap_save(struct bloom_filter *f, struct bloom_save *arg);
/*
 * Creates and registers the filter in @net, or replaces the store of @net's
 * filter of that name.
 */
int bloom_snap_restore(struct net *net, struct bloom_restore *arg);
int bloom_snap_merge(struct bloom_filter *dst, struct bloom_filter *src);
int bloom_snap_flush(struct bloom_filter *f);
int bloom_snap_swap(struct bloom_filter *a, struct bloom_filter *b);
/* The new filter of create --like (the model is @net's), not yet registered. */
int bloom_snap_new_like(struct net *net, const struct bloom_create *c,
			struct bloom_filter **out);

#endif /* BLOOM_SNAP_H */
