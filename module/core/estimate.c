// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Estimates from what a filter keeps as keys come and go: the number of
 * distinct keys in it and the false-positive rate a never-added key meets
 * now, and the rate a geometry has with n keys (the benchmarks' model).
 * Integer and fixed-point arithmetic only: this runs in the kernel. Every
 * figure costs a bounded number of steps whatever the filter's size.
 *
 * Probabilities are Q64: a u64 v stands for v / 2^64, 1.0 for U64_MAX.
 *
 * Distinct keys from the bits set, X of m (Swamidass and Baldi 2007):
 *	standard, counting:  n = -(m / k) ln(1 - X / m)
 *	blocked:             n = -(m / B) ln(1 - X / m) / (1 - q)
 * with q = (1 - 1/B)^k, B = 512: with the keys of a blocked filter spread
 * over its blocks as a Poisson process of rate lambda = n / blocks, a bit is
 * still 0 with probability E[q^J] = exp(-lambda (1 - q)), which gives the
 * expected X; inverting it gives n. (1 - q is k / B less a little, as k
 * positions of one key may coincide.) d-left: the cells in use, each one
 * key's fingerprint (two keys sharing one are a false positive: rare).
 *
 * False-positive rate now:
 *	standard, counting:  (X / m)^k, a never-added key's k probes each
 *			     meeting a set bit
 *	blocked:             sum over j of P(J = j) (1 - q^j)^k, J ~ Poisson
 *			     with the lambda above: the block-load model
 *			     (Putze, Sanders, Singler 2007). Blocks fill
 *			     unevenly and a key's probes all land in one
 *			     block, so (X / m)^k is optimistic for them (1.7x
 *			     at p = 0.001, 11x at p = 1e-6, at capacity).
 *	d-left:              cells compared x 2^-f: a query compares its
 *			     fingerprint (f bits) with the cells in use of one
 *			     bucket per subtable, 8 x used / subtable_cells of
 *			     them on average
 * The Poisson sum starts at the mode with weight 2^52 and walks both ways
 * until the weights vanish (about 8.5 standard deviations); normalising by
 * the sum of the weights replaces exp(-lambda) and j!, so nothing
 * underflows.
 */
#include "internal.h"
#include "fixedpoint.h"

#define BLOOM_Q64_ONE		(~0ULL)
#define BLOOM_LN2_Q56		49946518145322872ULL	/* ln 2 * 2^56 */
#define BLOOM_MODE_WEIGHT	0x10000000000000ULL	/* 2^52 */
/* lambda beyond which a blocked filter's rate is 1 (error under 1e-6) */
#define BLOOM_LAMBDA_MAX	8192
#define BLOOM_PPB		1000000000ULL

static inline u64 bloom_q64_mul(u64 a, u64 b)
{
	return mul_u64_u64_shr(a, b, 64);
}

static u64 bloom_q64_pow(u64 a, u64 e)
{
	u64 r = BLOOM_Q64_ONE;

	while (e) {
		if (e & 1)
			r = bloom_q64_mul(r, a);
		a = bloom_q64_mul(a, a);
		e >>= 1;
	}
	return r;
}

/* @a / @b for @a <= @b, @b > 0. */
static u64 bloom_q64_ratio(u64 a, u64 b)
{
	return a >= b ? BLOOM_Q64_ONE : mul_u64_u64_div_u64(a, BLOOM_Q64_ONE, b);
}

/* A Q64 probability in parts per billion, rounded. */
static u32 bloom_q64_ppb(u64 p)
{
	return (u32)((mul_u64_u64_shr(p, 2 * BLOOM_PPB, 64) + 1) >> 1);
}

/*
 * -ln(1 - @x / @m) for @x < @m, in 8.56 fixed point. Small ratios by the
 * series t + t^2/2 + t^3/3 + ... (exact to 2^-60), the others from
 * log2(m) - log2(m - x) (to about 2^-31, a relative error under 1e-8
 * there).
 */
static u64 bloom_neg_ln1m_ratio(u64 x, u64 m)
{
	u64 t, term, sum = 0;
	u32 j;

	if (x <= m / 16) {
		t = bloom_q64_ratio(x, m);
		for (term = t, j = 1; term; j++) {
			sum += term / j;
			term = bloom_q64_mul(term, t);
		}
		return sum >> 8;
	}
	return mul_u64_u64_shr(bloom_log2_fp(m) - bloom_log2_fp(m - x),
			       BLOOM_LN2_Q56, 32);
}

/* q = (1 - 1/B)^k: a bit of a block stays 0 under one key. Q64. */
static u64 bloom_blk_q(u32 k)
{
	return bloom_q64_pow(BLOOM_Q64_ONE - BLOOM_Q64_ONE / BLOOM_BLOCK_BITS,
			     k);
}

/* (1 - q^j)^k, Q64. */
static inline u64 bloom_blk_hit(u64 qj, u32 k)
{
	return bloom_q64_pow(BLOOM_Q64_ONE - qj, k);
}

/*
 * The block-load model: the rate of a blocked filter with k hashes whose
 * blocks hold Poisson(@lam32) keys, @lam32 in 32.32 fixed point. Q64.
 */
static u64 bloom_blk_fpp(u64 lam32, u32 k)
{
	u64 q = bloom_blk_q(k);
	u64 j0 = lam32 >> 32, j, w, qj, all = 0, hit = 0;

	if (!lam32)
		return 0;
	if (j0 >= BLOOM_LAMBDA_MAX)
		return BLOOM_Q64_ONE;
	/* the mode and up */
	qj = bloom_q64_pow(q, j0);
	for (j = j0, w = BLOOM_MODE_WEIGHT; w; j++) {
		all += w;
		hit += bloom_q64_mul(w, bloom_blk_hit(qj, k));
		w = mul_u64_u64_div_u64(w, lam32, (j + 1) << 32);
		qj = bloom_q64_mul(qj, q);
	}
	/* down: w(j) = w(j + 1) * (j + 1) / lambda */
	for (j = j0, w = BLOOM_MODE_WEIGHT; j > 0; j--) {
		w = mul_u64_u64_div_u64(w, j << 32, lam32);
		if (!w)
			break;
		all += w;
		hit += bloom_q64_mul(w, bloom_blk_hit(bloom_q64_pow(q, j - 1),
						      k));
	}
	return mul_u64_u64_div_u64(hit, BLOOM_Q64_ONE, all);
}

/* (X / m)^k: the rate of a bit array with @x of @m bits set. Q64. */
static u64 bloom_bits_fpp(u64 x, u64 m, u32 k)
{
	return bloom_q64_pow(bloom_q64_ratio(x, m), k);
}

u64 bloom_core_fpp_model(u32 type, u64 bits, u32 hashes, u64 keys)
{
	u64 zero;

	if (!bits || !hashes)
		return 0;
	if (type == BLOOM_CORE_BLOCKED) {
		u64 blocks = bits / BLOOM_BLOCK_BITS;

		if (!blocks)
			return 0;
		if (div64_u64(keys, blocks) >= BLOOM_LAMBDA_MAX)
			return BLOOM_Q64_ONE;
		return bloom_blk_fpp(mul_u64_u64_div_u64(keys, 1ULL << 32,
							 blocks), hashes);
	}
	/* a bit is 0 after k * n probes with probability (1 - 1/m)^(kn) */
	zero = bloom_q64_pow(BLOOM_Q64_ONE - bloom_q64_ratio(1, bits),
			     (u64)hashes * keys);
	return bloom_q64_pow(BLOOM_Q64_ONE - zero, hashes);
}

/*
 * A standard, counting or blocked filter (not scalable): sets e->keys and
 * returns the rate now, Q64.
 */
static u64 bloom_estimate_bits(const struct bloom_core *f,
			       struct bloom_core_estimate *e)
{
	const struct bloom_geometry *geo = &f->geo;
	u64 x = bloom_core_bits_set(f), m = geo->bits, l56, omq, lam32, p;
	u32 k = geo->hashes;

	e->keys = 0;
	if (!x || !m || !k)
		return 0;
	if (x >= m) {
		e->keys = BLOOM_CORE_KEYS_UNKNOWN;
		return BLOOM_Q64_ONE;
	}
	l56 = bloom_neg_ln1m_ratio(x, m);
	if (geo->type != BLOOM_CORE_BLOCKED) {
		e->keys = div64_u64(mul_u64_u64_shr(m, l56, 56) + k / 2, k);
		p = bloom_bits_fpp(x, m, k);
	} else {
		omq = BLOOM_Q64_ONE - bloom_blk_q(k);
		/* lambda = L / (1 - q) keys per block, in 32.32 */
		lam32 = mul_u64_u64_div_u64(l56 >> 24, BLOOM_Q64_ONE, omq);
		e->keys = mul_u64_u64_shr(lam32, m / BLOOM_BLOCK_BITS, 32);
		p = lam32 >> 32 >= BLOOM_LAMBDA_MAX ? BLOOM_Q64_ONE :
		    bloom_blk_fpp(lam32, k);
	}
	/* some key set the bits: at least one */
	if (!e->keys)
		e->keys = 1;
	return p;
}

static bool bloom_core_is_cells(const struct bloom_core *f)
{
	return f->geo.type == BLOOM_CORE_DLEFT ||
	       f->geo.type == BLOOM_CORE_TIMED;
}

/* A d-left or timed table's keys (its cells in use) and rate now. */
static void bloom_estimate_cells(const struct bloom_core *f,
				 struct bloom_core_estimate *e)
{
	const struct bloom_geometry *geo = &f->geo;
	u32 shift = geo->fingerprint_bits + 20;
	u64 x = bloom_core_bits_set(f), v;

	e->keys = x;
	e->fpp_ppb = 0;
	if (!x)
		return;
	/*
	 * p = d L 2^-r at load L = used / (d B): used / B 2^-r, whatever d;
	 * times 2^20 (used <= 32 B)
	 */
	v = mul_u64_u64_div_u64(x, BLOOM_PPB << 20, geo->buckets);
	/* r reaches 62: past 2^-44 the rate rounds to 0 ppb */
	v = shift < 64 ? (v + (1ULL << (shift - 1))) >> shift : 0;
	e->fpp_ppb = v < BLOOM_PPB ? (u32)v : BLOOM_PPB;
}

/*
 * A scalable filter's stages or an expiring filter's generations: their
 * keys summed (unknown if one's are), the rate compounded: a never-added
 * key is a false positive when any of them says present,
 * 1 - prod(1 - e_i).
 */
static void bloom_estimate_cores(const struct bloom_core *const *cores,
				 u32 n, struct bloom_core_estimate *e)
{
	u64 miss = BLOOM_Q64_ONE;	/* prod(1 - e_i) */
	struct bloom_core_estimate st;
	u32 i;

	e->keys = 0;
	for (i = 0; i < n; i++) {
		u64 p;

		if (bloom_core_is_cells(cores[i])) {
			/* a timed chain's stage: its own estimate, in ppb */
			bloom_estimate_cells(cores[i], &st);
			p = mul_u64_u64_div_u64(st.fpp_ppb, BLOOM_Q64_ONE,
						BLOOM_PPB);
		} else {
			p = bloom_estimate_bits(cores[i], &st);
		}

		miss = bloom_q64_mul(miss, BLOOM_Q64_ONE - p);
		if (st.keys == BLOOM_CORE_KEYS_UNKNOWN ||
		    e->keys == BLOOM_CORE_KEYS_UNKNOWN)
			e->keys = BLOOM_CORE_KEYS_UNKNOWN;
		else
			e->keys += st.keys;
	}
	e->fpp_ppb = bloom_q64_ppb(BLOOM_Q64_ONE - miss);
}

void bloom_core_estimate(const struct bloom_core *f,
			 struct bloom_core_estimate *e)
{
	const struct bloom_core *cores[BLOOM_CORE_STAGES_MAX];
	u32 i, n;

	e->keys = 0;
	e->fpp_ppb = 0;
	if (f->scale) {
		const struct bloom_scale_stage *st[BLOOM_CORE_STAGES_MAX];

		n = bloom_scale_list(f, st);
		for (i = 0; i < n; i++)
			cores[i] = &st[i]->core;
		bloom_estimate_cores(cores, n, e);
		return;
	}
	if (f->expire) {
		bloom_estimate_cores(cores, bloom_expire_live(f, cores), e);
		return;
	}
	if (bloom_core_is_cells(f)) {
		bloom_estimate_cells(f, e);
		return;
	}
	if (bloom_core_bits_set(f))
		e->fpp_ppb = bloom_q64_ppb(bloom_estimate_bits(f, e));
}
