// SPDX-License-Identifier: GPL-2.0
/*
 * bench-vm: runs inside the QEMU guest (selftests/vm/run.sh) with bloom.ko
 * loaded and prints JSON on stdout. Under TCG every instruction is emulated,
 * so only the ratios between these figures mean anything; all of them are
 * taken in the same guest, interleaved, several rounds, medians kept.
 *
 * Per key, for a standard filter of --keys keys at p = 0.01 (and its blocked
 * twin for a few lines):
 *  - the syscall floor: BLOOM_IOC_VERSION, and an unknown command (ENOTTY);
 *  - BLOOM_IOC_QUERY with 1 key and with batches of 16 .. 65536 keys, of
 *    present keys (all k bits probed), and 1 and 4096 absent keys;
 *  - BLOOM_IOC_ADD with 1 key and 4096 keys;
 *  - the same core in userspace in this guest (libbloomcore.a), single and
 *    batched by 4096, as bench-native measures it;
 *  - the kernel's BPF Bloom filter map with the same keys and k, one
 *    bpf(BPF_MAP_LOOKUP_ELEM / BPF_MAP_UPDATE_ELEM) per key.
 * Every per-key cost includes computing the key (keys.h).
 *
 * usage: bench-vm [--keys N] [--rounds R] [--calls N] [--batch-keys N]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <linux/bloom.h>
#include "clock.h"
#include "core.h"
#include "json.h"
#include "keys.h"
#include "loops.h"
#include "opts.h"
#include "stats.h"
#include "target.h"
#include "vm_bpf.h"
#include "vm_dev.h"

#define MAX_BATCH	65536
#define FPP_PPB		10000000	/* p = 0.01 */

static const uint8_t hash_key[BENCH_HASH_KEY_LEN] = "bloom-bench-key";

struct env {
	int dev_std, dev_blk, bpf;
	struct target core_std, core_blk;
	uint64_t n;		/* keys added */
	uint64_t calls;		/* keys per sample, one key per call */
	uint64_t batch_keys;	/* keys per sample, batched */
	struct bench_key *buf;	/* MAX_BATCH keys */
	uint8_t *results;
	uint64_t round;		/* rotates the sampled key ranges */
	uint64_t bpf_fp, bpf_absent, dev_fp, dev_absent;
};

enum kind {
	K_VERSION, K_ENOTTY, K_DEV_QUERY, K_DEV_ADD, K_CORE, K_BPF_QUERY,
	K_BPF_ADD,
};

struct measure {
	const char *name;
	enum kind kind;
	uint32_t batch;		/* keys per call (core: 1 single, else batch) */
	int blocked;
	enum bench_set set;
	struct bench_stat ns;
};

