// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshot files: written atomically with mode 0600 (they hold the hash
 * key), read into memory exactly as long as their header says and checked
 * with the core's parser before anything is sent to the kernel. A timed
 * filter's snapshot of the earlier four-subtable table is made over into
 * today's as it is read (module/core/snapshot_upgrade.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bloomctl.h"
#include "snapfile.h"
#include "snapshot_upgrade.h"

static int write_all(int fd, const void *p, size_t len)
{
	const char *c = p;
	ssize_t n;

	while (len) {
		n = write(fd, c, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		c += n;
		len -= n;
	}
	return 0;
}

/* The directory part of @path ("." when it has none). */
static void dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

int snap_write(const char *path, const void *hdr, size_t hdr_len,
	       const void *payload, size_t payload_len)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	int fd, dfd, err;

	if (!strcmp(path, "-")) {
		err = write_all(STDOUT_FILENO, hdr, hdr_len);
		if (!err)
			err = write_all(STDOUT_FILENO, payload, payload_len);
		return err;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) >=
	    (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);	/* mode 0600 */
	if (fd < 0)
		return -errno;
	err = write_all(fd, hdr, hdr_len);
	if (!err)
		err = write_all(fd, payload, payload_len);
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		unlink(tmp);
		return err;
	}
	dir_of(path, dir, sizeof(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	err = fsync(dfd) ? -errno : 0;
	close(dfd);
	return err;
}

/* Up to @len bytes: fewer only at end of file. The count, or -errno. */
static ssize_t read_full(int fd, void *p, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(fd, (u8 *)p + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		got += n;
	}
	return got;
}

/*
 * The header, with the core's parser: its fixed prefix gives the header's
 * size, so input that is no snapshot (/dev/zero, a pipe that never ends)
 * is refused after 16 bytes. Into @hdr (BLOOM_IMAGE_HEADER_MAX bytes) and
 * @h, made over into today's if it is of the four-subtable table (then
 * *@earlier is 1, else 0); *@size gets the header's size. 0, or as
 * snap_read().
 */
static int read_header(int fd, u8 *hdr, u32 *size,
		       struct bloom_image_header *h, int *earlier,
		       const char **why)
{
	ssize_t n;
	int err;

	*earlier = 0;
	n = read_full(fd, hdr, BLOOM_IMAGE_PREFIX);
	if (n < 0)
		return n;
	err = bloom_image_header_size(hdr, n, size);
	if (err && !n) {
		*why = "empty file, not a bloom snapshot";
		return -EBADMSG;
	}
	if (err) {
		/* the beginning of a snapshot, cut short */
		if (n && n < BLOOM_IMAGE_PREFIX &&
		    !memcmp(hdr, BLOOM_IMAGE_MAGIC,
			    n < BLOOM_IMAGE_MAGIC_LEN ? n : BLOOM_IMAGE_MAGIC_LEN)) {
			*why = "truncated header";
			return -EBADMSG;
		}
		return bloom_image_header_read(hdr, n, h, why);
	}
	n = read_full(fd, hdr + BLOOM_IMAGE_PREFIX, *size - BLOOM_IMAGE_PREFIX);
	if (n < 0)
		return n;
	*earlier = bloom_image_is_timed4(hdr, BLOOM_IMAGE_PREFIX + n);
	return bloom_image_upgrade_header(hdr, BLOOM_IMAGE_PREFIX + n, h, why);
}

/* The payload of the four-subtable table at @sf's, made over in place. */
static int upgrade_payload(struct snap_file *sf,
			   const struct bloom_image_header *h,
			   const char **why)
{
	u8 *old = malloc(h->payload_bytes);
	int err;

	if (!old) {
		*why = "out of memory";
		return -ENOMEM;
	}
	memcpy(old, sf->buf + h->header_size, h->payload_bytes);
	err = bloom_image_upgrade_payload(sf->buf, h, old, why);
	free(old);
	return err;
}

/*
 * The header first (read_header()), then the payload the header
 * announces: nothing past what the header promises is ever read.
 */
static int read_snap(int fd, const struct stat *st, struct snap_file *sf,
		     const char **why)
{
	u8 hdr[BLOOM_IMAGE_HEADER_MAX], extra;
	struct bloom_image_header h;
	size_t total;
	ssize_t n;
	u32 size;
	void *p;
	int err;

	err = read_header(fd, hdr, &size, &h, &sf->earlier, why);
	if (err)
		return err;
	/* payload_bytes is within the geometry's limits; a 32-bit size_t
	 * may still be too small for it */
	if (h.payload_bytes > SIZE_MAX - size) {
		*why = "too large for this machine's address space";
		return -EFBIG;
	}
	total = size + h.payload_bytes;
	if (S_ISREG(st->st_mode) && !sf->earlier) {
		if ((u64)st->st_size < total) {
			*why = "truncated snapshot";
			return -EBADMSG;
		}
		if ((u64)st->st_size > total) {
			*why = "trailing bytes after the payload";
			return -EBADMSG;
		}
		p = mmap(NULL, total, PROT_READ, MAP_PRIVATE | MAP_POPULATE,
			 fd, 0);
		if (p != MAP_FAILED) {
			sf->buf = p;
			sf->len = total;
			sf->mapped = 1;
			return 0;
		}
	}
	sf->buf = malloc(total);
	if (!sf->buf)
		return -ENOMEM;
	memcpy(sf->buf, hdr, size);
	n = read_full(fd, sf->buf + size, h.payload_bytes);
	if (n >= 0 && (size_t)n < h.payload_bytes) {
		*why = "truncated snapshot";
		n = -EBADMSG;
	}
	/* one byte more tells a longer input without reading all of it */
	if (n >= 0)
		n = read_full(fd, &extra, 1);
	if (n > 0) {
		*why = "trailing bytes after the payload";
		n = -EBADMSG;
	}
	if (!n && sf->earlier)
		n = upgrade_payload(sf, &h, why);
	if (n < 0) {
		free(sf->buf);
		sf->buf = NULL;
		return n;
	}
	sf->len = total;
	return 0;
}

int snap_read(const char *path, int flags, struct snap_file *sf,
	      const char **why)
{
	int fd = STDIN_FILENO, oflags = O_RDONLY | O_CLOEXEC | O_NOCTTY;
	struct stat st;
	int err;

	memset(sf, 0, sizeof(*sf));
	*why = NULL;
	/* opening a FIFO blocks until a writer comes, unless O_NONBLOCK */
	if (flags & SNAP_REGULAR)
		oflags |= O_NONBLOCK | O_NOFOLLOW;
	if (strcmp(path, "-")) {
		fd = open(path, oflags);
		if (fd < 0 && errno == ELOOP && (flags & SNAP_REGULAR)) {
			*why = "a symbolic link";
			return SNAP_SKIPPED;
		}
		if (fd < 0)
			return -errno;
	}
	if (fstat(fd, &st)) {
		err = -errno;
	} else if ((flags & SNAP_REGULAR) && !S_ISREG(st.st_mode)) {
		*why = S_ISDIR(st.st_mode) ? "a directory" :
		       S_ISFIFO(st.st_mode) ? "a FIFO" :
		       S_ISSOCK(st.st_mode) ? "a socket" : "a device";
		err = SNAP_SKIPPED;
	} else {
		err = read_snap(fd, &st, sf, why);
	}
	if (fd != STDIN_FILENO)
		close(fd);
	return err;
}

void snap_free(struct snap_file *sf)
{
	if (sf->mapped)
		munmap(sf->buf, sf->len);
	else
		free(sf->buf);
	sf->buf = NULL;
}

int snap_check(const struct snap_file *sf, struct bloom_image_header *h,
	       const char **why)
{
	struct bloom_image_chain *chain = NULL;
	struct bloom_core f;
	void *storage;
	int err;

	err = bloom_image_header_read(sf->buf, sf->len, h, why);
	if (err)
		return err;
	storage = aligned_alloc(BLOOM_CORE_ALIGN, h->payload_bytes);
	/* a scalable filter's stages, an expiring one's generations: each */
	if (h->nstages || h->ngens)
		chain = malloc(sizeof(*chain));
	if (!storage || ((h->nstages || h->ngens) && !chain)) {
		free(storage);
		*why = "out of memory";
		return -ENOMEM;
	}
	err = bloom_image_load(&f, h, sf->buf, sf->len, storage, chain, why);
	free(chain);
	free(storage);
	return err;
}

int snap_read_header(const char *path, u8 *hdr, struct bloom_image_header *h,
		     int64_t *file_bytes, int *earlier, const char **why)
{
	int fd = STDIN_FILENO, err;
	struct stat st;
	u32 size;

	*why = NULL;
	*file_bytes = -1;
	if (strcmp(path, "-")) {
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			return -errno;
	}
	if (fstat(fd, &st))
		err = -errno;
	else
		err = read_header(fd, hdr, &size, h, earlier, why);
	if (!err && S_ISREG(st.st_mode))
		*file_bytes = st.st_size;
	if (fd != STDIN_FILENO)
		close(fd);
	return err;
}
