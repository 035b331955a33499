/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The timed filter's API (timed.c), beside core.h's: keys with their own
 * timeouts.
 */
#ifndef BLOOM_CORE_TIMED_H
#define BLOOM_CORE_TIMED_H

#include "core.h"

/*
 * Filters whose keys each have their own timeout (timed.c): the d-left
 * table with a fingerprint, a tag and a coarse expiry in each cell, a set
 * (an add of a present key keeps the later expiry, a delete empties its
 * cell). Times are whole seconds of one monotonic clock, which every
 * operation reads itself: bloom_clock_s() of the shim (the module's is
 * CLOCK_BOOTTIME; tests and benchmarks set the userspace one). Queries,
 * deletes and adds with the filter's @key_timeout_s are core.h's
 * (bloom_core_add_hash() and the rest); this API adds what the type has
 * beside them. A timeout is 0 (none) or
 * 1..BLOOM_CORE_KEY_TIMEOUT_MAX seconds; a key added with T tests present
 * at least T after the add and absent (but for false positives) from T +
 * bloom_timed_resolution_s(T) on.
 */
#define BLOOM_CORE_KEY_TIMEOUT_MAX	0x7fffffffU	/* s, about 68 years */

/* The unit expiries of a timeout T are kept in: max(1, T / 16) or less. */
u32 bloom_timed_resolution_s(u32 timeout_s);
bool bloom_core_is_timed(const struct bloom_core *f);
/* The default and the largest timeout; @max_s 0: BLOOM_CORE_KEY_TIMEOUT_MAX. */
void bloom_timed_set_timeouts(struct bloom_core *f, u32 timeout_s, u32 max_s);
/* The bits beside the fingerprint that adds and deletes compare. */
u32 bloom_timed_tag_bits(const struct bloom_core *f);
/*
 * As bloom_core_add_batch_done(); key i's timeout is @timeouts[i], or
 * @timeout_s for every key when @timeouts is NULL. A key present already
 * keeps the later of its two expiries (its results bit 1).
 */
u32 bloom_timed_add_batch(struct bloom_core *f, const u64 *hashes, u32 n,
			  const u32 *timeouts, u32 timeout_s, u8 *results,
			  u32 *done);
/*
 * One key (a timed chain's stages, scale.c): as bloom_timed_add_batch()
 * with @timeout_s: 1 when it was present (the later expiry kept), 0 when
 * it took a new cell; -ENOENT when it was absent and !@insert, -ENOSPC
 * when its buckets are full: nothing changed then. A writer.
 */
int bloom_timed_put(struct bloom_core *f, u64 h, u32 timeout_s, bool insert);
/* Deletes one key: true when its cell was emptied. A writer. */
bool bloom_timed_remove(struct bloom_core *f, u64 h);
/* Cells in use, live or expired and not reclaimed yet. */
u64 bloom_timed_used(const struct bloom_core *f);
/* Buckets of the whole table (all subtables): what a sweep walks. */
u64 bloom_timed_buckets(const struct bloom_core *f);
/*
 * Empties the expired cells of buckets [@first, @first + @n); returns how
 * many. A writer: serialised with adds and deletes. Every cell must be
 * swept within 29 units of its expiry (29 s for timeouts under 32 s) or
 * it reads as live again until the next sweep (a false positive).
 */
u64 bloom_timed_sweep(struct bloom_core *f, u64 first, u64 n);
/* Live cells, by a scan (tests, checks). */
u64 bloom_timed_count_live(const struct bloom_core *f);
/*
 * A table saved at @saved_s of the saving clock, @elapsed_s ago by the
 * wall clock, made right for this clock, where it is now: each key
 * keeps the time it had left less @elapsed_s (rounded up to its unit);
 * keys with none left, or none at the save, are emptied. -EBADMSG when a
 * key had more left than @max_s (the filter's largest timeout) and three
 * of its units, or has a unit no timeout up to @max_s has: nothing a filter with
 * that largest timeout can hold (the table is then part done: discard
 * it). Writers excluded; O(size), may reschedule in the kernel.
 */
int bloom_timed_rebase(struct bloom_core *f, u64 saved_s, u64 elapsed_s,
		       u32 max_s);

#endif /* BLOOM_CORE_TIMED_H */
