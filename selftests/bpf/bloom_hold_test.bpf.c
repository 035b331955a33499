// SPDX-License-Identifier: GPL-2.0
/*
 * BPF programs for test_xdp_hold.sh (through bpftool prog run, which
 * passes a frame in and reads it back): queries through a hold kept in a
 * map (bpf_bloom_hold_query(), bpf_bloom_hold_lookup_addr()), beside the
 * holding and the letting go that fill and empty the map's slots. Each
 * frame is a struct hold_test_frame; hold_lookup writes the kfunc's
 * result into it. Needs clang 15 or later (the kptr_ref type tag).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bloom/bpf.h>

#define HOLD_TEST_SLOTS	2
#define HOLD_TEST_KEY	32

enum hold_test_op {
	HOLD_TEST_TAKE,		/* a hold of @filter_id into @slot */
	HOLD_TEST_EMPTY,	/* let go of what @slot holds */
	HOLD_TEST_QUERY,	/* bpf_bloom_hold_query() through @slot */
	HOLD_TEST_ADDR,		/* bpf_bloom_hold_lookup_addr() */
};

struct hold_test_frame {
	__u32 op;
	__u32 slot;
	__u32 filter_id;
	__u32 len;		/* of @key, below HOLD_TEST_KEY */
	__s32 result;		/* out: the kfunc's */
	__u8 pad[12];
	__u8 key[HOLD_TEST_KEY];
};

struct slot {
	struct bloom_xdp_hold __kptr_ref *hold;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, HOLD_TEST_SLOTS);
	__type(key, __u32);
	__type(value, struct slot);
} hold_test_slots SEC(".maps");

/* XDP_PASS: done; XDP_DROP: no filter of that id; XDP_ABORTED: bad frame. */
SEC("xdp")
int hold_test(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct hold_test_frame *fr = data;
	struct bloom_xdp_hold *h = NULL;
	struct slot *s;
	__u32 k, len;

	if ((void *)(fr + 1) > end)
		return XDP_ABORTED;
	k = fr->slot;
	s = bpf_map_lookup_elem(&hold_test_slots, &k);
	if (!s)
		return XDP_ABORTED;
	len = fr->len & (HOLD_TEST_KEY - 1);
	switch (fr->op) {
	case HOLD_TEST_QUERY:
		fr->result = bpf_bloom_hold_query(&s->hold, fr->key, len);
		return XDP_PASS;
	case HOLD_TEST_ADDR:
		fr->result = bpf_bloom_hold_lookup_addr(&s->hold, fr->key, len);
		return XDP_PASS;
	case HOLD_TEST_TAKE:
		h = bpf_bloom_xdp_hold(ctx, fr->filter_id);
		if (!h)
			return XDP_DROP;
		break;
	case HOLD_TEST_EMPTY:
		break;
	default:
		return XDP_ABORTED;
	}
	h = bpf_kptr_xchg(&s->hold, h);
	if (h)
		bpf_bloom_xdp_hold_release(h);
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
