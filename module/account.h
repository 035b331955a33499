/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What filters may take (account.c): the module parameters max_memory
 * (all filters together), max_memory_per_netns (the most the filters of one
 * network namespace other than the initial one may take) and
 * min_memory_per_netns (what such a namespace is guaranteed), and the
 * accounts they are charged to, one per network namespace (the registry
 * keeps them, registry.h).
 *
 * Every byte a filter takes (its store, its stages, its struct and sysfs
 * directory, a SAVE's copy of it while the call runs) is reserved against
 * the account of the filter's namespace before it is allocated and given
 * back when it is freed (or retired: store.h).
 *
 * The namespaces other than the initial one share a pool, max_memory less
 * the initial namespace's reserve, min(max_memory_per_netns, max_memory /
 * 2). A namespace created by the host's root (its user namespace is the
 * initial one: a container runtime's) is owed min_memory_per_netns of that
 * pool from its creation, is granted it at its first reservation, as far
 * as the pool has it, and keeps the grant until it goes away: no other
 * namespace, and not the initial one, can take the grant, and no other
 * namespace of the pool can take what is owed (the initial one can: root's
 * own filters are outside the pool's rules). What a namespace takes beyond
 * its grant, and all that a namespace an unprivileged user made takes,
 * comes first come first served from the part of the pool nobody was
 * granted or is owed, so that unprivileged users, who can make namespaces
 * at will, cannot take the guarantee of a container that exists, even one
 * that has no filter yet. When the pool cannot grant every namespace root
 * made, the first of them to reserve is granted first.
 * A reservation fails with -EDQUOT when it would take
 *   - a namespace other than the initial one over max_memory_per_netns, or
 *   - more of the pool than is neither granted, owed to another namespace
 *     nor in use, or
 *   - the initial namespace into what other namespaces were granted or
 *     use, or all filters over max_memory.
 * A reservation that stays within the namespace's grant always succeeds.
 */
#ifndef BLOOM_ACCOUNT_H
#define BLOOM_ACCOUNT_H

#include <linux/list.h>
#include <linux/types.h>

/**
 * struct bloom_account - what one network namespace's filters take
 * @used: bytes reserved now
 * @granted: bytes of the pool guaranteed to it (see above)
 * @owed: bytes of its guarantee it was not granted yet (see above)
 * @node: in the list of accounts of namespaces other than the initial one
 * @initial: the initial network namespace's: only max_memory applies
 * @guaranteed: its namespace may be granted min_memory_per_netns
 *
 * All fields are account.c's, under its lock.
 */
struct bloom_account {
	u64 used;
	u64 granted;
	u64 owed;
	struct list_head node;
	bool initial;
	bool guaranteed;
};

void bloom_account_init(struct bloom_account *a, bool initial,
			bool guaranteed);
/* The namespace is going away: its grant goes back to the pool. */
void bloom_account_exit(struct bloom_account *a);
/* Takes @bytes: 0 or -EDQUOT (see above); gives them back. */
int bloom_account_reserve(struct bloom_account *a, u64 bytes);
void bloom_account_release(struct bloom_account *a, u64 bytes);

/*
 * What a namespace is shown (VERSION, sysfs memory_used): the initial one
 * all filters' bytes and the most they may take now (max_memory less what
 * other namespaces were granted and do not use); any other its own bytes
 * and the most it can take now (its grant or what it uses, whichever is
 * more, plus the part of the pool nobody holds, within
 * max_memory_per_netns), so that no namespace learns what the others use
 * beyond what it cannot have.
 */
u64 bloom_account_shown_used(const struct bloom_account *a);
u64 bloom_account_shown_limit(const struct bloom_account *a);
/* What @a was granted (sysfs memory_guaranteed); the initial one's reserve. */
u64 bloom_account_shown_guaranteed(const struct bloom_account *a);

/* All filters together. */
u64 bloom_memory_used(void);

#endif /* BLOOM_ACCOUNT_H */
