/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The map of the holds of bloom-xdp's filters (bloom_xdp.h), as BPF C
 * declares it: the holding program (bloom_xdp_hold.bpf.c) fills it, and
 * the filtering program built to look up by hold (bloom_xdp.bpf.c with
 * BLOOM_XDP_BY_HOLD) reads it, the loader giving it the holding
 * program's map. The referenced pointer needs the "kptr_ref" type tag:
 * clang 15 or later.
 */
#ifndef BLOOM_XDP_HOLDS_BPF_H
#define BLOOM_XDP_HOLDS_BPF_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bloom/bpf.h>

#include "bloom_xdp.h"

struct slot {
	struct bloom_xdp_hold __kptr_ref *hold;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BLOOM_XDP_HOLD_SLOTS);
	__type(key, __u32);
	__type(value, struct slot);
} bloom_xdp_holds SEC(".maps");

#endif /* BLOOM_XDP_HOLDS_BPF_H */
