// SPDX-License-Identifier: GPL-2.0
/*
 * libbloom's overfill bound against the module (tools/lib/libbloom.h,
 * "Overfill"): in a standard, blocked or counting filter for 10 keys at
 * 1%, an add of 1000 keys, which would take its rate to about 1, fails
 * with EOVERFLOW and adds nothing (every key still absent, INFO's adds,
 * count and bits set unchanged), through every add call of the library,
 * as strings and as addresses; an add under the bound is added;
 * BLOOM_ADD_F_OVERFILL adds them anyway. d-left filters refuse with their
 * own ENOSPC, scalable and expiring ones take the keys.
 *
 * No statistics: an empty filter answers "absent" for every key (no bit
 * is set), and a key added is always present.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>

#include "bloom_test.h"
#include "libbloom.h"

#define NKEYS	1000

/* Key i as text, "overfill-<i>", in @buf (32 bytes), and its length. */
static size_t text_key(unsigned int i, char *buf)
{
	return (size_t)snprintf(buf, 32, "overfill-%u", i);
}

/* @n keys from @from as struct bloom_key over @buf (@n x 32 bytes). */
static void text_keys(unsigned int from, unsigned int n,
		      struct bloom_key *keys, char (*buf)[32])
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		keys[i].data = buf[i];
		keys[i].len = text_key(from + i, buf[i]);
	}
}

/* @n IPv4 addresses 10.x.y.z from @from, packed, in network byte order. */
static void addr_keys(unsigned int from, unsigned int n, __u8 *out)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		__u32 a = htonl(0x0a000000 + from + i);

		memcpy(out + 4 * i, &a, 4);
	}
}

/* A bound descriptor of a new filter "o" for 10 keys at 1%. */
static int new_filter(__u32 type, enum bloom_key_kind keys, __u32 flags,
		      __u64 timeout_ms)
{
	int fd = bloom_open(NULL), err;
	BLOOM_OPTS(bloom_create_opts, o, .type = type, .capacity = 10,
		   .fpp = 0.01, .keys = keys, .timeout_ms = timeout_ms,
		   .flags = flags | BLOOM_CREATE_F_BIND);

	if (fd < 0)
		return fd;
	err = bloom_create_opts(fd, "o", &o);
	if (err) {
		bloom_close(fd);
		return err;
	}
	return fd;
}

/* What must not change when an add is refused. */
struct fill {
	__u64 adds, count, bits_set;
};

static int fill_of(int fd, struct fill *f)
{
	struct bloom_info in;
	int err = bloom_info(fd, NULL, &in);

	f->adds = in.adds;
	f->count = in.count;
	f->bits_set = in.bits_set;
	return err;
}

/* A refused add changed nothing: adds, count and bits set as in @f0. */
static void expect_unchanged(struct __test_metadata *_metadata, int fd,
			     const struct fill *f0)
{
	struct fill f;

	ASSERT_OK(fill_of(fd, &f));
	EXPECT_EQ(f0->adds, f.adds);
	EXPECT_EQ(f0->count, f.count);
	EXPECT_EQ(f0->bits_set, f.bits_set);
}

/*
 * An ADD of the NKEYS @keys through @add is refused before any is sent,
 * and a QUERY through @query finds every one of them absent.
 */
static void expect_batch_refused(struct __test_metadata *_metadata, int fd,
				 const void *keys,
				 const struct bloom_batch_opts *add,
				 const struct bloom_batch_opts *query,
				 const struct fill *f0)
{
	EXPECT_EQ(-EOVERFLOW, bloom_batch(fd, BLOOM_OP_ADD, keys, NKEYS, add));
	EXPECT_EQ(0, *add->done);
	expect_unchanged(_metadata, fd, f0);
	EXPECT_EQ(0, bloom_batch(fd, BLOOM_OP_QUERY, keys, NKEYS, query));
}

FIXTURE(overfill) {
	int fd;
	struct bloom_key keys[NKEYS];
	char text[NKEYS][32];
	__u8 addrs[NKEYS * 4];
};

FIXTURE_VARIANT(overfill) {
	__u32 type;
};

FIXTURE_VARIANT_ADD(overfill, standard) { .type = STD, };
FIXTURE_VARIANT_ADD(overfill, blocked) { .type = BLK, };
FIXTURE_VARIANT_ADD(overfill, counting) { .type = CNT, };

