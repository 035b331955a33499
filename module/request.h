/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ioctl side's decoding of requests and filling of replies
 * (request.c): every field of a create request checked and turned into a
 * new store and filter, and INFO's and STAGES' replies filled from a
 * filter, for the ioctl handlers (ioctl.c); the filter, store and registry
 * know nothing of the uapi structs.
 */
#ifndef BLOOM_REQUEST_H
#define BLOOM_REQUEST_H

#include <linux/bloom.h>

struct bloom_filter;
struct net;

/*
 * The filter a CREATE asks for, not yet registered (a reference the
 * caller puts): sized from capacity and rate, from any two of the sizing
 * figures, from an explicit geometry, scalable, or like @net's filter
 * named in @c->like. 0 or a negative errno of the uapi header's list.
 */
int bloom_request_create(struct net *net, const struct bloom_create *c,
			 struct bloom_filter **out);

/* INFO's reply, zeroed then filled (name and size kept); -ESTALE. */
int bloom_request_info(struct bloom_filter *f, struct bloom_info *info);

/*
 * STAGES' reply: the stages copied to the caller's array, out_count set;
 * -EOPNOTSUPP for a filter that is not scalable, -ESTALE, -EFAULT,
 * -ENOMEM.
 */
int bloom_request_stages(struct bloom_filter *f, struct bloom_stages *arg);

#endif /* BLOOM_REQUEST_H */
