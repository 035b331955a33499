/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debugfs: /sys/kernel/debug/bloom/, test scaffolding, not an ABI (see
 * "Debugging" in Documentation/bloom.rst).
 */
#ifndef BLOOM_DEBUG_H
#define BLOOM_DEBUG_H

void bloom_debug_init(void);
void bloom_debug_exit(void);

#endif /* BLOOM_DEBUG_H */
