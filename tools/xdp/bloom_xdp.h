/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the XDP programs (bloom_xdp.bpf.c, bloom_xdp_hold.bpf.c) and their
 * loader (bloom-xdp.c) share: the counters' slots in the program's per-CPU
 * array map, and the holds' map and the frame that takes one.
 */
#ifndef BLOOM_XDP_H
#define BLOOM_XDP_H

#include <linux/types.h>

enum bloom_xdp_stat {
	BLOOM_XDP_PACKETS,	/* every frame the program saw */
	BLOOM_XDP_LISTED,	/* addresses the filter may hold */
	BLOOM_XDP_DROPPED,	/* of those, frames dropped */
	BLOOM_XDP_ERRORS,	/* lookups that failed (the filter is gone) */
	BLOOM_XDP_STATS,
};

/* The program's name, as the kernel keeps it (15 characters at most). */
#define BLOOM_XDP_PROG_NAME	"bloom_xdp"
/* Its counters' map, as the kernel keeps that name. */
#define BLOOM_XDP_STATS_NAME	"bloom_xdp_stats"

/*
 * The map of the holds of the program's filters (bloom_xdp_hold.bpf.c),
 * one slot per family. The program built to look up by hold reads it (the
 * loader gives it the map at load); the one built to look up by id does
 * not, and the loader binds the map to it after the attach
 * (BPF_PROG_BIND_MAP). Either way the map goes, and the holds with it,
 * when the program does.
 */
#define BLOOM_XDP_HOLDS_NAME	"bloom_xdp_holds"
#define BLOOM_XDP_HOLD_IPV4	0
#define BLOOM_XDP_HOLD_IPV6	1
#define BLOOM_XDP_HOLD_SLOTS	2

/*
 * The frame the loader runs the holding program with (BPF_PROG_TEST_RUN):
 * the filter's id and the slot to keep its hold in, padded to the 14
 * bytes of an Ethernet header that a test run wants at least.
 */
struct bloom_xdp_hold_frame {
	__u32 filter_id;
	__u32 slot;
	__u8 pad[8];
};

/*
 * A word of the program's read-only data, with the layout's version in
 * its low byte: bloom-xdp show and detach act on a program of
 * that name only when its maps have the sizes and this word the value this
 * loader built it with ("bloomxdp" in ASCII, then the version). The map of
 * holds is no part of the layout: a program has it or not (a loader built
 * without holds, or a module without them), and is the same program.
 */
#define BLOOM_XDP_MAGIC		0x626c6f6f6d786400ULL
#define BLOOM_XDP_LAYOUT	1

/*
 * Its place in libxdp's dispatcher: a filter runs before the programs of
 * the default priority (50, lower runs first), and the next program runs
 * after a frame it passes.
 */
#define BLOOM_XDP_PRIORITY	20

#endif /* BLOOM_XDP_H */
