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

#endif /* BLOOM_XDP_H */
