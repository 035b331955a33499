// SPDX-License-Identifier: GPL-2.0
/*
 * bloom: Bloom filters in kernel memory, behind /dev/bloom.
 *
 * Module init checks the filter core against the published SipHash test
 * vectors before it offers anything: a wrong hash would not crash, it would
 * silently give wrong answers, so a module that fails the check refuses to
 * load.
 */
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/init.h>
#include <linux/module.h>

#include <linux/bloom.h>

#include "core.h"
#include "dev.h"
#include "filter.h"

/* The core is freestanding and keeps its own copy of the ABI's limits. */
static_assert((int)BLOOM_CORE_STANDARD == (int)BLOOM_TYPE_STANDARD);
static_assert((int)BLOOM_CORE_BLOCKED == (int)BLOOM_TYPE_BLOCKED);
static_assert(BLOOM_CORE_CAPACITY_MAX == BLOOM_CAPACITY_MAX);
static_assert(BLOOM_CORE_FPP_PPB_MIN == BLOOM_FPP_PPB_MIN);
static_assert(BLOOM_CORE_FPP_PPB_MAX == BLOOM_FPP_PPB_MAX);
static_assert(BLOOM_CORE_HASHES_MAX == BLOOM_HASHES_MAX);
static_assert(BLOOM_CORE_BITS_MAX == BLOOM_BITS_MAX);
static_assert(BLOOM_CORE_HASH_KEY_LEN == BLOOM_HASH_KEY_LEN);

static int __init bloom_init(void)
{
	int ret;

	ret = bloom_core_selftest();
	if (ret) {
		pr_err("filter core self-test failed (%d): not loading\n", ret);
		return -ENOTRECOVERABLE;
	}
	ret = bloom_filter_init();
	if (ret)
		return ret;
	ret = bloom_dev_init();
	if (ret) {
		bloom_filter_exit();
		return ret;
	}
	pr_info("ready: /dev/bloom, ABI %d\n", BLOOM_ABI_VERSION);
	return 0;
}

static void __exit bloom_exit(void)
{
	bloom_dev_exit();
	bloom_filter_exit();
}

module_init(bloom_init);
module_exit(bloom_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("bloom developers");
MODULE_DESCRIPTION("Bloom filters in kernel memory behind /dev/bloom");
MODULE_VERSION(BLOOM_VERSION);	/* the file VERSION, through Kbuild */
