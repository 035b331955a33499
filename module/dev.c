// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/bloom: the misc device and its ioctls.
 *
 * Dispatch follows iommufd: every command is _IO(BLOOM_IOC_MAGIC, nr) and its
 * struct starts with its own size, read with copy_struct_from_user() so that
 * older and newer userspace both work (see uapi/linux/bloom.h). The argument
 * is copied into a zeroed kernel union and handled; a handler that has a
 * reply sends it itself (bloom_ucmd_respond(), iommufd's
 * iommufd_ucmd_respond()), so each command decides when it replies.
 * Decoding create requests and filling INFO and STAGES replies is
 * request.c's.
 */
#include <linux/build_bug.h>
#include <linux/capability.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
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
#include "registry.h"
#include "request.h"
#include "snap.h"
#include "sysfs.h"

/*
 * An open descriptor; @filter is set once, by BIND or CREATE, then fixed.
 * @net: the opener's network namespace, whose filters the descriptor names
 * and in which CAP_NET_ADMIN is checked, for the descriptor's whole life
 * (as a tun descriptor keeps the namespace it was opened in).
 * @bind_lock: held by BIND and by CREATE with BLOOM_CREATE_F_BIND from the
 * check that the descriptor is unbound to the binding, so that a create
 * that cannot bind never registers its filter.
 */
struct bloom_file {
	struct bloom_filter *filter;
	struct net *net;
	struct mutex bind_lock;	/* serialises binding, see above */
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

/* Larger structs are refused unread, as openat2() and clone3() do. */
#define BLOOM_UCMD_SIZE_MAX	PAGE_SIZE

/**
 * struct bloom_ucmd - one ioctl call
 * @bf: the descriptor
 * @ubuf: the caller's struct
 * @user_size: its size, as the caller gave it
 * @size: the size of the struct this module knows
 * @reply_from: where the reply starts in it: the fields before are input
 *	only (a batch's), and copying them back would only cost time
 * @arg: the struct, copied in
 */
struct bloom_ucmd {
	struct bloom_file *bf;
	void __user *ubuf;
	u32 user_size;
	u32 size;
	u32 reply_from;
	union bloom_ioctl_arg arg;
};

/* A batch's reply: its out_* fields. */
#define BLOOM_BATCH_REPLY_FROM	offsetof(struct bloom_batch, out_done)

/*
 * The reply: @ucmd->arg back to the caller from @ucmd->reply_from, as much
 * of it as both know (user_size is at least the version-1 size, which
 * holds every output field of version 1).
 */
static int bloom_ucmd_respond(struct bloom_ucmd *ucmd)
{
	u32 from = ucmd->reply_from;

	/* a batch's reply at its usual size: see bloom_ucmd_read_batch() */
	if (from == BLOOM_BATCH_REPLY_FROM &&
	    ucmd->user_size == sizeof(struct bloom_batch)) {
		if (copy_to_user(ucmd->ubuf + BLOOM_BATCH_REPLY_FROM,
				 &ucmd->arg.batch.out_done,
				 sizeof(struct bloom_batch) -
				 BLOOM_BATCH_REPLY_FROM))
			return -EFAULT;
		return 0;
	}
	if (copy_to_user(ucmd->ubuf + from, (u8 *)&ucmd->arg + from,
			 min(ucmd->user_size, ucmd->size) - from))
		return -EFAULT;
	return 0;
}

/* The handler's result, with the reply sent when it succeeded. */
static int bloom_ucmd_result(struct bloom_ucmd *ucmd, int ret)
{
	return ret ?: bloom_ucmd_respond(ucmd);
}

static struct miscdevice bloom_misc;

static int bloom_dev_open(struct inode *inode, struct file *file)
{
	struct bloom_file *bf;

	bf = bloom_kzalloc(sizeof(*bf), GFP_KERNEL_ACCOUNT);
	if (!bf)
		return -ENOMEM;
	bf->net = get_net(current->nsproxy->net_ns);
	mutex_init(&bf->bind_lock);
	file->private_data = bf;
	return 0;
}

static int bloom_dev_release(struct inode *inode, struct file *file)
{
	struct bloom_file *bf = file->private_data;

	if (bf->filter)
		bloom_filter_put(bf->filter);
	put_net(bf->net);
	mutex_destroy(&bf->bind_lock);
	bloom_kfree(bf);
	return 0;
}

/*
 * Binds @bf, unbound (checked under @bf->bind_lock, which the caller
 * holds), to @f, taking over the caller's reference to @f.
 */
static void bloom_file_bind(struct bloom_file *bf, struct bloom_filter *f)
{
	lockdep_assert_held(&bf->bind_lock);
	/*
	 * Release: whoever sees the pointer sees the filter initialised.
	 * Pairs with smp_load_acquire() in bloom_file_filter().
	 */
	smp_store_release(&bf->filter, f);
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

/*
 * A filter by name, or the bound one when the name is all zero; a
 * reference the caller puts.
 */
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
	return bloom_registry_lookup(bf->net, name);
}

static int bloom_ioc_version(struct bloom_ucmd *ucmd)
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
			 BIT(BLOOM_TYPE_COUNTING) | BIT(BLOOM_TYPE_DLEFT),
		.create_flags = BLOOM_CREATE_F_ALL,
		.batch_flags = BLOOM_BATCH_F_ALL,
		.key_max = BLOOM_KEY_MAX,
		.batch_max_keys = BLOOM_BATCH_MAX_KEYS,
		.batch_max_bytes = BLOOM_BATCH_MAX_BYTES,
		.memory_limit = bloom_account_shown_limit(acct),
		.memory_used = bloom_account_shown_used(acct),
	};
	return bloom_ucmd_respond(ucmd);
}

