// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The keyed hash: SipHash-1-3 or SipHash-2-4 (the filter's scheme, in its
 * key) of the key bytes under the filter's 128-bit secret, both from the
 * one implementation in siphash.h, in the kernel and in userspace.
 * bloom_core_selftest() checks every build of both against the published
 * test vectors.
 */
#include "internal.h"

void bloom_hash_key_init(bloom_hash_key_t *k,
			 const u8 bytes[BLOOM_CORE_HASH_KEY_LEN], u32 hash)
{
	u64 lo = 0, hi = 0;
	int i;

	for (i = 7; i >= 0; i--) {
		lo = (lo << 8) | bytes[i];
		hi = (hi << 8) | bytes[8 + i];
	}
	k->key[0] = lo;
	k->key[1] = hi;
	k->hash = hash;
	k->placement = BLOOM_CORE_PLACE_FP;
}

void bloom_hash_key_from_bytes(bloom_hash_key_t *k,
			       const u8 bytes[BLOOM_CORE_HASH_KEY_LEN])
{
	bloom_hash_key_init(k, bytes, BLOOM_CORE_SIPHASH_2_4);
}

void bloom_hash_key_to_bytes(const bloom_hash_key_t *k,
			     u8 bytes[BLOOM_CORE_HASH_KEY_LEN])
{
	int i;

	for (i = 0; i < 8; i++) {
		bytes[i] = (u8)(k->key[0] >> (8 * i));
		bytes[8 + i] = (u8)(k->key[1] >> (8 * i));
	}
}

u64 bloom_hash(const bloom_hash_key_t *key, const void *data, size_t len)
{
	if (key->hash == BLOOM_CORE_SIPHASH_1_3)
		return bloom_siphash_cd(key->key, data, len, 1, 3);
	return bloom_siphash_cd(key->key, data, len, 2, 4);
}

u64 bloom_core_hash(const struct bloom_core *f, const void *data, size_t len)
{
	return bloom_hash(&f->key, data, len);
}

u32 bloom_core_scheme(void)
{
	return BLOOM_SCHEME_ID;
}

u32 bloom_scheme_of_hash(u32 hash)
{
	return hash == BLOOM_CORE_SIPHASH_1_3 ? BLOOM_SCHEME_ID_SIP13 :
						BLOOM_SCHEME_ID;
}

u32 bloom_scheme_of_core(const struct bloom_core *f)
{
	if (f->geo.type != BLOOM_CORE_TIMED ||
	    f->key.placement != BLOOM_CORE_PLACE_FP)
		return bloom_scheme_of_hash(f->key.hash);
	return f->key.hash == BLOOM_CORE_SIPHASH_1_3 ?
	       BLOOM_SCHEME_ID_SIP13_FP : BLOOM_SCHEME_ID_FP;
}

int bloom_hash_of_scheme(u32 scheme)
{
	switch (scheme) {
	case BLOOM_SCHEME_ID:
	case BLOOM_SCHEME_ID_FP:
		return BLOOM_CORE_SIPHASH_2_4;
	case BLOOM_SCHEME_ID_SIP13:
	case BLOOM_SCHEME_ID_SIP13_FP:
		return BLOOM_CORE_SIPHASH_1_3;
	}
	return -EPROTONOSUPPORT;
}

int bloom_placement_of_scheme(u32 scheme)
{
	switch (scheme) {
	case BLOOM_SCHEME_ID:
	case BLOOM_SCHEME_ID_SIP13:
		return BLOOM_CORE_PLACE_FEISTEL;
	case BLOOM_SCHEME_ID_FP:
	case BLOOM_SCHEME_ID_SIP13_FP:
		return BLOOM_CORE_PLACE_FP;
	}
	return -EPROTONOSUPPORT;
}
