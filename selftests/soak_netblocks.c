// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_soak's netblock writer (bloom_soak.c): IPv4 netblocks expanded to
 * the filter's own lengths by libbloom, added, deleted and queried.
 */
#define _GNU_SOURCE
#include <sys/socket.h>

#include "bloom_soak.h"
#include "libbloom.h"

#define NET_FILTER	"soak-net"
#define NET_SLOTS	16384	/* where blocks go: 10.0.0.0/8 in /22s */
#define NET_PROBES	32	/* addresses tested per live block */

_Atomic unsigned long net_progress, net_deleted;

/*
 * Block @n: 10.x.y.0/22 for even n, its first /23 for odd n; both are
 * stored as /24s (the filter's lengths are 16 and 24), 4 or 2 of them:
 * the kernel refuses other lengths (EDOM), the caller expands.
 */
static void net_block(__u64 n, __u8 key[5])
{
	__u32 slot = n % NET_SLOTS;

	key[0] = 10;
	key[1] = (__u8)(slot >> 6);
	key[2] = (__u8)((slot & 63) << 2);
	key[3] = 0;
	key[4] = n % 2 ? 23 : 22;
}

/* Block @n added or deleted (@cmd) as the keys libbloom expands it to. */
static int net_one(int fd, unsigned long cmd, __u64 n)
{
	static const struct bloom_prefix_plan plan = {
		.nlens = 2, .lens = { 16, 24 },
	};
	__u8 key[5], keys[4 * BLOOM_NETBLOCK_KEY_MAX], res[1];
	int klen;
	long cnt;

	net_block(n, key);
	cnt = bloom_plan_expand(&plan, AF_INET, key, sizeof(key), keys, 4,
				&klen);
	if (cnt < 0) {
		errno = -cnt;
		return -1;
	}
	return bt_batch(fd, cmd, keys, (__u64)cnt * klen, cnt, klen, NULL,
			res, NULL);
}

/* Addresses of block @n not present: NET_PROBES of them tested; or -1. */
static int net_missing(int fd, __u64 n)
{
	__u8 key[5], addrs[NET_PROBES * 4], res[NET_PROBES / 8];
	__u32 size, i, a;
	struct bloom_batch b;

	net_block(n, key);
	size = 1U << (32 - key[4]);
	for (i = 0; i < NET_PROBES; i++) {
		/* spread over the block, its first and last address included */
		a = (key[0] << 24 | key[1] << 16 | key[2] << 8) +
		    (i == NET_PROBES - 1 ? size - 1 : i * (size / NET_PROBES) +
						      (__u32)(n + i) % 7);
		addrs[4 * i] = a >> 24;
		addrs[4 * i + 1] = a >> 16;
		addrs[4 * i + 2] = a >> 8;
		addrs[4 * i + 3] = a;
	}
	if (bt_batch(fd, BLOOM_IOC_QUERY, addrs, sizeof(addrs), NET_PROBES, 4,
		     NULL, res, &b))
		return -1;
	return NET_PROBES - b.out_hits;
}

/*
 * A counting filter of IPv4 netblocks with the lengths 16 and 24: /22s
 * and /23s added, expanded into /24s, and deleted again NET_LIVE adds
 * later; every address of every block still added must test present.
 */
void *net_thread(void *arg)
{
	struct bloom_create c = bt_create_req(NET_FILTER, BLOOM_TYPE_COUNTING,
					      100000, 1000000,
					      BLOOM_CREATE_F_BIND |
					      BLOOM_CREATE_F_PREFIXES);
	int fd = bt_open(), missing;
	__u64 n = 0, i;

	(void)arg;
	c.keys = BLOOM_KEYS_IPV4;
	c.prefix_lengths4 = 1U << 16 | 1U << 24;
	if (fd < 0 || ioctl(fd, BLOOM_IOC_CREATE, &c)) {
		report_error("netblocks: create: %s", strerror(errno));
		goto out;
	}
	/* one round at least, however short the run: its line says so */
	do {
		if (net_one(fd, BLOOM_IOC_ADD, n)) {
			report_error("netblocks: ADD: %s", strerror(errno));
			break;
		}
		n++;
		if (n > NET_LIVE) {
			if (net_one(fd, BLOOM_IOC_DELETE, n - 1 - NET_LIVE)) {
				report_error("netblocks: DELETE: %s",
					     strerror(errno));
				break;
			}
			atomic_fetch_add(&net_deleted, 1);
		}
		for (i = n > NET_LIVE ? n - NET_LIVE : 0; i < n; i++) {
			missing = net_missing(fd, i);
			if (missing < 0) {
				report_error("netblocks: QUERY: %s",
					     strerror(errno));
				goto out;
			}
			if (missing) {
				atomic_fetch_add(&false_negatives, 1);
				report_error("netblocks: %d of %d addresses of a live block absent",
					     missing, NET_PROBES);
			}
		}
		atomic_fetch_add(&net_progress, 1);
		usleep(5000);
	} while (!atomic_load(&stop));
out:
	bt_destroy(fd, NET_FILTER);
	close(fd);
	return NULL;
}
