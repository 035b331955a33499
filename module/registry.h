/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names of filters, per network namespace (registry.c): register a new
 * filter's name with its sysfs directory (the registry takes a reference of
 * its own), look a name up (a reference the caller puts; _rule: a firewall
 * rule's hold too, see bloom_rule_get(), let go with bloom_filter_unhold()),
 * remove a name and destroy its filter (waiting a moment for its holders
 * to let go, then -EBUSY), list the names (sorted, BLOOM_NAME_LEN bytes
 * each, freed with bloom_kvfree()). A namespace's filters are destroyed
 * with it. Every registered filter has an id (filter.h's @id), unique in
 * its namespace while it is registered, found under RCU alone.
 */
#ifndef BLOOM_REGISTRY_H
#define BLOOM_REGISTRY_H

#include <linux/limits.h>
#include <linux/types.h>

struct bloom_filter;
struct net;

int bloom_registry_add(struct net *net, struct bloom_filter *f);
int bloom_registry_remove(struct net *net, const char *name);
struct bloom_filter *bloom_registry_lookup(struct net *net, const char *name);
struct bloom_filter *bloom_registry_lookup_rule(struct net *net,
						const char *name);
/* The largest id; ids are 1..BLOOM_REGISTRY_ID_MAX, 0 is none. */
#define BLOOM_REGISTRY_ID_MAX	INT_MAX

/*
 * Under rcu_read_lock() or with BH disabled (an XDP or tc program), from
 * any context, no lock, no sleep: the filter of id @id in @net, valid
 * until the read side ends, or NULL.
 */
struct bloom_filter *bloom_registry_find_id(struct net *net, u32 id);
int bloom_registry_names(struct net *net, char **names, u32 *count);
/* What @net's filters are charged to (account.h); lives as long as @net. */
struct bloom_account *bloom_registry_account(struct net *net);

/* Module init, before the device; exit after it, every filter destroyed. */
int bloom_registry_init(void);
void bloom_registry_exit(void);

#endif /* BLOOM_REGISTRY_H */
