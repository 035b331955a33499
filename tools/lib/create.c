// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/* Creating filters: from (capacity, rate) or from an explicit geometry. */
#include <math.h>
#include <string.h>
#include <arpa/inet.h>
#include "internal.h"

int bloom_fpp_to_ppb(double p, uint32_t *ppb)
{
	double scaled;

	/* Written so that NaN fails too. */
	if (!(p > 0.0 && p <= 0.5))
		return -EINVAL;
	/*
	 * Rounded down, so the filter's rate is never worse than asked; but
	 * p * 1e9 may land a hair under the integer p meant (0.07 * 1e9 is
	 * 70000000.000000015, 0.035 * 1e9 34999999.999999996): within a
	 * relative 1e-12 of an integer, that integer.
	 */
	scaled = round(p * 1e9);
	if (fabs(scaled - p * 1e9) > 1e-12 * p * 1e9)
		scaled = floor(p * 1e9);
	if (scaled < BLOOM_FPP_PPB_MIN || scaled > BLOOM_FPP_PPB_MAX)
		return -EINVAL;
	*ppb = (uint32_t)scaled;
	return 0;
}

/* Bits per key in thousandths (0 stays 0): 0.001 to 4e6, else -EINVAL. */
int lb_bpk_milli(double bpk, uint32_t *milli)
{
	*milli = 0;
	if (bpk == 0)
		return 0;
	/* Written so that NaN fails too. */
	if (!(bpk >= 0.001 && bpk <= 4e6))
		return -EINVAL;
	*milli = (uint32_t)lround(bpk * 1000);
	return 0;
}

/* A rate that may be left out: 0 stays 0 ppb, for the module to judge. */
static int optional_rate(double fpp, uint32_t *ppb)
{
	*ppb = 0;
	return fpp == 0 ? 0 : bloom_fpp_to_ppb(fpp, ppb);
}

/*
 * BLOOM_CREATE_F_SIZE: any two of capacity, rate, bits per key and memory
 * (the module checks which two, as bloom_size() does), never a geometry.
 */
static int size_by_two(struct bloom_create *c, double fpp)
{
	if (c->bits || (c->flags & BLOOM_CREATE_F_GEOMETRY))
		return -EINVAL;
	return optional_rate(fpp, &c->fpp_ppb);
}

/* Capacity and rate, with an explicit geometry when bits and hashes come. */
static int size_by_rate(struct bloom_create *c, double fpp)
{
	int err = bloom_fpp_to_ppb(fpp, &c->fpp_ppb);

	if (err)
		return err;
	/* Half a geometry is a caller's mistake, not a request for defaults. */
	if (!c->bits != !c->hashes)
		return -EINVAL;
	if ((c->flags & BLOOM_CREATE_F_GEOMETRY) && !c->bits)
		return -EINVAL;
	if (c->bits)
		c->flags |= BLOOM_CREATE_F_GEOMETRY;
	return 0;
}

/*
 * The size fields, and the flag that says how they size the filter. A
 * filter made like another takes that one's size: what the caller gives
 * anyway goes to the module as it is, and the module refuses it.
 */
static int set_size(struct bloom_create *c, const struct bloom_create_opts *o)
{
	double fpp = OPTS_GET(o, fpp, 0.0);
	int err;

	c->capacity = OPTS_GET(o, capacity, 0);
	c->bits = OPTS_GET(o, bits, 0);
	c->hashes = OPTS_GET(o, hashes, 0);
	c->memory_bytes = OPTS_GET(o, memory, 0);
	err = lb_bpk_milli(OPTS_GET(o, bits_per_key, 0.0),
			   &c->bits_per_key_milli);
	if (err)
		return err;
	if (c->flags & BLOOM_CREATE_F_LIKE)
		return optional_rate(fpp, &c->fpp_ppb);
	if (c->memory_bytes || c->bits_per_key_milli || (c->hashes && !c->bits))
		c->flags |= BLOOM_CREATE_F_SIZE;
	if (c->flags & BLOOM_CREATE_F_SIZE)
		return size_by_two(c, fpp);
	return size_by_rate(c, fpp);
}

static int set_hash_key(struct bloom_create *c,
			const struct bloom_create_opts *o)
{
	const uint8_t *key = OPTS_GET(o, hash_key, NULL);

	if (!key)
		return c->flags & BLOOM_CREATE_F_HASH_KEY ? -EINVAL : 0;
	c->flags |= BLOOM_CREATE_F_HASH_KEY;
	memcpy(c->hash_key, key, BLOOM_HASH_KEY_LEN);
	return 0;
}

