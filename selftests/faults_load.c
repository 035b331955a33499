// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_faults' last sweep: bloom.ko's own load, which it unloads first and
 * leaves loaded.
 */
#define _GNU_SOURCE
#include <sys/syscall.h>

#include "bloom_faults.h"

/* ---- xt_bloom and bloom.ko themselves ---- */

/* What a bloom.ko load leaves when it fails: nothing. */
static int module_gone(char *why, size_t len)
{
	static const char *const left[] = {
		"/sys/module/bloom", BLOOM_DEV, BLOOM_DEBUGFS,
		"/sys/kernel/btf/bloom", BLOOM_SYSFS,
	};
	struct stat st;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(left); i++)
		if (!stat(left[i], &st)) {
			snprintf(why, len, "%s is left", left[i]);
			return -1;
		}
	return 0;
}

/* A loaded bloom.ko works: a filter made, filled, queried, destroyed. */
static int module_works(void)
{
	struct bloom_batch b;
	int fd = bt_open(), ret;

	if (fd < 0)
		return -1;
	ret = bt_create(fd, "a", BLOOM_TYPE_BLOCKED, 1000, 10000000,
			BLOOM_CREATE_F_BIND) ||
	      add_keys(fd, BLOOM_IOC_ADD, 1, 64, &b) ||
	      keys_present(fd, 1, 64) || bt_destroy(fd, "a");
	close(fd);
	return ret ? -1 : 0;
}

/*
 * bloom.ko's load (finit_module) with the n-th fault point failing, kfunc
 * and BTF registration included, until it loads with no fault injected:
 * a failed load leaves nothing behind (module_gone(); kmemleak's verdict
 * comes from guest.sh), a load that absorbed a fault works and unloads.
 * Runs with bloom.ko unloaded; leaves it loaded, as a plain insmod does.
 */
int sweep_load(int modfd, unsigned int max, struct tally *t)
{
	unsigned int n;
	bool injected;
	char why[128];
	int ret, err;

	memset(t, 0, sizeof(*t));
	for (n = nth_fd >= 0 ? 1 : 0; n <= max; n++) {
		if (n && over_budget()) {
			/* no fault point left to take: loaded as insmod does */
			t->cut = true;
			if (!bt_module_loaded("bloom") &&
			    syscall(SYS_finit_module, modfd, "", 0))
				return fail(t, n, "load after the budget: %s",
					    strerror(errno));
			return 0;
		}
		if (n)
			nth_arm(n);
		ret = syscall(SYS_finit_module, modfd, "", 0);
		err = errno;
		injected = n && nth_injected();
		if (!injected && ret)
			return fail(t, n, "load failed with no fault injected: %s",
				    strerror(err));
		if (injected)
			t->points++;
		if (ret) {
			t->failed++;
			if (module_gone(why, sizeof(why)))
				return fail(t, n, "after %s: %s",
					    strerror(err), why);
			/* the module loader's own errnos (ELOOP seen) too */
			if (err == ENOMEM) {
				t->enomem++;
			} else if (err == EFAULT) {
				t->efault++;
			} else {
				t->other++;
				t->other_errno = err;
			}
			continue;
		}
		if (module_works())
			return fail(t, n, "loaded%s but does not work",
				    injected ? " (fault absorbed)" : "");
		if (!injected)
			return 0;
		t->absorbed++;
		if (bt_unload_module("bloom"))
			return fail(t, n, "unload after an absorbed fault: %s",
				    strerror(errno));
	}
	return fail(t, max, "still failing after %u fault points", max);
}
