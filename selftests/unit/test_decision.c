// SPDX-License-Identifier: GPL-2.0
/*
 * The decision lines crowdsec-bloom-stdin reads from crowdsec-custom-bouncer
 * (tools/clients/decision.c): lines as the bouncer writes them, the JSON
 * they may hold, the lines that are no decision, the keys of addresses and
 * ranges, and Go's durations.
 */
#include <arpa/inet.h>
#include <string.h>

#include "unit.h"
#include "decision.h"

/* What the bouncer 0.0.15 writes (encoding/json of the decision, "action" last). */
#define ADD_LINE "{\"duration\":\"3h59m59.607553613s\",\"id\":1,\"origin\":\"cscli\",\"scenario\":\"manual 'ban' from 'localhost'\",\"scope\":\"Ip\",\"type\":\"ban\",\"value\":\"10.0.0.1\",\"action\":\"add\"}"
#define DEL_LINE "{\"duration\":\"-1.5s\",\"id\":7,\"origin\":\"cscli\",\"scenario\":\"manual 'ban' from 'localhost'\",\"scope\":\"Range\",\"type\":\"ban\",\"value\":\"203.0.113.9/24\",\"action\":\"del\"}"

static struct decision d;

static int parse(const char *line, const char **why)
{
	*why = NULL;
	return decision_parse(line, strlen(line), &d, why);
}

/* @line is no decision, and says why in words that hold @re. */
static void expect_bad(const char *line, const char *re)
{
	const char *why;
	int r = parse(line, &why);

	check(r == -1 && why && strstr(why, re), "'%.60s': refused: %s", line,
	      why ? why : "(no reason)");
}

/* @line's value is the key @text (inet_pton's) of prefix length @plen. */
static void expect_key(const char *line, const char *text, int plen)
{
	int family = strchr(text, ':') ? AF_INET6 : AF_INET, f, klen = 0;
	int alen = family == AF_INET ? 4 : 16;
	uint8_t want[17], key[17];
	const char *why = NULL;
	int r = parse(line, &why);

	inet_pton(family, text, want);
	want[alen] = (uint8_t)plen;
	if (!r)
		r = decision_key(&d, &f, key, &klen, &why);
	check(!r && f == family &&
	      klen == (plen == alen * 8 ? alen : alen + 1) &&
	      !memcmp(key, want, klen), "'%s': the key of %s/%d%s%s",
	      d.value ? d.value : "?", text, plen, why ? ": " : "",
	      why ? why : "");
}

/* @line is a decision whose value is no key bloom takes (@re says why). */
static void expect_no_key(const char *line, const char *re)
{
	const char *why = NULL;
	uint8_t key[17];
	int family, klen, r = parse(line, &why);

	if (!r)
		r = decision_key(&d, &family, key, &klen, &why);
	check(r == DECISION_BAD && why && strstr(why, re), "'%.60s': no key: %s",
	      line, why ? why : "(no reason)");
}

static void expect_seconds(const char *text, int64_t max, int64_t want)
{
	int64_t s = 12345;
	int r = decision_seconds(text, max, &s);

	check(r == 0 && s == want, "duration '%.48s': %lld s (want %lld)",
	      text, (long long)s, (long long)want);
}

static void expect_no_seconds(const char *text)
{
	int64_t s;

	check(decision_seconds(text, 2147483647, &s) == -1,
	      "duration '%s': refused", text);
}

/* A del whose member "x" is @levels arrays deep in the line's object, into @buf. */
static const char *nested(char *buf, int levels)
{
	int i;

	strcpy(buf, "{\"action\":\"del\",\"value\":\"10.0.0.1\",\"x\":");
	for (i = 0; i < levels; i++)
		strcat(buf, "[");
	for (i = 0; i < levels; i++)
		strcat(buf, "]");
	return strcat(buf, "}");
}

