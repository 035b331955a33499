// SPDX-License-Identifier: GPL-2.0
/*
 * The memory filters may take, per network namespace and all together
 * (account.h has the rules).
 */
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "account.h"
#include "units.h"

/*
 * All filters together may take this many bytes. Filter memory is also
 * charged to the creator's memory cgroup; this limit is the module's own
 * guard, for hosts without a cgroup limit.
 */
static unsigned long max_memory = 1UL << 30;
/* The most the filters of one namespace other than the initial one take. */
static unsigned long max_memory_per_netns = 1UL << 28;
/* What a namespace the host's root made is guaranteed of the pool. */
static unsigned long min_memory_per_netns = 1UL << 24;

/*
 * Guards every account's fields and the totals below. Reservations come
 * with creates, growth, restores and saves, not with keys: one lock is
 * cheap, and it keeps the totals and the grants one consistent picture.
 */
static DEFINE_SPINLOCK(bloom_account_lock);
/* the accounts of namespaces other than the initial one */
static LIST_HEAD(bloom_accounts);
/* all filters' bytes; the initial namespace's */
static u64 memory_used, initial_used;
/*
 * What the pool has given out: for each namespace other than the initial
 * one, what it uses or what it was granted, whichever is more.
 */
static u64 pool_held;
/*
 * What the pool owes: for each namespace the host's root made, what its
 * grant lacks of min_memory_per_netns. No other namespace of the pool may
 * take it (a namespace takes its grant at its first reservation, and one
 * made by an unprivileged user could otherwise fill the pool before).
 */
static u64 pool_owed;

static u64 bloom_account_held(const struct bloom_account *a)
{
	return max(a->used, a->granted);
}

/* The pool: what the namespaces other than the initial one may take. */
static u64 bloom_pool_size(void)
{
	u64 all = READ_ONCE(max_memory);

	return all - min_t(u64, READ_ONCE(max_memory_per_netns), all / 2);
}

/* The most the pool may hold now: less what the initial one has taken. */
static u64 bloom_pool_cap(void)
{
	u64 all = READ_ONCE(max_memory);

	lockdep_assert_held(&bloom_account_lock);
	return min(bloom_pool_size(),
		   all > initial_used ? all - initial_used : 0);
}

/* What the pool can still give: neither held nor taken by the initial one. */
static u64 bloom_pool_free(void)
{
	u64 cap = bloom_pool_cap();

	return cap > pool_held ? cap - pool_held : 0;
}

/* The grant @a should have now: min_memory_per_netns within its limit. */
static u64 bloom_account_grant_target(const struct bloom_account *a)
{
	if (!a->guaranteed)
		return 0;
	return min(READ_ONCE(min_memory_per_netns),
		   READ_ONCE(max_memory_per_netns));
}

/* Sets what the pool owes @a (its target less its grant), keeping the sum. */
static void bloom_account_set_owed(struct bloom_account *a, u64 owed)
{
	pool_owed -= a->owed;
	a->owed = owed;
	pool_owed += a->owed;
}

static u64 bloom_account_lack(const struct bloom_account *a)
{
	u64 target = bloom_account_grant_target(a);

	return target > a->granted ? target - a->granted : 0;
}

/* Sets @a's grant to @granted, keeping pool_held and pool_owed the sums. */
static void bloom_account_set_grant(struct bloom_account *a, u64 granted)
{
	pool_held -= bloom_account_held(a);
	a->granted = granted;
	pool_held += bloom_account_held(a);
	bloom_account_set_owed(a, bloom_account_lack(a));
}

/*
 * The most @a may hold once its grant is topped up (bloom_account_top_up()):
 * that grant or what it uses, whichever is more, and beyond it what the
 * pool has free that no other namespace is owed.
 */
static u64 bloom_account_room(const struct bloom_account *a)
{
	u64 target = bloom_account_grant_target(a), free = bloom_pool_free();
	u64 held = bloom_account_held(a), others = pool_owed - a->owed;
	u64 granted = a->granted, topped;

	if (granted < target)
		granted = min(target, held + free);
	topped = max(a->used, granted);
	free -= topped - held;
	return topped + (free > others ? free - others : 0);
}

/*
 * Grants @a what it lacks of its target, as far as the pool has it. What
 * is owed to the namespaces root made is theirs against everyone else,
 * but among them, when the pool cannot grant them all, the first to
 * reserve is granted first.
 */
static void bloom_account_top_up(struct bloom_account *a)
{
	u64 target = bloom_account_grant_target(a);

	if (a->granted >= target)
		return;
	/* the part of the grant @a already uses is held already */
	bloom_account_set_grant(a, min(target, bloom_account_held(a) +
					       bloom_pool_free()));
}

/*
 * A parameter changed: grants are cut to the new targets, and when the
 * pool no longer holds them all, the parts nobody uses go back to it. A
 * namespace gets its grant again, as far as there is room, at its next
 * reservation; until then the pool owes it (set_grant's recount, under
 * the new targets).
 */
static void bloom_account_params_changed(void)
{
	struct bloom_account *a;

	spin_lock(&bloom_account_lock);
	list_for_each_entry(a, &bloom_accounts, node)
		bloom_account_set_grant(a, min(a->granted,
					       bloom_account_grant_target(a)));
	if (pool_held > bloom_pool_cap())
		list_for_each_entry(a, &bloom_accounts, node)
			bloom_account_set_grant(a, min(a->granted, a->used));
	spin_unlock(&bloom_account_lock);
}

