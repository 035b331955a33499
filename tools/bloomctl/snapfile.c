// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshot files: written atomically with mode 0600 (they hold the hash
 * key), read whole into memory and checked with the core's parser before
 * anything is sent to the kernel.
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

int snap_read(const char *path, struct snap_file *sf)
{
	size_t cap = 1 << 20, len = 0;
	struct stat st;
	ssize_t n;
	int fd;
	u8 *buf;

	memset(sf, 0, sizeof(*sf));
	fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) :
				 STDIN_FILENO;
	if (fd < 0)
		return -errno;
	if (fd != STDIN_FILENO && !fstat(fd, &st) && S_ISREG(st.st_mode)) {
		void *p = st.st_size ? mmap(NULL, st.st_size, PROT_READ,
					    MAP_PRIVATE | MAP_POPULATE, fd, 0) :
				       MAP_FAILED;

		if (p != MAP_FAILED) {
			close(fd);
			sf->buf = p;
			sf->len = st.st_size;
			sf->mapped = 1;
			return 0;
		}
	}
	buf = malloc(cap);
	for (;;) {
		if (!buf) {
			if (fd != STDIN_FILENO)
				close(fd);
			return -ENOMEM;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			free(buf);
			if (fd != STDIN_FILENO)
				close(fd);
			return err;
		}
		if (!n)
			break;
		len += n;
		if (len == cap) {
			u8 *more = realloc(buf, cap * 2);

			if (!more)
				free(buf);
			buf = more;
			cap *= 2;
		}
	}
	if (fd != STDIN_FILENO)
		close(fd);
	sf->buf = buf;
	sf->len = len;
	return 0;
}

void snap_free(struct snap_file *sf)
{
	if (sf->mapped)
		munmap(sf->buf, sf->len);
	else
		free(sf->buf);
	sf->buf = NULL;
}

int snap_check(const struct snap_file *sf, struct bloom_snap_header *h,
	       const char **why)
{
	struct bloom_snap_chain *chain = NULL;
	struct bloom_core f;
	void *storage;
	int err;

	err = bloom_snap_header_read(sf->buf, sf->len, h, why);
	if (err)
		return err;
	storage = aligned_alloc(BLOOM_CORE_ALIGN, h->payload_bytes);
	/* a scalable filter's stages are checked one by one */
	if (h->nstages)
		chain = malloc(sizeof(*chain));
	if (!storage || (h->nstages && !chain)) {
		free(storage);
		*why = "out of memory";
		return -ENOMEM;
	}
	err = bloom_snap_load(&f, h, sf->buf, sf->len, storage, chain, why);
	free(chain);
	free(storage);
	return err;
}
