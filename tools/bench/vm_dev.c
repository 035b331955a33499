// SPDX-License-Identifier: GPL-2.0
/* See vm_dev.h. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/bloom.h>
#include "vm_dev.h"

int dev_open(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int dev_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

int dev_create(int fd, const char *name, uint32_t type, uint64_t capacity,
	       uint32_t fpp_ppb, const uint8_t hash_key[16])
{
	struct bloom_create c = {
		.size = sizeof(c),
		.flags = BLOOM_CREATE_F_BIND | BLOOM_CREATE_F_HASH_KEY,
		.type = type,
		.capacity = capacity,
		.fpp_ppb = fpp_ppb,
	};

	strncpy(c.name, name, sizeof(c.name) - 1);
	memcpy(c.hash_key, hash_key, sizeof(c.hash_key));
	return dev_ioctl(fd, BLOOM_IOC_CREATE, &c);
}

int dev_destroy(int fd, const char *name)
{
	struct bloom_name n = { .size = sizeof(n) };

	strncpy(n.name, name, sizeof(n.name) - 1);
	return dev_ioctl(fd, BLOOM_IOC_DESTROY, &n);
}

int dev_geometry(int fd, uint32_t *hashes, uint64_t *bits)
{
	struct bloom_info i = { .size = sizeof(i) };
	int ret = dev_ioctl(fd, BLOOM_IOC_INFO, &i);

	if (!ret) {
		*hashes = i.hashes;
		*bits = i.bits;
	}
	return ret;
}

int dev_version(int fd)
{
	struct bloom_version v = { .size = sizeof(v) };

	return dev_ioctl(fd, BLOOM_IOC_VERSION, &v);
}

int dev_unknown(int fd)
{
	/* 0x7f: far from every command the ABI defines or reserves. */
	struct bloom_version v = { .size = sizeof(v) };
	int ret = dev_ioctl(fd, _IO(BLOOM_IOC_MAGIC, 0x7f), &v);

	return ret == -ENOTTY ? 0 : (ret ? ret : -EPROTO);
}

long dev_batch(int fd, int add, const void *keys, uint32_t key_size,
	       uint32_t n, uint8_t *results)
{
	struct bloom_batch b = {
		.size = sizeof(b),
		.nkeys = n,
		.key_size = key_size,
		.keys = (uintptr_t)keys,
		.keys_len = (uint64_t)key_size * n,
		/* one key: the answer is out_hits, as libbloom's bloom_query() reads it */
		.results = n > 1 ? (uintptr_t)results : 0,
	};
	int ret = dev_ioctl(fd, add ? BLOOM_IOC_ADD : BLOOM_IOC_QUERY, &b);

	return ret ? ret : (long)b.out_hits;
}
