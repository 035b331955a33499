// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/* Creating filters: from (capacity, rate) or from an explicit geometry. */
#include <math.h>
#include <string.h>
#include "internal.h"

int bloom_fpp_to_ppb(double p, uint32_t *ppb)
{
	double scaled;

	/* Written so that NaN fails too. */
	if (!(p > 0.0 && p <= 0.5))
		return -EINVAL;
	/* p * 1e9 is exact enough in double; round half away from zero. */
	scaled = round(p * 1e9);
	if (scaled < BLOOM_FPP_PPB_MIN || scaled > BLOOM_FPP_PPB_MAX)
		return -EINVAL;
	*ppb = (uint32_t)scaled;
	return 0;
}

int bloom_create_opts(int fd, const char *name,
		      const struct bloom_create_opts *o)
{
	struct bloom_create c;
	int err;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.type = o->type ? o->type : BLOOM_TYPE_STANDARD;
	c.capacity = o->capacity;
	err = lb_name_copy(c.name, name);
	if (!err)
		err = bloom_fpp_to_ppb(o->fpp, &c.fpp_ppb);
	if (err)
		return err;
	/* Half a geometry is a caller's mistake, not a request for defaults. */
	if (!o->bits != !o->hashes)
		return -EINVAL;
	if (o->bits) {
		c.flags |= BLOOM_CREATE_F_GEOMETRY;
		c.bits = o->bits;
		c.hashes = o->hashes;
	}
	if (o->hash_key) {
		c.flags |= BLOOM_CREATE_F_HASH_KEY;
		memcpy(c.hash_key, o->hash_key, BLOOM_HASH_KEY_LEN);
	}
	if (o->bind)
		c.flags |= BLOOM_CREATE_F_BIND;
	return bloom_ioctl(fd, BLOOM_IOC_CREATE, &c);
}

int bloom_create(int fd, const char *name, enum bloom_type type,
		 uint64_t capacity, double fpp, uint32_t flags)
{
	struct bloom_create_opts o = {
		.type = type,
		.capacity = capacity,
		.fpp = fpp,
		.bind = !!(flags & BLOOM_CREATE_F_BIND),
	};

	/* The other flags need arguments this call does not take. */
	if (flags & ~BLOOM_CREATE_F_BIND)
		return -EINVAL;
	return bloom_create_opts(fd, name, &o);
}
