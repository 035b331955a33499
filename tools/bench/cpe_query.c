// SPDX-License-Identifier: GPL-2.0
/*
 * The lookup of an address in filters of netblocks, without the network
 * stack: bench part cpe (cpe_bench.sh), in the VM.
 *
 *   cpe-query ROUNDS N NAME...
 *
 * N unlisted addresses (from 100.64.0.0, which no block of the feed holds,
 * so each meets every length its filter tests) go through QUERY with
 * BLOOM_BATCH_F_NET in batches of 4096, ROUNDS times per filter, the
 * filters taking turns within a round. Prints a line per filter and round:
 * "NAME ROUND NS_PER_ADDRESS HITS".
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/bloom.h>

#define BATCH	4096

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int bound(const char *name)
{
	struct bloom_name n;
	int fd = open("/dev/bloom", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	memset(&n, 0, sizeof(n));
	n.size = sizeof(n);
	strncpy(n.name, name, sizeof(n.name) - 1);
	if (ioctl(fd, BLOOM_IOC_BIND, &n)) {
		close(fd);
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	static uint8_t keys[BATCH * 4], res[BATCH / 8];
	int rounds, nf, r, f, *fds;
	uint32_t n, i, j, base = ntohl(inet_addr("100.64.0.0"));

	if (argc < 4) {
		fprintf(stderr, "usage: cpe-query ROUNDS N NAME...\n");
		return 2;
	}
	rounds = atoi(argv[1]);
	n = (uint32_t)strtoul(argv[2], NULL, 10) / BATCH * BATCH;
	nf = argc - 3;
	fds = calloc(nf, sizeof(*fds));
	for (f = 0; f < nf; f++) {
		fds[f] = bound(argv[3 + f]);
		if (fds[f] < 0) {
			perror(argv[3 + f]);
			return 1;
		}
	}
	for (r = 1; r <= rounds; r++) {
		for (f = 0; f < nf; f++) {
			uint64_t hits = 0;
			double t0 = now_ns();

			for (i = 0; i < n; i += BATCH) {
				struct bloom_batch b;

				for (j = 0; j < BATCH; j++) {
					uint32_t a = htonl(base + i + j);

					memcpy(keys + 4 * j, &a, 4);
				}
				memset(&b, 0, sizeof(b));
				b.size = sizeof(b);
				b.flags = BLOOM_BATCH_F_NET;
				b.nkeys = BATCH;
				b.key_size = 4;
				b.keys = (uintptr_t)keys;
				b.keys_len = sizeof(keys);
				b.results = (uintptr_t)res;
				if (ioctl(fds[f], BLOOM_IOC_QUERY, &b)) {
					perror("QUERY");
					return 1;
				}
				hits += b.out_hits;
			}
			printf("%s %d %.1f %llu\n", argv[3 + f], r,
			       (now_ns() - t0) / n, (unsigned long long)hits);
			fflush(stdout);
		}
	}
	return 0;
}
