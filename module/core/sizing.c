// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Sizing filters from a capacity n and a false-positive rate p, in integer
 * arithmetic only (see "Sizing" in Documentation/userspace-api.rst).
 *
 * Logarithms and powers come from fixedpoint.c; everything else uses
 * 64x64->128 multiplies, so no intermediate overflows for any n < 2^32.
 * A counting filter has the standard filter's k and m (m 4-bit counters); a
 * d-left filter is sized by dleft.c, which knows its cells.
 */
#include "internal.h"
#include "blocked_table.h"
#include "fixedpoint.h"

/* log2(e) = 1 / ln(2) in 32.32 fixed point: 1.4426950408889634 * 2^32 */
#define BLOOM_LOG2E_FP	6196328019ULL
#define BLOOM_PPB_ONE	1000000000ULL
/* budgets over what any filter can take are cut to this (2^40 bytes) */
#define BLOOM_MEMORY_MAX	0x10000000000ULL

/* -log2(fpp_ppb / 1e9) in 32.32 fixed point; fpp_ppb must be in range. */
static u64 bloom_neg_log2_p(u32 fpp_ppb)
{
	return bloom_log2_fp(BLOOM_PPB_ONE) - bloom_log2_fp(fpp_ppb);
}

/*
 * Standard (and counting) filters: the rate bound.
 *
 * Every key sets k distinct positions, a uniformly random k-subset of the
 * m bits (internal.h; in large filters nearly so). The events "bit i is
 * set" are then negatively associated (Joag-Dev, Proschan 1983: a random
 * k-subset's indicators are, independent keys keep it, and so does the OR
 * of each bit's indicators over the keys), so the exact rate, the
 * probability that the k distinct positions of a key never added are all
 * set, is at most the product of the k marginals:
 *	FPR(n, m, k) <= (1 - (1 - k/m)^n)^k
 * This is the exact expectation's upper bound, not the classic
 * approximation (1 - e^(-kn/m))^k, which is below the exact rate for small
 * filters (capacity 5 at p = 0.001: 1.25 p with independent positions).
 * The bound and the exact rate converge as n grows (measured: within 0.3%
 * from n = 100 on).
 *
 * With q = p^(1/k) and Y = -ln(1 - q), the bound is at most p exactly when
 *	m >= k / (1 - e^(-Y/n)),
 * and since y / (1 - e^-y) <= 1 + y/2 + y^2/12 for y > 0, taking
 *	m = k n / Y + k / 2 + k Y / (12 n)
 * (rounded up) always suffices and costs under 0.01% more than the exact
 * solution for n >= 1000.
 */

/*
 * The fewest bits m with FPR(n, m, k) <= 2^-@l for a fixed @k, or
 * U64_MAX when that is over 2^62.
 */
static u64 bloom_std_bits_for(u64 n, u64 l, u32 k)
{
	u64 y = bloom_neg_ln_1mq(div64_u64(l, k)), lgm, main, third;

	if (!y)
		return ~0ULL;
	/* k n / Y: log2(k n) + 62 - log2(Y * 2^62) */
	lgm = bloom_log2_fp((u64)k * n) + ((u64)BLOOM_Q_SHIFT << BLOOM_FP_SHIFT);
	if (lgm <= bloom_log2_fp(y))
		main = 1;
	else
		main = bloom_exp2_ceil(lgm - bloom_log2_fp(y));
	if (main >= 1ULL << 61)
		return ~0ULL;
	/* k Y / (12 n) with 30 fraction bits; Y < 4, k <= 32: < 2^37 */
	third = div64_u64(mul_u64_u64_shr(y, k, BLOOM_Q_SHIFT - 30), 12 * n);
	return main + (k + 1) / 2 + (third >> 30) + 2;
}

/*
 * k and m for n keys at 2^-@l: the k near the optimum (l) that needs the
 * fewest bits. @fixed_k: that k only (0: choose).
 */
static void bloom_size_standard(u64 n, u64 l, u32 fixed_k, u32 *k, u64 *m)
{
	u32 kc = (u32)((l + BLOOM_FP_ONE / 2) >> BLOOM_FP_SHIFT), lo, hi, i;
	u64 bits;

	lo = kc > 2 ? kc - 2 : 1;
	hi = kc + 2 < BLOOM_CORE_HASHES_MAX ? kc + 2 : BLOOM_CORE_HASHES_MAX;
	if (fixed_k) {
		lo = fixed_k;
		hi = fixed_k;
	}
	*k = lo;
	*m = ~0ULL;
	for (i = lo; i <= hi; i++) {
		bits = bloom_std_bits_for(n, l, i);
		if (bits < *m) {
			*m = bits;
			*k = i;
		}
	}
}

