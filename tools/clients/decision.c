// SPDX-License-Identifier: GPL-2.0
/*
 * The decision lines of crowdsec-custom-bouncer (decision.h): a small JSON
 * reader that checks the whole line (RFC 8259: strings with their escapes,
 * numbers, literals, nested objects and arrays up to DECISION_DEPTH_MAX)
 * and keeps the few members a decision needs, and Go's duration text.
 * Every read is bounded by the line's length; nothing is trusted.
 */
#include <arpa/inet.h>
#include <string.h>
#include <strings.h>
#include <libbloom.h>
#include "decision.h"
#include "../bloomctl/feed.h"

struct reader {
	const char *p, *end;
	const char *why;
	int depth;
	/* where the next kept string is decoded to */
	char *out, *out_end;
};

static int fail(struct reader *r, const char *why)
{
	if (!r->why)
		r->why = why;
	return -1;
}

static void skip_space(struct reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' ||
				 *r->p == '\r' || *r->p == '\n'))
		r->p++;
}

static int hex4(struct reader *r, unsigned int *v)
{
	int i;

	if (r->end - r->p < 4)
		return fail(r, "a \\u escape without its four hexadecimal digits");
	*v = 0;
	for (i = 0; i < 4; i++) {
		char c = *r->p++;

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			*v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			*v |= c - 'A' + 10;
		else
			return fail(r, "a \\u escape without its four hexadecimal digits");
	}
	return 0;
}

/* @c to the kept string (@keep), if there is one. */
static void put(struct reader *r, int keep, unsigned char c)
{
	if (keep && r->out < r->out_end)
		*r->out++ = (char)c;
}

/* A code point of a \u escape (pairs of surrogates joined) as UTF-8. */
static int put_escape(struct reader *r, int keep)
{
	unsigned int cp, lo;

	if (hex4(r, &cp))
		return -1;
	if (cp >= 0xdc00 && cp < 0xe000)
		return fail(r, "a \\u escape of a lone low surrogate");
	if (cp >= 0xd800 && cp < 0xdc00) {
		if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u')
			return fail(r, "a \\u escape of a high surrogate without its low one");
		r->p += 2;
		if (hex4(r, &lo))
			return -1;
		if (lo < 0xdc00 || lo >= 0xe000)
			return fail(r, "a \\u escape of a high surrogate without its low one");
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	/* a NUL would end the kept string early: "10.0.0.1\u0000..." */
	if (cp == 0 && keep)
		return fail(r, "a NUL character (\\u0000) in a member bloom reads");
	if (cp < 0x80) {
		put(r, keep, cp);
	} else if (cp < 0x800) {
		put(r, keep, 0xc0 | cp >> 6);
		put(r, keep, 0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		put(r, keep, 0xe0 | cp >> 12);
		put(r, keep, 0x80 | (cp >> 6 & 0x3f));
		put(r, keep, 0x80 | (cp & 0x3f));
	} else {
		put(r, keep, 0xf0 | cp >> 18);
		put(r, keep, 0x80 | (cp >> 12 & 0x3f));
		put(r, keep, 0x80 | (cp >> 6 & 0x3f));
		put(r, keep, 0x80 | (cp & 0x3f));
	}
	return 0;
}

/*
 * A string; with @keep decoded to r->out and NUL-terminated, *@s pointing
 * at it. A decoded string is never longer than its text, so r->out (the
 * line's length and a NUL a string) always has room.
 */
static int string(struct reader *r, int keep, const char **s)
{
	static const char plain[] = "\"\\/bfnrt", decoded[] = "\"\\/\b\f\n\r\t";
	const char *at;

	if (r->p >= r->end)
		return fail(r, "a line that ends where a value should be");
	if (*r->p != '"')
		return fail(r, "a member name that is not a string");
	r->p++;
	if (keep)
		*s = r->out;
	while (r->p < r->end) {
		unsigned char c = (unsigned char)*r->p++;

		if (c == '"') {
			put(r, keep, '\0');
			return 0;
		}
		if (c < 0x20)
			return fail(r, "a control character in a string (JSON escapes them)");
		if (c != '\\') {
			put(r, keep, c);
			continue;
		}
		if (r->p >= r->end)
			break;
		c = (unsigned char)*r->p++;
		if (c == 'u') {
			if (put_escape(r, keep))
				return -1;
			continue;
		}
		at = c ? strchr(plain, c) : NULL;
		if (!at)
			return fail(r, "a bad escape in a string");
		put(r, keep, decoded[at - plain]);
	}
	return fail(r, "a string without its closing quote");
}

static int digits(struct reader *r)
{
	const char *start = r->p;

	while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
		r->p++;
	return r->p > start ? 0 : fail(r, "not a JSON value (a number without digits)");
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int number(struct reader *r)
{
	if (r->p < r->end && *r->p == '-')
		r->p++;
	if (r->p < r->end && *r->p == '0')
		r->p++;
	else if (digits(r))
		return -1;
	if (r->p < r->end && *r->p == '.') {
		r->p++;
		if (digits(r))
			return -1;
	}
	if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
		r->p++;
		if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
			r->p++;
		if (digits(r))
			return -1;
	}
	return 0;
}

static int literal(struct reader *r, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n))
		return fail(r, "not a JSON value");
	r->p += n;
	return 0;
}