/* Takes the suffixes bloomctl takes (units.h: 4G, 512Mi); reads as bytes. */
static int bloom_param_bytes_set(const char *val,
				 const struct kernel_param *kp)
{
	u64 v;
	int err = bloom_parse_units(val, strlen(val), &v);

	if (err)
		return err;
	if (v > ULONG_MAX)
		return -ERANGE;
	WRITE_ONCE(*(unsigned long *)kp->arg, v);
	bloom_account_params_changed();
	return 0;
}

static const struct kernel_param_ops bloom_param_bytes_ops = {
	.set = bloom_param_bytes_set,
	.get = param_get_ulong,
};

module_param_cb(max_memory, &bloom_param_bytes_ops, &max_memory, 0644);
MODULE_PARM_DESC(max_memory, "Bytes all filters may take together (default 1Gi = 1073741824; k/M/G/T are powers of 1000, Ki/Mi/Gi/Ti of 1024)");
module_param_cb(max_memory_per_netns, &bloom_param_bytes_ops,
		&max_memory_per_netns, 0644);
MODULE_PARM_DESC(max_memory_per_netns, "Bytes the filters of one network namespace other than the initial one may take (default 256Mi = 268435456); the initial namespace keeps this much of max_memory, at most half, for itself");
module_param_cb(min_memory_per_netns, &bloom_param_bytes_ops,
		&min_memory_per_netns, 0644);
MODULE_PARM_DESC(min_memory_per_netns, "Bytes a network namespace made by the host's root is guaranteed from its creation until it goes away, granted at its first filter (default 16Mi = 16777216; at most max_memory_per_netns); namespaces of unprivileged users share what nobody was guaranteed");

u64 bloom_memory_used(void)
{
	return READ_ONCE(memory_used);
}

void bloom_account_init(struct bloom_account *a, bool initial,
			bool guaranteed)
{
	a->used = 0;
	a->granted = 0;
	a->owed = 0;
	a->initial = initial;
	a->guaranteed = guaranteed && !initial;
	INIT_LIST_HEAD(&a->node);
	if (initial)
		return;
	spin_lock(&bloom_account_lock);
	list_add(&a->node, &bloom_accounts);
	/* owed from now: it may use bloom from now */
	bloom_account_set_owed(a, bloom_account_lack(a));
	spin_unlock(&bloom_account_lock);
}

void bloom_account_exit(struct bloom_account *a)
{
	if (a->initial)
		return;
	spin_lock(&bloom_account_lock);
	bloom_account_set_grant(a, 0);
	bloom_account_set_owed(a, 0);
	list_del_init(&a->node);
	spin_unlock(&bloom_account_lock);
}

static int bloom_account_reserve_locked(struct bloom_account *a, u64 bytes)
{
	u64 all = READ_ONCE(max_memory);
	u64 cap = READ_ONCE(max_memory_per_netns);
	u64 more;

	if (a->initial) {
		if (bytes > all || initial_used + pool_held > all - bytes)
			return -EDQUOT;
		initial_used += bytes;
		return 0;
	}
	if (bytes > cap || a->used > cap - bytes)
		return -EDQUOT;
	/* a call that fails changes nothing, its grant included */
	if (a->used + bytes > bloom_account_room(a))
		return -EDQUOT;
	bloom_account_top_up(a);
	/* what the pool gives beyond what @a holds: nothing in its grant */
	more = a->used + bytes > bloom_account_held(a) ?
	       a->used + bytes - bloom_account_held(a) : 0;
	pool_held += more;
	a->used += bytes;
	return 0;
}

int bloom_account_reserve(struct bloom_account *a, u64 bytes)
{
	int ret;

	spin_lock(&bloom_account_lock);
	ret = bloom_account_reserve_locked(a, bytes);
	if (!ret)
		memory_used += bytes;
	spin_unlock(&bloom_account_lock);
	return ret;
}

void bloom_account_release(struct bloom_account *a, u64 bytes)
{
	spin_lock(&bloom_account_lock);
	memory_used -= bytes;
	if (a->initial) {
		initial_used -= bytes;
	} else {
		pool_held -= bloom_account_held(a);
		a->used -= bytes;
		pool_held += bloom_account_held(a);
	}
	spin_unlock(&bloom_account_lock);
}

u64 bloom_account_shown_used(const struct bloom_account *a)
{
	return a->initial ? bloom_memory_used() : READ_ONCE(a->used);
}

u64 bloom_account_shown_limit(const struct bloom_account *a)
{
	u64 all = READ_ONCE(max_memory), limit;

	spin_lock(&bloom_account_lock);
	if (a->initial) {
		/* what others hold and do not use is not the initial one's */
		u64 others = memory_used - initial_used;
		u64 held = pool_held > others ? pool_held - others : 0;

		limit = all > held ? all - held : 0;
	} else {
		/* a grant not yet made comes from the free part too */
		limit = min_t(u64, bloom_account_room(a),
			      READ_ONCE(max_memory_per_netns));
	}
	spin_unlock(&bloom_account_lock);
	return limit;
}

u64 bloom_account_shown_guaranteed(const struct bloom_account *a)
{
	u64 all = READ_ONCE(max_memory);

	if (a->initial)
		return min_t(u64, READ_ONCE(max_memory_per_netns), all / 2);
	return READ_ONCE(a->granted);
}
