// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of libbloom's calls that need no device: option structs (the
 * size-field checks), bloom_strerror's bounds and escaping, the type-name
 * table, rate conversion and the library version; and the core's unit
 * parser, which bloomctl and the module parameter max_memory share. TAP 13.
 */
#include <errno.h>
#include <string.h>
#include <libbloom.h>
#include "units.h"
#include "unit.h"

/* A caller compiled against a newer header: one more member at the end. */
struct newer_create_opts {
	struct bloom_create_opts old;
	uint64_t future;
};

static void test_opts(void)
{
	BLOOM_OPTS(bloom_create_opts, o, .capacity = 1000, .fpp = 0.01);
	struct newer_create_opts n;
	uint8_t key[BLOOM_HASH_KEY_LEN] = { 0 };
	int err;

	check(o.sz == sizeof(struct bloom_create_opts) && o.capacity == 1000 &&
	      !o.type && !o.flags && !o.hash_key,
	      "BLOOM_OPTS sets sz and the members given, zeroes the rest");
	/* fd -1: a call that passes every check reaches ioctl(): EBADF */
	err = bloom_create_opts(-1, "x", &o);
	check(err == -EBADF, "valid opts reach the ioctl (%d)", err);
	check(bloom_create_opts(-1, "x", NULL) == -EINVAL, "NULL opts: -EINVAL");
	o.sz = 0;
	check(bloom_create_opts(-1, "x", &o) == -EINVAL, "sz 0: -EINVAL");
	o.sz = sizeof(size_t) - 1;
	check(bloom_create_opts(-1, "x", &o) == -EINVAL, "sz below its own member: -EINVAL");
	/* an old caller's struct that ends before fpp: fpp reads as 0 */
	o.sz = offsetof(struct bloom_create_opts, fpp);
	err = bloom_create_opts(-1, "x", &o);
	check(err == -EINVAL, "a struct too old to have fpp gets fpp 0, refused (%d)", err);
	memset(&n, 0, sizeof(n));
	n.old = o;
	n.old.sz = sizeof(n);
	err = bloom_create_opts(-1, "x", &n.old);
	check(err == -EBADF, "a newer caller's larger struct, unknown bytes 0: accepted (%d)", err);
	n.future = 1;
	err = bloom_create_opts(-1, "x", &n.old);
	check(err == -E2BIG, "a newer caller's larger struct using what this library lacks: -E2BIG (%d)", err);
	o.sz = sizeof(o);
	o.flags = BLOOM_CREATE_F_HASH_KEY;
	check(bloom_create_opts(-1, "x", &o) == -EINVAL,
	      "BLOOM_CREATE_F_HASH_KEY without hash_key: -EINVAL");
	o.hash_key = key;
	check(bloom_create_opts(-1, "x", &o) == -EBADF, "with hash_key: accepted");
	o.flags = BLOOM_CREATE_F_GEOMETRY;
	o.hash_key = NULL;
	check(bloom_create_opts(-1, "x", &o) == -EINVAL,
	      "BLOOM_CREATE_F_GEOMETRY without bits and hashes: -EINVAL");
	o.flags = 0;
	o.bits = 4096;
	check(bloom_create_opts(-1, "x", &o) == -EINVAL, "bits without hashes: -EINVAL");
	check(bloom_create(-1, "x", BLOOM_TYPE_STANDARD, 10, 0.01,
			   BLOOM_CREATE_F_HASH_KEY) == -EINVAL,
	      "bloom_create refuses flags that need opts members");
}

static void test_strerror(void)
{
	char buf[256], small[8];
	const char *s;

	s = bloom_strerror(buf, sizeof(buf), (enum bloom_op)1000, "f", -EIO);
	check(s == buf && strstr(buf, "failed") && strstr(buf, "Input/output error"),
	      "an op past the enum gets a generic message: %s", buf);
	s = bloom_strerror(buf, sizeof(buf), (enum bloom_op)-1, NULL, -ENOENT);
	check(s == buf && strlen(buf) > 0, "a negative op too: %s", buf);
	memset(small, 'x', sizeof(small));
	bloom_strerror(small, sizeof(small), BLOOM_OP_CREATE, "name", -EEXIST);
	check(memchr(small, '\0', sizeof(small)) != NULL,
	      "a short buffer is cut and NUL-terminated");
	memset(small, 'x', sizeof(small));
	bloom_strerror(small, 0, BLOOM_OP_CREATE, "name", -EEXIST);
	check(small[0] == 'x', "len 0 writes nothing");
	bloom_strerror(buf, sizeof(buf), BLOOM_OP_BIND, "a\nb", -EINVAL);
	check(!strchr(buf, '\n') && strstr(buf, "a\\x0ab"),
	      "a newline in the subject is escaped: %s", buf);
	bloom_strerror(buf, sizeof(buf), BLOOM_OP_CREATE, "spam", -EEXIST);
	check(!strstr(buf, "bloomctl") && !strstr(buf, "--"),
	      "messages speak about library calls, not the CLI: %s", buf);
	bloom_strerror(buf, sizeof(buf), BLOOM_OP_DELETE, "spam", -EOPNOTSUPP);
	check(!strstr(buf, "bloomctl") && !strstr(buf, "--"), "%s", buf);
	bloom_strerror(buf, sizeof(buf), BLOOM_OP_OPEN, "/x/y", -ENOTDIR);
	check(!strstr(buf, "bloomctl") && !strstr(buf, "--"), "%s", buf);
}

