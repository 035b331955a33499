/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A store's mappable memory (map.c): one vmalloc area, a header page
 * (struct bloom_map_header of the uapi header) followed by the filter's
 * bits, that a process may map read-only (mmap() of a bound descriptor,
 * dev.c). The store that holds it keeps its core's words in it.
 *
 * Two counts, because the memory must outlive two kinds of user:
 *   @users: the store until it is retired, and each VMA. When it drops to
 *	zero the area's bytes go back to max_memory: a destroyed filter's
 *	memory comes back at once unless a process still maps it, then at
 *	the last unmap. Both happen while the account lives (a VMA holds its
 *	file, which holds the descriptor's network namespace).
 *   @refs: the store until it is freed (after the RCU grace period that
 *	lock-free queries need), and each VMA. At zero the area is freed.
 * A VMA that finds the store retired (@users at zero) maps nothing: the
 * caller sees ESTALE.
 *
 * The header's @seq is a seqcount over what the bits mean: bumped to odd
 * and back to even around every change that is not an add, by the
 * filter's writers (serialised by its write lock).
 */
#ifndef BLOOM_MAP_H
#define BLOOM_MAP_H

#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/bloom.h>

#include "account.h"
#include "core.h"

struct vm_area_struct;

struct bloom_map {
	refcount_t users;
	refcount_t refs;
	struct bloom_map_header *hdr;	/* the area's first page */
	u64 len;			/* bytes of the area, whole pages */
	u64 charged;			/* bytes reserved in @acct */
	struct bloom_account *acct;
};

/*
 * A zeroed area with room for @storage_bytes of bits after the header
 * page, its bytes (@charged of them, reserved by the caller in @acct)
 * given back by the last user. NULL when out of memory.
 */
struct bloom_map *bloom_map_new(struct bloom_account *acct,
				u64 storage_bytes, u64 charged);
/* Bytes bloom_map_new() needs for @storage_bytes, header and struct included. */
u64 bloom_map_bytes(u64 storage_bytes);
/* Where the bits go: BLOOM_CORE_ALIGN-aligned. */
void *bloom_map_bits(const struct bloom_map *m);
/* The header's geometry and hash key, from the core over the bits. */
void bloom_map_describe(struct bloom_map *m, const struct bloom_core *core,
			u32 keys);

/* The holder lets go: at retire (users), at free (refs). */
void bloom_map_retire(struct bloom_map *m);
void bloom_map_put(struct bloom_map *m);

/* Around a change of what the bits mean; the filter's writers only. */
void bloom_map_change_begin(struct bloom_map *m);
void bloom_map_change_end(struct bloom_map *m);
/* Inside a change: the bits are no longer the filter's. */
void bloom_map_set_stale(struct bloom_map *m);
/*
 * The key kind is @keys: a change of its own when it differs and the
 * store is @published (inside another change it nests: no bump of its own).
 */
void bloom_map_set_keys(struct bloom_map *m, u32 keys, bool published);

/*
 * Maps @m into @vma read-only, taking a user and a reference: 0,
 * -EACCES (a writable mapping asked), -EINVAL (offset, length), -ESTALE
 * (retired meanwhile). The caller holds rcu_read_lock() or otherwise
 * keeps @m from being freed.
 */
int bloom_map_vma(struct bloom_map *m, struct vm_area_struct *vma);

#endif /* BLOOM_MAP_H */
