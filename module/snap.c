// SPDX-License-Identifier: GPL-2.0
/*
 * SAVE and RESTORE: snapshots, whose format the core reads and writes
 * (module/core/snapshot*.c, Documentation/snapshot.rst).
 *
 * SAVE copies the filter into a kernel image under the filter's write lock,
 * so it is one point in time for counting and d-left filters (whose writers
 * take that lock) and no MERGE, FLUSH or RESTORE changes the filter under
 * it; the checksum is that of the copy, so it holds even while lock-free
 * adds of a standard or blocked filter set bits. The image goes out to the
 * caller after the lock is dropped: a caller whose buffer stalls (a
 * userfaultfd or FUSE mapping) holds up nobody. The image counts against
 * max_memory and is charged to the caller's memory cgroup while it lives.
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
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/xxhash.h>

#include "alloc.h"
#include "filter.h"
#include "name.h"
#include "registry.h"
#include "snap.h"
#include "snapshot.h"

#define BLOOM_SNAP_CHUNK	SZ_1M	/* bytes per copy step */

static_assert(sizeof(BLOOM_IMAGE_MAGIC) == BLOOM_IMAGE_MAGIC_LEN + 1);
/*
 * The core's format and the uapi header's announcement of it name the
 * same magic and version (bloom_snapshot checks the magic's bytes in what
 * SAVE writes).
 */
static_assert(sizeof(BLOOM_IMAGE_MAGIC) == sizeof(BLOOM_SNAP_MAGIC));
static_assert(BLOOM_IMAGE_VERSION == BLOOM_SNAP_VERSION);

/*
 * Copies @core's storage to @dst, hashing the copy (cache-hot) a chunk at
 * a time; under the write lock, which a chunk's cond_resched() keeps.
 */
static u8 *bloom_snap_copy_one(const struct bloom_core *core, u8 *dst,
			       struct xxh64_state *xs)
{
	u64 bytes = bloom_core_storage_bytes(&core->geo), off, n;
	const u8 *src = (const u8 *)core->words;

	for (off = 0; off < bytes; off += n) {
		n = min_t(u64, bytes - off, BLOOM_SNAP_CHUNK);
		memcpy(dst + off, src + off, n);
		xxh64_update(xs, dst + off, n);
		cond_resched();
	}
	return dst + bytes;
}

/*
 * The payload: @core's storage, or a scalable filter's stages' one after
 * the other (under the write lock: no stage is added meanwhile).
 */
static void bloom_snap_copy_payload(const struct bloom_core *core, u8 *dst,
				    struct xxh64_state *xs)
{
	u32 i, n;

	/* the generations oldest first, under their clock's lock */
	if (bloom_core_is_expiring(core)) {
		n = core->expire->p.generations;
		for (i = 0; i < n; i++)
			dst = bloom_snap_copy_one(&bloom_expire_gen(core, i)->core,
						  dst, xs);
		return;
	}
	if (!bloom_core_is_scalable(core)) {
		bloom_snap_copy_one(core, dst, xs);
		return;
	}
	n = bloom_scale_stages(core);
	for (i = 0; i < n; i++)
		dst = bloom_snap_copy_one(&bloom_scale_stage(core, i)->core, dst,
					  xs);
}

