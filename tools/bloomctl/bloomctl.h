/* SPDX-License-Identifier: GPL-2.0 */
/* bloomctl: what the verbs' source files share. */
#ifndef BLOOMCTL_H
#define BLOOMCTL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <libbloom.h>

/* Exit statuses, documented in bloomctl(8). */
enum {
	EXIT_OK = 0,
	EXIT_ABSENT = 1,	/* test: a key is definitely absent; del: a key
				 * was not found */
	EXIT_USAGE = 2,		/* bad command line */
	EXIT_FAIL = 3,		/* the operation failed: device, module, input */
};

#define BLOOMCTL_STR_(x)	#x
#define BLOOMCTL_STR(x)		BLOOMCTL_STR_(x)
#define BLOOM_KEY_MAX_STR	BLOOMCTL_STR(BLOOM_KEY_MAX)
#define BLOOM_HASHES_MAX_STR	BLOOMCTL_STR(BLOOM_HASHES_MAX)
/*
 * --fpp's range as a probability, for help and messages: the one pair of
 * limits that is not a plain number in <linux/bloom.h>, so the build checks
 * that the words still say what the header says.
 */
#define BLOOM_FPP_RANGE_STR	"1e-9 to 0.5"
_Static_assert(BLOOM_FPP_PPB_MIN == 1 && BLOOM_FPP_PPB_MAX == 500000000,
	       "BLOOM_FPP_RANGE_STR must say BLOOM_FPP_PPB_MIN..MAX");

/*
 * report.c: output that fails is an error. check_output() flushes stdout and
 * exits with EXIT_FAIL and a message if anything written to it so far was
 * lost; main() registers close_stdout() with atexit(), so the last flush
 * and the close are checked on every way out.
 */
void check_output(void);
void close_stdout(void);

