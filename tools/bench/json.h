/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal streaming JSON writer for the benchmarks' results on stdout:
 * objects, arrays, numbers, strings. It only tracks where commas go.
 */
#ifndef BENCH_JSON_H
#define BENCH_JSON_H

#include <stdint.h>
#include <stdio.h>

/* @key is NULL inside arrays and for the top-level value. */
void json_obj(FILE *f, const char *key);
void json_arr(FILE *f, const char *key);
void json_end(FILE *f);	/* closes the innermost object or array */
void json_num(FILE *f, const char *key, double v);
void json_u64(FILE *f, const char *key, uint64_t v);
void json_str(FILE *f, const char *key, const char *v);
void json_bool(FILE *f, const char *key, int v);

#endif /* BENCH_JSON_H */