static void bloom_snap_fill_stats(const struct bloom_store *s,
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

/*
 * The snapshot's size now, under @f's write lock: 0, -ESTALE, -EINTR.
 * The lock is held on success.
 */
static int bloom_snap_lock_size(struct bloom_filter *f,
				struct bloom_image_header *h,
				struct bloom_store **s)
{
	if (mutex_lock_killable(&f->write_lock))
		return -EINTR;
	*s = bloom_filter_store_locked(f);
	if (!*s) {
		mutex_unlock(&f->write_lock);
		return -ESTALE;
	}
	memset(h, 0, sizeof(*h));
	bloom_image_header_init(h, &(*s)->core);
	bloom_image_header_netblocks(h, &(*s)->nb);
	return 0;
}

/* A kernel copy of a snapshot, charged for as long as it lives. */
struct bloom_snap_image {
	u8 *buf;
	u64 len;	/* bytes allocated and charged */
	struct bloom_account *acct;	/* the filter's namespace's */
};

static int bloom_snap_image_alloc(struct bloom_snap_image *img,
				  struct bloom_account *acct, u64 len)
{
	int ret = bloom_account_reserve(acct, len);

	if (ret)
		return ret;
	/* as a filter: over the caller's memory cgroup is -ENOMEM */
	img->buf = bloom_kvzalloc(len, GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL);
	if (!img->buf) {
		bloom_account_release(acct, len);
		return -ENOMEM;
	}
	img->acct = acct;
	img->len = len;
	return 0;
}

static void bloom_snap_image_free(struct bloom_snap_image *img)
{
	if (!img->buf)
		return;
	/* it holds the hash key */
	memzero_explicit(img->buf, img->len);
	bloom_kvfree(img->buf);
	bloom_account_release(img->acct, img->len);
	img->buf = NULL;
}

/*
 * The snapshot of @f into a kernel image: sized under the write lock,
 * allocated without it, then, under the lock again, the payload copied
 * and hashed and the header written. The filter may have been replaced or
 * grown meanwhile: then the image is sized again. Only memcpy() runs under
 * the lock, never an access to user memory, so a caller whose buffer
 * stalls (userfaultfd, FUSE) blocks nobody's writes, replaces or destroy.
 */
static int bloom_snap_image_make(struct bloom_filter *f,
				 struct bloom_image_header *h,
				 struct bloom_snap_image *img, u64 buf_len)
{
	struct bloom_store *s;
	struct xxh64_state xs;
	u64 len;
	int ret;

	for (;;) {
		ret = bloom_snap_lock_size(f, h, &s);
		if (ret)
			return ret;
		len = h->header_size + h->payload_bytes;
		if (len <= img->len)
			break;
		mutex_unlock(&f->write_lock);
		if (buf_len < len)
			return -EOVERFLOW;
		bloom_snap_image_free(img);
		ret = bloom_snap_image_alloc(img, f->acct, len);
		if (ret)
			return ret;
		if (fatal_signal_pending(current))
			return -EINTR;
	}
	/*
	 * An expiring store: no rotation while its generations and their
	 * times are copied (the order and the table must agree), times
	 * taken against now, the wall clock's for a restore after a boot.
	 */
	if (s->clock) {
		mutex_lock(&s->clock->lock);
		h->saved_ns = bloom_clock_now();
		h->saved_wall_ns = ktime_get_real_ns();
	}
	/*
	 * A timed store: no sweep while its cells are copied; their ticks
	 * are taken against the clock now, the wall clock's for a restore.
	 */
	bloom_store_writers_lock(s);
	if (s->sweep) {
		h->saved_s = bloom_clock_s();
		h->saved_wall_ns = ktime_get_real_ns();
	}
	xxh64_reset(&xs, 0);
	bloom_snap_copy_payload(&s->core, img->buf + h->header_size, &xs);
	memcpy(h->name, f->name, sizeof(h->name));
	bloom_snap_fill_stats(s, &h->stats);
	h->payload_hash = xxh64_digest(&xs);
	/* after the payload: stage counts cover every key it holds */
	bloom_image_header_write(img->buf, h, &s->core);
	bloom_store_writers_unlock(s);
	if (s->clock)
		mutex_unlock(&s->clock->lock);
	mutex_unlock(&f->write_lock);
	return 0;
}

/* @len bytes of @src out to @ubuf, a chunk at a time; killable. */
static int bloom_snap_copy_out(u8 __user *ubuf, const u8 *src, u64 len)
{
	u64 off, n;

	for (off = 0; off < len; off += n) {
		n = min_t(u64, len - off, BLOOM_SNAP_CHUNK);
		if (copy_to_user(ubuf + off, src + off, n))
			return -EFAULT;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return 0;
}

int bloom_snap_save(struct bloom_filter *f, struct bloom_save *arg)
{
	struct bloom_snap_image img = { };
	struct bloom_image_header h;
	struct bloom_store *s;
	int ret;

	if (arg->flags || arg->reserved)
		return -EINVAL;
	if (!bloom_image_native())
		return -EOPNOTSUPP;
	arg->out_len = 0;
	memset(&h, 0, sizeof(h));
	if (!arg->buf) {
		/* the size only */
		ret = bloom_snap_lock_size(f, &h, &s);
		if (ret)
			return ret;
		mutex_unlock(&f->write_lock);
		arg->out_len = h.header_size + h.payload_bytes;
		memzero_explicit(&h, sizeof(h));
		return 0;
	}
	ret = bloom_snap_image_make(f, &h, &img, arg->buf_len);
	arg->out_len = h.header_size + h.payload_bytes;
	memzero_explicit(&h, sizeof(h));
	if (!ret && arg->buf_len < arg->out_len)
		ret = -EOVERFLOW;
	if (!ret)
		ret = bloom_snap_copy_out(u64_to_user_ptr(arg->buf), img.buf,
					  arg->out_len);
	bloom_snap_image_free(&img);
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
static struct bloom_store *bloom_snap_new_stages(struct bloom_account *acct,
						 const struct bloom_image_header *h,
						 const u8 *hdr,
						 const u8 __user *ubuf,
						 u64 *hash)
{
	struct bloom_scale_stage *st;
	struct bloom_image_stage e;
	struct bloom_geometry geo;
	struct bloom_store *s;
	struct xxh64_state xs;
	u64 bytes, off = 0;
	int ret = 0;
	u32 i;

	s = bloom_store_new_stageless(acct, &h->scale, h->hash_key);
	if (IS_ERR(s))
		return s;
	/* stage 0 as it was made, whatever the sizing now */
	s->core.geo.bits = h->geo.bits;
	s->core.geo.hashes = h->geo.hashes;
	xxh64_reset(&xs, 0);
	for (i = 0; i < h->nstages && !ret; i++) {
		bloom_image_stage_read(hdr, i, &e);
		bloom_image_stage_geometry(h->geo.type, &e, &geo);
		st = bloom_store_add_stage(s, &geo);
		ret = PTR_ERR_OR_ZERO(st);
		if (ret)
			break;
		bytes = bloom_core_storage_bytes(&geo);
		ret = bloom_snap_copy_in((u8 *)st->core.words, ubuf + off,
					 bytes, &xs);
		if (!ret)
			ret = bloom_image_payload_check(&st->core);
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

/*
 * A store of one core, or an expiring filter's (its generations, oldest
 * first, which is their order in a new store), from the snapshot's
 * payload at @ubuf, each core checked. Not published; an expiring one's
 * times and clock come once the payload's hash is known good
 * (bloom_snap_restore()).
 */
static struct bloom_store *bloom_snap_new_plain(struct bloom_account *acct,
						const struct bloom_image_header *h,
						const u8 __user *ubuf,
						u64 *hash)
{
	struct bloom_store *s;
	struct bloom_core *first;
	struct xxh64_state xs;
	u32 i, n = h->ngens ?: 1;
	int ret;

	s = h->ngens ?
	    bloom_store_new_expiring_stopped(acct, &h->expire, h->hash_key) :
	    bloom_store_new_stopped(acct, &h->geo, h->hash_key);
	if (IS_ERR(s))
		return s;
	first = h->ngens ? &bloom_expire_gen(&s->core, 0)->core : &s->core;
	xxh64_reset(&xs, 0);
	ret = bloom_snap_copy_in((u8 *)first->words, ubuf, h->payload_bytes,
				 &xs);
	for (i = 0; !ret && i < n; i++)
		ret = bloom_image_payload_check(h->ngens ?
				&bloom_expire_gen(&s->core, i)->core : first);
	if (ret) {
		bloom_store_discard(s);
		return ERR_PTR(ret);
	}
	*hash = xxh64_digest(&xs);
	return s;
}

/*
 * A timed store, loaded and checked: each key keeps the time it had left
 * at the save less the wall-clock time since, on this clock; what expired
 * meanwhile goes before anyone sees the filter. A key with more left than
 * the filter's largest timeout allows: -EBADMSG.
 */
static int bloom_snap_timed_apply(struct bloom_store *s,
				  const struct bloom_image_header *h)
{
	u64 now_wall = ktime_get_real_ns(), elapsed = 0;
	int ret;

	if (now_wall > h->saved_wall_ns)
		elapsed = div_u64(now_wall - h->saved_wall_ns, NSEC_PER_SEC);
	ret = bloom_timed_rebase(&s->core, h->saved_s, elapsed,
				 bloom_clock_s(), h->key_timeout_max_s);
	if (ret)
		return ret;
	bloom_timed_set_timeouts(&s->core, h->key_timeout_s,
				 h->key_timeout_max_s);
	bloom_store_sweep_start(s);
	return 0;
}

/* Into a store nobody else sees yet. */
static void bloom_snap_set_stats(struct bloom_store *s,
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
	u8 prefix[BLOOM_IMAGE_PREFIX];
	struct bloom_image_header h;
	struct bloom_account *acct;
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
	if (!bloom_image_native())
		return -EOPNOTSUPP;
	if (arg->buf_len < BLOOM_IMAGE_PREFIX)
		return -EBADMSG;
	if (copy_from_user(prefix, ubuf, sizeof(prefix)))
		return -EFAULT;
	ret = bloom_image_header_size(prefix, sizeof(prefix), &hsize);
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
	ret = bloom_image_header_read(hdr, hsize, &h, NULL);
	if (ret)
		goto out;
	ret = -EBADMSG;
	if (arg->buf_len - hsize != h.payload_bytes)
		goto out;
	name = arg->flags & BLOOM_RESTORE_F_NAME ? arg->name : h.name;
	ret = -EINVAL;
	if (!bloom_name_valid(name))
		goto out;

	acct = bloom_registry_account(net);
	s = h.nstages ?
	    bloom_snap_new_stages(acct, &h, hdr, ubuf + hsize, &hash) :
	    bloom_snap_new_plain(acct, &h, ubuf + hsize, &hash);
	ret = PTR_ERR_OR_ZERO(s);
	if (ret)
		goto out;
	if (hash != h.payload_hash) {
		bloom_store_discard(s);
		ret = -EBADMSG;
		goto out;
	}
	bloom_snap_set_stats(s, &h.stats);
	bloom_image_netblocks_load(hdr, &h, &s->nb);
	/* what expired since the save goes before anyone sees the filter */
	if (h.ngens) {
		bloom_image_gens_apply(&s->core, hdr, &h, bloom_clock_now(),
				       ktime_get_real_ns());
		bloom_store_clock_start(s);
	}
	if (bloom_core_is_timed(&s->core)) {
		ret = bloom_snap_timed_apply(s, &h);
		if (ret) {
			bloom_store_discard(s);
			goto out;
		}
	}
	ret = bloom_snap_publish(net, name, s,
				 arg->flags & BLOOM_RESTORE_F_REPLACE);
out:
	memzero_explicit(&h, sizeof(h));
	memzero_explicit(hdr, hsize);
	bloom_kfree(hdr);
	return ret;
}
