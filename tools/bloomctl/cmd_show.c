// SPDX-License-Identifier: GPL-2.0
/* The verbs that only look: info, list, version. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include "bloomctl.h"

/* Options shared by the looking verbs: --json, -n, --help. */
static void look_opts(const char *verb, int argc, char **argv, int *json,
		      int *names_only)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "names-only", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, ":jnh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			*json = 1;
			break;
		case 'n':
			if (!names_only)
				die_getopt(verb, '?', argv);
			*names_only = 1;
			break;
		case 'h':
			print_help(stdout, verb);
			exit(EXIT_OK);
		default:
			die_getopt(verb, c, argv);
		}
	}
}

size_t get_stages(int fd, const struct bloom_info *in,
		  struct bloom_stage st[BLOOM_SCALE_STAGES_MAX])
{
	size_t n = 0;
	int err;

	if (!in->stages && !in->generations)
		return 0;
	err = bloom_stages(fd, in->name, st, BLOOM_SCALE_STAGES_MAX, &n);
	/* destroyed since its info was read (list): no stages to show */
	if (err == -ENOENT)
		return 0;
	if (err)
		die_op(BLOOM_OP_INFO, in->name, err);
	return n < BLOOM_SCALE_STAGES_MAX ? n : BLOOM_SCALE_STAGES_MAX;
}

/* The key kind, the netblock lengths and what an address lookup costs. */
static void print_keys_text(const struct bloom_info *in)
{
	uint64_t p4 = in->prefixes4, s4 = in->prefix_lengths4;
	char l4[512], l6[1024];

	prefix_list(l4, sizeof(l4), &s4, 32);
	prefix_list(l6, sizeof(l6), (const uint64_t *)in->prefix_lengths6, 128);
	if (l4[0] || l6[0])
		printf("prefix lengths:  %s%s%s%s%s (netblocks are stored at these only)\n",
		       l4[0] ? "ipv4 " : "", l4, l4[0] && l6[0] ? ", " : "",
		       l6[0] ? "ipv6 " : "", l6);
	prefix_list(l4, sizeof(l4), &p4, 32);
	prefix_list(l6, sizeof(l6), (const uint64_t *)in->prefixes6, 128);
	printf("keys:            %s\n", keys_kind_name(in->keys));
	if (l4[0])
		printf("ipv4 netblocks:  %s\n", l4);
	if (l6[0])
		printf("ipv6 netblocks:  %s\n", l6);
	if (in->address_lookups > 1 || in->keys == BLOOM_KEYS_IPV4 ||
	    in->keys == BLOOM_KEYS_IPV6)
		printf("address fpp:     %.6g (an address is tested %u time%s: itself and each netblock length; size for fpp / %u)\n",
		       in->address_fpp_ppb / 1e9, in->address_lookups,
		       in->address_lookups == 1 ? "" : "s",
		       in->address_lookups);
}

static void print_stages_text(const struct bloom_info *in,
			      const struct bloom_stage *st, size_t n)
{
	size_t i;

	printf("scalable:        %u stages (at most %d), growth %u, tightening %.6g\n",
	       in->stages, BLOOM_SCALE_STAGES_MAX, in->growth,
	       in->tightening_ppm / 1e6);
	printf("stages:          %5s %12s %12s %14s %6s %12s %10s\n", "STAGE",
	       "CAPACITY", "FPP", "BITS", "HASHES", "COUNT", "EST FPP");
	for (i = 0; i < n; i++)
		printf("                 %5zu %12" PRIu64 " %12.6g %14" PRIu64
		       " %6u %12" PRIu64 " %10.4g\n", i,
		       (uint64_t)st[i].capacity, st[i].fpp_ppb / 1e9,
		       (uint64_t)st[i].bits, st[i].hashes,
		       (uint64_t)st[i].count, st[i].estimated_fpp_ppb / 1e9);
}

const char *duration_text(uint64_t ms, char *buf, size_t len)
{
	static const struct { uint64_t ms; const char *unit; } u[] = {
		{ 86400000, "d" }, { 3600000, "h" }, { 60000, "min" },
		{ 1000, "s" },
	};
	size_t used = 0, i;

	buf[0] = 0;
	if (ms < 60000 && ms % 1000) {
		snprintf(buf, len, "%.3g s", ms / 1e3);
		return buf;
	}
	for (i = 0; i < 4 && used < len; i++) {
		if (ms < u[i].ms)
			continue;
		used += snprintf(buf + used, len - used, "%s%" PRIu64 " %s",
				 used ? " " : "", ms / u[i].ms, u[i].unit);
		ms %= u[i].ms;
	}
	if (!used)
		snprintf(buf, len, "%" PRIu64 " ms", ms);
	return buf;
}

