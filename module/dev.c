// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/bloom: the misc device and its ioctls.
 *
 * Dispatch follows iommufd: every command is _IO(BLOOM_IOC_MAGIC, nr) and its
 * struct starts with its own size, read with copy_struct_from_user() so that
 * older and newer userspace both work (see uapi/linux/bloom.h). The argument
 * is copied into a zeroed kernel union, handled, and copied back for the
 * commands that have outputs.
 */
#include <linux/build_bug.h>
#include <linux/capability.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/nsproxy.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>

#include "alloc.h"
#include "batch.h"
#include "dev.h"
#include "filter.h"
#include "name.h"
#include "scale.h"
#include "snap.h"
#include "sysfs.h"

/*
 * An open descriptor; @filter is set once, by BIND or CREATE, then fixed.
 * @net: the opener's network namespace, whose filters the descriptor names
 * and in which CAP_NET_ADMIN is checked, for the descriptor's whole life
 * (as a tun descriptor keeps the namespace it was opened in).
 */
struct bloom_file {
	struct bloom_filter *filter;
	struct net *net;
};

union bloom_ioctl_arg {
	struct bloom_version version;
	struct bloom_create create;
	struct bloom_name name;
	struct bloom_info info;
	struct bloom_list list;
	struct bloom_batch batch;
	struct bloom_save save;
	struct bloom_restore restore;
	struct bloom_pair pair;
	struct bloom_stages stages;
};

static struct miscdevice bloom_misc;

static int bloom_open(struct inode *inode, struct file *file)
{
	struct bloom_file *bf;

	bf = bloom_kzalloc(sizeof(*bf), GFP_KERNEL_ACCOUNT);
	if (!bf)
		return -ENOMEM;
	bf->net = get_net(current->nsproxy->net_ns);
	file->private_data = bf;
	return 0;
}

static int bloom_release(struct inode *inode, struct file *file)
{
	struct bloom_file *bf = file->private_data;

	if (bf->filter)
		bloom_filter_put(bf->filter);
	put_net(bf->net);
	bloom_kfree(bf);
	return 0;
}

/* Binds @bf to @f, consuming the caller's reference to @f. */
static int bloom_file_bind(struct bloom_file *bf, struct bloom_filter *f)
{
	/*
	 * Release: whoever sees the pointer sees the filter initialised.
	 * Pairs with smp_load_acquire() in bloom_file_filter().
	 */
	if (cmpxchg_release(&bf->filter, NULL, f)) {
		bloom_filter_put(f);
		return -EBUSY;
	}
	return 0;
}

/*
 * The live filter bound to @bf, or an ERR_PTR. No reference is taken: the
 * descriptor holds one for as long as the ioctl runs.
 */
static struct bloom_filter *bloom_file_filter(struct bloom_file *bf)
{
	/* Pairs with cmpxchg_release() in bloom_file_bind(). */
	struct bloom_filter *f = smp_load_acquire(&bf->filter);

	if (!f)
		return ERR_PTR(-EBADFD);
	if (bloom_filter_dead(f))
		return ERR_PTR(-ESTALE);
	return f;
}

static int bloom_ioc_version(struct bloom_file *bf, union bloom_ioctl_arg *arg)
{
	struct bloom_version *v = &arg->version;

	if (v->flags)
		return -EINVAL;
	v->abi_version = BLOOM_ABI_VERSION;
	v->types = BIT(BLOOM_TYPE_STANDARD) | BIT(BLOOM_TYPE_BLOCKED) |
		   BIT(BLOOM_TYPE_COUNTING) | BIT(BLOOM_TYPE_DLEFT);
	v->create_flags = BLOOM_CREATE_F_ALL;
	v->batch_flags = BLOOM_BATCH_F_ALL;
	v->key_max = BLOOM_KEY_MAX;
	v->batch_max_keys = BLOOM_BATCH_MAX_KEYS;
	v->batch_max_bytes = BLOOM_BATCH_MAX_BYTES;
	v->memory_limit = bloom_memory_limit();
	v->memory_used = bloom_memory_used();
	return 0;
}

