// SPDX-License-Identifier: GPL-2.0
/*
 * A store into a snapshot image and back (store.h); the format is the
 * core's (module/core/snapshot*.c, Documentation/snapshot.rst), the ioctls
 * snap.c's.
 *
 * SAVE copies the store under its filter's write lock, so it is one point
 * in time for counting, d-left and timed stores (whose writers take that
 * lock) and no merge, flush or restore changes it meanwhile; a ring's
 * rotation and a timed table's sweep are kept away too (the work's lock).
 * The checksum is that of the copy, so it holds even while lock-free adds
 * of a standard or blocked store set bits.
 *
 * RESTORE builds a new store aside, copies the payload from user memory
 * straight into its tables a chunk at a time (hashing what arrived, so a
 * caller changing its buffer meanwhile only gets a checksum mismatch),
 * checks each table with the core and only then sets its times, its counts
 * and starts its work.
 */
#include <linux/err.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/xxhash.h>

#include "snapshot.h"
#include "store_internal.h"

#define BLOOM_IMAGE_CHUNK	SZ_1M	/* bytes per copy step */

void bloom_store_image_header(const struct bloom_store *s,
			      struct bloom_image_header *h)
{
	memset(h, 0, sizeof(*h));
	bloom_image_header_init(h, &s->core);
	bloom_image_header_netblocks(h, &s->nb);
}

/*
 * Copies @core's storage to @dst, hashing the copy (cache-hot) a chunk at
 * a time; under the write lock, which a chunk's cond_resched() keeps.
 */
static u8 *bloom_image_copy_table(const struct bloom_core *core, u8 *dst,
				  struct xxh64_state *xs)
{
	u64 bytes = bloom_core_storage_bytes(&core->geo), off, n;
	const u8 *src = (const u8 *)core->words;

	for (off = 0; off < bytes; off += n) {
		n = min_t(u64, bytes - off, BLOOM_IMAGE_CHUNK);
		memcpy(dst + off, src + off, n);
		xxh64_update(xs, dst + off, n);
		cond_resched();
	}
	return dst + bytes;
}

/*
 * The payload: the store's table, a ring's generations oldest first, or a
 * chain's stages one after the other (no stage is added meanwhile).
 */
static void bloom_image_copy_payload(const struct bloom_core *core, u8 *dst,
				     struct xxh64_state *xs)
{
	u32 i, n;

	if (bloom_core_is_expiring(core)) {
		n = core->expire->p.generations;
		for (i = 0; i < n; i++)
			dst = bloom_image_copy_table(&bloom_expire_gen(core, i)->core,
						     dst, xs);
		return;
	}
	if (!bloom_core_is_scalable(core)) {
		bloom_image_copy_table(core, dst, xs);
		return;
	}
	n = bloom_scale_stages(core);
	for (i = 0; i < n; i++)
		dst = bloom_image_copy_table(&bloom_scale_stage(core, i)->core,
					     dst, xs);
}

static void bloom_image_fill_stats(const struct bloom_store *s,
				   struct bloom_image_stats *st)
{
	struct bloom_core_stats cs;
	struct bloom_stats_sum sum;

	bloom_store_sum_stats(s, &sum);
	bloom_core_stats(&s->core, &cs);
	st->count = cs.keys;
	st->adds = sum.adds;
	st->queries = sum.queries;
	st->hits = sum.hits;
	st->deletes = sum.deletes;
	st->delete_misses = sum.delete_misses;
	st->insert_failures = cs.insert_failures;
}

void bloom_store_image_write(struct bloom_store *s,
			     struct bloom_image_header *h, u8 *buf)
{
	struct xxh64_state xs;

