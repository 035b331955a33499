/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The filters a bloom-xdp program uses: choosing one per address family at
 * attach, and telling at show whether the ids the program keeps still name
 * those filters in the namespace the device is in now.
 */
#ifndef BLOOM_XDP_FILTERS_H
#define BLOOM_XDP_FILTERS_H

#include <stddef.h>
#include <stdint.h>
#include <linux/bloom.h>

/* What --set, --set4 and --set6 asked for. */
struct filter_request {
	const char *name;
	int family;		/* 0 (--set: the filter's own), 4 or 6 */
};

/* The filter chosen for each family; id 0: none, that family passes. */
struct filter_choice {
	uint32_t id4, id6;
	char name4[BLOOM_NAME_LEN], name6[BLOOM_NAME_LEN];
};

/*
 * Reads the filters of @req[0..@n) through @fd in this network namespace
 * and assigns each to its family. -1 with a sentence in @msg (@len bytes)
 * that says what to do when a filter is missing, holds strings, is of the
 * other family than asked, or is of unknown kind (no address added yet)
 * without --set4 or --set6: such a filter never serves both families.
 */
int filters_choose(int fd, const struct filter_request *req, int n,
		   struct filter_choice *c, char *msg, size_t len);

/* What became of a filter a program names by @id and @name. */
enum filter_state {
	FILTER_OK,		/* @id is @name's here */
	FILTER_GONE,		/* no filter of @id here: frames pass */
	FILTER_OTHER,		/* @id is another filter's here */
	FILTER_UNKNOWN,		/* /dev/bloom cannot be read */
};

/* The state, and in @other (BLOOM_NAME_LEN) the name @id has here. */
enum filter_state filter_check(int fd, uint32_t id, const char *name,
			       char *other);

/* The inode of this process's network namespace (0 if unknown). */
uint64_t netns_inode(void);

#endif /* BLOOM_XDP_FILTERS_H */
