// SPDX-License-Identifier: GPL-2.0
/*
 * The memory filters may take, per network namespace and all together
 * (account.h has the rules).
 */
#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include "account.h"
#include "units.h"

/*
 * All filters together may take this many bytes. Filter memory is also
 * charged to the creator's memory cgroup; this limit is the module's own
 * guard, for hosts without a cgroup limit.
 */
static unsigned long max_memory = 1UL << 30;
/* The filters of one network namespace other than the initial one. */
static unsigned long max_memory_per_netns = 1UL << 28;

/* Takes the suffixes bloomctl takes (units.h: 4G, 512Mi); reads as bytes. */
static int bloom_param_bytes_set(const char *val,
				 const struct kernel_param *kp)
{
	u64 v;
	int err = bloom_parse_units(val, strlen(val), &v);

	if (err)
		return err;
	if (v > ULONG_MAX)
		return -ERANGE;
	WRITE_ONCE(*(unsigned long *)kp->arg, v);
	return 0;
}

static const struct kernel_param_ops bloom_param_bytes_ops = {
	.set = bloom_param_bytes_set,
	.get = param_get_ulong,
};

module_param_cb(max_memory, &bloom_param_bytes_ops, &max_memory, 0644);
MODULE_PARM_DESC(max_memory, "Bytes all filters may take together (default 1Gi = 1073741824; k/M/G/T are powers of 1000, Ki/Mi/Gi/Ti of 1024)");
module_param_cb(max_memory_per_netns, &bloom_param_bytes_ops,
		&max_memory_per_netns, 0644);
MODULE_PARM_DESC(max_memory_per_netns, "Bytes the filters of one network namespace other than the initial one may take (default 256Mi = 268435456); the initial namespace keeps this much of max_memory, at most half, for itself");

/* All filters, and those of the namespaces other than the initial one. */
static atomic64_t memory_used = ATOMIC64_INIT(0);
static atomic64_t others_used = ATOMIC64_INIT(0);

u64 bloom_memory_used(void)
{
	return atomic64_read(&memory_used);
}

u64 bloom_memory_limit(void)
{
	return READ_ONCE(max_memory);
}

/* What the namespaces other than the initial one may take together. */
static u64 bloom_others_limit(void)
{
	u64 all = bloom_memory_limit();

	return all - min_t(u64, READ_ONCE(max_memory_per_netns), all / 2);
}

void bloom_account_init(struct bloom_account *a, bool initial)
{
	atomic64_set(&a->used, 0);
	a->initial = initial;
}

/* Adds @bytes to @v unless that takes it over @limit. */
static int bloom_counter_add(atomic64_t *v, u64 bytes, u64 limit)
{
	if (atomic64_add_return(bytes, v) > limit) {
		atomic64_sub(bytes, v);
		return -EDQUOT;
	}
	return 0;
}

int bloom_account_reserve(struct bloom_account *a, u64 bytes)
{
	if (bloom_counter_add(&memory_used, bytes, bloom_memory_limit()))
		return -EDQUOT;
	if (a->initial) {
		atomic64_add(bytes, &a->used);
		return 0;
	}
	if (bloom_counter_add(&others_used, bytes, bloom_others_limit()))
		goto err_all;
	if (bloom_counter_add(&a->used, bytes, READ_ONCE(max_memory_per_netns)))
		goto err_others;
	return 0;

err_others:
	atomic64_sub(bytes, &others_used);
err_all:
	atomic64_sub(bytes, &memory_used);
	return -EDQUOT;
}

void bloom_account_release(struct bloom_account *a, u64 bytes)
{
	atomic64_sub(bytes, &a->used);
	if (!a->initial)
		atomic64_sub(bytes, &others_used);
	atomic64_sub(bytes, &memory_used);
}

u64 bloom_account_shown_used(const struct bloom_account *a)
{
	return a->initial ? bloom_memory_used() : atomic64_read(&a->used);
}

u64 bloom_account_shown_limit(const struct bloom_account *a)
{
	if (a->initial)
		return bloom_memory_limit();
	return min3(bloom_memory_limit(), bloom_others_limit(),
		    (u64)READ_ONCE(max_memory_per_netns));
}
