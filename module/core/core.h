/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The filter core: sizing, keyed hashing and the filter algorithms.
 *
 * Freestanding C. It includes nothing but "shim.h", which maps the few things
 * it needs (fixed-width types, errno values, SipHash, atomic bit operations,
 * 64x64->128 multiply, popcount, prefetch) to the kernel's helpers inside
 * bloom.ko and to libc/libsodium in the userspace build used by the unit
 * tests, the fuzzer and the benchmarks. One algorithm, one copy.
 *
 * The core never allocates: the caller asks how many bytes a geometry needs,
 * allocates them zeroed and aligned to BLOOM_CORE_ALIGN, and hands them in.
 * The core has no locks: adds to standard and blocked filters use atomic bit
 * sets, so concurrent adds lose nothing and a query never sees a torn key.
 */
#ifndef BLOOM_CORE_H
#define BLOOM_CORE_H

#include "shim.h"

#define BLOOM_CORE_ALIGN	64	/* bytes; one cache line, one blocked block */
#define BLOOM_BLOCK_BITS	512

/* Limits; the same values as in uapi/linux/bloom.h (bloom.ko checks). */
#define BLOOM_CORE_CAPACITY_MAX	0xffffffffULL
#define BLOOM_CORE_FPP_PPB_MIN	1
#define BLOOM_CORE_FPP_PPB_MAX	500000000
#define BLOOM_CORE_HASHES_MAX	32
#define BLOOM_CORE_BITS_MIN	64
#define BLOOM_CORE_BITS_MAX	0x10000000000ULL	/* 2^40 */
#define BLOOM_CORE_HASH_KEY_LEN	16

/* Values are those of enum bloom_type in uapi/linux/bloom.h. */
enum bloom_core_type {
	BLOOM_CORE_STANDARD = 1,
	BLOOM_CORE_BLOCKED = 2,
};

/**
 * struct bloom_geometry - what a filter is and how big
 * @type: enum bloom_core_type
 * @hashes: k
 * @bits: m
 * @capacity: n the filter was sized for
 * @fpp_ppb: false-positive rate asked for, parts per billion
 */
struct bloom_geometry {
	u32 type;
	u32 hashes;
	u64 bits;
	u64 capacity;
	u32 fpp_ppb;
};

/**
 * struct bloom_core - a filter
 * @geo: its geometry
 * @key: the SipHash key
 * @words: the bit array, BLOOM_CORE_ALIGN-aligned, bloom_core_storage_bytes()
 * @nblocks: blocked filters: number of 512-bit blocks
 */
struct bloom_core {
	struct bloom_geometry geo;
	bloom_hash_key_t key;
	unsigned long *words;
	u64 nblocks;
};

/*
 * Sizing. Both return 0 or a negative errno (-EINVAL for values out of range,
 * -E2BIG for a filter over BLOOM_CORE_BITS_MAX bits) and fill @geo only on
 * success. Integer arithmetic only: the kernel has no floating point.
 */
int bloom_geometry_size(u32 type, u64 capacity, u32 fpp_ppb,
			struct bloom_geometry *geo);
int bloom_geometry_check(const struct bloom_geometry *geo);

/* Bytes of bit array the geometry needs (a multiple of BLOOM_CORE_ALIGN). */
u64 bloom_core_storage_bytes(const struct bloom_geometry *geo);

/*
 * Binds @f to zeroed @storage of bloom_core_storage_bytes(@geo) bytes.
 * @geo must have passed bloom_geometry_check().
 */
void bloom_core_init(struct bloom_core *f, const struct bloom_geometry *geo,
		     const bloom_hash_key_t *key, void *storage);

/* The one keyed hash of a key; everything else is derived from it. */
u64 bloom_core_hash(const struct bloom_core *f, const void *data, size_t len);

/*
 * Add the key with hash @h. Returns true when every bit was set already
 * (the key was probably present), false when at least one bit was new.
 */
bool bloom_core_add_hash(struct bloom_core *f, u64 h);

/* May the key with hash @h be present? Never false for an added key. */
bool bloom_core_query_hash(const struct bloom_core *f, u64 h);

/* Start loading the memory that a later add/query of @h touches. */
void bloom_core_prefetch_hash(const struct bloom_core *f, u64 h);

/*
 * Batches over precomputed hashes, prefetching a few keys ahead. Bit i of
 * @results (LSB-first bytes, (n + 7) / 8 of them, may be NULL) is set when
 * key i may be present (query) or was probably present already (add).
 * Return the number of set result bits.
 */
u32 bloom_core_query_batch(const struct bloom_core *f, const u64 *hashes,
			   u32 n, u8 *results);
u32 bloom_core_add_batch(struct bloom_core *f, const u64 *hashes, u32 n,
			 u8 *results);

/* Number of bits set, by popcount over the array. */
u64 bloom_core_bits_set(const struct bloom_core *f);

/*
 * The SipHash key from its 16 bytes, as the reference implementation reads
 * them: key[0] is the little-endian u64 of bytes 0..7, key[1] of 8..15.
 */
void bloom_hash_key_from_bytes(bloom_hash_key_t *k,
			       const u8 bytes[BLOOM_CORE_HASH_KEY_LEN]);

/*
 * Checks the published SipHash-2-4 test vectors (key 00..0f, message
 * 00..len-1, len 0..63) through bloom_core_hash(), and a few sizings.
 * 0 or -EINVAL. Runs in the unit tests and at module init.
 */
int bloom_core_selftest(void);

#endif /* BLOOM_CORE_H */