/* Blocked: bits per key (16.16) and k for a rate 2^-@l, from the table. */
static u64 bloom_blk_bpk(u64 l, u32 *k)
{
	const u32 last = BLOOM_BLOCKED_ENTRIES - 1;
	u64 x, i, frac, lo, hi;

	if (l < (u64)BLOOM_BLOCKED_LOG2_MIN << BLOOM_FP_SHIFT)
		l = (u64)BLOOM_BLOCKED_LOG2_MIN << BLOOM_FP_SHIFT;
	x = (l - ((u64)BLOOM_BLOCKED_LOG2_MIN << BLOOM_FP_SHIFT)) *
	    BLOOM_BLOCKED_STEPS;
	i = x >> BLOOM_FP_SHIFT;
	frac = x & (BLOOM_FP_ONE - 1);
	if (i >= last) {
		*k = bloom_blocked_table[last].hashes;
		return bloom_blocked_table[last].bpk;
	}
	lo = bloom_blocked_table[i].bpk;
	hi = bloom_blocked_table[i + 1].bpk;
	*k = bloom_blocked_table[frac < BLOOM_FP_ONE / 2 ? i : i + 1].hashes;
	/* the table is increasing; round the interpolation up */
	return lo + bloom_mul_shr_ceil(hi - lo, frac, BLOOM_FP_SHIFT);
}

static void bloom_size_blocked(u64 n, u64 l, u32 *k, u64 *m)
{
	/* bpk is 16.16 and under 2^23, n under 2^32: no overflow */
	*m = (n * bloom_blk_bpk(l, k) + 0xffff) >> 16;
	*m = (*m + BLOOM_BLOCK_BITS - 1) / BLOOM_BLOCK_BITS * BLOOM_BLOCK_BITS;
}

/*
 * -log2 of the standard filter's rate bound (1 - (1 - k/m)^n)^k, in 32.32;
 * 0 when the bound is about 1, 64 << 32 when it is below 2^-64.
 */
static u64 bloom_std_neg_log2_rate(u64 n, u64 m, u32 k)
{
	u64 x, a, t, v, w;

	if (m <= k)
		return 0;
	/* x = k / m in 2.62 (17 significant bits or more for m <= 2^40) */
	x = div64_u64((u64)k << 57, m) << 5;
	/* a = -ln(1 - x); (1 - x)^n = e^(-n a) */
	a = bloom_neg_ln1m(x);
	if (mul_u64_u64_shr(a, n, BLOOM_Q_SHIFT) >= 40)
		return 0;
	t = mul_u64_u64_shr(mul_u64_u64_shr(a, n, BLOOM_Q_SHIFT - 32),
			    BLOOM_LOG2E_FP, BLOOM_FP_SHIFT);
	v = bloom_exp2_neg(t);
	w = BLOOM_Q_ONE - v;
	if (!w)
		return 64ULL << BLOOM_FP_SHIFT;
	return k * (((u64)BLOOM_Q_SHIFT << BLOOM_FP_SHIFT) - bloom_log2_fp(w));
}

/* ceil(1e9 * 2^-@l), at least 1; 2^-@l <= 0.5 gives at most 5e8. */
static u64 bloom_rate_ppb(u64 l)
{
	if (l >= 30ULL << BLOOM_FP_SHIFT)
		return 1;
	return bloom_mul_shr_ceil(bloom_exp2_neg(l), BLOOM_PPB_ONE,
				  BLOOM_Q_SHIFT);
}

static void bloom_geo_fill(struct bloom_geometry *geo, u32 type, u32 k,
			   u64 m, u64 n, u32 ppb)
{
	geo->type = type;
	geo->hashes = k;
	geo->bits = m;
	geo->capacity = n;
	geo->fpp_ppb = ppb;
	geo->fingerprint_bits = 0;
	geo->cell_bits = type == BLOOM_CORE_COUNTING ? 4 : 0;
	geo->buckets = 0;
}

/* From capacity and rate (and a fixed k). */
static int bloom_size_np(u32 type, u64 n, u32 ppb, u32 fixed_k,
			 struct bloom_geometry *geo)
{
	u64 l, m;
	u32 k;

