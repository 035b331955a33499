// SPDX-License-Identifier: GPL-2.0
/* See mem.h. */
#include <string.h>
#include <sys/mman.h>
#include "mem.h"

void *bench_alloc(uint64_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	/* Fault every page in now, not during the first timed fill. */
	memset(p, 0, bytes);
	return p;
}

void bench_free(void *p, uint64_t bytes)
{
	if (p)
		munmap(p, bytes);
}
