// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/* The library's version, the filter type names, option structs. */
#include <string.h>
#include "internal.h"

/* The one type-name table, from <linux/bloom.h>. */
static const char *const type_names[] = BLOOM_TYPE_NAMES;

_Static_assert(sizeof(type_names) / sizeof(type_names[0]) == BLOOM_TYPE_TIMED + 1,
	       "BLOOM_TYPE_NAMES has one name per enum bloom_type");

int lb_opts_check(const void *opts, size_t user_sz, size_t min_sz,
		  size_t lib_sz)
{
	const unsigned char *p = opts;
	size_t i;

	if (user_sz < min_sz)
		return -EINVAL;
	/* A newer caller: what this library does not know must be unused. */
	for (i = lib_sz; i < user_sz; i++)
		if (p[i])
			return -E2BIG;
	return 0;
}

const char *bloom_library_version(void)
{
	return LIBBLOOM_VERSION;
}

const char *bloom_type_name(uint32_t type)
{
	return type < sizeof(type_names) / sizeof(type_names[0]) ?
	       type_names[type] : NULL;
}

enum bloom_type bloom_type_from_name(const char *name)
{
	uint32_t t;

	if (!name)
		return 0;
	/* "d-left" as the literature spells it */
	if (!strcmp(name, "d-left"))
		return BLOOM_TYPE_DLEFT;
	for (t = 1; t < sizeof(type_names) / sizeof(type_names[0]); t++)
		if (type_names[t] && !strcmp(name, type_names[t]))
			return t;
	return 0;
}
