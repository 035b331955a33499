// SPDX-License-Identifier: GPL-2.0
/*
 * bloom-xdp built without a clang of version 15 or later, which the
 * program that holds filters needs (holds.h, tools/bpf.mk): its programs
 * do not hold their filters, and attach says so.
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
