/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What /dev/bloom (dev.c: descriptors, the copy-in of a command, its
 * reply, the op table and dispatch) and the command handlers (ioctl.c)
 * share, as iommufd_private.h does for iommufd's main.c and its objects.
 */
#ifndef BLOOM_IOCTL_H
#define BLOOM_IOCTL_H

#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/mutex.h>
#include <linux/stddef.h>
#include <linux/types.h>
#include <linux/bloom.h>

#include "filter.h"

struct device;
struct net;

/*
 * An open descriptor; @filter is set once, by BIND or CREATE, then fixed.
 * @net: the opener's network namespace, whose filters the descriptor names
 * and in which CAP_NET_ADMIN is checked, for the descriptor's whole life
 * (as a tun descriptor keeps the namespace it was opened in).
 * @dev: the device's, inside which the filters/ directory lives
 * @bind_lock: held by BIND and by CREATE with BLOOM_CREATE_F_BIND from the
 * check that the descriptor is unbound to the binding, so that a create
 * that cannot bind never registers its filter.
 */
struct bloom_file {
	struct bloom_filter *filter;
	struct net *net;
	struct device *dev;
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

/* dev.c */

/*
 * The reply: @ucmd->arg back to the caller from @ucmd->reply_from, as much
 * of it as both know (user_size is at least the version-1 size, which
 * holds every output field of version 1).
 */
int bloom_ucmd_respond(struct bloom_ucmd *ucmd);

/* The handler's result, with the reply sent when it succeeded. */
static inline int bloom_ucmd_result(struct bloom_ucmd *ucmd, int ret)
{
	if (ret)
		return ret;
	return bloom_ucmd_respond(ucmd);
}

/*
 * Binds @bf, unbound (checked under @bf->bind_lock, which the caller
 * holds), to @f, taking over the caller's reference to @f.
 */
void bloom_file_bind(struct bloom_file *bf, struct bloom_filter *f);

/*
 * The live filter bound to @bf, or an ERR_PTR. No reference is taken: the
 * descriptor holds one for as long as the ioctl runs. Inline: every
 * ADD, QUERY and DELETE asks.
 */
static inline struct bloom_filter *bloom_file_filter(struct bloom_file *bf)
{
	/* Pairs with smp_store_release() in bloom_file_bind(). */
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
struct bloom_filter *bloom_file_or_named(struct bloom_file *bf,
					 const char *name);

/* ioctl.c: one handler per command (struct bloom_ioctl_op's @fn). */
int bloom_ioc_version(struct bloom_ucmd *ucmd);
int bloom_ioc_create(struct bloom_ucmd *ucmd);
int bloom_ioc_destroy(struct bloom_ucmd *ucmd);
int bloom_ioc_bind(struct bloom_ucmd *ucmd);
int bloom_ioc_info(struct bloom_ucmd *ucmd);
int bloom_ioc_list(struct bloom_ucmd *ucmd);
int bloom_ioc_add(struct bloom_ucmd *ucmd);
int bloom_ioc_query(struct bloom_ucmd *ucmd);
int bloom_ioc_delete(struct bloom_ucmd *ucmd);
int bloom_ioc_save(struct bloom_ucmd *ucmd);
int bloom_ioc_restore(struct bloom_ucmd *ucmd);
int bloom_ioc_merge(struct bloom_ucmd *ucmd);
int bloom_ioc_swap(struct bloom_ucmd *ucmd);
int bloom_ioc_flush(struct bloom_ucmd *ucmd);
int bloom_ioc_stages(struct bloom_ucmd *ucmd);

#endif /* BLOOM_IOCTL_H */
