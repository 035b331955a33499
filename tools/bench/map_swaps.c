// SPDX-License-Identifier: GPL-2.0
/*
 * bench-map-swaps: readers through libbloom's read-only mapping while a
 * writer changes what the filter holds, the case the mapping's sequence
 * number is for. Two filters of one type ("bench-swap-a", "-b") with the
 * same keys, half of KEYS added first. Then READERS threads query keys one
 * at a time through a descriptor bound to "-a", with no writer (quiet) and
 * with one writer that adds fresh keys to both and swaps them
 * (BLOOM_IOC_SWAP) back to back (stream): SECONDS of each, in 5 rounds
 * where the two take turns, so that a drift of the shared machine's load
 * hits both alike. The adds are spread over the stream's seconds so that
 * the filters end it at KEYS keys, their capacity: a swap follows every
 * add, and swaps go on between adds.
 *
 * A reader asks only keys whose add returned before its query began: the
 * writer publishes how many keys both filters hold after its adds return
 * (a release store), the reader loads it (acquire) before a block of
 * queries and picks its keys below it. Every answer must be "present"; a
 * miss is a false negative. The retries (the sequence number changed
 * during a test), remaps (the mapping was stale: a swap) and fallbacks to
 * the ioctl are libbloom's own counts (bloom_map_stats()), per reader.
 *
 *   bench-map-swaps KEYS TYPE SECONDS [READERS]   TYPE: standard or blocked
 *
 * Runs where bloom.ko is (the VM, as root). Prints a line per phase:
 * queries, those answered through a mapping, retries, remaps, fallbacks,
 * misses (summed over the readers and rounds); ns per query, the median of
 * blocks of 1,000 queries (one key a call, the keys picked before the block
 * is timed) over all readers' blocks, and the mean (all blocks' time over
 * all queries: what remaps cost is there, not in the median); and for the
 * stream the writer's swaps and adds. Then the false positives of as many
 * never-added keys as KEYS / 10, to show the filters were not saturated (a
 * full filter would hide a false negative behind "present" for everything).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "keys.h"
#include "libbloom.h"
#include "samples.h"

#define BLOCK		1000	/* queries timed together */
#define CHUNK		64	/* keys a writer's add gives each filter */
#define MAX_READERS	8
#define ROUNDS		5

static const char *const names[2] = { "bench-swap-a", "bench-swap-b" };

static uint64_t nkeys;
static atomic_uint_least64_t added;	/* keys [0, added) are in both filters */
static atomic_bool stop;

/* A reader's counts in one round, or a phase's summed over its rounds. */
struct counts {
	struct bench_samples ns;
	struct bloom_map_stats st;
	uint64_t misses, errors, timed_ns;
};

struct reader {
	pthread_t tid;
	unsigned int id;
	struct counts c;
};

struct writer {
	pthread_t tid;
	int fd[2], ctl;
	uint64_t stream_ns;	/* the stream's length, all rounds */
	uint64_t done_ns;	/* the stream's time in the rounds before */
	uint64_t swaps, adds;
	int err;
};

