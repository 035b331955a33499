/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* What the libFuzzer targets share: a loud check and an input reader. */
#ifndef BLOOM_FUZZ_H
#define BLOOM_FUZZ_H

#include <stdio.h>
#include <stdlib.h>

#include "core.h"

/* Fails loudly: libFuzzer keeps the input that got here. */
#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__,	\
			#cond);						\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
		abort();						\
	}								\
} while (0)

struct input {
	const u8 *p;
	size_t left;
};

/* Reads n bytes little-endian; past the end of the input reads zeros. */
static inline u64 take(struct input *in, unsigned int n)
{
	u64 v = 0;
	unsigned int i;

	for (i = 0; i < n && in->left; i++, in->left--)
		v |= (u64)*in->p++ << (8 * i);
	return v;
}

#endif /* BLOOM_FUZZ_H */
