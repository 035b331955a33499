// SPDX-License-Identifier: GPL-2.0
/*
 * bench-xdp: the XDP part, run INSIDE the VM by xdp_bench.sh.
 *
 *   bench-xdp --count N --hashes K --rounds R --repeat M NAME...
 *
 * Loads xdp_bench.bpf.c, fills its BPF_MAP_TYPE_BLOOM_FILTER map (K
 * hashes) and its hash map with the N addresses 16.0.0.0 + i, and runs
 * every program with BPF_PROG_TEST_RUN, M runs at a time (one address
 * each), on present addresses (16.0.0.0 + i) and absent ones (32.0.0.0 +
 * i): xdp_pass, the kfunc on each bloom filter NAME (filled with the same
 * addresses by the script), by id and by a hold kept in a map
 * (NAME_by_hold; not with a bloom.ko without bpf_bloom_hold_lookup_addr(),
 * which says so on stderr), the kfunc refusing a size of 0 (the call
 * alone), finding no filter of the id and an empty hold's slot, the BPF
 * Bloom map and the hash map. Rounds interleave the variants. Prints JSON: per variant the kernel's ns per
 * run (median and min over rounds), the share of lookups that answered
 * present, and the memory (the filter's memory_bytes; for each map what
 * MemAvailable lost when it was created).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "json.h"
#include "opts.h"
#include "stats.h"
#include "xdp_bench.skel.h"

#define PRESENT_BASE	0x10000000u	/* 16.0.0.0 */
#define ABSENT_BASE	0x20000000u	/* 32.0.0.0 */
#define MAX_FILTERS	4
#define NO_FILTER	0x7fffffffu	/* an id no filter has */

struct variant {
	const char *name;
	struct bpf_program *prog;
	unsigned int filter_id;		/* kfunc variants */
	unsigned int slot;		/* by hold: the hold's slot */
	uint64_t memory;
	struct bench_stat ns[2];	/* present, absent */
	uint64_t hits[2], runs[2];
};

static void __attribute__((noreturn)) die(const char *what, int err)
{
	fprintf(stderr, "bench-xdp: %s: %s\n", what, strerror(err));
	exit(1);
}

static uint64_t read_u64(const char *path)
{
	unsigned long long v = 0;
	FILE *f = fopen(path, "r");

	if (!f || fscanf(f, "%llu", &v) != 1)
		die(path, errno ? errno : EINVAL);
	fclose(f);
	return v;
}

/* MemAvailable of /proc/meminfo, in bytes. */
static uint64_t mem_available(void)
{
	unsigned long long v = 0;
	char line[256];
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		die("/proc/meminfo", errno);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &v) == 1)
			break;
	fclose(f);
	return v * 1024;
}

/*
 * Creates @map's map now (it is reused at load), and returns the memory
 * that took: MemAvailable before and after. Linux 6.1's fdinfo memlock is
 * (key + value) x entries for every map type, not what a Bloom map or a
 * hash map allocates; both allocate all their memory at creation (the hash
 * map preallocates its elements).
 */
static uint64_t create_measured(struct bpf_map *map)
{
	LIBBPF_OPTS(bpf_map_create_opts, o,
		    .map_extra = bpf_map__map_extra(map),
		    .map_flags = bpf_map__map_flags(map));
	uint64_t before = mem_available(), after;
	int fd, err;

	fd = bpf_map_create(bpf_map__type(map), NULL, bpf_map__key_size(map),
			    bpf_map__value_size(map), bpf_map__max_entries(map),
			    &o);
	if (fd < 0)
		die("map create", errno);
	after = mem_available();
	err = bpf_map__reuse_fd(map, fd);
	if (err)
		die("map reuse", -err);
	close(fd);
	return before > after ? before - after : 0;
}

