/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Snapshots of an earlier layout, made over into today's in userspace
 * before anything is sent to the kernel (snapshot_upgrade.c; bloomctl's
 * snapshot reader calls it, bloom.ko does not link it and refuses such a
 * file with -EPROTONOSUPPORT).
 *
 * The one such layout: a timed filter's table of four subtables of 8-cell
 * buckets (hashes 4 in the header), which bloom wrote until the table of
 * two subtables of one-cache-line buckets (timed_table.h) replaced it.
 */
#ifndef BLOOM_CORE_SNAPSHOT_UPGRADE_H
#define BLOOM_CORE_SNAPSHOT_UPGRADE_H

#include "snapshot_format.h"

/*
 * Is the header at @buf (@len bytes available) one of a timed filter of
 * the four-subtable table, its checksum right? Anything else (another
 * filter, a damaged header) is for bloom_image_header_read() to judge.
 */
bool bloom_image_is_timed4(const u8 *buf, u64 len);

/*
 * Makes the header at @buf (bloom_image_is_timed4()) today's, in place:
 * hashes 2, the checksum written again; every other field as it was, the
 * payload's hash too (the old payload's, which bloom_image_upgrade_payload()
 * checks). Then decodes and checks it as bloom_image_header_read() does,
 * into @h. -EPROTONOSUPPORT, and @buf unchanged, for a table of 21- or
 * 64-bit cells: their cells hold other numbers of fingerprint and tag bits
 * than any table of today's can (timed_table.h); or as
 * bloom_image_header_read(). *@why says why.
 */
int bloom_image_upgrade_header(u8 *buf, u64 len, struct bloom_image_header *h,
			       const char **why);

/*
 * Fills the payload of the snapshot at @buf (its header made over by
 * bloom_image_upgrade_header() into @h; h->payload_bytes after it) from
 * @old, the four-subtable table's payload: each used cell goes, its tag,
 * class and tick unchanged, to the less loaded of the two buckets of
 * today's table its key has (the left on a tie, as an add places it), with
 * that bucket's fingerprint. The identity a cell stands for is the same in
 * both tables (the high bits of the key's hash scaled to the buckets and
 * its low fingerprint bits: the number of buckets, fingerprint and tag
 * bits are the header's in both), so every key's answer is as it was.
 * Then the payload's hash and the header's checksum are written. 0;
 * -EBADMSG when @old does not match the header's payload hash; -ENOSPC
 * when a key finds both its buckets full (a table at its largest load may;
 * nothing a caller can fix but by adding the keys again). *@why says why.
 */
int bloom_image_upgrade_payload(u8 *buf, const struct bloom_image_header *h,
				const u8 *old, const char **why);

#endif /* BLOOM_CORE_SNAPSHOT_UPGRADE_H */