/* Creates and registers the filter, bound to @bf if the request says so. */
static int bloom_file_create(struct bloom_file *bf,
			     const struct bloom_create *c)
{
	struct bloom_filter *f;
	int ret;

	ret = bloom_registry_dir_ready(bloom_misc.this_device);
	if (ret)
		return ret;
	ret = bloom_request_create(bf->net, c, &f);
	if (ret)
		return ret;
	ret = bloom_registry_add(bf->net, f);
	if (!ret && (c->flags & BLOOM_CREATE_F_BIND))
		bloom_file_bind(bf, f);
	else
		bloom_filter_put(f);
	return ret;
}

static int bloom_ioc_create(struct bloom_ucmd *ucmd)
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

static int bloom_ioc_destroy(struct bloom_ucmd *ucmd)
{
	struct bloom_name *n = &ucmd->arg.name;

	return bloom_name_check(n) ?: bloom_registry_remove(ucmd->bf->net,
							     n->name);
}

static int bloom_ioc_bind(struct bloom_ucmd *ucmd)
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

static int bloom_ioc_flush(struct bloom_ucmd *ucmd)
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

static int bloom_ioc_info(struct bloom_ucmd *ucmd)
{
	struct bloom_info *info = &ucmd->arg.info;
	bool named = !bloom_name_empty(info->name);
	struct bloom_filter *f;
	int ret;

	if (info->flags || info->reserved)
		return -EINVAL;
	f = bloom_file_or_named(ucmd->bf, info->name);
	if (IS_ERR(f))
		return PTR_ERR(f);
	ret = bloom_request_info(f, info);
	bloom_filter_put(f);
	/* A named filter destroyed since the lookup: the name is gone. */
	if (named && ret == -ESTALE)
		ret = -ENOENT;
	return bloom_ucmd_result(ucmd, ret);
}

static int bloom_ioc_stages(struct bloom_ucmd *ucmd)
{
	struct bloom_stages *s = &ucmd->arg.stages;
	struct bloom_filter *f;
	int ret;

	if (s->flags || s->reserved)
		return -EINVAL;
	f = bloom_file_or_named(ucmd->bf, s->name);
	if (IS_ERR(f))
		return PTR_ERR(f);
	ret = bloom_request_stages(f, s);
	bloom_filter_put(f);
	return bloom_ucmd_result(ucmd, ret);
}

static int bloom_ioc_list(struct bloom_ucmd *ucmd)
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
 * changing the filter (out_done not 0): the results bitmap faulted, or a
 * scalable filter could not grow. QUERY replies on success only.
 */
static int bloom_ioc_add(struct bloom_ucmd *ucmd)
{
	struct bloom_batch *b = &ucmd->arg.batch;
	struct bloom_filter *f = bloom_file_filter(ucmd->bf);
	int ret;

	if (IS_ERR(f))
		return PTR_ERR(f);
	ucmd->reply_from = BLOOM_BATCH_REPLY_FROM;
	ret = bloom_batch_add(f, b);
	if (ret && b->out_done)
		return bloom_ucmd_respond(ucmd) ?: ret;
	return bloom_ucmd_result(ucmd, ret);
}

