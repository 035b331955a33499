// SPDX-License-Identifier: GPL-2.0
/*
 * The verbs that carry keys: add, test and del, from the command line or
 * from a file (one key per line). Files go through the library's batch
 * builder, so a million keys cost a few dozen ioctls, and output is fully
 * buffered. The three differ only in the ioctl, in what a set result bit
 * means and in what they print, so they share every line of input handling.
 */
/* fwrite_unlocked: the output loop runs once per line. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "bloomctl.h"
#include "feed.h"

/* What a key verb does; indexes the tables below. */
enum key_op { OP_ADD, OP_TEST, OP_DEL };

static const unsigned long op_ioctl[] = {
	[OP_ADD] = BLOOM_IOC_ADD,
	[OP_TEST] = BLOOM_IOC_QUERY,
	[OP_DEL] = BLOOM_IOC_DELETE,
};
static const enum bloom_op op_lib[] = {
	[OP_ADD] = BLOOM_OP_ADD,
	[OP_TEST] = BLOOM_OP_QUERY,
	[OP_DEL] = BLOOM_OP_DELETE,
};
/* For "N keys ... were <done>" in messages. */
static const char *const op_done[] = {
	[OP_ADD] = "added",
	[OP_TEST] = "tested",
	[OP_DEL] = "deleted",
};

struct key_opts {
	const char *verb;
	enum key_op op;
	const char **files;	/* -f FILE..., in the order given */
	int nfiles;
	int family;		/* 0: keys are the bytes given; AF_INET(6) */
	int skip_empty;
	int skip_invalid;	/* --ipv4/--ipv6: send the good entries */
	int mask;		/* --ipv4/--ipv6: clear host bits */
	int short_prefixes;	/* --ipv4/--ipv6: take netblocks shorter than /8 */
	int absent;		/* test -f: print the absent lines instead */
	int verbose;
	int quiet;
	int exist;		/* add, del: ipset's -exist; del exits 0 */
	int allow_overfill;	/* add: past libbloom's overfill bound */
	const char *country;	/* --country CC: tor-geoipdb lines of CC */
	int geoip;		/* --geoip FILE given */
	int has_timeout;	/* add --timeout */
	uint32_t timeout_s;
	const char *name;
	char **keys;		/* command-line keys */
	int nkeys;
};

static size_t fixed_size(int family)
{
	return family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0;
}

/* Text to key bytes; NULL, or what is wrong with the text. */
static const char *to_key(const struct key_opts *o, const char *text,
			  size_t len, const void **key, size_t *klen,
			  uint8_t addr[16])
{
	if (len == 0)
		return "empty key";
	if (o->family) {
		if (parse_addr(o->family, text, len, addr))
			return o->family == AF_INET ? "not an IPv4 address" :
						      "not an IPv6 address";
		*key = addr;
		*klen = fixed_size(o->family);
		return NULL;
	}
	if (len > BLOOM_KEY_MAX)
		return "key longer than " BLOOM_KEY_MAX_STR " bytes";
	*key = text;
	*klen = len;
	return NULL;
}

