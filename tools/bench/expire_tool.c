// SPDX-License-Identifier: GPL-2.0
/*
 * bench-expire: the churn and the readers of the "expire" part
 * (expire_bench.sh).
 *
 *   bench-expire churn DIR CHUNKS STOP PROGRESS NAME...
 *	every second, the next of DIR/churn_0000.txt .. CHUNKS - 1 (IPv4
 *	addresses, one a line; cycled), added to the filters NAME (packed
 *	4-byte keys, as bloomctl add --ipv4) and written to stdout as
 *	"add expset ADDRESS" lines for ipset restore -exist; until the file
 *	STOP exists. PROGRESS gets "CHUNKS_DONE ADDRESSES MS" after each.
 *   bench-expire read NAME SECONDS SAMPLES
 *	binds to filter NAME, adds KEYS string keys and then, for SECONDS,
 *	queries them one by one through BLOOM_IOC_QUERY, timing each call on
 *	CLOCK_MONOTONIC; every REFRESH_NS it adds them again, so each stays
 *	within its timeout and must test present at every query (a key
 *	lives at least the timeout after its last add). Writes each query's
 *	start, its time and its answer to SAMPLES (binary, struct sample).
 *   bench-expire classify SAMPLES WINDOWS
 *	WINDOWS: lines "START END" in ns on CLOCK_MONOTONIC, the clearings
 *	of generations (kprobes on bloom_core_clear, trace_clock mono).
 *	Prints JSON: the queries that overlapped a clearing and those that
 *	did not, each with their count, latency percentiles and how many
 *	answered "absent" (a false negative: must be 0), and the clearings'
 *	durations.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libbloom.h>

#define KEYS		1000
#define REFRESH_NS	500000000ull
#define MAX_WINDOWS	4096
#define MAX_FILTERS	8

struct sample {
	uint64_t start_ns;
	uint32_t ns;
	uint32_t answer;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void die(const char *what, int err)
{
	char buf[256];

	fprintf(stderr, "bench-expire: %s: %s\n", what,
		bloom_strerror(buf, sizeof(buf), BLOOM_OP_QUERY, NULL, err));
	exit(1);
}

static int add_all(int fd)
{
	char key[32];
	int i, err;

	for (i = 0; i < KEYS; i++) {
		err = bloom_add(fd, key, snprintf(key, sizeof(key), "reader-%d", i));
		if (err < 0)
			return err;
	}
	return 0;
}

static int run(const char *name, double secs, const char *path)
{
	uint64_t t0, end, next_refresh, t;
	size_t n = 0, room = 1 << 20;
	struct sample *s = malloc(room * sizeof(*s));
	char key[32];
	int fd, err, i = 0;
	FILE *f;

	if (!s)
		die("malloc", -ENOMEM);
	fd = bloom_open(NULL);
	if (fd < 0)
		die("open", fd);
	err = bloom_bind(fd, name);
	if (err)
		die("bind", err);
	t0 = now_ns();
	end = t0 + (uint64_t)(secs * 1e9);
	next_refresh = t0;
	for (t = t0; t < end; ) {
		if (t >= next_refresh) {
			err = add_all(fd);
			if (err)
				die("add", err);
			next_refresh = now_ns() + REFRESH_NS;
		}
		if (n == room) {
			room *= 2;
			s = realloc(s, room * sizeof(*s));
			if (!s)
				die("realloc", -ENOMEM);
		}
		t = now_ns();
		err = bloom_query(fd, key, snprintf(key, sizeof(key), "reader-%d", i));
		s[n].start_ns = t;
		t = now_ns();
		if (err < 0)
			die("query", err);
		s[n].ns = (uint32_t)(t - s[n].start_ns);
		s[n].answer = err;
		n++;
		i = (i + 1) % KEYS;
	}
	bloom_close(fd);
	f = fopen(path, "wb");
	if (!f || fwrite(s, sizeof(*s), n, f) != n || fclose(f)) {
		perror(path);
		return 1;
	}
	free(s);
	return 0;
}

struct chunk {
	size_t n;
	uint32_t *keys;		/* network order, as the packets carry them */
	char (*text)[16];
};

static void read_chunk(struct chunk *c, const char *path)
{
	size_t room = 1024;
	char line[64];
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		exit(1);
	}
	c->n = 0;
	c->keys = malloc(room * sizeof(*c->keys));
	c->text = malloc(room * sizeof(*c->text));
	while (c->keys && c->text && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (c->n == room) {
			room *= 2;
			c->keys = realloc(c->keys, room * sizeof(*c->keys));
			c->text = realloc(c->text, room * sizeof(*c->text));
			if (!c->keys || !c->text)
				break;
		}
		if (inet_pton(AF_INET, line, &c->keys[c->n]) != 1) {
			fprintf(stderr, "%s: not an IPv4 address: %s\n", path, line);
			exit(1);
		}
		inet_ntop(AF_INET, &c->keys[c->n], c->text[c->n], sizeof(c->text[0]));
		c->n++;
	}
	if (!c->keys || !c->text)
		die("malloc", -ENOMEM);
	fclose(f);
}

