/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The timed type's operations at a time the test chooses: each sets the
 * clock every operation reads (module/core/shim.h, bloom_clock_set_s()) and
 * calls the one entry the core has for it, as the module's clock would
 * read that time. Times are never 0 (0 gives the real clock back).
 */
#ifndef UNIT_TIMED_AT_H
#define UNIT_TIMED_AT_H

#include "core.h"
#include "timed.h"

/* 1: present already (the later expiry kept), 0: new, -ENOSPC. */
static inline int add_at(struct bloom_core *f, u64 h, u32 timeout_s, u64 now)
{
	u8 r = 0;
	u32 done;

	bloom_clock_set_s(now);
	bloom_timed_add_batch(f, &h, 1, NULL, timeout_s, &r, &done);
	return done ? r & 1 : -ENOSPC;
}

static inline bool query_at(const struct bloom_core *f, u64 h, u64 now)
{
	bloom_clock_set_s(now);
	return bloom_core_query_hash(f, h);
}

static inline int delete_at(struct bloom_core *f, u64 h, u64 now)
{
	bloom_clock_set_s(now);
	return bloom_core_delete_hash(f, h);
}

static inline u32 add_batch_at(struct bloom_core *f, const u64 *hashes,
			       u32 n, u32 timeout_s, u64 now, u8 *results,
			       u32 *done)
{
	bloom_clock_set_s(now);
	return bloom_timed_add_batch(f, hashes, n, NULL, timeout_s, results,
				     done);
}

static inline u64 sweep_at(struct bloom_core *f, u64 first, u64 n, u64 now)
{
	bloom_clock_set_s(now);
	return bloom_timed_sweep(f, first, n);
}

static inline u64 live_at(const struct bloom_core *f, u64 now)
{
	bloom_clock_set_s(now);
	return bloom_timed_count_live(f);
}

static inline int rebase_at(struct bloom_core *f, u64 saved_s, u64 elapsed_s,
			    u64 now, u32 max_s)
{
	bloom_clock_set_s(now);
	return bloom_timed_rebase(f, saved_s, elapsed_s, max_s);
}

#endif /* UNIT_TIMED_AT_H */
