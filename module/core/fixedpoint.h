/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Fixed-point logarithms and powers of two (fixedpoint.c): 32.32 for
 * logarithms and exponents, 2.62 for probabilities and small reals.
 */
#ifndef BLOOM_FIXEDPOINT_H
#define BLOOM_FIXEDPOINT_H

#include "shim.h"

#define BLOOM_FP_SHIFT	32
#define BLOOM_FP_ONE	0x100000000ULL	/* 1.0 in 32.32 */
/* Probabilities and small reals in 2.62 fixed point: 1.0 is 2^62. */
#define BLOOM_Q_SHIFT	62
#define BLOOM_Q_ONE	0x4000000000000000ULL
#define BLOOM_LN2_Q	0x2c5c85fdf473de6bULL	/* ln(2) in 2.62 */
/* log2(@v) in 32.32 fixed point for @v >= 1, to about 2^-31. */
u64 bloom_log2_fp(u64 v);
/* 2^-@t in 2.62 (rounded down) for @t >= 0 in 32.32. */
u64 bloom_exp2_neg(u64 t);
/* 2^@t rounded up to an integer for 0 <= @t in 32.32; U64_MAX from 2^62. */
u64 bloom_exp2_ceil(u64 t);
/* ceil(@a * @b / 2^@shift) without overflow (128-bit product). */
u64 bloom_mul_shr_ceil(u64 a, u64 b, unsigned int shift);
/* -ln(1 - @q) in 2.62 for 0 <= @q <= 0.98 in 2.62. */
u64 bloom_neg_ln1m(u64 q);
/* -ln(1 - 2^-@t) in 2.62 for @t >= 1/32 in 32.32. */
u64 bloom_neg_ln_1mq(u64 t);

#endif /* BLOOM_FIXEDPOINT_H */