	if (type == BLOOM_CORE_DLEFT)
		return bloom_dl_size(n, ppb, geo);
	if (type == BLOOM_CORE_TIMED)
		return bloom_tm_size(n, ppb, geo);

	l = bloom_neg_log2_p(ppb);
	if (type != BLOOM_CORE_BLOCKED) {
		bloom_size_standard(n, l, fixed_k, &k, &m);
		if (m < BLOOM_CORE_BITS_MIN)
			m = BLOOM_CORE_BITS_MIN;
	} else {
		bloom_size_blocked(n, l, &k, &m);
		if (m < BLOOM_BLOCK_BITS)
			m = BLOOM_BLOCK_BITS;
	}
	if (k < 1)
		k = 1;
	if (k > BLOOM_CORE_HASHES_MAX)
		k = BLOOM_CORE_HASHES_MAX;
	if (m > BLOOM_CORE_BITS_MAX)
		return -E2BIG;
	bloom_geo_fill(geo, type, k, m, n, ppb);
	return 0;
}

/*
 * From capacity @n and a budget of @budget bits as geometry counts them
 * (counting: counters), and a fixed k: the table takes at most @budget, the
 * rate is what that gives (-ERANGE when it is over 0.5).
 */
static int bloom_size_nb(u32 type, u64 n, u64 budget, u32 fixed_k,
			 struct bloom_geometry *geo)
{
	u64 m, l = 0, best = 0, bpk16, lo, hi, mid, ppb;
	u32 k = 1, i, kk;

	if (budget > BLOOM_CORE_BITS_MAX)
		budget = BLOOM_CORE_BITS_MAX;
	switch (type) {
	case BLOOM_CORE_STANDARD:
	case BLOOM_CORE_COUNTING:
		m = budget;
		if (m < BLOOM_CORE_BITS_MIN)
			return -ERANGE;
		for (i = 1; i <= BLOOM_CORE_HASHES_MAX; i++) {
			if (fixed_k && i != fixed_k)
				continue;
			l = bloom_std_neg_log2_rate(n, m, i);
			if (l > best || i == fixed_k) {
				best = l;
				k = i;
			}
		}
		l = best;
		break;
	case BLOOM_CORE_BLOCKED:
		m = budget / BLOOM_BLOCK_BITS * BLOOM_BLOCK_BITS;
		if (m < BLOOM_BLOCK_BITS)
			return -ERANGE;
		/* the largest -log2 p whose table bits per key fit */
		bpk16 = div64_u64(m << 16, n);
		lo = (u64)BLOOM_BLOCKED_LOG2_MIN << BLOOM_FP_SHIFT;
		hi = 30ULL << BLOOM_FP_SHIFT;
		if (bloom_blk_bpk(lo, &kk) > bpk16)
			return -ERANGE;
		while (lo < hi) {
			mid = lo + (hi - lo + 1) / 2;
			if (bloom_blk_bpk(mid, &kk) <= bpk16)
				lo = mid;
			else
				hi = mid - 1;
		}
		l = lo;
		bloom_blk_bpk(l, &k);
		break;
	case BLOOM_CORE_TIMED:
		return bloom_tm_size_bits(n, budget, geo);
	default:
		return bloom_dl_size_bits(n, budget, geo);
	}
	if (l < BLOOM_FP_ONE)
		return -ERANGE;
	ppb = bloom_rate_ppb(l);
	if (ppb > BLOOM_CORE_FPP_PPB_MAX)
		return -ERANGE;
	bloom_geo_fill(geo, type, k, m, n, (u32)ppb);
	return 0;
}

static bool bloom_fits(u32 type, u64 n, u32 ppb, u32 fixed_k, u64 memory,
		       struct bloom_geometry *geo)
{
	return !bloom_size_np(type, n, ppb, fixed_k, geo) &&
	       bloom_core_storage_bytes(geo) <= memory;
}

