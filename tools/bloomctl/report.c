// SPDX-License-Identifier: GPL-2.0
/*
 * Errors: one line on stderr, "bloomctl: " and a sentence that says what
 * went wrong and what to do, then the documented exit status. Also the
 * small helpers every verb may use: the device, names, time, sizes.
 */
#include <errno.h>
#include <inttypes.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "bloomctl.h"

static int output_failed;	/* reported once */

static void __attribute__((noreturn)) output_error(int err)
{
	output_failed = 1;
	fprintf(stderr, "bloomctl: cannot write the output: %s\n",
		err ? strerror(err) : "write error");
	_exit(EXIT_FAIL);
}

void check_output(void)
{
	errno = 0;
	if (fflush(stdout) == EOF || ferror(stdout))
		output_error(errno);
}

void close_stdout(void)
{
	int err;

	errno = 0;
	err = fflush(stdout) == EOF || ferror(stdout);
	if (fclose(stdout) == EOF)
		err = 1;
	if (err && !output_failed)
		output_error(errno);
	if (err)
		_exit(EXIT_FAIL);
}

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

/*
 * Where the library's sentence points a programmer at its calls or at
 * <linux/bloom.h>, bloomctl's own, which names the command that helps.
 */
static const char *cli_sentence(enum bloom_op op, int err)
{
	if (err == ENOENT && op != BLOOM_OP_OPEN)
		return "no filter named %s ('bloomctl list' shows the filters there are)";
	if (err == EOPNOTSUPP && op == BLOOM_OP_CREATE)
		return "%s: the bloom module does not implement this filter type or option (a dleft filter takes no --bits; only standard and blocked filters can be --scalable): 'bloomctl version' lists what it supports";
	if (err == EINVAL && op == BLOOM_OP_CREATE)
		return "the module rejected the parameters of filter %s: name, capacity, false-positive rate or geometry out of range (see 'bloomctl help create')";
	if (op != BLOOM_OP_ADD && op != BLOOM_OP_QUERY && op != BLOOM_OP_DELETE)
		return NULL;
	if (err == EINVAL)
		return "%s: the module refused a key: empty or over " BLOOM_KEY_MAX_STR " bytes, or with --ipv4/--ipv6 not an address or netblock of that family, or one with host bits set";
	if (err == EPROTOTYPE)
		return "%s holds keys of another kind ('bloomctl info' shows it): a filter of IPv4 keys takes addresses and netblocks with --ipv4, one of IPv6 keys with --ipv6, one of strings keys without either";
	return NULL;
}

/*
 * The library's sentence speaks about its calls; a bloomctl user wants the
 * command that helps instead: bloomctl's own sentence, or the library's and
 * a hint. @subject was checked by check_name() (or is the device path,
 * which the library escapes).
 */
const char *op_message(char *buf, size_t len, enum bloom_op op,
		       const char *subject, int err)
{
	const char *hint = NULL, *fmt;
	size_t n;

	fmt = cli_sentence(op, err < 0 ? -err : err);
	if (fmt) {
		snprintf(buf, len, fmt, subject ? subject : "(unnamed)");
		return buf;
	}
	bloom_strerror(buf, len, op, subject, err);
	if (err < 0)
		err = -err;
	if (op == BLOOM_OP_OPEN) {
		if (err == ENOTDIR || err == ENOENT)
			hint = "; --device PATH names another device";
	} else if (err == EEXIST) {
		hint = " ('bloomctl destroy NAME' removes it)";
	} else if (err == EOPNOTSUPP && op == BLOOM_OP_DELETE) {
		hint = " (create one with --type counting or --type dleft)";
	}
	n = strlen(buf);
	if (hint && n < len)
		snprintf(buf + n, len - n, "%s", hint);
	return buf;
}

void die_op(enum bloom_op op, const char *subject, int err)
{
	char msg[768];

	die("%s", op_message(msg, sizeof(msg), op, subject, err));
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
	char msg[512];

	/* The library's sentence prints the name on one line, escaped. */
	if (err)
		die_usage(verb, "%s", bloom_strerror(msg, sizeof(msg), BLOOM_OP_BIND,
						      name, err));
}

const char *human_bytes(uint64_t v, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double d = v;
	int u = 0;

	while (d >= 1024 && u < 4) {
		d /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", d, unit[u]);
	return buf;
}

void progress(struct progress *p, const char *verb, const char *name,
	      uint64_t n, int final)
{
	double t = now_seconds();

	if (!p->on || (!final && t - p->last < 0.2))
		return;
	p->last = t;
	fprintf(stderr, "\r%s %s: %" PRIu64 " keys, %.0f keys/s%s", verb, name,
		n, n / (t - p->start + 1e-9), final ? "\n" : "");
}

void progress_start(struct progress *p)
{
	p->on = isatty(STDERR_FILENO);
	p->start = p->last = now_seconds();
}

double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
