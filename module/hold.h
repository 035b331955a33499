/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An XDP program's hold of a filter (hold.c): taken once by the program's
 * loader (it runs the program that calls bpf_bloom_xdp_hold() once) and kept
 * in a map of the program's own, whose lifetime is the program's; the
 * kernel lets it go when that map is freed. While a filter is held, DESTROY
 * says EBUSY, as it does for a firewall rule, and INFO counts the holds and
 * names one holder's device.
 */
#ifndef BLOOM_HOLD_H
#define BLOOM_HOLD_H

#include <linux/types.h>

struct bloom_filter;
struct bloom_xdp_hold;
struct net;

/*
 * From any context (an XDP program's), no sleep: a hold of the filter of id
 * @id in @net for the program on device @ifindex, or NULL (no such filter,
 * destroyed meanwhile, no memory).
 */
struct bloom_xdp_hold *bloom_hold_new(struct net *net, u32 id, int ifindex);
/*
 * From any context: the hold ends now (DESTROY no longer sees it); the
 * struct and the filter's reference go after an RCU grace period.
 */
void bloom_hold_put(struct bloom_xdp_hold *h);
/*
 * The filter @h holds: valid while @h is, which is until the read side
 * that read @h from its map ends.
 */
struct bloom_filter *bloom_hold_filter(const struct bloom_xdp_hold *h);

#endif /* BLOOM_HOLD_H */