FIXTURE_SETUP(overfill)
{
	self->fd = -1;
	text_keys(0, NKEYS, self->keys, self->text);
	addr_keys(0, NKEYS, self->addrs);
}

FIXTURE_TEARDOWN(overfill)
{
	if (self->fd >= 0)
		bloom_close(self->fd);
	bt_destroy_all();
}

TEST_F(overfill, strings_refused_nothing_added_unless_allowed)
{
	struct bloom_add_estimate e = { .sz = sizeof(e) };
	struct bloom_builder *b;
	struct fill f0, f;
	size_t done = 99, i;
	long r;
	BLOOM_BATCH_OPTS(o, .done = &done);
	BLOOM_BATCH_OPTS(q, .done = &done);

	self->fd = new_filter(variant->type, BLOOM_KEYS_UNKNOWN, 0, 0);
	ASSERT_LE(0, self->fd) TH_LOG("create: %s", strerror(-self->fd));
	ASSERT_OK(fill_of(self->fd, &f0));

	/* what the caller can learn first */
	ASSERT_EQ(1, bloom_add_estimate(self->fd, NULL, NKEYS, &e));
	EXPECT_EQ(0, e.keys);
	EXPECT_EQ(10, e.capacity);
	EXPECT_TRUE(e.bound == 0.5) TH_LOG("bound %g", e.bound);
	EXPECT_TRUE(e.fpp_after > 0.99) TH_LOG("rate after %g", e.fpp_after);
	ASSERT_EQ(0, bloom_add_estimate(self->fd, NULL, 5, &e));
	EXPECT_TRUE(e.fpp_after < e.bound) TH_LOG("rate after %g", e.fpp_after);

	/* a batch past the bound: refused, nothing sent */
	expect_batch_refused(_metadata, self->fd, self->keys, &o, &q, &f0);

	/* the builder's flush of the same keys: refused, none sent */
	ASSERT_OK(bloom_builder_new(&b, self->fd, BLOOM_IOC_ADD, 0));
	for (i = 0; i < NKEYS; i++)
		ASSERT_OK(bloom_builder_push(b, self->keys[i].data,
					     self->keys[i].len));
	EXPECT_EQ(-EOVERFLOW, bloom_builder_flush(b));
	EXPECT_EQ(0, bloom_builder_done(b));
	expect_unchanged(_metadata, self->fd, &f0);

	/* under the bound: added */
	r = bloom_batch(self->fd, BLOOM_OP_ADD, self->keys, 5, &o);
	EXPECT_LE(0, r);
	EXPECT_EQ(5, done);
	EXPECT_LE(0, bloom_add(self->fd, self->keys[5].data,
			       self->keys[5].len));
	EXPECT_EQ(6, bloom_batch(self->fd, BLOOM_OP_QUERY, self->keys, 6, &q));
	ASSERT_OK(fill_of(self->fd, &f));
	EXPECT_EQ(6, f.adds);

	/* the opt-out: the builder's keys go, all present after */
	ASSERT_OK(bloom_builder_add_flags(b, BLOOM_ADD_F_OVERFILL));
	EXPECT_LE(0, bloom_builder_flush(b));
	EXPECT_EQ(NKEYS, bloom_builder_done(b));
	bloom_builder_free(b);
	EXPECT_EQ(NKEYS, bloom_batch(self->fd, BLOOM_OP_QUERY, self->keys,
				     NKEYS, &q));
	ASSERT_OK(fill_of(self->fd, &f));
	EXPECT_EQ(6 + NKEYS, f.adds);

	/* now past the bound already: one more key is refused */
	ASSERT_EQ(1, bloom_add_estimate(self->fd, NULL, 1, &e));
	EXPECT_TRUE(e.fpp_now > e.bound) TH_LOG("rate now %g", e.fpp_now);
	f0 = f;
	EXPECT_EQ(-EOVERFLOW, bloom_add(self->fd, "one more", 8));
	expect_unchanged(_metadata, self->fd, &f0);
	o.add_flags = BLOOM_ADD_F_OVERFILL;
	r = bloom_batch(self->fd, BLOOM_OP_ADD, self->keys, NKEYS, &o);
	EXPECT_LE(0, r);
	EXPECT_EQ(NKEYS, done);
	ASSERT_OK(fill_of(self->fd, &f));
	EXPECT_EQ(f0.adds + NKEYS, f.adds);
}

