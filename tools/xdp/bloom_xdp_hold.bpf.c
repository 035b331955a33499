// SPDX-License-Identifier: GPL-2.0
/*
 * Takes a hold of a filter for bloom-xdp's program (holds.c): never
 * attached, run once per filter through BPF_PROG_TEST_RUN with the device
 * as the frame's, and with a frame (struct bloom_xdp_hold_frame) that says
 * which filter (id) and which slot of the holds' map, it takes a hold of
 * that filter (bpf_bloom_xdp_hold()) and keeps it in the slot
 * (bpf_kptr_xchg()), letting go of the hold the slot had. XDP_PASS: held;
 * XDP_DROP: no filter of that id; XDP_ABORTED: a bad frame or slot.
 * test_xdp_hold.sh runs it too.
 *
 * The map's pointer must carry the "kptr_ref" type tag in BTF, which
 * clang emits from version 15 on (clang 14 drops it: tools/bpf.mk); the
 * map is bloom_xdp_holds.bpf.h's.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bloom/bpf.h>

#include "bloom_xdp_holds.bpf.h"

SEC("xdp")
int bloom_xdp_hold(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct bloom_xdp_hold_frame *fr = data;
	struct bloom_xdp_hold *h;
	struct slot *s;
	__u32 k;

	if ((void *)(fr + 1) > end)
		return XDP_ABORTED;
	k = fr->slot;
	s = bpf_map_lookup_elem(&bloom_xdp_holds, &k);
	if (!s)
		return XDP_ABORTED;
	h = bpf_bloom_xdp_hold(ctx, fr->filter_id);
	if (!h)
		return XDP_DROP;
	h = bpf_kptr_xchg(&s->hold, h);
	if (h)
		bpf_bloom_xdp_hold_release(h);
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
