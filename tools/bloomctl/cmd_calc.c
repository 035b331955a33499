// SPDX-License-Identifier: GPL-2.0
/*
 * Sizing from the command line: the options create and calc share, the
 * messages for numbers that do not make a filter, and the calc verb, which
 * needs no module (bloom_size(): the core's sizing code, the kernel's own).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "bloomctl.h"
#include "prefix.h"
#include "core.h"
#include "expire.h"
#include "scale.h"
#include "netblock.h"

/* calc --netblock-lengths: an IPv6 filter may hold lengths 0..127 */
#define NB_LENGTHS_MAX	128

/* Handles one of the sizing options; 1 if @c was one, 0 if not. */
int size_opt(const char *verb, int c, const char *arg, struct size_args *a)
{
	uint64_t v;

	switch (c) {
	case 'c':
		if (parse_count(arg, &a->o.capacity) || !a->o.capacity ||
		    a->o.capacity > BLOOM_CAPACITY_MAX)
			die_usage(verb, "bad capacity '%s': give a number of keys from 1 to %llu, e.g. 1M (a million; suffixes k, M, G, T, or Ki, Mi, Gi, Ti for powers of 1024)",
				  arg, BLOOM_CAPACITY_MAX);
		return 1;
	case 'p':
		if (parse_fpp(arg, &a->o.fpp) ||
		    bloom_fpp_to_ppb(a->o.fpp, &a->ppb))
			die_usage(verb, "bad false-positive rate '%s': give a probability from " BLOOM_FPP_RANGE_STR ", e.g. 0.01 or 1e-3, or a percentage, e.g. 1%%",
				  arg);
		/* The module counts in parts per billion. */
		if (fabs(a->ppb / 1e9 - a->o.fpp) > 1e-12 * a->o.fpp)
			fprintf(stderr, "bloomctl: false-positive rate %s is used as %.9g (the module counts rates in whole parts per billion, rounded down)\n",
				arg, a->ppb / 1e9);
		return 1;
	case 'b': {
		char *end;

		errno = 0;
		a->o.bits_per_key = strtod(arg, &end);
		if (errno || end == arg || *end ||
		    !(a->o.bits_per_key >= 0.001 && a->o.bits_per_key <= 4e6))
			die_usage(verb, "bad bits per key '%s': give a number from 0.001 to 4000000, e.g. 10 or 9.6",
				  arg);
		return 1;
	}
	case 'M':
		if (parse_count(arg, &a->o.memory) || !a->o.memory)
			die_usage(verb, "bad memory size '%s': give bytes, e.g. 256Mi (268435456) or 1G (10^9); suffixes k, M, G, T are powers of 1000, Ki, Mi, Gi, Ti powers of 1024",
				  arg);
		return 1;
	case 'k':
		if (parse_count(arg, &v) || !v || v > BLOOM_HASHES_MAX)
			die_usage(verb, "bad hash count '%s': give 1 to %d",
				  arg, BLOOM_HASHES_MAX);
		a->o.hashes = (uint32_t)v;
		return 1;
	}
	return 0;
}

int scale_opt(const char *verb, int c, const char *arg, struct scale_args *s)
{
	uint64_t v;
	char *end;

	switch (c) {
	case 'S':
		s->scalable = 1;
		return 1;
	case 'g':
		if (parse_count(arg, &v) || v < BLOOM_GROWTH_MIN ||
		    v > BLOOM_GROWTH_MAX)
			die_usage(verb, "bad growth '%s': give a whole number from %d to %d (each stage that many times the last)",
				  arg, BLOOM_GROWTH_MIN, BLOOM_GROWTH_MAX);
		s->growth = (uint32_t)v;
		return 1;
	case 'r':
		errno = 0;
		s->tightening = strtod(arg, &end);
		if (errno || end == arg || *end ||
		    !(s->tightening >= BLOOM_TIGHTENING_PPM_MIN / 1e6 &&
		      s->tightening <= BLOOM_TIGHTENING_PPM_MAX / 1e6))
			die_usage(verb, "bad tightening '%s': give a ratio from %.2f to %.2f (each stage's rate that times the last's)",
				  arg, BLOOM_TIGHTENING_PPM_MIN / 1e6,
				  BLOOM_TIGHTENING_PPM_MAX / 1e6);
		return 1;
	}
	return 0;
}