static int bloom_ioc_create(struct bloom_file *bf, union bloom_ioctl_arg *arg)
{
	struct bloom_create *c = &arg->create;
	struct bloom_filter *f;
	int ret;

	/* Refuse before allocating anything. */
	if ((c->flags & BLOOM_CREATE_F_BIND) && READ_ONCE(bf->filter))
		return -EBUSY;
	ret = bloom_filters_dir_ready(bloom_misc.this_device);
	if (ret)
		return ret;
	if (c->flags & BLOOM_CREATE_F_LIKE)
		ret = bloom_snap_new_like(bf->net, c, &f);
	else
		ret = bloom_filter_new(c, &f);
	if (ret)
		return ret;
	ret = bloom_filter_register(bf->net, f);
	if (ret) {
		bloom_filter_put(f);
		return ret;
	}
	if (c->flags & BLOOM_CREATE_F_BIND)
		return bloom_file_bind(bf, f);
	bloom_filter_put(f);
	return 0;
}

static int bloom_ioc_destroy(struct bloom_file *bf, union bloom_ioctl_arg *arg)
{
	if (arg->name.flags || !bloom_name_valid(arg->name.name))
		return -EINVAL;
	return bloom_filter_remove(bf->net, arg->name.name);
}

static int bloom_ioc_bind(struct bloom_file *bf, union bloom_ioctl_arg *arg)
{
	struct bloom_filter *f;

	if (arg->name.flags || !bloom_name_valid(arg->name.name))
		return -EINVAL;
	if (READ_ONCE(bf->filter))
		return -EBUSY;
	f = bloom_filter_lookup(bf->net, arg->name.name);
	if (IS_ERR(f))
		return PTR_ERR(f);
	return bloom_file_bind(bf, f);
}

static int bloom_ioc_info(struct bloom_file *bf, union bloom_ioctl_arg *arg)
{
	struct bloom_info *info = &arg->info;
	struct bloom_filter *f;
	int ret;

	if (info->flags)
		return -EINVAL;
	if (bloom_name_empty(info->name)) {
		f = bloom_file_filter(bf);
		if (IS_ERR(f))
			return PTR_ERR(f);
		return bloom_filter_fill_info(f, info);
	}
	if (!bloom_name_valid(info->name))
		return -EINVAL;
	f = bloom_filter_lookup(bf->net, info->name);
	if (IS_ERR(f))
		return PTR_ERR(f);
	ret = bloom_filter_fill_info(f, info);
	bloom_filter_put(f);
	/* Destroyed since the lookup: the name is gone. */
	return ret == -ESTALE ? -ENOENT : ret;
}

static int bloom_ioc_stages(struct bloom_file *bf, union bloom_ioctl_arg *arg)
{
	struct bloom_stages *s = &arg->stages;
	struct bloom_filter *f;
	int ret;

	if (s->flags)
		return -EINVAL;
	if (bloom_name_empty(s->name)) {
		f = bloom_file_filter(bf);
		if (IS_ERR(f))
			return PTR_ERR(f);
		return bloom_scale_fill_stages(f, s);
	}
	if (!bloom_name_valid(s->name))
		return -EINVAL;
	f = bloom_filter_lookup(bf->net, s->name);
	if (IS_ERR(f))
		return PTR_ERR(f);
	ret = bloom_scale_fill_stages(f, s);
	bloom_filter_put(f);
	return ret;
}

static int bloom_ioc_list(struct bloom_file *bf, union bloom_ioctl_arg *arg)
{
	struct bloom_list *l = &arg->list;
	char *names;
	u32 count;
	int ret;

	if (l->flags)
		return -EINVAL;
	ret = bloom_filter_names(bf->net, &names, &count);
	if (ret)
		return ret;
	if (count && l->capacity &&
	    copy_to_user(u64_to_user_ptr(l->names), names,
			 array_size(min(count, l->capacity), BLOOM_NAME_LEN)))
		ret = -EFAULT;
	l->out_count = count;
	bloom_kvfree(names);
	return ret;
}

