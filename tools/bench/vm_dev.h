/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/bloom through raw ioctls (<linux/bloom.h>), no library in between:
 * the VM benchmark measures the module and the system call, nothing else.
 */
#ifndef BENCH_VM_DEV_H
#define BENCH_VM_DEV_H

#include <stdint.h>

/* Each returns 0 (or a count) on success, -errno on failure. */
int dev_open(const char *path);
int dev_create(int fd, const char *name, uint32_t type, uint64_t capacity,
	       uint32_t fpp_ppb, const uint8_t hash_key[16]);
int dev_destroy(int fd, const char *name);
/* k and m of the bound filter. */
int dev_geometry(int fd, uint32_t *hashes, uint64_t *bits);

/* The syscall floor: BLOOM_IOC_VERSION, and a command nobody knows. */
int dev_version(int fd);
int dev_unknown(int fd);	/* 0 when it failed with ENOTTY, as it must */

/*
 * ADD (@add != 0) or QUERY of @n keys of @key_size bytes packed at @keys,
 * with a results bitmap. Returns the hits (out_hits) or -errno.
 */
long dev_batch(int fd, int add, const void *keys, uint32_t key_size,
	       uint32_t n, uint8_t *results);

#endif /* BENCH_VM_DEV_H */