/* An expiring filter: its timeout, the bound, and each generation. */
static void print_expire_text(const struct bloom_info *in,
			      const struct bloom_stage *st, size_t n)
{
	uint64_t period = expire_period_ms(in->timeout_ms, in->generations);
	uint64_t most = in->timeout_ms + period;
	char a[64], b[64];
	size_t i;

	printf("timeout:         %s (a key tests present for at least that long after its last add, and is gone %s after it at most while the rotations run on time: one a loaded machine runs late adds its delay)\n",
	       duration_text(in->timeout_ms, a, sizeof(a)),
	       duration_text(most, b, sizeof(b)));
	printf("next rotation:   in %.3f s (every %s the oldest of the %u generations is cleared and becomes the newest)\n",
	       in->next_rotation_ms / 1e3,
	       duration_text(period, a, sizeof(a)),
	       in->generations);
	printf("late rotations:  %" PRIu64 " (rotations that ran over a period / 100 late, on a loaded machine: each lengthens some keys' lives past the bound above by its delay)\n",
	       (uint64_t)in->late_rotations);
	printf("generations:     %3s %12s %12s %12s %12s %10s   (oldest first)\n",
	       "GEN", "AGE", "CAPACITY", "FPP", "COUNT", "EST FPP");
	for (i = 0; i < n; i++)
		printf("                 %3zu %12s %12" PRIu64 " %12.6g %12" PRIu64
		       " %10.4g%s\n", i, duration_text(st[i].age_ms, a, sizeof(a)),
		       (uint64_t)st[i].capacity, st[i].fpp_ppb / 1e9,
		       (uint64_t)st[i].count, st[i].estimated_fpp_ppb / 1e9,
		       st[i].count > st[i].capacity ? "  over its share" : "");
}

