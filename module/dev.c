// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/bloom: the misc device, its descriptors and their binding, the
 * copy-in of a command and its reply, the op table and dispatch; the
 * handlers are ioctl.c's.
 *
 * Dispatch follows iommufd: every command is _IO(BLOOM_IOC_MAGIC, nr) and its
 * struct starts with its own size, read with copy_struct_from_user() so that
 * older and newer userspace both work (see uapi/linux/bloom.h). The argument
 * is copied into a kernel union that is not zeroed first: the command's
 * struct in it is written whole (what an older caller's struct lacks, as
 * zeroes) and nothing reads another member. A handler that has a reply
 * sends it itself (bloom_ucmd_respond(), iommufd's iommufd_ucmd_respond()),
 * so each command decides when it replies.
 */
#include <linux/capability.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nsproxy.h>
#include <linux/stddef.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>

#include "alloc.h"
#include "dev.h"
#include "filter.h"
#include "ioctl.h"
#include "name.h"
#include "registry.h"
#include "sysfs.h"
#include "sysfs_dir.h"

/* Larger structs are refused unread, as openat2() and clone3() do. */
#define BLOOM_UCMD_SIZE_MAX	PAGE_SIZE

int bloom_ucmd_respond(struct bloom_ucmd *ucmd)
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

static int bloom_dev_open(struct inode *inode, struct file *file)
{
	/* misc_open() left the device there */
	struct miscdevice *misc = file->private_data;
	struct bloom_file *bf;

	bf = bloom_kzalloc(sizeof(*bf), GFP_KERNEL_ACCOUNT);
	if (!bf)
		return -ENOMEM;
	bf->net = get_net(current->nsproxy->net_ns);
	bf->dev = misc->this_device;
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

void bloom_file_bind(struct bloom_file *bf, struct bloom_filter *f)
{
	lockdep_assert_held(&bf->bind_lock);
	/*
	 * Release: whoever sees the pointer sees the filter initialised.
	 * Pairs with smp_load_acquire() in bloom_file_filter().
	 */
	smp_store_release(&bf->filter, f);
}

struct bloom_filter *bloom_file_or_named(struct bloom_file *bf,
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
	BLOOM_OP(BLOOM_IOC_ADD, bloom_ioc_add, bloom_batch, timeout_s,
		 BLOOM_OP_F_MUTATES | BLOOM_OP_F_BATCH),
	BLOOM_OP(BLOOM_IOC_QUERY, bloom_ioc_query, bloom_batch, timeout_s,
		 BLOOM_OP_F_BATCH),
	BLOOM_OP(BLOOM_IOC_DELETE, bloom_ioc_delete, bloom_batch, timeout_s,
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
	 * bloom_ucmd_read_batch() or copy_struct_from_user() fills the whole
	 * struct of @op, and nothing reads another member of the union.
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

/*
 * A read-only mapping of the bound filter's bits behind a header page
 * (map.h; the ABI is struct bloom_map_header's). Whoever may save the
 * filter may map it, through a descriptor opened for writing: the header
 * holds the hash key, as a snapshot does, and a read-only descriptor is
 * the one a daemon that must not learn it is given.
 */
static int bloom_dev_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct bloom_file *bf = file->private_data;
	struct bloom_filter *f = bloom_file_filter(bf);
	struct bloom_store *s;
	int ret;

	if (IS_ERR(f))
		return PTR_ERR(f);
	if (!bloom_file_admin(bf))
		return -EPERM;
	if (!(file->f_mode & FMODE_WRITE))
		return -EACCES;
	/* the store is not freed before a grace period: its area lives */
	rcu_read_lock();
	s = bloom_filter_store(f);
	ret = s ? bloom_store_map_vma(s, vma) : -ESTALE;
	rcu_read_unlock();
	return ret;
}

static const struct file_operations bloom_fops = {
	.owner = THIS_MODULE,
	.open = bloom_dev_open,
	.release = bloom_dev_release,
	.unlocked_ioctl = bloom_dev_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = bloom_dev_mmap,
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
	bloom_sysfs_dir_ready(bloom_misc.this_device);
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
