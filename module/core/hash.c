// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The keyed hash: SipHash-2-4 of the key bytes under the filter's 128-bit
 * secret. In the kernel this is siphash(); in userspace the same function
 * from libsodium (see shim.h). bloom_core_selftest() checks both builds
 * against the published test vectors.
 */
#include "internal.h"

void bloom_hash_key_from_bytes(bloom_hash_key_t *k,
			       const u8 bytes[BLOOM_CORE_HASH_KEY_LEN])
{
	u64 lo = 0, hi = 0;
	int i;

	for (i = 7; i >= 0; i--) {
		lo = (lo << 8) | bytes[i];
		hi = (hi << 8) | bytes[8 + i];
	}
	k->key[0] = lo;
	k->key[1] = hi;
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
	return siphash(data, len, key);
}

u64 bloom_core_hash(const struct bloom_core *f, const void *data, size_t len)
{
	return bloom_hash(&f->key, data, len);
}

u32 bloom_core_scheme(void)
{
	return BLOOM_SCHEME_ID;
}
