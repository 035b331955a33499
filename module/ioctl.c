// SPDX-License-Identifier: GPL-2.0
/*
 * The command handlers of /dev/bloom, one per ioctl (dev.c copies the
 * argument in, checks the permissions its op table gives and calls the
 * handler). Each handler checks its struct, acts through the object the
 * command is about (registry.h, filter.h, store.h, batch.h, snap.h)
 * and, when the command has a reply, sends it itself: bloom_ucmd_respond(),
 * so each command decides when it replies.
 */
#include <linux/bits.h>
#include <linux/err.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/uaccess.h>

#include "account.h"
#include "alloc.h"
#include "batch.h"
#include "filter.h"
#include "ioctl.h"
#include "name.h"
#include "registry.h"
#include "snap.h"
#include "sysfs_dir.h"

int bloom_ioc_version(struct bloom_ucmd *ucmd)
{
	struct bloom_version *v = &ucmd->arg.version;
	struct bloom_account *acct = bloom_registry_account(ucmd->bf->net);
	u32 size = v->size;

	if (v->flags || v->reserved)
		return -EINVAL;
	*v = (struct bloom_version) {
		.size = size,
		.abi_version = BLOOM_ABI_VERSION,
		.types = BIT(BLOOM_TYPE_STANDARD) | BIT(BLOOM_TYPE_BLOCKED) |
			 BIT(BLOOM_TYPE_COUNTING) | BIT(BLOOM_TYPE_DLEFT) |
			 BIT(BLOOM_TYPE_TIMED),
		.create_flags = BLOOM_CREATE_F_ALL,
		.batch_flags = BLOOM_BATCH_F_ALL,
		.key_max = BLOOM_KEY_MAX,
		.batch_max_keys = BLOOM_BATCH_MAX_KEYS,
		.batch_max_bytes = BLOOM_BATCH_MAX_BYTES,
		.memory_limit = bloom_account_shown_limit(acct),
		.memory_used = bloom_account_shown_used(acct),
		.features = BLOOM_FEATURE_ALL,
	};
	return bloom_ucmd_respond(ucmd);
}

/* The description of @net's filter named @name, for a filter like it. */
static int bloom_create_like(struct net *net, const char *name,
			     struct bloom_store_spec *spec)
{
	struct bloom_filter *like;
	int ret;

	if (!bloom_name_valid(name))
		return -EINVAL;
	like = bloom_registry_lookup(net, name);
	if (IS_ERR(like))
		return PTR_ERR(like);
	ret = bloom_filter_spec(like, spec);
	bloom_filter_put(like);
	return ret;
}

/*
 * The filter a CREATE asks for, not yet registered (a reference the caller
 * puts): its store made from the request's description (store.h), or from
 * the one of @net's filter named in @c->like.
 */
static int bloom_create_filter(struct net *net, const struct bloom_create *c,
			       struct bloom_filter **out)
{
	struct bloom_store_spec spec;
	struct bloom_store *s;
	int ret;

	if (!bloom_name_valid(c->name))
		return -EINVAL;
	ret = bloom_store_spec_decode(c, &spec);
	if (!ret && c->flags & BLOOM_CREATE_F_LIKE) {
		ret = bloom_create_like(net, c->like, &spec);
		if (c->keys)
			spec.keys = c->keys;
	}
	s = ret ? ERR_PTR(ret) :
		  bloom_store_create(bloom_registry_account(net), &spec, true);
	memzero_explicit(spec.hash_key, sizeof(spec.hash_key));
	if (IS_ERR(s))
		return PTR_ERR(s);
	return bloom_filter_new(c->name, s, out);
}

/* Creates and registers the filter, bound to @bf if the request says so. */
static int bloom_file_create(struct bloom_file *bf,
			     const struct bloom_create *c)
{
	struct bloom_filter *f;
	int ret;

	ret = bloom_sysfs_dir_ready(bf->dev);
	if (ret)
		return ret;
	ret = bloom_create_filter(bf->net, c, &f);
	if (ret)
		return ret;
	ret = bloom_registry_add(bf->net, f);
	if (!ret && (c->flags & BLOOM_CREATE_F_BIND))
		bloom_file_bind(bf, f);
	else
		bloom_filter_put(f);
	return ret;
}

