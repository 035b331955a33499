/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Holds of the filters bloom-xdp's program uses, as a firewall rule holds
 * its filter: while the program exists, DESTROY of its filters fails with
 * EBUSY and bloomctl destroy names the device to detach it from. A small
 * program (bloom_xdp_hold.bpf.c), run once per filter with the device as
 * the frame's, keeps each hold in a map of its own; bound to the attached
 * program, that map goes when the program does, and the kernel lets the
 * holds go with it. Built without clang 15 or later, bloom-xdp has no
 * holds (holds_none.c).
 */
#ifndef BLOOM_XDP_HOLDS_H
#define BLOOM_XDP_HOLDS_H

#include <stddef.h>

#include "filters.h"

/* holds_take() could not hold: @msg says why, attach goes on without. */
#define HOLDS_UNABLE	(-1)
/* A filter is gone (destroyed meanwhile): @msg says what to do. */
#define HOLDS_GONE	(-2)

/*
 * Holds of the filters of @c for a program on the device @ifindex (of this
 * network namespace), checked afterwards by name through @bloom_fd (a
 * DESTROY under way may have missed a hold). Returns the fd of the map
 * that keeps them, to bind to the program once it is attached
 * (bpf_prog_bind_map()) and close then, or HOLDS_UNABLE or HOLDS_GONE with
 * a sentence in @msg (@len bytes).
 */
int holds_take(int bloom_fd, const struct filter_choice *c,
	       unsigned int ifindex, char *msg, size_t len);

/*
 * The ELF object of the program that looks its filters up through the
 * holds (bloom_xdp.bpf.c built with BLOOM_XDP_BY_HOLD), its size in *@sz;
 * NULL when built without holds.
 */
const void *holds_prog_elf(size_t *sz);

#endif /* BLOOM_XDP_HOLDS_H */
