// SPDX-License-Identifier: GPL-2.0
/*
 * SAVE and RESTORE: snapshots, whose format the core reads and writes
 * (module/core/snapshot*.c, Documentation/snapshot.rst); the store makes
 * its image and a store from one (store_image.c).
 *
 * SAVE copies the filter into a kernel image under the filter's write lock
 * (one point in time: store_image.c). The image goes out to the caller
 * after the lock is dropped: a caller whose buffer stalls (a userfaultfd or
 * FUSE mapping) holds up nobody. The image counts against max_memory and
 * is charged to the caller's memory cgroup while it lives.
 *
 * RESTORE builds a new store aside from the caller's image and, only if
 * everything holds, either registers a new filter holding it or, with
 * BLOOM_RESTORE_F_REPLACE, publishes it as an existing filter's store
 * (bloom_filter_replace(): RCU, so a query sees the old store or the new
 * one, never neither or a mix). Until then nobody can reach it; on any
 * error it is freed.
 */
#include <linux/err.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

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
	bloom_store_image_header(*s, h);
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
 * allocated without it, then, under the lock again, written by the store.
 * The filter may have been replaced or grown meanwhile: then the image is
 * sized again. Only memcpy() runs under the lock, never an access to user
 * memory, so a caller whose buffer stalls (userfaultfd, FUSE) blocks
 * nobody's writes, replaces or destroy.
 */
static int bloom_snap_image_make(struct bloom_filter *f,
				 struct bloom_image_header *h,
				 struct bloom_snap_image *img, u64 buf_len)
{
	struct bloom_store *s;
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
	memcpy(h->name, f->name, sizeof(h->name));
	bloom_store_image_write(s, h, img->buf);
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
	struct bloom_store *s;
	const char *name;
	u32 hsize;
	u8 *hdr;
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

	s = bloom_store_from_image(bloom_registry_account(net), &h, hdr,
				   ubuf + hsize);
	ret = PTR_ERR_OR_ZERO(s);
	if (ret)
		goto out;
	ret = bloom_snap_publish(net, name, s,
				 arg->flags & BLOOM_RESTORE_F_REPLACE);
out:
	memzero_explicit(&h, sizeof(h));
	memzero_explicit(hdr, hsize);
	bloom_kfree(hdr);
	return ret;
}
