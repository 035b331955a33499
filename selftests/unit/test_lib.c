// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of libbloom's calls that need no device: option structs (the
 * size-field checks), bloom_batch() against a fake device, bloom_strerror's
 * bounds and escaping, the type-name table, rate conversion and the library
 * version; and the core's unit parser, which bloomctl and the module
 * parameter max_memory share. TAP 13.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <libbloom.h>
#include "units.h"
#include "unit.h"

/*
 * A fake device behind descriptor FAKE_FD, so that bloom_batch()'s
 * splitting into ioctls and bloom_create_opts()'s requests can be checked
 * without the module: this program links libbloom.a, so its ioctl() is the
 * library's. CREATE keeps the request in fake.create. A key is present when
 * its first byte is odd, and a DELETE finds it pinned when that byte is a
 * multiple of 3. Call number fake.fail_at fails with EDQUOT after doing
 * fake.fail_done keys, as an ADD to a scalable filter that cannot grow.
 * INFO answers fake.info (all zero: a filter the overfill bound does not
 * apply to), or fails with fake.info_errno; fake.infos counts them, apart
 * from the batches' fake.calls.
 */
#define FAKE_FD	1000

static struct {
	unsigned int calls, fail_at, fail_done, infos;
	uint32_t max_nkeys;
	uint64_t max_bytes;
	struct bloom_create create;
	struct bloom_info info;
	int info_errno;
} fake;

static int fake_batch(unsigned long cmd, struct bloom_batch *b)
{
	const uint8_t *keys = (const uint8_t *)(uintptr_t)b->keys;
	const uint32_t *lens = (const uint32_t *)(uintptr_t)b->lens;
	uint8_t *res = (uint8_t *)(uintptr_t)b->results;
	uint8_t *pin = (uint8_t *)(uintptr_t)b->pinned;
	uint64_t off = 0;
	uint32_t i;

	fake.calls++;
	if (b->size != sizeof(*b) || b->reserved ||
	    !b->pinned != !(b->flags & BLOOM_BATCH_F_PINNED) ||
	    (b->pinned && cmd != BLOOM_IOC_DELETE) ||
	    b->nkeys > BLOOM_BATCH_MAX_KEYS ||
	    b->keys_len > BLOOM_BATCH_MAX_BYTES) {
		errno = EINVAL;
		return -1;
	}
	if (b->nkeys > fake.max_nkeys)
		fake.max_nkeys = b->nkeys;
	if (b->keys_len > fake.max_bytes)
		fake.max_bytes = b->keys_len;
	b->out_hits = 0;
	b->out_pinned = 0;
	for (i = 0; i < b->nkeys; i++) {
		uint8_t k = keys[off];
		int pinned = cmd == BLOOM_IOC_DELETE && k % 3 == 0;
		int hit = (k & 1) && !pinned;

		if (fake.calls == fake.fail_at && i == fake.fail_done) {
			b->out_done = i;
			errno = EDQUOT;
			return -1;
		}
		off += b->key_size ? b->key_size : lens[i];
		b->out_hits += hit;
		b->out_pinned += pinned;
		if (res)
			res[i / 8] = (res[i / 8] & ~(1U << (i % 8))) |
				     hit << (i % 8);
		if (pin)
			pin[i / 8] = (pin[i / 8] & ~(1U << (i % 8))) |
				     pinned << (i % 8);
	}
	if (off != b->keys_len) {
		errno = EINVAL;
		return -1;
	}
	b->out_done = b->nkeys;
	return 0;
}

int ioctl(int fd, unsigned long cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd != FAKE_FD)
		return syscall(SYS_ioctl, fd, cmd, arg);
	if (cmd == BLOOM_IOC_CREATE) {
		memcpy(&fake.create, arg, sizeof(fake.create));
		return 0;
	}
	if (cmd == BLOOM_IOC_INFO) {
		struct bloom_info *in = arg;

		fake.infos++;
		if (fake.info_errno || in->size != sizeof(*in)) {
			errno = fake.info_errno ? fake.info_errno : EINVAL;
			return -1;
		}
		memcpy(in, &fake.info, sizeof(*in));
		in->size = sizeof(*in);
		return 0;
	}
	return fake_batch(cmd, arg);
}

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

