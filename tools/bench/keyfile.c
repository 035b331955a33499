// SPDX-License-Identifier: GPL-2.0
/*
 * bench-keyfile: writes benchmark keys as text, one a line, for the CLI
 * comparison (bloomctl and DCSO's bloom read newline-separated keys). A key
 * is the 32 hex digits of its 16 bytes (keys.h), so present and absent keys
 * can never collide.
 *
 * usage: bench-keyfile present|absent COUNT > FILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "keys.h"

int main(int argc, char **argv)
{
	static const char hex[] = "0123456789abcdef";
	enum bench_set set;
	unsigned long long n, i;
	char line[2 * BENCH_KEY_LEN + 1];
	struct bench_key k;

	if (argc != 3 || (strcmp(argv[1], "present") && strcmp(argv[1], "absent"))) {
		fprintf(stderr, "usage: %s present|absent COUNT > FILE\n", argv[0]);
		return 2;
	}
	set = strcmp(argv[1], "present") ? BENCH_ABSENT : BENCH_PRESENT;
	n = strtoull(argv[2], NULL, 0);
	line[2 * BENCH_KEY_LEN] = '\n';
	for (i = 0; i < n; i++) {
		const unsigned char *b = (const unsigned char *)k.w;

		bench_key(set, i, &k);
		for (int j = 0; j < BENCH_KEY_LEN; j++) {
			line[2 * j] = hex[b[j] >> 4];
			line[2 * j + 1] = hex[b[j] & 15];
		}
		if (fwrite(line, sizeof(line), 1, stdout) != 1) {
			perror("bench-keyfile");
			return 1;
		}
	}
	return fflush(stdout) ? 1 : 0;
}
