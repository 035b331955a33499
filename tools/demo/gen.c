// SPDX-License-Identifier: GPL-2.0
/*
 * bloom-demo-gen: writes N deterministic, distinct, e-mail-like keys, one per
 * line, fast (the demo runs in an emulated guest where a process per key or
 * a shell loop would take minutes).
 *
 *   bloom-demo-gen SEED N
 *
 * Key i is built from splitmix64(SEED, i), and always carries i itself, so
 * keys are distinct within a run, and runs with different SEEDs use
 * different domains, so their keys never collide.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/*
 * Formatting by hand: printf costs several microseconds a line in an
 * emulated guest, and the demo writes two million lines.
 */
static char *put_str(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

static char *put_u64(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

int main(int argc, char **argv)
{
	static const char *const first[] = {
		"alice", "bob", "carol", "dave", "erin", "frank", "grace",
		"heidi", "ivan", "judy", "mallory", "oscar", "peggy", "trent",
		"victor", "walter",
	};
	static const char *const tld[] = { "com", "net", "org", "io", "biz", "info" };
	static char buf[1 << 16];
	uint64_t seed, n, i;
	char *p = buf;

	if (argc != 3) {
		fprintf(stderr, "usage: bloom-demo-gen SEED N\n");
		return 2;
	}
	seed = strtoull(argv[1], NULL, 0);
	n = strtoull(argv[2], NULL, 0);
	for (i = 0; i < n; i++) {
		uint64_t h = splitmix64(seed * 0x100000000ULL + i);

		/* first.I@mailD-sSEED.tld: I makes keys distinct, SEED runs */
		p = put_str(p, first[h & 15]);
		*p++ = '.';
		p = put_u64(p, i);
		p = put_str(p, "@mail");
		p = put_u64(p, (h >> 8) % 5000);
		p = put_str(p, "-s");
		p = put_u64(p, seed);
		*p++ = '.';
		p = put_str(p, tld[(h >> 32) % 6]);
		*p++ = '\n';
		/* A line is under 100 bytes: flush with room to spare. */
		if (p - buf > (long)sizeof(buf) - 128) {
			if (fwrite(buf, 1, p - buf, stdout) != (size_t)(p - buf))
				return 1;
			p = buf;
		}
	}
	if (fwrite(buf, 1, p - buf, stdout) != (size_t)(p - buf))
		return 1;
	return fflush(stdout) ? 1 : 0;
}