/* A filter like another: the request, and what only the module refuses. */
static void test_create_like(void)
{
	const struct bloom_create *c = &fake.create;
	int err;
	BLOOM_OPTS(bloom_create_opts, o, .like = "other",
		   .flags = BLOOM_CREATE_F_BIND);

	memset(&fake, 0, sizeof(fake));
	err = bloom_create_opts(FAKE_FD, "x", &o);
	check(!err && c->size == sizeof(*c) &&
	      c->flags == (BLOOM_CREATE_F_LIKE | BLOOM_CREATE_F_BIND) &&
	      !strcmp(c->name, "x") && !strcmp(c->like, "other") && !c->type &&
	      !c->capacity && !c->fpp_ppb && !c->bits && !c->hashes,
	      "like: the name, the other's name, LIKE and BIND, nothing else");
	o.capacity = 1000;
	o.fpp = 0.01;
	o.type = BLOOM_TYPE_BLOCKED;
	o.memory = 4096;
	memset(&fake, 0, sizeof(fake));
	err = bloom_create_opts(FAKE_FD, "x", &o);
	check(!err && c->capacity == 1000 && c->fpp_ppb == 10000000 &&
	      c->type == BLOOM_TYPE_BLOCKED && c->memory_bytes == 4096 &&
	      c->flags == (BLOOM_CREATE_F_LIKE | BLOOM_CREATE_F_BIND),
	      "like with a size: sent as given, for the module to refuse");
	o.like = "a/b";
	check(bloom_create_opts(FAKE_FD, "x", &o) == -EINVAL,
	      "like: a malformed name is refused (-EINVAL)");
}

/* Key i of a test batch: its first byte decides its result. */
static uint8_t key_byte(size_t i)
{
	return (uint8_t)(i * 7 + i / 256);
}

/* Whether the bitmaps bloom_batch() filled say what the fake decided. */
static int results_match(const uint8_t *res, const uint8_t *pin, size_t n,
			 int del, long *hits, size_t *npinned)
{
	size_t i;

	*hits = 0;
	*npinned = 0;
	for (i = 0; i < n; i++) {
		int p = del && key_byte(i) % 3 == 0;
		int h = (key_byte(i) & 1) && !p;

		if (bloom_result(res, i) != h || (pin && bloom_result(pin, i) != p))
			return 0;
		*hits += h;
		*npinned += p;
	}
	return 1;
}

/* A newer caller's opts: one more member at the end. */
struct newer_batch_opts {
	struct bloom_batch_opts old;
	uint64_t future;
};

static void test_batch_opts(void)
{
	uint8_t key = 1;
	struct newer_batch_opts nb;
	size_t done = 99;
	long r;
	BLOOM_BATCH_OPTS(o, .key_size = 1, .done = &done);

	check(o.sz == sizeof(o) && o.key_size == 1 && !o.results && !o.pinned,
	      "BLOOM_BATCH_OPTS sets sz and the members given, zeroes the rest");
	r = bloom_batch(-1, BLOOM_OP_QUERY, &key, 1, &o);
	check(r == -EBADF && done == 0, "valid opts reach the ioctl (%ld)", r);
	r = bloom_batch(-1, BLOOM_OP_CREATE, &key, 1, &o);
	check(r == -EINVAL, "an op that is no batch: -EINVAL (%ld)", r);
	r = bloom_batch(-1, (enum bloom_op)1000, &key, 1, NULL);
	check(r == -EINVAL, "an op past the enum: -EINVAL (%ld)", r);
	o.sz = 0;
	check(bloom_batch(-1, BLOOM_OP_ADD, &key, 1, &o) == -EINVAL, "sz 0: -EINVAL");
	o.sz = sizeof(size_t) - 1;
	check(bloom_batch(-1, BLOOM_OP_ADD, &key, 1, &o) == -EINVAL,
	      "sz below its own member: -EINVAL");
	/* an old caller's struct that ends before key_size: variable keys */
	o.sz = sizeof(size_t);
	r = bloom_batch(-1, BLOOM_OP_ADD, &key, 1, &o);
	check(r == -EINVAL, "a struct too old to have key_size reads it as 0 (%ld)", r);
	memset(&nb, 0, sizeof(nb));
	nb.old = o;
	nb.old.sz = sizeof(nb);
	nb.old.key_size = 1;
	r = bloom_batch(-1, BLOOM_OP_ADD, &key, 1, &nb.old);
	check(r == -EBADF, "a newer caller's larger struct, unknown bytes 0: accepted (%ld)", r);
	nb.future = 1;
	r = bloom_batch(-1, BLOOM_OP_ADD, &key, 1, &nb.old);
	check(r == -E2BIG, "a newer caller's larger struct using what this library lacks: -E2BIG (%ld)", r);
	o.sz = sizeof(o);
	o.key_size = BLOOM_KEY_MAX + 1;
	check(bloom_batch(-1, BLOOM_OP_ADD, &key, 1, &o) == -EINVAL,
	      "key_size over BLOOM_KEY_MAX: -EINVAL");
	{
		struct bloom_key k[2] = { { &key, 1 }, { &key, 0 } };

		check(bloom_batch(-1, BLOOM_OP_ADD, k, 2, NULL) == -EINVAL,
		      "a key of length 0: -EINVAL before any ioctl");
	}
	check(bloom_batch(-1, BLOOM_OP_ADD, NULL, 0, NULL) == 0,
	      "no keys, NULL opts: 0, no ioctl");
}