int bloom_ioc_create(struct bloom_ucmd *ucmd)
{
	struct bloom_create *c = &ucmd->arg.create;
	struct bloom_file *bf = ucmd->bf;
	int ret;

	if (!(c->flags & BLOOM_CREATE_F_BIND))
		return bloom_file_create(bf, c);
	if (mutex_lock_killable(&bf->bind_lock))
		return -EINTR;
	/* Refuse before allocating anything; no BIND can come between. */
	ret = bf->filter ? -EBUSY : bloom_file_create(bf, c);
	mutex_unlock(&bf->bind_lock);
	return ret;
}

/* DESTROY, BIND and FLUSH name one filter. */
static int bloom_name_check(const struct bloom_name *n)
{
	return n->flags || n->reserved || !bloom_name_valid(n->name) ?
	       -EINVAL : 0;
}

int bloom_ioc_destroy(struct bloom_ucmd *ucmd)
{
	struct bloom_name *n = &ucmd->arg.name;
	int ret;

	ret = bloom_name_check(n);
	if (ret)
		return ret;
	return bloom_registry_remove(ucmd->bf->net, n->name);
}

int bloom_ioc_bind(struct bloom_ucmd *ucmd)
{
	struct bloom_name *n = &ucmd->arg.name;
	struct bloom_file *bf = ucmd->bf;
	struct bloom_filter *f;
	int ret;

	ret = bloom_name_check(n);
	if (ret)
		return ret;
	if (mutex_lock_killable(&bf->bind_lock))
		return -EINTR;
	f = bf->filter ? ERR_PTR(-EBUSY) :
			 bloom_registry_lookup(bf->net, n->name);
	if (IS_ERR(f))
		ret = PTR_ERR(f);
	else
		bloom_file_bind(bf, f);
	mutex_unlock(&bf->bind_lock);
	return ret;
}

int bloom_ioc_flush(struct bloom_ucmd *ucmd)
{
	struct bloom_name *n = &ucmd->arg.name;
	struct bloom_filter *f;
	int ret;

	ret = bloom_name_check(n);
	if (ret)
		return ret;
	f = bloom_registry_lookup(ucmd->bf->net, n->name);
	if (IS_ERR(f))
		return PTR_ERR(f);
	ret = bloom_filter_flush(f);
	bloom_filter_put(f);
	return ret;
}

int bloom_ioc_info(struct bloom_ucmd *ucmd)
{
	struct bloom_info *info = &ucmd->arg.info;
	bool named = !bloom_name_empty(info->name);
	struct bloom_filter *f;
	int ret;

	if (info->flags || info->reserved || info->hash ||
	    info->reserved2)
		return -EINVAL;
	f = bloom_file_or_named(ucmd->bf, info->name);
	if (IS_ERR(f))
		return PTR_ERR(f);
	ret = bloom_filter_info(f, info);
	bloom_filter_put(f);
	/* A named filter destroyed since the lookup: the name is gone. */
	if (named && ret == -ESTALE)
		ret = -ENOENT;
	return bloom_ucmd_result(ucmd, ret);
}

/*
 * STAGES: filled under RCU into a kernel array, copied out after it; the
 * number of stages in out_count even when the caller's array holds fewer.
 */
int bloom_ioc_stages(struct bloom_ucmd *ucmd)
{
	struct bloom_stages *arg = &ucmd->arg.stages;
	struct bloom_stage *out;
	struct bloom_filter *f;
	int ret;
	u32 copy;

	if (arg->flags || arg->reserved)
		return -EINVAL;
	f = bloom_file_or_named(ucmd->bf, arg->name);
	if (IS_ERR(f))
		return PTR_ERR(f);
	arg->out_count = 0;
	out = bloom_kzalloc(sizeof(*out) * BLOOM_SCALE_STAGES_MAX,
			    GFP_KERNEL_ACCOUNT);
	ret = out ? bloom_filter_stages(f, out) : -ENOMEM;
	bloom_filter_put(f);
	if (ret >= 0) {
		copy = min_t(u32, ret, arg->capacity);
		arg->out_count = ret;
		ret = copy && copy_to_user(u64_to_user_ptr(arg->stages), out,
					   sizeof(*out) * copy) ? -EFAULT : 0;
	}
	bloom_kfree(out);
	return bloom_ucmd_result(ucmd, ret);
}

