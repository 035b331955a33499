/* SPDX-License-Identifier: GPL-2.0 */
/* bloomctl: snapshot files (snapfile.c); the format is the core's. */
#ifndef BLOOMCTL_SNAPFILE_H
#define BLOOMCTL_SNAPFILE_H

#include <stddef.h>
#include <stdint.h>
#include "core.h"
#include "snapshot.h"

/*
 * @earlier: the file held a timed filter of the earlier four-subtable
 * table, and @buf is it made over into today's (snapshot_upgrade.h)
 */
struct snap_file {
	u8 *buf;
	size_t len;
	int mapped;
	int earlier;
};

/*
 * Writes header and payload to @path ("-": standard output) atomically: a
 * temporary file of mode 0600 in the same directory, fsync, rename over
 * @path, fsync of the directory. 0 or -errno; on error @path is untouched.
 */
int snap_write(const char *path, const void *hdr, size_t hdr_len,
	       const void *payload, size_t payload_len);

/* snap_read()'s @flags: anything but a regular file is skipped (--all). */
#define SNAP_REGULAR	1
/* snap_read() did not read @path: it is not a regular file. */
#define SNAP_SKIPPED	1

/*
 * Reads the snapshot at @path ("-": standard input): its header, then
 * exactly the payload the header announces, never more (input that is not
 * a snapshot is refused after its first 16 bytes). With SNAP_REGULAR,
 * @path is opened without following a symbolic link or waiting for a
 * FIFO's writer, and anything but a regular file is SNAP_SKIPPED, *@why
 * saying what it is. Otherwise 0; -errno with *@why NULL when reading
 * failed; or -errno with *@why saying what is wrong with the contents (not
 * a snapshot, truncated, trailing bytes, a header the core refuses). A
 * timed filter's snapshot of the earlier four-subtable table is read made
 * over into today's (@sf->earlier), or refused as the core says.
 */
int snap_read(const char *path, int flags, struct snap_file *sf,
	      const char **why);
void snap_free(struct snap_file *sf);

/*
 * Reads and checks only the header of the snapshot at @path ("-": standard
 * input) into @hdr (BLOOM_IMAGE_HEADER_MAX bytes) and @h: errors as
 * snap_read(). *@file_bytes gets the size of a regular file, else -1;
 * *@earlier 1 when the header is of the four-subtable table (made over
 * into today's in @hdr and @h), else 0.
 */
int snap_read_header(const char *path, u8 *hdr, struct bloom_image_header *h,
		     int64_t *file_bytes, int *earlier, const char **why);

/*
 * Checks the snapshot as the kernel will (the same parser): 0, or -errno
 * with *@why saying what is wrong.
 */
int snap_check(const struct snap_file *sf, struct bloom_image_header *h,
	       const char **why);

#endif /* BLOOMCTL_SNAPFILE_H */