/* @n packed keys of @ksize bytes, each starting with key_byte(i). */
static uint8_t *fixed_keys(size_t n, size_t ksize)
{
	uint8_t *keys = calloc(n, ksize);
	size_t i;

	for (i = 0; keys && i < n; i++)
		keys[i * ksize] = key_byte(i);
	return keys;
}

static void test_batch_split(void)
{
	const size_t n = 3 * BLOOM_BATCH_MAX_KEYS + 13;
	uint8_t *keys = fixed_keys(n, 4), *big;
	uint8_t *res = calloc((n + 7) / 8, 1), *pin = calloc((n + 7) / 8, 1);
	struct bloom_key *vk = calloc(n, sizeof(*vk));
	size_t done = 0, npinned = 0, want_pinned, i;
	long r, want;
	BLOOM_BATCH_OPTS(o, .key_size = 4, .results = res, .done = &done);

	if (!keys || !res || !pin || !vk) {
		check(0, "out of memory");
		return;
	}
	memset(&fake, 0, sizeof(fake));
	r = bloom_batch(FAKE_FD, BLOOM_OP_QUERY, keys, n, &o);
	check(results_match(res, NULL, n, 0, &want, &want_pinned) && r == want &&
	      done == n && fake.calls == 4 &&
	      fake.max_nkeys == BLOOM_BATCH_MAX_KEYS,
	      "fixed keys: %zu in %u ioctls of at most BLOOM_BATCH_MAX_KEYS, every result in place (%ld hits)",
	      n, fake.calls, r);

	/* variable keys of 1..4 bytes, the same first bytes */
	for (i = 0; i < n; i++) {
		vk[i].data = keys + i * 4;
		vk[i].len = 1 + i % 4;
	}
	memset(&fake, 0, sizeof(fake));
	memset(res, 0, (n + 7) / 8);
	o.key_size = 0;
	o.pinned = pin;
	o.npinned = &npinned;
	r = bloom_batch(FAKE_FD, BLOOM_OP_DELETE, vk, n, &o);
	check(results_match(res, pin, n, 1, &want, &want_pinned) && r == want &&
	      npinned == want_pinned && done == n && fake.calls == 4,
	      "variable keys, DELETE: removed and pinned bitmaps and counts (%ld, %zu)",
	      r, npinned);

	/* keys of BLOOM_KEY_MAX bytes: BLOOM_BATCH_MAX_BYTES splits them */
	big = fixed_keys(3000, BLOOM_KEY_MAX);
	memset(&fake, 0, sizeof(fake));
	o.key_size = BLOOM_KEY_MAX;
	o.pinned = NULL;
	o.npinned = NULL;
	r = big ? bloom_batch(FAKE_FD, BLOOM_OP_ADD, big, 3000, &o) : -ENOMEM;
	check(results_match(res, NULL, 3000, 0, &want, &want_pinned) &&
	      r == want && done == 3000 && fake.calls == 3 &&
	      fake.max_bytes <= BLOOM_BATCH_MAX_BYTES,
	      "large keys: split by bytes, %u ioctls", fake.calls);
	free(big);

	/* the second ioctl fails after 5 keys: those of the first stay done */
	memset(&fake, 0, sizeof(fake));
	fake.fail_at = 2;
	fake.fail_done = 5;
	o.key_size = 4;
	r = bloom_batch(FAKE_FD, BLOOM_OP_ADD, keys, n, &o);
	check(r == -EDQUOT && done == BLOOM_BATCH_MAX_KEYS + 5 && fake.calls == 2,
	      "an ioctl that fails part-way: its error, done counts the keys done (%zu)",
	      done);

	/* the kernel refuses a pinned bitmap on ADD; the library passes it */
	memset(&fake, 0, sizeof(fake));
	o.pinned = pin;
	r = bloom_batch(FAKE_FD, BLOOM_OP_ADD, keys, 8, &o);
	check(r == -EINVAL && done == 0, "pinned on ADD: the module's -EINVAL (%ld)", r);
	free(keys);
	free(res);
	free(pin);
	free(vk);
}

