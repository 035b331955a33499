// SPDX-License-Identifier: GPL-2.0
/*
 * Batches of addresses and netblocks (BLOOM_BATCH_F_NET, or a filter of
 * kind ipv4 or ipv6): pass one also reads every key as one
 * (module/core/netblock.h) and keeps its prefix length; ADD and DELETE
 * count the lengths of the keys they added or removed in the store they
 * were applied to. A QUERY of them keeps the parsed keys instead of
 * hashes: each is looked up over the lengths present in the store of its
 * chunk (bloom_nb_query()), hashed there with that store's key.
 */
#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/overflow.h>

#include "alloc.h"
#include "batch_internal.h"
#include "store.h"

/*
 * Key @i read as an address or netblock, kept in slot @slot of @net's
 * keys or lengths: -EINVAL when it is none or of
 * the batch's other family, -EPROTOTYPE when the filter's kind (not the
 * caller) asked for addresses or the family is not the kind's.
 */
int bloom_net_one(struct bloom_net *net, const u8 *key, u32 len, u32 i,
		  u32 slot)
{
	struct bloom_nb_key nk;

	if (bloom_nb_parse(key, len, &nk))
		return net->implied ? -EPROTOTYPE : -EINVAL;
	if (net->kind && net->kind != bloom_nb_kind(nk.family))
		return -EPROTOTYPE;
	if (!i)
		net->family = nk.family;
	else if (nk.family != net->family)
		return -EINVAL;
	if (net->query)
		net->keys[slot] = nk;
	else
		net->plens[slot] = nk.plen;
	return 0;
}

/*
 * Whether the batch is of addresses and netblocks (asked, or implied by
 * the kind of the filter, in @net->kind): 0 or -EPROTOTYPE (a filter of
 * strings).
 */
int bloom_net_mode(struct bloom_net *net, const struct bloom_batch *b,
		   enum bloom_batch_op op)
{
	if (b->flags & BLOOM_BATCH_F_NET && net->kind == BLOOM_KEYS_STRINGS)
		return -EPROTOTYPE;
	net->implied = !(b->flags & BLOOM_BATCH_F_NET) &&
		       (net->kind == BLOOM_KEYS_IPV4 ||
			net->kind == BLOOM_KEYS_IPV6);
	net->on = net->implied || b->flags & BLOOM_BATCH_F_NET;
	if (net->kind == BLOOM_KEYS_STRINGS)
		net->kind = 0;
	net->query = net->on && op == BLOOM_BATCH_QUERY;
	return 0;
}

/*
 * bloom_net_mode(), and room for what pass one keeps of the keys: 0,
 * -EPROTOTYPE, -ENOMEM. bloom_net_free() frees it.
 */
int bloom_net_setup(struct bloom_net *net, const struct bloom_batch *b,
		    enum bloom_batch_op op)
{
	u32 n = b->nkeys;
	int ret;

	ret = bloom_net_mode(net, b, op);
	if (ret || !net->on)
		return ret;
	if (net->query)
		net->keys = bloom_kvzalloc(array_size(n, sizeof(*net->keys)),
					   GFP_KERNEL_ACCOUNT);
	else
		net->plens = bloom_kvzalloc(n, GFP_KERNEL_ACCOUNT);
	return net->keys || net->plens ? 0 : -ENOMEM;
}

void bloom_net_free(struct bloom_net *net)
{
	bloom_kvfree(net->keys);
	bloom_kvfree(net->plens);
}

/*
 * A batch of addresses about to change store @s: an ADD gives a filter of
 * no kind the batch's; -EPROTOTYPE when the store holds another kind (a
 * replace brought it, or another adder was first).
 */
int bloom_net_kind(const struct bloom_net *net, enum bloom_batch_op op,
		   struct bloom_store *s)
{
	u32 want, kind;

	if (!net->on || op == BLOOM_BATCH_QUERY)
		return 0;
	want = bloom_nb_kind(net->family);
	kind = READ_ONCE(s->nb.kind);
	if (!kind && op == BLOOM_BATCH_ADD) {
		kind = cmpxchg(&s->nb.kind, 0, want);
		/* 0: this adder gave the store its kind */
		if (!kind) {
			kind = want;
			bloom_store_keys_changed(s, true);
		}
	}
	return kind && kind != want ? -EPROTOTYPE : 0;
}

/*
 * An ADD of @n netblocks to @s, whose prefix lengths (if it has them)
 * must hold every length of the batch: 0 or -EDOM, before anything is
 * added. A DELETE is not checked: a length never stored is not found.
 */
int bloom_net_plan(const struct bloom_net *net, enum bloom_batch_op op,
		   const struct bloom_store *s, u32 n)
{
	u32 i;

	if (!net->on || op != BLOOM_BATCH_ADD ||
	    !bloom_nb_planned(&s->nb, net->family))
		return 0;
	for (i = 0; i < n; i++)
		if (!bloom_nb_plan_allows(&s->nb, net->family, net->plens[i]))
			return -EDOM;
	return 0;
}

/*
 * Counts the lengths of keys [@from, @to) in @s: every key an ADD applied,
 * the keys a DELETE removed (their bits in @results).
 */
void bloom_net_account(const struct bloom_net *net, enum bloom_batch_op op,
		       struct bloom_store *s, const u8 *results, u32 from,
		       u32 to)
{
	u32 i;

	if (!net->on || op == BLOOM_BATCH_QUERY)
		return;
	for (i = from; i < to; i++) {
		if (op == BLOOM_BATCH_ADD)
			bloom_nb_account(&s->nb, net->family, net->plens[i], 1);
		else if (results[i / 8] & BIT(i % 8))
			bloom_nb_account(&s->nb, net->family, net->plens[i],
					 -1);
	}
}

/* QUERY of @n addresses, results from bit 0 of @results. */
u32 bloom_net_query(const struct bloom_nb_key *k, struct bloom_store *s,
		    u32 n, u8 *results)
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
