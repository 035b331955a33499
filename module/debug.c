// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: /sys/kernel/debug/bloom/, root only, for tests and debugging:
 *
 *   live_allocations  the module's live allocations (alloc.h); 0 when no
 *                     filter exists and no descriptor is open, once the
 *                     grace periods of destroyed filters have passed
 *   core_selftest     reading it runs the filter core's self-test (the
 *                     SipHash test vectors through the kernel's siphash(),
 *                     known sizings): "ok", or "failed <errno>"
 *
 * debugfs is not an ABI, and failing to create these files is not an error:
 * the module works without them.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#include "alloc.h"
#include "core.h"
#include "debug.h"

static struct dentry *bloom_debug_dir;

static int live_allocations_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%ld\n", bloom_live_allocations());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(live_allocations);

static int core_selftest_show(struct seq_file *m, void *v)
{
	int ret = bloom_core_selftest();

	if (ret)
		seq_printf(m, "failed %d\n", ret);
	else
		seq_puts(m, "ok\n");
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(core_selftest);

void bloom_debug_init(void)
{
	bloom_debug_dir = debugfs_create_dir("bloom", NULL);
	debugfs_create_file("live_allocations", 0400, bloom_debug_dir, NULL,
			    &live_allocations_fops);
	debugfs_create_file("core_selftest", 0400, bloom_debug_dir, NULL,
			    &core_selftest_fops);
}

void bloom_debug_exit(void)
{
	debugfs_remove(bloom_debug_dir);
}
