// SPDX-License-Identifier: GPL-2.0
/*
 * BPF programs for the kfunc tests (test_bpf.sh, through bloom_bpf_run):
 * one lookup of a key the runner sets, for XDP and tc, run with
 * BPF_PROG_TEST_RUN; a tc program that drops IPv4 and IPv6 packets from
 * listed sources, for pings; and a program the verifier must refuse.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include <linux/bloom.h>
#include <bloom/bpf.h>

/* Set by the runner before the load. */
const volatile __u32 filter_id;
const volatile __u32 key_size;
const volatile __u8 addr_op;	/* lookup_addr, not query */

/* A map value (.bss): room for a key one byte over BLOOM_KEY_MAX. */
__u8 key[BLOOM_KEY_MAX + 8];
int result;
__u64 runs;

SEC("xdp")
int xdp_lookup(struct xdp_md *ctx)
{
	if (addr_op)
		result = bpf_bloom_xdp_lookup_addr(ctx, filter_id, key,
						   key_size);
	else
		result = bpf_bloom_xdp_query(ctx, filter_id, key, key_size);
	runs++;
	return XDP_PASS;
}

SEC("tc")
int tc_lookup(struct __sk_buff *skb)
{
	if (addr_op)
		result = bpf_bloom_skb_lookup_addr(skb, filter_id, key,
						   key_size);
	else
		result = bpf_bloom_skb_query(skb, filter_id, key, key_size);
	runs++;
	return TC_ACT_OK;
}

/* Ingress: drops packets whose source address the filter may hold. */
SEC("tc")
int tc_drop(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	int ret = 0;

	if ((void *)(eth + 1) > end)
		return TC_ACT_OK;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *iph = (void *)(eth + 1);

		if ((void *)(iph + 1) > end)
			return TC_ACT_OK;
		ret = bpf_bloom_skb_lookup_addr(skb, filter_id, &iph->saddr, 4);
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6h = (void *)(eth + 1);

		if ((void *)(ip6h + 1) > end)
			return TC_ACT_OK;
		ret = bpf_bloom_skb_lookup_addr(skb, filter_id, &ip6h->saddr,
						16);
	}
	result = ret;
	runs++;
	return ret > 0 ? TC_ACT_SHOT : TC_ACT_OK;
}

/* Passes 8 bytes of a 4-byte key: the verifier must refuse the load. */
SEC("?xdp")
int xdp_bad_size(struct xdp_md *ctx)
{
	__u32 k = 1;

	return bpf_bloom_xdp_query(ctx, filter_id, &k, 8) > 0 ?
	       XDP_DROP : XDP_PASS;
}

char _license[] SEC("license") = "GPL";
