/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Repeated measurements of one quantity. The machine is shared and noisy, so
 * every figure is the median of several samples taken interleaved with the
 * variants it is compared to; the minimum is kept too, for the record.
 */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stddef.h>

#define BENCH_MAX_SAMPLES	32

struct bench_stat {
	size_t n;
	double v[BENCH_MAX_SAMPLES];
};

void bench_stat_add(struct bench_stat *s, double v);
double bench_stat_median(const struct bench_stat *s);
double bench_stat_min(const struct bench_stat *s);

#endif /* BENCH_STATS_H */
