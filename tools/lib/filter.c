// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/* Naming filters: destroy, bind, info, list. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static int name_ioctl(int fd, unsigned long cmd, const char *name)
{
	struct bloom_name n;
	int err;

	memset(&n, 0, sizeof(n));
	n.size = sizeof(n);
	err = lb_name_copy(n.name, name);
	return err ? err : bloom_ioctl(fd, cmd, &n);
}

int bloom_destroy(int fd, const char *name)
{
	return name_ioctl(fd, BLOOM_IOC_DESTROY, name);
}

int bloom_bind(int fd, const char *name)
{
	int err = name_ioctl(fd, BLOOM_IOC_BIND, name);

	if (!err)
		lb_fd_renew(fd);
	return err;
}

int bloom_info(int fd, const char *name, struct bloom_info *info)
{
	int err;

	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	/* An all-zero name asks for the descriptor's bound filter. */
	if (name) {
		err = lb_name_copy(info->name, name);
		if (err)
			return err;
	}
	return bloom_ioctl(fd, BLOOM_IOC_INFO, info);
}

int bloom_stages(int fd, const char *name, struct bloom_stage *stages,
		 size_t room, size_t *n)
{
	struct bloom_stages s;
	int err;

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	if (name) {
		err = lb_name_copy(s.name, name);
		if (err)
			return err;
	}
	s.capacity = room > UINT32_MAX ? UINT32_MAX : (uint32_t)room;
	s.stages = (uintptr_t)stages;
	err = bloom_ioctl(fd, BLOOM_IOC_STAGES, &s);
	if (!err)
		*n = s.out_count;
	return err;
}

int bloom_list(int fd, char (**names)[BLOOM_NAME_LEN], size_t *n)
{
	char (*buf)[BLOOM_NAME_LEN] = NULL;
	struct bloom_list l;
	uint32_t room = 16;
	int err;

	*names = NULL;
	*n = 0;
	/* Filters may be created between two calls: loop until all fit. */
	for (;;) {
		void *p = realloc(buf, (size_t)room * BLOOM_NAME_LEN);

		if (!p) {
			free(buf);
			return -ENOMEM;
		}
		buf = p;
		memset(&l, 0, sizeof(l));
		l.size = sizeof(l);
		l.capacity = room;
		l.names = (uintptr_t)buf;
		err = bloom_ioctl(fd, BLOOM_IOC_LIST, &l);
		if (err) {
			free(buf);
			return err;
		}
		if (l.out_count <= room)
			break;
		/* Some slack for filters created meanwhile. */
		room = l.out_count + 16;
	}
	if (l.out_count == 0) {
		free(buf);
		return 0;
	}
	*names = buf;
	*n = l.out_count;
	return 0;
}
