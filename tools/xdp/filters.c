// SPDX-License-Identifier: GPL-2.0
/*
 * The filters of a bloom-xdp program (filters.h). A filter's id is its
 * number in one network namespace: every namespace counts from 1, so the
 * same id names unrelated filters in two namespaces, and a device moved to
 * another namespace takes along a program whose ids then name that
 * namespace's filters (the kfuncs look ids up in the namespace of the
 * device a frame arrives on). show checks each id against the name the
 * program was attached with, here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libbloom.h>

#include "filters.h"

static const char *const kind[] = {
	[BLOOM_KEYS_IPV4] = "IPv4", [BLOOM_KEYS_IPV6] = "IPv6",
};

/* The family @info holds (4, 6), 0 for none yet, -1 for strings. */
static int family_of(const struct bloom_info *info)
{
	switch (info->keys) {
	case BLOOM_KEYS_IPV4:
		return 4;
	case BLOOM_KEYS_IPV6:
		return 6;
	case BLOOM_KEYS_UNKNOWN:
		return 0;
	default:
		return -1;
	}
}

int filters_choose(int fd, const struct filter_request *req, int n,
		   struct filter_choice *c, char *msg, size_t len)
{
	const char *taken[2] = { NULL, NULL };
	struct bloom_info info;
	int i, err, fam, want;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < n; i++) {
		err = bloom_info(fd, req[i].name, &info);
		if (err == -ENOENT) {
			snprintf(msg, len, "no filter named %s in this network namespace: create and fill it first (bloomctl create %s ...; bloomctl add %s --ipv4 -f FILE), or 'bloomctl list' names the filters there are",
				 req[i].name, req[i].name, req[i].name);
			return -1;
		}
		if (err) {
			bloom_strerror(msg, len, BLOOM_OP_INFO, req[i].name,
				       err);
			return -1;
		}
		fam = family_of(&info);
		want = req[i].family;
		if (fam < 0) {
			snprintf(msg, len, "filter %s holds strings, not addresses: name a filter filled with bloomctl add --ipv4 or --ipv6",
				 req[i].name);
			return -1;
		}
		if (want && fam && fam != want) {
			snprintf(msg, len, "filter %s holds %s addresses: give it with --set, or with --set%d",
				 req[i].name, kind[info.keys], fam);
			return -1;
		}
		if (!want && !fam) {
			snprintf(msg, len, "filter %s holds no address yet, so its family is not known: add its addresses first (bloomctl add %s --ipv4 or --ipv6), or give it with --set4 or --set6",
				 req[i].name, req[i].name);
			return -1;
		}
		fam = want ? want : fam;
		if (taken[fam == 6]) {
			snprintf(msg, len, "filters %s and %s are both for IPv%d: give one filter of IPv4 and one of IPv6 addresses",
				 taken[fam == 6], req[i].name, fam);
			return -1;
		}
		taken[fam == 6] = req[i].name;
		if (fam == 4) {
			c->id4 = info.id;
			memcpy(c->name4, info.name, sizeof(c->name4));
		} else {
			c->id6 = info.id;
			memcpy(c->name6, info.name, sizeof(c->name6));
		}
	}
	return 0;
}

enum filter_state filter_check(int fd, uint32_t id, const char *name,
			       char *other)
{
	char (*names)[BLOOM_NAME_LEN] = NULL;
	enum filter_state st = FILTER_GONE;
	struct bloom_info info;
	size_t n, i;

	other[0] = '\0';
	if (fd < 0)
		return FILTER_UNKNOWN;
	/* the usual case first: the name still has the id */
	if (!bloom_info(fd, name, &info) && info.id == id)
		return FILTER_OK;
	if (bloom_list(fd, &names, &n))
		return FILTER_UNKNOWN;
	for (i = 0; i < n; i++) {
		if (bloom_info(fd, names[i], &info) || info.id != id)
			continue;
		memcpy(other, info.name, BLOOM_NAME_LEN);
		other[BLOOM_NAME_LEN - 1] = '\0';
		st = FILTER_OTHER;
		break;
	}
	free(names);
	return st;
}

uint64_t netns_inode(void)
{
	struct stat st;

	return stat("/proc/self/ns/net", &st) ? 0 : st.st_ino;
}
