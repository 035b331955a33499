/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Snapshots: a filter as a file (Documentation/snapshot.rst is the format's
 * specification). One copy of the header serializer and parser and of the
 * payload checks, used by bloom.ko (SAVE, RESTORE), by "bloomctl build" and
 * "bloomctl restore" (which checks a file before sending it) and by the
 * fuzzer (tools/fuzz/fuzz_snapshot.c).
 *
 * A snapshot is a header of header_size bytes followed by the payload, the
 * filter's storage exactly as bloom_core_storage_bytes() lays it out, in
 * little-endian byte order (on a little-endian host, the memory itself).
 * Nothing follows the payload.
 */
#ifndef BLOOM_CORE_SNAPSHOT_H
#define BLOOM_CORE_SNAPSHOT_H

#include "core.h"

#define BLOOM_SNAP_MAGIC	"\211BLOOM\r\n"	/* 0x89, "BLOOM", CR, LF */
#define BLOOM_SNAP_MAGIC_LEN	8
#define BLOOM_SNAP_VERSION	1
#define BLOOM_SNAP_HEADER_SIZE	256	/* what this code writes */
#define BLOOM_SNAP_HEADER_MAX	4096	/* the largest header it reads */
#define BLOOM_SNAP_PREFIX	16	/* bytes that tell the header's size */
#define BLOOM_SNAP_NAME_LEN	32
/* Feature flags this code knows: none yet. */
#define BLOOM_SNAP_INCOMPAT_KNOWN	0U

/* Statistics carried for information; what the storage shows is recounted. */
struct bloom_snap_stats {
	u64 count;
	u64 adds;
	u64 queries;
	u64 hits;
	u64 deletes;
	u64 delete_misses;
	u64 insert_failures;
};

/**
 * struct bloom_snap_header - a snapshot's header, decoded
 * @version: format version (BLOOM_SNAP_VERSION when written here)
 * @header_size: bytes of header before the payload
 * @incompat: feature flags a reader must know (else it refuses)
 * @compat: feature flags a reader may ignore
 * @scheme: position scheme id (BLOOM_SCHEME_ID of the writer)
 * @geo: type and geometry
 * @payload_bytes: bytes of payload, bloom_core_storage_bytes(@geo)
 * @payload_hash: xxh64 (seed 0) of the payload
 * @name: the filter's name, NUL-terminated, zero-padded
 * @hash_key: the filter's SipHash key
 * @stats: statistics at the time of the save
 */
struct bloom_snap_header {
	u32 version;
	u32 header_size;
	u32 incompat;
	u32 compat;
	u32 scheme;
	struct bloom_geometry geo;
	u64 payload_bytes;
	u64 payload_hash;
	char name[BLOOM_SNAP_NAME_LEN];
	u8 hash_key[BLOOM_CORE_HASH_KEY_LEN];
	struct bloom_snap_stats stats;
};

/*
 * Fills @h for filter @f: version, header size, scheme, geometry, key and
 * payload size. The caller sets @name, @stats and, once it has hashed the
 * payload it writes, @payload_hash.
 */
void bloom_snap_header_init(struct bloom_snap_header *h,
			    const struct bloom_core *f);

/* Encodes @h into @buf (BLOOM_SNAP_HEADER_SIZE bytes), checksum included. */
void bloom_snap_header_write(u8 *buf, const struct bloom_snap_header *h);

/*
 * The header of a snapshot of @f, whose storage is not changing (userspace:
 * "bloomctl build", tests): bloom_snap_header_init(), @name (truncated to
 * 31 bytes), @stats (may be NULL), the payload's hash, then
 * bloom_snap_header_write() into @buf. The payload to write after it is the
 * storage, f->words, bloom_core_storage_bytes() bytes (on a little-endian
 * host: bloom_snap_native()).
 */
void bloom_snap_header_make(u8 *buf, const struct bloom_core *f,
			    const char *name,
			    const struct bloom_snap_stats *stats);

/*
 * From the first BLOOM_SNAP_PREFIX bytes (@len of them available): the
 * header's size, so that the caller knows how much to read. 0, -EBADMSG
 * (not a snapshot, or a header size out of range) or -EPROTONOSUPPORT (a
 * format version this code does not read).
 */
int bloom_snap_header_size(const u8 *buf, u64 len, u32 *size);

/*
 * Decodes and checks the header at @buf (@len bytes available, at least
 * its header_size): magic, version, size, checksum, feature flags, scheme,
 * type, geometry, name, reserved fields. 0, -EBADMSG (corrupt or
 * inconsistent), -EPROTONOSUPPORT (an unknown version, incompatible
 * feature or position scheme: written by another version of bloom), or the
 * geometry's -EINVAL/-E2BIG/-EOPNOTSUPP. On failure *@why (may be NULL)
 * says what is wrong, in words.
 */
int bloom_snap_header_read(const u8 *buf, u64 len,
			   struct bloom_snap_header *h, const char **why);

/*
 * The geometry a snapshot may carry: bloom_geometry_check(), and for d-left
 * the table shape the core works on.
 */
int bloom_snap_geometry_check(const struct bloom_geometry *geo);

/*
 * After the payload was loaded into @f's storage (bloom_core_init() on it
 * first): checks every bit, counter and cell is valid for the geometry
 * (padding zero, empty d-left cells zero, no duplicate fingerprint among a
 * key's candidates) and recounts the statistics the storage determines
 * (saturated counters, cells in use). 0 or -EBADMSG.
 */
int bloom_snap_payload_check(struct bloom_core *f);

/*
 * A whole snapshot in memory (@len bytes at @buf), whose header
 * bloom_snap_header_read() decoded into @h: checks the length and the
 * payload checksum, copies the payload into @storage (h->payload_bytes,
 * BLOOM_CORE_ALIGN-aligned), binds @f to it (bloom_core_init()) and checks
 * it (bloom_snap_payload_check()). 0, -EBADMSG or -EOPNOTSUPP (a
 * big-endian host), with *@why as for bloom_snap_header_read().
 */
int bloom_snap_load(struct bloom_core *f, const struct bloom_snap_header *h,
		    const u8 *buf, u64 len, void *storage, const char **why);

/* xxh64 (seed 0) of @len bytes, as the header's checksums use it. */
u64 bloom_snap_hash(const void *p, u64 len);

/* Is the storage image the memory itself (a little-endian host)? */
static inline bool bloom_snap_native(void)
{
	return __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
}

#endif /* BLOOM_CORE_SNAPSHOT_H */
