// SPDX-License-Identifier: GPL-2.0
/*
 * Counted allocations (see alloc.h).
 */
#include <linux/atomic.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "alloc.h"

static atomic_long_t bloom_live = ATOMIC_LONG_INIT(0);

static void *bloom_count(void *p)
{
	if (p)
		atomic_long_inc(&bloom_live);
	return p;
}

static void bloom_uncount(const void *p)
{
	if (p)
		atomic_long_dec(&bloom_live);
}

void *bloom_kzalloc(size_t size, gfp_t gfp)
{
	return bloom_count(kzalloc(size, gfp));
}

/*
 * Sizes come from userspace. kvmalloc() warns and fails above INT_MAX, and
 * userspace must not be able to make the kernel warn (panic_on_warn turns
 * a warning into a crash), so larger arrays go to vmalloc directly.
 * __GFP_NOWARN: a request the machine cannot satisfy is the caller's
 * problem (-ENOMEM), not a reason to fill the log.
 */
void *bloom_kvmalloc(size_t size, gfp_t gfp)
{
	gfp |= __GFP_NOWARN;
	if (size > INT_MAX)
		return bloom_count(__vmalloc(size, gfp));
	return bloom_count(kvmalloc(size, gfp));
}

/* bloom_kvmalloc(), zeroed. */
void *bloom_kvzalloc(size_t size, gfp_t gfp)
{
	return bloom_kvmalloc(size, gfp | __GFP_ZERO);
}

/*
 * A filter's table takes what bloom_table_bytes() says, and memory_bytes and
 * max_memory count that. kvmalloc() would serve a table of 8 KiB to 4 MiB
 * from the page allocator in a power of two of pages when memory allows,
 * up to twice what was asked and counted; a table over a page comes from
 * vmalloc in whole pages instead, one of a page or less from the slab, in
 * its size class. Free with bloom_kvfree().
 */
size_t bloom_table_bytes(size_t size)
{
	if (size <= PAGE_SIZE)
		return kmalloc_size_roundup(size);
	/* saturated, so that the reservation of a size past any limit fails */
	if (size > (SIZE_MAX & PAGE_MASK))
		return SIZE_MAX;
	return PAGE_ALIGN(size);
}

void *bloom_table_zalloc(size_t size, gfp_t gfp)
{
	gfp |= __GFP_ZERO | __GFP_NOWARN;
	if (size <= PAGE_SIZE)
		return bloom_count(kmalloc(size, gfp));
	return bloom_count(__vmalloc(size, gfp));
}

/*
 * Always vmalloc, so always whole pages that can be mapped into a process
 * (map.c), page-aligned; free with bloom_kvfree().
 */
void *bloom_vzalloc_pages(size_t size, gfp_t gfp)
{
	return bloom_count(__vmalloc(size, gfp | __GFP_ZERO | __GFP_NOWARN));
}

void __percpu *bloom_alloc_percpu(size_t size, size_t align, gfp_t gfp)
{
	void __percpu *p = __alloc_percpu_gfp(size, align, gfp);

	if (p)
		atomic_long_inc(&bloom_live);
	return p;
}

void bloom_kfree(const void *p)
{
	bloom_uncount(p);
	kfree(p);
}

void bloom_kvfree(const void *p)
{
	bloom_uncount(p);
	kvfree(p);
}

void bloom_free_percpu(void __percpu *p)
{
	if (p)
		atomic_long_dec(&bloom_live);
	free_percpu(p);
}

long bloom_live_allocations(void)
{
	return atomic_long_read(&bloom_live);
}
