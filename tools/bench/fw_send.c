// SPDX-License-Identifier: GPL-2.0
/*
 * fw_send: the traffic of the firewall benchmark (fw_bench.sh). Sends UDP
 * packets with IP_HDRINCL through a raw socket, sendmmsg() batches of 64,
 * for a fixed time, from a fixed pseudo-random sequence of source
 * addresses: a fraction from the listed range (the addresses the filters
 * and the ipset hold), the rest from a range none of them holds. The same
 * seed gives every configuration the same traffic.
 *
 *   fw_send DST_IPV4 SECONDS LISTED_BASE LISTED_COUNT LISTED_PERCENT
 *
 * Prints "packets N seconds S". Run it pinned to one CPU: veth hands each
 * packet to the receiving namespace's stack in the sender's softirq, so the
 * time per packet includes the receiver's PREROUTING hook and its rules.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define BATCH	64
#define SEQ	(1u << 16)	/* sources, cycled */

struct pkt {
	struct iphdr ip;
	struct udphdr udp;
	char payload[18];
} __attribute__((packed));

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static struct pkt pkts[BATCH];
	static uint32_t src[SEQ];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct sockaddr_in dst = { .sin_family = AF_INET };
	uint32_t base, count, pct, i;
	uint64_t seed = 0x9e3779b97f4a7c15ull, sent = 0;
	double secs, t0, t;
	int fd, one = 1;

	if (argc != 6 || inet_pton(AF_INET, argv[1], &dst.sin_addr) != 1 ||
	    inet_pton(AF_INET, argv[3], &base) != 1) {
		fprintf(stderr, "usage: fw_send DST SECONDS LISTED_BASE LISTED_COUNT LISTED_PERCENT\n");
		return 2;
	}
	secs = atof(argv[2]);
	count = strtoul(argv[4], NULL, 0);
	pct = strtoul(argv[5], NULL, 0);
	base = ntohl(base);
	if (!count || pct > 100 || secs <= 0) {
		fprintf(stderr, "fw_send: bad arguments\n");
		return 2;
	}
	/*
	 * Listed: base + (0..count-1). Unlisted: 100.64.0.0/10 (shared
	 * address space), which the listed range must not overlap.
	 */
	for (i = 0; i < SEQ; i++) {
		uint64_t r = xorshift(&seed);

		if (r % 100 < pct)
			src[i] = base + (uint32_t)((r >> 8) % count);
		else
			src[i] = 0x64400000u + (uint32_t)((r >> 8) & 0x3fffff);
	}

	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0 || setsockopt(fd, IPPROTO_IP, IP_HDRINCL, &one, sizeof(one))) {
		perror("fw_send: raw socket");
		return 1;
	}
	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < BATCH; i++) {
		struct pkt *p = &pkts[i];

		p->ip.version = 4;
		p->ip.ihl = 5;
		p->ip.ttl = 64;
		p->ip.protocol = IPPROTO_UDP;
		p->ip.tot_len = htons(sizeof(*p));
		p->ip.daddr = dst.sin_addr.s_addr;
		p->udp.source = htons(9);
		p->udp.dest = htons(9);
		p->udp.len = htons(sizeof(*p) - sizeof(p->ip));
		iov[i].iov_base = p;
		iov[i].iov_len = sizeof(*p);
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
		msgs[i].msg_hdr.msg_name = &dst;
		msgs[i].msg_hdr.msg_namelen = sizeof(dst);
	}

	t0 = now();
	t = t0;
	do {
		int n;

		for (i = 0; i < BATCH; i++)
			pkts[i].ip.saddr = htonl(src[(sent + i) % SEQ]);
		n = sendmmsg(fd, msgs, BATCH, 0);
		if (n < 0 && errno != ENOBUFS && errno != EINTR) {
			perror("fw_send: sendmmsg");
			return 1;
		}
		if (n > 0)
			sent += n;
		t = now();
	} while (t - t0 < secs);
	printf("packets %llu seconds %.6f\n", (unsigned long long)sent, t - t0);
	return 0;
}
