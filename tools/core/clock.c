// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The userspace build's clock (module/core/shim.h): the time tests and
 * benchmarks set for the timed type, 0 while they set none, and the
 * clock a benchmark may read instead of the real one.
 */
#include "shim.h"

u64 bloom_clock_fixed_s;
u64 (*bloom_clock_source)(void);
