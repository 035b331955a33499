// SPDX-License-Identifier: GPL-2.0
/*
 * A filter's life (filter.h has the rules): new, get, put, its holders and
 * destroy's wait for them, destroy, the changes of what it holds under its
 * write lock (replace, swap, merge, flush) and its replies (INFO, STAGES).
 * The struct goes with its kobject's release after the last user; the
 * registry (registry.c) gives the kobject its name and directory, this
 * file its lifetime.
 */
#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/wait_bit.h>

#include "alloc.h"
#include "filter.h"

/* Filter structs not yet freed by their kobject's release; see filter.h. */
static atomic_t bloom_filter_structs = ATOMIC_INIT(0);

/*
 * What a filter takes besides its store: the struct, and its sysfs
 * directory: a kobject name and a kernfs node per directory and file.
 * Measured on Debian's 6.1 (x86-64): a standard filter's directory takes
 * 23 kernfs nodes of 128 bytes, 2.9 KiB; an expiring one 26, a d-left one
 * 31 and a scalable one 33, 4.1 KiB; 5 KiB covers them with the kernfs ids
 * and the slabs' rounding.
 */
#define BLOOM_FILTER_SYSFS_BYTES	5120
#define BLOOM_FILTER_FIXED_BYTES	(sizeof(struct bloom_filter) + \
					 BLOOM_FILTER_SYSFS_BYTES)

u64 bloom_filter_memory_bytes(const struct bloom_store *s)
{
	return READ_ONCE(s->memory_bytes) + BLOOM_FILTER_FIXED_BYTES;
}

static void bloom_filter_free_rcu(struct rcu_head *rcu)
{
	bloom_kfree(container_of(rcu, struct bloom_filter, rcu));
	if (atomic_dec_and_test(&bloom_filter_structs))
		wake_up_var(&bloom_filter_structs);
}

/*
 * The kobject's release, after the last user: frees the struct once the
 * readers that found it by id under RCU (bpf.c) are gone.
 */
static void bloom_filter_release(struct kobject *kobj)
{
	struct bloom_filter *f = container_of(kobj, struct bloom_filter, kobj);

	mutex_destroy(&f->write_lock);
	call_rcu(&f->rcu, bloom_filter_free_rcu);
}

/*
 * sysfs tags each filter's directory with its network namespace (the
 * registry's filters/ directory has namespaced children). Only asked while
 * the directory exists, i.e. while the namespace does.
 */
static const void *bloom_filter_namespace(struct kobject *kobj)
{
	return container_of(kobj, struct bloom_filter, kobj)->net;
}

/* The directory's files are added by the registry (sysfs.c's groups). */
static const struct kobj_type bloom_filter_ktype = {
	.sysfs_ops = &kobj_sysfs_ops,
	.release = bloom_filter_release,
	.namespace = bloom_filter_namespace,
};

int bloom_filter_new(const char *name, struct bloom_store *s,
		     struct bloom_filter **out)
{
	struct bloom_filter *f;
	int ret;

	/* The struct and its directory count with its store. */
	ret = bloom_account_reserve(s->acct, BLOOM_FILTER_FIXED_BYTES);
	if (ret)
		goto err_discard;
	ret = -ENOMEM;
	f = bloom_kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	if (!f)
		goto err_release;
	atomic_inc(&bloom_filter_structs);
	refcount_set(&f->users, 1);
	f->acct = s->acct;
	mutex_init(&f->write_lock);
	f->type = bloom_store_type(s);
	f->features = bloom_store_features(s);
	bloom_store_keys_changed(s, false);
	RCU_INIT_POINTER(f->store, s);
	strscpy(f->name, name, sizeof(f->name));
	INIT_LIST_HEAD(&f->node);
	kobject_init(&f->kobj, &bloom_filter_ktype);
	*out = f;
	return 0;

err_release:
	bloom_account_release(s->acct, BLOOM_FILTER_FIXED_BYTES);
err_discard:
	bloom_store_discard(s);
	return ret;
}

void bloom_filter_exit(void)
{
	/*
	 * A kobject's release may run after its last put (later still with
	 * CONFIG_DEBUG_KOBJECT_RELEASE); the release is this module's code.
	 */
	wait_var_event(&bloom_filter_structs,
		       !atomic_read(&bloom_filter_structs));
	/* the last callback may still be returning into this module */
	rcu_barrier();
}

