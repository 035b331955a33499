/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * bloom's kfuncs for BPF C: XDP and tc (SCHED_CLS) programs look keys and
 * addresses up in bloom filters, named by id. The specification is
 * "BPF programs" in Documentation/userspace-api.rst of bloom's source tree.
 *
 * Include after the headers that define the context types (<linux/bpf.h>
 * or vmlinux.h) and <bpf/bpf_helpers.h> (__ksym):
 *
 *	__u32 filter_id;	(from the loader: bloomctl info NAME, "id")
 *	int ret = bpf_bloom_xdp_lookup_addr(ctx, filter_id, &iph->saddr, 4);
 *	if (ret > 0)
 *		return XDP_DROP;
 *
 * 1: may be present, 0: absent, -ENOENT: no filter of that id in the
 * network namespace of the packet's device, -EINVAL: key size 0 or above
 * BLOOM_KEY_MAX (an address: size not 4 or 16). The key must be memory the
 * program may read and write (packet data, stack, a map value), of at
 * least the size given.
 */
#ifndef _BLOOM_BPF_H
#define _BLOOM_BPF_H

#ifndef __ksym
#define __ksym __attribute__((section(".ksyms")))
#endif

struct xdp_md;
struct __sk_buff;

extern int bpf_bloom_xdp_query(struct xdp_md *ctx, __u32 filter_id,
			       const void *key, __u32 key__sz) __ksym;
extern int bpf_bloom_skb_query(struct __sk_buff *skb, __u32 filter_id,
			       const void *key, __u32 key__sz) __ksym;
/* An address (4 or 16 bytes), as the iptables match looks it up. */
extern int bpf_bloom_xdp_lookup_addr(struct xdp_md *ctx, __u32 filter_id,
				     const void *addr, __u32 addr__sz) __ksym;
extern int bpf_bloom_skb_lookup_addr(struct __sk_buff *skb, __u32 filter_id,
				     const void *addr, __u32 addr__sz) __ksym;

#endif /* _BLOOM_BPF_H */
