// SPDX-License-Identifier: GPL-2.0
/*
 * CREATE's request as a store's description (store.h): every field of
 * struct bloom_create checked and turned into a struct bloom_store_spec,
 * for every way a filter can be asked for: sized from capacity and rate,
 * from any two of the sizing figures, from an explicit geometry, scalable
 * (a chain), expiring (a ring), timed, with netblock lengths. A request
 * for a filter like another (BLOOM_CREATE_F_LIKE) takes the model's
 * description instead (bloom_store_spec_of()).
 */
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/string.h>

#include "store.h"

static bool bloom_zeroed(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

/* The sizing fields of a request that sizes from capacity and rate alone. */
static bool bloom_spec_sizing_zero(const struct bloom_create *c)
{
	return !c->memory_bytes && !c->bits_per_key_milli;
}

/* BLOOM_CREATE_F_SIZE: any two of capacity, rate, bits per key, memory. */
static int bloom_spec_sized(const struct bloom_create *c,
			    struct bloom_geometry *geo)
{
	struct bloom_core_size_req r = {
		.type = c->type,
		.hashes = c->hashes,
		.capacity = c->capacity,
		.fpp_ppb = c->fpp_ppb,
		.bpk_milli = c->bits_per_key_milli,
		.memory_bytes = c->memory_bytes,
	};

	/* a scalable filter's stages are sized from capacity and rate */
	if (c->flags & (BLOOM_CREATE_F_GEOMETRY | BLOOM_CREATE_F_SCALABLE) ||
	    c->bits)
		return -EINVAL;
	/* the core checks the rest: two of four, ranges, hashes */
	return bloom_core_size(&r, geo);
}

/* BLOOM_CREATE_F_GEOMETRY: m and k as given. */
static int bloom_spec_explicit(const struct bloom_create *c,
			       struct bloom_geometry *geo)
{
	/* A d-left table's shape is the core's choice alone. */
	if (c->type == BLOOM_TYPE_DLEFT || c->type == BLOOM_TYPE_TIMED)
		return -EOPNOTSUPP;
	*geo = (struct bloom_geometry) {
		.type = c->type,
		.hashes = c->hashes,
		.bits = c->bits,
		.capacity = c->capacity,
		.fpp_ppb = c->fpp_ppb,
	};
	if (c->type == BLOOM_TYPE_COUNTING)
		geo->cell_bits = 4;
	return bloom_geometry_check(geo);
}

/*
 * The geometry of a plain filter, or of a scalable filter's stage 0, from
 * a request whose flags, type and name were checked.
 */
static int bloom_spec_geometry(const struct bloom_create *c,
			       struct bloom_geometry *geo)
{
	if (c->flags & BLOOM_CREATE_F_SIZE)
		return bloom_spec_sized(c, geo);
	if (!bloom_spec_sizing_zero(c))
		return -EINVAL;
	if (c->capacity < 1 || c->capacity > BLOOM_CAPACITY_MAX ||
	    c->fpp_ppb < BLOOM_FPP_PPB_MIN || c->fpp_ppb > BLOOM_FPP_PPB_MAX)
		return -EINVAL;
	if (c->flags & BLOOM_CREATE_F_GEOMETRY) {
		if (c->flags & BLOOM_CREATE_F_SCALABLE)
			return -EINVAL;
		return bloom_spec_explicit(c, geo);
	}
	if (c->bits || c->hashes)
		return -EINVAL;
	return bloom_geometry_size(c->type, c->capacity, c->fpp_ppb, geo);
}

/*
 * BLOOM_CREATE_F_TIMEOUT: an expiring filter (a ring), standard or blocked,
 * sized from capacity and rate, nothing else (a generation's size follows
 * from them).
 */
static int bloom_spec_ring(const struct bloom_create *c,
			   struct bloom_store_spec *spec)
{
	struct bloom_expire_params *xp = &spec->expire;

	if (c->flags & (BLOOM_CREATE_F_GEOMETRY | BLOOM_CREATE_F_SIZE |
			BLOOM_CREATE_F_SCALABLE) ||
	    c->bits || c->hashes || !bloom_spec_sizing_zero(c))
		return -EINVAL;
	spec->shape = BLOOM_STORE_RING;
	*xp = (struct bloom_expire_params) {
		.type = c->type,
		.generations = c->generations ?: BLOOM_GENERATIONS_DEFAULT,
		.capacity = c->capacity,
		.fpp_ppb = c->fpp_ppb,
		.timeout_ms = c->timeout_ms,
	};
	/* the core refuses counting and d-left types and values out of range */
	return bloom_expire_check(xp);
}

/* BLOOM_CREATE_F_SCALABLE: a chain whose stage 0 is sized as @c says. */
static int bloom_spec_chain(const struct bloom_create *c,
			    struct bloom_store_spec *spec)
{
	spec->shape = BLOOM_STORE_CHAIN;
	spec->scale = (struct bloom_scale_params) {
		.type = c->type,
		.capacity = c->capacity,
		.fpp_ppb = c->fpp_ppb,
		.growth = c->growth ?: c->type == BLOOM_TYPE_TIMED ?
				       BLOOM_TIMED_GROWTH_DEFAULT :
				       BLOOM_GROWTH_DEFAULT,
		.tightening_ppm = c->tightening_ppm ?:
				  BLOOM_TIGHTENING_PPM_DEFAULT,
	};
	return bloom_scale_check(&spec->scale);
}

/* The shape and size of the store; the type is one the module has. */
static int bloom_spec_shape(const struct bloom_create *c,
			    struct bloom_store_spec *spec)
{
	int ret;

	if (!(c->flags & BLOOM_CREATE_F_SCALABLE) &&
	    (c->growth || c->tightening_ppm))
		return -EINVAL;
	switch (c->type) {
	case BLOOM_TYPE_STANDARD:
	case BLOOM_TYPE_BLOCKED:
	case BLOOM_TYPE_COUNTING:
	case BLOOM_TYPE_DLEFT:
	case BLOOM_TYPE_TIMED:
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (c->flags & BLOOM_CREATE_F_TIMEOUT)
		return bloom_spec_ring(c, spec);
	ret = bloom_spec_geometry(c, &spec->geo);
	if (ret)
		return ret;
	if (c->flags & BLOOM_CREATE_F_SCALABLE)
		return bloom_spec_chain(c, spec);
	spec->shape = BLOOM_STORE_PLAIN;
	return 0;
}

/*
 * BLOOM_CREATE_F_PREFIXES: lengths 1 to one less than an address's, at
 * most BLOOM_PREFIX_LENGTHS_MAX per family, a filter that may hold
 * addresses; without the flag, none.
 */
static int bloom_spec_prefixes(const struct bloom_create *c,
			       struct bloom_store_spec *spec)
{
	const u64 *l6 = c->prefix_lengths6;
	u32 i;

	if (!(c->flags & BLOOM_CREATE_F_PREFIXES))
		return c->prefix_lengths4 || l6[0] || l6[1] ? -EINVAL : 0;
	if (c->flags & BLOOM_CREATE_F_LIKE || c->keys == BLOOM_KEYS_STRINGS ||
	    c->prefix_lengths4 & 1 || l6[0] & 1 ||
	    hweight32(c->prefix_lengths4) > BLOOM_PREFIX_LENGTHS_MAX ||
	    hweight64(l6[0]) + hweight64(l6[1]) > BLOOM_PREFIX_LENGTHS_MAX)
		return -EINVAL;
	for (i = 0; i < 128; i++) {
		if (i < 32 && c->prefix_lengths4 & BIT(i))
			__set_bit(i, spec->plan[BLOOM_NB_IPV4]);
		if (l6[i / 64] & BIT_ULL(i % 64))
			__set_bit(i, spec->plan[BLOOM_NB_IPV6]);
	}
	return 0;
}

/* BLOOM_TYPE_TIMED's timeouts: in range, the default within the largest. */
static int bloom_spec_timeouts(const struct bloom_create *c,
			       struct bloom_store_spec *spec)
{
	u32 max = c->key_timeout_max_s ?: BLOOM_KEY_TIMEOUT_MAX;

	if (!c->key_timeout_s && !c->key_timeout_max_s)
		return 0;
	if (c->type != BLOOM_TYPE_TIMED || c->flags & BLOOM_CREATE_F_LIKE ||
	    max > BLOOM_KEY_TIMEOUT_MAX || c->key_timeout_s > max)
		return -EINVAL;
	spec->key_timeout_s = c->key_timeout_s;
	spec->key_timeout_max_s = c->key_timeout_max_s;
	return 0;
}

/*
 * BLOOM_CREATE_F_LIKE: every sizing field must be 0, the model gives them
 * all (the key kind may be given: it is the new filter's).
 */
static int bloom_spec_like_check(const struct bloom_create *c)
{
	if (c->flags & ~(BLOOM_CREATE_F_LIKE | BLOOM_CREATE_F_BIND) ||
	    c->type || c->hashes || c->capacity || c->bits || c->fpp_ppb ||
	    !bloom_spec_sizing_zero(c) || c->growth || c->tightening_ppm ||
	    c->generations || c->timeout_ms || c->key_timeout_s ||
	    c->key_timeout_max_s ||
	    !bloom_zeroed(c->hash_key, sizeof(c->hash_key)))
		return -EINVAL;
	return 0;
}

int bloom_store_spec_decode(const struct bloom_create *c,
			    struct bloom_store_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	if (c->flags & ~BLOOM_CREATE_F_ALL || c->reserved ||
	    (c->flags & BLOOM_CREATE_F_HASH ? c->hash > BLOOM_HASH_SIPHASH_1_3 :
					       c->hash) ||
	    c->keys > BLOOM_KEYS_IPV6)
		return -EINVAL;
	if (!(c->flags & BLOOM_CREATE_F_TIMEOUT) &&
	    (c->generations || c->timeout_ms))
		return -EINVAL;
	if (bloom_spec_timeouts(c, spec) || bloom_spec_prefixes(c, spec))
		return -EINVAL;
	if (c->flags & BLOOM_CREATE_F_LIKE)
		return bloom_spec_like_check(c);
	if (!bloom_zeroed(c->like, sizeof(c->like)))
		return -EINVAL;
	spec->has_key = c->flags & BLOOM_CREATE_F_HASH_KEY;
	if (spec->has_key)
		memcpy(spec->hash_key, c->hash_key, sizeof(spec->hash_key));
	else if (!bloom_zeroed(c->hash_key, sizeof(c->hash_key)))
		return -EINVAL;
	spec->keys = c->keys;
	/* new filters hash with SipHash-1-3 unless they ask */
	spec->hash = c->flags & BLOOM_CREATE_F_HASH ? c->hash :
						      BLOOM_HASH_SIPHASH_1_3;
	return bloom_spec_shape(c, spec);
}