static void parse_key_opts(struct key_opts *o, int argc, char **argv)
{
	int is_test = o->op == OP_TEST;
	static const struct option opts[] = {
		{ "file", required_argument, NULL, 'f' },
		{ "ipv4", no_argument, NULL, '4' },
		{ "ipv6", no_argument, NULL, '6' },
		{ "skip-empty", no_argument, NULL, 'E' },
		{ "skip-invalid", no_argument, NULL, 'I' },
		{ "mask-host-bits", no_argument, NULL, 'M' },
		{ "allow-short-prefixes", no_argument, NULL, 'S' },
		{ "absent", no_argument, NULL, 'A' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "exist", no_argument, NULL, 'e' },
		{ "allow-overfill", no_argument, NULL, 'F' },
		{ "country", required_argument, NULL, 'C' },
		{ "geoip", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	exist_spelling(argc, argv);
	while ((c = getopt_long(argc, argv, ":f:vqh", opts, NULL)) != -1) {
		switch (c) {
		case 'g':
			/* a feed of tor-geoipdb's ranges, read as -f reads */
			o->geoip = 1;
			/* fall through */
		case 'f':
			/* Repeatable, read in order, as grep -f is. */
			o->files = realloc(o->files, (o->nfiles + 1) * sizeof(*o->files));
			if (!o->files)
				die("out of memory");
			o->files[o->nfiles++] = optarg;
			break;
		case 'C':
			o->country = country_opt(o->verb, optarg);
			break;
		case '4':
		case '6':
			if (o->family)
				die_usage(o->verb, "give --ipv4 or --ipv6, not both");
			o->family = c == '4' ? AF_INET : AF_INET6;
			break;
		case 'E':
			o->skip_empty = 1;
			break;
		case 'I':
			o->skip_invalid = 1;
			break;
		case 'M':
			o->mask = 1;
			break;
		case 'S':
			o->short_prefixes = 1;
			break;
		case 'v':
			o->verbose = 1;
			break;
		case 'T':
			if (o->op != OP_ADD)
				die_getopt(o->verb, '?', argv);
			o->timeout_s = parse_key_timeout(o->verb, optarg);
			o->has_timeout = 1;
			break;
		case 'e':
			if (is_test)
				die_getopt(o->verb, '?', argv);
			o->exist = 1;
			break;
		case 'F':
			if (o->op != OP_ADD)
				die_getopt(o->verb, '?', argv);
			o->allow_overfill = 1;
			break;
		case 'A':
		case 'q':
			if (!is_test)
				die_getopt(o->verb, '?', argv);
			if (c == 'A')
				o->absent = 1;
			else
				o->quiet = 1;
			break;
		case 'h':
			print_help(stdout, o->verb);
			exit(EXIT_OK);
		default:
			die_getopt(o->verb, c, argv);
		}
	}
	if (optind >= argc)
		die_usage(o->verb, "%s needs a filter name", o->verb);
	o->name = argv[optind];
	check_name(o->verb, o->name);
	o->keys = argv + optind + 1;
	o->nkeys = argc - optind - 1;
	if (o->nfiles && o->nkeys)
		die_usage(o->verb, "give keys or -f FILE, not both");
	if (!o->nfiles && !o->nkeys)
		die_usage(o->verb, "%s needs keys, or -f FILE (- for standard input)",
			  o->verb);
	if (o->absent && !o->nfiles)
		die_usage(o->verb, "--absent works with -f FILE only");
	if ((o->skip_invalid || o->mask || o->short_prefixes || o->country ||
	     o->geoip) && !o->family)
		die_usage(o->verb, "--skip-invalid, --mask-host-bits, --allow-short-prefixes, --country and --geoip go with --ipv4 or --ipv6");
	if (o->geoip && !o->country)
		die_usage(o->verb, "--geoip FILE takes the ranges of one country: give --country CC (DE, US)");
}

/*
 * del's summary and exit status, the same for keys and files: a key that
 * was not found is reported like an absent key of test (exit 1), because a
 * script that deletes what it believes it added has a bug to look at; so is
 * a pinned key, which the filter could not remove.
 */
static int del_summary(const struct key_opts *o, uint64_t keys,
		       uint64_t removed, uint64_t pinned)
{
	printf("%s: removed %" PRIu64 " key%s, %" PRIu64 " not found",
	       o->name, removed, removed == 1 ? "" : "s",
	       keys - removed - pinned);
	if (pinned)
		printf(", %" PRIu64 " pinned", pinned);
	putchar('\n');
	if (pinned)
		fprintf(stderr, "bloomctl: %s: %" PRIu64 " key%s pinned: %s a counter that is saturated (it counted more keys than it can hold), so the filter cannot forget %s and %s still test present; only a new filter without %s removes %s\n",
			o->name, pinned, pinned == 1 ? " was" : "s were",
			pinned == 1 ? "it has" : "each has",
			pinned == 1 ? "it" : "them",
			pinned == 1 ? "it will" : "they will",
			pinned == 1 ? "the key" : "these keys",
			pinned == 1 ? "it" : "them");
	return removed == keys || o->exist ? EXIT_OK : EXIT_ABSENT;
}

/*
 * The sentence for a failed batch. ENOSPC on ADD is a d-left bucket
 * overflow (bloom_strerror()'s sentence), a full filter of keys with
 * timeouts or a scalable filter's last stage: which one, the filter's
 * info says (full_message()).
 */
static const char *key_error(char *msg, size_t len, int fd,
			     const struct key_opts *o, long err)
{
	struct bloom_info in;

	if (err == -EPROTOTYPE && !o->family && !bloom_info(fd, NULL, &in) &&
	    (in.keys == BLOOM_KEYS_IPV4 || in.keys == BLOOM_KEYS_IPV6)) {
		snprintf(msg, len, "%s holds %s addresses and netblocks: give --%s (the keys were taken as text, which this filter cannot hold)",
			 o->name, in.keys == BLOOM_KEYS_IPV4 ? "IPv4" : "IPv6",
			 in.keys == BLOOM_KEYS_IPV4 ? "ipv4" : "ipv6");
		return msg;
	}
	if (o->op == OP_ADD && err == -ENOSPC &&
	    full_message(msg, len, fd, o->name))
		return msg;
	return op_message(msg, len, op_lib[o->op], o->name, (int)err);
}

/*
 * Does the filter bound to @fd give its keys their own timeouts? Then
 * *@max_s is the largest it takes.
 */
static int filter_is_timed(int fd, uint32_t *max_s)
{
	struct bloom_info in;

	if (bloom_info(fd, NULL, &in) || in.type != BLOOM_TYPE_TIMED)
		return 0;
	*max_s = in.key_timeout_max_s;
	return 1;
}

/* Command-line keys: all checked before the first one is sent. */
static int keys_from_args(const struct key_opts *o, int fd)
{
	enum key_op op = o->op;
	size_t ksize = fixed_size(o->family), n = o->nkeys, i;
	struct bloom_key *keys = calloc(n, sizeof(*keys));
	uint8_t *packed = calloc(n, ksize ? ksize : 1);
	uint8_t *results = calloc((n + 7) / 8, 1);
	uint8_t *pinned = calloc((n + 7) / 8, 1);
	size_t npinned = 0, done = 0;
	int absent = 0;
	long ret;
	BLOOM_BATCH_OPTS(bo, .key_size = ksize, .results = results,
			 .pinned = op == OP_DEL ? pinned : NULL,
			 .npinned = &npinned, .done = &done,
			 .flags = o->has_timeout ? BLOOM_BATCH_F_TIMEOUT : 0,
			 .timeout_s = o->timeout_s,
			 .add_flags = op == OP_ADD && o->allow_overfill ?
				      BLOOM_ADD_F_OVERFILL : 0);

	if (!keys || !packed || !results || !pinned)
		die("out of memory");
	for (i = 0; i < n; i++) {
		const char *text = o->keys[i];
		const char *why = to_key(o, text, strlen(text), &keys[i].data,
					 &keys[i].len, packed + i * ksize);

		if (why)
			die("key %zu ('%.64s'): %s; nothing was %s", i + 1,
			    text, why, op_done[op]);
	}
	/* past the overfill bound libbloom refuses the call, nothing added */
	ret = bloom_batch(fd, op_lib[op], ksize ? (const void *)packed : keys,
			  n, &bo);
	if (ret == -EOVERFLOW && op == OP_ADD)
		die_overfilled(fd, o->name, n, "nothing was added");
	if (ret < 0) {
		char msg[768];

		key_error(msg, sizeof(msg), fd, o, ret);
		if (!done)
			die("%s; nothing was %s", msg, op_done[op]);
		/* a full filter keeps the keys before the first misfit */
		die("%s; the first %zu of the %zu keys were %s, from key %zu ('%.64s') on none were",
		    msg, done, n, op_done[op], done + 1, o->keys[done]);
	}
	for (i = 0; i < n; i++) {
		int r = bloom_result(results, i);

		absent |= !r;
		if (op == OP_TEST && !o->quiet)
			printf("%s: %s\n", o->keys[i], r ? "may be present" : "absent");
		else if (op == OP_DEL && bloom_result(pinned, i))
			printf("%s: pinned (a saturated counter keeps it)\n",
			       o->keys[i]);
		else if (op == OP_DEL && !r)
			printf("%s: not found\n", o->keys[i]);
	}
	if (o->verbose && op != OP_DEL)
		fprintf(stderr, "bloomctl: %s: %s %zu keys, %ld %s\n", o->name,
			op_done[op], n, ret,
			op == OP_TEST ? "may be present" : "probably present already");
	if (op == OP_ADD)
		warn_over_capacity(fd, o->name);
	free(keys);
	free(packed);
	free(results);
	free(pinned);
	if (op == OP_DEL)
		return del_summary(o, n, ret, npinned);
	return op == OP_TEST && absent ? EXIT_ABSENT : EXIT_OK;
}

/* Side buffer of the input lines for --ipv4/--ipv6, whose keys are not
 * the text to print back. Addresses are shorter than this. */
#define TEXT_MAX	64

/* Where a pending key came from, to name the first one not added. */
struct key_line {
	const char *path;
	uint64_t line;
};

struct batch_state {
	const struct key_opts *o;
	int fd;
	struct bloom_builder *b;
	char (*texts)[TEXT_MAX];
	struct key_line *lines;	/* BLOOM_BATCH_MAX_KEYS: of the pending keys */
	size_t pending;		/* keys pushed since the last flush */
	uint64_t keys, hits, pinned;
	struct progress prog;
};

/*
 * A batch of a file whose length was not known (standard input) that
 * libbloom refused past its overfill bound: none of it was sent, the
 * batches before it stay added.
 */
static void __attribute__((noreturn)) die_batch_overfilled(struct batch_state *s)
{
	char done[512];

	snprintf(done, sizeof(done),
		 "%" PRIu64 " key%s before %s %s added, none from it on",
		 s->keys, s->keys == 1 ? "" : "s",
		 file_line(s->lines[0].path, s->lines[0].line),
		 s->keys == 1 ? "was" : "were");
	die_overfilled(s->fd, s->o->name, s->pending, done);
}

/* Sends the pending keys and, for test, prints the chosen lines. */
static void flush(struct batch_state *s)
{
	long ret;
	size_t i, n = s->pending;
	enum key_op op = s->o->op;

	ret = bloom_builder_flush(s->b);
	if (ret == -EOVERFLOW && op == OP_ADD)
		die_batch_overfilled(s);
	if (ret < 0) {
		size_t done = bloom_builder_done(s->b);
		const struct key_line *at = &s->lines[done < n ? done : 0];
		uint64_t total = s->keys + done;
		char msg[768];

		key_error(msg, sizeof(msg), s->fd, s->o, ret);
		progress(&s->prog, s->o->verb, s->o->name, total, 1);
		/* a full filter keeps the keys before the first misfit */
		die("%s; %" PRIu64 " key%s %s %s, none from %s on (resume there)",
		    msg, total, total == 1 ? "" : "s",
		    total == 1 ? "was" : "were", op_done[op],
		    file_line(at->path, at->line));
	}
	s->pending = 0;
	s->keys += n;
	s->hits += ret;
	/* del: name the pinned keys (rare: their counters saturated) */
	if (op == OP_DEL && bloom_builder_npinned(s->b)) {
		s->pinned += bloom_builder_npinned(s->b);
		for (i = 0; i < n; i++) {
			const void *key;
			size_t len;

			if (!bloom_builder_pinned(s->b, i))
				continue;
			if (s->texts) {
				key = s->texts[i];
				len = strlen(s->texts[i]);
			} else {
				bloom_builder_key(s->b, i, &key, &len);
			}
			fwrite_unlocked(key, 1, len, stdout);
			fputs(": pinned (a saturated counter keeps it)\n",
			      stdout);
		}
	}
	if (op == OP_TEST && !s->o->quiet) {
		for (i = 0; i < n; i++) {
			const void *key;
			size_t len;

			if (bloom_builder_result(s->b, i) == s->o->absent)
				continue;
			if (s->texts) {
				key = s->texts[i];
				len = strlen(s->texts[i]);
			} else {
				bloom_builder_key(s->b, i, &key, &len);
			}
			fwrite_unlocked(key, 1, len, stdout);
			putc_unlocked('\n', stdout);
		}
		/* a full disk stops the command now, not at the end */
		check_output();
	}
	progress(&s->prog, s->o->verb, s->o->name, s->keys, 0);
}

/* Everything before the bad line is done, nothing after: say so and exit. */
static void __attribute__((noreturn))
stop_at(struct batch_state *s, const struct line_reader *lr, const char *why,
	const char *extra)
{
	enum key_op op = s->o->op;

	flush(s);
	progress(&s->prog, s->o->verb, s->o->name, s->keys, 1);
	die("%s: %s%s; the %" PRIu64 " key%s before it %s %s, none after",
	    file_line(lr->path, lr->lineno), why, extra, s->keys,
	    s->keys == 1 ? "" : "s", s->keys == 1 ? "was" : "were",
	    op_done[op]);
}

/* One file's lines into the batch. */
static void keys_from_file(struct batch_state *s, const char *path)
{
	const struct key_opts *o = s->o;
	enum key_op op = o->op;
	struct line_reader lr;
	uint8_t addr[16];
	char *line;
	long len;
	int err;

	err = lr_open(&lr, path);
	if (err) {
		flush(s);
		die("cannot open %s: %s; the %" PRIu64 " keys before it were %s",
		    path, strerror(-err), s->keys, op_done[op]);
	}
	while ((len = lr_next(&lr, &line)) != LR_END) {
		const char *why;
		const void *key;
		size_t klen;

		if (len == LR_ERROR) {
			err = errno;
			flush(s);
			progress(&s->prog, o->verb, o->name, s->keys, 1);
			die("cannot read %s after line %" PRIu64 ": %s; the %" PRIu64 " keys before were %s",
			    lr.path, lr.lineno, strerror(err), s->keys,
			    op_done[op]);
		}
		if (len == LR_TOO_LONG)
			stop_at(s, &lr, "key longer than " BLOOM_KEY_MAX_STR " bytes", "");
		if (len == 0 && o->skip_empty)
			continue;
		why = to_key(o, line, len, &key, &klen, addr);
		if (why)
			stop_at(s, &lr, why, len == 0 ?
				" (--skip-empty skips empty lines)" : "");
		if (!bloom_builder_room(s->b, klen))
			flush(s);
		if (s->texts)
			memcpy(s->texts[s->pending], line, len + 1);
		s->lines[s->pending].path = lr.path;
		s->lines[s->pending].line = lr.lineno;
		err = bloom_builder_push(s->b, key, klen);
		if (err)
			die("internal error: batch refused a key: %s", strerror(-err));
		s->pending++;
	}
	lr_close(&lr);
}

/*
 * The lines of @files, an upper bound of the keys they hold, read before
 * they are sent; UINT64_MAX when one cannot be read twice (standard input,
 * a pipe) or at all (the reading proper says why).
 */
static uint64_t count_lines(const char **files, int nfiles)
{
	uint64_t lines = 0;
	char buf[1 << 16];
	int i;

	for (i = 0; i < nfiles; i++) {
		FILE *f = strcmp(files[i], "-") ? fopen(files[i], "r") : NULL;
		size_t n, j;
		int last = '\n';
		struct stat st;

		if (!f || fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
			if (f)
				fclose(f);
			return UINT64_MAX;
		}
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
			for (j = 0; j < n; j++)
				lines += buf[j] == '\n';
			last = buf[n - 1];
		}
		lines += last != '\n';
		fclose(f);
	}
	return lines;
}

static int keys_from_files(const struct key_opts *o, int fd)
{
	enum key_op op = o->op;
	struct batch_state s = { .o = o, .fd = fd };
	double t0;
	int err, i;

	err = bloom_builder_new(&s.b, fd, op_ioctl[op], fixed_size(o->family));
	s.lines = malloc(BLOOM_BATCH_MAX_KEYS * sizeof(*s.lines));
	if (!err && !s.lines)
		err = -ENOMEM;
	if (!err && o->family) {
		s.texts = malloc(BLOOM_BATCH_MAX_KEYS * sizeof(*s.texts));
		if (!s.texts)
			err = -ENOMEM;
	}
	if (!err && o->has_timeout)
		err = bloom_builder_timeout(s.b, o->timeout_s);
	if (err)
		die("cannot set up a batch: %s", strerror(-err));
	if (op == OP_TEST)
		setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	/*
	 * Files that can be counted are checked as a whole, before the first
	 * batch (check_overfill()); standard input and pipes batch by batch,
	 * by libbloom's check of each flush.
	 */
	if (op == OP_ADD) {
		uint64_t lines = count_lines(o->files, o->nfiles);
		int whole = lines != UINT64_MAX;

		if (whole)
			check_overfill(fd, o->name, lines, o->allow_overfill,
				       "nothing was added");
		if (whole || o->allow_overfill)
			err = bloom_builder_add_flags(s.b, BLOOM_ADD_F_OVERFILL);
		if (err)
			die("cannot set up a batch: %s", strerror(-err));
	}
	progress_start(&s.prog);
	t0 = s.prog.start;

	for (i = 0; i < o->nfiles; i++)
		keys_from_file(&s, o->files[i]);
	flush(&s);
	progress(&s.prog, o->verb, o->name, s.keys, 1);
	check_output();
	if (o->verbose) {
		double t = now_seconds() - t0;

		fprintf(stderr, "bloomctl: %s: %s %" PRIu64 " keys in %.3f s (%.0f keys/s): %" PRIu64 " %s\n",
			o->name, op_done[op], s.keys, t,
			s.keys / (t + 1e-9), s.hits,
			op == OP_TEST ? "may be present" :
			op == OP_ADD ? "probably present already" :
				       "found and removed");
	}
	free(s.texts);
	free(s.lines);
	bloom_builder_free(s.b);
	if (op == OP_ADD)
		warn_over_capacity(fd, o->name);
	if (op == OP_DEL)
		return del_summary(o, s.keys, s.hits, s.pinned);
	/* test: the rule of keys on the command line, --absent or not */
	return op == OP_TEST && s.hits < s.keys ? EXIT_ABSENT : EXIT_OK;
}

static int keys_verb(const char *verb, enum key_op op, const char *dev,
		     int argc, char **argv)
{
	struct key_opts o = { .verb = verb, .op = op };
	uint32_t max_s = 0;
	int fd, timed;

	parse_key_opts(&o, argc, argv);
	fd = open_bound(dev, o.name);
	timed = filter_is_timed(fd, &max_s);
	if (o.has_timeout && !timed)
		die_no_key_timeouts(verb, o.name, fd);
	if (o.has_timeout && o.timeout_s > max_s)
		die_timeout_over(verb, o.name, o.timeout_s, max_s);
	if (o.family) {
		struct feed_args fa = {
			.verb = verb, .name = o.name, .fd = fd, .op = op_lib[op],
			.family = o.family, .flags = (o.mask ? FEED_F_MASK : 0) |
				 (o.short_prefixes ? FEED_F_SHORT : 0),
			.skip_invalid = o.skip_invalid, .files = o.files,
			.nfiles = o.nfiles, .keys = o.keys, .nkeys = o.nkeys,
			.absent = o.absent, .quiet = o.quiet,
			.verbose = o.verbose, .exist = o.exist,
			.has_timeout = o.has_timeout, .timeout_s = o.timeout_s,
			.allow_overfill = o.allow_overfill,
			.country = o.country,
		};
		struct bloom_info in;

		if (op == OP_ADD && timed && !bloom_info(fd, NULL, &in)) {
			fa.timed = 1;
			fa.default_s = in.key_timeout_s;
			fa.max_s = max_s;
		}

		return feed_verb(&fa);
	}
	return o.nfiles ? keys_from_files(&o, fd) : keys_from_args(&o, fd);
}

int cmd_add(const char *dev, int argc, char **argv)
{
	return keys_verb("add", OP_ADD, dev, argc, argv);
}

int cmd_test(const char *dev, int argc, char **argv)
{
	return keys_verb("test", OP_TEST, dev, argc, argv);
}

int cmd_del(const char *dev, int argc, char **argv)
{
	return keys_verb("del", OP_DEL, dev, argc, argv);
}
