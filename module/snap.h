/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Snapshots (snap.c): SAVE and RESTORE. Each returns 0 or a negative errno
 * of the uapi header's list; the caller checked CAP_NET_ADMIN and holds a
 * reference to the filter it passes.
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

#endif /* BLOOM_SNAP_H */
