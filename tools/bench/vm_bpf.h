/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's in-tree peer: a BPF_MAP_TYPE_BLOOM_FILTER map (Linux 5.16+),
 * reached from userspace with bpf(BPF_MAP_UPDATE_ELEM / BPF_MAP_LOOKUP_ELEM)
 * through Debian's libbpf, one key per system call (the map has no batch
 * operations).
 */
#ifndef BENCH_VM_BPF_H
#define BENCH_VM_BPF_H

#include <stdint.h>

/* A map for @max_entries values of @value_size bytes, k = @hashes (1..15). */
int bpfb_create(uint32_t value_size, uint32_t max_entries, uint32_t hashes);
/* 0, or -errno. */
int bpfb_add(int fd, const void *value);
/* 1 may be present, 0 absent, -errno. */
int bpfb_query(int fd, const void *value);

#endif /* BENCH_VM_BPF_H */
