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
 * Nothing follows the payload. A scalable filter's snapshot has the
 * incompatible feature BLOOM_IMAGE_F_STAGES: its header ends with a table of
 * its stages and its payload is their storage, one after the other.
 *
 * The format's names are bloom_image_* (a snapshot image: header and
 * payload, wherever its bytes are); bloom_snap_* is the SAVE and RESTORE
 * ioctls' layer above (module/snap.c).
 */
#ifndef BLOOM_CORE_SNAPSHOT_H
#define BLOOM_CORE_SNAPSHOT_H

#include "snapshot_format.h"

/*
 * Fills @h for filter @f: version, header size, scheme, geometry, key and
 * payload size, and for a scalable filter the stage feature, parameters
 * and number of stages (@f must not get a stage until the header is
 * written). The caller sets @name, @stats and, once it has hashed the
 * payload it writes, @payload_hash.
 */
void bloom_image_header_init(struct bloom_image_header *h,
			     const struct bloom_core *f);

/*
 * Encodes @h into @buf (h->header_size bytes), checksum included; with
 * stages, the stage table from @f (whose stage counts are read now: write
 * the header after the payload, so that every key whose bits the payload
 * holds is counted).
 */
void bloom_image_header_write(u8 *buf, const struct bloom_image_header *h,
			      const struct bloom_core *f);

/*
 * The header of a snapshot of @f, whose storage is not changing (userspace:
 * "bloomctl build", tests): bloom_image_header_init(), @name (truncated to
 * 31 bytes), @stats (may be NULL), the payload's hash, then
 * bloom_image_header_write() into @buf (bloom_image_header_bytes(@f) bytes).
 * The payload to write after it is the storage, f->words,
 * bloom_core_storage_bytes() bytes (on a little-endian host:
 * bloom_image_native()); a scalable filter's: each stage's, oldest first.
 */
void bloom_image_header_make(u8 *buf, const struct bloom_core *f,
			     const char *name,
			     const struct bloom_image_stats *stats);

/*
 * From the first BLOOM_IMAGE_PREFIX bytes (@len of them available): the
 * header's size, so that the caller knows how much to read. 0, -EBADMSG
 * (not a snapshot, or a header size out of range) or -EPROTONOSUPPORT (a
 * format version this code does not read).
 */
int bloom_image_header_size(const u8 *buf, u64 len, u32 *size);

/*
 * Decodes and checks the header at @buf (@len bytes available, at least
 * its header_size): magic, version, size, checksum, feature flags, scheme,
 * type, geometry, name, reserved fields. 0, -EBADMSG (corrupt or
 * inconsistent), -EPROTONOSUPPORT (an unknown version, incompatible
 * feature or position scheme: written by another version of bloom), or the
 * geometry's -EINVAL/-E2BIG/-EOPNOTSUPP. On failure *@why (may be NULL)
 * says what is wrong, in words.
 */
int bloom_image_header_read(const u8 *buf, u64 len,
			    struct bloom_image_header *h, const char **why);

/* The header size of a snapshot of @f. */
u32 bloom_image_header_bytes(const struct bloom_core *f);

#endif /* BLOOM_CORE_SNAPSHOT_H */
