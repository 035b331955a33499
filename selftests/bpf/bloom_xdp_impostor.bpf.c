// SPDX-License-Identifier: GPL-2.0
/*
 * Not bloom-xdp's program, though named as it is, with a counters' map of
 * its name: test_xdp_share.sh attaches it to see that bloom-xdp show and
 * detach leave it alone. Its read-only data (1 KiB) is larger than
 * bloom-xdp's: a loader that read it into its own struct unchecked would
 * overrun it.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

const volatile char padding[1024] = { 1 };

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, char[256]);
} bloom_xdp_stats SEC(".maps");

SEC("xdp")
int bloom_xdp(struct xdp_md *ctx)
{
	__u32 k = 0;
	char *v = bpf_map_lookup_elem(&bloom_xdp_stats, &k);

	if (v)
		v[0] = padding[ctx->ingress_ifindex & 1023];
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
