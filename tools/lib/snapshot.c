// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/* Whole filters: save, restore, merge, swap, flush (see libbloom.h). */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static int save_ioctl(int fd, const char *name, void *buf, size_t len,
		      size_t *out_len)
{
	struct bloom_save s;
	int err = 0;

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	if (name)
		err = lb_name_copy(s.name, name);
	if (err)
		return err;
	s.buf = (uintptr_t)buf;
	s.buf_len = len;
	err = bloom_ioctl(fd, BLOOM_IOC_SAVE, &s);
	if (out_len)
		*out_len = s.out_len;
	return err;
}

int bloom_save(int fd, const char *name, void *buf, size_t len,
	       size_t *out_len)
{
	if (!buf && len)
		return -EINVAL;
	return save_ioctl(fd, name, buf, len, out_len);
}

int bloom_save_alloc(int fd, const char *name, void **buf, size_t *len)
{
	size_t need = 0;
	void *p;
	int err, tries;

	*buf = NULL;
	*len = 0;
	/* The filter may be replaced by one of another size meanwhile. */
	for (tries = 0; tries < 8; tries++) {
		err = save_ioctl(fd, name, NULL, 0, &need);
		if (err)
			return err;
		p = malloc(need);
		if (!p)
			return -ENOMEM;
		err = save_ioctl(fd, name, p, need, &need);
		if (!err) {
			*buf = p;
			*len = need;
			return 0;
		}
		free(p);
		if (err != -EOVERFLOW)
			return err;
	}
	return -EAGAIN;
}

int bloom_restore(int fd, const void *buf, size_t len, const char *name,
		  uint32_t flags)
{
	struct bloom_restore r;
	int err;

	if (flags & ~BLOOM_RESTORE_F_REPLACE)
		return -EINVAL;
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.flags = flags;
	if (name) {
		err = lb_name_copy(r.name, name);
		if (err)
			return err;
		r.flags |= BLOOM_RESTORE_F_NAME;
	}
	r.buf = (uintptr_t)buf;
	r.buf_len = len;
	return bloom_ioctl(fd, BLOOM_IOC_RESTORE, &r);
}

static int pair_ioctl(int fd, unsigned long cmd, const char *a,
		      const char *b)
{
	struct bloom_pair p;
	int err;

	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	err = lb_name_copy(p.name, a);
	if (!err)
		err = lb_name_copy(p.other, b);
	return err ? err : bloom_ioctl(fd, cmd, &p);
}

int bloom_merge(int fd, const char *dst, const char *src)
{
	return pair_ioctl(fd, BLOOM_IOC_MERGE, dst, src);
}

int bloom_swap(int fd, const char *a, const char *b)
{
	return pair_ioctl(fd, BLOOM_IOC_SWAP, a, b);
}

int bloom_flush(int fd, const char *name)
{
	struct bloom_name n;
	int err;

	memset(&n, 0, sizeof(n));
	n.size = sizeof(n);
	err = lb_name_copy(n.name, name);
	return err ? err : bloom_ioctl(fd, BLOOM_IOC_FLUSH, &n);
}
