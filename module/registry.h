/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The registry: the names of the filters of each network namespace. Only
 * create, destroy, bind, info by name, list and firewall rule insertion take
 * its lock; adds and queries go through a bound descriptor (or a rule's
 * pointer) and never touch it.
 */
#ifndef BLOOM_REGISTRY_H
#define BLOOM_REGISTRY_H

#include <linux/types.h>
#include <linux/bloom.h>

struct bloom_filter;
struct net;

int bloom_registry_init(void);
void bloom_registry_exit(void);
int bloom_registry_add(struct net *net, struct bloom_filter *f);
int bloom_registry_destroy(struct net *net, const char *name);
struct bloom_filter *bloom_registry_lookup(struct net *net, const char *name);
struct bloom_filter *bloom_registry_lookup_rule(struct net *net,
						const char *name);
int bloom_registry_names(struct net *net, char **names, u32 *count);

#endif /* BLOOM_REGISTRY_H */
