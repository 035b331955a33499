/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What filters may take (account.c): the module parameters max_memory
 * (all filters together), max_memory_per_netns (the filters of one network
 * namespace other than the initial one) and the accounts they are charged
 * to, one per network namespace (the registry keeps them, registry.h).
 *
 * Every byte a filter takes (its store, its stages, its struct and sysfs
 * directory, a SAVE's copy of it while the call runs) is reserved against
 * the account of the filter's namespace before it is allocated and given
 * back when it is freed (or retired: store.h). A reservation fails with
 * -EDQUOT when it would take
 *   - all filters over max_memory, or
 *   - a namespace other than the initial one over max_memory_per_netns, or
 *   - the namespaces other than the initial one together over max_memory
 *     less the initial namespace's reserve, min(max_memory_per_netns,
 *     max_memory / 2): however many namespaces an unprivileged user makes,
 *     the initial namespace keeps that much for itself.
 */
#ifndef BLOOM_ACCOUNT_H
#define BLOOM_ACCOUNT_H

#include <linux/atomic.h>
#include <linux/types.h>

/**
 * struct bloom_account - what one network namespace's filters take
 * @used: bytes reserved now
 * @initial: the initial network namespace's: only max_memory applies
 */
struct bloom_account {
	atomic64_t used;
	bool initial;
};

void bloom_account_init(struct bloom_account *a, bool initial);
/* Takes @bytes: 0 or -EDQUOT (see above); gives them back. */
int bloom_account_reserve(struct bloom_account *a, u64 bytes);
void bloom_account_release(struct bloom_account *a, u64 bytes);

/*
 * What a namespace is shown (VERSION, sysfs memory_used): the initial one
 * all filters' bytes and max_memory, any other its own bytes and the most
 * it may take, so that no namespace learns what the others use.
 */
u64 bloom_account_shown_used(const struct bloom_account *a);
u64 bloom_account_shown_limit(const struct bloom_account *a);

/* All filters together. */
u64 bloom_memory_used(void);
u64 bloom_memory_limit(void);

#endif /* BLOOM_ACCOUNT_H */
