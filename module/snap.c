// SPDX-License-Identifier: GPL-2.0
/*
 * SAVE and RESTORE: snapshots, whose format the core reads and writes
 * (module/core/snapshot.c, Documentation/snapshot.rst).
 *
 * SAVE holds the filter's write lock while it copies, so it is one point in
 * time for counting and d-left filters (whose writers take that lock) and
 * no MERGE, FLUSH or RESTORE changes the filter under it. The storage goes
 * out through a bounce buffer that is hashed and then copied, so the
 * checksum is that of the bytes the caller gets even while lock-free adds
 * of a standard or blocked filter set bits.
 *
 * RESTORE builds a new store (store.h) aside, copies the payload from
 * user memory straight into its storage a chunk at a time (hashing what
 * arrived, so a caller changing its buffer meanwhile only gets a checksum
 * mismatch), checks it with the core, and only if everything holds either
 * registers a new filter holding it or, with BLOOM_RESTORE_F_REPLACE,
 * publishes it as an existing filter's store (bloom_filter_replace(): RCU,
 * so a query sees the old store or the new one, never neither or a mix).
 * Until then nobody can reach it; on any error it is freed.
 */
#include <linux/err.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/xxhash.h>

#include "alloc.h"
#include "filter.h"
#include "name.h"
#include "registry.h"
#include "snap.h"
#include "snapshot.h"

#define BLOOM_SNAP_CHUNK	SZ_1M	/* bytes per copy step */

static_assert(sizeof(BLOOM_SNAP_MAGIC) == BLOOM_SNAP_MAGIC_LEN + 1);

/* Copies out the storage of @core, hashing what it copies. */
static int bloom_snap_copy_one(const struct bloom_core *core,
			       u8 __user *ubuf, u8 *bounce,
			       struct xxh64_state *xs)
{
	u64 bytes = bloom_core_storage_bytes(&core->geo), off, n;
	const u8 *src = (const u8 *)core->words;

	for (off = 0; off < bytes; off += n) {
		n = min_t(u64, bytes - off, BLOOM_SNAP_CHUNK);
		memcpy(bounce, src + off, n);
		xxh64_update(xs, bounce, n);
		if (copy_to_user(ubuf + off, bounce, n))
			return -EFAULT;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return 0;
}

/*
 * The payload: @core's storage, or a scalable filter's stages' one after
 * the other (under the write lock: no stage is added meanwhile).
 */
static int bloom_snap_copy_out(const struct bloom_core *core,
			       u8 __user *ubuf, u8 *bounce,
			       struct xxh64_state *xs)
{
	const struct bloom_scale_stage *st;
	u32 i, n;
	int ret;