static void lines(void)
{
	const char *why;
	char big[DECISION_LINE_MAX + 64], deep[128];
	uint8_t key[17];
	int family, klen;

	check(!parse(ADD_LINE, &why) && d.op == DECISION_ADD &&
	      !strcmp(d.value, "10.0.0.1") && !strcmp(d.scope, "Ip") &&
	      !strcmp(d.duration, "3h59m59.607553613s"),
	      "the bouncer's add line: add, value, scope and duration");
	check(!parse(DEL_LINE, &why) && d.op == DECISION_DEL &&
	      !strcmp(d.value, "203.0.113.9/24"),
	      "the bouncer's del line: del of 203.0.113.9/24");
	check(!parse(" \t{ \"action\" : \"del\" , \"value\" : \"10.0.0.1\" } \r\n",
		     &why) && d.op == DECISION_DEL && !d.scope && !d.duration,
	      "white space anywhere JSON allows it; no scope, no duration");
	check(!parse("{\"action\":\"add\",\"value\":\"\\u0031\\u0030.0.0.1\",\"scope\":null,\"duration\":\"1h\"}",
		     &why) && !strcmp(d.value, "10.0.0.1") && !d.scope,
	      "\\u escapes decoded; a null scope is none");
	check(!parse("{\"scenario\":\"caf\\u00e9 \\ud83d\\ude00 \\\"q\\\" \\/ \\\\ \\b\\f\\n\\r\\t\",\"x\":[1,-2.5e+3,0.0,true,false,null,{\"a\":[{}]},[]],\"action\":\"add\",\"value\":\"10.0.0.1\",\"duration\":\"1h\"}",
		     &why) && !strcmp(d.value, "10.0.0.1"),
	      "members bloom does not read: checked as JSON and passed over%s%s",
	      why ? ": " : "", why ? why : "");
	check(!parse("{\"duration\":\"1h\",\"action\":\"add\",\"value\":\"2001:db8::1\",\"scope\":\"\\u0049\\u0070\"}",
		     &why) && !strcmp(d.scope, "Ip"), "a scope spelt with escapes");

	expect_bad("", "not a JSON object");
	expect_bad("add 10.0.0.1 3600", "not a JSON object");
	expect_bad("[{\"action\":\"add\"}]", "not a JSON object");
	expect_bad("{", "where a value should be");
	expect_bad("{\"action\":\"add\",\"value\":\"10.0.0.1\"", "without ',' or '}'");
	expect_bad("{\"action\":\"add\",\"value\":\"10.0.0.1}", "closing quote");
	expect_bad("{\"action\":\"add\",\"value\":\"10.0.0.1\"} x", "text after");
	expect_bad("{\"action\":\"add\",\"value\":\"10.0.0.1\"}{}", "text after");
	expect_bad("{\"action\" \"add\",\"value\":\"10.0.0.1\"}", "without ':'");
	expect_bad("{action:\"add\",\"value\":\"10.0.0.1\"}", "not a string");
	expect_bad("{\"action\":\"add\",\"value\":\"10.0.0.1\",}", "not a string");
	expect_bad("{\"value\":\"10.0.0.1\"}", "no \"action\"");
	expect_bad("{\"action\":\"add\"}", "no \"value\"");
	expect_bad("{\"action\":\"ban\",\"value\":\"10.0.0.1\"}", "other than \"add\" and \"del\"");
	expect_bad("{\"action\":\"ADD\",\"value\":\"10.0.0.1\"}", "other than \"add\" and \"del\"");
	expect_bad("{\"action\":\"add\",\"value\":167772161}", "\"value\" that is not a string");
	expect_bad("{\"action\":[\"add\"],\"value\":\"10.0.0.1\"}", "\"action\" that is not a string");
	expect_bad("{\"action\":\"add\",\"value\":\"10.0.0.1\",\"duration\":3600}", "\"duration\" that is not a string");
	expect_bad("{\"action\":\"add\",\"value\":\"10.0.0.1\",\"value\":\"10.0.0.2\"}", "given twice");
	expect_bad("{\"action\":\"del\",\"value\":null,\"value\":\"10.0.0.2\"}", "given twice");
	expect_bad("{\"action\":\"add\",\"value\":\"10.0.0.1\\u0000x\"}", "NUL character");
	expect_bad("{\"action\":\"add\",\"value\":\"10.0.0.1\\x\"}", "bad escape");
	expect_bad("{\"action\":\"add\",\"value\":\"10.0.0.1\\u12\"}", "four hexadecimal");
	expect_bad("{\"action\":\"add\",\"value\":\"\\udc00\"}", "lone low surrogate");
	expect_bad("{\"action\":\"add\",\"value\":\"\\ud800x\"}", "without its low one");
	expect_bad("{\"action\":\"add\",\"value\":\"10.0.0.1\",\"s\":\"a\tb\"}", "control character");
	expect_bad("{\"action\":\"add\",\"value\":\"10.0.0.1\",\"n\":01}", "without ',' or '}'");
	expect_bad("{\"action\":\"add\",\"value\":\"10.0.0.1\",\"n\":-}", "number without digits");
	expect_bad("{\"action\":\"add\",\"value\":\"10.0.0.1\",\"n\":1.}", "number without digits");
	expect_bad("{\"action\":\"add\",\"value\":\"10.0.0.1\",\"n\":tru}", "not a JSON value");
	expect_bad("{\"action\":\"add\",\"value\":\"10.0.0.1\",\"a\":[1 2]}", "without ',' or ']'");

	/* nesting: 16 levels of the line's are fine, 17 are not */
	check(!parse(nested(deep, 15), &why), "objects and arrays 16 deep: read");
	expect_bad(nested(deep, 16), "nested too deep");

	/* the longest line taken, and one byte more */
	memset(big, ' ', sizeof(big));
	memcpy(big, ADD_LINE, strlen(ADD_LINE));
	check(!decision_parse(big, DECISION_LINE_MAX, &d, &why),
	      "a line of %d bytes (the decision and spaces): read", DECISION_LINE_MAX);
	check(decision_parse(big, DECISION_LINE_MAX + 1, &d, &why) == -1 &&
	      strstr(why, "over 16384"), "a line of %d bytes: refused",
	      DECISION_LINE_MAX + 1);

	/* keys: addresses, ranges as their networks, IPv6 */
	expect_key(ADD_LINE, "10.0.0.1", 32);
	expect_key(DEL_LINE, "203.0.113.0", 24);
	expect_key("{\"action\":\"add\",\"value\":\"198.51.100.0/24\",\"scope\":\"range\"}",
		   "198.51.100.0", 24);
	expect_key("{\"action\":\"add\",\"value\":\"10.0.0.1/32\",\"scope\":\"IP\"}",
		   "10.0.0.1", 32);
	expect_key("{\"action\":\"add\",\"value\":\"2001:db8::1\",\"scope\":\"Ip\"}",
		   "2001:db8::1", 128);
	expect_key("{\"action\":\"add\",\"value\":\"2001:db8:1:2:3::9/64\",\"scope\":\"Range\"}",
		   "2001:db8:1:2::", 64);
	expect_key("{\"action\":\"add\",\"value\":\"10.1.2.3/8\"}", "10.0.0.0", 8);
	expect_no_key("{\"action\":\"add\",\"value\":\"10.0.0.256\"}", "not an IPv4");
	expect_no_key("{\"action\":\"add\",\"value\":\"010.0.0.1\"}", "not an IPv4");
	expect_no_key("{\"action\":\"add\",\"value\":\"2001:db8::g\"}", "not an IPv6");
	expect_no_key("{\"action\":\"add\",\"value\":\"\"}", "not an IPv4");
	expect_no_key("{\"action\":\"add\",\"value\":\" 10.0.0.1\"}", "not an IPv4");
	expect_no_key("{\"action\":\"add\",\"value\":\"10.0.0.0/33\"}", "not an address/length");
	expect_no_key("{\"action\":\"add\",\"value\":\"10.0.0.0/\"}", "not an address/length");
	expect_no_key("{\"action\":\"add\",\"value\":\"10.0.0.0/024\"}", "leading zero");
	expect_no_key("{\"action\":\"add\",\"value\":\"0.0.0.0/0\"}", "/0");
	expect_no_key("{\"action\":\"add\",\"value\":\"16.0.0.0/4\"}", "shorter than /8");
	expect_no_key("{\"action\":\"add\",\"value\":\"2000::/3\"}", "shorter than /8");
	check(!parse("{\"action\":\"add\",\"value\":\"DE\",\"scope\":\"Country\"}", &why) &&
	      decision_key(&d, &family, key, &klen, &why) == DECISION_SCOPE,
	      "scope Country: not applied (a scope of its own)");
	check(!parse("{\"action\":\"add\",\"value\":\"10.0.0.1\",\"scope\":\"ipx\"}", &why) &&
	      decision_key(&d, &family, key, &klen, &why) == DECISION_SCOPE,
	      "scope ipx: not applied");
	check(decision_printable("10.0.0.1") && !decision_printable("a\nb") &&
	      !decision_printable("caf\xc3\xa9"), "printable: ASCII only");
}

