// SPDX-License-Identifier: GPL-2.0
/*
 * xt_bloom: an xtables match that looks a packet's address up in a bloom
 * filter (uapi/linux/netfilter/xt_bloom.h).
 *
 * One NFPROTO_UNSPEC match serves iptables and ip6tables, through
 * iptables-nft (nft_compat) and iptables-legacy alike. checkentry resolves
 * the filter in the rule's network namespace and holds it; the packet path
 * touches only that pointer: no lock, no sleep, no allocation, no name
 * lookup, one keyed hash and the filter's query (bloom_rule_match()).
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/module.h>
#include <linux/netfilter.h>
#include <linux/netfilter/x_tables.h>
#include <linux/skbuff.h>
#include <linux/string.h>

#include <linux/netfilter/xt_bloom.h>

#include "rule.h"

static_assert(XT_BLOOM_NAME_LEN == BLOOM_NAME_LEN);

static bool bloom_mt(const struct sk_buff *skb, struct xt_action_param *par)
{
	const struct xt_bloom_mtinfo *info = par->matchinfo;
	bool dst = info->key[0] == XT_BLOOM_FIELD_DST_ADDR;
	bool hit;

	/* checkentry allowed these two families only. */
	if (xt_family(par) == NFPROTO_IPV4) {
		const struct iphdr *iph = ip_hdr(skb);

		hit = bloom_rule_match(info->filter,
				       dst ? &iph->daddr : &iph->saddr, 4);
	} else {
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);

		hit = bloom_rule_match(info->filter,
				       dst ? &ip6h->daddr : &ip6h->saddr, 16);
	}
	return hit ^ !!(info->flags & XT_BLOOM_F_INVERT);
}

static bool bloom_mt_key_valid(const struct xt_bloom_mtinfo *info)
{
	int i;

	/* Revision 0: one address, nothing after it. */
	if (info->key[0] != XT_BLOOM_FIELD_SRC_ADDR &&
	    info->key[0] != XT_BLOOM_FIELD_DST_ADDR)
		return false;
	for (i = 1; i < XT_BLOOM_KEY_FIELDS; i++)
		if (info->key[i] != XT_BLOOM_FIELD_NONE)
			return false;
	return true;
}

static const char *bloom_mt_kind_name(u32 kind)
{
	static const char *const names[] = BLOOM_KEYS_NAMES;

	return kind < ARRAY_SIZE(names) ? names[kind] : "unknown";
}

/* Messages go to the kernel log, where iptables' EINVAL/ENOENT sends people. */
static int bloom_mt_check(const struct xt_mtchk_param *par)
{
	struct xt_bloom_mtinfo *info = par->matchinfo;
	struct bloom_filter *f;
	u32 kind, want;

	if (par->family != NFPROTO_IPV4 && par->family != NFPROTO_IPV6) {
		pr_info_ratelimited("only iptables and ip6tables rules can match a filter\n");
		return -EINVAL;
	}
	if (info->flags & ~XT_BLOOM_F_ALL || info->reserved ||
	    info->reserved2[0] || info->reserved2[1]) {
		pr_info_ratelimited("unknown flags or non-zero reserved fields: is iptables' libxt_bloom newer than xt_bloom.ko?\n");
		return -EINVAL;
	}
	if (!bloom_mt_key_valid(info)) {
		pr_info_ratelimited("unsupported key (this module matches one source or destination address)\n");
		return -EINVAL;
	}
	if (!bloom_rule_name_valid(info->name)) {
		pr_info_ratelimited("invalid filter name\n");
		return -EINVAL;
	}
	f = bloom_rule_get(par->net, info->name);
	if (IS_ERR(f)) {
		if (PTR_ERR(f) == -ENOENT)
			pr_info_ratelimited("no filter named \"%s\" in this network namespace: create it first (bloomctl create %s ...)\n",
					    info->name, info->name);
		return PTR_ERR(f);
	}
	kind = bloom_rule_keys(f);
	want = par->family == NFPROTO_IPV4 ? BLOOM_KEYS_IPV4 : BLOOM_KEYS_IPV6;
	if (kind != BLOOM_KEYS_UNKNOWN && kind != want) {
		pr_info_ratelimited("filter \"%s\" holds %s keys, not %s addresses: name a filter of %s keys (bloomctl info %s)\n",
				    info->name, bloom_mt_kind_name(kind),
				    bloom_mt_kind_name(want),
				    bloom_mt_kind_name(want), info->name);
		bloom_rule_put(f);
		return -EPROTOTYPE;
	}
	info->filter = f;
	return 0;
}

static void bloom_mt_destroy(const struct xt_mtdtor_param *par)
{
	struct xt_bloom_mtinfo *info = par->matchinfo;

	bloom_rule_put(info->filter);
}

static struct xt_match bloom_mt_reg __read_mostly = {
	.name = "bloom",
	.revision = 0,
	.family = NFPROTO_UNSPEC,
	.match = bloom_mt,
	.checkentry = bloom_mt_check,
	.destroy = bloom_mt_destroy,
	.matchsize = sizeof(struct xt_bloom_mtinfo),
	.usersize = offsetof(struct xt_bloom_mtinfo, filter),
	.me = THIS_MODULE,
};

static int __init bloom_mt_init(void)
{
	return xt_register_match(&bloom_mt_reg);
}

static void __exit bloom_mt_exit(void)
{
	xt_unregister_match(&bloom_mt_reg);
}

module_init(bloom_mt_init);
module_exit(bloom_mt_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("bloom developers");
MODULE_DESCRIPTION("Xtables: match packet addresses against a bloom filter");
MODULE_ALIAS("ipt_bloom");
MODULE_ALIAS("ip6t_bloom");
MODULE_IMPORT_NS(BLOOM);
