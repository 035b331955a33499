// SPDX-License-Identifier: GPL-2.0
/* Median and minimum of a handful of samples. */
#include <stdlib.h>
#include <string.h>
#include "stats.h"

void bench_stat_add(struct bench_stat *s, double v)
{
	if (s->n < BENCH_MAX_SAMPLES)
		s->v[s->n++] = v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bench_stat_median(const struct bench_stat *s)
{
	double v[BENCH_MAX_SAMPLES];

	if (!s->n)
		return 0;
	memcpy(v, s->v, s->n * sizeof(v[0]));
	qsort(v, s->n, sizeof(v[0]), cmp_double);
	/* Even counts: the mean of the two middle samples. */
	return s->n % 2 ? v[s->n / 2] : (v[s->n / 2 - 1] + v[s->n / 2]) / 2;
}

double bench_stat_min(const struct bench_stat *s)
{
	double m;
	size_t i;

	if (!s->n)
		return 0;
	m = s->v[0];
	for (i = 1; i < s->n; i++)
		if (s->v[i] < m)
			m = s->v[i];
	return m;
}