static int bloom_ioc_add(struct bloom_file *bf, union bloom_ioctl_arg *arg)
{
	struct bloom_filter *f = bloom_file_filter(bf);

	if (IS_ERR(f))
		return PTR_ERR(f);
	return bloom_batch_add(f, &arg->batch);
}

static int bloom_ioc_query(struct bloom_file *bf, union bloom_ioctl_arg *arg)
{
	struct bloom_filter *f = bloom_file_filter(bf);

	if (IS_ERR(f))
		return PTR_ERR(f);
	return bloom_batch_query(f, &arg->batch);
}

static int bloom_ioc_delete(struct bloom_file *bf, union bloom_ioctl_arg *arg)
{
	struct bloom_filter *f = bloom_file_filter(bf);

	if (IS_ERR(f))
		return PTR_ERR(f);
	return bloom_batch_delete(f, &arg->batch);
}

/* What a command needs and does (struct bloom_ioctl_op's @flags). */
#define BLOOM_OP_F_WRITE	BIT(0)	/* needs a descriptor open for writing */
#define BLOOM_OP_F_ADMIN	BIT(1)	/* needs CAP_NET_ADMIN */
#define BLOOM_OP_F_OUT		BIT(2)	/* copies the struct back */
/* ... even after an EFAULT, when out_done says how far the call got */
#define BLOOM_OP_F_PARTIAL	BIT(3)
/* A change to the filters: see "Security model" in Documentation/bloom.rst. */
#define BLOOM_OP_F_MUTATES	(BLOOM_OP_F_WRITE | BLOOM_OP_F_ADMIN)

/* A filter by name, or the bound one when the name is all zero. */
static struct bloom_filter *bloom_file_or_named(struct bloom_file *bf,
						const char *name)
{
	struct bloom_filter *f;

	if (bloom_name_empty(name)) {
		f = bloom_file_filter(bf);
		return IS_ERR(f) ? f : bloom_filter_get(f);
	}
	if (!bloom_name_valid(name))
		return ERR_PTR(-EINVAL);
	return bloom_filter_lookup(bf->net, name);
}

static int bloom_ioc_save(struct bloom_file *bf, union bloom_ioctl_arg *arg)
{
	struct bloom_filter *f;
	int ret;

	if (arg->save.flags)
		return -EINVAL;
	f = bloom_file_or_named(bf, arg->save.name);
	if (IS_ERR(f))
		return PTR_ERR(f);
	ret = bloom_snap_save(f, &arg->save);
	bloom_filter_put(f);
	return ret;
}

static int bloom_ioc_restore(struct bloom_file *bf, union bloom_ioctl_arg *arg)
{
	int ret = bloom_filters_dir_ready(bloom_misc.this_device);

	return ret ? ret : bloom_snap_restore(bf->net, &arg->restore);
}

/* MERGE and SWAP: both filters by name. */
static int bloom_ioc_pair(struct bloom_file *bf, union bloom_ioctl_arg *arg,
			  int (*fn)(struct bloom_filter *,
				    struct bloom_filter *))
{
	struct bloom_pair *p = &arg->pair;
	struct bloom_filter *dst, *src;
	int ret;

	if (p->flags || !bloom_name_valid(p->name) ||
	    !bloom_name_valid(p->other))
		return -EINVAL;
	dst = bloom_filter_lookup(bf->net, p->name);
	if (IS_ERR(dst))
		return PTR_ERR(dst);
	src = bloom_filter_lookup(bf->net, p->other);
	if (IS_ERR(src)) {
		bloom_filter_put(dst);
		return PTR_ERR(src);
	}
	ret = fn(dst, src);
	bloom_filter_put(src);
	bloom_filter_put(dst);
	return ret;
}