static void fill(struct xdp_bench *skel, unsigned int count)
{
	int bfd = bpf_map__fd(skel->maps.bpf_bloom);
	int hfd = bpf_map__fd(skel->maps.bpf_hash);
	enum { CHUNK = 4096 };
	static uint32_t keys[CHUNK];
	static uint8_t vals[CHUNK];
	unsigned int i, n, j;
	uint32_t a;

	for (i = 0; i < count; i++) {
		a = htonl(PRESENT_BASE + i);
		if (bpf_map_update_elem(bfd, NULL, &a, BPF_ANY))
			die("BPF Bloom map update", errno);
	}
	for (i = 0; i < count; i += n) {
		LIBBPF_OPTS(bpf_map_batch_opts, o);
		uint32_t c;

		n = count - i < CHUNK ? count - i : CHUNK;
		for (j = 0; j < n; j++)
			keys[j] = htonl(PRESENT_BASE + i + j);
		c = n;
		if (bpf_map_update_batch(hfd, keys, vals, &c, &o))
			die("hash map update", errno);
	}
}

static void run(struct xdp_bench *skel, struct variant *v, int absent,
		unsigned int repeat)
{
	unsigned char frame[64] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, t, .data_in = frame,
		    .data_size_in = sizeof(frame), .repeat = repeat);

	skel->bss->base = absent ? ABSENT_BASE : PRESENT_BASE;
	skel->bss->filter_id = v->filter_id;
	skel->bss->hold_slot = v->slot;
	skel->bss->hits = 0;
	if (bpf_prog_test_run_opts(bpf_program__fd(v->prog), &t))
		die("test run", errno);
	bench_stat_add(&v->ns[absent], t.duration);
	v->hits[absent] += skel->bss->hits;
	v->runs[absent] += repeat;
}

/* Keeps a hold of filter @id in @slot of the holds' map; 0: lets it go. */
static void hold(struct xdp_bench *skel, unsigned int slot, unsigned int id)
{
	unsigned char frame[64] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, t, .data_in = frame,
		    .data_size_in = sizeof(frame), .repeat = 1);

	skel->bss->filter_id = id;
	skel->bss->hold_slot = slot;
	if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.xdp_hold_take),
				   &t))
		die("hold run", errno);
	if (t.retval != XDP_PASS)
		die("hold", ENOENT);
}

/*
 * The programs, loaded with their maps (@count addresses, @hashes for the
 * BPF Bloom map's), whose memory goes to *@bloom_bytes and *@hash_bytes;
 * without the kfunc by hold when @by_hold is false. NULL when they do not
 * load.
 */
static struct xdp_bench *load(unsigned int count, unsigned int hashes,
			      bool by_hold, uint64_t *bloom_bytes,
			      uint64_t *hash_bytes)
{
	struct xdp_bench *skel = xdp_bench__open();
	libbpf_print_fn_t was;
	int err;

	if (!skel)
		die("open", errno);
	skel->rodata->count = count;
	bpf_map__set_max_entries(skel->maps.bpf_bloom, count);
	bpf_map__set_map_extra(skel->maps.bpf_bloom, hashes);
	bpf_map__set_max_entries(skel->maps.bpf_hash, count);
	bpf_program__set_autoload(skel->progs.xdp_kfunc_hold, by_hold);
	*bloom_bytes = create_measured(skel->maps.bpf_bloom);
	*hash_bytes = create_measured(skel->maps.bpf_hash);
	/* an older bloom.ko's refusal is said below, in one line */
	was = by_hold ? libbpf_set_print(NULL) : NULL;
	err = xdp_bench__load(skel);
	if (by_hold)
		libbpf_set_print(was);
	if (!err)
		return skel;
	xdp_bench__destroy(skel);
	if (by_hold)
		return NULL;
	die("load", -err);
}

