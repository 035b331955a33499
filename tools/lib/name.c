// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * Filter names, checked in userspace with the kernel's rules so that callers
 * get a precise error before any system call.
 */
#include <string.h>
#include "internal.h"

int bloom_name_check(const char *name)
{
	size_t len, i;

	if (!name)
		return -EINVAL;
	len = strlen(name);
	if (len == 0)
		return -EINVAL;
	if (len >= BLOOM_NAME_LEN)
		return -ENAMETOOLONG;
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	for (i = 0; i < len; i++) {
		unsigned char c = name[i];

		if (c < 0x21 || c > 0x7e || c == '/')
			return -EINVAL;
	}
	return 0;
}

int lb_name_copy(char dst[BLOOM_NAME_LEN], const char *name)
{
	int err = bloom_name_check(name);

	if (err)
		return err;
	memcpy(dst, name, strlen(name) + 1);
	return 0;
}