int bloom_ioc_list(struct bloom_ucmd *ucmd)
{
	struct bloom_list *l = &ucmd->arg.list;
	char *names;
	u32 count;
	int ret;

	if (l->flags || l->reserved)
		return -EINVAL;
	ret = bloom_registry_names(ucmd->bf->net, &names, &count);
	if (ret)
		return ret;
	if (count && l->capacity &&
	    copy_to_user(u64_to_user_ptr(l->names), names,
			 array_size(min(count, l->capacity), BLOOM_NAME_LEN)))
		ret = -EFAULT;
	bloom_kvfree(names);
	l->out_count = count;
	return bloom_ucmd_result(ucmd, ret);
}

/*
 * ADD and DELETE reply with how far they got also when they failed after
 * changing the filter (out_done not 0): the results bitmap faulted, or the
 * filter was full (a scalable one that could not grow, a d-left or timed
 * one). A reply that faults fails the call.
 */
static int bloom_ioc_written(struct bloom_ucmd *ucmd, int ret)
{
	int reply;

	if (ret && !ucmd->arg.batch.out_done)
		return ret;
	reply = bloom_ucmd_respond(ucmd);
	return reply ?: ret;
}

int bloom_ioc_add(struct bloom_ucmd *ucmd)
{
	struct bloom_filter *f = bloom_file_filter(ucmd->bf);

	if (IS_ERR(f))
		return PTR_ERR(f);
	ucmd->reply_from = BLOOM_BATCH_REPLY_FROM;
	return bloom_ioc_written(ucmd, bloom_batch_add(f, &ucmd->arg.batch));
}

int bloom_ioc_delete(struct bloom_ucmd *ucmd)
{
	struct bloom_filter *f = bloom_file_filter(ucmd->bf);

	if (IS_ERR(f))
		return PTR_ERR(f);
	ucmd->reply_from = BLOOM_BATCH_REPLY_FROM;
	return bloom_ioc_written(ucmd, bloom_batch_delete(f, &ucmd->arg.batch));
}

/* QUERY replies on success only. */

int bloom_ioc_query(struct bloom_ucmd *ucmd)
{
	struct bloom_filter *f = bloom_file_filter(ucmd->bf);

	if (IS_ERR(f))
		return PTR_ERR(f);
	ucmd->reply_from = BLOOM_BATCH_REPLY_FROM;
	return bloom_ucmd_result(ucmd, bloom_batch_query(f, &ucmd->arg.batch));
}

/* SAVE replies also with EOVERFLOW: out_len is the size it needs. */
int bloom_ioc_save(struct bloom_ucmd *ucmd)
{
	struct bloom_save *save = &ucmd->arg.save;
	struct bloom_filter *f;
	int ret, reply;

	if (save->flags || save->reserved)
		return -EINVAL;
	f = bloom_file_or_named(ucmd->bf, save->name);
	if (IS_ERR(f))
		return PTR_ERR(f);
	ret = bloom_snap_save(f, save);
	bloom_filter_put(f);
	if (ret && ret != -EOVERFLOW)
		return ret;
	reply = bloom_ucmd_respond(ucmd);
	if (reply)
		return reply;
	return ret;
}

int bloom_ioc_restore(struct bloom_ucmd *ucmd)
{
	int ret;

	ret = bloom_sysfs_dir_ready(ucmd->bf->dev);
	if (ret)
		return ret;
	return bloom_snap_restore(ucmd->bf->net, &ucmd->arg.restore);
}

/* MERGE and SWAP: both filters by name. */
static int bloom_ioc_pair(struct bloom_ucmd *ucmd,
			  int (*fn)(struct bloom_filter *,
				    struct bloom_filter *))
{
	struct bloom_pair *p = &ucmd->arg.pair;
	struct bloom_filter *dst, *src;
	int ret;

	if (p->flags || p->reserved || !bloom_name_valid(p->name) ||
	    !bloom_name_valid(p->other))
		return -EINVAL;
	dst = bloom_registry_lookup(ucmd->bf->net, p->name);
	if (IS_ERR(dst))
		return PTR_ERR(dst);
	src = bloom_registry_lookup(ucmd->bf->net, p->other);
	if (IS_ERR(src)) {
		bloom_filter_put(dst);
		return PTR_ERR(src);
	}
	ret = fn(dst, src);
	bloom_filter_put(src);
	bloom_filter_put(dst);
	return ret;
}

int bloom_ioc_merge(struct bloom_ucmd *ucmd)
{
	return bloom_ioc_pair(ucmd, bloom_filter_merge);
}

int bloom_ioc_swap(struct bloom_ucmd *ucmd)
{
	return bloom_ioc_pair(ucmd, bloom_filter_swap);
}
