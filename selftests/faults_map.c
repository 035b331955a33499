// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_faults' mapping operations: mmap() of a descriptor bound to a
 * standard or blocked filter (its fault points are the kernel's: the VMA
 * and what comes with it), then checks that the mapping shows the filter:
 * its header says what INFO says, its bits are the filter's and stay live
 * as keys are added, and libbloom's queries through a mapping of its own
 * answer as the ioctl does. The mapping is let go before the filter is
 * destroyed, or after (its pages then stay, frozen, the header says
 * stale); the driver checks that the live allocations come back to where
 * they were either way.
 */
#define _GNU_SOURCE
#include <sys/mman.h>

#include "bloom_faults.h"
#include "libbloom.h"

static struct bloom_map_header *map_hdr;	/* run_map()'s mapping */
static size_t map_len;

/* "a", 64 keys, and the length of its mapping (from its header page). */
void setup_map(struct ctx *c)
{
	long page = sysconf(_SC_PAGESIZE);
	struct bloom_map_header *h;

	setup_a(c);
	h = mmap(NULL, page, PROT_READ, MAP_SHARED, c->fd, 0);
	must(h == MAP_FAILED, "map the header page");
	map_len = h->map_len;
	munmap(h, page);
}

int run_map(struct ctx *c)
{
	void *p = mmap(NULL, map_len, PROT_READ, MAP_SHARED, c->fd, 0);

	if (p == MAP_FAILED)
		return -1;
	map_hdr = p;
	return 0;
}

static __u64 mapped_bits_set(void)
{
	const __u64 *w = (const void *)((const char *)map_hdr +
					map_hdr->bits_offset);
	__u64 i, n = 0;

	for (i = 0; i < map_hdr->bits_len / 8; i++)
		n += __builtin_popcountll(w[i]);
	return n;
}

/*
 * Keys [first, first + n): libbloom's query, through a mapping it makes
 * of "a" on a descriptor of its own (and lets go on bloom_close()),
 * answers each as the ioctl does, and never falls back.
 */
static int lib_answers_as_ioctl(__u64 first, __u32 n)
{
	struct bloom_map_stats st0, st1;
	int fd = bloom_open(NULL), ret = 0;
	__u8 k[16];
	__u32 i;

	if (fd < 0)
		return -1;
	bloom_set_mapping(1);
	bloom_map_stats(&st0);
	if (bloom_bind(fd, "a"))
		ret = -1;
	for (i = 0; !ret && i < n; i++) {
		make_key16(first + i, k);
		if (bloom_query(fd, k, 16) != bt_one(fd, BLOOM_IOC_QUERY, k, 16))
			ret = -1;
	}
	bloom_map_stats(&st1);
	if (st1.queries - st0.queries != n || st1.fallbacks != st0.fallbacks)
		ret = -1;
	bloom_close(fd);
	return ret;
}

/* The mapping shows "a": its header, its bits, live; libbloom's answers. */
static int mapping_shows_a(struct ctx *c)
{
	const struct bloom_map_header *h = map_hdr;
	struct bloom_info info;
	struct bloom_batch b;

	if (info_of(c->fd, "a", &info) || h->magic != BLOOM_MAP_MAGIC ||
	    h->type != info.type || h->bits != info.bits ||
	    h->hashes != info.hashes || (h->seq & 1) ||
	    (h->flags & BLOOM_MAP_F_STALE) ||
	    mapped_bits_set() != info.bits_set)
		return -1;
	/* keys added now set bits that were mapped before */
	if (add_keys(c->fd, BLOOM_IOC_ADD, c->key_base, 64, &b) ||
	    info_of(c->fd, "a", &info) || mapped_bits_set() != info.bits_set)
		return -1;
	/* present keys, then keys never added (some false positives) */
	return lib_answers_as_ioctl(1, 64) ?:
	       lib_answers_as_ioctl(c->key_base + 64, 64);
}

static void unmap(void)
{
	munmap(map_hdr, map_len);
	map_hdr = NULL;
}

/* Unmapped first; the driver's teardown destroys "a" after. */
int works_map(struct ctx *c)
{
	int ret = mapping_shows_a(c);

	unmap();
	return ret;
}

/* "a" destroyed first: the header says stale, the bits stay; then unmapped. */
int works_map_destroyed(struct ctx *c)
{
	int ret = mapping_shows_a(c);
	__u64 bits = ret ? 0 : mapped_bits_set();

	if (!ret && bt_destroy(c->fd, "a"))
		ret = -1;
	if (!ret && (!(map_hdr->flags & BLOOM_MAP_F_STALE) ||
		     mapped_bits_set() != bits))
		ret = -1;
	unmap();
	return ret;
}