	/*
	 * No rotation while a ring's generations and their times are
	 * copied (the order and the tables must agree), no sweep while a
	 * timed table's cells are; times are taken against now, the wall
	 * clock's for a restore after a boot.
	 */
	bloom_store_lock_work(s);
	if (bloom_core_is_expiring(&s->core))
		h->saved_ns = bloom_work_now_ns();
	if (bloom_core_is_timed(&s->core)) {
		/* the cells read right against the save's time */
		bloom_work_timed_catch_up(s->work);
		h->saved_s = bloom_clock_s();
	}
	if (s->work)
		h->saved_wall_ns = ktime_get_real_ns();
	xxh64_reset(&xs, 0);
	bloom_image_copy_payload(&s->core, buf + h->header_size, &xs);
	bloom_image_fill_stats(s, &h->stats);
	h->payload_hash = xxh64_digest(&xs);
	/* after the payload: stage counts cover every key it holds */
	bloom_image_header_write(buf, h, &s->core);
	bloom_store_unlock_work(s);
}

/* @bytes of payload into @dst, a chunk at a time, hashed into @xs. */
static int bloom_image_copy_in(u8 *dst, const u8 __user *ubuf, u64 bytes,
			       struct xxh64_state *xs)
{
	u64 off, n;

	for (off = 0; off < bytes; off += n) {
		n = min_t(u64, bytes - off, BLOOM_IMAGE_CHUNK);
		if (copy_from_user(dst + off, ubuf + off, n))
			return -EFAULT;
		xxh64_update(xs, dst + off, n);
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return 0;
}

/*
 * A chain's stages as the image's table says, each allocated (max_memory,
 * memory cgroup), filled from @ubuf and checked, into @s (made without
 * stages); the payload's xxh64 in @xs.
 */
static int bloom_image_load_stages(struct bloom_store *s,
				   const struct bloom_image_header *h,
				   const u8 *hdr, const u8 __user *ubuf,
				   struct xxh64_state *xs)
{
	struct bloom_scale_stage *st;
	struct bloom_image_stage e;
	struct bloom_geometry geo;
	u64 bytes, off = 0;
	int ret = 0;
	u32 i;

	/* stage 0 as it was made, whatever the sizing now */
	s->core.geo.bits = h->geo.bits;
	s->core.geo.hashes = h->geo.hashes;
	for (i = 0; i < h->nstages && !ret; i++) {
		bloom_image_stage_read(hdr, i, &e);
		bloom_image_stage_geometry(h->geo.type, &e, &geo);
		st = bloom_store_add_stage(s, &geo);
		ret = PTR_ERR_OR_ZERO(st);
		if (ret)
			break;
		/* unpublished: the next stage's term follows this one's */
		st->term = h->term[i];
		bytes = bloom_core_storage_bytes(&geo);
		ret = bloom_image_copy_in((u8 *)st->core.words, ubuf + off,
					  bytes, xs);
		if (!ret)
			ret = bloom_image_payload_check(&st->core);
		st->count = e.count;
		bloom_atomic64_set(&st->core.keys, e.keys);
		off += bytes;
	}
	return ret;
}

/*
 * One table, or a ring's generations (oldest first, their order in a new
 * store, one after the other in its allocation), from @ubuf, each checked.
 */
static int bloom_image_load_tables(struct bloom_store *s,
				   const struct bloom_image_header *h,
				   const u8 __user *ubuf,
				   struct xxh64_state *xs)
{
	bool ring = bloom_core_is_expiring(&s->core);
	struct bloom_core *first;
	u32 i, n = ring ? h->ngens : 1;
	int ret;

