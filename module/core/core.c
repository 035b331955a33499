// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The core's face: the functions core.h declares for every filter, each a
 * call through the filter's type table (struct bloom_core_ops, internal.h):
 * bloom_std_ops and bloom_blk_ops (bits.c), bloom_cnt_ops (counting.c),
 * bloom_dl_ops (dleft.c), bloom_tm_ops (timed.c) and, for a chain of stages, bloom_scale_ops
 * (scale.c, which sets it itself). Nothing here knows one type from
 * another beyond choosing its table.
 */
#include "internal.h"

static const struct bloom_core_ops *bloom_type_ops(u32 type)
{
	switch (type) {
	case BLOOM_CORE_BLOCKED:
		return &bloom_blk_ops;
	case BLOOM_CORE_COUNTING:
		return &bloom_cnt_ops;
	case BLOOM_CORE_DLEFT:
		return &bloom_dl_ops;
	case BLOOM_CORE_TIMED:
		return &bloom_tm_ops;
	default:
		return &bloom_std_ops;
	}
}

void bloom_core_init(struct bloom_core *f, const struct bloom_geometry *geo,
		     const bloom_hash_key_t *key, void *storage)
{
	u32 i;

	f->geo = *geo;
	f->ops = bloom_type_ops(geo->type);
	f->key = *key;
	f->words = storage;
	f->nblocks = geo->type == BLOOM_CORE_BLOCKED ?
		     geo->bits >> BLOOM_BLOCK_SHIFT : 0;
	f->saturated = 0;
	f->insert_failures = 0;
	for (i = 0; i < BLOOM_DLEFT_SUBTABLES; i++)
		f->subtable_used[i] = 0;
	f->key_timeout_s = 0;
	f->key_timeout_max_s = BLOOM_CORE_KEY_TIMEOUT_MAX;
	f->reclaimed = 0;
	f->scale = NULL;
	f->expire = NULL;
	bloom_atomic64_set(&f->in_use, 0);
	bloom_atomic64_set(&f->keys, 0);
	if (geo->type == BLOOM_CORE_DLEFT)
		bloom_dl_init(f);
}

bool bloom_core_is_scalable(const struct bloom_core *f)
{
	return f->scale;
}

u64 bloom_core_bits(const struct bloom_core *f)
{
	return f->ops->total_bits ? f->ops->total_bits(f) : f->geo.bits;
}

bool bloom_core_can_delete(const struct bloom_core *f)
{
	return f->ops->delete;
}

int bloom_core_add_hash(struct bloom_core *f, u64 h)
{
	return f->ops->add(f, h);
}

int bloom_core_delete_hash(struct bloom_core *f, u64 h)
{
	return f->ops->delete ? f->ops->delete(f, h) : BLOOM_CORE_DEL_ABSENT;
}

bool bloom_core_query_hash(const struct bloom_core *f, u64 h)
{
	return f->ops->query(f, h);
}

void bloom_core_prefetch_hash(const struct bloom_core *f, u64 h)
{
	f->ops->prefetch_hash(f, h, false);
}

u32 bloom_core_query_batch(const struct bloom_core *f, const u64 *hashes,
			   u32 n, u8 *results)
{
	return f->ops->query_batch(f, hashes, n, results);
}

u32 bloom_core_add_batch_done(struct bloom_core *f, const u64 *hashes, u32 n,
			      u8 *results, u32 *done)
{
	return f->ops->add_batch(f, hashes, n, results, done);
}

int bloom_core_add_batch(struct bloom_core *f, const u64 *hashes, u32 n,
			 u8 *results)
{
	u32 done, hits = f->ops->add_batch(f, hashes, n, results, &done);

	return done < n ? -ENOSPC : (int)hits;
}

u32 bloom_core_delete_batch(struct bloom_core *f, const u64 *hashes, u32 n,
			    u8 *results, u8 *pinned, u32 *npinned)
{
	u32 i, np = 0, removed = 0;

	if (f->ops->delete_batch)
		removed = f->ops->delete_batch(f, hashes, n, results, pinned,
					       &np);
	else
		for (i = 0; i < n; i++)
			bloom_del_result(results, pinned, &np, i,
					 BLOOM_DEL_ABSENT);
	if (npinned)
		*npinned = np;
	return removed;
}

u64 bloom_core_bits_set(const struct bloom_core *f)
{
	return f->ops->in_use(f);
}

u64 bloom_core_count_in_use(const struct bloom_core *f)
{
	return f->ops->scan_in_use(f);
}

void bloom_core_stats(const struct bloom_core *f, struct bloom_core_stats *s)
{
	bool dl = f->geo.type == BLOOM_CORE_DLEFT ||
		  f->geo.type == BLOOM_CORE_TIMED;
	s64 keys = (s64)bloom_atomic64_read(&f->keys);
	u32 i;

	s->in_use = bloom_core_bits_set(f);
	/* a delete of a never-added key can take keys below the truth */
	s->keys = dl ? s->in_use : keys > 0 ? (u64)keys : 0;
	/* a scalable filter's keys are its stages' */
	if (f->ops->keys)
		s->keys = f->ops->keys(f);
	s->saturated = READ_ONCE(f->saturated);
	s->insert_failures = READ_ONCE(f->insert_failures);
	s->fingerprint_bits = dl ? f->geo.fingerprint_bits : 0;
	s->subtables = dl ? f->geo.hashes : 0;
	s->subtable_cells = dl ? f->geo.buckets * bloom_bucket_cells(&f->geo) : 0;
	for (i = 0; i < BLOOM_DLEFT_SUBTABLES; i++)
		s->subtable_used[i] = READ_ONCE(f->subtable_used[i]);
}

/*
 * Core by core, in the caller's order, each core's own batched query,
 * with its prefetching, over the keys not found yet: an absent key costs
 * each core about what it costs one filter, and the cache misses of a
 * chunk overlap instead of following one another.
 */
u32 bloom_cores_find(const struct bloom_core *const *cores, u32 ncores,
		     const u64 *hashes, u32 c)
{
	u64 pending[BLOOM_CORES_CHUNK];
	u8 idx[BLOOM_CORES_CHUNK], res[BLOOM_CORES_CHUNK / 8];
	const u64 *cur = hashes;
	u32 found = 0, np = c, i, j, k;

	for (j = 0; j < c; j++)
		idx[j] = j;
	for (i = 0; i < ncores && np; i++) {
		if (!bloom_core_query_batch(cores[i], cur, np, res))
			continue;
		/* keep the keys not found; in place once cur is pending */
		for (j = 0, k = 0; j < np; j++) {
			if (res[j >> 3] & (1U << (j & 7))) {
				found |= 1U << idx[j];
			} else {
				pending[k] = cur[j];
				idx[k++] = idx[j];
			}
		}
		cur = pending;
		np = k;
	}
	return found;
}

u32 bloom_cores_query_batch(const struct bloom_core *const *cores,
			    u32 ncores, const u64 *hashes, u32 n, u8 *results)
{
	u32 i, j, c, found, hits = 0;
	bool r;

	for (i = 0; i < n; i += c) {
		c = n - i < BLOOM_CORES_CHUNK ? n - i : BLOOM_CORES_CHUNK;
		found = bloom_cores_find(cores, ncores, hashes + i, c);
		for (j = 0; j < c; j++) {
			r = found & (1U << j);
			hits += r;
			bloom_result(results, i + j, r);
		}
	}
	return hits;
}
