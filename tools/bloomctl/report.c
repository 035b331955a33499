// SPDX-License-Identifier: GPL-2.0
/*
 * Errors: one line on stderr, "bloomctl: " and a sentence that says what
 * went wrong and what to do, then the documented exit status.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bloomctl.h"

static void vline(const char *fmt, va_list ap)
{
	/* Whatever the verb printed so far comes first, in order. */
	fflush(stdout);
	fputs("bloomctl: ", stderr);
	vfprintf(stderr, fmt, ap);
}

void die_usage(const char *verb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(fmt, ap);
	va_end(ap);
	if (verb)
		fprintf(stderr, " (see 'bloomctl help %s')\n", verb);
	else
		fputs(" (see 'bloomctl help')\n", stderr);
	exit(EXIT_USAGE);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_FAIL);
}

void die_op(enum bloom_op op, const char *subject, int err)
{
	char msg[512];

	die("%s", bloom_strerror(msg, sizeof(msg), op, subject, err));
}

void die_getopt(const char *verb, int c, char **argv)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		die_usage(verb, "option '%s' needs a value", arg);
	if (optopt && arg[0] == '-' && arg[1] != '-')
		die_usage(verb, "unknown option '-%c' for %s", optopt, verb);
	die_usage(verb, "unknown option '%s' for %s", arg, verb);
}

int open_device(const char *dev)
{
	int fd = bloom_open(dev);

	if (fd < 0)
		die_op(BLOOM_OP_OPEN, dev, fd);
	return fd;
}

int open_bound(const char *dev, const char *name)
{
	int fd = open_device(dev);
	int err = bloom_bind(fd, name);

	if (err)
		die_op(BLOOM_OP_BIND, name, err);
	return fd;
}

/* Before any system call, so a typo gets a precise answer. */
void check_name(const char *verb, const char *name)
{
	int err = bloom_name_check(name);

	if (err == -ENAMETOOLONG)
		die_usage(verb, "filter name '%s' is too long: use at most %d characters",
			  name, BLOOM_NAME_LEN - 1);
	if (err)
		die_usage(verb, "invalid filter name '%s': use 1 to %d printable characters without '/' or spaces",
			  name, BLOOM_NAME_LEN - 1);
}

double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
