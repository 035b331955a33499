// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * bloom_size(): what a filter would be, without the module, computed by the
 * filter core's bloom_core_size() (module/core/sizing.c), the function
 * bloom.ko runs for BLOOM_CREATE_F_SIZE. Same inputs, same filter.
 */
#include <math.h>
#include <string.h>
#include "core.h"
#include "internal.h"

int bloom_size(const struct bloom_size_opts *o, struct bloom_size_result *out)
{
	struct bloom_core_size_req r;
	struct bloom_size_result res;
	struct bloom_geometry g;
	uint32_t ppb = 0;
	double fpp;
	int err;

	err = OPTS_CHECK(o, bloom_size_opts);
	if (err)
		return err;
	if (!o || !out || out->sz < lb_offsetofend(struct bloom_size_result,
						   expected_fpp))
		return -EINVAL;
	memset(&r, 0, sizeof(r));
	r.type = OPTS_GET(o, type, 0);
	if (!r.type)
		r.type = BLOOM_TYPE_STANDARD;
	r.hashes = OPTS_GET(o, hashes, 0);
	r.capacity = OPTS_GET(o, capacity, 0);
	r.memory_bytes = OPTS_GET(o, memory, 0);
	fpp = OPTS_GET(o, fpp, 0.0);
	if (fpp != 0) {
		err = bloom_fpp_to_ppb(fpp, &ppb);
		if (err)
			return err;
		r.fpp_ppb = ppb;
	}
	err = lb_bpk_milli(OPTS_GET(o, bits_per_key, 0.0), &r.bpk_milli);
	if (!err)
		err = bloom_core_size(&r, &g);
	if (err)
		return err;

	memset(&res, 0, sizeof(res));
	res.type = g.type;
	res.capacity = g.capacity;
	res.fpp_ppb = g.fpp_ppb;
	res.bits = g.bits;
	res.hashes = g.hashes;
	res.fingerprint_bits = g.fingerprint_bits;
	res.memory_bytes = bloom_core_storage_bytes(&g);
	res.bits_per_key = (double)g.bits / g.capacity;
	res.expected_fpp = exp2(-(double)bloom_geometry_neg_log2_rate(&g) /
				4294967296.0);
	res.sz = out->sz < sizeof(res) ? out->sz : sizeof(res);
	memcpy(out, &res, res.sz);
	out->sz = res.sz;
	return 0;
}
