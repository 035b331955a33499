/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory for every variant's bit array, from one allocator so that none of
 * them gets better pages than another: anonymous mmap, 4 KiB pages (no
 * MADV_HUGEPAGE, as the module's vmalloc'ed filters have 4 KiB pages too),
 * written once so that no page fault lands inside a timed loop.
 */
#ifndef BENCH_MEM_H
#define BENCH_MEM_H

#include <stdint.h>

/* Zeroed, 64-byte (in fact page) aligned; NULL on failure. */
void *bench_alloc(uint64_t bytes);
void bench_free(void *p, uint64_t bytes);

#endif /* BENCH_MEM_H */