void scale_check(const char *verb, const struct scale_args *s,
		 const struct size_args *a, enum bloom_type t, int geometry)
{
	if (!s->scalable) {
		if (s->growth || s->tightening != 0)
			die_usage(verb, "--growth and --tightening go with --scalable");
		return;
	}
	if (t && t != BLOOM_TYPE_STANDARD && t != BLOOM_TYPE_BLOCKED &&
	    t != BLOOM_TYPE_TIMED)
		die_usage(verb, "a %s filter cannot be --scalable: only standard, blocked and timed (--key-timeouts) filters grow by stages (create a counting or dleft filter with its real capacity instead)",
			  type_name(t));
	if (geometry || a->o.hashes)
		die_usage(verb, "a --scalable filter sizes its stages itself: --bits and --hashes do not apply");
	if (!a->o.capacity || a->o.fpp == 0 || a->o.bits_per_key != 0 ||
	    a->o.memory)
		die_usage(verb, "a --scalable filter is given by --capacity N (its first stage's) and --fpp P (over all stages): --bits-per-key and --memory do not apply");
}

uint32_t scale_growth(const struct scale_args *s, enum bloom_type t)
{
	if (s->growth)
		return s->growth;
	return t == BLOOM_TYPE_TIMED ? BLOOM_TIMED_GROWTH_DEFAULT :
				       BLOOM_GROWTH_DEFAULT;
}

int size_given(const struct size_args *a)
{
	return !!a->o.capacity + (a->o.fpp != 0) + (a->o.bits_per_key != 0) +
	       !!a->o.memory;
}

/* bloom_size() with one type and other numbers: 0 or -errno. */
static int size_with(enum bloom_type t, uint64_t n, double p, double c,
		     uint64_t mem, struct bloom_size_result *r)
{
	BLOOM_OPTS(bloom_size_opts, o, .type = t, .capacity = n, .fpp = p,
		   .bits_per_key = c, .memory = mem);

	r->sz = sizeof(*r);
	return bloom_size(&o, r);
}

