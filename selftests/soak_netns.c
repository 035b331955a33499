// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_soak's namespace churner (bloom_soak.c): network namespaces with
 * filters in them, made and dropped.
 */
#define _GNU_SOURCE
#include <sched.h>

#include "bloom_soak.h"

_Atomic unsigned long netns_progress;

/* A namespace with filters, made and dropped, over and over. */
void *netns_thread(void *arg)
{
	int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	char name[BLOOM_NAME_LEN];
	int fd, i;

	(void)arg;
	while (!atomic_load(&stop) && self >= 0) {
		ns_churn_pause();
		if (unshare(CLONE_NEWNET)) {
			report_error("unshare: %s", strerror(errno));
			break;
		}
		fd = bt_open();
		for (i = 0; i < 4 && fd >= 0; i++) {
			snprintf(name, sizeof(name), "ns-%d", i);
			if (ns_create(fd, name, 1 + i % 4, 10000, 0)) {
				/* still owed to going namespaces: later */
				if (errno != EDQUOT)
					report_error("netns: create: %s",
						     strerror(errno));
				else
					sleep(1);
				break;
			}
		}
		if (fd >= 0 && !bt_bind(fd, "ns-0") &&
		    keys16(fd, BLOOM_IOC_ADD, 0, BATCH) < 0)
			report_error("netns: add: %s", strerror(errno));
		/* back home; the namespace goes with the last reference */
		if (setns(self, CLONE_NEWNET)) {
			report_error("setns: %s", strerror(errno));
			break;
		}
		close(fd);
		atomic_fetch_add(&netns_progress, 1);
	}
	close(self);
	return NULL;
}
