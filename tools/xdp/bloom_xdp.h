/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the XDP program (bloom_xdp.bpf.c) and its loader (bloom-xdp.c)
 * share: the counters' slots in the program's per-CPU array map.
 */
#ifndef BLOOM_XDP_H
#define BLOOM_XDP_H

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
 * A word of the program's read-only data, with the layout's version in
 * its low byte: bloom-xdp show and detach act on a program of
 * that name only when its maps have the sizes and this word the value this
 * loader built it with ("bloomxdp" in ASCII, then the version).
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