/* Keys [first, first + n) into both filters; 0 or a negative errno. */
static int add_keys(const int fd[2], uint64_t first, uint64_t n)
{
	BLOOM_OPTS(bloom_batch_opts, o, .key_size = BENCH_KEY_LEN);
	static struct bench_key keys[65536];
	uint64_t i, done, m;
	int f, r;

	for (done = 0; done < n; done += m) {
		m = n - done < 65536 ? n - done : 65536;
		for (i = 0; i < m; i++)
			bench_key(BENCH_PRESENT, first + done + i, &keys[i]);
		for (f = 0; f < 2; f++) {
			r = bloom_batch(fd[f], BLOOM_OP_ADD, keys, m, &o);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static void *reader_thread(void *arg)
{
	struct reader *rd = arg;
	struct counts *c = &rd->c;
	struct bench_key keys[BLOCK];
	uint64_t seed = bench_mix64(rd->id + 1) ^ bench_now_ns(), hi, t0, t;
	int fd = bloom_open(NULL), i, r;

	if (fd < 0 || bloom_bind(fd, names[0])) {
		c->errors++;
		goto out;
	}
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		/* what had been added before any query of the block began */
		hi = atomic_load_explicit(&added, memory_order_acquire);
		for (i = 0; i < BLOCK; i++)
			bench_key(BENCH_PRESENT, bench_mix64(seed++) % hi,
				  &keys[i]);
		t0 = bench_now_ns();
		for (i = 0; i < BLOCK; i++) {
			r = bloom_query(fd, &keys[i], BENCH_KEY_LEN);
			c->misses += r == 0;
			c->errors += r < 0;
		}
		t = bench_now_ns() - t0;
		c->timed_ns += t;
		bench_sample(&c->ns, t, BLOCK);
	}
out:
	bloom_map_stats(&c->st);	/* this thread's counts, from zero */
	bloom_close(fd);
	return NULL;
}

/*
 * Adds CHUNK keys when the stream's schedule says so (room for the other
 * half of KEYS spread over its rounds), then swaps; again until stopped.
 */
static void *writer_thread(void *arg)
{
	struct writer *w = arg;
	uint64_t start = bench_now_ns(), first = nkeys / 2, due, n;
	uint64_t hi = atomic_load_explicit(&added, memory_order_relaxed);

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		due = first + (double)(nkeys - first) *
			      (double)(w->done_ns + bench_now_ns() - start) /
			      (double)w->stream_ns;
		if (due > nkeys)
			due = nkeys;
		if (due > hi) {
			n = due - hi < CHUNK ? due - hi : CHUNK;
			w->err = add_keys(w->fd, hi, n);
			if (w->err)
				break;
			hi += n;
			w->adds += n;
			/* both adds have returned: readers may ask for these */
			atomic_store_explicit(&added, hi, memory_order_release);
		}
		w->err = bloom_swap(w->ctl, names[0], names[1]);
		if (w->err)
			break;
		w->swaps++;
	}
	w->done_ns += bench_now_ns() - start;
	return NULL;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ULL),
			       .tv_nsec = (long)(ns % 1000000000ULL) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * One round of a phase: the readers for @ns, with @w streaming if not
 * NULL; their counts added to @sum. 0, or -1 if a thread could not start.
 */
static int round_of(struct counts *sum, struct reader *rd, unsigned int nr,
		    struct writer *w, uint64_t ns)
{
	unsigned int i;

	atomic_store(&stop, false);
	for (i = 0; i < nr; i++) {
		memset(&rd[i], 0, sizeof(rd[i]));
		rd[i].id = i;
		if (pthread_create(&rd[i].tid, NULL, reader_thread, &rd[i]))
			return -1;
	}
	if (w && pthread_create(&w->tid, NULL, writer_thread, w))
		return -1;
	sleep_ns(ns);
	atomic_store(&stop, true);
	if (w)
		pthread_join(w->tid, NULL);
	for (i = 0; i < nr; i++) {
		struct counts *c = &rd[i].c;

		pthread_join(rd[i].tid, NULL);
		sum->st.queries += c->st.queries;
		sum->st.retries += c->st.retries;
		sum->st.remaps += c->st.remaps;
		sum->st.fallbacks += c->st.fallbacks;
		sum->misses += c->misses;
		sum->errors += c->errors;
		sum->timed_ns += c->timed_ns;
		bench_samples_merge(&sum->ns, &c->ns);
	}
	return 0;
}

static void print_phase(const char *what, struct counts *c,
			const struct writer *w)
{
	uint64_t queries = c->ns.n * BLOCK;

	printf("swaps %s queries %llu mapped %llu", what,
	       (unsigned long long)queries, (unsigned long long)c->st.queries);
	printf(" retries %llu remaps %llu fallbacks %llu misses %llu",
	       (unsigned long long)c->st.retries,
	       (unsigned long long)c->st.remaps,
	       (unsigned long long)c->st.fallbacks,
	       (unsigned long long)c->misses);
	printf(" mean %.1f ns %.1f",
	       queries ? (double)c->timed_ns / (double)queries : 0,
	       bench_samples_median(&c->ns));
	if (w)
		printf(" swaps %llu adds %llu", (unsigned long long)w->swaps,
		       (unsigned long long)w->adds);
	printf("\n");
	free(c->ns.v);
}

/* ROUNDS rounds of the quiet phase and of the stream, taking turns. */
static int phases(struct reader *rd, unsigned int nr, struct writer *w,
		  uint64_t seconds)
{
	struct counts quiet = { 0 }, stream = { 0 };
	uint64_t ns = seconds * 1000000000ULL / ROUNDS;
	int i;

	w->stream_ns = ns * ROUNDS;
	for (i = 0; i < ROUNDS; i++)
		if (round_of(&quiet, rd, nr, NULL, ns) ||
		    round_of(&stream, rd, nr, w, ns))
			return -1;
	print_phase("quiet", &quiet, NULL);
	print_phase("stream", &stream, w);
	if (w->err) {
		fprintf(stderr, "bench-map-swaps: writer: %s\n",
			strerror(-w->err));
		return -1;
	}
	if (quiet.errors + stream.errors) {
		fprintf(stderr, "bench-map-swaps: %llu queries or binds failed\n",
			(unsigned long long)(quiet.errors + stream.errors));
		return -1;
	}
	return 0;
}

/* Never-added keys that test present, of @n, through @fd's mapping. */
static uint64_t false_positives(int fd, uint64_t n)
{
	struct bench_key k;
	uint64_t i, fp = 0;

	for (i = 0; i < n; i++) {
		bench_key(BENCH_ABSENT, i, &k);
		fp += bloom_query(fd, &k, BENCH_KEY_LEN) == 1;
	}
	return fp;
}

int main(int argc, char **argv)
{
	static struct reader rd[MAX_READERS];
	struct writer w = { .fd = { -1, -1 } };
	enum bloom_type type;
	uint64_t seconds;
	unsigned int nr;
	int fd, i, err, ret = 1;

	if (argc < 4) {
		fprintf(stderr, "usage: bench-map-swaps KEYS standard|blocked SECONDS [READERS]\n");
		return 2;
	}
	nkeys = strtoull(argv[1], NULL, 0);
	type = strcmp(argv[2], "blocked") ? BLOOM_TYPE_STANDARD :
					    BLOOM_TYPE_BLOCKED;
	seconds = strtoull(argv[3], NULL, 0);
	nr = argc > 4 ? (unsigned int)atoi(argv[4]) : 1;
	if (nkeys < 2 * CHUNK || !seconds || !nr || nr > MAX_READERS) {
		fprintf(stderr, "bench-map-swaps: KEYS >= %d, SECONDS >= 1, 1 to %d readers\n",
			2 * CHUNK, MAX_READERS);
		return 2;
	}
	fd = bloom_open(NULL);
	err = fd < 0 ? fd : 0;
	w.ctl = fd;
	for (i = 0; !err && i < 2; i++) {
		err = bloom_create(fd, names[i], type, nkeys, 0.01, 0);
		w.fd[i] = err ? err : bloom_open(NULL);
		err = w.fd[i] < 0 ? w.fd[i] : bloom_bind(w.fd[i], names[i]);
	}
	if (!err)
		err = add_keys(w.fd, 0, nkeys / 2);
	if (err) {
		fprintf(stderr, "bench-map-swaps: the filters: %s\n",
			strerror(-err));
		goto out;
	}
	atomic_store(&added, nkeys / 2);
	printf("# swaps keys %llu type %s seconds %llu readers %u rounds %d\n",
	       (unsigned long long)nkeys, argv[2],
	       (unsigned long long)seconds, nr, ROUNDS);
	if (phases(rd, nr, &w, seconds))
		goto out;
	printf("swaps fp %llu of %llu\n",
	       (unsigned long long)false_positives(w.fd[0], nkeys / 10),
	       (unsigned long long)(nkeys / 10));
	ret = 0;
out:
	for (i = 0; fd >= 0 && i < 2; i++) {
		if (w.fd[i] >= 0)
			bloom_close(w.fd[i]);
		bloom_destroy(fd, names[i]);
	}
	if (fd >= 0)
		bloom_close(fd);
	return ret;
}