static int bloom_ioc_delete(struct bloom_ucmd *ucmd)
{
	struct bloom_batch *b = &ucmd->arg.batch;
	struct bloom_filter *f = bloom_file_filter(ucmd->bf);
	int ret;

	if (IS_ERR(f))
		return PTR_ERR(f);
	ucmd->reply_from = BLOOM_BATCH_REPLY_FROM;
	ret = bloom_batch_delete(f, b);
	if (ret && b->out_done)
		return bloom_ucmd_respond(ucmd) ?: ret;
	return bloom_ucmd_result(ucmd, ret);
}

static int bloom_ioc_query(struct bloom_ucmd *ucmd)
{
	struct bloom_filter *f = bloom_file_filter(ucmd->bf);

	if (IS_ERR(f))
		return PTR_ERR(f);
	ucmd->reply_from = BLOOM_BATCH_REPLY_FROM;
	return bloom_ucmd_result(ucmd, bloom_batch_query(f, &ucmd->arg.batch));
}

/* SAVE replies also with EOVERFLOW: out_len is the size it needs. */
static int bloom_ioc_save(struct bloom_ucmd *ucmd)
{
	struct bloom_save *save = &ucmd->arg.save;
	struct bloom_filter *f;
	int ret;

	if (save->flags || save->reserved)
		return -EINVAL;
	f = bloom_file_or_named(ucmd->bf, save->name);
	if (IS_ERR(f))
		return PTR_ERR(f);
	ret = bloom_snap_save(f, save);
	bloom_filter_put(f);
	if (ret == -EOVERFLOW)
		return bloom_ucmd_respond(ucmd) ?: ret;
	return bloom_ucmd_result(ucmd, ret);
}

