/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Finding bloom-xdp's program on a device, alone or among the programs of
 * libxdp's dispatcher, and recognising it by more than its name: its type,
 * its maps' types and sizes (two, and the map of its holds when it has
 * one), and the magic word of its read-only data, each checked before
 * anything is read into a struct of this loader.
 */
#ifndef BLOOM_XDP_IDENTIFY_H
#define BLOOM_XDP_IDENTIFY_H

#include <stdbool.h>
#include <linux/types.h>

#include "bloom_xdp.skel.h"

/* A program that passed every check, with its maps open. */
struct bloom_xdp_prog {
	__u32 id;
	int fd;				/* the program: held, its id stays its own */
	int stats_fd;			/* its per-CPU counters */
	bool held;			/* it holds its filters (holds.h) */
	bool by_hold;			/* and looks them up through the holds */
	struct bloom_xdp__rodata ro;	/* what the loader set */
};

/* Where it runs on a device. */
struct bloom_xdp_slot {
	struct bloom_xdp_prog prog;
	const char *mode;		/* "native", "generic" or "offload" */
	__u32 xdp_flags;		/* XDP_FLAGS_DRV_MODE, ..._SKB_MODE, ... */
	bool direct;			/* the device's only program, no dispatcher */
	bool managed;			/* libxdp can read the dispatcher */
	unsigned int priority;		/* in the dispatcher; 0 if unknown */
};

/* What a device runs, seen from outside. */
struct bloom_xdp_dev {
	__u32 main_id;			/* 0: no XDP program */
	const char *mode;
	__u32 xdp_flags;
	bool dispatcher;		/* main_id is libxdp's dispatcher */
};

/*
 * 1: the program @id is bloom-xdp's, *@p filled and open (close it with
 * bloom_xdp_prog_close()); 0: it is not (or is gone); -errno: it cannot be
 * read (permissions).
 */
int bloom_xdp_identify(__u32 id, struct bloom_xdp_prog *p);
void bloom_xdp_prog_close(struct bloom_xdp_prog *p);

/* What @ifindex runs: 0, or -errno when it cannot be read. */
int bloom_xdp_dev_query(unsigned int ifindex, struct bloom_xdp_dev *d);

/*
 * bloom-xdp's program on @ifindex: 1 and *@s (close s->prog), 0 when there
 * is none, -errno when the device cannot be read.
 */
int bloom_xdp_find(unsigned int ifindex, struct bloom_xdp_slot *s);

/* The counters of @p summed over the CPUs into @sum[BLOOM_XDP_STATS]. */
void bloom_xdp_stats_sum(const struct bloom_xdp_prog *p, __u64 *sum);

#endif /* BLOOM_XDP_IDENTIFY_H */
