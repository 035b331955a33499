// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Netblocks: the key form of a prefix, the lengths a filter holds and the
 * lookup of an address over them (netblock.h).
 */
#include "core.h"
#include "netblock.h"

#define PPB	1000000000ULL
#define NB_GROUP	16	/* tests hashed and prefetched together */

bool bloom_nb_host_bits(u32 family, const u8 *addr, u32 plen)
{
	u32 alen = bloom_nb_alen(family), i;

	for (i = plen / 8; i < alen; i++) {
		u8 keep = i == plen / 8 ? (u8)(0xff00 >> (plen % 8)) : 0;

		if (addr[i] & ~keep)
			return true;
	}
	return false;
}

int bloom_nb_parse(const u8 *key, u32 len, struct bloom_nb_key *k)
{
	switch (len) {
	case 4:
	case 5:
		k->family = BLOOM_NB_IPV4;
		break;
	case 16:
	case 17:
		k->family = BLOOM_NB_IPV6;
		break;
	default:
		return -EINVAL;
	}
	k->alen = (u8)bloom_nb_alen(k->family);
	k->plen = (u8)bloom_nb_full(k->family);
	if (len > k->alen) {
		k->plen = key[k->alen];
		/*
		 * a full-length netblock is the address, and only that; a
		 * /0 holds every address (ipset refuses it too)
		 */
		if (!k->plen || k->plen >= bloom_nb_full(k->family) ||
		    bloom_nb_host_bits(k->family, key, k->plen))
			return -EINVAL;
	}
	memcpy(k->addr, key, k->alen);
	return 0;
}

u32 bloom_nb_key_make(u32 family, const u8 *addr, u32 plen, u8 *out)
{
	u32 alen = bloom_nb_alen(family), i;

	memcpy(out, addr, alen);
	if (plen >= bloom_nb_full(family))
		return alen;
	for (i = plen / 8; i < alen; i++)
		out[i] &= i == plen / 8 ? (u8)(0xff00 >> (plen % 8)) : 0;
	out[alen] = (u8)plen;
	return alen + 1;
}

/* The longest present length at most @from, or -1. */
static int bloom_nb_prev(const struct bloom_netblocks *nb, u32 family,
			 int from)
{
	int w;

	if (!nb)
		return -1;
	for (w = from / BITS_PER_LONG; from >= 0 && w >= 0; w--) {
		unsigned long bits = READ_ONCE(nb->present[family][w]);
		u32 top = from - w * BITS_PER_LONG;

		if (top < BITS_PER_LONG - 1)
			bits &= (2UL << top) - 1;
		if (bits)
			return w * BITS_PER_LONG + BITS_PER_LONG - 1 -
			       __builtin_clzl(bits);
		from = w * BITS_PER_LONG - 1;
	}
	return -1;
}

u32 bloom_nb_lengths(const struct bloom_netblocks *nb, u32 family, u32 plen,
		     u8 *lens)
{
	u32 full = bloom_nb_full(family), n = 0;
	int l = (int)(plen < full ? plen : full - 1);

	while ((l = bloom_nb_prev(nb, family, l)) >= 0)
		lens[n++] = (u8)l--;
	return n;
}

u32 bloom_nb_lookups(const struct bloom_netblocks *nb, u32 family)
{
	u32 i, n = 1;

	if (!nb)
		return 1;
	for (i = 0; i < 128 / BITS_PER_LONG; i++)
		n += hweight_long(READ_ONCE(nb->present[family][i]));
	return n;
}

void bloom_nb_account(struct bloom_netblocks *nb, u32 family, u32 plen,
		      s64 delta)
{
	bloom_atomic64_t *c = &nb->count[bloom_nb_index(family, plen)];
	bool shorter = plen < bloom_nb_full(family);
	u64 now = bloom_atomic64_read(c);

	if (delta > 0) {
		if (shorter)
			set_bit(plen, nb->present[family]);
		/* saturated: stays, and so does its length */
		if (now >= BLOOM_NB_COUNT_MAX)
			return;
		/*
		 * one key: concurrent adders each add theirs (a few over the
		 * bound at most); a merge's or restore's count: no adder runs
		 */
		if (delta == 1)
			bloom_atomic64_add(1, c);
		else
			bloom_atomic64_set(c, (u64)delta >= BLOOM_NB_COUNT_MAX - now ?
					   BLOOM_NB_COUNT_MAX : now + (u64)delta);
		return;
	}
	if (!now || now >= BLOOM_NB_COUNT_MAX)
		return;
	bloom_atomic64_add(delta, c);
	if (!bloom_atomic64_read(c) && shorter)
		clear_bit(plen, nb->present[family]);
}

u64 bloom_nb_count(const struct bloom_netblocks *nb, u32 family, u32 plen)
{
	return bloom_atomic64_read(&nb->count[bloom_nb_index(family, plen)]);
}

