// SPDX-License-Identifier: GPL-2.0
/*
 * Filters for firewall rules: the functions xt_bloom.ko imports.
 */
#include <linux/err.h>
#include <linux/export.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>

#include "core.h"
#include "filter.h"
#include "name.h"
#include "registry.h"
#include "rule.h"

bool bloom_rule_name_valid(const char name[BLOOM_NAME_LEN])
{
	return bloom_name_valid(name);
}
EXPORT_SYMBOL_NS_GPL(bloom_rule_name_valid, BLOOM);

struct bloom_filter *bloom_rule_get(struct net *net, const char *name)
{
	return bloom_registry_lookup_rule(net, name);
}
EXPORT_SYMBOL_NS_GPL(bloom_rule_get, BLOOM);

void bloom_rule_put(struct bloom_filter *f)
{
	bloom_filter_unhold(f, BLOOM_HOLD_RULE);
	bloom_filter_put(f);
}
EXPORT_SYMBOL_NS_GPL(bloom_rule_put, BLOOM);

u32 bloom_rule_keys(struct bloom_filter *f)
{
	u32 kind;

	if (bloom_filter_keys(f, &kind, NULL))
		return BLOOM_KEYS_UNKNOWN;
	return kind;
}
EXPORT_SYMBOL_NS_GPL(bloom_rule_keys, BLOOM);

/*
 * The query of the batch path (store_addr.c) for one address: the address and
 * the netblocks of every length the store holds
 * (bloom_store_query_addr()), on the store published now (filter.h),
 * under RCU (netfilter hooks hold the read side already; it nests). Queries of every type are
 * lockless (core.h), so a counting or d-left filter whose writer a packet
 * interrupts on the same CPU still answers correctly. A filter destroyed
 * under the rule (its network namespace is going away) matches nothing.
 */
bool bloom_rule_match(struct bloom_filter *f, const void *key, u32 len)
{
	struct bloom_store *s;
	bool hit = false;

	rcu_read_lock();
	s = bloom_filter_store(f);
	if (s) {
		hit = bloom_store_query_addr(s, key, len);
		if (hit)
			this_cpu_inc(s->stats->packet_hits);
		else
			this_cpu_inc(s->stats->packet_misses);
	}
	rcu_read_unlock();
	return hit;
}
EXPORT_SYMBOL_NS_GPL(bloom_rule_match, BLOOM);
