// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * A generation per descriptor number: bumped whenever the library opens,
 * binds or closes that number, so that a mapping made for what a number
 * meant before (map.c) is never used for what it means now. Kept apart
 * from map.c so that programs that never query (the iptables extension)
 * link none of the filter core.
 */
#include "internal.h"

_Atomic uint32_t lb_fd_gens[LB_FD_GEN_MAX];

void lb_fd_renew(int fd)
{
	if (fd >= 0 && fd < LB_FD_GEN_MAX)
		lb_fd_gens[fd]++;
}
