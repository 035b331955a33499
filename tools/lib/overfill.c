// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * The overfill bound of the add calls (libbloom.h, "Overfill"): the rate a
 * filter of fixed size would have with @n more keys, from its INFO and the
 * filter core's model of its type (bloom_core_fpp_model(), the model the
 * benchmarks check against measured rates), against BLOOM_OVERFILL_RATIO
 * times the rate it was created for. One INFO and a bounded computation
 * (the model's powers take O(log(k n)) steps), whatever the filter's size
 * and @n.
 */
#include <math.h>
#include <string.h>
#include "core.h"
#include "internal.h"

/* The core's model of a type whose rate grows with its keys; 0: none. */
static uint32_t model_type(const struct bloom_info *in)
{
	/* and a geometry this library knows: the model's powers fit 64 bits */
	if (in->stages || in->generations || !in->bits || !in->hashes ||
	    in->bits > BLOOM_BITS_MAX || in->hashes > BLOOM_HASHES_MAX)
		return 0;
	switch (in->type) {
	case BLOOM_TYPE_STANDARD:
		return BLOOM_CORE_STANDARD;
	case BLOOM_TYPE_BLOCKED:
		return BLOOM_CORE_BLOCKED;
	case BLOOM_TYPE_COUNTING:
		return BLOOM_CORE_COUNTING;
	default:
		/* d-left and timed refuse a key that finds no room */
		return 0;
	}
}

/*
 * Fills @e (all of it, the library's own struct) from @in; 1 when @n more
 * keys would pass the bound.
 */
static int estimate(const struct bloom_info *in, uint64_t n,
		    struct bloom_add_estimate *e)
{
	uint32_t type = model_type(in);
	uint64_t total, most;

	memset(e, 0, sizeof(*e));
	e->capacity = in->capacity;
	e->fpp = in->fpp_ppb / 1e9;
	e->fpp_now = in->estimated_fpp_ppb / 1e9;
	/* every bit set: no estimate, the adds say more than the count */
	if (in->estimated_keys == UINT64_MAX) {
		e->keys = in->adds > in->count ? in->adds : in->count;
		e->flags = BLOOM_ESTIMATE_F_ADDED;
	} else {
		e->keys = in->estimated_keys > in->count ? in->estimated_keys :
							   in->count;
	}
	if (!type)
		return 0;
	e->bound = fmin(BLOOM_OVERFILL_RATIO * e->fpp, BLOOM_OVERFILL_MAX);
	/*
	 * At k n / m >= 64 a bit is still 0 with probability e^-64 at most:
	 * the rate is 1 to double precision. The cap keeps k n within 64
	 * bits (m at most BLOOM_BITS_MAX, k at most BLOOM_HASHES_MAX).
	 */
	most = in->bits * 64;
	total = e->keys > most || n > most - e->keys ? most : e->keys + n;
	e->fpp_after = ldexp((double)bloom_core_fpp_model(type, in->bits,
							  in->hashes, total),
			     -64);
	return e->fpp_after > e->bound;
}

int bloom_add_estimate(int fd, const char *name, uint64_t n,
		       struct bloom_add_estimate *e)
{
	struct bloom_add_estimate res;
	struct bloom_info in;
	int err, over;

	if (!e || e->sz < lb_offsetofend(struct bloom_add_estimate, bound))
		return -EINVAL;
	err = bloom_info(fd, name, &in);
	if (err)
		return err;
	over = estimate(&in, n, &res);
	res.sz = e->sz < sizeof(res) ? e->sz : sizeof(res);
	memcpy(e, &res, res.sz);
	return over;
}

int lb_overfill_check(int fd, uint64_t n)
{
	struct bloom_add_estimate e;
	struct bloom_info in;

	/* a failing INFO is no reason to refuse: the add says what is wrong */
	if (!n || bloom_info(fd, NULL, &in))
		return 0;
	return estimate(&in, n, &e) ? -EOVERFLOW : 0;
}
