// SPDX-License-Identifier: GPL-2.0
/*
 * bench-bans: what the "bans" part (bans_bench.sh) asks of a timed filter
 * through libbloom, as a daemon holding bans would. FEED holds ipset save
 * lines, "add SET ADDRESS timeout SECONDS", one IPv4 address each.
 *
 *   bench-bans lib NAME FEED
 *	adds every address of FEED with its own timeout in batches of BATCH
 *	keys (BLOOM_BATCH_F_TIMEOUT, one timeout per key), then deletes them
 *	all in batches; prints JSON: the keys, each pass's seconds, the keys
 *	the adds found present already and the keys the deletes removed.
 *   bench-bans check NAME FEED SINCE
 *	queries every address of FEED in batches; SINCE is the CLOCK_BOOTTIME
 *	second (a decimal) before the adds began, so a key whose timeout T
 *	has SINCE + T still ahead when the query returns must test present.
 *	Prints JSON: the keys checked that way, those that tested absent
 *	(false negatives: must be 0), and those left out as possibly expired.
 *   bench-bans expiry NAME COUNT TMIN TMAX
 *	adds COUNT addresses from SAMPLE_BASE in one batch, key i with
 *	timeout TMIN + i mod (TMAX - TMIN + 1) seconds, then queries them all
 *	every POLL_MS until all test absent (or TMAX + GIVE_UP_S has passed),
 *	noting when each first tested absent. Prints JSON: how late past its
 *	timeout (from the moment before the add) each key went, as the
 *	largest and the median; the keys absent before their timeout (false
 *	negatives: must be 0) and those never absent (false positives).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <libbloom.h>
#include "bans_feed.h"

#define BATCH		65536
#define SAMPLE_BASE	0x40000000u	/* 64.0.0.0: neither fw_send range */
#define POLL_MS		50
#define GIVE_UP_S	30

static double boottime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, enum bloom_op op, int err)
{
	char buf[256];

	fprintf(stderr, "bench-bans: %s: %s\n", what,
		bloom_strerror(buf, sizeof(buf), op, NULL, err));
	exit(1);
}

static int bound(const char *name)
{
	int fd = bloom_open(NULL), err;

	if (fd < 0)
		die("open", BLOOM_OP_QUERY, fd);
	err = bloom_bind(fd, name);
	if (err)
		die(name, BLOOM_OP_QUERY, err);
	return fd;
}

/* One pass of @op over @f in batches; *@hits gets the batches' hits. */
static double pass(int fd, enum bloom_op op, const struct bans_feed *f,
		   long *hits)
{
	double t0 = boottime();
	size_t i, n;

	*hits = 0;
	for (i = 0; i < f->n; i += n) {
		n = f->n - i < BATCH ? f->n - i : BATCH;
		BLOOM_BATCH_OPTS(o, .key_size = sizeof(f->keys[0]),
				 .flags = op == BLOOM_OP_ADD ? BLOOM_BATCH_F_TIMEOUT : 0,
				 .timeouts = op == BLOOM_OP_ADD ? f->timeouts + i : NULL);
		long r = bloom_batch(fd, op, f->keys + i, n, &o);

		if (r < 0)
			die("batch", op, r);
		*hits += r;
	}
	return boottime() - t0;
}

static int lib(const char *name, const char *path)
{
	struct bans_feed f;
	long added_already, deleted;
	double add_s, del_s;
	int fd = bound(name);

	bans_feed_read(&f, path);
	add_s = pass(fd, BLOOM_OP_ADD, &f, &added_already);
	del_s = pass(fd, BLOOM_OP_DELETE, &f, &deleted);
	printf("{\"keys\": %zu, \"batch\": %d, \"add_s\": %.3f, \"present_already\": %ld, "
	       "\"delete_s\": %.3f, \"deleted\": %ld}\n",
	       f.n, BATCH, add_s, added_already, del_s, deleted);
	return 0;
}

