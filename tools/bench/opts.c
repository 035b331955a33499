// SPDX-License-Identifier: GPL-2.0
/* The benchmark programs' command lines (opts.h). */
#include "opts.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

void bench_usage(const char *usage)
{
	fprintf(stderr, "usage: %s\n", usage);
	exit(2);
}

/* @arg as an unsigned number up to @max: 0 if it is one, else -1. */
static int parse_unsigned(const char *arg, uint64_t max, uint64_t *v)
{
	unsigned long long u;
	char *end;

	/* strtoull takes "-1" as 2^64 - 1: no sign is a number here */
	if (*arg == '-' || *arg == '+')
		return -1;
	errno = 0;
	u = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || u > max)
		return -1;
	*v = u;
	return 0;
}

static int parse_double(const char *arg, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(arg, &end);
	return errno || end == arg || *end ? -1 : 0;
}

/* Writes @arg to @o's variable: 0, or -1 if it is not of @o's kind. */
static int set_value(const struct bench_opt *o, const char *arg)
{
	uint64_t u;

	switch (o->kind) {
	case BENCH_OPT_U64:
		if (parse_unsigned(arg, UINT64_MAX, &u))
			return -1;
		*(uint64_t *)o->value = u;
		return 0;
	case BENCH_OPT_U32:
		if (parse_unsigned(arg, UINT32_MAX, &u))
			return -1;
		*(uint32_t *)o->value = (uint32_t)u;
		return 0;
	case BENCH_OPT_DOUBLE:
		return parse_double(arg, (double *)o->value);
	case BENCH_OPT_STRING:
		*(const char **)o->value = arg;
		return 0;
	case BENCH_OPT_FLAG:
		*(bool *)o->value = true;
		return 0;
	}
	return -1;
}

int bench_opts_parse(int argc, char **argv, const struct bench_opt *opts,
		     size_t n, const char *usage, uint32_t *seen)
{
	struct option lo[BENCH_OPTS_MAX + 1] = { { 0 } };
	size_t i;
	int c;

	if (n > BENCH_OPTS_MAX) {
		fprintf(stderr, "bench: %zu options, at most %d: split the table\n",
			n, BENCH_OPTS_MAX);
		exit(2);
	}
	for (i = 0; i < n; i++) {
		lo[i].name = opts[i].name;
		lo[i].has_arg = opts[i].kind == BENCH_OPT_FLAG ?
				no_argument : required_argument;
		lo[i].val = 256 + (int)i;	/* never a short option */
	}
	if (seen)
		*seen = 0;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		/* getopt_long said what was wrong with an unknown option */
		if (c < 256 || c >= 256 + (int)n)
			bench_usage(usage);
		i = c - 256;
		if (set_value(&opts[i], optarg)) {
			fprintf(stderr, "%s: --%s takes %s, not \"%s\"\n",
				argv[0], opts[i].name,
				opts[i].kind == BENCH_OPT_DOUBLE ? "a number" :
				opts[i].kind == BENCH_OPT_U32 ?
				"a whole number below 2^32" : "a whole number",
				optarg);
			bench_usage(usage);
		}
		if (seen)
			*seen |= 1U << i;
	}
	return optind;
}
