// SPDX-License-Identifier: GPL-2.0
/*
 * Keys with their own timeouts on the command line: the timeout of add
 * and of create --key-timeouts, what they refuse and why, ipset's -exist,
 * and create --exist's comparison with the filter that exists.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "bloomctl.h"

uint32_t parse_key_timeout(const char *verb, const char *arg)
{
	uint64_t ms;

	if (parse_duration_ms(arg, &ms) || ms % 1000 ||
	    ms / 1000 > BLOOM_KEY_TIMEOUT_MAX)
		die_usage(verb, "bad timeout '%s': give 0 (no timeout) or whole seconds from 1 to %u (68 years), e.g. 600, 10m, 4h, 30d or 1y",
			  arg, BLOOM_KEY_TIMEOUT_MAX);
	return (uint32_t)(ms / 1000);
}

void exist_spelling(int argc, char **argv)
{
	static char exist[] = "--exist";
	int i;

	/* ipset spells it -exist; getopt would read -e -x -i -s -t */
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-exist"))
			argv[i] = exist;
}

void die_no_key_timeouts(const char *verb, const char *name, int fd)
{
	struct bloom_info in;
	const char *type = "this";

	if (!bloom_info(fd, NULL, &in))
		type = bloom_type_name(in.type) ? bloom_type_name(in.type) : "?";
	die_usage(verb, "%s is a %s filter, whose keys have no timeouts of their own: create one with --key-timeouts (bloomctl create NAME --capacity N --fpp P --key-timeouts [--timeout DEFAULT]) and add the keys there",
		  name, type);
}

void die_timeout_over(const char *verb, const char *name, uint32_t timeout_s,
		      uint32_t max_s)
{
	die_usage(verb, "bad timeout %us: %s takes timeouts from 0 (none) to %us, the largest it was created with (create --max-timeout)",
		  timeout_s, name, max_s);
}

int same_filter(const struct bloom_info *in, const struct bloom_create_opts *o,
		char *why, size_t len)
{
	uint32_t ppb = 0;

	bloom_fpp_to_ppb(o->fpp, &ppb);
	if (in->type != (uint32_t)o->type)
		snprintf(why, len, "it is a %s filter", bloom_type_name(in->type) ?
			 bloom_type_name(in->type) : "?");
	else if (o->capacity && in->capacity != o->capacity)
		snprintf(why, len, "its capacity is %" PRIu64, (uint64_t)in->capacity);
	else if (ppb && in->fpp_ppb != ppb)
		snprintf(why, len, "its rate is %g", in->fpp_ppb / 1e9);
	else if (in->key_timeout_s != o->key_timeout_s)
		snprintf(why, len, "its keys' default timeout is %us",
			 in->key_timeout_s);
	else if (o->keys && in->keys != (uint32_t)o->keys)
		snprintf(why, len, "its keys are of another kind");
	else if (in->timeout_ms != o->timeout_ms)
		snprintf(why, len, "its timeout is %" PRIu64 " ms",
			 (uint64_t)in->timeout_ms);
	else
		return 1;
	return 0;
}