static struct measure measures[] = {
	{ "ioctl_version", K_VERSION, 1, 0, 0, { 0 } },
	{ "ioctl_enotty", K_ENOTTY, 1, 0, 0, { 0 } },
	{ "query_1", K_DEV_QUERY, 1, 0, BENCH_PRESENT, { 0 } },
	{ "query_16", K_DEV_QUERY, 16, 0, BENCH_PRESENT, { 0 } },
	{ "query_64", K_DEV_QUERY, 64, 0, BENCH_PRESENT, { 0 } },
	{ "query_256", K_DEV_QUERY, 256, 0, BENCH_PRESENT, { 0 } },
	{ "query_1024", K_DEV_QUERY, 1024, 0, BENCH_PRESENT, { 0 } },
	{ "query_4096", K_DEV_QUERY, 4096, 0, BENCH_PRESENT, { 0 } },
	{ "query_16384", K_DEV_QUERY, 16384, 0, BENCH_PRESENT, { 0 } },
	{ "query_65536", K_DEV_QUERY, 65536, 0, BENCH_PRESENT, { 0 } },
	{ "query_1_absent", K_DEV_QUERY, 1, 0, BENCH_ABSENT, { 0 } },
	{ "query_4096_absent", K_DEV_QUERY, 4096, 0, BENCH_ABSENT, { 0 } },
	{ "blocked_query_1", K_DEV_QUERY, 1, 1, BENCH_PRESENT, { 0 } },
	{ "blocked_query_4096", K_DEV_QUERY, 4096, 1, BENCH_PRESENT, { 0 } },
	{ "add_1", K_DEV_ADD, 1, 0, BENCH_PRESENT, { 0 } },
	{ "add_4096", K_DEV_ADD, 4096, 0, BENCH_PRESENT, { 0 } },
	{ "core_query_single", K_CORE, 1, 0, BENCH_PRESENT, { 0 } },
	{ "core_query_batch", K_CORE, BENCH_CHUNK, 0, BENCH_PRESENT, { 0 } },
	{ "core_query_batch_absent", K_CORE, BENCH_CHUNK, 0, BENCH_ABSENT, { 0 } },
	{ "core_blocked_query_batch", K_CORE, BENCH_CHUNK, 1, BENCH_PRESENT, { 0 } },
	{ "bpf_lookup", K_BPF_QUERY, 1, 0, BENCH_PRESENT, { 0 } },
	{ "bpf_lookup_absent", K_BPF_QUERY, 1, 0, BENCH_ABSENT, { 0 } },
	{ "bpf_update", K_BPF_ADD, 1, 0, BENCH_PRESENT, { 0 } },
};

#define NMEASURES (sizeof(measures) / sizeof(measures[0]))

static void die(const char *what, int err)
{
	fprintf(stderr, "bench-vm: %s: %s\n", what, strerror(err));
	exit(1);
}

/* Keys [first, first + count) of @set through the device, @batch a call. */
static uint64_t dev_keys(struct env *e, int fd, int add, enum bench_set set,
			 uint64_t first, uint64_t count, uint32_t batch)
{
	uint64_t i, hits = 0;

	for (i = 0; i < count; i += batch) {
		uint32_t n = count - i < batch ? (uint32_t)(count - i) : batch;
		long ret;

		for (uint32_t j = 0; j < n; j++)
			bench_key(set, first + i + j, &e->buf[j]);
		ret = dev_batch(fd, add, e->buf, BENCH_KEY_LEN, n, e->results);
		if (ret < 0)
			die(add ? "BLOOM_IOC_ADD" : "BLOOM_IOC_QUERY", (int)-ret);
		hits += (uint64_t)ret;
	}
	return hits;
}

/* Runs one sample of @m; returns ns per key. */
static double sample(struct env *e, struct measure *m)
{
	uint64_t count = m->kind == K_CORE || m->batch > 1 ? e->batch_keys :
							      e->calls;
	uint64_t span = m->set == BENCH_PRESENT ? e->n : 4 * e->n;
	uint64_t first = e->round * count % (span - count + 1);
	int fd = m->blocked ? e->dev_blk : e->dev_std;
	uint64_t i, hits = 0, t0 = bench_now_ns();
	struct bench_key k;
	int ret;

	switch (m->kind) {
	case K_VERSION:
		for (i = 0; i < count; i++)
			if ((ret = dev_version(fd)))
				die("BLOOM_IOC_VERSION", -ret);
		break;
	case K_ENOTTY:
		for (i = 0; i < count; i++)
			if ((ret = dev_unknown(fd)))
				die("unknown ioctl did not fail with ENOTTY", -ret);
		break;
	case K_DEV_QUERY:
	case K_DEV_ADD:
		hits = dev_keys(e, fd, m->kind == K_DEV_ADD, m->set, first,
				count, m->batch);
		break;
	case K_CORE:
		hits = bench_loop(m->blocked ? &e->core_blk : &e->core_std,
				  OP_QUERY, m->batch > 1 ? MODE_BATCH : MODE_SINGLE,
				  m->set, first, count).hits;
		break;
	case K_BPF_QUERY:
		for (i = 0; i < count; i++) {
			bench_key(m->set, first + i, &k);
			ret = bpfb_query(e->bpf, &k);
			if (ret < 0)
				die("BPF_MAP_LOOKUP_ELEM", -ret);
			hits += (uint64_t)ret;
		}
		break;
	case K_BPF_ADD:
		for (i = 0; i < count; i++) {
			bench_key(m->set, first + i, &k);
			if ((ret = bpfb_add(e->bpf, &k)))
				die("BPF_MAP_UPDATE_ELEM", -ret);
		}
		break;
	}
	double ns = (double)(bench_now_ns() - t0) / (double)count;

	/* Present keys must all be found: anything else is a bug to report. */
	if ((m->kind == K_DEV_QUERY || m->kind == K_CORE ||
	     m->kind == K_BPF_QUERY) && m->set == BENCH_PRESENT && hits != count) {
		fprintf(stderr, "bench-vm: %s: %llu of %llu present keys found\n",
			m->name, (unsigned long long)hits,
			(unsigned long long)count);
		exit(1);
	}
	if (m->set == BENCH_ABSENT && m->kind == K_BPF_QUERY) {
		e->bpf_fp += hits;
		e->bpf_absent += count;
	}
	if (m->set == BENCH_ABSENT && m->kind == K_DEV_QUERY) {
		e->dev_fp += hits;
		e->dev_absent += count;
	}
	return ns;
}