void bloom_nb_clear(struct bloom_netblocks *nb)
{
	u32 i;

	for (i = 0; i < BLOOM_NB_LENS; i++)
		bloom_atomic64_set(&nb->count[i], 0);
	for (i = 0; i < 128 / BITS_PER_LONG; i++) {
		WRITE_ONCE(nb->present[0][i], 0);
		WRITE_ONCE(nb->present[1][i], 0);
	}
}

int bloom_nb_set_plan(struct bloom_netblocks *nb, u32 family,
		      const unsigned long *bits)
{
	u32 full = bloom_nb_full(family), i, n = 0;

	for (i = 0; i < 128; i++) {
		if (!test_bit(i, bits))
			continue;
		if (!i || i >= full || ++n > BLOOM_EXPAND_LENS_MAX)
			return -EINVAL;
	}
	for (i = 0; i < 128 / BITS_PER_LONG; i++)
		nb->plan[family][i] = bits[i];
	return 0;
}

bool bloom_nb_planned(const struct bloom_netblocks *nb, u32 family)
{
	u32 i;

	for (i = 0; i < 128 / BITS_PER_LONG; i++)
		if (nb->plan[family][i])
			return true;
	return false;
}

bool bloom_nb_plan_allows(const struct bloom_netblocks *nb, u32 family,
			  u32 plen)
{
	return plen >= bloom_nb_full(family) ||
	       !bloom_nb_planned(nb, family) ||
	       test_bit(plen, nb->plan[family]);
}

bool bloom_nb_plan_holds(const struct bloom_netblocks *dst,
			 const struct bloom_netblocks *src)
{
	u32 fam, i;

	for (fam = 0; fam < 2; fam++) {
		if (!bloom_nb_planned(dst, fam))
			continue;
		for (i = 0; i < 128 / BITS_PER_LONG; i++)
			if (READ_ONCE(src->present[fam][i]) &
			    ~dst->plan[fam][i])
				return false;
	}
	return true;
}

void bloom_nb_copy_plan(struct bloom_netblocks *dst,
			const struct bloom_netblocks *src)
{
	memcpy(dst->plan, src->plan, sizeof(dst->plan));
}

void bloom_nb_merge(struct bloom_netblocks *dst,
		    const struct bloom_netblocks *src)
{
	u32 fam, l;
	u64 c;

	for (fam = 0; fam < 2; fam++)
		for (l = 0; l <= bloom_nb_full(fam); l++) {
			c = bloom_nb_count(src, fam, l);
			if (c)
				bloom_nb_account(dst, fam, l, c);
		}
}

bool bloom_nb_any(const struct bloom_netblocks *nb)
{
	u32 i;

	for (i = 0; i < BLOOM_NB_LENS; i++)
		if (bloom_atomic64_read(&nb->count[i]))
			return true;
	return false;
}

u32 bloom_nb_rate(u32 fpp_ppb, u32 lookups)
{
	u64 miss = PPB, q = PPB - (fpp_ppb < PPB ? fpp_ppb : PPB);
	u32 i;

	for (i = 0; i < lookups && miss; i++)
		miss = div64_u64(miss * q, PPB);
	return (u32)(PPB - miss);
}

bool bloom_nb_query_walk(const struct bloom_core *f,
			 const struct bloom_netblocks *nb, u32 family,
			 const u8 *addr, u32 plen)
{
	u32 full = bloom_nb_full(family), n = 0, i, klen;
	int l = (int)(plen < full ? plen : full - 1);
	/*
	 * Each written before it is read: not zeroed first, which
	 * CONFIG_INIT_STACK_ALL_ZERO would do at every packet.
	 */
	u8 key[BLOOM_NB_KEY_MAX] __uninitialized;
	u64 h[NB_GROUP] __uninitialized;

	l = bloom_nb_prev(nb, family, l);
	if (plen >= full) {
		/* the address's own size, hashed inline */
		h[n++] = family == BLOOM_NB_IPV6 ? bloom_core_hash16(f, addr) :
						   bloom_core_hash4(f, addr);
		/* a filter of addresses only: the one test */
		if (l < 0)
			return bloom_core_lookup_hash(f, h[0]);
	}
	for (;;) {
		if (l >= 0) {
			klen = bloom_nb_key_make(family, addr, l--, key);
			h[n++] = bloom_core_hash(f, key, klen);
			if (n < NB_GROUP) {
				l = bloom_nb_prev(nb, family, l);
				continue;
			}
		}
		/* a group: its lines load together, then the tests */
		if (n > 1)
			for (i = 0; i < n; i++)
				bloom_core_lookup_prefetch(f, h[i]);
		for (i = 0; i < n; i++)
			if (bloom_core_lookup_hash(f, h[i]))
				return true;
		if (l < 0)
			return false;
		n = 0;
		l = bloom_nb_prev(nb, family, l);
	}
}
