// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Logarithms and powers of two in integer arithmetic, for sizing.c and
 * estimate.c: the kernel has no floating point, and userspace must compute
 * the very same numbers.
 *
 * Logarithms are computed in 32.32 fixed point by the bit-by-bit squaring
 * method, to about 2^-31, powers of two by a product of the constants
 * 2^(2^-j).
 */
#include "internal.h"
#include "fixedpoint.h"

/*
 * 2^(2^-j) in 2.62 fixed point for j = 1..32, rounded to nearest
 * (mpmath, 50 digits: nint(2 ** (2 ** -j) * 2 ** 62)).
 */
static const u64 bloom_exp2_steps[32] = {
	0x5a827999fcef3242ULL, 0x4c1bf828c6dc54b8ULL, 0x45cae0f1f545eb73ULL,
	0x42d561b3e6243d8aULL, 0x4166c34c5615d0ecULL, 0x40b268f9de0183baULL,
	0x4058f6a7ecccd5b6ULL, 0x402c6be96af2fb58ULL, 0x4016321b687027a8ULL,
	0x400b18178ba33b14ULL, 0x40058bce410147e8ULL, 0x4002c5d7bff71dafULL,
	0x400162e807ee7e5bULL, 0x4000b1730df6a524ULL, 0x400058b9497b8152ULL,
	0x40002c5c955dd701ULL, 0x4000162e46d6f26cULL, 0x40000b1722757b1bULL,
	0x4000058b90fd3e0cULL, 0x400002c5c86f3f26ULL, 0x40000162e433c79bULL,
	0x400000b17218edd0ULL, 0x40000058b90c3968ULL, 0x4000002c5c860d54ULL,
	0x400000162e4302d2ULL, 0x4000000b17218073ULL, 0x400000058b90bffcULL,
	0x40000002c5c85fefULL, 0x4000000162e42ff3ULL, 0x40000000b17217f9ULL,
	0x4000000058b90bfcULL, 0x400000002c5c85feULL,
};

/* log2(@v) in 32.32 fixed point for @v >= 1, to about 2^-31. */
u64 bloom_log2_fp(u64 v)
{
	u64 ip = 0, frac = 0, y;
	int i;

	while (ip < 63 && (v >> (ip + 1)))
		ip++;
	/* y = v / 2^ip in [1, 2) in 2.62: y * y < 2^126 */
	y = ip <= BLOOM_Q_SHIFT ? v << (BLOOM_Q_SHIFT - ip) : v >> 1;
	for (i = 0; i < BLOOM_FP_SHIFT; i++) {
		y = mul_u64_u64_shr(y, y, BLOOM_Q_SHIFT);
		frac <<= 1;
		if (y >= (2ULL << BLOOM_Q_SHIFT)) {
			y >>= 1;
			frac |= 1;
		}
	}
	return (ip << BLOOM_FP_SHIFT) | frac;
}

/* 2^(@f / 2^32) in 2.62, in [2^62, 2^63), for 0 <= @f < 2^32. */
static u64 bloom_exp2_frac(u32 f)
{
	u64 r = BLOOM_Q_ONE;
	int j;

	for (j = 0; j < 32; j++)
		if (f & (1U << (31 - j)))
			r = mul_u64_u64_shr(r, bloom_exp2_steps[j],
					    BLOOM_Q_SHIFT);
	return r;
}

/* 2^-@t in 2.62 (rounded down) for @t >= 0 in 32.32. */
u64 bloom_exp2_neg(u64 t)
{
	u64 ip = t >> BLOOM_FP_SHIFT;
	u32 fr = (u32)t;

	if (!fr)
		return ip > BLOOM_Q_SHIFT ? 0 : BLOOM_Q_ONE >> ip;
	/* 2^-t = 2^(1 - fr) * 2^(-ip - 1) */
	if (ip + 1 > 63)
		return 0;
	return bloom_exp2_frac((u32)(BLOOM_FP_ONE - fr)) >> (ip + 1);
}

/*
 * 2^@t rounded up to an integer for 0 <= @t in 32.32, U64_MAX when it is
 * 2^62 or more. lg's error (2^-31 in @t) is covered by a margin of 2^-28.
 */
u64 bloom_exp2_ceil(u64 t)
{
	u64 ip = t >> BLOOM_FP_SHIFT, m, v;

	if (ip >= BLOOM_Q_SHIFT)
		return ~0ULL;
	m = bloom_exp2_frac((u32)t);
	v = (m >> (BLOOM_Q_SHIFT - ip)) + 1;
	return v + (v >> 28);
}

/* ceil(@a * @b / 2^@shift) without overflow (128-bit product). */
u64 bloom_mul_shr_ceil(u64 a, u64 b, unsigned int shift)
{
	u64 lo_mask = (1ULL << shift) - 1;

	return mul_u64_u64_shr(a, b, shift) + !!((a * b) & lo_mask);
}

/* -ln(1 - @q) in 2.62 for 0 <= @q < 1 in 2.62, @q <= 0.98: under 4. */
u64 bloom_neg_ln1m(u64 q)
{
	u64 y, term;
	u32 i;

	if (q < BLOOM_Q_ONE >> 4) {
		/* -ln(1 - q) = q + q^2/2 + q^3/3 + ...: exact for small q */
		y = q;
		term = q;
		for (i = 2; i < 24 && term; i++) {
			term = mul_u64_u64_shr(term, q, BLOOM_Q_SHIFT);
			y += div64_u64(term, i);
		}
		return y;
	}
	/* -log2(1 - q) in 32.32, >= 0.093, times ln 2 */
	y = ((u64)BLOOM_Q_SHIFT << BLOOM_FP_SHIFT) - bloom_log2_fp(BLOOM_Q_ONE - q);
	return mul_u64_u64_shr(y, BLOOM_LN2_Q, BLOOM_FP_SHIFT);
}

/* Y = -ln(1 - 2^-@t) in 2.62 for @t > 0 in 32.32 (@t >= 1/32: Y < 4). */
u64 bloom_neg_ln_1mq(u64 t)
{
	return bloom_neg_ln1m(bloom_exp2_neg(t));
}