static int value(struct reader *r);

/* The members of an object or the values of an array, after its bracket. */
static int members(struct reader *r, char close)
{
	const char *name;

	if (++r->depth > DECISION_DEPTH_MAX)
		return fail(r, "objects and arrays nested too deep");
	skip_space(r);
	if (r->p < r->end && *r->p == close) {
		r->p++;
		r->depth--;
		return 0;
	}
	for (;;) {
		skip_space(r);
		if (close == '}') {
			if (string(r, 0, &name))
				return -1;
			skip_space(r);
			if (r->p >= r->end || *r->p != ':')
				return fail(r, "a member name without ':'");
			r->p++;
		}
		if (value(r))
			return -1;
		skip_space(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == close) {
			r->p++;
			r->depth--;
			return 0;
		}
		return fail(r, close == '}' ? "an object without ',' or '}' after a member" :
			    "an array without ',' or ']' after a value");
	}
}

/* Any value, checked and passed over. */
static int value(struct reader *r)
{
	const char *s;

	skip_space(r);
	if (r->p >= r->end)
		return fail(r, "a line that ends where a value should be");
	switch (*r->p) {
	case '"':
		return string(r, 0, &s);
	case '{':
		r->p++;
		return members(r, '}');
	case '[':
		r->p++;
		return members(r, ']');
	case 't':
		return literal(r, "true");
	case 'f':
		return literal(r, "false");
	case 'n':
		return literal(r, "null");
	}
	return number(r);
}

/* The members bloom reads; each at most once. */
enum member { M_ACTION, M_VALUE, M_SCOPE, M_DURATION, M_COUNT };
static const char *const member_names[M_COUNT] = {
	[M_ACTION] = "action",
	[M_VALUE] = "value",
	[M_SCOPE] = "scope",
	[M_DURATION] = "duration",
};

/* A member's name, decoded, and which of those it is (-1: another). */
static int member_name(struct reader *r, char *name, size_t room)
{
	char *out = r->out, *out_end = r->out_end;
	const char *s;
	int i;

	/* decoded into @name, not the buffer of kept strings */
	r->out = name;
	r->out_end = name + room - 1;
	name[room - 1] = '\0';
	i = string(r, 1, &s);
	r->out = out;
	r->out_end = out_end;
	if (i)
		return -2;
	for (i = 0; i < M_COUNT; i++)
		if (!strcmp(name, member_names[i]))
			return i;
	return -1;
}

int decision_parse(const char *line, size_t len, struct decision *d,
		   const char **why)
{
	struct reader r = { .p = line, .end = line + len, .out = d->buf,
			    .out_end = d->buf + sizeof(d->buf) };
	const char *m[M_COUNT] = { NULL };
	int seen[M_COUNT] = { 0 };
	char name[16];
	int i;

	d->value = NULL;
	d->scope = NULL;
	d->duration = NULL;
	if (len > DECISION_LINE_MAX) {
		*why = "a line over 16384 bytes";
		return -1;
	}
	skip_space(&r);
	if (r.p >= r.end || *r.p != '{') {
		*why = "not a JSON object";
		return -1;
	}
	r.p++;
	r.depth = 1;
	skip_space(&r);
	if (r.p < r.end && *r.p == '}')
		r.p++;
	else
		for (;;) {
			skip_space(&r);
			i = member_name(&r, name, sizeof(name));
			if (i == -2)
				goto bad;
			skip_space(&r);
			if (r.p >= r.end || *r.p != ':') {
				fail(&r, "a member name without ':'");
				goto bad;
			}
			r.p++;
			skip_space(&r);
			if (i >= 0 && seen[i]++) {
				fail(&r, "a member given twice");
				goto bad;
			}
			if (i >= 0 && r.p < r.end && *r.p == '"') {
				if (string(&r, 1, &m[i]))
					goto bad;
			} else if (i >= 0 && !literal(&r, "null")) {
				m[i] = NULL;
			} else if (i >= 0) {
				r.why = NULL;
				fail(&r, i == M_VALUE ? "a \"value\" that is not a string" :
				     i == M_ACTION ? "an \"action\" that is not a string" :
				     i == M_SCOPE ? "a \"scope\" that is not a string" :
				     "a \"duration\" that is not a string");
				goto bad;
			} else if (value(&r)) {
				goto bad;
			}
			skip_space(&r);
			if (r.p < r.end && *r.p == ',') {
				r.p++;
				continue;
			}
			if (r.p < r.end && *r.p == '}') {
				r.p++;
				break;
			}
			fail(&r, "an object without ',' or '}' after a member");
			goto bad;
		}
	skip_space(&r);
	if (r.p != r.end) {
		*why = "text after the JSON object";
		return -1;
	}
	if (!m[M_ACTION]) {
		*why = "no \"action\" (crowdsec-custom-bouncer writes one with feed_via_stdin: true)";
		return -1;
	}
	if (!strcmp(m[M_ACTION], "add")) {
		d->op = DECISION_ADD;
	} else if (!strcmp(m[M_ACTION], "del")) {
		d->op = DECISION_DEL;
	} else {
		*why = "an \"action\" other than \"add\" and \"del\"";
		return -1;
	}
	if (!m[M_VALUE]) {
		*why = "no \"value\"";
		return -1;
	}
	d->value = m[M_VALUE];
	d->scope = m[M_SCOPE];
	d->duration = m[M_DURATION];
	return 0;
bad:
	*why = r.why;
	return -1;
}