	if (!bloom_core_is_scalable(core))
		return bloom_snap_copy_one(core, ubuf, bounce, xs);
	n = bloom_scale_stages(core);
	for (i = 0; i < n; i++) {
		st = bloom_scale_stage(core, i);
		ret = bloom_snap_copy_one(&st->core, ubuf, bounce, xs);
		if (ret)
			return ret;
		ubuf += bloom_core_storage_bytes(&st->core.geo);
	}
	return 0;
}

static void bloom_snap_fill_stats(const struct bloom_store *s,
				  struct bloom_snap_stats *st)
{
	struct bloom_core_stats cs;
	struct bloom_stats sum;

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

int bloom_snap_save(struct bloom_filter *f, struct bloom_save *arg)
{
	u8 __user *ubuf = u64_to_user_ptr(arg->buf);
	u8 *hdr = NULL, *bounce = NULL;
	struct bloom_snap_header h;
	struct bloom_store *s;
	struct xxh64_state xs;
	int ret;

	if (arg->flags || arg->reserved)
		return -EINVAL;
	if (!bloom_snap_native())
		return -EOPNOTSUPP;
	arg->out_len = 0;
	memset(&h, 0, sizeof(h));
	/*
	 * The write lock holds the store in place (replace and swap take it),
	 * a scalable filter's stages as they are (growth takes it) and, for
	 * counting and d-left filters, their writers off.
	 */
	if (mutex_lock_killable(&f->write_lock))
		return -EINTR;
	s = bloom_filter_store_locked(f);
	ret = -ESTALE;
	if (!s)
		goto unlock;
	bloom_snap_header_init(&h, &s->core);
	bloom_snap_header_netblocks(&h, &s->nb);
	arg->out_len = h.header_size + h.payload_bytes;
	ret = 0;
	if (!arg->buf)
		goto unlock;
	ret = -EOVERFLOW;
	if (arg->buf_len < arg->out_len)
		goto unlock;
	hdr = bloom_kzalloc(h.header_size, GFP_KERNEL_ACCOUNT);
	bounce = bloom_kvzalloc(min_t(u64, h.payload_bytes, BLOOM_SNAP_CHUNK),
				GFP_KERNEL_ACCOUNT);
	ret = -ENOMEM;
	if (!hdr || !bounce)
		goto unlock;
	xxh64_reset(&xs, 0);
	ret = bloom_snap_copy_out(&s->core, ubuf + h.header_size, bounce, &xs);
	if (!ret) {
		memcpy(h.name, f->name, sizeof(h.name));
		bloom_snap_fill_stats(s, &h.stats);
		h.payload_hash = xxh64_digest(&xs);
		/* after the payload: stage counts cover every key it holds */
		bloom_snap_header_write(hdr, &h, &s->core);
	}
unlock:
	mutex_unlock(&f->write_lock);
	if (!ret && hdr && copy_to_user(ubuf, hdr, h.header_size))
		ret = -EFAULT;
	if (hdr)
		memzero_explicit(hdr, h.header_size);
	memzero_explicit(&h, sizeof(h));
	bloom_kfree(hdr);
	bloom_kvfree(bounce);
	return ret;
}

/* @bytes of payload into @dst, a chunk at a time, hashed into @xs. */
static int bloom_snap_copy_in(u8 *dst, const u8 __user *ubuf, u64 bytes,
			      struct xxh64_state *xs)
{
	u64 off, n;