static int set_scalable(struct bloom_create *c,
			const struct bloom_create_opts *o)
{
	double tightening = OPTS_GET(o, tightening, 0.0);

	/* written so that NaN fails too; the module checks the bounds */
	if (tightening != 0 && !(tightening > 0.0 && tightening < 1.0))
		return -EINVAL;
	c->growth = OPTS_GET(o, growth, 0);
	c->tightening_ppm = (uint32_t)round(tightening * 1e6);
	if (!(c->flags & BLOOM_CREATE_F_SCALABLE) &&
	    (c->growth || c->tightening_ppm))
		return -EINVAL;
	return 0;
}

/* Expiring filters: the timeout sets the flag; generations need it. */
static int set_timeout(struct bloom_create *c,
		       const struct bloom_create_opts *o)
{
	c->timeout_ms = OPTS_GET(o, timeout_ms, 0);
	c->generations = OPTS_GET(o, generations, 0);
	if (c->timeout_ms)
		c->flags |= BLOOM_CREATE_F_TIMEOUT;
	if ((c->flags & BLOOM_CREATE_F_TIMEOUT) && !c->timeout_ms)
		return -EINVAL;
	if (c->generations && !c->timeout_ms)
		return -EINVAL;
	c->key_timeout_s = OPTS_GET(o, key_timeout_s, 0);
	c->key_timeout_max_s = OPTS_GET(o, key_timeout_max_s, 0);
	if ((c->key_timeout_s || c->key_timeout_max_s) &&
	    c->type != BLOOM_TYPE_TIMED)
		return -EINVAL;
	return 0;
}

/* Prefix expansion: a plan with lengths sets the flag. */
static int set_prefixes(struct bloom_create *c,
			const struct bloom_create_opts *o)
{
	const struct bloom_prefix_plan *p4 = OPTS_GET(o, prefixes4, NULL);
	const struct bloom_prefix_plan *p6 = OPTS_GET(o, prefixes6, NULL);

	if ((p4 && p4->nlens > BLOOM_PREFIX_LENGTHS_MAX) ||
	    (p6 && p6->nlens > BLOOM_PREFIX_LENGTHS_MAX))
		return -EINVAL;
	bloom_plan_bits(p4, AF_INET, &c->prefix_lengths4, c->prefix_lengths6);
	bloom_plan_bits(p6, AF_INET6, &c->prefix_lengths4, c->prefix_lengths6);
	if (c->prefix_lengths4 || c->prefix_lengths6[0] || c->prefix_lengths6[1])
		c->flags |= BLOOM_CREATE_F_PREFIXES;
	return 0;
}

/* The module's request for filter @name from the caller's options. */
static int create_request(struct bloom_create *c, const char *name,
			  const struct bloom_create_opts *o)
{
	const char *like = OPTS_GET(o, like, NULL);
	int err;

	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->flags = OPTS_GET(o, flags, 0);
	c->type = OPTS_GET(o, type, 0);
	c->hash = OPTS_GET(o, hash, 0);
	err = lb_name_copy(c->name, name);
	if (err)
		return err;
	if (like) {
		c->flags |= BLOOM_CREATE_F_LIKE;
		err = lb_name_copy(c->like, like);
		if (err)
			return err;
	} else if (!c->type) {
		c->type = BLOOM_TYPE_STANDARD;
	}
	c->keys = OPTS_GET(o, keys, 0);
	err = set_size(c, o);
	if (!err)
		err = set_hash_key(c, o);
	if (!err)
		err = set_scalable(c, o);
	if (!err)
		err = set_timeout(c, o);
	if (!err)
		err = set_prefixes(c, o);
	return err;
}

int bloom_create_opts(int fd, const char *name,
		      const struct bloom_create_opts *o)
{
	struct bloom_create c;
	int err;

	if (!o)
		return -EINVAL;	/* capacity and rate have no defaults */
	err = OPTS_CHECK(o, bloom_create_opts);
	if (!err)
		err = create_request(&c, name, o);
	if (!err)
		err = bloom_ioctl(fd, BLOOM_IOC_CREATE, &c);
	if (!err && (c.flags & BLOOM_CREATE_F_BIND))
		lb_fd_renew(fd);
	return err;
}

int bloom_create(int fd, const char *name, enum bloom_type type,
		 uint64_t capacity, double fpp, uint32_t flags)
{
	BLOOM_OPTS(bloom_create_opts, o,
		.type = type,
		.capacity = capacity,
		.fpp = fpp,
		.flags = flags,
	);

	/* The other flags need arguments this call does not take. */
	if (flags & ~BLOOM_CREATE_F_BIND)
		return -EINVAL;
	return bloom_create_opts(fd, name, &o);
}