static int churn(const char *dir, int nchunks, const char *stop,
		 const char *progress, char **names, int nnames)
{
	struct chunk *chunks = calloc(nchunks, sizeof(*chunks));
	int fd[MAX_FILTERS], i, j, err;
	uint64_t t0, added = 0;
	char path[4096], tmp[4096];
	size_t k;
	FILE *f;

	if (!chunks || nnames > MAX_FILTERS)
		die("arguments", -EINVAL);
	for (i = 0; i < nchunks; i++) {
		snprintf(path, sizeof(path), "%s/churn_%04d.txt", dir, i);
		read_chunk(&chunks[i], path);
	}
	for (j = 0; j < nnames; j++) {
		fd[j] = bloom_open(NULL);
		if (fd[j] < 0)
			die("open", fd[j]);
		err = bloom_bind(fd[j], names[j]);
		if (err)
			die(names[j], err);
	}
	t0 = now_ns();
	for (i = 0; access(stop, F_OK); i++) {
		struct chunk *c = &chunks[i % nchunks];
		BLOOM_BATCH_OPTS(o, .key_size = sizeof(c->keys[0]));
		uint64_t due = t0 + (i + 1) * 1000000000ull, t;

		for (j = 0; j < nnames; j++) {
			long r = bloom_batch(fd[j], BLOOM_OP_ADD, c->keys, c->n, &o);

			if (r < 0)
				die(names[j], r);
		}
		for (k = 0; k < c->n; k++)
			printf("add expset %s\n", c->text[k]);
		if (fflush(stdout))
			die("stdout", -errno);
		added += c->n;
		t = now_ns();
		/* a reader of @progress sees the old line or the new one */
		snprintf(tmp, sizeof(tmp), "%s.tmp", progress);
		f = fopen(tmp, "w");
		if (!f || fprintf(f, "%d %llu %llu\n", i + 1,
				  (unsigned long long)added,
				  (unsigned long long)((t - t0) / 1000000)) < 0 ||
		    fclose(f) || rename(tmp, progress))
			die(progress, -errno);
		/* chunk i + 1 starts i + 1 s after the first, whatever the adds took */
		if (t < due) {
			struct timespec ts = { .tv_sec = (due - t) / 1000000000ull,
					       .tv_nsec = (due - t) % 1000000000ull };

			nanosleep(&ts, NULL);
		}
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void print_set(const char *name, uint32_t *ns, size_t n,
		      size_t absent, int last)
{
	qsort(ns, n, sizeof(*ns), cmp_u32);
	printf(" \"%s\": {\"queries\": %zu, \"absent\": %zu", name, n, absent);
	if (n)
		printf(", \"ns_median\": %u, \"ns_p90\": %u, \"ns_p99\": %u, \"ns_max\": %u",
		       ns[n / 2], ns[n * 9 / 10], ns[n * 99 / 100], ns[n - 1]);
	printf("}%s\n", last ? "" : ",");
}

static int classify(const char *spath, const char *wpath)
{
	static uint64_t w0[MAX_WINDOWS], w1[MAX_WINDOWS];
	size_t n, i, nw = 0, j = 0, nin = 0, nout = 0, ain = 0, aout = 0;
	uint32_t *in, *out;
	struct sample *s;
	FILE *f;
	long len;

	f = fopen(wpath, "r");
	if (!f) {
		perror(wpath);
		return 1;
	}
	while (nw < MAX_WINDOWS &&
	       fscanf(f, "%llu %llu", (unsigned long long *)&w0[nw],
		      (unsigned long long *)&w1[nw]) == 2)
		nw++;
	fclose(f);
	f = fopen(spath, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0) {
		perror(spath);
		return 1;
	}
	n = len / sizeof(*s);
	s = malloc(n * sizeof(*s) + 1);
	in = malloc(n * sizeof(*in) + 1);
	out = malloc(n * sizeof(*out) + 1);
	rewind(f);
	if (!s || !in || !out || fread(s, sizeof(*s), n, f) != n) {
		perror(spath);
		return 1;
	}
	fclose(f);
	/* samples and windows are both in time order */
	for (i = 0; i < n; i++) {
		uint64_t a = s[i].start_ns, b = a + s[i].ns;

		while (j < nw && w1[j] < a)
			j++;
		if (j < nw && w0[j] <= b) {
			in[nin++] = s[i].ns;
			ain += !s[i].answer;
		} else {
			out[nout++] = s[i].ns;
			aout += !s[i].answer;
		}
	}
	printf("{\n");
	print_set("during_clearing", in, nin, ain, 0);
	print_set("outside_clearing", out, nout, aout, 0);
	printf(" \"seconds\": %.3f,\n",
	       n ? (s[n - 1].start_ns - s[0].start_ns) / 1e9 : 0.0);
	printf(" \"clearings_ns\": [");
	for (i = 0; i < nw; i++)
		printf("%s%llu", i ? ", " : "",
		       (unsigned long long)(w1[i] - w0[i]));
	printf("]\n}\n");
	free(s);
	free(in);
	free(out);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "read") && atof(argv[3]) > 0)
		return run(argv[2], atof(argv[3]), argv[4]);
	if (argc == 4 && !strcmp(argv[1], "classify"))
		return classify(argv[2], argv[3]);
	if (argc >= 7 && !strcmp(argv[1], "churn") && atoi(argv[3]) > 0)
		return churn(argv[2], atoi(argv[3]), argv[4], argv[5], argv + 6,
			     argc - 6);
	fprintf(stderr, "usage: bench-expire churn DIR CHUNKS STOP PROGRESS NAME...\n"
		"       bench-expire read NAME SECONDS SAMPLES\n"
		"       bench-expire classify SAMPLES WINDOWS\n");
	return 2;
}
