/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What bloom.ko offers firewall rules (xt_bloom.ko), exported in the BLOOM
 * symbol namespace. A rule resolves its filter once, when it is inserted,
 * and keeps the pointer: the packet path is bloom_rule_match() alone.
 */
#ifndef BLOOM_RULE_H
#define BLOOM_RULE_H

#include <linux/types.h>
#include <linux/bloom.h>

struct bloom_filter;
struct net;

/* Is @name a valid filter name (uapi/linux/bloom.h), NUL-terminated? */
bool bloom_rule_name_valid(const char name[BLOOM_NAME_LEN]);

/*
 * The filter named @name in @net, held for a rule (destroy fails with EBUSY
 * until bloom_rule_put()), or ERR_PTR(-ENOENT) or ERR_PTR(-EINTR). Sleeps.
 */
struct bloom_filter *bloom_rule_get(struct net *net, const char *name);
void bloom_rule_put(struct bloom_filter *f);

/* The filter's key kind (enum bloom_keys), as its store holds it now. */
u32 bloom_rule_keys(struct bloom_filter *f);

/*
 * May the @len-byte address (4: IPv4, 16: IPv6) be in the filter, itself
 * or inside a netblock it holds? Any context, softirq included: no
 * lock, no sleep, no allocation. Counts the packet and the hit per CPU.
 */
bool bloom_rule_match(struct bloom_filter *f, const void *key, u32 len);

#endif /* BLOOM_RULE_H */
