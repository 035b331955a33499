// SPDX-License-Identifier: GPL-2.0
/* See json.h. One writer per process: the state is a stack of brackets. */
#include <math.h>
#include "json.h"

#define JSON_DEPTH	16

static char closer[JSON_DEPTH];
static int first[JSON_DEPTH];
static int depth;

static void json_key(FILE *f, const char *key)
{
	if (depth > 0 && !first[depth - 1])
		fputc(',', f);
	if (depth > 0)
		first[depth - 1] = 0;
	fputc('\n', f);
	for (int i = 0; i < depth; i++)
		fputs("  ", f);
	if (key)
		fprintf(f, "\"%s\": ", key);
}

static void json_open(FILE *f, const char *key, char open, char close)
{
	json_key(f, key);
	fputc(open, f);
	if (depth < JSON_DEPTH) {
		closer[depth] = close;
		first[depth] = 1;
		depth++;
	}
}

void json_obj(FILE *f, const char *key)
{
	json_open(f, key, '{', '}');
}

void json_arr(FILE *f, const char *key)
{
	json_open(f, key, '[', ']');
}

void json_end(FILE *f)
{
	if (depth <= 0)
		return;
	depth--;
	fputc('\n', f);
	for (int i = 0; i < depth; i++)
		fputs("  ", f);
	fputc(closer[depth], f);
	if (!depth)
		fputc('\n', f);
	fflush(f);
}

void json_num(FILE *f, const char *key, double v)
{
	json_key(f, key);
	/* JSON has no NaN or infinity: a missing measurement is null. */
	if (isfinite(v))
		fprintf(f, "%.6g", v);
	else
		fputs("null", f);
}

void json_u64(FILE *f, const char *key, uint64_t v)
{
	json_key(f, key);
	fprintf(f, "%llu", (unsigned long long)v);
}

void json_str(FILE *f, const char *key, const char *v)
{
	json_key(f, key);
	fputc('"', f);
	for (; *v; v++) {
		if (*v == '"' || *v == '\\')
			fputc('\\', f);
		if ((unsigned char)*v >= 0x20)
			fputc(*v, f);
	}
	fputc('"', f);
}

void json_bool(FILE *f, const char *key, int v)
{
	json_key(f, key);
	fputs(v ? "true" : "false", f);
}
