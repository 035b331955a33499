/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Firewall rules without the iptables binary: the legacy iptables ABI
 * (IPT_SO_SET_REPLACE on a raw socket), for tests that insert a rule
 * from their own task (bloom_faults: under fail-nth, which an exec would
 * spend on the exec) or many times a second (bloom_soak).
 *
 * bt_ipt_set() replaces the "filter" table of the caller's network
 * namespace with ACCEPT policies and, when a filter is named, one rule in
 * INPUT: "-m bloom --bloom-set NAME --bloom-key src -j ACCEPT" (xt_bloom's
 * revision 0). It is meant for namespaces of the test's own: it throws
 * away every rule the table held.
 */
#ifndef BLOOM_IPT_H
#define BLOOM_IPT_H

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter/xt_bloom.h>

struct bt_ipt_match {
	struct xt_entry_match m;
	struct xt_bloom_mtinfo info;
};

/* Room for the largest table bt_ipt_set() makes: five entries. */
#define BT_IPT_BUF	2048

/* Appends one entry; its offset. */
static inline unsigned int bt_ipt_entry(char *buf, unsigned int *off,
					const char *filter, int verdict,
					bool error)
{
	struct ipt_entry *e = (struct ipt_entry *)(buf + *off);
	unsigned int at = *off, tsize;
	char *p = (char *)e->elems;

	memset(e, 0, sizeof(*e));
	if (filter) {
		struct bt_ipt_match *m = (struct bt_ipt_match *)p;

		memset(m, 0, XT_ALIGN(sizeof(*m)));
		m->m.u.user.match_size = XT_ALIGN(sizeof(*m));
		strcpy(m->m.u.user.name, "bloom");
		strncpy(m->info.name, filter, sizeof(m->info.name) - 1);
		m->info.key[0] = XT_BLOOM_FIELD_SRC_ADDR;
		p += XT_ALIGN(sizeof(*m));
	}
	e->target_offset = p - (char *)e;
	if (error) {
		struct xt_error_target *t = (struct xt_error_target *)p;

		tsize = XT_ALIGN(sizeof(*t));
		memset(t, 0, tsize);
		strcpy(t->target.u.user.name, XT_ERROR_TARGET);
		strcpy(t->errorname, XT_ERROR_TARGET);
		t->target.u.user.target_size = tsize;
	} else {
		struct xt_standard_target *t = (struct xt_standard_target *)p;

		tsize = XT_ALIGN(sizeof(*t));
		memset(t, 0, tsize);
		t->target.u.user.target_size = tsize;
		t->verdict = verdict;
	}
	e->next_offset = e->target_offset + tsize;
	*off += e->next_offset;
	return at;
}

/* A raw socket for the iptables socket options; -1 with errno. */
static inline int bt_ipt_socket(void)
{
	return socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
}

/* Entries in the namespace's filter table now; -1 with errno. */
static inline int bt_ipt_entries(int sock)
{
	struct ipt_getinfo gi;
	socklen_t len = sizeof(gi);

	memset(&gi, 0, sizeof(gi));
	strcpy(gi.name, "filter");
	if (getsockopt(sock, SOL_IP, IPT_SO_GET_INFO, &gi, &len))
		return -1;
	return gi.num_entries;
}

/*
 * The table as described above, with the rule on @filter (or none for
 * NULL). 0, or -1 with errno: the kernel's, or EAGAIN when the table
 * changed between the read of its size and the replace.
 */
static inline int bt_ipt_set(int sock, const char *filter)
{
	static const int accept = -NF_ACCEPT - 1;
	struct xt_counters counters[8];
	struct ipt_replace *r;
	unsigned int off = 0, in, in_policy, fwd, out;
	char *buf;
	int n, ret;

	n = bt_ipt_entries(sock);
	if (n < 0)
		return -1;
	if (n > (int)(sizeof(counters) / sizeof(counters[0]))) {
		errno = E2BIG;
		return -1;
	}
	buf = calloc(1, sizeof(*r) + BT_IPT_BUF);
	if (!buf)
		return -1;
	r = (struct ipt_replace *)buf;
	in = bt_ipt_entry((char *)r->entries, &off, filter, accept, false);
	in_policy = filter ? bt_ipt_entry((char *)r->entries, &off, NULL,
					  accept, false) : in;
	fwd = bt_ipt_entry((char *)r->entries, &off, NULL, accept, false);
	out = bt_ipt_entry((char *)r->entries, &off, NULL, accept, false);
	bt_ipt_entry((char *)r->entries, &off, NULL, 0, true);
	strcpy(r->name, "filter");
	r->valid_hooks = 1 << NF_INET_LOCAL_IN | 1 << NF_INET_FORWARD |
			 1 << NF_INET_LOCAL_OUT;
	r->num_entries = filter ? 5 : 4;
	r->size = off;
	r->hook_entry[NF_INET_LOCAL_IN] = in;
	r->underflow[NF_INET_LOCAL_IN] = in_policy;
	r->hook_entry[NF_INET_FORWARD] = fwd;
	r->underflow[NF_INET_FORWARD] = fwd;
	r->hook_entry[NF_INET_LOCAL_OUT] = out;
	r->underflow[NF_INET_LOCAL_OUT] = out;
	r->num_counters = n;
	r->counters = counters;
	ret = setsockopt(sock, SOL_IP, IPT_SO_SET_REPLACE, buf,
			 sizeof(*r) + off);
	free(buf);
	return ret;
}

/* Loads a module from @path (finit_module); 0 or -1 with errno (EEXIST). */
static inline int bt_load_module(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -1;
	ret = syscall(SYS_finit_module, fd, "", 0);
	close(fd);
	return ret;
}

static inline bool bt_module_loaded(const char *name)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/module/%s/initstate", name);
	return !stat(path, &st);
}

/* delete_module(), retried while descriptors just closed let go */
static inline int bt_unload_module(const char *name)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (!syscall(SYS_delete_module, name, O_NONBLOCK))
			return 0;
		if (errno != EAGAIN && errno != EBUSY)
			return -1;
		usleep(100000);
	}
	return -1;
}

/*
 * xt_bloom.ko for rules: XT_BLOOM_KO, else ./xt_bloom.ko (the
 * tests run from the tree's top), with ip_tables' filter table. 1 if this
 * program loaded it (and unloads it at the end), 0 if it was loaded, -1
 * if it cannot be (why in @why).
 */
static inline int bt_xt_load(char *why, size_t len)
{
	const char *path = getenv("XT_BLOOM_KO") ?: "xt_bloom.ko";

	/* Debian's kernel has them as modules, the debug kernel built in */
	(void)!system("modprobe -q iptable_filter 2>/dev/null");
	if (bt_module_loaded("xt_bloom"))
		return 0;
	if (bt_load_module(path)) {
		snprintf(why, len, "insmod %s: %s", path, strerror(errno));
		return -1;
	}
	return 1;
}

#endif /* BLOOM_IPT_H */