int bloom_core_size(const struct bloom_core_size_req *r, struct bloom_geometry *geo)
{
	u64 n = r->capacity, budget, lo, hi, mid;
	u32 type = r->type, given;
	struct bloom_geometry g;

	if (type < BLOOM_CORE_STANDARD || type > BLOOM_CORE_TIMED)
		return -EOPNOTSUPP;
	given = !!r->capacity + !!r->fpp_ppb + !!r->bpk_milli +
		!!r->memory_bytes;
	if (given != 2 || (r->fpp_ppb && r->bpk_milli))
		return -EINVAL;
	if (r->capacity > BLOOM_CORE_CAPACITY_MAX ||
	    (r->fpp_ppb && r->fpp_ppb > BLOOM_CORE_FPP_PPB_MAX) ||
	    r->hashes > BLOOM_CORE_HASHES_MAX ||
	    (r->hashes && type != BLOOM_CORE_STANDARD &&
	     type != BLOOM_CORE_COUNTING))
		return -EINVAL;

	if (n && r->fpp_ppb)
		return bloom_size_np(type, n, r->fpp_ppb, r->hashes, geo);

	if (r->memory_bytes && r->fpp_ppb) {
		/* the largest capacity whose filter fits */
		if (!bloom_fits(type, 1, r->fpp_ppb, r->hashes,
				r->memory_bytes, &g))
			return -ERANGE;
		lo = 1;
		hi = BLOOM_CORE_CAPACITY_MAX;
		while (lo < hi) {
			mid = lo + (hi - lo + 1) / 2;
			if (bloom_fits(type, mid, r->fpp_ppb, r->hashes,
				       r->memory_bytes, &g))
				lo = mid;
			else
				hi = mid - 1;
		}
		return bloom_size_np(type, lo, r->fpp_ppb, r->hashes, geo);
	}

	/* a table of at most so many bits: whole 64-byte lines of memory */
	if (r->memory_bytes) {
		budget = r->memory_bytes < BLOOM_MEMORY_MAX ? r->memory_bytes :
			 BLOOM_MEMORY_MAX;
		budget = budget / BLOOM_CORE_ALIGN * BLOOM_CORE_ALIGN * 8;
		/* a counting filter's bits are 4-bit counters */
		if (type == BLOOM_CORE_COUNTING)
			budget /= 4;
		if (!n) {
			/* memory and bits per key: the capacity they give */
			n = div64_u64(budget, r->bpk_milli) * 1000 +
			    div64_u64(budget % r->bpk_milli * 1000,
				      r->bpk_milli);
			if (n > BLOOM_CORE_CAPACITY_MAX)
				n = BLOOM_CORE_CAPACITY_MAX;
			if (!n)
				return -ERANGE;
		}
	} else {
		/* capacity and bits per key */
		budget = div64_u64(n * r->bpk_milli, 1000);
	}
	return bloom_size_nb(type, n, budget, r->hashes, geo);
}

int bloom_geometry_size(u32 type, u64 capacity, u32 fpp_ppb,
			struct bloom_geometry *geo)
{
	struct bloom_core_size_req r = {
		.type = type,
		.capacity = capacity,
		.fpp_ppb = fpp_ppb,
	};

	if (type < BLOOM_CORE_STANDARD || type > BLOOM_CORE_TIMED)
		return -EOPNOTSUPP;
	if (!bloom_capacity_rate_valid(capacity, fpp_ppb))
		return -EINVAL;
	return bloom_core_size(&r, geo);
}

/*
 * -log2 of the expected rate at capacity, in 32.32: the standard and
 * counting filters' rate bound, the blocked table read backwards, the
 * d-left and timed cells compared times 2^-r.
 */
u64 bloom_geometry_neg_log2_rate(const struct bloom_geometry *geo)
{
	u64 n = geo->capacity, bpk16, lo, hi, mid, cells;
	u32 k;

	switch (geo->type) {
	case BLOOM_CORE_STANDARD:
	case BLOOM_CORE_COUNTING:
		return bloom_std_neg_log2_rate(n, geo->bits, geo->hashes);
	case BLOOM_CORE_BLOCKED:
		bpk16 = div64_u64(geo->bits << 16, n);
		lo = (u64)BLOOM_BLOCKED_LOG2_MIN << BLOOM_FP_SHIFT;
		hi = 30ULL << BLOOM_FP_SHIFT;
		while (lo < hi) {
			mid = lo + (hi - lo + 1) / 2;
			if (bloom_blk_bpk(mid, &k) <= bpk16)
				lo = mid;
			else
				hi = mid - 1;
		}
		return lo;
	default:
		/* d L 2^-r with L = n / (d B): n 2^-r / B, whatever d */
		cells = geo->buckets;
		if (!cells)
			return 0;
		return ((u64)geo->fingerprint_bits << BLOOM_FP_SHIFT) +
		       bloom_log2_fp(cells) - bloom_log2_fp(n);
	}
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
	if (!bloom_capacity_rate_valid(geo->capacity, geo->fpp_ppb))
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