/* A prefix length as the per-decision program takes it: no leading zero. */
static int length_text_ok(const char *value)
{
	const char *slash = strchr(value, '/');

	return !slash || slash[1] != '0' || slash[2] == '\0';
}

enum decision_key_result decision_key(const struct decision *d, int *family,
				      uint8_t *key, int *klen,
				      const char **why)
{
	const char *v = d->value;

	if (d->scope && strcasecmp(d->scope, "ip") &&
	    strcasecmp(d->scope, "range"))
		return DECISION_SCOPE;
	*family = strchr(v, ':') ? AF_INET6 : AF_INET;
	if (!length_text_ok(v)) {
		*why = "a prefix length with a leading zero";
		return DECISION_BAD;
	}
	/* host bits cleared, /0 and netblocks shorter than /8 refused */
	if (feed_parse_entry(v, *family, FEED_F_MASK, key, klen, why) !=
	    FEED_KEY)
		return DECISION_BAD;
	return DECISION_KEY;
}

#define NS_PER_S	1000000000ULL

/* The units of Go's time.ParseDuration, in nanoseconds. */
static const struct {
	const char *name;
	uint64_t ns;
} units[] = {
	/* two-letter ones first: "ms" is not "m" followed by "s" */
	{ "ns", 1 }, { "us", 1000 }, { "\xc2\xb5s", 1000 },
	{ "\xce\xbcs", 1000 }, { "ms", 1000000 },
	{ "s", NS_PER_S }, { "m", 60 * NS_PER_S }, { "h", 3600 * NS_PER_S },
};
#define N_UNITS	(sizeof(units) / sizeof(units[0]))

/*
 * The digits at *@p, by value, saturated at @cap: leading zeros and any
 * number of digits are fine.
 */
static uint64_t leading_int(const char **p, uint64_t cap)
{
	const char *s = *p;
	uint64_t v = 0;

	for (; *s >= '0' && *s <= '9'; s++)
		v = v > (cap - (*s - '0')) / 10 ? cap : v * 10 + (*s - '0');
	*p = s;
	return v;
}

int decision_seconds(const char *text, int64_t max, int64_t *seconds)
{
	/* nanoseconds past any duration the filter takes: a bound, no overflow */
	unsigned __int128 total = 0;
	const uint64_t cap = ((uint64_t)max + 1) * NS_PER_S;
	const char *s = text, *start;
	uint64_t whole, frac, scale, unit;
	int neg = 0, plain = 1;
	size_t i, n;

	if (max < 0 || (uint64_t)max >= UINT64_MAX / NS_PER_S - 1)
		return -1;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (!*s)
		return -1;
	while (*s) {
		start = s;
		whole = leading_int(&s, cap);
		n = s - start;
		frac = 0;
		scale = 1;
		if (*s == '.') {
			s++;
			/* 18 digits of fraction: below a nanosecond of an hour */
			for (; *s >= '0' && *s <= '9'; s++, n++)
				if (scale < 1000000000000000000ULL) {
					frac = frac * 10 + (*s - '0');
					scale *= 10;
				}
		}
		if (!n)
			return -1;
		for (i = 0; i < N_UNITS; i++)
			if (!strncmp(s, units[i].name, strlen(units[i].name)))
				break;
		if (i < N_UNITS) {
			unit = units[i].ns;
			s += strlen(units[i].name);
		} else if (plain && !*s) {
			/* the whole text a number: seconds */
			unit = NS_PER_S;
		} else {
			return -1;
		}
		plain = 0;
		total += (unsigned __int128)whole * unit +
			 (unsigned __int128)frac * unit / scale;
		if (total > cap)
			total = cap;
	}
	total /= NS_PER_S;
	if (total > (uint64_t)max)
		total = max;
	*seconds = neg ? -(int64_t)total : (int64_t)total;
	return 0;
}

int decision_printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return 0;
	return 1;
}
