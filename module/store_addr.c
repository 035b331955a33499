// SPDX-License-Identifier: GPL-2.0
/*
 * Keys as addresses and netblocks (BLOOM_BATCH_F_NET, or a filter of kind
 * ipv4 or ipv6; module/core/netblock.h): the first pass of a batch reads
 * every key as one and keeps its prefix length (store.h's struct
 * bloom_addrs); an ADD or DELETE then counts the lengths of the keys it
 * added or removed in the store it was applied to. A QUERY of them keeps
 * the parsed keys instead of hashes: each is looked up over the lengths
 * present in the store of its chunk (bloom_nb_query()), hashed there with
 * that store's key.
 */
#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/overflow.h>

#include "alloc.h"
#include "store_internal.h"

int bloom_addrs_read(struct bloom_addrs *a, const u8 *key, u32 len, u32 i,
		     u32 slot)
{
	struct bloom_nb_key nk;

	if (bloom_nb_parse(key, len, &nk))
		return a->implied ? -EPROTOTYPE : -EINVAL;
	if (a->kind && a->kind != bloom_nb_kind(nk.family))
		return -EPROTOTYPE;
	if (!i)
		a->family = nk.family;
	else if (nk.family != a->family)
		return -EINVAL;
	if (a->query)
		a->keys[slot] = nk;
	else
		a->plens[slot] = nk.plen;
	return 0;
}

int bloom_addrs_mode(struct bloom_addrs *a, u32 flags, enum bloom_store_op op)
{
	if (flags & BLOOM_BATCH_F_NET && a->kind == BLOOM_KEYS_STRINGS)
		return -EPROTOTYPE;
	a->implied = !(flags & BLOOM_BATCH_F_NET) &&
		     (a->kind == BLOOM_KEYS_IPV4 || a->kind == BLOOM_KEYS_IPV6);
	a->on = a->implied || flags & BLOOM_BATCH_F_NET;
	if (a->kind == BLOOM_KEYS_STRINGS)
		a->kind = 0;
	a->query = a->on && op == BLOOM_STORE_QUERY;
	return 0;
}

int bloom_addrs_setup(struct bloom_addrs *a, u32 flags, enum bloom_store_op op,
		      u32 n)
{
	int ret;

	ret = bloom_addrs_mode(a, flags, op);
	if (ret || !a->on)
		return ret;
	if (a->query)
		a->keys = bloom_kvzalloc(array_size(n, sizeof(*a->keys)),
					 GFP_KERNEL_ACCOUNT);
	else
		a->plens = bloom_kvzalloc(n, GFP_KERNEL_ACCOUNT);
	return a->keys || a->plens ? 0 : -ENOMEM;
}

void bloom_addrs_free(struct bloom_addrs *a)
{
	bloom_kvfree(a->keys);
	bloom_kvfree(a->plens);
}

/*
 * A batch of @n addresses about to change store @s: an ADD gives a store
 * of no kind the batch's; -EPROTOTYPE when the store holds another kind (a
 * replace brought it, or another adder was first). An ADD's netblocks
 * must all be of lengths the store's plan holds (if it has one): -EDOM,
 * before anything is added. A DELETE is not checked for lengths: a length
 * never stored is not found.
 */
int bloom_addrs_check(const struct bloom_addrs *a, enum bloom_store_op op,
		      struct bloom_store *s, u32 n)
{
	u32 want, kind, i;

	if (!a || !a->on || op == BLOOM_STORE_QUERY)
		return 0;
	want = bloom_nb_kind(a->family);
	kind = READ_ONCE(s->nb.kind);
	if (!kind && op == BLOOM_STORE_ADD) {
		kind = cmpxchg(&s->nb.kind, 0, want);
		/* 0: this adder gave the store its kind */
		if (!kind) {
			kind = want;
			bloom_store_keys_changed(s, true);
		}
	}
	if (kind && kind != want)
		return -EPROTOTYPE;
	if (op != BLOOM_STORE_ADD || !bloom_nb_planned(&s->nb, a->family))
		return 0;
	for (i = 0; i < n; i++)
		if (!bloom_nb_plan_allows(&s->nb, a->family, a->plens[i]))
			return -EDOM;
	return 0;
}

/*
 * Counts the lengths of keys [@from, @to) in @s: every key an ADD applied,
 * the keys a DELETE removed (their bits in @results).
 */
void bloom_addrs_account(const struct bloom_addrs *a, enum bloom_store_op op,
			 struct bloom_store *s, const u8 *results, u32 from,
			 u32 to)
{
	u32 i;

	if (!a || !a->on || op == BLOOM_STORE_QUERY)
		return;
	for (i = from; i < to; i++) {
		if (op == BLOOM_STORE_ADD)
			bloom_nb_account(&s->nb, a->family, a->plens[i], 1);
		else if (results[i / 8] & BIT(i % 8))
			bloom_nb_account(&s->nb, a->family, a->plens[i], -1);
	}
}

u32 bloom_store_query_addrs(const struct bloom_store *s,
			    const struct bloom_nb_key *k, u32 n, u8 *results)
{
	u32 i, hits = 0;
	bool hit;

	for (i = 0; i < n; i++, k++) {
		hit = bloom_nb_query(&s->core, &s->nb, k->family, k->addr,
				     k->plen);
		hits += hit;
		if (!results)
			continue;
		if (!(i % 8))
			results[i / 8] = 0;
		if (hit)
			results[i / 8] |= BIT(i % 8);
	}
	return hits;
}
