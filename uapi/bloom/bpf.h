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

/*
 * A hold of the filter @filter_id (of the frame's device's namespace) for
 * an XDP program on the frame's device, or NULL: kept in a map of the
 * program's own with bpf_kptr_xchg(), in a field declared
 *	struct bloom_xdp_hold __kptr_ref *hold;
 * (the "kptr_ref" BTF type tag: clang 15 or later), it makes DESTROY of
 * the filter fail with EBUSY until the map is freed, with the program. A
 * loader takes it once, running a program that calls this through
 * BPF_PROG_TEST_RUN with the device as ingress_ifindex. A hold the
 * program does not keep is let go of with bpf_bloom_xdp_hold_release().
 */
struct bloom_xdp_hold {
	int unused;	/* the name is what counts: the kernel's is opaque */
};

extern struct bloom_xdp_hold *bpf_bloom_xdp_hold(struct xdp_md *ctx,
						 __u32 filter_id) __ksym;
extern void bpf_bloom_xdp_hold_release(struct bloom_xdp_hold *hold) __ksym;

/*
 * Queries through a hold the program keeps: @hold is &value->hold, the
 * map value's __kptr_ref field (the value from bpf_map_lookup_elem(),
 * checked against NULL). No lookup of an id: the filter is the one the
 * hold names, with what it holds now (after SWAP too). 1, 0 and -EINVAL
 * as the calls by id; -ENOENT: the field holds no hold, or its filter was
 * destroyed.
 *
 *	struct slot *s = bpf_map_lookup_elem(&holds, &zero);
 *	if (s && bpf_bloom_hold_lookup_addr(&s->hold, &iph->saddr, 4) > 0)
 *		return XDP_DROP;
 */
extern int bpf_bloom_hold_query(struct bloom_xdp_hold **hold,
				const void *key, __u32 key__sz) __ksym;
extern int bpf_bloom_hold_lookup_addr(struct bloom_xdp_hold **hold,
				      const void *addr, __u32 addr__sz) __ksym;

#endif /* _BLOOM_BPF_H */
