// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_soak's rule churner and its sender (bloom_soak.c): an iptables
 * rule on a filter inserted and removed under traffic, in network
 * namespaces that come and go.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <arpa/inet.h>
#include <net/if.h>

#include "bloom_soak.h"
#include "bloom_ipt.h"

#define RULE_FILTER	"soak-rule"
#define RULES_PER_NS	8

_Atomic unsigned long rule_progress, traffic_progress, rule_namespaces,
	rule_packets;

static pthread_mutex_t traffic_lock = PTHREAD_MUTEX_INITIALIZER;
static int traffic_fd = -1;	/* a UDP socket of the rule namespace */

/* Sends to 127.0.0.1 through whatever namespace's socket is published. */
void *traffic_thread(void *arg)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(9) };
	int fd, i;

	(void)arg;
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	while (!atomic_load(&stop)) {
		pthread_mutex_lock(&traffic_lock);
		fd = traffic_fd >= 0 ? dup(traffic_fd) : -1;
		pthread_mutex_unlock(&traffic_lock);
		if (fd < 0) {
			usleep(10000);
			continue;
		}
		for (i = 0; i < 16; i++)
			(void)!sendto(fd, "soak", 4, MSG_DONTWAIT,
				      (struct sockaddr *)&to, sizeof(to));
		close(fd);
		atomic_fetch_add(&traffic_progress, 1);
		usleep(1000);
	}
	return NULL;
}

static int lo_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret;

	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	ret = ioctl(fd, SIOCGIFFLAGS, &ifr);
	ifr.ifr_flags |= IFF_UP;
	ret = ret ?: ioctl(fd, SIOCSIFFLAGS, &ifr);
	close(fd);
	return ret;
}

/*
 * One namespace: the filter, then RULES_PER_NS times the rule in and out
 * under traffic, the last one left in; the namespace goes when this
 * thread leaves it and the socket is closed.
 */
static int rule_namespace(int self)
{
	static const __u8 lo[4] = { 127, 0, 0, 1 };
	struct bloom_info info;
	int fd = -1, sock = -1, udp = -1, i, ret = -1;

	if (unshare(CLONE_NEWNET)) {
		report_error("rules: unshare: %s", strerror(errno));
		return -1;
	}
	fd = bt_open();
	sock = bt_ipt_socket();
	udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || sock < 0 || udp < 0 || lo_up()) {
		report_error("rules: setup: %s", strerror(errno));
		goto out;
	}
	if (ns_create(fd, RULE_FILTER, BLOOM_TYPE_BLOCKED, 1000,
		      BLOOM_CREATE_F_BIND)) {
		/* the pool still owed to going namespaces: another round */
		if (errno == EDQUOT) {
			sleep(1);	/* a namespace less, while they go */
			ret = 0;
		} else {
			report_error("rules: create: %s", strerror(errno));
		}
		goto out;
	}
	if (bt_one(fd, BLOOM_IOC_ADD, lo, sizeof(lo)) < 0) {
		report_error("rules: add: %s", strerror(errno));
		goto out;
	}
	pthread_mutex_lock(&traffic_lock);
	traffic_fd = udp;
	pthread_mutex_unlock(&traffic_lock);
	for (i = 0; i < RULES_PER_NS && !atomic_load(&stop); i++) {
		if (bt_ipt_set(sock, RULE_FILTER)) {
			report_error("rules: insert: %s", strerror(errno));
			goto out;
		}
		usleep(20000);	/* packets go by meanwhile */
		if (i + 1 < RULES_PER_NS && bt_ipt_set(sock, NULL)) {
			report_error("rules: remove: %s", strerror(errno));
			goto out;
		}
		atomic_fetch_add(&rule_progress, 1);
	}
	if (bt_info(fd, NULL, &info)) {
		report_error("rules: info: %s", strerror(errno));
		goto out;
	}
	if (info.packets != info.packet_hits) {
		atomic_fetch_add(&false_negatives, 1);
		report_error("rules: %llu of %llu packets from 127.0.0.1 matched",
			     (unsigned long long)info.packet_hits,
			     (unsigned long long)info.packets);
	}
	atomic_fetch_add(&rule_packets, info.packets);
	ret = 0;
out:
	pthread_mutex_lock(&traffic_lock);
	traffic_fd = -1;
	pthread_mutex_unlock(&traffic_lock);
	if (setns(self, CLONE_NEWNET)) {
		report_error("rules: setns: %s", strerror(errno));
		ret = -1;
	}
	/* the filter and the rule on it go with the namespace */
	close(udp);
	close(sock);
	close(fd);
	atomic_fetch_add(&rule_namespaces, 1);
	return ret;
}

void *rule_thread(void *arg)
{
	int self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);

	(void)arg;
	while (!atomic_load(&stop) && self >= 0 && !rule_namespace(self))
		;
	close(self);
	return NULL;
}
