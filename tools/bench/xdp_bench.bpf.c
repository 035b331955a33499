// SPDX-License-Identifier: GPL-2.0
/*
 * The XDP part's programs (xdp_bench.c runs them with BPF_PROG_TEST_RUN,
 * repeat N): each run looks one IPv4 address up, a different one each
 * time, in a bloom filter through the kfunc, in a BPF_MAP_TYPE_BLOOM_FILTER
 * map, in a hash map (exact), or nowhere (xdp_pass: the cost of the run
 * and of making the address, which the others' figures are taken above).
 * The kfunc by id and by hold (a hold kept in a map, no lookup of the id).
 * Address i is BASE + (i * 2654435761 mod N): N distinct addresses,
 * scattered over the set, so successive runs touch unrelated memory.
 */
#include <linux/bpf.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include <bloom/bpf.h>

/*
 * Weak: a bloom.ko from before the kfunc (the part's "before" module) has
 * none, and the object must still load; xdp_bench.c then leaves the one
 * program that calls it unloaded.
 */
extern int bpf_bloom_hold_lookup_addr(struct bloom_xdp_hold **hold,
				      const void *addr, __u32 addr__sz) __ksym __weak;

__u32 filter_id;			/* set between runs */
const volatile __u32 count = 1000000;
/* the first address, host byte order; set between runs */
__u32 base;
__u64 seq;
__u64 hits;

struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__uint(value_size, 4);
	__uint(max_entries, 1);		/* set by the loader */
	__uint(map_extra, 7);		/* hashes; set by the loader */
} bpf_bloom SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(key_size, 4);
	__uint(value_size, 1);
	__uint(max_entries, 1);		/* set by the loader */
} bpf_hash SEC(".maps");

static __always_inline __be32 next_addr(void)
{
	__u32 i = (__u32)((seq++ * 2654435761ULL) % count);

	return bpf_htonl(base + i);
}

SEC("xdp")
int xdp_pass(struct xdp_md *ctx)
{
	volatile __be32 a = next_addr();

	(void)a;
	return XDP_PASS;
}

SEC("xdp")
int xdp_kfunc(struct xdp_md *ctx)
{
	__be32 a = next_addr();

	if (bpf_bloom_xdp_lookup_addr(ctx, filter_id, &a, 4) > 0)
		hits++;
	return XDP_PASS;
}

/* The call alone: a key size of 0 is refused before any lookup. */
SEC("xdp")
int xdp_kfunc_call(struct xdp_md *ctx)
{
	__be32 a = next_addr();

	if (bpf_bloom_xdp_lookup_addr(ctx, filter_id, &a, 0) > 0)
		hits++;
	return XDP_PASS;
}

/*
 * Holds the bench takes once (xdp_hold_take), one slot per filter: the
 * kfunc by hold (xdp_kfunc_hold) finds the filter through the slot, where
 * the kfunc by id looks the id up in the namespace's table.
 */
#define XDP_BENCH_HOLDS	8

struct slot {
	struct bloom_xdp_hold __kptr_ref *hold;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XDP_BENCH_HOLDS);
	__type(key, __u32);
	__type(value, struct slot);
} holds SEC(".maps");

__u32 hold_slot;			/* set between runs */

/*
 * Run once: a hold of filter_id in slot hold_slot (XDP_DROP: no such
 * filter); with filter_id 0, the hold the slot has is let go of.
 */
SEC("xdp")
int xdp_hold_take(struct xdp_md *ctx)
{
	struct bloom_xdp_hold *h;
	__u32 k = hold_slot;
	struct slot *s = bpf_map_lookup_elem(&holds, &k);

	if (!s)
		return XDP_ABORTED;
	h = filter_id ? bpf_bloom_xdp_hold(ctx, filter_id) : NULL;
	if (filter_id && !h)
		return XDP_DROP;
	h = bpf_kptr_xchg(&s->hold, h);
	if (h)
		bpf_bloom_xdp_hold_release(h);
	return XDP_PASS;
}

/* The kfunc by hold: the slot's map value, then the call. */
SEC("xdp")
int xdp_kfunc_hold(struct xdp_md *ctx)
{
	__be32 a = next_addr();
	__u32 k = hold_slot;
	struct slot *s = bpf_map_lookup_elem(&holds, &k);

	if (s && bpf_bloom_hold_lookup_addr(&s->hold, &a, 4) > 0)
		hits++;
	return XDP_PASS;
}

SEC("xdp")
int xdp_bloom_map(struct xdp_md *ctx)
{
	__be32 a = next_addr();

	if (!bpf_map_peek_elem(&bpf_bloom, &a))
		hits++;
	return XDP_PASS;
}

SEC("xdp")
int xdp_hash_map(struct xdp_md *ctx)
{
	__be32 a = next_addr();

	if (bpf_map_lookup_elem(&bpf_hash, &a))
		hits++;
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