static void setup(struct env *e)
{
	uint64_t t0, i;
	int ret;

	e->buf = calloc(MAX_BATCH, sizeof(*e->buf));
	e->results = calloc(MAX_BATCH / 8, 1);
	if (!e->buf || !e->results)
		die("memory", ENOMEM);
	e->dev_std = dev_open("/dev/bloom");
	e->dev_blk = dev_open("/dev/bloom");
	if (e->dev_std < 0 || e->dev_blk < 0)
		die("/dev/bloom", -(e->dev_std < 0 ? e->dev_std : e->dev_blk));
	dev_destroy(e->dev_std, "bench-std");	/* leftovers of a failed run */
	dev_destroy(e->dev_std, "bench-blk");
	if ((ret = dev_create(e->dev_std, "bench-std", BLOOM_TYPE_STANDARD,
			      e->n, FPP_PPB, hash_key)))
		die("BLOOM_IOC_CREATE standard", -ret);
	if ((ret = dev_create(e->dev_blk, "bench-blk", BLOOM_TYPE_BLOCKED,
			      e->n, FPP_PPB, hash_key)))
		die("BLOOM_IOC_CREATE blocked", -ret);
	if ((ret = target_core_init(&e->core_std, BLOOM_CORE_STANDARD, e->n,
				    FPP_PPB, hash_key)) ||
	    (ret = target_core_init(&e->core_blk, BLOOM_CORE_BLOCKED, e->n,
				    FPP_PPB, hash_key)))
		die("core filter", -ret);
	/* Same keys and k as our standard filter. */
	e->bpf = bpfb_create(BENCH_KEY_LEN, (uint32_t)e->n, e->core_std.hashes);
	if (e->bpf < 0)
		die("bpf_map_create(BPF_MAP_TYPE_BLOOM_FILTER)", -e->bpf);

	t0 = bench_now_ns();
	dev_keys(e, e->dev_std, 1, BENCH_PRESENT, 0, e->n, 4096);
	dev_keys(e, e->dev_blk, 1, BENCH_PRESENT, 0, e->n, 4096);
	bench_loop(&e->core_std, OP_ADD, MODE_BATCH, BENCH_PRESENT, 0, e->n);
	bench_loop(&e->core_blk, OP_ADD, MODE_BATCH, BENCH_PRESENT, 0, e->n);
	for (i = 0; i < e->n; i++) {
		struct bench_key k;

		bench_key(BENCH_PRESENT, i, &k);
		if ((ret = bpfb_add(e->bpf, &k)))
			die("BPF_MAP_UPDATE_ELEM", -ret);
	}
	fprintf(stderr, "bench-vm: filled 5 filters with %llu keys in %.1f s\n",
		(unsigned long long)e->n, (bench_now_ns() - t0) / 1e9);
}