/* Queries @n keys at @keys into the bitmap @res, in batches. */
static void query(int fd, const uint32_t *keys, size_t n, uint8_t *res)
{
	size_t i, m;

	for (i = 0; i < n; i += m) {
		m = n - i < BATCH ? n - i : BATCH;
		BLOOM_BATCH_OPTS(o, .key_size = sizeof(keys[0]),
				 .results = res + i / 8);
		long r = bloom_batch(fd, BLOOM_OP_QUERY, keys + i, m, &o);

		if (r < 0)
			die("query", BLOOM_OP_QUERY, r);
	}
}

static int bit(const uint8_t *bm, size_t i)
{
	return bm[i / 8] >> (i % 8) & 1;
}

static int check(const char *name, const char *path, double since)
{
	struct bans_feed f;
	size_t i, checked = 0, absent = 0;
	uint8_t *res;
	double now;
	int fd = bound(name);

	bans_feed_read(&f, path);
	/* BATCH is a multiple of 8: each batch's bits start on a byte */
	res = calloc(f.n / 8 + 1, 1);
	if (!res)
		die("calloc", BLOOM_OP_QUERY, -ENOMEM);
	query(fd, f.keys, f.n, res);
	now = boottime();
	for (i = 0; i < f.n; i++) {
		if (since + f.timeouts[i] <= now)
			continue;
		checked++;
		absent += !bit(res, i);
	}
	printf("{\"keys\": %zu, \"checked\": %zu, \"false_negatives\": %zu, "
	       "\"maybe_expired\": %zu}\n", f.n, checked, absent, f.n - checked);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int expiry(const char *name, size_t n, unsigned int tmin,
		  unsigned int tmax)
{
	struct bans_feed f = { .n = n };
	double t_add, now, *late, *gone, late_max;
	size_t i, left = n, early = 0, nlate = 0;
	uint8_t *res;
	long hits;
	int fd = bound(name);
	const struct timespec poll = { .tv_nsec = POLL_MS * 1000000L };

	f.keys = calloc(n, sizeof(*f.keys));
	f.timeouts = calloc(n, sizeof(*f.timeouts));
	gone = calloc(n, sizeof(*gone));
	late = calloc(n, sizeof(*late));
	res = calloc(n / 8 + 1, 1);
	if (!f.keys || !f.timeouts || !gone || !late || !res || tmax < tmin)
		die("arguments", BLOOM_OP_ADD, -EINVAL);
	for (i = 0; i < n; i++) {
		f.keys[i] = htonl(SAMPLE_BASE + i);
		f.timeouts[i] = tmin + i % (tmax - tmin + 1);
	}
	t_add = boottime();
	pass(fd, BLOOM_OP_ADD, &f, &hits);
	do {
		nanosleep(&poll, NULL);
		query(fd, f.keys, n, res);
		now = boottime();
		for (i = 0; i < n; i++) {
			if (gone[i] || bit(res, i))
				continue;
			gone[i] = now;
			left--;
			if (now < t_add + f.timeouts[i])
				early++;
			else
				late[nlate++] = now - (t_add + f.timeouts[i]);
		}
	} while (left && now < t_add + tmax + GIVE_UP_S);
	qsort(late, nlate, sizeof(*late), cmp_double);
	late_max = nlate ? late[nlate - 1] : 0;
	printf("{\"keys\": %zu, \"timeout_min_s\": %u, \"timeout_max_s\": %u, "
	       "\"poll_ms\": %d, \"present_already\": %ld, \"absent_early\": %zu, "
	       "\"never_absent\": %zu, \"late_max_s\": %.3f, \"late_median_s\": %.3f}\n",
	       n, tmin, tmax, POLL_MS, hits, early, left, late_max,
	       nlate ? late[nlate / 2] : 0.0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "lib"))
		return lib(argv[2], argv[3]);
	if (argc == 5 && !strcmp(argv[1], "check"))
		return check(argv[2], argv[3], atof(argv[4]));
	if (argc == 6 && !strcmp(argv[1], "expiry") && atol(argv[3]) > 0)
		return expiry(argv[2], atol(argv[3]), atoi(argv[4]),
			      atoi(argv[5]));
	fprintf(stderr, "usage: bench-bans lib NAME FEED\n"
		"       bench-bans check NAME FEED SINCE\n"
		"       bench-bans expiry NAME COUNT TMIN TMAX\n");
	return 2;
}
