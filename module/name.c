// SPDX-License-Identifier: GPL-2.0
/*
 * Filter names: the rules of uapi/linux/bloom.h. A name is also a sysfs
 * directory name, hence no '/', "." or "..", and it is typed in shells, hence
 * printable ASCII without blanks.
 */
#include <linux/string.h>

#include "name.h"

bool bloom_name_valid(const char name[BLOOM_NAME_LEN])
{
	size_t len = strnlen(name, BLOOM_NAME_LEN);
	size_t i;

	if (len == 0 || len == BLOOM_NAME_LEN)
		return false;
	for (i = 0; i < len; i++)
		if (name[i] < 0x21 || name[i] > 0x7e || name[i] == '/')
			return false;
	/* The padding is checked like a reserved field: it may carry meaning later. */
	if (memchr_inv(name + len, 0, BLOOM_NAME_LEN - len))
		return false;
	return strcmp(name, ".") && strcmp(name, "..");
}

bool bloom_name_empty(const char name[BLOOM_NAME_LEN])
{
	return !memchr_inv(name, 0, BLOOM_NAME_LEN);
}