static void emit(const struct env *e)
{
	uint32_t hashes = 0;
	uint64_t bits = 0;

	struct utsname u;

	dev_geometry(e->dev_std, &hashes, &bits);
	json_obj(stdout, NULL);
	if (!uname(&u))
		json_str(stdout, "guest_kernel", u.release);
	json_u64(stdout, "keys", e->n);
	json_num(stdout, "p", FPP_PPB / 1e9);
	json_u64(stdout, "hashes", hashes);
	json_u64(stdout, "bits", bits);
	json_u64(stdout, "calls_per_sample", e->calls);
	json_u64(stdout, "batched_keys_per_sample", e->batch_keys);
	json_obj(stdout, "fpr");
	json_u64(stdout, "standard_absent_keys", e->dev_absent);
	json_num(stdout, "standard", (double)e->dev_fp / (double)e->dev_absent);
	json_u64(stdout, "bpf_absent_keys", e->bpf_absent);
	json_num(stdout, "bpf", (double)e->bpf_fp / (double)e->bpf_absent);
	json_end(stdout);
	json_obj(stdout, "ns_per_key");
	for (size_t i = 0; i < NMEASURES; i++) {
		json_obj(stdout, measures[i].name);
		json_num(stdout, "median", bench_stat_median(&measures[i].ns));
		json_num(stdout, "min", bench_stat_min(&measures[i].ns));
		json_u64(stdout, "samples", measures[i].ns.n);
		json_u64(stdout, "keys_per_call", measures[i].batch);
		json_end(stdout);
	}
	json_end(stdout);
	json_end(stdout);
}

int main(int argc, char **argv)
{
	static const char usage[] =
		"bench-vm [--keys N] [--rounds R] [--calls N] [--batch-keys N]";
	struct env e = { .n = 1000000, .calls = 20000, .batch_keys = 262144 };
	uint32_t rounds = 5;
	const struct bench_opt opts[] = {
		{ "keys", BENCH_OPT_U64, &e.n },
		{ "rounds", BENCH_OPT_U32, &rounds },
		{ "calls", BENCH_OPT_U64, &e.calls },
		{ "batch-keys", BENCH_OPT_U64, &e.batch_keys },
	};

	if (bench_opts_parse(argc, argv, opts, BENCH_NOPTS(opts), usage,
			     NULL) != argc)
		bench_usage(usage);
	if (e.n < 1000 || e.n > 0xffffffffULL || !rounds ||
	    rounds > BENCH_MAX_SAMPLES || !e.calls || e.calls > e.n ||
	    e.batch_keys < MAX_BATCH || e.batch_keys > e.n) {
		fprintf(stderr, "bench-vm: need 1000 <= keys < 2^32, 1 <= rounds <= %d, 1 <= calls <= keys, %d <= batch-keys <= keys\n",
			BENCH_MAX_SAMPLES, MAX_BATCH);
		return 2;
	}
	setup(&e);
	for (e.round = 0; e.round < rounds; e.round++) {
		uint64_t t0 = bench_now_ns();

		/* Each round starts with a different measure: no fixed order. */
		for (size_t i = 0; i < NMEASURES; i++) {
			struct measure *m = &measures[(i + e.round * 7) % NMEASURES];

			bench_stat_add(&m->ns, sample(&e, m));
		}
		fprintf(stderr, "bench-vm: round %llu of %u: %.1f s\n",
			(unsigned long long)e.round + 1, rounds,
			(bench_now_ns() - t0) / 1e9);
	}
	emit(&e);
	dev_destroy(e.dev_std, "bench-std");
	dev_destroy(e.dev_std, "bench-blk");
	return 0;
}
