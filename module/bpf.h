/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kfuncs of XDP and tc programs (bpf.c): registered at module load
 * when the module has BTF. Nothing to undo at exit: the kernel drops a
 * module's kfuncs with its BTF, and a loaded program that calls them holds
 * the module.
 */
#ifndef BLOOM_BPF_H
#define BLOOM_BPF_H

#include <linux/types.h>

struct __sk_buff;
struct bloom_xdp_hold;
struct xdp_md;

/*
 * The kfuncs, called by BPF programs only (declared here so that every
 * definition has a prototype); bpf.c and Documentation/userspace-api.rst
 * have what they return.
 */
int bpf_bloom_xdp_query(struct xdp_md *ctx, u32 filter_id, const void *key,
			u32 key__sz);
int bpf_bloom_skb_query(struct __sk_buff *skb, u32 filter_id, const void *key,
			u32 key__sz);
int bpf_bloom_xdp_lookup_addr(struct xdp_md *ctx, u32 filter_id,
			      const void *addr, u32 addr__sz);
int bpf_bloom_skb_lookup_addr(struct __sk_buff *skb, u32 filter_id,
			      const void *addr, u32 addr__sz);
struct bloom_xdp_hold *bpf_bloom_xdp_hold(struct xdp_md *ctx, u32 filter_id);
void bpf_bloom_xdp_hold_release(struct bloom_xdp_hold *hold);
int bpf_bloom_hold_query(struct bloom_xdp_hold **hold, const void *key,
			 u32 key__sz);
int bpf_bloom_hold_lookup_addr(struct bloom_xdp_hold **hold,
			       const void *addr, u32 addr__sz);

/* Last at init, once the registry is ready: never fails the load. */
void bloom_bpf_init(void);

#endif /* BLOOM_BPF_H */
