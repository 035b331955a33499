// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: /sys/kernel/debug/bloom/, root only, for tests and debugging:
 *
 *   live_allocations  the module's live allocations (alloc.h); 0 when no
 *                     filter exists and no descriptor is open, once the
 *                     grace periods of destroyed filters have passed
 *   core_selftest     reading it runs the filter core's self-test (the
 *                     SipHash-2-4 and SipHash-1-3 test vectors through
 *                     every build of the core's SipHash, known sizings):
 *                     "ok", or "failed <errno>"
 *   rotate            writing an expiring filter's name (of the writer's
 *                     network namespace) runs its next rotation in the
 *                     writing task, as soon as it is due (a period at
 *                     most), instead of in the workqueue, so that the
 *                     task's fault injection (fail-nth) sees what a
 *                     rotation allocates; the write returns when the
 *                     rotation is done. ENOENT: no such filter;
 *                     EOPNOTSUPP: it does not expire; EINVAL: not a name
 *   slept             seconds added to the clock of timed filters' keys
 *                     (reading it says how many so far): writing N moves
 *                     it N seconds on at once, as a suspend of N seconds
 *                     moves CLOCK_BOOTTIME while the sweep, which runs on
 *                     jiffies, waits (store_work.c's catch-up after a
 *                     jump); EINVAL: not a number of 1 to 10^9
 *
 * debugfs is not an ABI, and failing to create these files is not an error:
 * the module works without them.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "alloc.h"
#include "core.h"
#include "debug.h"
#include "filter.h"
#include "name.h"
#include "registry.h"
#include "store.h"

static struct dentry *bloom_debug_dir;

u64 bloom_clock_slept_s;

static int slept_get(void *data, u64 *val)
{
	*val = READ_ONCE(bloom_clock_slept_s);
	return 0;
}

static int slept_set(void *data, u64 val)
{
	if (!val || val > 1000000000)
		return -EINVAL;
	WRITE_ONCE(bloom_clock_slept_s, READ_ONCE(bloom_clock_slept_s) + val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(slept_fops, slept_get, slept_set, "%llu\n");

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

static ssize_t rotate_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	char name[BLOOM_NAME_LEN] = "";
	struct bloom_filter *f;
	struct bloom_store *s;
	int ret;

	if (!len || len >= sizeof(name))
		return -EINVAL;
	if (copy_from_user(name, ubuf, len))
		return -EFAULT;
	strim(name);
	if (!bloom_name_valid(name))
		return -EINVAL;
	f = bloom_registry_lookup(current->nsproxy->net_ns, name);
	if (IS_ERR(f))
		return PTR_ERR(f);
	/* the store stays published, no flush or merge moves its ring */
	if (mutex_lock_killable(&f->write_lock)) {
		ret = -EINTR;
	} else {
		s = bloom_filter_store_locked(f);
		ret = s ? bloom_store_rotate_now(s) : -ESTALE;
		mutex_unlock(&f->write_lock);
	}
	bloom_filter_put(f);
	return ret ?: len;
}

static const struct file_operations rotate_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = rotate_write,
	.llseek = no_llseek,
};

void bloom_debug_init(void)
{
	bloom_debug_dir = debugfs_create_dir("bloom", NULL);
	debugfs_create_file("live_allocations", 0400, bloom_debug_dir, NULL,
			    &live_allocations_fops);
	debugfs_create_file("core_selftest", 0400, bloom_debug_dir, NULL,
			    &core_selftest_fops);
	debugfs_create_file("rotate", 0200, bloom_debug_dir, NULL,
			    &rotate_fops);
	debugfs_create_file_unsafe("slept", 0600, bloom_debug_dir, NULL,
				   &slept_fops);
}

void bloom_debug_exit(void)
{
	debugfs_remove(bloom_debug_dir);
}
