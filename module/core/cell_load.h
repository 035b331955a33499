/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The load rule of the tables of fingerprint cells in buckets, the d-left
 * counting filter's (dleft.h) and the timed filter's (timed_table.h):
 * how full their buckets may be for a fingerprint width and a rate, and
 * the rate a load gives. Not part of the API.
 */
#ifndef BLOOM_CORE_CELL_LOAD_H
#define BLOOM_CORE_CELL_LOAD_H

#include "internal.h"

#define BLOOM_CELL_PPB_ONE	1000000000ULL

/*
 * A key never added is compared against the fingerprints of its d =
 * 2^@log2d buckets, about d L cells at load L, each a match with
 * probability 2^-r, so p ~= d L 2^-r. 16 * the largest load L with
 * d L 2^-r <= p * 31 / 32 (a 3% margin so the measured rate meets p) for
 * @r >= 1 + @log2d fingerprint bits, at most @max16; 0 when none.
 */
static inline u64 bloom_cell_load16(u32 r, u32 fpp_ppb, u32 log2d, u64 max16)
{
	u32 shift = r - 1 - log2d;
	/* 16 * L <= p * 2^r * 31 / (2 d); p_ppb * 31 < 2^34 */
	u64 a = (u64)fpp_ppb * 31, l16;

	if (shift >= 64 - 34 && a >> (64 - shift))
		return max16;	/* over 2^64 / 10^9: way over */
	l16 = div64_u64(a << shift, BLOOM_CELL_PPB_ONE);
	return l16 < max16 ? l16 : max16;
}

/*
 * The rate in ppb at 16 * L = @l16 (at most 192) for @r fingerprint bits
 * and d = 2^@log2d (at most 4), rounded up: p = d L 2^-r * 32 / 31, the
 * inverse of bloom_cell_load16().
 */
static inline u64 bloom_cell_rate_ppb(u64 l16, u32 r, u32 log2d)
{
	/* 1e9 * 8 * 192 < 2^41, over 31 * 2^41 it is below 1 ppb */
	if (r >= 41)
		return 1;
	return div64_u64((BLOOM_CELL_PPB_ONE << (1 + log2d)) * l16 +
			 (31ULL << r) - 1, 31ULL << r);
}

#endif /* BLOOM_CORE_CELL_LOAD_H */
