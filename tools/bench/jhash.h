/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jhash2() of one 32-bit word, as <linux/jhash.h> computes it: the hash
 * the kernel's models here share (the BPF Bloom map's, bpfmap.c, and
 * ipset's hash types, bans_native.c).
 */
#ifndef BENCH_JHASH_H
#define BENCH_JHASH_H

#include <stdint.h>

static inline uint32_t bench_rol32(uint32_t w, unsigned int s)
{
	return (w << s) | (w >> (32 - s));
}

static inline uint32_t jhash_1word(uint32_t k, uint32_t initval)
{
	uint32_t a, b, c;

	a = b = c = 0xdeadbeef + (1u << 2) + initval;
	a += k;
	c ^= b; c -= bench_rol32(b, 14);
	a ^= c; a -= bench_rol32(c, 11);
	b ^= a; b -= bench_rol32(a, 25);
	c ^= b; c -= bench_rol32(b, 16);
	a ^= c; a -= bench_rol32(c, 4);
	b ^= a; b -= bench_rol32(a, 14);
	c ^= b; c -= bench_rol32(b, 24);
	return c;
}

#endif /* BENCH_JHASH_H */
