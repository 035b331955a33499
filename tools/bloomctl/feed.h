/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Blocklist feeds for "add/test/del --ipv4/--ipv6" (feed.c, cmd_feed.c):
 * one entry a line, an address or address/length; text after '#' or ';'
 * is a comment; blank lines and CR line ends are fine; "ipset save"
 * output gives the entry of its "add SET ENTRY [options]" lines and its
 * "create" lines are skipped.
 */
#ifndef BLOOMCTL_FEED_H
#define BLOOMCTL_FEED_H

#include <stddef.h>
#include <stdint.h>

#define FEED_KEY_MAX	17	/* BLOOM_NETBLOCK_KEY_MAX */
#define FEED_BAD_SHOWN	10	/* bad lines named in a refusal */

enum feed_result {
	FEED_SKIP = 0,		/* blank, comment, ipset line without an entry */
	FEED_KEY = 1,		/* an entry: *klen bytes of key at key */
	FEED_BAD = -1,		/* none of these: *why says what is wrong */
	FEED_NOT_RANGE = 2,	/* feed_parse_range(): a line of another form */
};

/* feed_parse_line(): clear host bits instead of refusing the line. */
#define FEED_F_MASK	(1U << 0)
/* feed_parse_line(): take netblocks shorter than FEED_SHORT_PREFIX. */
#define FEED_F_SHORT	(1U << 1)

/*
 * A netblock shorter than this holds more than 1/256 of its family's
 * addresses: refused unless FEED_F_SHORT says it is meant. /0 is refused
 * always, as ipset refuses it: it would make every address test present.
 */
#define FEED_SHORT_PREFIX	8
#define FEED_STR_(x)		#x
#define FEED_STR(x)		FEED_STR_(x)
#define FEED_SHORT_PREFIX_STR	FEED_STR(FEED_SHORT_PREFIX)

/*
 * One line (@len bytes, NUL-terminated, "\n" stripped; changed in place)
 * of a feed of @family (AF_INET or AF_INET6) into @key (FEED_KEY_MAX
 * bytes).
 */
enum feed_result feed_parse_line(char *line, size_t len, int family,
				 unsigned int flags, uint8_t *key, int *klen,
				 const char **why);
/*
 * One entry alone, "ADDRESS" or "ADDRESS/LENGTH", as a command-line key
 * is: FEED_KEY or FEED_BAD (no comments, blanks or ipset lines).
 */
enum feed_result feed_parse_entry(const char *entry, int family,
				  unsigned int flags, uint8_t *key, int *klen,
				  const char **why);
/*
 * feed_parse_line(), and the "timeout N" option of an ipset "add" line into
 * *@timeout (seconds, at most BLOOM_KEY_TIMEOUT_MAX), or -1 when the line
 * has none.
 */
enum feed_result feed_parse_line_timeout(char *line, size_t len, int family,
					 unsigned int flags, uint8_t *key,
					 int *klen, int64_t *timeout,
					 const char **why);

/*
 * A line that is a range of addresses, "FIRST-LAST" as ipset takes it, or
 * a line of tor-geoipdb ("FIRST,LAST,CC": /usr/share/tor/geoip gives
 * IPv4 addresses as integers, geoip6 IPv6 addresses as text): FEED_KEY
 * with the range in @r (the netblocks it is stored as come from
 * feed_range_next()); FEED_SKIP for a tor-geoipdb line of a country other
 * than @country, FEED_BAD for a bad range (one of tor-geoipdb's without
 * @country included), FEED_NOT_RANGE for any other line, which @line is
 * left as it was for feed_parse_line(). @flags as feed_parse_line()'s
 * (FEED_F_SHORT: netblocks shorter than FEED_SHORT_PREFIX; never /0).
 */
#define FEED_RANGE_LINE_MAX	256	/* a longer line is no range */
struct feed_range {
	unsigned __int128 lo, hi;	/* the addresses, inclusive */
	int family, done;
};

enum feed_result feed_parse_range(const char *line, size_t len, int family,
				  unsigned int flags, const char *country,
				  struct feed_range *r, const char **why);
/*
 * The next of the fewest netblocks that hold @r exactly, into @key
 * (bloom_netblock_key()'s form): its length in bytes, or 0 when none is
 * left.
 */
int feed_range_next(struct feed_range *r, uint8_t *key);

/*
 * The bad lines of a feed, the first FEED_BAD_SHOWN named: every verb that
 * reads a feed (add, test, del, calc, create, build) reports and refuses
 * them the same way, and --skip-invalid means the same to each.
 */
struct feed_bad_lines {
	uint64_t n;
	char shown[FEED_BAD_SHOWN][320];
};

void feed_bad_note(struct feed_bad_lines *b, const char *where,
		   uint64_t line, const char *why);
/*
 * Names @b's lines on standard error; with any, exits (3) saying
 * "SUBJECT: N bad lines of LINES: NOTHING (--skip-invalid USES)" unless
 * @skip, then says "SUBJECT: skipped N bad lines, SKIPPED". Returns when
 * there are none or @skip.
 */
void feed_bad_verdict(const struct feed_bad_lines *b, const char *subject,
		      uint64_t lines, int skip, const char *nothing,
		      const char *uses, const char *skipped);

/* What "add/test/del --ipv4/--ipv6" was asked (cmd_keys.c fills it). */
struct feed_args {
	const char *verb;
	const char *name;
	int fd;			/* bound to the filter */
	int op;			/* BLOOM_OP_ADD, _QUERY or _DELETE */
	int family;		/* AF_INET or AF_INET6 */
	unsigned int flags;	/* FEED_F_* */
	int skip_invalid;	/* add the good lines, report the bad */
	const char **files;
	int nfiles;
	char **keys;		/* command-line entries, when no files */
	int nkeys;
	int absent;		/* test -f: print the absent entries */
	int quiet;
	int verbose;
	int exist;		/* del: not found is fine (ipset's -exist) */
	int allow_overfill;	/* add: past libbloom's overfill bound */
	const char *country;	/* --country CC: tor-geoipdb lines of CC */
	int has_timeout;	/* add --timeout: every entry's timeout */
	uint32_t timeout_s;
	int timed;		/* add to a filter whose keys have timeouts */
	uint32_t default_s;	/* its keys' default timeout */
	uint32_t max_s;		/* and the largest it takes */
};

/*
 * Reads every entry first (a bad one refuses the whole input, naming up
 * to FEED_BAD_SHOWN lines as FILE:LINE, unless @skip_invalid), then sends
 * them as one batch of addresses and netblocks. Returns the exit status.
 */
int feed_verb(const struct feed_args *a);

#endif /* BLOOMCTL_FEED_H */