int main(int argc, char **argv)
{
	static const char usage[] =
		"bench-xdp [--count N] [--hashes K] [--rounds R (<= " BENCH_STR(BENCH_MAX_SAMPLES) ")] [--repeat N] [FILTER]...";
	static char by_hold_names[MAX_FILTERS][64];
	uint32_t count = 1000000, hashes = 7, rounds = 5, repeat = 200000;
	const struct bench_opt opts[] = {
		{ "count", BENCH_OPT_U32, &count },
		{ "hashes", BENCH_OPT_U32, &hashes },
		{ "rounds", BENCH_OPT_U32, &rounds },
		{ "repeat", BENCH_OPT_U32, &repeat },
	};
	struct variant v[6 + 2 * MAX_FILTERS];
	struct xdp_bench *skel;
	unsigned int nv = 0, r, i, nf;
	uint64_t bloom_bytes, hash_bytes;
	char path[128];
	bool by_hold = true;
	int first, s;

	first = bench_opts_parse(argc, argv, opts, BENCH_NOPTS(opts), usage,
				 NULL);
	nf = argc - first;
	if (nf > MAX_FILTERS || rounds > BENCH_MAX_SAMPLES || !count)
		bench_usage(usage);
	skel = load(count, hashes, true, &bloom_bytes, &hash_bytes);
	if (!skel) {
		fprintf(stderr, "bench-xdp: this bloom.ko has no bpf_bloom_hold_lookup_addr(): no rows by hold\n");
		by_hold = false;
		skel = load(count, hashes, false, &bloom_bytes, &hash_bytes);
	}
	fill(skel, count);

	memset(v, 0, sizeof(v));
	v[nv].name = "xdp_pass";
	v[nv++].prog = skel->progs.xdp_pass;
	for (i = 0; i < nf; i++) {
		v[nv].name = argv[first + i];
		v[nv].prog = skel->progs.xdp_kfunc;
		snprintf(path, sizeof(path), "/sys/class/misc/bloom/filters/%s/id",
			 v[nv].name);
		v[nv].filter_id = read_u64(path);
		snprintf(path, sizeof(path),
			 "/sys/class/misc/bloom/filters/%s/memory_bytes", v[nv].name);
		v[nv++].memory = read_u64(path);
	}
	/* the same filters by hold, slot i holding filter i */
	for (i = 0; by_hold && i < nf; i++) {
		snprintf(by_hold_names[i], sizeof(by_hold_names[i]),
			 "%s_by_hold", v[1 + i].name);
		hold(skel, i, v[1 + i].filter_id);
		v[nv] = v[1 + i];
		v[nv].name = by_hold_names[i];
		v[nv].prog = skel->progs.xdp_kfunc_hold;
		v[nv++].slot = i;
	}
	/* the kfunc's fixed costs: the call alone (-EINVAL), a call that
	 * finds no filter (-ENOENT), and one through an empty slot */
	v[nv].name = "kfunc_call_only";
	v[nv++].prog = skel->progs.xdp_kfunc_call;
	v[nv].name = "kfunc_no_filter";
	v[nv].prog = skel->progs.xdp_kfunc;
	v[nv++].filter_id = NO_FILTER;
	if (by_hold) {
		v[nv].name = "hold_empty_slot";
		v[nv].prog = skel->progs.xdp_kfunc_hold;
		v[nv].filter_id = NO_FILTER;
		v[nv++].slot = MAX_FILTERS;
	}
	v[nv].name = "bpf_bloom_map";
	v[nv].prog = skel->progs.xdp_bloom_map;
	v[nv++].memory = bloom_bytes;
	v[nv].name = "bpf_hash_map";
	v[nv].prog = skel->progs.xdp_hash_map;
	v[nv++].memory = hash_bytes;

	for (r = 0; r < rounds; r++)
		for (i = 0; i < nv; i++)
			for (s = 0; s < 2; s++)
				run(skel, &v[i], s, repeat);

	/* now, not when the map goes: the script destroys the filters next */
	for (i = 0; by_hold && i < nf; i++)
		hold(skel, i, 0);
	json_obj(stdout, NULL);
	json_u64(stdout, "count", count);
	json_u64(stdout, "bpf_map_hashes", hashes);
	json_u64(stdout, "rounds", rounds);
	json_u64(stdout, "repeat", repeat);
	json_arr(stdout, "variants");
	for (i = 0; i < nv; i++) {
		json_obj(stdout, NULL);
		json_str(stdout, "name", v[i].name);
		json_bool(stdout, "kfunc", v[i].filter_id != 0 &&
			  v[i].filter_id != NO_FILTER);
		json_u64(stdout, "memory_bytes", v[i].memory);
		for (s = 0; s < 2; s++) {
			json_obj(stdout, s ? "absent" : "present");
			json_num(stdout, "ns_median", bench_stat_median(&v[i].ns[s]));
			json_num(stdout, "ns_min", bench_stat_min(&v[i].ns[s]));
			json_num(stdout, "hit_rate", v[i].runs[s] ?
				 (double)v[i].hits[s] / v[i].runs[s] : 0);
			json_end(stdout);
		}
		json_end(stdout);
	}
	json_end(stdout);
	json_end(stdout);
	putchar('\n');
	xdp_bench__destroy(skel);
	return 0;
}
