/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every allocation the module makes goes through these wrappers, which keep a
 * count of the live ones. Debian's kernel has no kmemleak, so the count,
 * shown in debugfs (bloom/live_allocations, debug.c), is how the selftests
 * prove that everything a test created was freed.
 */
#ifndef BLOOM_ALLOC_H
#define BLOOM_ALLOC_H

#include <linux/types.h>
#include <linux/gfp.h>

void *bloom_kzalloc(size_t size, gfp_t gfp);
void *bloom_kvmalloc(size_t size, gfp_t gfp);
void *bloom_kvzalloc(size_t size, gfp_t gfp);
void *bloom_vzalloc_pages(size_t size, gfp_t gfp);
size_t bloom_table_bytes(size_t size);
void *bloom_table_zalloc(size_t size, gfp_t gfp);
void __percpu *bloom_alloc_percpu(size_t size, size_t align, gfp_t gfp);
void bloom_kfree(const void *p);
void bloom_kvfree(const void *p);
void bloom_free_percpu(void __percpu *p);
long bloom_live_allocations(void);

#endif /* BLOOM_ALLOC_H */
