/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Many samples of one rate: ns per key of each block of keys timed
 * together. Their median is the figure: a block that another process's
 * time slice fell into (the machine is shared) is an outlier there, not a
 * part of the mean. Unlike struct bench_stat, the count is unbounded.
 */
#ifndef BENCH_SAMPLES_H
#define BENCH_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

struct bench_samples {
	double *v;
	size_t n, cap;
};

/* One block of @keys keys that took @ns nanoseconds; aborts without memory. */
void bench_sample(struct bench_samples *s, uint64_t ns, uint64_t keys);

/* Moves the samples of @src to @dst, leaving @src empty and freed. */
void bench_samples_merge(struct bench_samples *dst, struct bench_samples *src);

/* The median of @s (0 if empty), which is emptied for the next figure. */
double bench_samples_median(struct bench_samples *s);

#endif /* BENCH_SAMPLES_H */
