// SPDX-License-Identifier: GPL-2.0
/* The bans part's feed: ipset save lines (bans_feed.h). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bans_feed.h"

static void *grow(void *p, size_t size)
{
	p = realloc(p, size);
	if (!p) {
		perror("realloc");
		exit(1);
	}
	return p;
}

void bans_feed_read(struct bans_feed *f, const char *path)
{
	char line[128], addr[64];
	size_t room = 0;
	unsigned long t;
	FILE *in = fopen(path, "r");

	if (!in) {
		perror(path);
		exit(1);
	}
	memset(f, 0, sizeof(*f));
	while (fgets(line, sizeof(line), in)) {
		if (sscanf(line, "add %*s %63s timeout %lu", addr, &t) != 2)
			continue;
		if (f->n == room) {
			room = room ? 2 * room : 1 << 16;
			f->keys = grow(f->keys, room * sizeof(*f->keys));
			f->timeouts = grow(f->timeouts, room * sizeof(*f->timeouts));
		}
		if (inet_pton(AF_INET, addr, &f->keys[f->n]) != 1) {
			fprintf(stderr, "%s: not an IPv4 address: %s\n", path, addr);
			exit(1);
		}
		f->timeouts[f->n++] = (uint32_t)t;
	}
	fclose(in);
	if (!f->n) {
		fprintf(stderr, "%s: no \"add SET ADDRESS timeout N\" line\n", path);
		exit(1);
	}
}
