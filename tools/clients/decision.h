/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CrowdSec's decisions as crowdsec-custom-bouncer writes them to its
 * program's standard input (feed_via_stdin: true): one JSON object a line,
 * the decision of CrowdSec's local API (its "duration", "origin", "scope",
 * "type", "value", ...) with "action": "add" or "del" beside it
 * (decision.c). No I/O, so that selftests/unit/test_decision.c runs it on
 * every form a line can take.
 */
#ifndef CROWDSEC_DECISION_H
#define CROWDSEC_DECISION_H

#include <stddef.h>
#include <stdint.h>

enum decision_op {
	DECISION_ADD,
	DECISION_DEL,
};

/*
 * The longest line taken: the bouncer's are about 300 bytes (a scenario's
 * name is the longest member), so a longer one is no decision of its.
 */
#define DECISION_LINE_MAX	16384
/* Nested objects and arrays in a line ("a JSON value"), at most. */
#define DECISION_DEPTH_MAX	16

struct decision {
	enum decision_op op;
	/*
	 * The members, decoded into @buf (a JSON string is never shorter
	 * than what it decodes to); NULL when the line has none (or null).
	 */
	const char *value;
	const char *scope;
	const char *duration;
	char buf[DECISION_LINE_MAX + 8];
};

/*
 * One line (@len bytes, without its "\n") into @d: 0, or -1 with *@why
 * saying what is wrong (over DECISION_LINE_MAX bytes, not JSON, not an
 * object, a member kept that is not a string, one given twice, a NUL
 * character in one, no "action" or "value", an action other than add and
 * del). Members the decision has besides are checked as JSON and left.
 */
int decision_parse(const char *line, size_t len, struct decision *d,
		   const char **why);

enum decision_key_result {
	DECISION_KEY = 0,	/* *@key, *@klen, *@family: what to apply */
	DECISION_SCOPE = 1,	/* a scope other than ip and range: skipped */
	DECISION_BAD = -1,	/* *@why: the value is no address or range */
};

/*
 * The filter key of @d's value: an address, or a range as its network
 * (host bits cleared: 203.0.113.9/24 is 203.0.113.0/24, as bloomctl's
 * --mask-host-bits takes it) in bloom_netblock_key()'s form, @key
 * BLOOM_NETBLOCK_KEY_MAX bytes; ranges shorter than /8 and /0 are refused
 * as bloomctl refuses them. Scopes ip and range (any case), or none, are
 * applied.
 */
enum decision_key_result decision_key(const struct decision *d, int *family,
				      uint8_t *key, int *klen,
				      const char **why);

/*
 * A decision's duration in whole seconds, truncated toward zero as the
 * bouncer's own per-decision arguments are: Go's time.Duration text
 * ("3h59m59.5s", "-1m3s", "300ms", "1.5h"; units ns, us, µs, ms, s, m, h)
 * or a plain number of seconds ("3600", "3599.5"), read by value (leading
 * zeros are nothing). One over @max is @max. Returns 0, or -1 for text
 * that is neither.
 */
int decision_seconds(const char *text, int64_t max, int64_t *seconds);

/* 1 when every byte of @s is printable ASCII (fit for a message). */
int decision_printable(const char *s);

#endif /* CROWDSEC_DECISION_H */