static void print_info_text(const struct bloom_info *in,
			    const struct bloom_stage *st, size_t nst)
{
	struct info_derived d;
	char hb[32];
	unsigned int i;

	info_derive(in, &d);
	printf("name:            %s\n", in->name);
	printf("id:              %u (BPF programs name the filter by it)\n",
	       in->id);
	printf("type:            %s\n", type_name(in->type));
	printf("hash:            %s\n", hash_name(in->hash));
	if (in->stages)
		printf("capacity:        %" PRIu64 " keys (its %u stage%s so far; stage 0: %" PRIu64 "; the filter grows)\n",
		       d.capacity, in->stages, in->stages == 1 ? "" : "s",
		       (uint64_t)in->capacity);
	else if (in->generations)
		printf("capacity:        %" PRIu64 " keys per timeout, taken evenly: %" PRIu64 " (capacity / (G - 1)) in each generation's period of %s; a burst of more in one period overfills that generation, and the rate is above the one asked for until it is cleared\n",
		       (uint64_t)in->capacity,
		       (uint64_t)(in->capacity + in->generations - 2) /
		       (in->generations - 1),
		       duration_text(expire_period_ms(in->timeout_ms,
						      in->generations),
				     hb, sizeof(hb)));
	else
		printf("capacity:        %" PRIu64 " keys\n", d.capacity);
	printf("fpp:             %.9g (%u ppb)%s\n", in->fpp_ppb / 1e9,
	       in->fpp_ppb, in->stages ? " over all stages" :
	       in->generations ? " over all generations" : "");
	printf("bits:            %" PRIu64 " (%.2f per key of capacity%s)\n",
	       (uint64_t)in->bits,
	       in->capacity ? (double)in->bits / in->capacity : 0.0,
	       in->type == BLOOM_TYPE_COUNTING ? "; each a 4-bit counter" :
	       type_has_cells(in->type) ? "; the cell table" : "");
	printf("hashes:          %u%s\n", in->hashes,
	       type_has_cells(in->type) ? " (subtables)" : "");
	printf("memory:          %" PRIu64 " bytes (%s, %.2f bits per key of capacity)\n",
	       (uint64_t)in->memory_bytes,
	       human_bytes(in->memory_bytes, hb, sizeof(hb)),
	       in->capacity ? 8.0 * in->memory_bytes / in->capacity : 0.0);
	printf("table:           %" PRIu64 " bytes (the bits, counters or cells; the rest is fixed overhead)\n",
	       info_table_bytes(in));
	printf("count:           %" PRIu64 " keys (keys that set a new bit, counter or cell)\n",
	       (uint64_t)in->count);
	printf("load:            %.1f%% of capacity (%.0f keys, %s)\n",
	       d.capacity ? 100.0 * d.keys / d.capacity : 0.0, d.keys,
	       d.keys_added ? "as added: every bit is set, so there is no estimate" :
			      "estimated");
	if (d.over_capacity && in->generations)
		printf("over capacity:   more than %" PRIu64 " keys came in one timeout, or a burst overfilled a generation's share (\"over its share\" below): the false-positive rate is above the one asked for (no key is lost; it comes down as the generations rotate); create the filter with a larger --capacity (for bursts: the burst x (G - 1))\n",
		       (uint64_t)in->capacity);
	else if (d.over_capacity)
		printf("over capacity:   %.0f keys in a filter sized for %" PRIu64 " (keys %s): the false-positive rate is above the one asked for; create a larger filter and add the keys again\n",
		       d.keys, (uint64_t)in->capacity,
		       d.keys_added ? "added" : "estimated");
	if (isfinite(d.est_keys))
		printf("estimated keys:  %.0f (distinct keys, from the %s in use)\n",
		       d.est_keys, type_has_cells(in->type) ? "cells" :
		       in->type == BLOOM_TYPE_COUNTING ? "counters" : "bits");
	else
		printf("estimated keys:  unknown (every bit is set)\n");
	printf("adds:            %" PRIu64 "\n", (uint64_t)in->adds);
	printf("queries:         %" PRIu64 " (%" PRIu64 " may be present)\n",
	       (uint64_t)in->queries, (uint64_t)in->hits);
	printf("rules:           %u (firewall rules using the filter)\n",
	       in->rules);
	if (in->xdp_holds) {
		char dev[IF_NAMESIZE];

		printf("xdp holds:       %u (XDP programs using the filter, the latest on %s)\n",
		       in->xdp_holds,
		       if_indextoname(in->xdp_ifindex, dev) ?: "an unknown device");
	}
	print_keys_text(in);
	printf("packets:         %" PRIu64 " (%" PRIu64 " may be present)\n",
	       (uint64_t)in->packets, (uint64_t)in->packet_hits);
	printf("bpf lookups:     %" PRIu64 " (%" PRIu64 " may be present)\n",
	       (uint64_t)in->bpf_calls, (uint64_t)in->bpf_hits);
	if (type_can_delete(in->type)) {
		printf("deletes:         %" PRIu64 "\n", (uint64_t)in->deletes);
		printf("delete misses:   %" PRIu64 " (keys to delete that were not found)\n",
		       (uint64_t)in->delete_misses);
		printf("delete pinned:   %" PRIu64 " (keys to delete that a saturated counter kept)\n",
		       (uint64_t)in->delete_pinned);
		printf("saturated:       %" PRIu64 " (%s, stuck there for good)\n",
		       (uint64_t)in->saturated,
		       in->type == BLOOM_TYPE_DLEFT ? "cells whose count is 3" :
						      "counters at 15");
	}
	if (in->type == BLOOM_TYPE_TIMED) {
		printf("key timeouts:    %us for keys added without one%s, at most %us\n",
		       in->key_timeout_s, in->key_timeout_s ? "" : " (none)",
		       in->key_timeout_max_s);
		printf("tag:             %u bits (compared by add and delete beside the fingerprint)\n",
		       in->tag_bits);
		printf("expired:         %" PRIu64 " (cells of expired keys reclaimed)\n",
		       (uint64_t)in->expired);
	}
	if (type_has_cells(in->type) && in->stages) {
		/* a timed filter that grows: its stages say the rest */
		printf("cells in use:    %" PRIu64 " (over all stages)\n",
		       (uint64_t)in->bits_set);
		printf("estimated fpp:   %.6g now (1 - product of (1 - stage's estimate) over the stages)\n",
		       d.est_fpp);
		print_stages_text(in, st, nst);
		return;
	}
	if (type_has_cells(in->type)) {
		printf("insert failures: %" PRIu64 " (keys refused: bucket full)\n",
		       (uint64_t)in->insert_failures);
		printf("fingerprint:     %u bits\n", in->fingerprint_bits);
		printf("subtable cells:  %" PRIu64 " in each of %u subtables\n",
		       (uint64_t)in->subtable_cells, in->subtables);
		printf("subtable load:  ");
		for (i = 0; i < in->subtables && i < 4; i++)
			printf(" %.2f%%", 100 * d.load[i]);
		putchar('\n');
		printf("cells in use:    %" PRIu64 " (fill ratio %.4f)\n",
		       (uint64_t)in->bits_set, d.fill);
		printf("estimated fpp:   %.6g now (cells compared x 2^-fingerprint bits)\n",
		       d.est_fpp);
		return;
	}
	printf("%s %" PRIu64 " (fill ratio %.4f)\n",
	       in->type == BLOOM_TYPE_COUNTING ? "counters in use:" :
						 "bits set:       ",
	       (uint64_t)in->bits_set, d.fill);
	if (in->stages) {
		printf("estimated fpp:   %.6g now (1 - product of (1 - stage's estimate) over the stages)\n",
		       d.est_fpp);
		print_stages_text(in, st, nst);
		return;
	}
	if (in->generations) {
		printf("estimated fpp:   %.6g now (1 - product of (1 - generation's estimate) over the generations)\n",
		       d.est_fpp);
		print_expire_text(in, st, nst);
		return;
	}
	printf("estimated fpp:   %.6g now (%s)\n", d.est_fpp,
	       in->type == BLOOM_TYPE_BLOCKED ?
	       "block-load model: Poisson keys per block" :
	       "fill ratio ^ hashes");
}