TEST_F(overfill, addresses_refused_nothing_added_unless_allowed)
{
	struct bloom_builder *b;
	struct fill f0, f;
	size_t done = 99, i;
	long r;
	BLOOM_BATCH_OPTS(o, .key_size = 4, .flags = BLOOM_BATCH_F_NET,
			 .done = &done);
	BLOOM_BATCH_OPTS(q, .key_size = 4, .flags = BLOOM_BATCH_F_NET,
			 .done = &done);

	self->fd = new_filter(variant->type, BLOOM_KEYS_IPV4, 0, 0);
	ASSERT_LE(0, self->fd) TH_LOG("create: %s", strerror(-self->fd));
	ASSERT_OK(fill_of(self->fd, &f0));

	expect_batch_refused(_metadata, self->fd, self->addrs, &o, &q, &f0);

	ASSERT_OK(bloom_builder_new(&b, self->fd, BLOOM_IOC_ADD, 4));
	for (i = 0; i < NKEYS; i++)
		ASSERT_OK(bloom_builder_push(b, self->addrs + 4 * i, 4));
	EXPECT_EQ(-EOVERFLOW, bloom_builder_flush(b));
	expect_unchanged(_metadata, self->fd, &f0);

	/* under the bound: an address and a netblock */
	EXPECT_LE(0, bloom_add_netblock(self->fd, "10.0.0.0"));
	EXPECT_LE(0, bloom_add_netblock(self->fd, "198.51.100.0/24"));
	EXPECT_EQ(1, bloom_batch(self->fd, BLOOM_OP_QUERY, self->addrs, 1, &q));
	ASSERT_OK(fill_of(self->fd, &f));
	EXPECT_EQ(2, f.adds);

	/* the opt-out */
	o.add_flags = BLOOM_ADD_F_OVERFILL;
	r = bloom_batch(self->fd, BLOOM_OP_ADD, self->addrs, NKEYS, &o);
	EXPECT_LE(0, r);
	EXPECT_EQ(NKEYS, done);
	EXPECT_EQ(NKEYS, bloom_batch(self->fd, BLOOM_OP_QUERY, self->addrs,
				     NKEYS, &q));

	/* past the bound: a netblock, and the builder's flush, refused */
	ASSERT_OK(fill_of(self->fd, &f0));
	EXPECT_EQ(-EOVERFLOW, bloom_add_netblock(self->fd, "203.0.113.7"));
	EXPECT_EQ(-EOVERFLOW, bloom_builder_flush(b));
	expect_unchanged(_metadata, self->fd, &f0);
	bloom_builder_free(b);
}

/*
 * The NKEYS text keys into a new filter "o" of @type for 10 keys, which
 * is destroyed after: the add's return, *@done the keys done.
 */
static long add_to_new(__u32 type, __u32 flags, __u64 timeout_ms,
		       size_t *done)
{
	static struct bloom_key keys[NKEYS];
	static char text[NKEYS][32];
	BLOOM_BATCH_OPTS(o, .done = done);
	long r;
	int fd;

	text_keys(0, NKEYS, keys, text);
	fd = new_filter(type, BLOOM_KEYS_UNKNOWN, flags, timeout_ms);
	if (fd < 0)
		return fd;
	r = bloom_batch(fd, BLOOM_OP_ADD, keys, NKEYS, &o);
	bloom_close(fd);
	bt_destroy_all();
	return r;
}

/* Types without the bound: their own refusal, or they take the keys. */
TEST(other_types_are_not_bounded)
{
	size_t done;
	long r;

	r = add_to_new(DLF, 0, 0, &done);
	EXPECT_EQ(-ENOSPC, r) TH_LOG("d-left: %ld", r);
	r = add_to_new(STD, BLOOM_CREATE_F_SCALABLE, 0, &done);
	EXPECT_LE(0, r) TH_LOG("scalable: %ld", r);
	EXPECT_EQ(NKEYS, done);
	r = add_to_new(BLK, 0, 60000, &done);
	EXPECT_LE(0, r) TH_LOG("expiring: %ld", r);
	EXPECT_EQ(NKEYS, done);
}

TEST_HARNESS_MAIN
