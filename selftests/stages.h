/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The stages a scalable filter has after @count new keys, by the formula:
 * stage i holds n0 * s^i keys and every stage but the newest is full. The
 * kselftest bloom_scale.c and the unit test unit/test_scale.c check the
 * module's and the core's stages against it.
 */
#ifndef BLOOM_SELFTEST_STAGES_H
#define BLOOM_SELFTEST_STAGES_H

#include <stdint.h>

static inline uint32_t stages_for(uint64_t n0, uint32_t s, uint64_t count)
{
	uint64_t total = 0, cap = n0;
	uint32_t i = 0;

	do {
		total += cap;
		cap *= s;
		i++;
	} while (total < count);
	return i;
}

#endif /* BLOOM_SELFTEST_STAGES_H */
