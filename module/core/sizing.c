// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Sizing filters from a capacity n and a false-positive rate p, in integer
 * arithmetic only (see "Sizing" in uapi/linux/bloom.h).
 *
 * -log2(p) = log2(1e9) - log2(fpp_ppb) is computed in 32.32 fixed point by
 * the bit-by-bit squaring method, to about 2^-31; everything after it uses
 * 64x64->128 multiplies, so no intermediate overflows for any n < 2^32.
 * A counting filter has the standard filter's k and m (m 4-bit counters); a
 * d-left filter is sized by dleft.c, which knows its cells.
 */
#include "internal.h"
#include "blocked_table.h"

#define BLOOM_FP_SHIFT	32
#define BLOOM_FP_ONE	0x100000000ULL	/* 1.0 in 32.32 */
/* log2(e) = 1 / ln(2) in 32.32 fixed point: 1.4426950408889634 * 2^32 */
#define BLOOM_LOG2E_FP	6196328019ULL
#define BLOOM_PPB_ONE	1000000000ULL

/* log2(@v) in 32.32 fixed point, for 1 <= @v < 2^31. */
static u64 bloom_log2_fp(u64 v)
{
	u64 ip = 0, frac = 0, y;
	int i;

	while (v >> (ip + 1))
		ip++;
	/* y = v / 2^ip in [1, 2), with 61 fraction bits: y * y < 2^63 */
	y = v << (61 - ip);
	for (i = 0; i < BLOOM_FP_SHIFT; i++) {
		y = mul_u64_u64_shr(y, y, 61);
		frac <<= 1;
		if (y >= (2ULL << 61)) {
			y >>= 1;
			frac |= 1;
		}
	}
	return (ip << BLOOM_FP_SHIFT) | frac;
}

/* -log2(fpp_ppb / 1e9) in 32.32 fixed point; fpp_ppb must be in range. */
static u64 bloom_neg_log2_p(u32 fpp_ppb)
{
	return bloom_log2_fp(BLOOM_PPB_ONE) - bloom_log2_fp(fpp_ppb);
}

/* ceil(@a * @b / 2^@shift) without overflow (128-bit product). */
static u64 bloom_mul_shr_ceil(u64 a, u64 b, unsigned int shift)
{
	u64 lo_mask = (1ULL << shift) - 1;

	return mul_u64_u64_shr(a, b, shift) + !!((a * b) & lo_mask);
}

static void bloom_size_standard(u64 n, u64 l, u32 *k, u64 *m)
{
	u64 bpk = mul_u64_u64_shr(l, BLOOM_LOG2E_FP, BLOOM_FP_SHIFT);

	*k = (u32)((l + BLOOM_FP_ONE / 2) >> BLOOM_FP_SHIFT);
	*m = bloom_mul_shr_ceil(n, bpk, BLOOM_FP_SHIFT);
}

static void bloom_size_blocked(u64 n, u64 l, u32 *k, u64 *m)
{
	const u32 last = BLOOM_BLOCKED_ENTRIES - 1;
	u64 x, i, frac, bpk;

	if (l < (u64)BLOOM_BLOCKED_LOG2_MIN << BLOOM_FP_SHIFT)
		l = (u64)BLOOM_BLOCKED_LOG2_MIN << BLOOM_FP_SHIFT;
	x = (l - ((u64)BLOOM_BLOCKED_LOG2_MIN << BLOOM_FP_SHIFT)) *
	    BLOOM_BLOCKED_STEPS;
	i = x >> BLOOM_FP_SHIFT;
	frac = x & (BLOOM_FP_ONE - 1);
	if (i >= last) {
		bpk = bloom_blocked_table[last].bpk;
		*k = bloom_blocked_table[last].hashes;
	} else {
		u64 lo = bloom_blocked_table[i].bpk;
		u64 hi = bloom_blocked_table[i + 1].bpk;

		/* the table is increasing; round the interpolation up */
		bpk = lo + bloom_mul_shr_ceil(hi - lo, frac, BLOOM_FP_SHIFT);
		*k = bloom_blocked_table[frac < BLOOM_FP_ONE / 2 ? i : i + 1].hashes;
	}
	/* bpk is 16.16 and under 2^23, n under 2^32: no overflow */
	*m = (n * bpk + 0xffff) >> 16;
	*m = (*m + BLOOM_BLOCK_BITS - 1) / BLOOM_BLOCK_BITS * BLOOM_BLOCK_BITS;
}

