// SPDX-License-Identifier: GPL-2.0
/* SipHash-2-4 through libsodium, read as a little-endian 64-bit value. */
#include <sodium.h>
#include <string.h>
#include "sip.h"

uint64_t bench_siphash(const struct bench_sip_key *key, const void *data,
		       size_t len)
{
	unsigned char out[crypto_shorthash_siphash24_BYTES];
	uint64_t h = 0;
	int i;

	crypto_shorthash_siphash24(out, data, len, key->b);
	for (i = 7; i >= 0; i--)
		h = (h << 8) | out[i];
	return h;
}
