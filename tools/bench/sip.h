/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SipHash-2-4 called straight from libsodium: a reference line only. Every
 * variant hashes with the core's bloom_core_hash(); this shows what the
 * core's userspace shim (module/core/shim.h) adds on top of libsodium, and
 * checks that both give the same values.
 */
#ifndef BENCH_SIP_H
#define BENCH_SIP_H

#include <stddef.h>
#include <stdint.h>

#define BENCH_SIP_KEY_LEN	16

struct bench_sip_key {
	uint8_t b[BENCH_SIP_KEY_LEN];
};

uint64_t bench_siphash(const struct bench_sip_key *key, const void *data,
		       size_t len);

#endif /* BENCH_SIP_H */