int cmd_info(const char *dev, int argc, char **argv)
{
	struct bloom_stage st[BLOOM_SCALE_STAGES_MAX];
	struct bloom_info in;
	int json = 0, fd, err;
	size_t nst;

	look_opts("info", argc, argv, &json, NULL);
	if (optind >= argc)
		die_usage("info", "info needs a filter name");
	if (optind + 1 < argc)
		die_usage("info", "unexpected argument '%s'", argv[optind + 1]);
	check_name("info", argv[optind]);
	fd = open_device(dev);
	err = bloom_info(fd, argv[optind], &in);
	if (err)
		die_op(BLOOM_OP_INFO, argv[optind], err);
	nst = get_stages(fd, &in, st);
	if (json) {
		print_info_json(stdout, &in, st, nst, "");
		putchar('\n');
	} else {
		print_info_text(&in, st, nst);
	}
	bloom_close(fd);
	return EXIT_OK;
}

int cmd_list(const char *dev, int argc, char **argv)
{
	char (*names)[BLOOM_NAME_LEN];
	int json = 0, names_only = 0, fd, err;
	size_t n, i, shown = 0;

	look_opts("list", argc, argv, &json, &names_only);
	if (optind < argc)
		die_usage("list", "unexpected argument '%s'", argv[optind]);
	if (json && names_only)
		die_usage("list", "give --json or --names-only, not both");
	fd = open_device(dev);
	err = bloom_list(fd, &names, &n);
	if (err)
		die_op(BLOOM_OP_LIST, NULL, err);
	if (json)
		fputs("[", stdout);
	else if (!names_only)
		printf("%-31s %-18s %-8s %12s %12s %12s\n", "NAME", "TYPE",
		       "KEYS", "CAPACITY", "COUNT", "MEMORY");
	for (i = 0; i < n; i++) {
		struct bloom_stage st[BLOOM_SCALE_STAGES_MAX];
		struct bloom_info in;
		struct info_derived d;
		char hb[32], type[32];

		if (names_only) {
			puts(names[i]);
			continue;
		}
		err = bloom_info(fd, names[i], &in);
		/* Destroyed since the list was taken: not there any more. */
		if (err == -ENOENT)
			continue;
		if (err)
			die_op(BLOOM_OP_INFO, names[i], err);
		if (json) {
			fputs(shown ? ",\n" : "\n", stdout);
			print_info_json(stdout, &in, st, get_stages(fd, &in, st),
					"  ");
		} else {
			/*
			 * As info says it: a scalable filter's stages so far,
			 * an expiring filter's keys per timeout
			 */
			info_derive(&in, &d);
			snprintf(type, sizeof(type), "%s%s", type_name(in.type),
				 in.stages ? " (scalable)" : "");
			printf("%-31s %-18s %-8s %12" PRIu64 " %12" PRIu64 " %12s\n",
			       in.name, type, keys_kind_name(in.keys),
			       in.generations ? (uint64_t)in.capacity :
						d.capacity, (uint64_t)in.count,
			       human_bytes(in.memory_bytes, hb, sizeof(hb)));
		}
		shown++;
	}
	if (json)
		fputs(shown ? "\n]\n" : "]\n", stdout);
	free(names);
	bloom_close(fd);
	return EXIT_OK;
}

