/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names of filters, per network namespace (registry.c): register a new
 * filter's name with its sysfs directory (the registry takes a reference of
 * its own), look a name up (a reference the caller puts; _rule: a firewall
 * rule's, see bloom_rule_get()), remove a name and destroy its filter
 * (-EBUSY while rules hold it), list the names (sorted, BLOOM_NAME_LEN bytes
 * each, freed with bloom_kvfree()). A namespace's filters are destroyed
 * with it.
 */
#ifndef BLOOM_REGISTRY_H
#define BLOOM_REGISTRY_H

#include <linux/types.h>

struct bloom_filter;
struct device;
struct net;

int bloom_registry_add(struct net *net, struct bloom_filter *f);
int bloom_registry_remove(struct net *net, const char *name);
struct bloom_filter *bloom_registry_lookup(struct net *net, const char *name);
struct bloom_filter *bloom_registry_lookup_rule(struct net *net,
						const char *name);
int bloom_registry_names(struct net *net, char **names, u32 *count);
/* What @net's filters are charged to (account.h); lives as long as @net. */
struct bloom_account *bloom_registry_account(struct net *net);

/*
 * The filters/ directory inside the device's (@dev): made once the device
 * is registered, or by the first bloom_registry_add() if that failed
 * (-ENOMEM).
 */
int bloom_registry_dir_ready(struct device *dev);

/* Module init, before the device; exit after it, every filter destroyed. */
int bloom_registry_init(void);
void bloom_registry_exit(void);

#endif /* BLOOM_REGISTRY_H */