static int __attribute__((format(printf, 3, 4)))
size_fail(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * Sizes @a for type @t: 0, or -1 with a sentence in @msg that says what is
 * wrong and which numbers would fit instead.
 */
static int size_explain(const struct size_args *a, enum bloom_type t,
			struct bloom_size_result *r, char *msg, size_t len)
{
	struct bloom_size_opts o = a->o;
	struct bloom_size_result alt = { .sz = sizeof(alt) };
	const char *tn = type_name(t);
	char hb[32];
	int err;

	o.type = t;
	if (size_given(a) != 2)
		return size_fail(msg, len, "give two of --capacity, --fpp, --bits-per-key and --memory (%d given): e.g. --capacity 1M --fpp 0.01",
			  size_given(a));
	if (a->o.fpp != 0 && a->o.bits_per_key != 0) {
		if (!size_with(t, 1000000, a->o.fpp, 0, 0, &alt))
			return size_fail(msg, len, "--fpp and --bits-per-key say the same thing twice: a %s filter at %g takes %.2f bits per key; give --capacity or --memory with one of them",
				  tn, a->o.fpp, alt.bits_per_key);
		return size_fail(msg, len, "--fpp and --bits-per-key say the same thing twice: give --capacity or --memory with one of them");
	}
	if (o.hashes && t != BLOOM_TYPE_STANDARD && t != BLOOM_TYPE_COUNTING)
		return size_fail(msg, len, "--hashes fixes k of a standard or counting filter; a %s filter chooses its own",
			  tn);
	err = bloom_size(&o, r);
	if (!err)
		return 0;
	if (err == -E2BIG)
		return size_fail(msg, len, "a %s filter for these numbers would take more than %llu bits, the most a filter can have: ask for fewer keys or a higher rate",
			  tn, BLOOM_BITS_MAX);
	if (err != -ERANGE)
		return size_fail(msg, len, "these numbers do not make a %s filter (%s)", tn,
			  strerror(-err));
	if (a->o.memory && a->o.fpp != 0) {
		if (!size_with(t, 1, a->o.fpp, 0, 0, &alt)) {
			human_bytes(alt.memory_bytes, hb, sizeof(hb));
			return size_fail(msg, len, "--memory %" PRIu64 " cannot hold even one key of a %s filter at %g: that takes %" PRIu64 " bytes (%s)",
				  a->o.memory, tn, a->o.fpp, alt.memory_bytes, hb);
		}
	} else if (a->o.capacity) {
		/* capacity with memory or bits per key: too small */
		if (!size_with(t, a->o.capacity, 0.5, 0, 0, &alt)) {
			struct bloom_size_result fit;
			uint64_t mem = a->o.memory ? a->o.memory :
				(uint64_t)(a->o.capacity * a->o.bits_per_key /
					   (t == BLOOM_TYPE_COUNTING ? 2 : 8));

			char need[160], most[64] = "";

			/* the remedy in the unit the user gave */
			human_bytes(alt.memory_bytes, hb, sizeof(hb));
			if (a->o.memory)
				snprintf(need, sizeof(need), "--memory %" PRIu64 " or more (%s, %.2f bits of memory per key)",
					 alt.memory_bytes, hb,
					 8.0 * alt.memory_bytes / a->o.capacity);
			else
				snprintf(need, sizeof(need), "--bits-per-key %.2f or more (a table of %" PRIu64 " bytes, %s)",
					 alt.bits_per_key, alt.memory_bytes, hb);
			if (mem && !size_with(t, 0, 0.5, 0, mem, &fit))
				snprintf(most, sizeof(most), "at most %" PRIu64 " keys fit; ",
					 fit.capacity);
			return size_fail(msg, len, "%" PRIu64 " keys do not fit at any rate up to 0.5 in a %s filter of that size: %sgive %s",
					 a->o.capacity, tn, most, need);
		}
	}
	return size_fail(msg, len, "these numbers do not make a %s filter: the rate would be over 0.5 or not one key would fit",
		  tn);
}


int size_capped(const struct size_args *a, const struct bloom_size_result *r)
{
	return a->o.memory && !a->o.capacity &&
	       r->capacity == BLOOM_CAPACITY_MAX &&
	       r->memory_bytes < a->o.memory;
}

void size_or_die(const char *verb, const struct size_args *a, enum bloom_type t,
		 struct bloom_size_result *r)
{
	char msg[512], hb[32];

	if (size_explain(a, t, r, msg, sizeof(msg)))
		die_usage(verb, "%s", msg);
	/* calc says it in its table */
	if (strcmp(verb, "calc") && size_capped(a, r))
		fprintf(stderr, "bloomctl: note: --memory %" PRIu64 " holds more keys than a filter may have (%llu): the capacity is capped there, and the %s filter's table takes %s, less than --memory\n",
			a->o.memory, BLOOM_CAPACITY_MAX, type_name(t),
			human_bytes(r->memory_bytes, hb, sizeof(hb)));
}

static double theory_bpk(uint32_t ppb)
{
	return -log2(ppb / 1e9) / log(2);
}

static void print_json(const struct size_args *a,
		       const struct bloom_size_result *r, uint32_t lookups,
		       const char *ind, int last)
{
	double th = theory_bpk(r->fpp_ppb);

	printf("%s{\n", ind);
	printf("%s  \"type\": \"%s\",\n", ind, type_name(r->type));
	printf("%s  \"capacity\": %" PRIu64 ",\n", ind, r->capacity);
	printf("%s  \"fpp\": %.9g,\n", ind, r->fpp_ppb / 1e9);
	printf("%s  \"fpp_ppb\": %u,\n", ind, r->fpp_ppb);
	printf("%s  \"bits\": %" PRIu64 ",\n", ind, r->bits);
	printf("%s  \"hashes\": %u,\n", ind, r->hashes);
	if (r->type == BLOOM_TYPE_DLEFT || r->type == BLOOM_TYPE_TIMED)
		printf("%s  \"fingerprint_bits\": %u,\n", ind,
		       r->fingerprint_bits);
	printf("%s  \"memory_bytes\": %" PRIu64 ",\n", ind, r->memory_bytes);
	printf("%s  \"bits_per_key\": %.4f,\n", ind, r->bits_per_key);
	printf("%s  \"memory_bits_per_key\": %.4f,\n", ind,
	       8.0 * r->memory_bytes / r->capacity);
	printf("%s  \"theory_bits_per_key\": %.4f,\n", ind, th);
	printf("%s  \"ratio_to_theory\": %.4f,\n", ind,
	       8.0 * r->memory_bytes / r->capacity / th);
	printf("%s  \"expected_fpp\": %.6g,\n", ind, r->expected_fpp);
	if (lookups) {
		printf("%s  \"address_lookups\": %u,\n", ind, lookups);
		printf("%s  \"address_fpp\": %.9g,\n", ind,
		       bloom_nb_rate(r->fpp_ppb, lookups) / 1e9);
		printf("%s  \"address_sizing_fpp\": %.9g,\n", ind,
		       r->fpp_ppb / 1e9 / lookups);
	}
	printf("%s  \"capacity_capped\": %s\n", ind,
	       size_capped(a, r) ? "true" : "false");
	printf("%s}%s\n", ind, last ? "" : ",");
}

/*
 * One scalable filter's stages for calc: what each costs and what the
 * chain costs against one filter of the type sized for as many keys, for
 * every stage growth can reach (the core's stage math and sizing, the
 * module's). 0, or -1 with the reason in @msg.
 */
struct calc_stage {
	uint64_t capacity, total, bits, bytes, total_bytes, optimal_bytes;
	uint32_t fpp_ppb, hashes;
};

static int scale_stages(enum bloom_type t, const struct size_args *a,
			const struct scale_args *s, struct calc_stage *st,
			uint32_t *n, const char **end, char *msg, size_t len)
{
	struct bloom_scale_params p = {
		.type = t, .capacity = a->o.capacity, .fpp_ppb = a->ppb,
		.growth = scale_growth(s, t),
		.tightening_ppm = s->tightening != 0 ?
			(uint32_t)lround(s->tightening * 1e6) :
			BLOOM_TIGHTENING_PPM_DEFAULT,
	};
	struct bloom_geometry g, opt;
	uint64_t total = 0, bytes = 0;
	uint32_t i;
	int err = bloom_scale_check(&p);

	if (err == -E2BIG)
		return size_fail(msg, len, "the first stage of a scalable %s filter for these numbers would take more than %llu bits: ask for fewer keys or a higher rate",
				 type_name(t), BLOOM_BITS_MAX);
	if (err) {
		struct bloom_scale_params q = p;

		/* the smallest rate that gives stage 0 at least 1 ppb */
		for (q.fpp_ppb = p.fpp_ppb + 1;
		     q.fpp_ppb <= BLOOM_FPP_PPB_MAX && bloom_scale_check(&q);
		     q.fpp_ppb++)
			;
		if (q.fpp_ppb <= BLOOM_FPP_PPB_MAX && p.fpp_ppb < q.fpp_ppb)
			return size_fail(msg, len, "these numbers do not make a scalable %s filter: its first stage's rate, P x (1 - R) = %.3g x %.3g, would be under 1 ppb; give --fpp %.9g or more (or a smaller --tightening)",
					 type_name(t), p.fpp_ppb / 1e9,
					 1 - p.tightening_ppm / 1e6,
					 q.fpp_ppb / 1e9);
		return size_fail(msg, len, "these numbers do not make a scalable %s filter: its first stage's rate, P x (1 - R), would be under 1 ppb",
				 type_name(t));
	}
	for (i = 0; i < BLOOM_SCALE_STAGES_MAX; i++) {
		err = bloom_scale_stage_geometry(&p, i, &g);
		if (err)
			break;
		total += g.capacity;
		bytes += bloom_core_storage_bytes(&g);
		st[i].capacity = g.capacity;
		st[i].total = total;
		st[i].fpp_ppb = g.fpp_ppb;
		st[i].bits = g.bits;
		st[i].hashes = g.hashes;
		st[i].bytes = bloom_core_storage_bytes(&g);
		st[i].total_bytes = bytes;
		st[i].optimal_bytes = 0;
		if (total <= BLOOM_CAPACITY_MAX &&
		    !bloom_geometry_size(t, total, a->ppb, &opt))
			st[i].optimal_bytes = bloom_core_storage_bytes(&opt);
	}
	*n = i;
	/* why growth ends there: the module's ENOSPC */
	*end = i == BLOOM_SCALE_STAGES_MAX ? "the most stages a filter has" :
	       bloom_scale_stage_params(&p, i, &g.capacity, &g.fpp_ppb) ?
	       (g.capacity = p.capacity, "the next stage would hold over 2^32 - 1 keys or have a rate under 1 ppb") :
	       "the next stage would be over 2^40 bits";
	return 0;
}

static void print_scale_json(enum bloom_type t, const struct size_args *a,
			     const struct scale_args *s,
			     const struct calc_stage *st, uint32_t n,
			     const char *ind, int last)
{
	uint32_t i;

	printf("%s{\n", ind);
	printf("%s  \"type\": \"%s\",\n", ind, type_name(t));
	printf("%s  \"scalable\": true,\n", ind);
	printf("%s  \"capacity\": %" PRIu64 ",\n", ind, a->o.capacity);
	printf("%s  \"fpp\": %.9g,\n", ind, a->ppb / 1e9);
	printf("%s  \"fpp_ppb\": %u,\n", ind, a->ppb);
	printf("%s  \"growth\": %u,\n", ind,
	       scale_growth(s, t));
	printf("%s  \"tightening\": %.6g,\n", ind,
	       s->tightening != 0 ? s->tightening :
	       BLOOM_TIGHTENING_PPM_DEFAULT / 1e6);
	printf("%s  \"stage_count\": %u,\n", ind, n);
	printf("%s  \"stages\": [", ind);
	for (i = 0; i < n; i++)
		printf("%s\n%s    { \"capacity\": %" PRIu64
		       ", \"total_capacity\": %" PRIu64
		       ", \"fpp\": %.9g, \"fpp_ppb\": %u, \"bits\": %" PRIu64
		       ", \"hashes\": %u, \"memory_bytes\": %" PRIu64
		       ", \"total_memory_bytes\": %" PRIu64
		       ", \"bits_per_key\": %.4f, \"optimal_memory_bytes\": %" PRIu64
		       ", \"vs_optimal\": %.4f }",
		       i ? "," : "", ind, st[i].capacity, st[i].total,
		       st[i].fpp_ppb / 1e9, st[i].fpp_ppb, st[i].bits,
		       st[i].hashes, st[i].bytes, st[i].total_bytes,
		       8.0 * st[i].total_bytes / st[i].total,
		       st[i].optimal_bytes,
		       st[i].optimal_bytes ?
		       (double)st[i].total_bytes / st[i].optimal_bytes : 0.0);
	printf("\n%s  ]\n%s}%s\n", ind, ind, last ? "" : ",");
}

static void print_scale_text(enum bloom_type t, const struct size_args *a,
			     const struct scale_args *s,
			     const struct calc_stage *st, uint32_t n,
			     const char *end)
{
	struct table tb;
	uint32_t i;
	char hb[32];

	printf("scalable %s filter: stage 0 holds %" PRIu64 " keys, each stage %u times the last at %.6g times its rate;\n"
	       "the rate over all stages stays under %.9g. %u stage%s at most (then %s).\n",
	       type_name(t), a->o.capacity,
	       scale_growth(s, t),
	       s->tightening != 0 ? s->tightening :
	       BLOOM_TIGHTENING_PPM_DEFAULT / 1e6, a->ppb / 1e9, n,
	       n == 1 ? "" : "s", end);
	table_init(&tb, 10, 0);
	table_cell(&tb, "STAGE");
	table_cell(&tb, "CAPACITY");
	table_cell(&tb, "TOTAL KEYS");
	table_cell(&tb, "FPP");
	table_cell(&tb, "BITS");
	table_cell(&tb, "HASHES");
	table_cell(&tb, "MEMORY");
	table_cell(&tb, "TOTAL MEM");
	table_cell(&tb, "B/KEY");
	table_cell(&tb, "X ONE");
	for (i = 0; i < n; i++) {
		table_cell(&tb, "%u", i);
		table_cell(&tb, "%" PRIu64, st[i].capacity);
		table_cell(&tb, "%" PRIu64, st[i].total);
		table_cell(&tb, "%.4g", st[i].fpp_ppb / 1e9);
		table_cell(&tb, "%" PRIu64, st[i].bits);
		table_cell(&tb, "%u", st[i].hashes);
		table_cell(&tb, "%s", human_bytes(st[i].bytes, hb, sizeof(hb)));
		table_cell(&tb, "%s",
			   human_bytes(st[i].total_bytes, hb, sizeof(hb)));
		table_cell(&tb, "%.2f", 8.0 * st[i].total_bytes / st[i].total);
		if (st[i].optimal_bytes)
			table_cell(&tb, "%.3f", (double)st[i].total_bytes /
				   st[i].optimal_bytes);
		else
			table_cell(&tb, "-");
	}
	table_print(&tb, "");
	printf("TOTAL MEM is the tables of stages 0..i, full at TOTAL KEYS; B/KEY its bits\n"
	       "per key; X ONE compares it with one %s filter sized for TOTAL KEYS at\n"
	       "the same rate.\n", type_name(t));
}

/* calc --scalable: standard and blocked (one with --type). */
static int calc_scalable(enum bloom_type type, const struct size_args *a,
			 const struct scale_args *s, int json)
{
	/* without --type the two types that grow by default; timed asked for */
	static const enum bloom_type types[] = { BLOOM_TYPE_STANDARD,
						 BLOOM_TYPE_BLOCKED,
						 BLOOM_TYPE_TIMED };
	static struct calc_stage st[3][BLOOM_SCALE_STAGES_MAX];
	const char *end[3];
	uint32_t n[3];
	char msg[512];
	int i, k = 0, last = type ? 2 : 1;

	scale_check("calc", s, a, type, 0);
	for (i = 0; i <= last; i++) {
		if (type && types[i] != type)
			continue;
		if (scale_stages(types[i], a, s, st[i], &n[i], &end[i], msg,
				 sizeof(msg)))
			die_usage("calc", "%s", msg);
	}
	if (json && !type)
		printf("[\n");
	for (i = 0; i <= last; i++) {
		if (type && types[i] != type)
			continue;
		if (json)
			print_scale_json(types[i], a, s, st[i], n[i],
					 type ? "" : "  ", type || i == 1);
		else {
			if (k++)
				printf("\n");
			print_scale_text(types[i], a, s, st[i], n[i], end[i]);
		}
	}
	if (json && !type)
		printf("]\n");
	return EXIT_OK;
}

int cmd_calc(const char *dev, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "type", required_argument, NULL, 't' },
		{ "capacity", required_argument, NULL, 'c' },
		{ "fpp", required_argument, NULL, 'p' },
		{ "bits-per-key", required_argument, NULL, 'b' },
		{ "memory", required_argument, NULL, 'M' },
		{ "hashes", required_argument, NULL, 'k' },
		{ "scalable", no_argument, NULL, 'S' },
		{ "growth", required_argument, NULL, 'g' },
		{ "tightening", required_argument, NULL, 'r' },
		{ "netblock-lengths", required_argument, NULL, 'L' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "generations", required_argument, NULL, 'G' },
		{ "keys", required_argument, NULL, 'Y' },
		PREFIX_OPTIONS,
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const enum bloom_type all[] = {
		BLOOM_TYPE_STANDARD, BLOOM_TYPE_BLOCKED, BLOOM_TYPE_COUNTING,
		BLOOM_TYPE_DLEFT, BLOOM_TYPE_TIMED,
	};
	struct size_args a;
	struct bloom_size_result r[5] = { { .sz = sizeof(r[0]) },
		{ .sz = sizeof(r[0]) }, { .sz = sizeof(r[0]) },
		{ .sz = sizeof(r[0]) }, { .sz = sizeof(r[0]) } };
	struct scale_args sc = { 0 };
	struct expire_args x = { 0 };
	struct prefix_args pa = { 0 };
	struct prefix_report pr;
	enum bloom_key_kind kind = BLOOM_KEYS_IPV4;
	int planned;
	char why[5][512];
	int nwhy = 0;
	enum bloom_type type = 0;
	int c, json = 0, n = 0, i, capped = 0;
	uint32_t lookups = 0;
	struct table t;
	uint64_t v;
	char hb[32];

	(void)dev;
	memset(&a, 0, sizeof(a));
	a.o.sz = sizeof(a.o);
	while ((c = getopt_long(argc, argv, ":t:c:p:jh", opts, NULL)) != -1) {
		if (size_opt("calc", c, optarg, &a) ||
		    prefix_opt("calc", c, optarg, &pa) ||
		    scale_opt("calc", c, optarg, &sc) ||
		    expire_opt("calc", c, optarg, &x))
			continue;
		switch (c) {
		case 't':
			type = type_opt("calc", optarg);
			break;
		case 'j':
			json = 1;
			break;
		case 'Y':
			kind = keys_kind_opt("calc", optarg);
			if (kind != BLOOM_KEYS_IPV4 && kind != BLOOM_KEYS_IPV6)
				die_usage("calc", "--keys: netblock lengths are of ipv4 or ipv6");
			break;
		case 'L':
			if (parse_count(optarg, &v) || v > NB_LENGTHS_MAX)
				die_usage("calc", "bad number of netblock lengths '%s': give 0 to %d, the distinct prefix lengths shorter than an address (/32, /128) the filter will hold",
					  optarg, NB_LENGTHS_MAX);
			lookups = (uint32_t)v + 1;
			break;
		case 'h':
			print_help(stdout, "calc");
			return EXIT_OK;
		default:
			die_getopt("calc", c, argv);
		}
	}
	if (optind < argc)
		die_usage("calc", "unexpected argument '%s'", argv[optind]);
	planned = prefix_plan("calc", &pa, kind == BLOOM_KEYS_IPV6 ? AF_INET6 :
			      AF_INET, a.o.fpp, &pr);
	if (planned) {
		if (lookups)
			die_usage("calc", "--netblock-lengths counts the lengths a filter holds as given; with --prefix-lengths or --prefix-feed they are those: drop --netblock-lengths");
		lookups = 1 + pr.plan.nlens;
		/* a feed gives the keys it stores as the capacity */
		if (pr.have_feed && !a.o.capacity && size_given(&a) < 2)
			a.o.capacity = pr.stored ? pr.stored : 1;
		if (!json)
			prefix_print(&pr, a.o.fpp);
	}
	if (x.timeout_ms || x.generations) {
		if (lookups)
			die_usage("calc", "--netblock-lengths goes without --timeout: an expiring filter's rate over all generations is P, so an address's is 1 - (1 - P)^(L + 1) as for any filter");
		expire_check("calc", &x, &a, type, sc.scalable, 0);
		return calc_expiring(type, &a, &x, json);
	}
	if (sc.scalable || sc.growth || sc.tightening != 0) {
		if (lookups)
			die_usage("calc", "--netblock-lengths goes without --scalable: a scalable filter's rate over all stages is P, so an address's is 1 - (1 - P)^(L + 1) as for any filter; calc that with the first stage's capacity");
		return calc_scalable(type, &a, &sc, json);
	}
	for (i = 0; i < 5; i++) {
		if (type && all[i] != type)
			continue;
		/* without --type, --hashes applies to the types that take it */
		if (!type && a.o.hashes && all[i] != BLOOM_TYPE_STANDARD &&
		    all[i] != BLOOM_TYPE_COUNTING)
			continue;
		if (type) {
			size_or_die("calc", &a, all[i], &r[n++]);
			continue;
		}
		if (size_explain(&a, all[i], &r[n], why[nwhy],
				 sizeof(why[0])))
			nwhy++;
		else
			n++;
	}
	if (!n)
		die_usage("calc", "%s", why[0]);
	for (i = 0; i < n; i++)
		capped |= size_capped(&a, &r[i]);
	if (json) {
		if (type) {
			print_json(&a, &r[0], lookups, "", 1);
			return EXIT_OK;
		}
		printf("[\n");
		for (i = 0; i < n; i++)
			print_json(&a, &r[i], lookups, "  ", i == n - 1);
		printf("]\n");
		return EXIT_OK;
	}
	table_init(&t, lookups ? 10 : 9, 1);
	table_cell(&t, "TYPE");
	table_cell(&t, "CAPACITY");
	table_cell(&t, "FPP");
	table_cell(&t, "BITS");
	table_cell(&t, "HASHES");
	table_cell(&t, "MEMORY");
	table_cell(&t, "MEM B/KEY");
	table_cell(&t, "X THEORY");
	table_cell(&t, "EXPECTED FPP");
	if (lookups)
		table_cell(&t, "ADDR FPP");
	for (i = 0; i < n; i++) {
		double mbpk = 8.0 * r[i].memory_bytes / r[i].capacity;

		table_cell(&t, "%s", type_name(r[i].type));
		table_cell(&t, "%" PRIu64, r[i].capacity);
		table_cell(&t, "%.4g", r[i].fpp_ppb / 1e9);
		table_cell(&t, "%" PRIu64, r[i].bits);
		table_cell(&t, "%u", r[i].hashes);
		table_cell(&t, "%s",
			   human_bytes(r[i].memory_bytes, hb, sizeof(hb)));
		table_cell(&t, "%.2f", mbpk);
		table_cell(&t, "%.3f", mbpk / theory_bpk(r[i].fpp_ppb));
		table_cell(&t, "%.4g", r[i].expected_fpp);
		if (lookups)
			table_cell(&t, "%.4g",
				   bloom_nb_rate(r[i].fpp_ppb, lookups) / 1e9);
	}
	table_print(&t, "");
	if (lookups)
		printf("ADDR FPP: a filter holding netblocks of %u length%s tests an address %u\n"
		       "time%s (itself and each length), so an address not listed may be\n"
		       "taken for listed at 1 - (1 - FPP)^%u, up to %u x FPP. For an address rate\n"
		       "of P, size with --fpp P/%u (for %.4g: --fpp %.4g).\n",
		       lookups - 1, lookups == 2 ? "" : "s", lookups,
		       lookups == 1 ? "" : "s", lookups, lookups, lookups,
		       r[0].fpp_ppb / 1e9, r[0].fpp_ppb / 1e9 / lookups);
	if (capped)
		printf("note: --memory holds more keys than a filter may have (%llu): CAPACITY is capped there, and MEMORY is the table for that many, less than --memory\n",
		       BLOOM_CAPACITY_MAX);
	for (i = 0; i < nwhy; i++)
		printf("not possible: %s\n", why[i]);
	printf("MEMORY is the table (bits, counters or cells); X THEORY compares its\n"
	       "bits per key with -log2(FPP) / ln 2, the optimum of a Bloom filter.\n");
	return EXIT_OK;
}
