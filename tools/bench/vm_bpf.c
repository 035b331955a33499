// SPDX-License-Identifier: GPL-2.0
/* See vm_bpf.h. */
#include <errno.h>
#include <bpf/bpf.h>
#include "vm_bpf.h"

int bpfb_create(uint32_t value_size, uint32_t max_entries, uint32_t hashes)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_extra = hashes);
	int fd = bpf_map_create(BPF_MAP_TYPE_BLOOM_FILTER, NULL, 0, value_size,
				max_entries, &opts);

	return fd < 0 ? -errno : fd;
}

int bpfb_add(int fd, const void *value)
{
	return bpf_map_update_elem(fd, NULL, value, BPF_ANY) ? -errno : 0;
}

int bpfb_query(int fd, const void *value)
{
	/* The map answers "absent" with ENOENT. */
	if (!bpf_map_lookup_elem(fd, NULL, (void *)value))
		return 1;
	return errno == ENOENT ? 0 : -errno;
}