/* report.c: one line on stderr, then exit. */
void die_usage(const char *verb, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void die_op(enum bloom_op op, const char *subject, int err)
	__attribute__((noreturn));
/* bloom_strerror() and the bloomctl command that helps, if there is one. */
const char *op_message(char *buf, size_t len, enum bloom_op op,
		       const char *subject, int err);
/* Handles getopt_long's '?' and ':' answers: exits with a usage error. */
void die_getopt(const char *verb, int c, char **argv)
	__attribute__((noreturn));
int open_device(const char *dev);
int open_bound(const char *dev, const char *name);
void check_name(const char *verb, const char *name);
double now_seconds(void);
/*
 * Progress of a long add, test or del on stderr ("\rVERB NAME: N keys,
 * R keys/s"), only for a person watching a terminal: progress_start()
 * notes the time and whether stderr is one; progress() prints at most
 * every 0.2 s, and always (ending the line) when @final.
 */
struct progress {
	int on;
	double start, last;
};
void progress_start(struct progress *p);
void progress(struct progress *p, const char *verb, const char *name,
	      uint64_t n, int final);
/* 1234567 -> "1.2 MiB": memory sizes for people; returns @buf. */
const char *human_bytes(uint64_t v, char *buf, size_t len);

/*
 * table.c: a table whose columns are as wide as their widest cell. Cells
 * are added row by row, the header first; columns whose bit is set in
 * @left are left-aligned, the others right-aligned. table_print() prints
 * every row after @indent and frees the cells.
 */
#define TABLE_COLS_MAX	16
#define TABLE_CELL	48
struct table {
	int ncols;
	unsigned int left;
	size_t n;			/* cells so far */
	char (*cells)[TABLE_CELL];
};
void table_init(struct table *t, int ncols, unsigned int left);
void table_cell(struct table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void table_print(struct table *t, const char *indent);

/* parse.c */
/* --type NAME: the type, or exit 2 naming the types there are. */
enum bloom_type type_opt(const char *verb, const char *arg);
int parse_count(const char *s, uint64_t *out);
int parse_fpp(const char *s, double *p);
int parse_hex_key(const char *s, uint8_t key[BLOOM_HASH_KEY_LEN]);
int read_hash_key_file(const char *path, uint8_t key[BLOOM_HASH_KEY_LEN]);
const char *type_name(uint32_t type);
/* --keys KIND: strings, ipv4 or ipv6, or exit 2. */
enum bloom_key_kind keys_kind_opt(const char *verb, const char *arg);
/* A key kind's name (BLOOM_KEYS_NAMES). */
const char *keys_kind_name(uint32_t kind);
/* --hash NAME: siphash-1-3 or siphash-2-4, or exit 2. */
enum bloom_hash hash_opt(const char *verb, const char *arg);
/* A keyed hash's name (BLOOM_HASH_NAMES). */
const char *hash_name(uint32_t hash);
/* "24 16 8" for the bits set in @words (@nbits of them), longest first. */
void prefix_list(char *buf, size_t len, const uint64_t *words,
		 unsigned int nbits);
/* Address text (NUL-terminated, @len bytes) to 4 or 16 bytes. */
int parse_addr(int family, const char *s, size_t len, uint8_t *out);

/* lines.c: reads a file of keys, one per line, in bounded memory. */
struct line_reader {
	int fd;
	const char *path;	/* for messages: the file, or "standard input" */
	char *buf;
	size_t start, end;	/* the unread bytes: buf[start, end) */
	int eof;
	uint64_t lineno;	/* of the line returned last */
};
enum {
	LR_END = -1,		/* no more lines */
	LR_ERROR = -2,		/* read error, errno set */
	LR_TOO_LONG = -3,	/* line lineno is over BLOOM_KEY_MAX bytes */
};
/* 0 or -errno; "-" is standard input. */
int lr_open(struct line_reader *lr, const char *path);
/* Next line, NUL-terminated, without its "\n" or "\r\n": its length, or
 * one of the LR_ values. The line stays valid until the next call. */
long lr_next(struct line_reader *lr, char **line);
void lr_close(struct line_reader *lr);
/*
 * "FILE:LINE", the one way messages name a line of an input file (as
 * compilers and grep -n do, so that editors can jump there). The text is
 * in one of 4 static buffers, used in turn: up to 4 in one message.
 */
const char *file_line(const char *path, uint64_t line);

/*
 * json.c: figures derived from a filter's statistics, computed in one place
 * so that the text and the JSON output agree.
 */
struct info_derived {
	double fill;		/* share of bits / counters / cells in use */
	double est_fpp;		/* false-positive rate expected now */
	double est_keys;	/* distinct keys, estimated; INFINITY if unknown */
	int over_capacity;	/* keys > capacity */
	/*
	 * Keys held: the estimate (or count, when larger), or, when every bit
	 * is set and there is no estimate, the keys added (adds); count alone
	 * misses every key whose bits were set already.
	 */
	double keys;
	int keys_added;		/* @keys is adds, not an estimate */
	/* capacity: a scalable filter's is the sum of its stages so far */
	uint64_t capacity;
	double load[4];		/* d-left: share of each subtable's cells used */
};
void info_derive(const struct bloom_info *in, struct info_derived *d);
int type_can_delete(uint32_t type);
/* d-left cells: dleft and timed (keys with their own timeouts). */
int type_has_cells(uint32_t type);
void json_string(FILE *f, const char *s);
/* @st: the @nst stages of a scalable filter (get_stages()), else NULL, 0 */
void print_info_json(FILE *f, const struct bloom_info *in,
		     const struct bloom_stage *st, size_t nst,
		     const char *indent);
/* cmd_show.c: a scalable filter's stages into @st; 0 for the others. */
size_t get_stages(int fd, const struct bloom_info *in,
		  struct bloom_stage st[BLOOM_SCALE_STAGES_MAX]);
uint64_t info_table_bytes(const struct bloom_info *in);

/*
 * capacity.c: after an add, one warning on stderr when filter @name (bound
 * to @fd) is over its capacity; for an expiring filter, which generation
 * took more than its share and the capacity a burst like it needs.
 */
void warn_over_capacity(int fd, const char *name);
/*
 * An add of up to @more keys to a filter of fixed size (bound to @fd) that
 * would take its estimated false-positive rate past libbloom's overfill
 * bound (BLOOM_OVERFILL_RATIO times the one it was created for, at most
 * BLOOM_OVERFILL_MAX; bloom_add_estimate()) exits with a message, ending
 * with @done (what was added before: "nothing was added"), unless @allow
 * (--allow-overfill). For a whole input counted before it is sent: its
 * batches then go with BLOOM_ADD_F_OVERFILL, so that no batch is refused
 * in the middle of what passed as a whole.
 */
void check_overfill(int fd, const char *name, uint64_t more, int allow,
		    const char *done);
/* An add of @more keys that libbloom refused with EOVERFLOW: the message. */
void __attribute__((noreturn))
die_overfilled(int fd, const char *name, uint64_t more, const char *done);
/*
 * ENOSPC of an add, in the words of the type the filter bound to @fd was
 * created as (a scalable filter at its last stage, a filter of keys with
 * timeouts); NULL: the library's sentence (d-left buckets) fits.
 */
const char *full_message(char *msg, size_t len, int fd, const char *name);
/* cmd_show.c: "1 h 15 min", "90 s", "2.5 s": a duration for people. */
const char *duration_text(uint64_t ms, char *buf, size_t len);

/* cmd_calc.c: the sizing options of create and calc. */
struct size_args {
	struct bloom_size_opts o;
	uint32_t ppb;
};
/* Handles one sizing option (-c, -p, -b, -M, -k): 1 if it was one. */
int size_opt(const char *verb, int c, const char *arg, struct size_args *a);
/* How many of capacity, fpp, bits per key and memory were given. */
int size_given(const struct size_args *a);
/*
 * --memory (without --capacity) gave more room than the most keys a filter
 * may have: the capacity was capped at BLOOM_CAPACITY_MAX, the table is
 * smaller than the memory given.
 */
int size_capped(const struct size_args *a, const struct bloom_size_result *r);
/*
 * Sizes as the module will, or exits 2 saying what would fit instead;
 * notes a capped capacity on stderr (calc in its table instead).
 */
void size_or_die(const char *verb, const struct size_args *a,
		 enum bloom_type t, struct bloom_size_result *r);

/* cmd_calc.c: a scalable filter's options of create and calc. */
struct scale_args {
	int scalable;		/* --scalable */
	uint32_t growth;	/* --growth S; 0: the default, 2 */
	double tightening;	/* --tightening R; 0: the default, 0.85 */
};
/* Handles --scalable (-S), --growth (-g), --tightening (-r): 1 if one. */
int scale_opt(const char *verb, int c, const char *arg, struct scale_args *s);
/*
 * What create and calc refuse alike (exit 2): --growth or --tightening
 * without --scalable; with it a type that cannot grow (@t; 0: not given),
 * explicit --bits/--hashes (@geometry), or sizes other than --capacity
 * and --fpp.
 */
/* s of a chain of @t: --growth, or the ABI's default for @t. */
uint32_t scale_growth(const struct scale_args *s, enum bloom_type t);
void scale_check(const char *verb, const struct scale_args *s,
		 const struct size_args *a, enum bloom_type t, int geometry);

/* expire.c: an expiring filter's options of create and calc. */
struct expire_args {
	uint64_t timeout_ms;	/* --timeout DURATION; 0: none */
	uint32_t generations;	/* --generations G; 0: the default */
};
/*
 * An expiring filter's rotation period: the timeout over G - 1
 * generations, rounded up to a millisecond, as the module rotates.
 */
uint64_t expire_period_ms(uint64_t timeout_ms, uint32_t generations);
/* "3600", "90s", "15m", "1h", "7d" into milliseconds: 0 or -1. */
int parse_duration_ms(const char *s, uint64_t *ms);
/* Handles --timeout (-T) and --generations (-G): 1 if one. */
int expire_opt(const char *verb, int c, const char *arg, struct expire_args *x);
/*
 * What create and calc refuse alike (exit 2), saying why: --generations
 * without --timeout; with it a counting or dleft type (@t; 0: not given),
 * --scalable, explicit --bits/--hashes (@geometry), or sizes other than
 * --capacity and --fpp.
 */
void expire_check(const char *verb, const struct expire_args *x,
		  const struct size_args *a, enum bloom_type t, int scalable,
		  int geometry);
/* calc --timeout: the memory of each G (3..9, or the one given). */
int calc_expiring(enum bloom_type type, const struct size_args *a,
		  const struct expire_args *x, int json);

/*
 * Keys with their own timeouts (keytime.c). parse_key_timeout(): a
 * duration of whole seconds, 0..BLOOM_KEY_TIMEOUT_MAX, or exit 2 saying
 * the range. exist_spelling(): ipset's "-exist" as "--exist".
 * die_no_key_timeouts(): a timeout for a filter (bound to @fd) that has
 * none: how to make one; exit 2. die_timeout_over(): a timeout over the
 * largest filter @name takes: the range; exit 2. same_filter(): does the
 * filter of @in have what @o asks for? 0 and why not in @why.
 */
uint32_t parse_key_timeout(const char *verb, const char *arg);
/* --country CC: two letters, as tor-geoipdb gives them; exits 2 if not. */
const char *country_opt(const char *verb, const char *arg);
void exist_spelling(int argc, char **argv);
void die_no_key_timeouts(const char *verb, const char *name, int fd)
	__attribute__((noreturn));
void die_timeout_over(const char *verb, const char *name, uint32_t timeout_s,
		      uint32_t max_s) __attribute__((noreturn));
int same_filter(const struct bloom_info *in, const struct bloom_create_opts *o,
		char *why, size_t len);

/* The verbs; argv[0] is the verb. */
int cmd_calc(const char *dev, int argc, char **argv);
int cmd_create(const char *dev, int argc, char **argv);
int cmd_destroy(const char *dev, int argc, char **argv);
int cmd_add(const char *dev, int argc, char **argv);
int cmd_test(const char *dev, int argc, char **argv);
int cmd_del(const char *dev, int argc, char **argv);
int cmd_info(const char *dev, int argc, char **argv);
int cmd_list(const char *dev, int argc, char **argv);
int cmd_stats(const char *dev, int argc, char **argv);
int cmd_version(const char *dev, int argc, char **argv);
int cmd_help(const char *dev, int argc, char **argv);
int cmd_build(const char *dev, int argc, char **argv);
int cmd_save(const char *dev, int argc, char **argv);
int cmd_restore(const char *dev, int argc, char **argv);
int cmd_merge(const char *dev, int argc, char **argv);
int cmd_flush(const char *dev, int argc, char **argv);
int cmd_swap(const char *dev, int argc, char **argv);
int cmd_inspect(const char *dev, int argc, char **argv);
/* Prints the help of @verb (NULL: the overview); -1 if there is no such verb. */
int print_help(FILE *f, const char *verb);

#endif /* BLOOMCTL_H */
