// SPDX-License-Identifier: GPL-2.0
/*
 * Expiring filters on the command line: --timeout and --generations of
 * create and calc, what they refuse, and calc --timeout, which shows what
 * a generation and the whole filter cost for each G (the core's own
 * sizing: module/core/expire.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bloomctl.h"
#include "core.h"
#include "expire.h"

/*
 * "90", "90s", "15m", "1h", "1.5h", "7d", "1y": seconds, or a number with
 * one of the suffixes s, m, h, d, y (365 days); whole milliseconds. 0 or
 * -1.
 */
uint64_t expire_period_ms(uint64_t timeout_ms, uint32_t generations)
{
	return (timeout_ms + generations - 2) / (generations - 1);
}

int parse_duration_ms(const char *s, uint64_t *ms)
{
	double v, unit = 1000;
	char *end;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -1;
	if (*end) {
		switch (*end) {
		case 's':
			break;
		case 'm':
			unit = 60e3;
			break;
		case 'h':
			unit = 3600e3;
			break;
		case 'd':
			unit = 86400e3;
			break;
		case 'y':
			unit = 365 * 86400e3;
			break;
		default:
			return -1;
		}
		if (end[1])
			return -1;
	}
	v *= unit;
	if (v > 1e18 || v != floor(v))
		return -1;
	*ms = (uint64_t)v;
	return 0;
}

int expire_opt(const char *verb, int c, const char *arg, struct expire_args *x)
{
	uint64_t v;

	switch (c) {
	case 'T':
		if (parse_duration_ms(arg, &x->timeout_ms) ||
		    x->timeout_ms < BLOOM_TIMEOUT_MS_MIN ||
		    x->timeout_ms > BLOOM_TIMEOUT_MS_MAX)
			die_usage(verb, "bad timeout '%s': give a duration from 1s to %llus (ipset's longest), e.g. 3600, 90s, 15m, 1h or 7d",
				  arg, BLOOM_TIMEOUT_MS_MAX / 1000);
		return 1;
	case 'G':
		if (parse_count(arg, &v) || v < BLOOM_GENERATIONS_MIN ||
		    v > BLOOM_GENERATIONS_MAX)
			die_usage(verb, "bad generation count '%s': give %d to %d (the default, %d, costs about 1.7 times a plain filter's memory at p = 0.01, 1.55 at 1e-4)",
				  arg, BLOOM_GENERATIONS_MIN,
				  BLOOM_GENERATIONS_MAX,
				  BLOOM_GENERATIONS_DEFAULT);
		x->generations = (uint32_t)v;
		return 1;
	}
	return 0;
}

void expire_check(const char *verb, const struct expire_args *x,
		  const struct size_args *a, enum bloom_type t, int scalable,
		  int geometry)
{
	if (!x->timeout_ms) {
		if (x->generations)
			die_usage(verb, "--generations goes with --timeout");
		return;
	}
	if (t && t != BLOOM_TYPE_STANDARD && t != BLOOM_TYPE_BLOCKED)
		die_usage(verb, "a %s filter cannot have a --timeout: keys expire by clearing whole generations, which only standard and blocked filters have (a %s filter deletes keys one by one: delete them when they expire)",
			  type_name(t), type_name(t));
	if (scalable)
		die_usage(verb, "a --scalable filter cannot have a --timeout: a filter with a --timeout does not grow, old keys make room by expiring; give --capacity the keys that come in one timeout");
	if (geometry || a->o.hashes)
		die_usage(verb, "a filter with a --timeout sizes its generations itself: --bits and --hashes do not apply");
	if (!a->o.capacity || a->o.fpp == 0 || a->o.bits_per_key != 0 ||
	    a->o.memory)
		die_usage(verb, "a filter with a --timeout is given by --capacity N (keys per timeout) and --fpp P (over all generations): --bits-per-key and --memory do not apply");
}

/* One row of calc --timeout. */
struct calc_gen {
	uint32_t g;
	struct bloom_geometry geo;
	uint64_t bytes;		/* all generations' tables */
	uint64_t plain_bytes;	/* one filter of the same capacity and rate */
};

static int calc_gen_row(enum bloom_type t, const struct size_args *a,
			const struct expire_args *x, uint32_t g,
			struct calc_gen *row)
{
	struct bloom_expire_params p = {
		.type = t, .generations = g, .capacity = a->o.capacity,
		.fpp_ppb = a->ppb, .timeout_ms = x->timeout_ms,
	};
	struct bloom_geometry plain;
	int err = bloom_expire_check(&p);

	if (err)
		return err;
	bloom_expire_gen_geometry(&p, &row->geo);
	row->g = g;
	row->bytes = bloom_core_storage_bytes(&row->geo) * g;
	row->plain_bytes = 0;
	if (!bloom_geometry_size(t, a->o.capacity, a->ppb, &plain))
		row->plain_bytes = bloom_core_storage_bytes(&plain);
	return 0;
}