/*
 * The overfill bound of the add calls against the fake device's INFO: a
 * standard filter for 10 keys at 1% (m = 96, k = 7, the module's sizing
 * of it), empty, takes a few keys; 1000 would take its rate to about 1,
 * past the bound (0.5): refused with EOVERFLOW and nothing sent, by every
 * add call, unless BLOOM_ADD_F_OVERFILL.
 */
static void fake_filter(uint32_t type, uint64_t keys)
{
	memset(&fake, 0, sizeof(fake));
	fake.info.type = type;
	fake.info.bits = 96;
	fake.info.hashes = 7;
	fake.info.capacity = 10;
	fake.info.fpp_ppb = 10000000;
	fake.info.estimated_keys = keys;
	fake.info.count = keys;
	fake.info.adds = keys;
}

/* The model in double precision: (1 - (1 - 1/m)^(k n))^k. */
static double model(double m, double k, double n)
{
	return pow(1 - pow(1 - 1 / m, k * n), k);
}

static void test_overfill_estimate(void)
{
	struct bloom_add_estimate e = { .sz = sizeof(e) };
	int r;

	fake_filter(BLOOM_TYPE_STANDARD, 3);
	r = bloom_add_estimate(FAKE_FD, NULL, 5, &e);
	check(r == 0 && e.sz == sizeof(e) && e.keys == 3 && e.capacity == 10 &&
	      e.fpp == 0.01 && e.bound == 0.5 && !e.flags &&
	      fabs(e.fpp_after - model(96, 7, 8)) < 1e-6 * model(96, 7, 8),
	      "3 keys + 5 in a filter for 10 at 1%%: under the bound 0.5, rate after %.4g as the model's %.4g",
	      e.fpp_after, model(96, 7, 8));
	r = bloom_add_estimate(FAKE_FD, NULL, 1000, &e);
	check(r == 1 && e.fpp_after > 0.99 && e.fpp_after <= 1,
	      "+ 1000: past the bound (1), rate after %.4g", e.fpp_after);
	r = bloom_add_estimate(FAKE_FD, NULL, UINT64_MAX, &e);
	check(r == 1 && e.fpp_after > 0.99 && e.fpp_after <= 1,
	      "+ 2^64 - 1: past the bound, no overflow (rate %.4g)", e.fpp_after);
	fake.info.fpp_ppb = 100000;
	r = bloom_add_estimate(FAKE_FD, NULL, 5, &e);
	check(r == 0 && fabs(e.bound - 0.01) < 1e-12,
	      "created for 1e-4: the bound is 100 times it, 0.01 (%g); 8 keys in 96 bits stay under it",
	      e.bound);
	r = bloom_add_estimate(FAKE_FD, NULL, 12, &e);
	check(r == 1 && fabs(e.fpp_after - model(96, 7, 15)) < 1e-6,
	      "  15 pass it (rate %.4g)", e.fpp_after);
	fake_filter(BLOOM_TYPE_STANDARD, UINT64_MAX);
	fake.info.count = 90;
	fake.info.adds = 1000;
	r = bloom_add_estimate(FAKE_FD, NULL, 1, &e);
	check(r == 1 && e.keys == 1000 && e.flags == BLOOM_ESTIMATE_F_ADDED,
	      "every bit set (no estimate): the keys are the adds (%" PRIu64 ")",
	      (uint64_t)e.keys);
	fake_filter(BLOOM_TYPE_DLEFT, 0);
	r = bloom_add_estimate(FAKE_FD, NULL, 1000, &e);
	check(r == 0 && e.bound == 0 && e.fpp_after == 0,
	      "d-left: no bound (it refuses a key without room itself)");
	fake_filter(BLOOM_TYPE_STANDARD, 0);
	fake.info.stages = 1;
	r = bloom_add_estimate(FAKE_FD, NULL, 1000, &e);
	check(r == 0 && e.bound == 0, "scalable: no bound (it grows)");
	fake_filter(BLOOM_TYPE_BLOCKED, 0);
	fake.info.generations = 5;
	r = bloom_add_estimate(FAKE_FD, NULL, 1000, &e);
	check(r == 0 && e.bound == 0, "expiring: no bound (it rotates)");
	fake.info_errno = ENOTTY;
	check(bloom_add_estimate(FAKE_FD, NULL, 1, &e) == -ENOTTY,
	      "a failing INFO: its errno");
	e.sz = offsetof(struct bloom_add_estimate, bound);
	check(bloom_add_estimate(FAKE_FD, NULL, 1, &e) == -EINVAL,
	      "a result struct too small: -EINVAL");
	check(bloom_add_estimate(FAKE_FD, NULL, 1, NULL) == -EINVAL,
	      "no result struct: -EINVAL");
}

