/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The benchmark programs' command lines: long options "--NAME VALUE" (or
 * "--NAME" alone for a flag), each written to the variable a table names,
 * then the operands.
 */
#ifndef BENCH_OPTS_H
#define BENCH_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most options one table may have (bits of bench_opts_parse's @seen). */
#define BENCH_OPTS_MAX	32

/* The number of entries of a table. */
#define BENCH_NOPTS(opts)	(sizeof(opts) / sizeof((opts)[0]))

/* A number's macro as a string, for usage texts: BENCH_STR(BENCH_MAX_SAMPLES). */
#define BENCH_STR(x)	BENCH_STR_(x)
#define BENCH_STR_(x)	#x

enum bench_opt_kind {
	BENCH_OPT_U64,		/* uint64_t: a whole number, decimal or 0x */
	BENCH_OPT_U32,		/* uint32_t: the same, up to 2^32 - 1 */
	BENCH_OPT_DOUBLE,	/* double */
	BENCH_OPT_STRING,	/* const char *: the argument itself */
	BENCH_OPT_FLAG,		/* bool, no argument: set to true */
};

struct bench_opt {
	const char *name;	/* without the leading "--" */
	enum bench_opt_kind kind;
	void *value;		/* of the type @kind says */
};

/*
 * Parses @argv's options by @opts (@n of them, in any order, each as often
 * as wanted: the last one counts) and returns the index of the first
 * operand. Bit i of *@seen (unless @seen is NULL) says whether opts[i] was
 * given. An unknown option, a missing argument or a value that is not a
 * number of its kind prints "usage: @usage" (after what was wrong) to
 * stderr and exits with status 2.
 */
int bench_opts_parse(int argc, char **argv, const struct bench_opt *opts,
		     size_t n, const char *usage, uint32_t *seen);

/* Prints "usage: @usage" to stderr and exits with status 2. */
void bench_usage(const char *usage) __attribute__((noreturn));

#endif /* BENCH_OPTS_H */
