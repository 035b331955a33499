// SPDX-License-Identifier: GPL-2.0
/*
 * bench-snap: snapshot throughput through /dev/bloom, run in the VM by
 * snap_bench.sh. For a standard filter of --mib MiB (explicit geometry,
 * half its bits set by adds of random keys), per round and in turns:
 *   save      BLOOM_IOC_SAVE into a pre-faulted buffer (bloom_save())
 *   restore   BLOOM_IOC_RESTORE from it under a new name (bloom_restore()),
 *             then destroy (not timed)
 *   memcpy    a plain memcpy() of the same number of bytes between two
 *             pre-faulted buffers in this process: the floor
 * Prints JSON: every sample in seconds, the sizes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <libbloom.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "bench-snap: %s: %s\n", what, strerror(-err));
	exit(1);
}

static void samples(const char *name, const double *s, int n, int last)
{
	int i;

	printf("  \"%s\": [", name);
	for (i = 0; i < n; i++)
		printf("%s%.6f", i ? ", " : "", s[i]);
	printf("]%s\n", last ? "" : ",");
}

int main(int argc, char **argv)
{
	unsigned long mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 64;
	int rounds = argc > 2 ? atoi(argv[2]) : 5, r, err, fd;
	BLOOM_OPTS(bloom_create_opts, o, .type = BLOOM_TYPE_STANDARD,
		   .flags = BLOOM_CREATE_F_BIND, .hashes = 7, .fpp = 0.01);
	double *t_save, *t_restore, *t_copy, t0;
	size_t len, got;
	char *buf, *copy;
	long i, nkeys;
	uint64_t key;

	if (!mib || rounds < 1)
		return 2;
	fd = bloom_open(NULL);
	if (fd < 0)
		die("open", fd);
	bloom_destroy(fd, "bench-snap");
	o.capacity = mib << 20;
	o.bits = (uint64_t)mib << 23;
	err = bloom_create_opts(fd, "bench-snap", &o);
	if (err)
		die("create", err);
	/* about half the bits set: m ln 2 / k keys */
	nkeys = (long)((double)o.bits * 0.693 / o.hashes);
	srandom(1);
	{
		static uint64_t batch[65536];
		long done = 0;
		BLOOM_BATCH_OPTS(add_opts, .key_size = sizeof(batch[0]));

		while (done < nkeys) {
			long n = nkeys - done < 65536 ? nkeys - done : 65536;

			for (i = 0; i < n; i++) {
				key = ((uint64_t)random() << 32) ^ random();
				batch[i] = key;
			}
			err = (int)bloom_batch(fd, BLOOM_OP_ADD, batch, n,
					       &add_opts);
			if (err < 0)
				die("add", err);
			done += n;
		}
	}
	err = bloom_save(fd, "bench-snap", NULL, 0, &len);
	if (err)
		die("save (size)", err);
	buf = malloc(len);
	copy = malloc(len);
	t_save = calloc(rounds, sizeof(double));
	t_restore = calloc(rounds, sizeof(double));
	t_copy = calloc(rounds, sizeof(double));
	if (!buf || !copy || !t_save || !t_restore || !t_copy)
		die("malloc", -ENOMEM);
	memset(buf, 1, len);
	memset(copy, 2, len);
	for (r = 0; r < rounds; r++) {
		t0 = now();
		err = bloom_save(fd, "bench-snap", buf, len, &got);
		t_save[r] = now() - t0;
		if (err)
			die("save", err);
		t0 = now();
		err = bloom_restore(fd, buf, len, "bench-snap-r", 0);
		t_restore[r] = now() - t0;
		if (err)
			die("restore", err);
		bloom_destroy(fd, "bench-snap-r");
		t0 = now();
		memcpy(copy, buf, len);
		t_copy[r] = now() - t0;
		/* the copy must not be optimised away */
		if (copy[len / 2] != buf[len / 2])
			return 3;
	}
	bloom_destroy(fd, "bench-snap");
	printf("{\n  \"bytes\": %zu,\n  \"rounds\": %d,\n  \"keys\": %ld,\n",
	       len, rounds, nkeys);
	samples("save", t_save, rounds, 0);
	samples("restore", t_restore, rounds, 0);
	samples("memcpy", t_copy, rounds, 1);
	printf("}\n");
	return 0;
}