static void test_overfill_adds(void)
{
	const size_t n = 1000;
	uint8_t *keys = fixed_keys(n, 4);
	struct bloom_builder *b = NULL;
	size_t done = 99, i;
	long r;
	BLOOM_BATCH_OPTS(o, .key_size = 4, .done = &done);

	if (!keys) {
		check(0, "out of memory");
		return;
	}
	fake_filter(BLOOM_TYPE_STANDARD, 0);
	r = bloom_batch(FAKE_FD, BLOOM_OP_ADD, keys, n, &o);
	check(r == -EOVERFLOW && done == 0 && fake.calls == 0 && fake.infos == 1,
	      "bloom_batch: 1000 keys into an empty filter for 10: -EOVERFLOW, no ADD sent (%ld)",
	      r);
	r = bloom_batch(FAKE_FD, BLOOM_OP_ADD, keys, 5, &o);
	check(r >= 0 && done == 5 && fake.calls == 1,
	      "bloom_batch: 5 keys are under the bound: added (%ld)", r);
	fake_filter(BLOOM_TYPE_STANDARD, 0);
	o.add_flags = BLOOM_ADD_F_OVERFILL;
	r = bloom_batch(FAKE_FD, BLOOM_OP_ADD, keys, n, &o);
	check(r >= 0 && done == n && fake.calls == 1 && fake.infos == 0,
	      "bloom_batch: with BLOOM_ADD_F_OVERFILL the 1000 are sent, no INFO asked (%ld)",
	      r);
	check(bloom_batch(FAKE_FD, BLOOM_OP_QUERY, keys, n, &o) == -EINVAL,
	      "add_flags on a QUERY: -EINVAL");
	o.add_flags = 1U << 1;
	check(bloom_batch(FAKE_FD, BLOOM_OP_ADD, keys, n, &o) == -EINVAL,
	      "an unknown add_flags bit: -EINVAL");
	o.add_flags = 0;
	/* an old caller's struct that ends before add_flags: bounded */
	o.sz = offsetof(struct bloom_batch_opts, add_flags);
	fake_filter(BLOOM_TYPE_STANDARD, 0);
	r = bloom_batch(FAKE_FD, BLOOM_OP_ADD, keys, n, &o);
	check(r == -EOVERFLOW && fake.calls == 0,
	      "a struct too old to have add_flags: bounded as well (%ld)", r);
	o.sz = sizeof(o);
	fake_filter(BLOOM_TYPE_STANDARD, 0);
	fake.info_errno = ENOTTY;
	r = bloom_batch(FAKE_FD, BLOOM_OP_ADD, keys, n, &o);
	check(r >= 0 && fake.calls == 1,
	      "an INFO that fails (an older module): the add is sent (%ld)", r);

	fake_filter(BLOOM_TYPE_COUNTING, 1000);
	r = bloom_add(FAKE_FD, "k", 1);
	check(r == -EOVERFLOW && fake.calls == 0,
	      "bloom_add: one key into a counting filter for 10 holding 1000: -EOVERFLOW (%ld)",
	      r);
	r = bloom_add_netblock(FAKE_FD, "203.0.113.0/24");
	check(r == -EOVERFLOW && fake.calls == 0,
	      "bloom_add_netblock: -EOVERFLOW, nothing sent (%ld)", r);
	fake_filter(BLOOM_TYPE_COUNTING, 0);
	r = bloom_add(FAKE_FD, "k", 1);
	check(r >= 0 && fake.calls == 1, "bloom_add into the empty one: sent (%ld)", r);
	check(bloom_add(FAKE_FD, "k", 0) == -EINVAL && fake.infos == 1,
	      "bloom_add of an empty key: -EINVAL before any INFO");

	fake_filter(BLOOM_TYPE_BLOCKED, 0);
	fake.info.bits = 512;
	if (bloom_builder_new(&b, FAKE_FD, BLOOM_IOC_ADD, 4)) {
		check(0, "bloom_builder_new");
		free(keys);
		return;
	}
	for (i = 0; i < n; i++)
		bloom_builder_push(b, keys + 4 * i, 4);
	r = bloom_builder_flush(b);
	check(r == -EOVERFLOW && bloom_builder_done(b) == 0 &&
	      bloom_builder_count(b) == n && fake.calls == 0,
	      "builder: a flush of 1000 keys into a blocked filter of one block: -EOVERFLOW, none sent, all pending (%ld)",
	      r);
	check(bloom_builder_add_flags(b, BLOOM_ADD_F_OVERFILL) == 0 &&
	      bloom_builder_flush(b) >= 0 && bloom_builder_done(b) == n &&
	      fake.calls == 1,
	      "builder: with BLOOM_ADD_F_OVERFILL the flush sends them");
	check(bloom_builder_add_flags(b, 1U << 1) == -EINVAL,
	      "builder: an unknown add_flags bit: -EINVAL");
	bloom_builder_free(b);
	if (!bloom_builder_new(&b, FAKE_FD, BLOOM_IOC_QUERY, 4)) {
		check(bloom_builder_add_flags(b, BLOOM_ADD_F_OVERFILL) == -EINVAL,
		      "builder: add_flags on a QUERY builder: -EINVAL");
		bloom_builder_free(b);
	}
	free(keys);
}

