// SPDX-License-Identifier: GPL-2.0
/*
 * bloom-xdp built without a clang of version 15 or later, which the
 * program that holds filters needs (holds.h, tools/bpf.mk): its programs
 * do not hold their filters, and attach says so; they look them up by id.
 */
#include <stdio.h>

#include "holds.h"

int holds_take(int bloom_fd, const struct filter_choice *c,
	       unsigned int ifindex, char *msg, size_t len)
{
	(void)bloom_fd;
	(void)c;
	(void)ifindex;
	snprintf(msg, len,
		 "built without filter holds (clang >= 15 needed): destroy will not see this program");
	return HOLDS_UNABLE;
}

const void *holds_prog_elf(size_t *sz)
{
	*sz = 0;
	return NULL;
}
