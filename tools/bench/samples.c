// SPDX-License-Identifier: GPL-2.0
/* Per-block rates and their median (samples.h). */
#include <stdlib.h>
#include <string.h>

#include "samples.h"

void bench_sample(struct bench_samples *s, uint64_t ns, uint64_t keys)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v)
			abort();
	}
	s->v[s->n++] = (double)ns / (double)keys;
}

void bench_samples_merge(struct bench_samples *dst, struct bench_samples *src)
{
	if (dst->n + src->n > dst->cap) {
		dst->cap = dst->n + src->n;
		dst->v = realloc(dst->v, dst->cap * sizeof(*dst->v));
		if (!dst->v)
			abort();
	}
	if (src->n)
		memcpy(dst->v + dst->n, src->v, src->n * sizeof(*src->v));
	dst->n += src->n;
	free(src->v);
	memset(src, 0, sizeof(*src));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double bench_samples_median(struct bench_samples *s)
{
	double m;

	qsort(s->v, s->n, sizeof(*s->v), cmp_double);
	m = s->n ? s->v[s->n / 2] : 0;
	s->n = 0;
	return m;
}
