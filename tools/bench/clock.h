/* SPDX-License-Identifier: GPL-2.0 */
/* Monotonic time in nanoseconds: the one clock every measurement uses. */
#ifndef BENCH_CLOCK_H
#define BENCH_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#endif /* BENCH_CLOCK_H */
