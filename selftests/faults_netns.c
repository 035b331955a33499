// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_faults' operations in a network namespace of the test's own: a
 * create that grows the table of filters by id, an iptables rule on a
 * filter, and a filter made in a new network namespace.
 */
#define _GNU_SOURCE
#include <sched.h>

#include "bloom_faults.h"

int ipt_sock = -1;

void setup_id_table(struct ctx *c)
{
	char name[BLOOM_NAME_LEN];
	int i;

	setup_src(c);
	for (i = 1; i <= ID_TABLE_PADS; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		must(bt_create(c->fd, name, c->type, 1000, 10000000, 0),
		     "create pad");
	}
}

/* an iptables rule on "a" (xt_bloom's checkentry), in a namespace of ours */

void setup_rule(struct ctx *c)
{
	must(bt_create(c->fd, "a", c->type, 1000, 10000000, 0), "create a");
	must(bind_new(c, "a"), "bind a");
}

int run_rule(struct ctx *c)
{
	(void)c;
	return bt_ipt_set(ipt_sock, "a");
}

/* the rule holds "a" (destroy: EBUSY); taken out, it does not */
int works_rule(struct ctx *c)
{
	struct bloom_info info;

	if (info_of(c->fd, "a", &info) || info.rules != 1 ||
	    bt_ipt_entries(ipt_sock) != 5)
		return -1;
	if (bt_destroy(c->fd, "a") != -1 || errno != EBUSY)
		return -1;
	if (bt_ipt_set(ipt_sock, NULL) || info_of(c->fd, "a", &info) ||
	    info.rules)
		return -1;
	return 0;
}

/* a filter in a new network namespace: unshare, open, create */

void setup_netns(struct ctx *c)
{
	c->home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	must(c->home < 0, "open the namespace");
}

int run_netns(struct ctx *c)
{
	if (unshare(CLONE_NEWNET)) {
		c->unshare_failed = true;
		return -1;
	}
	c->fd2 = bt_open();
	if (c->fd2 < 0)
		return -1;
	return bt_create(c->fd2, "a", c->type, 1000, 10000000,
			 BLOOM_CREATE_F_BIND);
}

/* Out of the fault's reach: back home; the new namespace dies with fd2. */
void after_netns(struct ctx *c)
{
	if (setns(c->home, CLONE_NEWNET))
		faults_bail("setns home: %s\n", strerror(errno));
	close(c->home);
	c->home = -1;
}

int works_netns(struct ctx *c)
{
	struct bloom_info info;

	/* home has no "a"; the new namespace has, bound to fd2 */
	if (info_of(c->fd, "a", &info) != -1 || errno != ENOENT)
		return -1;
	return works_bound_fd2(c);
}

/* a scalable filter whose next add needs a new stage */
