// SPDX-License-Identifier: GPL-2.0
/*
 * bloom: Bloom filters in kernel memory, behind /dev/bloom.
 *
 * The filter core's self-test (the published SipHash-2-4 and SipHash-1-3
 * test vectors through every build of the core's SipHash, known sizings)
 * runs in the unit tests, in the VM selftests through debugfs
 * (bloom/core_selftest), and, in a BLOOM_DEBUG build, at every load,
 * which it then refuses when the check fails: a wrong hash would not
 * crash, it would silently give wrong answers.
 */
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/init.h>
#include <linux/module.h>

#include <linux/bloom.h>

#include "bpf.h"
#include "core.h"
#include "debug.h"
#include "dev.h"
#include "filter.h"
#include "store.h"
#include "timed.h"

/* The core is freestanding and keeps its own copy of the ABI's limits. */
static_assert((int)BLOOM_CORE_STANDARD == (int)BLOOM_TYPE_STANDARD);
static_assert((int)BLOOM_CORE_BLOCKED == (int)BLOOM_TYPE_BLOCKED);
static_assert((int)BLOOM_CORE_COUNTING == (int)BLOOM_TYPE_COUNTING);
static_assert((int)BLOOM_CORE_DLEFT == (int)BLOOM_TYPE_DLEFT);
static_assert((int)BLOOM_CORE_TIMED == (int)BLOOM_TYPE_TIMED);
static_assert(BLOOM_CORE_KEY_TIMEOUT_MAX == BLOOM_KEY_TIMEOUT_MAX);
static_assert(BLOOM_CORE_CAPACITY_MAX == BLOOM_CAPACITY_MAX);
static_assert(BLOOM_CORE_FPP_PPB_MIN == BLOOM_FPP_PPB_MIN);
static_assert(BLOOM_CORE_FPP_PPB_MAX == BLOOM_FPP_PPB_MAX);
static_assert(BLOOM_CORE_HASHES_MAX == BLOOM_HASHES_MAX);
static_assert((int)BLOOM_CORE_SIPHASH_2_4 == (int)BLOOM_HASH_SIPHASH_2_4);
static_assert((int)BLOOM_CORE_SIPHASH_1_3 == (int)BLOOM_HASH_SIPHASH_1_3);
static_assert((int)BLOOM_CORE_HASH_LAST == (int)BLOOM_HASH_SIPHASH_1_3);
static_assert(BLOOM_CORE_BITS_MAX == BLOOM_BITS_MAX);
static_assert(BLOOM_CORE_HASH_KEY_LEN == BLOOM_HASH_KEY_LEN);
static_assert(BLOOM_CORE_GENERATIONS_MIN == BLOOM_GENERATIONS_MIN);
static_assert(BLOOM_CORE_GENERATIONS_MAX == BLOOM_GENERATIONS_MAX);
static_assert(BLOOM_CORE_TIMEOUT_MS_MIN == BLOOM_TIMEOUT_MS_MIN);
static_assert(BLOOM_CORE_TIMEOUT_MS_MAX == BLOOM_TIMEOUT_MS_MAX);
static_assert(BLOOM_CORE_STAGES_MAX == BLOOM_SCALE_STAGES_MAX);
static_assert(BLOOM_CORE_GROWTH_MIN == BLOOM_GROWTH_MIN);
static_assert(BLOOM_CORE_GROWTH_MAX == BLOOM_GROWTH_MAX);
static_assert(BLOOM_CORE_TIGHTENING_MIN == BLOOM_TIGHTENING_PPM_MIN);
static_assert(BLOOM_CORE_TIGHTENING_MAX == BLOOM_TIGHTENING_PPM_MAX);

#ifdef BLOOM_DEBUG
static const bool bloom_selftest_at_load = true;
#else
static const bool bloom_selftest_at_load;
#endif

static int __init bloom_init(void)
{
	int ret;

	if (bloom_selftest_at_load) {
		ret = bloom_core_selftest();
		if (ret) {
			pr_err("filter core self-test failed (%d): not loading\n",
			       ret);
			return -ENOTRECOVERABLE;
		}
	}
	/*
	 * What the device needs first; the device last, once nothing can
	 * fail after it (dev.c). Exit in exactly the reverse order: the
	 * device first (dev.c removes the filters' sysfs directories, which
	 * live inside the device's, just before it), then debugfs, then
	 * what frees the stores and the filters' structs.
	 */
	ret = bloom_store_init();
	if (ret)
		return ret;
	bloom_debug_init();
	ret = bloom_dev_init();
	if (ret) {
		bloom_debug_exit();
		bloom_store_exit();
		return ret;
	}
	bloom_bpf_init();
	pr_info("ready: /dev/bloom, ABI %d\n", BLOOM_ABI_VERSION);
	return 0;
}

static void __exit bloom_exit(void)
{
	/*
	 * First: the filters' references that ended XDP holds still put (a
	 * map that held one lets the module go right after its destructor
	 * ran).
	 */
	bloom_store_drain();
	bloom_dev_exit();
	bloom_debug_exit();
	bloom_store_exit();
	bloom_filter_exit();
}

module_init(bloom_init);
module_exit(bloom_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("bloom developers");
MODULE_DESCRIPTION("Bloom filters in kernel memory behind /dev/bloom");
MODULE_VERSION(BLOOM_VERSION);	/* the file VERSION, through Kbuild */