	first = ring ? &bloom_expire_gen(&s->core, 0)->core : &s->core;
	ret = bloom_image_copy_in((u8 *)first->words, ubuf, h->payload_bytes,
				  xs);
	for (i = 0; !ret && i < n; i++)
		ret = bloom_image_payload_check(ring ?
				&bloom_expire_gen(&s->core, i)->core : first);
	return ret;
}

/* Into a store nobody else sees yet. */
static void bloom_image_set_stats(struct bloom_store *s,
				  const struct bloom_image_stats *st)
{
	int cpu = cpumask_first(cpu_possible_mask);
	struct bloom_stats *c = per_cpu_ptr(s->stats, cpu);

	c->adds = st->adds;
	/* an image saved by a module that counted totals apart may say more */
	c->hits = min(st->hits, st->queries);
	c->query_misses = st->queries - c->hits;
	c->deletes = st->deletes;
	c->delete_misses = st->delete_misses;
	s->core.insert_failures = st->insert_failures;
	/* in_use was counted by bloom_image_payload_check() */
	bloom_atomic64_set(&s->core.keys, st->count);
}

/*
 * A timed store, loaded and checked: each key keeps the time it had left
 * at the save less the wall-clock time since, on this clock; what expired
 * meanwhile goes before anyone sees the filter. A key with more left than
 * the filter's largest timeout allows: -EBADMSG.
 */
static int bloom_image_timed_rebase(struct bloom_store *s,
				    const struct bloom_image_header *h)
{
	u64 now_wall = ktime_get_real_ns(), elapsed = 0;
	struct bloom_core *t[BLOOM_CORE_STAGES_MAX];
	u32 i, n;
	int ret = 0;

	if (now_wall > h->saved_wall_ns)
		elapsed = div_u64(now_wall - h->saved_wall_ns, NSEC_PER_SEC);
	/* nobody sees the store yet: its stages as the work would list them */
	n = bloom_store_timed_tables(&s->core, t);
	for (i = 0; i < n && !ret; i++)
		ret = bloom_timed_rebase(t[i], h->saved_s, elapsed,
					 h->key_timeout_max_s);
	return ret;
}

/* The description of the store an image holds. */
static void bloom_image_spec(const struct bloom_image_header *h,
			     struct bloom_store_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	if (h->nstages) {
		spec->shape = BLOOM_STORE_CHAIN;
		spec->scale = h->scale;
	} else if (h->ngens) {
		spec->shape = BLOOM_STORE_RING;
		spec->expire = h->expire;
	} else {
		spec->shape = BLOOM_STORE_PLAIN;
		spec->geo = h->geo;
	}
	/* a timed store's timeouts come after its keys were rebased */
	spec->has_key = true;
	memcpy(spec->hash_key, h->hash_key, sizeof(spec->hash_key));
	spec->hash = h->hash;
	spec->placement = h->placement;
}

struct bloom_store *bloom_store_from_image(struct bloom_account *acct,
					   const struct bloom_image_header *h,
					   const u8 *hdr,
					   const u8 __user *upayload)
{
	struct bloom_store_spec spec;
	struct xxh64_state xs;
	struct bloom_store *s;
	int ret;

	bloom_image_spec(h, &spec);
	s = bloom_store_create(acct, &spec, false);
	memzero_explicit(spec.hash_key, sizeof(spec.hash_key));
	if (IS_ERR(s))
		return s;
	xxh64_reset(&xs, 0);
	ret = h->nstages ? bloom_image_load_stages(s, h, hdr, upayload, &xs) :
			   bloom_image_load_tables(s, h, upayload, &xs);
	if (!ret && xxh64_digest(&xs) != h->payload_hash)
		ret = -EBADMSG;
	if (ret)
		goto err;
	bloom_image_set_stats(s, &h->stats);
	bloom_image_netblocks_load(hdr, h, &s->nb);
	/* what expired since the save goes before anyone sees the filter */
	if (h->ngens)
		bloom_image_gens_apply(&s->core, hdr, h, bloom_work_now_ns(),
				       ktime_get_real_ns());
	if (bloom_core_is_timed(&s->core)) {
		ret = bloom_image_timed_rebase(s, h);
		if (ret)
			goto err;
		bloom_timed_set_timeouts(&s->core, h->key_timeout_s,
					 h->key_timeout_max_s);
	}
	bloom_store_start(s);
	return s;
err:
	bloom_store_discard(s);
	return ERR_PTR(ret);
}