static int bloom_ioc_merge(struct bloom_file *bf, union bloom_ioctl_arg *arg)
{
	return bloom_ioc_pair(bf, arg, bloom_snap_merge);
}

static int bloom_ioc_swap(struct bloom_file *bf, union bloom_ioctl_arg *arg)
{
	return bloom_ioc_pair(bf, arg, bloom_snap_swap);
}

static int bloom_ioc_flush(struct bloom_file *bf, union bloom_ioctl_arg *arg)
{
	struct bloom_filter *f;
	int ret;

	if (arg->name.flags || !bloom_name_valid(arg->name.name))
		return -EINVAL;
	f = bloom_filter_lookup(bf->net, arg->name.name);
	if (IS_ERR(f))
		return PTR_ERR(f);
	ret = bloom_snap_flush(f);
	bloom_filter_put(f);
	return ret;
}

/*
 * Root of a user namespace that owns the descriptor's network namespace
 * manages that namespace's filters, as it manages its ipset sets.
 */
static bool bloom_file_admin(const struct bloom_file *bf)
{
	return ns_capable(bf->net->user_ns, CAP_NET_ADMIN);
}

struct bloom_ioctl_op {
	unsigned int cmd;
	u32 size;	/* of the struct this module knows */
	u32 min_size;	/* of the first version of the struct */
	u32 flags;	/* BLOOM_OP_F_* */
	int (*fn)(struct bloom_file *bf, union bloom_ioctl_arg *arg);
};

#define BLOOM_OP(_cmd, _fn, type, _last, _flags)			\
	{								\
		.cmd = _cmd,						\
		.size = sizeof(struct type),				\
		.min_size = offsetofend(struct type, _last),		\
		.flags = _flags,					\
		.fn = _fn,						\
	}

static const struct bloom_ioctl_op bloom_ops[] = {
	BLOOM_OP(BLOOM_IOC_VERSION, bloom_ioc_version, bloom_version,
		 memory_used, BLOOM_OP_F_OUT),
	BLOOM_OP(BLOOM_IOC_CREATE, bloom_ioc_create, bloom_create, hash_key,
		 BLOOM_OP_F_MUTATES),
	BLOOM_OP(BLOOM_IOC_DESTROY, bloom_ioc_destroy, bloom_name, name,
		 BLOOM_OP_F_MUTATES),
	BLOOM_OP(BLOOM_IOC_BIND, bloom_ioc_bind, bloom_name, name, 0),
	BLOOM_OP(BLOOM_IOC_INFO, bloom_ioc_info, bloom_info, bits_set,
		 BLOOM_OP_F_OUT),
	BLOOM_OP(BLOOM_IOC_LIST, bloom_ioc_list, bloom_list, names,
		 BLOOM_OP_F_OUT),
	BLOOM_OP(BLOOM_IOC_ADD, bloom_ioc_add, bloom_batch, out_hits,
		 BLOOM_OP_F_MUTATES | BLOOM_OP_F_OUT | BLOOM_OP_F_PARTIAL),
	BLOOM_OP(BLOOM_IOC_QUERY, bloom_ioc_query, bloom_batch, out_hits,
		 BLOOM_OP_F_OUT),
	BLOOM_OP(BLOOM_IOC_DELETE, bloom_ioc_delete, bloom_batch, out_hits,
		 BLOOM_OP_F_MUTATES | BLOOM_OP_F_OUT | BLOOM_OP_F_PARTIAL),
	BLOOM_OP(BLOOM_IOC_SAVE, bloom_ioc_save, bloom_save, out_len,
		 BLOOM_OP_F_ADMIN | BLOOM_OP_F_OUT),
	BLOOM_OP(BLOOM_IOC_RESTORE, bloom_ioc_restore, bloom_restore,
		 buf_len, BLOOM_OP_F_MUTATES),
	BLOOM_OP(BLOOM_IOC_MERGE, bloom_ioc_merge, bloom_pair, other,
		 BLOOM_OP_F_MUTATES),
	BLOOM_OP(BLOOM_IOC_SWAP, bloom_ioc_swap, bloom_pair, other,
		 BLOOM_OP_F_MUTATES),
	BLOOM_OP(BLOOM_IOC_FLUSH, bloom_ioc_flush, bloom_name, name,
		 BLOOM_OP_F_MUTATES),
	BLOOM_OP(BLOOM_IOC_STAGES, bloom_ioc_stages, bloom_stages, stages,
		 BLOOM_OP_F_OUT),
};