	for (off = 0; off < bytes; off += n) {
		n = min_t(u64, bytes - off, BLOOM_SNAP_CHUNK);
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
 * A scalable filter's store from the snapshot whose header @hdr was read
 * into @h: its stages as the table says, each allocated (max_memory,
 * memory cgroup), filled from @ubuf (the payload) and checked; the
 * payload's xxh64 in *@hash. Not published.
 */
static struct bloom_store *bloom_snap_new_stages(const struct bloom_snap_header *h,
						 const u8 *hdr,
						 const u8 __user *ubuf,
						 u64 *hash)
{
	struct bloom_scale_stage *st;
	struct bloom_snap_stage e;
	struct bloom_geometry geo;
	struct bloom_store *s;
	struct xxh64_state xs;
	u64 bytes, off = 0;
	int ret = 0;
	u32 i;

	s = bloom_store_new_stageless(&h->scale, h->hash_key);
	if (IS_ERR(s))
		return s;
	/* stage 0 as it was made, whatever the sizing now */
	s->core.geo.bits = h->geo.bits;
	s->core.geo.hashes = h->geo.hashes;
	xxh64_reset(&xs, 0);
	for (i = 0; i < h->nstages && !ret; i++) {
		bloom_snap_stage_read(hdr, i, &e);
		bloom_snap_stage_geometry(h->geo.type, &e, &geo);
		st = bloom_store_add_stage(s, &geo);
		ret = PTR_ERR_OR_ZERO(st);
		if (ret)
			break;
		bytes = bloom_core_storage_bytes(&geo);
		ret = bloom_snap_copy_in((u8 *)st->core.words, ubuf + off,
					 bytes, &xs);
		if (!ret)
			ret = bloom_snap_payload_check(&st->core);
		st->count = e.count;
		bloom_atomic64_set(&st->core.keys, e.keys);
		off += bytes;
	}
	if (ret) {
		bloom_store_discard(s);
		return ERR_PTR(ret);
	}
	*hash = xxh64_digest(&xs);
	return s;
}

/* A store of a type from the snapshot's payload at @ubuf. Not published. */
static struct bloom_store *bloom_snap_new_plain(const struct bloom_snap_header *h,
						const u8 __user *ubuf,
						u64 *hash)
{
	struct bloom_store *s;
	struct xxh64_state xs;
	int ret;

	s = bloom_store_new(&h->geo, h->hash_key);
	if (IS_ERR(s))
		return s;
	xxh64_reset(&xs, 0);
	ret = bloom_snap_copy_in((u8 *)s->core.words, ubuf, h->payload_bytes,
				 &xs);
	if (!ret)
		ret = bloom_snap_payload_check(&s->core);
	if (ret) {
		bloom_store_discard(s);
		return ERR_PTR(ret);
	}
	*hash = xxh64_digest(&xs);
	return s;
}

/* Into a store nobody else sees yet. */
static void bloom_snap_set_stats(struct bloom_store *s,
				 const struct bloom_snap_stats *st)
{
	int cpu = cpumask_first(cpu_possible_mask);
	struct bloom_stats *c = per_cpu_ptr(s->stats, cpu);

	c->adds = st->adds;
	c->queries = st->queries;
	c->hits = st->hits;
	c->deletes = st->deletes;
	c->delete_misses = st->delete_misses;
	s->core.insert_failures = st->insert_failures;
	/* in_use was counted by bloom_snap_payload_check() */
	bloom_atomic64_set(&s->core.keys, st->count);
}

/* Publishes @s under @name: a new filter, or @name's store replaced. */
static int bloom_snap_publish(struct net *net, const char *name,
			      struct bloom_store *s, bool replace)
{
	struct bloom_filter *f;
	int ret;

	if (replace) {
		f = bloom_registry_lookup(net, name);
		if (IS_ERR(f)) {
			bloom_store_discard(s);
			return PTR_ERR(f);
		}
		ret = bloom_filter_replace(f, s);
		if (ret)
			bloom_store_discard(s);
		bloom_filter_put(f);
		return ret;
	}
	ret = bloom_filter_new(name, s, &f);
	if (ret)
		return ret;
	ret = bloom_registry_add(net, f);
	bloom_filter_put(f);	/* the name holds its own on success */
	return ret;
}

int bloom_snap_restore(struct net *net, struct bloom_restore *arg)
{
	const u8 __user *ubuf = u64_to_user_ptr(arg->buf);
	u8 prefix[BLOOM_SNAP_PREFIX];
	struct bloom_snap_header h;
	struct bloom_store *s;
	const char *name;
	u32 hsize;
	u8 *hdr;
	u64 hash;
	int ret;

	if (arg->flags & ~BLOOM_RESTORE_F_ALL || arg->reserved)
		return -EINVAL;
	if (arg->flags & BLOOM_RESTORE_F_NAME ? !bloom_name_valid(arg->name) :
						!bloom_name_empty(arg->name))
		return -EINVAL;
	if (!bloom_snap_native())
		return -EOPNOTSUPP;
	if (arg->buf_len < BLOOM_SNAP_PREFIX)
		return -EBADMSG;
	if (copy_from_user(prefix, ubuf, sizeof(prefix)))
		return -EFAULT;
	ret = bloom_snap_header_size(prefix, sizeof(prefix), &hsize);
	if (ret)
		return ret;
	if (arg->buf_len < hsize)
		return -EBADMSG;
	hdr = bloom_kzalloc(hsize, GFP_KERNEL_ACCOUNT);
	if (!hdr)
		return -ENOMEM;
	ret = -EFAULT;
	if (copy_from_user(hdr, ubuf, hsize))
		goto out;
	ret = bloom_snap_header_read(hdr, hsize, &h, NULL);
	if (ret)
		goto out;
	ret = -EBADMSG;
	if (arg->buf_len - hsize != h.payload_bytes)
		goto out;
	name = arg->flags & BLOOM_RESTORE_F_NAME ? arg->name : h.name;
	ret = -EINVAL;
	if (!bloom_name_valid(name))
		goto out;

	s = h.nstages ? bloom_snap_new_stages(&h, hdr, ubuf + hsize, &hash) :
			bloom_snap_new_plain(&h, ubuf + hsize, &hash);
	ret = PTR_ERR_OR_ZERO(s);
	if (ret)
		goto out;
	if (hash != h.payload_hash) {
		bloom_store_discard(s);
		ret = -EBADMSG;
		goto out;
	}
	bloom_snap_set_stats(s, &h.stats);
	bloom_snap_netblocks_load(hdr, &h, &s->nb);
	ret = bloom_snap_publish(net, name, s,
				 arg->flags & BLOOM_RESTORE_F_REPLACE);
out:
	memzero_explicit(&h, sizeof(h));
	memzero_explicit(hdr, hsize);
	bloom_kfree(hdr);
	return ret;
}