struct bloom_filter *bloom_filter_get(struct bloom_filter *f)
{
	refcount_inc(&f->users);
	return f;
}

/*
 * The last user: a filter that was never destroyed (a create that failed to
 * register) gives its store back here; the struct follows when the
 * kobject's last reference goes.
 */
void bloom_filter_put(struct bloom_filter *f)
{
	if (!refcount_dec_and_test(&f->users))
		return;
	bloom_filter_destroy(f);
	kobject_put(&f->kobj);
}

/* Woken when a filter's last holder of a kind lets go. */
static DECLARE_WAIT_QUEUE_HEAD(bloom_holds_wq);

void bloom_filter_hold(struct bloom_filter *f, enum bloom_hold_kind kind)
{
	atomic_inc(&f->holds[kind]);
}

void bloom_filter_unhold(struct bloom_filter *f, enum bloom_hold_kind kind)
{
	if (atomic_dec_and_test(&f->holds[kind]))
		wake_up_all(&bloom_holds_wq);
}

bool bloom_filter_held(struct bloom_filter *f)
{
	int k;

	for (k = 0; k < BLOOM_HOLD_KINDS; k++)
		if (atomic_read(&f->holds[k]))
			return true;
	return false;
}

int bloom_filter_wait_unheld(struct bloom_filter *f, unsigned long until)
{
	long left = max_t(long, (long)(until - jiffies), 1);

	left = wait_event_killable_timeout(bloom_holds_wq,
					   !bloom_filter_held(f), left);
	return left < 0 ? -EINTR : 0;
}

void bloom_filter_destroy(struct bloom_filter *f)
{
	/*
	 * Writers hold the lock for one batch at most, SAVE for a memcpy():
	 * no holder waits for user memory.
	 */
	mutex_lock(&f->write_lock);
	__acquire(&f->write_lock);	/* sparse: a mutex carries no context */
	bloom_filter_destroy_and_unlock(f);
}

void bloom_filter_destroy_and_unlock(struct bloom_filter *f)
	__releases(&f->write_lock)
{
	struct bloom_store *s;

	s = bloom_filter_store_locked(f);
	RCU_INIT_POINTER(f->store, NULL);
	if (s) {
		bloom_store_changing(s);
		bloom_store_unpublished(s);
		bloom_store_changed(s);
	}
	mutex_unlock(&f->write_lock);
	__release(&f->write_lock);
	if (!s)
		return;
	bloom_store_retire(s);
	bloom_account_release(f->acct, BLOOM_FILTER_FIXED_BYTES);
}

int bloom_filter_keys(struct bloom_filter *f, u32 *kind, bloom_hash_key_t *key)
{
	struct bloom_store *s;

	rcu_read_lock();
	s = bloom_filter_store(f);
	if (s) {
		*kind = bloom_store_kind(s);
		if (key)
			*key = s->core.key;
	}
	rcu_read_unlock();
	return s ? 0 : -ESTALE;
}

int bloom_filter_spec(struct bloom_filter *f, struct bloom_store_spec *spec)
{
	struct bloom_store *s;

	rcu_read_lock();
	s = bloom_filter_store(f);
	if (s)
		bloom_store_spec_of(s, spec);
	rcu_read_unlock();
	return s ? 0 : -ESTALE;
}

int bloom_filter_info(struct bloom_filter *f, struct bloom_info *info)
{
	u32 size = info->size;
	struct bloom_store *s;

	memset(info, 0, sizeof(*info));
	info->size = size;
	rcu_read_lock();
	s = bloom_filter_store(f);
	if (s) {
		bloom_store_info(s, info);
		info->memory_bytes = bloom_filter_memory_bytes(s);
	}
	rcu_read_unlock();
	if (!s)
		return -ESTALE;
	memcpy(info->name, f->name, sizeof(info->name));
	info->id = f->id;
	info->rules = atomic_read(&f->holds[BLOOM_HOLD_RULE]);
	info->xdp_holds = atomic_read(&f->holds[BLOOM_HOLD_XDP]);
	info->xdp_ifindex = READ_ONCE(f->xdp_ifindex);
	return 0;
}

