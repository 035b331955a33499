// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/* Opening and closing the device, and asking what the module supports. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"

int bloom_open(const char *devpath)
{
	int fd;

	if (!devpath)
		devpath = BLOOM_DEFAULT_DEVICE;
	fd = open(devpath, O_RDWR | O_CLOEXEC);
	/*
	 * Queries need only an open descriptor, so read access suffices for
	 * readers; a change through a read-only descriptor is EBADF.
	 */
	if (fd < 0 && errno == EACCES)
		fd = open(devpath, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	lb_fd_renew(fd);
	return fd;
}

int bloom_close(int fd)
{
	lb_fd_renew(fd);
	if (lb_map_forget)
		lb_map_forget(fd);
	return close(fd) < 0 ? -errno : 0;
}

int bloom_version(int fd, struct bloom_version *v)
{
	memset(v, 0, sizeof(*v));
	v->size = sizeof(*v);
	return bloom_ioctl(fd, BLOOM_IOC_VERSION, v);
}