int bloom_geometry_size(u32 type, u64 capacity, u32 fpp_ppb,
			struct bloom_geometry *geo)
{
	u64 l, m;
	u32 k;

	if (type < BLOOM_CORE_STANDARD || type > BLOOM_CORE_DLEFT)
		return -EOPNOTSUPP;
	if (capacity < 1 || capacity > BLOOM_CORE_CAPACITY_MAX ||
	    fpp_ppb < BLOOM_CORE_FPP_PPB_MIN || fpp_ppb > BLOOM_CORE_FPP_PPB_MAX)
		return -EINVAL;

	if (type == BLOOM_CORE_DLEFT)
		return bloom_dl_size(capacity, fpp_ppb, geo);

	l = bloom_neg_log2_p(fpp_ppb);
	if (type != BLOOM_CORE_BLOCKED) {
		bloom_size_standard(capacity, l, &k, &m);
		if (m < BLOOM_CORE_BITS_MIN)
			m = BLOOM_CORE_BITS_MIN;
	} else {
		bloom_size_blocked(capacity, l, &k, &m);
		if (m < BLOOM_BLOCK_BITS)
			m = BLOOM_BLOCK_BITS;
	}
	if (k < 1)
		k = 1;
	if (k > BLOOM_CORE_HASHES_MAX)
		k = BLOOM_CORE_HASHES_MAX;
	if (m > BLOOM_CORE_BITS_MAX)
		return -E2BIG;

	geo->type = type;
	geo->hashes = k;
	geo->bits = m;
	geo->capacity = capacity;
	geo->fpp_ppb = fpp_ppb;
	geo->fingerprint_bits = 0;
	geo->cell_bits = type == BLOOM_CORE_COUNTING ? 4 : 0;
	geo->buckets = 0;
	return 0;
}

/*
 * For a counting filter @bits counts counters and the d-left fields are
 * ignored (a caller restoring a geometry may leave them 0). A d-left
 * geometry is never taken from outside: its cells and buckets must agree
 * with the sizing rule, so only bloom_geometry_size() makes one.
 */
int bloom_geometry_check(const struct bloom_geometry *geo)
{
	if (geo->type < BLOOM_CORE_STANDARD || geo->type > BLOOM_CORE_COUNTING)
		return -EOPNOTSUPP;
	if (geo->hashes < 1 || geo->hashes > BLOOM_CORE_HASHES_MAX ||
	    geo->bits < BLOOM_CORE_BITS_MIN)
		return -EINVAL;
	if (geo->bits > BLOOM_CORE_BITS_MAX)
		return -E2BIG;
	if (geo->type == BLOOM_CORE_BLOCKED && geo->bits % BLOOM_BLOCK_BITS)
		return -EINVAL;
	if (geo->capacity < 1 || geo->capacity > BLOOM_CORE_CAPACITY_MAX ||
	    geo->fpp_ppb < BLOOM_CORE_FPP_PPB_MIN ||
	    geo->fpp_ppb > BLOOM_CORE_FPP_PPB_MAX)
		return -EINVAL;
	return 0;
}

u64 bloom_core_storage_bytes(const struct bloom_geometry *geo)
{
	u64 bytes = (geo->bits + 7) / 8;

	if (geo->type == BLOOM_CORE_COUNTING)
		return bloom_cnt_storage_bytes(geo);

	return (bytes + BLOOM_CORE_ALIGN - 1) / BLOOM_CORE_ALIGN *
	       BLOOM_CORE_ALIGN;
}
