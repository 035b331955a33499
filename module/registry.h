/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The registry: the names of all filters. Only create, destroy, bind, info
 * by name and list take its lock; adds and queries go through a bound
 * descriptor and never touch it.
 */
#ifndef BLOOM_REGISTRY_H
#define BLOOM_REGISTRY_H

#include <linux/types.h>
#include <linux/bloom.h>

struct bloom_filter;

int bloom_registry_add(struct bloom_filter *f);
int bloom_registry_destroy(const char *name);
struct bloom_filter *bloom_registry_lookup(const char *name);
int bloom_registry_names(char **names, u32 *count);
void bloom_registry_destroy_all(void);

#endif /* BLOOM_REGISTRY_H */