static void print_gen_json(enum bloom_type t, const struct size_args *a,
			   const struct expire_args *x,
			   const struct calc_gen *r, int last)
{
	printf("  { \"type\": \"%s\", \"capacity\": %" PRIu64
	       ", \"fpp\": %.9g, \"timeout_ms\": %" PRIu64
	       ", \"generations\": %u, \"generation_capacity\": %" PRIu64
	       ", \"generation_fpp_ppb\": %u, \"generation_bits\": %" PRIu64
	       ", \"hashes\": %u, \"memory_bytes\": %" PRIu64
	       ", \"bits_per_key\": %.4f, \"plain_memory_bytes\": %" PRIu64
	       ", \"vs_plain\": %.4f, \"longest_life_ms\": %" PRIu64 " }%s\n",
	       type_name(t), a->o.capacity, a->ppb / 1e9, x->timeout_ms, r->g,
	       r->geo.capacity, r->geo.fpp_ppb, r->geo.bits, r->geo.hashes,
	       r->bytes, 8.0 * r->bytes / a->o.capacity, r->plain_bytes,
	       r->plain_bytes ? (double)r->bytes / r->plain_bytes : 0.0,
	       x->timeout_ms + (x->timeout_ms + r->g - 2) / (r->g - 1),
	       last ? "" : ",");
}

static void print_gen_text(const struct size_args *a,
			   const struct expire_args *x,
			   const struct calc_gen *r)
{
	char hb[32];

	human_bytes(r->bytes, hb, sizeof(hb));
	printf("%3u%s %12" PRIu64 " %11.4g %14" PRIu64 " %6u %11s %9.2f ",
	       r->g, r->g == (x->generations ? x->generations :
			      BLOOM_GENERATIONS_DEFAULT) ? "*" : " ",
	       r->geo.capacity, r->geo.fpp_ppb / 1e9, r->geo.bits,
	       r->geo.hashes, hb, 8.0 * r->bytes / a->o.capacity);
	if (r->plain_bytes)
		printf("%8.3f", (double)r->bytes / r->plain_bytes);
	else
		printf("%8s", "-");
	printf(" %9.3f\n", 1.0 + 1.0 / (r->g - 1));
}

int calc_expiring(enum bloom_type type, const struct size_args *a,
		  const struct expire_args *x, int json)
{
	static const enum bloom_type types[] = { BLOOM_TYPE_STANDARD,
						 BLOOM_TYPE_BLOCKED };
	uint32_t lo = x->generations ? x->generations : 3;
	uint32_t hi = x->generations ? x->generations : 9, g;
	struct calc_gen row;
	int i, k = 0, err;

	expire_check("calc", x, a, type, 0, 0);
	if (json)
		printf("[\n");
	for (i = 0; i < 2; i++) {
		if (type && types[i] != type)
			continue;
		if (!json && k++)
			printf("\n");
		if (!json)
			printf("%s filter, %" PRIu64 " keys per timeout of %.3f s at %.9g over all generations:\n"
			       "%4s %12s %11s %14s %6s %11s %9s %8s %9s\n",
			       type_name(types[i]), a->o.capacity,
			       x->timeout_ms / 1e3, a->ppb / 1e9, "G",
			       "GEN KEYS", "GEN FPP", "GEN BITS", "HASHES",
			       "MEMORY", "B/KEY", "X PLAIN", "LIFE/T");
		for (g = lo; g <= hi; g++) {
			err = calc_gen_row(types[i], a, x, g, &row);
			if (err == -E2BIG)
				die_usage("calc", "%u generations of a %s filter for these numbers would take more than %llu bits: ask for fewer keys or a higher rate",
					  g, type_name(types[i]),
					  BLOOM_BITS_MAX);
			if (err)
				die_usage("calc", "these numbers do not make an expiring %s filter of %u generations: each generation's rate, P / G, would be under 1 ppb",
					  type_name(types[i]), g);
			if (json)
				print_gen_json(types[i], a, x, &row,
					       g == hi && (type || i == 1));
			else
				print_gen_text(a, x, &row);
		}
	}
	if (json)
		printf("]\n");
	else
		printf("Each generation holds GEN KEYS (capacity / (G - 1)) at GEN FPP (fpp / G);\n"
		       "MEMORY is all G tables, B/KEY their bits per key of capacity, X PLAIN\n"
		       "compares them with one filter of the capacity and fpp without timeout.\n"
		       "A key lives from 1 to LIFE/T timeouts after its last add; a query\n"
		       "tests G generations. * marks the G create takes.\n");
	return EXIT_OK;
}