static int bloom_ioc_restore(struct bloom_ucmd *ucmd)
{
	int ret = bloom_registry_dir_ready(bloom_misc.this_device);

	return ret ?: bloom_snap_restore(ucmd->bf->net, &ucmd->arg.restore);
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

static int bloom_ioc_merge(struct bloom_ucmd *ucmd)
{
	return bloom_ioc_pair(ucmd, bloom_filter_merge);
}

static int bloom_ioc_swap(struct bloom_ucmd *ucmd)
{
	return bloom_ioc_pair(ucmd, bloom_filter_swap);
}

/*
 * Root of a user namespace that owns the descriptor's network namespace
 * manages that namespace's filters, as it manages its ipset sets.
 */
static bool bloom_file_admin(const struct bloom_file *bf)
{
	return ns_capable(bf->net->user_ns, CAP_NET_ADMIN);
}

/* What a command needs (struct bloom_ioctl_op's @flags). */
#define BLOOM_OP_F_WRITE	BIT(0)	/* needs a descriptor open for writing */
#define BLOOM_OP_F_ADMIN	BIT(1)	/* needs CAP_NET_ADMIN */
/* A change to the filters: see "Security model" in Documentation/bloom.rst. */
#define BLOOM_OP_F_MUTATES	(BLOOM_OP_F_WRITE | BLOOM_OP_F_ADMIN)
/* its struct is struct bloom_batch: bloom_ucmd_read_batch() may read it */
#define BLOOM_OP_F_BATCH	BIT(2)

struct bloom_ioctl_op {
	unsigned int cmd;
	u32 size;	/* of the struct this module knows */
	u32 min_size;	/* of the struct in ABI version 1: the least it takes */
	u32 flags;	/* BLOOM_OP_F_* */
	int (*fn)(struct bloom_ucmd *ucmd);
};

/* @last: the struct's last field in ABI version 1 */
#define BLOOM_OP(_cmd, _fn, type, last, _flags)				\
	{								\
		.cmd = _cmd,						\
		.size = sizeof(struct type),				\
		.min_size = offsetofend(struct type, last),		\
		.flags = _flags,					\
		.fn = _fn,						\
	}

static const struct bloom_ioctl_op bloom_ops[] = {
	BLOOM_OP(BLOOM_IOC_VERSION, bloom_ioc_version, bloom_version, reserved, 0),
	BLOOM_OP(BLOOM_IOC_CREATE, bloom_ioc_create, bloom_create, generations,
		 BLOOM_OP_F_MUTATES),
	BLOOM_OP(BLOOM_IOC_DESTROY, bloom_ioc_destroy, bloom_name, reserved,
		 BLOOM_OP_F_MUTATES),
	BLOOM_OP(BLOOM_IOC_BIND, bloom_ioc_bind, bloom_name, reserved, 0),
	BLOOM_OP(BLOOM_IOC_INFO, bloom_ioc_info, bloom_info, generations, 0),
	BLOOM_OP(BLOOM_IOC_LIST, bloom_ioc_list, bloom_list, reserved, 0),
	BLOOM_OP(BLOOM_IOC_ADD, bloom_ioc_add, bloom_batch, reserved,
		 BLOOM_OP_F_MUTATES | BLOOM_OP_F_BATCH),
	BLOOM_OP(BLOOM_IOC_QUERY, bloom_ioc_query, bloom_batch, reserved,
		 BLOOM_OP_F_BATCH),
	BLOOM_OP(BLOOM_IOC_DELETE, bloom_ioc_delete, bloom_batch, reserved,
		 BLOOM_OP_F_MUTATES | BLOOM_OP_F_BATCH),
	BLOOM_OP(BLOOM_IOC_SAVE, bloom_ioc_save, bloom_save, reserved,
		 BLOOM_OP_F_ADMIN),
	BLOOM_OP(BLOOM_IOC_RESTORE, bloom_ioc_restore, bloom_restore, reserved,
		 BLOOM_OP_F_MUTATES),
	BLOOM_OP(BLOOM_IOC_MERGE, bloom_ioc_merge, bloom_pair, reserved,
		 BLOOM_OP_F_MUTATES),
	BLOOM_OP(BLOOM_IOC_SWAP, bloom_ioc_swap, bloom_pair, reserved,
		 BLOOM_OP_F_MUTATES),
	BLOOM_OP(BLOOM_IOC_FLUSH, bloom_ioc_flush, bloom_name, reserved,
		 BLOOM_OP_F_MUTATES),
	BLOOM_OP(BLOOM_IOC_STAGES, bloom_ioc_stages, bloom_stages, reserved, 0),
};

/*
 * ADD, QUERY and DELETE, a daemon's every call, from a caller built
 * against this module's header: one copy of a constant size, which
 * hardened usercopy has no need to check at run time (the compiler sees
 * that it fits), instead of a read of the size and a copy of as many
 * bytes. False for any other size, or when the copy faulted (a struct
 * that is smaller and ends where the caller's memory does): the general
 * path then reads it, and answers as it always did.
 */
static bool bloom_ucmd_read_batch(struct bloom_ucmd *ucmd)
{
	if (copy_from_user(&ucmd->arg.batch, ucmd->ubuf,
			   sizeof(struct bloom_batch)) ||
	    ucmd->arg.batch.size != sizeof(struct bloom_batch))
		return false;
	ucmd->user_size = sizeof(struct bloom_batch);
	return true;
}

static long bloom_dev_ioctl(struct file *file, unsigned int cmd, unsigned long uarg)
{
	const struct bloom_ioctl_op *op;
	/*
	 * Not zeroed first (CONFIG_INIT_STACK_ALL_ZERO would, on every call):
	 * copy_struct_from_user() fills the whole struct of @op, and nothing
	 * reads another member of the union.
	 */
	struct bloom_ucmd ucmd __uninitialized;
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
	ucmd.bf = file->private_data;
	ucmd.ubuf = (void __user *)uarg;
	ucmd.size = op->size;
	ucmd.reply_from = 0;
	if ((op->flags & BLOOM_OP_F_BATCH) && bloom_ucmd_read_batch(&ucmd))
		return op->fn(&ucmd);
	if (get_user(ucmd.user_size, (u32 __user *)ucmd.ubuf))
		return -EFAULT;
	if (ucmd.user_size < op->min_size)
		return -EINVAL;
	if (ucmd.user_size > BLOOM_UCMD_SIZE_MAX)
		return -E2BIG;
	/* E2BIG when a byte past the struct this module knows is not 0 */
	ret = copy_struct_from_user(&ucmd.arg, op->size, ucmd.ubuf,
				    ucmd.user_size);
	if (ret)
		return ret;
	return op->fn(&ucmd);
}

static const struct file_operations bloom_fops = {
	.owner = THIS_MODULE,
	.open = bloom_dev_open,
	.release = bloom_dev_release,
	.unlocked_ioctl = bloom_dev_ioctl,
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

	ret = bloom_registry_init();
	if (ret)
		return ret;
	ret = misc_register(&bloom_misc);
	if (ret) {
		bloom_registry_exit();
		return ret;
	}
	bloom_registry_dir_ready(bloom_misc.this_device);
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
	bloom_registry_exit();
	misc_deregister(&bloom_misc);
}