static void durations(void)
{
	const int64_t max = 2147483647;

	expect_seconds("4h0m0s", max, 14400);
	expect_seconds("3h59m59.607553613s", max, 14399);
	expect_seconds("1.5h", max, 5400);
	expect_seconds(".5h", max, 1800);
	expect_seconds("5.h", max, 18000);
	expect_seconds("1h1h", max, 7200);
	expect_seconds("90m", max, 5400);
	expect_seconds("1500ms", max, 1);
	expect_seconds("300ms", max, 0);
	expect_seconds("999999us", max, 0);
	expect_seconds("2000000\xc2\xb5s", max, 2);
	expect_seconds("3000000\xce\xbcs", max, 3);
	expect_seconds("4000000000ns", max, 4);
	expect_seconds("-1m3s", max, -63);
	expect_seconds("-1.5s", max, -1);
	expect_seconds("+5s", max, 5);
	expect_seconds("0", max, 0);
	expect_seconds("0s", max, 0);
	/* the per-decision program's forms: seconds, by value */
	expect_seconds("3600", max, 3600);
	expect_seconds("3599.5", max, 3599);
	expect_seconds("00000000005", max, 5);
	expect_seconds("000000000000000000000000000000000000000000000005s", max, 5);
	expect_seconds("2147483647s", max, 2147483647);
	expect_seconds("2147483648s", max, 2147483647);
	expect_seconds("99999999999999999999999999h", max, 2147483647);
	expect_seconds("2562047h47m16.854775807s", max, 2147483647);
	expect_seconds("100s", 50, 50);
	expect_seconds("-99999999999999999999h", max, -2147483647);
	expect_no_seconds("");
	expect_no_seconds("-");
	expect_no_seconds("s");
	expect_no_seconds(".");
	expect_no_seconds(".s");
	expect_no_seconds("5x");
	expect_no_seconds("5 s");
	expect_no_seconds(" 5s");
	expect_no_seconds("1h5");
	expect_no_seconds("5s5");
	expect_no_seconds("1e3s");
	expect_no_seconds("--5s");
	expect_no_seconds("0x10s");
}

int main(void)
{
	printf("TAP version 13\n");
	lines();
	durations();
	printf("1..%d\n", test_no);
	return test_failed ? 1 : 0;
}