static void print_flags(uint32_t v, const char *const *names, int n)
{
	int i, any = 0;

	for (i = 0; i < n; i++)
		if (v & (1U << i) && names[i]) {
			printf("%s%s", any ? " " : "", names[i]);
			any = 1;
		}
	puts(any ? "" : "(none)");
}

/* The names of the set bits as JSON strings, for scripts. */
static void json_names(uint32_t v, const char *const *names, int n)
{
	int i, any = 0;

	for (i = 0; i < n; i++)
		if (v & (1U << i) && names[i]) {
			printf("%s\"%s\"", any ? ", " : "", names[i]);
			any = 1;
		}
}

int cmd_version(const char *dev, int argc, char **argv)
{
	static const char *const types[] = BLOOM_TYPE_NAMES;
	/* BLOOM_CREATE_F_* by bit; NULL: a bit another release names */
	static const char *const cflags[] = { "bind", "hash-key", "geometry",
					      "scalable", "size", "like" };
	struct bloom_version v;
	int json = 0, fd, err;
	char hb[32];

	look_opts("version", argc, argv, &json, NULL);
	if (optind < argc)
		die_usage("version", "unexpected argument '%s'", argv[optind]);
	/* This program's own versions first: they need no module. */
	if (json)
		printf("{\n  \"bloomctl_version\": \"%s\",\n"
		       "  \"libbloom_version\": \"%s\",\n"
		       "  \"bloomctl_abi_version\": %d", BLOOMCTL_VERSION,
		       bloom_library_version(), BLOOM_ABI_VERSION);
	else
		printf("bloomctl:        %s (libbloom %s)\n"
		       "bloomctl ABI:    %d\n", BLOOMCTL_VERSION,
		       bloom_library_version(), BLOOM_ABI_VERSION);
	fd = bloom_open(dev);
	err = fd < 0 ? fd : bloom_version(fd, &v);
	if (err) {
		if (json)
			puts("\n}");
		die_op(fd < 0 ? BLOOM_OP_OPEN : BLOOM_OP_VERSION,
		       fd < 0 ? dev : NULL, err);
	}
	bloom_close(fd);
	if (json) {
		printf(",\n  \"abi_version\": %u,\n"
		       "  \"types\": %u,\n  \"type_names\": [",
		       v.abi_version, v.types);
		json_names(v.types, types, sizeof(types) / sizeof(types[0]));
		printf("],\n  \"create_flags\": %u,\n"
		       "  \"batch_flags\": %u,\n  \"key_max\": %u,\n"
		       "  \"batch_max_keys\": %u,\n  \"batch_max_bytes\": %" PRIu64 ",\n"
		       "  \"memory_limit\": %" PRIu64 ",\n  \"memory_used\": %" PRIu64 "\n}\n",
		       v.create_flags, v.batch_flags, v.key_max, v.batch_max_keys,
		       (uint64_t)v.batch_max_bytes, (uint64_t)v.memory_limit,
		       (uint64_t)v.memory_used);
		return EXIT_OK;
	}
	printf("module ABI:      %u\n", v.abi_version);
	printf("filter types:    ");
	print_flags(v.types, types, sizeof(types) / sizeof(types[0]));
	printf("create options:  ");
	print_flags(v.create_flags, cflags, sizeof(cflags) / sizeof(cflags[0]));
	printf("longest key:     %u bytes\n", v.key_max);
	printf("batch limits:    %u keys, %" PRIu64 " bytes per call\n",
	       v.batch_max_keys, (uint64_t)v.batch_max_bytes);
	printf("memory limit:    %" PRIu64 " bytes (%s)\n",
	       (uint64_t)v.memory_limit,
	       human_bytes(v.memory_limit, hb, sizeof(hb)));
	printf("memory used:     %" PRIu64 " bytes (%s)\n",
	       (uint64_t)v.memory_used,
	       human_bytes(v.memory_used, hb, sizeof(hb)));
	if (v.abi_version != BLOOM_ABI_VERSION)
		fprintf(stderr, "bloomctl: the module speaks ABI %u and this bloomctl ABI %d: some commands may fail; update the older one\n",
			v.abi_version, BLOOM_ABI_VERSION);
	return EXIT_OK;
}