static void test_strerror(void)
{
	char buf[256], small[8], big[768];
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
	bloom_strerror(big, sizeof(big), BLOOM_OP_ADD, "spam", -EOVERFLOW);
	check(strstr(big, "past 100 times") && strstr(big, "nothing was added") &&
	      strstr(big, "BLOOM_ADD_F_OVERFILL") && !strstr(big, "--"),
	      "EOVERFLOW of an add: the overfill bound and what to do: %s", big);
	bloom_strerror(big, sizeof(big), BLOOM_OP_SAVE, "spam", -EOVERFLOW);
	check(strstr(big, "saved"), "EOVERFLOW of a save: its own: %s",
	      big);
}

static void test_types(void)
{
	static const char *const names[] = BLOOM_TYPE_NAMES;
	uint32_t t;
	int ok = 1;

	for (t = BLOOM_TYPE_STANDARD; t <= BLOOM_TYPE_TIMED; t++)
		ok &= bloom_type_name(t) == names[t] &&
		      bloom_type_from_name(bloom_type_name(t)) == t;
	check(ok, "every type's name comes from BLOOM_TYPE_NAMES and parses back");
	check(!bloom_type_name(0) && !bloom_type_name(BLOOM_TYPE_TIMED + 1) &&
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
	test_create_like();
	test_batch_opts();
	test_batch_split();
	test_overfill_estimate();
	test_overfill_adds();
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