static void test_types(void)
{
	static const char *const names[] = BLOOM_TYPE_NAMES;
	uint32_t t;
	int ok = 1;

	for (t = BLOOM_TYPE_STANDARD; t <= BLOOM_TYPE_DLEFT; t++)
		ok &= bloom_type_name(t) == names[t] &&
		      bloom_type_from_name(bloom_type_name(t)) == t;
	check(ok, "every type's name comes from BLOOM_TYPE_NAMES and parses back");
	check(!bloom_type_name(0) && !bloom_type_name(BLOOM_TYPE_DLEFT + 1) &&
	      !bloom_type_name(UINT32_MAX), "no name for a value that is no type");
	check(bloom_type_from_name("d-left") == BLOOM_TYPE_DLEFT &&
	      !bloom_type_from_name("cuckoo") && !bloom_type_from_name(NULL) &&
	      !bloom_type_from_name(""), "\"d-left\" parses, unknown names give 0");
}

static void test_fpp(void)
{
	uint32_t ppb = 0, i;
	int ok = 1;

	/* every ppb written as i / 1e9 (what a user types) converts back */
	for (i = 1; i <= BLOOM_FPP_PPB_MAX; i += i < 1000 ? 1 : i / 1000) {
		if (bloom_fpp_to_ppb(i / 1e9, &ppb) || ppb != i) {
			ok = 0;
			break;
		}
	}
	check(ok, "every rate i/1e9 converts to i ppb (first miss at %u)", ok ? 0 : i);
	check(bloom_fpp_to_ppb(5e-10, &ppb) == -EINVAL, "5e-10 cannot be honoured: -EINVAL");
	ok = !bloom_fpp_to_ppb(1.6e-9, &ppb) && ppb == 1;
	check(ok, "1.6e-9 is rounded down to 1 ppb, never up (%u)", ppb);
	ok = !bloom_fpp_to_ppb(0.0123456789, &ppb) && ppb == 12345678;
	check(ok, "0.0123456789 is 12345678 ppb (%u)", ppb);
}

static void test_units(void)
{
	static const struct { const char *s; int err; uint64_t v; } c[] = {
		{ "0", 0, 0 }, { "1", 0, 1 }, { "10k", 0, 10000 },
		{ "10K", 0, 10000 }, { "1M", 0, 1000000 }, { "2G", 0, 2000000000 },
		{ "1T", 0, 1000000000000ULL }, { "1Ki", 0, 1024 },
		{ "1Mi", 0, 1048576 }, { "4Gi", 0, 4294967296ULL },
		{ "1Ti", 0, 1099511627776ULL }, { "4Gi\n", 0, 4294967296ULL },
		{ "18446744073709551615", 0, 18446744073709551615ULL },
		{ "18446744073709551616", -ERANGE, 0 }, { "20000000T", -ERANGE, 0 },
		{ "", -EINVAL, 0 }, { "\n", -EINVAL, 0 }, { "k", -EINVAL, 0 },
		{ "1x", -EINVAL, 0 }, { "1Mx", -EINVAL, 0 }, { "1i", -EINVAL, 0 },
		{ "1MiB", -EINVAL, 0 }, { "-1", -EINVAL, 0 }, { " 1", -EINVAL, 0 },
		{ "1 ", -EINVAL, 0 }, { "1m", -EINVAL, 0 }, { "0x10", -EINVAL, 0 },
	};
	unsigned int i, bad = 0;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint64_t v = 0;
		int err = bloom_parse_units(c[i].s, strlen(c[i].s), &v);

		if (err != c[i].err || (!err && v != c[i].v)) {
			printf("# '%s': %d %llu\n", c[i].s, err, (unsigned long long)v);
			bad++;
		}
	}
	check(!bad, "bloom_parse_units: %u cases, powers of 1000 and 1024, overflow, junk",
	      i);
}

int main(void)
{
	printf("TAP version 13\n");
	test_opts();
	test_strerror();
	test_types();
	test_fpp();
	test_units();
	check(!strcmp(bloom_library_version(), BLOOM_TEST_VERSION),
	      "bloom_library_version() is the file VERSION (%s)",
	      bloom_library_version());
	printf("1..%d\n", test_no);
	return test_failed ? 1 : 0;
}
