/* SPDX-License-Identifier: GPL-2.0 */
/* bloomctl: snapshot files (snapfile.c); the format is the core's. */
#ifndef BLOOMCTL_SNAPFILE_H
#define BLOOMCTL_SNAPFILE_H

#include <stddef.h>
#include "core.h"
#include "snapshot.h"

struct snap_file {
	u8 *buf;
	size_t len;
	int mapped;
};

/*
 * Writes header and payload to @path ("-": standard output) atomically: a
 * temporary file of mode 0600 in the same directory, fsync, rename over
 * @path, fsync of the directory. 0 or -errno; on error @path is untouched.
 */
int snap_write(const char *path, const void *hdr, size_t hdr_len,
	       const void *payload, size_t payload_len);

/* Reads @path ("-": standard input) whole. 0 or -errno. */
int snap_read(const char *path, struct snap_file *sf);
void snap_free(struct snap_file *sf);

/*
 * Checks the snapshot as the kernel will (the same parser): 0, or -errno
 * with *@why saying what is wrong.
 */
int snap_check(const struct snap_file *sf, struct bloom_snap_header *h,
	       const char **why);

#endif /* BLOOMCTL_SNAPFILE_H */