static long bloom_ioctl(struct file *file, unsigned int cmd, unsigned long uarg)
{
	void __user *ubuf = (void __user *)uarg;
	const struct bloom_ioctl_op *op;
	union bloom_ioctl_arg arg;
	u32 usize;
	int ret;

	/* A dozen entries: a scan costs less than the syscall around it. */
	for (op = bloom_ops; op < bloom_ops + ARRAY_SIZE(bloom_ops); op++)
		if (op->cmd == cmd)
			break;
	if (op == bloom_ops + ARRAY_SIZE(bloom_ops))
		return -ENOTTY;
	/*
	 * A descriptor opened read-only never changes anything, whoever
	 * holds it; then the caller needs the capability, checked at each
	 * call.
	 */
	if ((op->flags & BLOOM_OP_F_WRITE) && !(file->f_mode & FMODE_WRITE))
		return -EBADF;
	if ((op->flags & BLOOM_OP_F_ADMIN) &&
	    !bloom_file_admin(file->private_data))
		return -EPERM;
	if (get_user(usize, (u32 __user *)ubuf))
		return -EFAULT;
	if (usize < op->min_size)
		return -EINVAL;
	ret = copy_struct_from_user(&arg, op->size, ubuf, usize);
	if (ret)
		return ret;

	ret = op->fn(file->private_data, &arg);
	/*
	 * ADD and DELETE report how far they got even when the results bitmap
	 * faulted, ADD also when a scalable filter could not grow; SAVE
	 * reports the size it needs with EOVERFLOW.
	 */
	if ((!ret || (ret == -EFAULT && (op->flags & BLOOM_OP_F_PARTIAL)) ||
	     ret == -EOVERFLOW || (cmd == BLOOM_IOC_ADD && arg.batch.out_done)) &&
	    (op->flags & BLOOM_OP_F_OUT) &&
	    copy_to_user(ubuf, &arg, min(usize, op->size)))
		return -EFAULT;
	return ret;
}

static const struct file_operations bloom_fops = {
	.owner = THIS_MODULE,
	.open = bloom_open,
	.release = bloom_release,
	.unlocked_ioctl = bloom_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice bloom_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "bloom",
	.fops = &bloom_fops,
	.groups = bloom_dev_groups,
	.mode = 0600,
};

/*
 * Module init's last step: once the device is registered, userspace can
 * open it, so everything it needs exists already (main.c; the network
 * namespaces' registries just before), and nothing after this can fail: the
 * filters/ directory is made now or, failing that, by the first create.
 */
int bloom_dev_init(void)
{
	int ret;

	ret = bloom_filter_net_init();
	if (ret)
		return ret;
	ret = misc_register(&bloom_misc);
	if (ret) {
		bloom_filter_net_exit();
		return ret;
	}
	bloom_filters_dir_ready(bloom_misc.this_device);
	return 0;
}

/*
 * Module exit's first step. No descriptor is open (each holds a module
 * reference) and none can be opened (the module is going), so userspace
 * reaches nothing any more. The filters' sysfs directories are removed
 * (with every namespace's filters) before the device's, since they live
 * inside it.
 */
void bloom_dev_exit(void)
{
	bloom_filter_net_exit();
	bloom_filters_dir_exit();
	misc_deregister(&bloom_misc);
}
