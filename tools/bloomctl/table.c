// SPDX-License-Identifier: GPL-2.0
/*
 * Tables for people: every cell is formatted first, then each column is
 * as wide as its widest cell, so that no number, however large, pushes a
 * row out of line.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "bloomctl.h"

void table_init(struct table *t, int ncols, unsigned int left)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	t->left = left;
}

void table_cell(struct table *t, const char *fmt, ...)
{
	va_list ap;

	if (t->n % 64 == 0) {
		t->cells = realloc(t->cells, (t->n + 64) * sizeof(*t->cells));
		if (!t->cells)
			die("out of memory");
	}
	va_start(ap, fmt);
	vsnprintf(t->cells[t->n++], sizeof(t->cells[0]), fmt, ap);
	va_end(ap);
}

void table_print(struct table *t, const char *indent)
{
	int w[TABLE_COLS_MAX] = { 0 };
	size_t i, len;
	int c;

	for (i = 0; i < t->n; i++) {
		len = strlen(t->cells[i]);
		c = i % t->ncols;
		if ((int)len > w[c])
			w[c] = len;
	}
	for (i = 0; i < t->n; i++) {
		c = i % t->ncols;
		if (!c)
			fputs(indent, stdout);
		printf(t->left >> c & 1 ? "%-*s" : "%*s",
		       c + 1 < t->ncols ? w[c] : (t->left >> c & 1 ? 0 : w[c]),
		       t->cells[i]);
		fputs(c + 1 < t->ncols ? " " : "\n", stdout);
	}
	free(t->cells);
	t->cells = NULL;
	t->n = 0;
}
