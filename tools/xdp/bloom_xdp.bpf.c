// SPDX-License-Identifier: GPL-2.0
/*
 * XDP: drop frames whose IPv4 or IPv6 source (or destination) address a
 * bloom filter lists, itself or inside a netblock the filter holds
 * (bpf_bloom_xdp_lookup_addr()): an IPv4 filter for IPv4 frames, an IPv6
 * filter for IPv6 frames. The loader (bloom-xdp.c) sets the
 * constants below before the program is loaded.
 *
 * Built with BLOOM_XDP_BY_HOLD (and clang 15 or later), it looks the
 * filters up through the holds the loader took of them (holds.h) instead,
 * in the map of bloom_xdp_holds.bpf.h (one slot per family):
 * bpf_bloom_hold_lookup_addr(), without the lookup of the id in the
 * namespace's table. The loader uses that build when it took the holds
 * and bloom.ko has the call, this one otherwise. Frames that are not IP,
 * or too short to hold the address, pass. A lookup that fails (the filter
 * was destroyed: -ENOENT) passes the frame and counts an error: a missing
 * blocklist must not cut a host off.
 *
 * It declares its place in libxdp's dispatcher (XDP_RUN_CONFIG): several
 * programs share an interface, the next running after a frame this one
 * passes. Loaded without the dispatcher (bloom-xdp attach --direct), it
 * runs alone and the declaration is not read.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include <bloom/bpf.h>
#include <xdp/xdp_helpers.h>

#include "bloom_xdp.h"
#ifdef BLOOM_XDP_BY_HOLD
#include "bloom_xdp_holds.bpf.h"
#endif

/* Identifies the program to bloom-xdp show and detach (bloom_xdp.h). */
const volatile __u64 bloom_xdp_magic = BLOOM_XDP_MAGIC | BLOOM_XDP_LAYOUT;

/*
 * Set by the loader; the verifier sees them as the constants they are. A
 * filter holds addresses of one family, so there is one per family; 0:
 * none, frames of that family pass. Ids are the filters' in the network
 * namespace of the device a frame arrives on.
 */
const volatile __u32 filter_id4;
const volatile __u32 filter_id6;
const volatile __u8 match_dst;		/* the destination, not the source */
const volatile __u8 pass_listed;	/* count listed frames, drop none */
/*
 * Not read here: for bloom-xdp show, which reads the program's .rodata.
 * The namespace's inode is the one the ids were read in: a device moved
 * to another namespace takes the program along, whose ids then name that
 * namespace's filters.
 */
const volatile __u64 netns_ino;
const volatile char filter_name4[32];
const volatile char filter_name6[32];

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BLOOM_XDP_STATS);
	__type(key, __u32);
	__type(value, __u64);
} bloom_xdp_stats SEC(".maps");

static __always_inline void count(__u32 slot)
{
	__u64 *v = bpf_map_lookup_elem(&bloom_xdp_stats, &slot);

	if (v)
		(*v)++;
}

/*
 * The address @addr of @len bytes (a constant: the verifier checks the
 * frame holds them) in the filter of @id, whose hold is in @slot.
 */
static __always_inline int lookup(struct xdp_md *ctx, __u32 slot, __u32 id,
				  const void *addr, __u32 len)
{
#ifdef BLOOM_XDP_BY_HOLD
	struct slot *s = bpf_map_lookup_elem(&bloom_xdp_holds, &slot);

	(void)ctx;
	(void)id;
	if (!s)
		return -1;
	return bpf_bloom_hold_lookup_addr(&s->hold, addr, len);
#else
	(void)slot;
	return bpf_bloom_xdp_lookup_addr(ctx, id, addr, len);
#endif
}

/* 802.1Q and 802.1ad: one tag, or two (QinQ). */
struct vlan_hdr {
	__be16 tci;
	__be16 proto;
};

struct {
	__uint(priority, BLOOM_XDP_PRIORITY);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(bloom_xdp);

SEC("xdp")
int bloom_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	void *l3 = eth + 1;
	__u16 proto;
	int i, ret;

	count(BLOOM_XDP_PACKETS);
	if (l3 > end)
		return XDP_PASS;
	proto = eth->h_proto;
	for (i = 0; i < 2; i++) {
		struct vlan_hdr *vh = l3;

		if (proto != bpf_htons(ETH_P_8021Q) &&
		    proto != bpf_htons(ETH_P_8021AD))
			break;
		if ((void *)(vh + 1) > end)
			return XDP_PASS;
		proto = vh->proto;
		l3 = vh + 1;
	}
	if (proto == bpf_htons(ETH_P_IP) && filter_id4) {
		struct iphdr *iph = l3;

		if ((void *)(iph + 1) > end)
			return XDP_PASS;
		ret = lookup(ctx, BLOOM_XDP_HOLD_IPV4, filter_id4,
			     match_dst ? &iph->daddr : &iph->saddr, 4);
	} else if (proto == bpf_htons(ETH_P_IPV6) && filter_id6) {
		struct ipv6hdr *ip6h = l3;

		if ((void *)(ip6h + 1) > end)
			return XDP_PASS;
		ret = lookup(ctx, BLOOM_XDP_HOLD_IPV6, filter_id6,
			     match_dst ? &ip6h->daddr : &ip6h->saddr, 16);
	} else {
		return XDP_PASS;
	}
	if (ret < 0) {
		count(BLOOM_XDP_ERRORS);
		return XDP_PASS;
	}
	if (!ret)
		return XDP_PASS;
	count(BLOOM_XDP_LISTED);
	if (pass_listed)
		return XDP_PASS;
	count(BLOOM_XDP_DROPPED);
	return XDP_DROP;
}

char _license[] SEC("license") = "GPL";
