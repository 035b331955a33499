/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bans part's feed (run.sh writes it): ipset save lines, "add SET
 * ADDRESS timeout SECONDS", one IPv4 address each, read by bench-bans
 * (through libbloom, in the VM) and bench-bans-native (on the host).
 */
#ifndef BENCH_BANS_FEED_H
#define BENCH_BANS_FEED_H

#include <stddef.h>
#include <stdint.h>

struct bans_feed {
	size_t n;
	uint32_t *keys;		/* network order, as the packets carry them */
	uint32_t *timeouts;
};

/* Reads @path into @f; exits with a message when it cannot. */
void bans_feed_read(struct bans_feed *f, const char *path);

#endif /* BENCH_BANS_FEED_H */
