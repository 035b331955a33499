/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * SipHash-c-d with a 64-bit result (Aumasson and Bernstein 2012), for any
 * number of compression rounds c and finalization rounds d, written once
 * for the kernel and userspace builds: the round is the kernel's
 * SIPHASH_PERMUTATION and the constants its SIPHASH_CONST_* (shim.h gives
 * userspace the same macros). Two schemes use it: SipHash-2-4, the
 * kernel's siphash(), and SipHash-1-3, the keyed hash of Rust's HashMap
 * and of Python 3.11's str hashing.
 *
 * Three builds of each: any length, and a fixed 4-byte and 16-byte input
 * (an IPv4 and an IPv6 address) that load their words without a length
 * switch. All are __always_inline with c and d constants at every call,
 * so each becomes straight-line code where it is used: hash.c for the
 * out-of-line calls, and the address lookups that inline the fixed sizes.
 * bloom_core_selftest() checks every build of both schemes against the
 * published vectors.
 */
#ifndef BLOOM_CORE_SIPHASH_H
#define BLOOM_CORE_SIPHASH_H

#include "shim.h"

/* The state after the key is loaded: v0..v3 as the reference names them. */
struct bloom_sip {
	u64 v0, v1, v2, v3;
};

static __always_inline void bloom_sip_init(struct bloom_sip *s,
					   const u64 key[2])
{
	s->v0 = SIPHASH_CONST_0 ^ key[0];
	s->v1 = SIPHASH_CONST_1 ^ key[1];
	s->v2 = SIPHASH_CONST_2 ^ key[0];
	s->v3 = SIPHASH_CONST_3 ^ key[1];
}

static __always_inline void bloom_sip_rounds(struct bloom_sip *s,
					     unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		SIPHASH_PERMUTATION(s->v0, s->v1, s->v2, s->v3);
}

/* One 64-bit message word through @c compression rounds. */
static __always_inline void bloom_sip_word(struct bloom_sip *s, u64 m,
					   unsigned int c)
{
	s->v3 ^= m;
	bloom_sip_rounds(s, c);
	s->v0 ^= m;
}

/* The last word @b (the length in its top byte), then @d rounds. */
static __always_inline u64 bloom_sip_final(struct bloom_sip *s, u64 b,
					   unsigned int c, unsigned int d)
{
	bloom_sip_word(s, b, c);
	s->v2 ^= 0xff;
	bloom_sip_rounds(s, d);
	return (s->v0 ^ s->v1) ^ (s->v2 ^ s->v3);
}

/* SipHash-c-d of @len bytes at @data under @key. */
static __always_inline u64 bloom_siphash_cd(const u64 key[2],
					    const void *data, size_t len,
					    unsigned int c, unsigned int d)
{
	const u8 *p = data, *end = p + (len & ~(size_t)7);
	u64 b = (u64)len << 56;
	struct bloom_sip s;

	bloom_sip_init(&s, key);
	for (; p != end; p += 8)
		bloom_sip_word(&s, get_unaligned_le64(p), c);
	switch (len & 7) {
	case 7:
		b |= (u64)p[6] << 48;
		fallthrough;
	case 6:
		b |= (u64)p[5] << 40;
		fallthrough;
	case 5:
		b |= (u64)p[4] << 32;
		fallthrough;
	case 4:
		b |= get_unaligned_le32(p);
		break;
	case 3:
		b |= (u64)p[2] << 16;
		fallthrough;
	case 2:
		b |= (u64)p[1] << 8;
		fallthrough;
	case 1:
		b |= p[0];
	}
	return bloom_sip_final(&s, b, c, d);
}

/* The same of exactly 4 bytes: one final word, no loop and no switch. */
static __always_inline u64 bloom_siphash_cd_4(const u64 key[2],
					      const void *data,
					      unsigned int c, unsigned int d)
{
	struct bloom_sip s;

	bloom_sip_init(&s, key);
	return bloom_sip_final(&s, 4ULL << 56 | get_unaligned_le32(data), c,
			       d);
}

/* The same of exactly 16 bytes: two words, then the length alone. */
static __always_inline u64 bloom_siphash_cd_16(const u64 key[2],
					       const void *data,
					       unsigned int c, unsigned int d)
{
	const u8 *p = data;
	struct bloom_sip s;

	bloom_sip_init(&s, key);
	bloom_sip_word(&s, get_unaligned_le64(p), c);
	bloom_sip_word(&s, get_unaligned_le64(p + 8), c);
	return bloom_sip_final(&s, 16ULL << 56, c, d);
}

#endif /* BLOOM_CORE_SIPHASH_H */