int bloom_filter_stages(struct bloom_filter *f, struct bloom_stage *out)
{
	struct bloom_store *s;
	int ret;

	rcu_read_lock();
	s = bloom_filter_store(f);
	ret = s ? bloom_store_stages(s, out) : -ESTALE;
	rcu_read_unlock();
	return ret;
}

int bloom_filter_replace(struct bloom_filter *f, struct bloom_store *s)
{
	struct bloom_store *old;
	int ret;

	/* the sysfs files follow the type and features */
	if (bloom_store_type(s) != f->type ||
	    bloom_store_features(s) != f->features)
		return -EINVAL;
	if (mutex_lock_killable(&f->write_lock))
		return -EINTR;
	old = bloom_filter_store_locked(f);
	ret = old ? bloom_store_adopt(s, old) : -ESTALE;
	if (!ret) {
		bloom_store_keys_changed(s, false);
		bloom_store_changing(old);
		rcu_assign_pointer(f->store, s);
		bloom_store_unpublished(old);
		bloom_store_changed(old);
	}
	mutex_unlock(&f->write_lock);
	if (ret)
		return ret;
	bloom_store_retire(old);
	return 0;
}

/* Two filters' write locks: always in address order (lockdep: one nesting). */
int bloom_filter_lock_two(struct bloom_filter *a, struct bloom_filter *b)
{
	if (a > b)
		swap(a, b);
	if (mutex_lock_killable(&a->write_lock))
		return -EINTR;
	if (mutex_lock_killable_nested(&b->write_lock, SINGLE_DEPTH_NESTING)) {
		mutex_unlock(&a->write_lock);
		return -EINTR;
	}
	return 0;
}

static void bloom_filter_unlock_two(struct bloom_filter *a,
				    struct bloom_filter *b)
{
	mutex_unlock(&a->write_lock);
	mutex_unlock(&b->write_lock);
}

int bloom_filter_swap(struct bloom_filter *a, struct bloom_filter *b)
{
	struct bloom_store *sa, *sb;
	int ret;

	if (a->type != b->type || a->features != b->features)
		return -EINVAL;
	if (a == b)
		return 0;
	ret = bloom_filter_lock_two(a, b);
	if (ret)
		return ret;
	sa = bloom_filter_store_locked(a);
	sb = bloom_filter_store_locked(b);
	ret = sa && sb ? bloom_store_kinds_meet(sa, sb) : -ESTALE;
	if (!ret) {
		/* each mapping shows the other filter's contents from now */
		bloom_store_changing(sa);
		bloom_store_changing(sb);
		rcu_assign_pointer(a->store, sb);
		rcu_assign_pointer(b->store, sa);
		bloom_store_changed(sa);
		bloom_store_changed(sb);
	}
	bloom_filter_unlock_two(a, b);
	return ret;
}

int bloom_filter_merge(struct bloom_filter *dst, struct bloom_filter *src)
{
	struct bloom_store *sd, *ss;
	int ret;

	if (dst == src)
		return -EINVAL;
	ret = bloom_filter_lock_two(dst, src);
	if (ret)
		return ret;
	sd = bloom_filter_store_locked(dst);
	ss = bloom_filter_store_locked(src);
	ret = sd && ss ? bloom_store_merge(sd, ss) : -ESTALE;
	bloom_filter_unlock_two(dst, src);
	return ret;
}

int bloom_filter_flush(struct bloom_filter *f)
{
	struct bloom_store *s, *fresh = NULL;
	int ret;

	if (mutex_lock_killable(&f->write_lock))
		return -EINTR;
	s = bloom_filter_store_locked(f);
	ret = s ? bloom_store_flush(s, &fresh) : -ESTALE;
	if (fresh)
		rcu_assign_pointer(f->store, fresh);
	mutex_unlock(&f->write_lock);
	if (fresh)
		bloom_store_retire(s);
	return ret;
}

const char *bloom_filter_type_name(const struct bloom_filter *f)
{
	/* the one table of type names, shared with libbloom and bloomctl */
	static const char *const names[] = BLOOM_TYPE_NAMES;
	u32 type = f->type;

	return type < ARRAY_SIZE(names) && names[type] ? names[type] : "unknown";
}
