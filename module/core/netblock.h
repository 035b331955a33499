/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Netblocks and key kinds (netblock.c; Documentation/bloom.rst,
 * "Netblocks", is the specification).
 *
 * An address is the key it always was: 4 bytes (IPv4) or 16 (IPv6), in
 * network byte order. A netblock shorter than an address (a prefix of
 * length 0..31 or 0..127) is its address with the host bits zero, followed
 * by one byte, the prefix length: 5 or 17 bytes. A /32 or /128 is the
 * address itself.
 *
 * A filter keeps, per family, how many netblocks of each length it holds
 * (struct bloom_netblocks; the full length counts the addresses) and a
 * bitmap of the shorter lengths that are present. A lookup of an address
 * tries the address itself and then every present shorter length, longest
 * first, and stops at the first hit: an unlisted address meets L tests,
 * L = 1 + the shorter lengths present, so its false-positive rate is
 * 1 - (1 - p)^L, at most L x p.
 *
 * A filter may also have a plan (prefix expansion, expand.h): per family,
 * the few shorter lengths netblocks are stored at. An add of another
 * length is refused; the caller stores such a netblock as the keys of its
 * subnets at the next planned length (bloom_expand_to()), so a lookup
 * never tests more than the planned lengths and the address itself.
 */
#ifndef BLOOM_CORE_NETBLOCK_H
#define BLOOM_CORE_NETBLOCK_H

#include "core.h"
#include "shim.h"

/* Key kinds: the values of enum bloom_key_kind in uapi/linux/bloom.h. */
#define BLOOM_CORE_KIND_UNKNOWN	0
#define BLOOM_CORE_KIND_STRINGS	1
#define BLOOM_CORE_KIND_IPV4		2
#define BLOOM_CORE_KIND_IPV6		3
#define BLOOM_CORE_KIND_MAX		BLOOM_CORE_KIND_IPV6

/* Families, as indices. */
#define BLOOM_NB_IPV4		0
#define BLOOM_NB_IPV6		1
#define BLOOM_NB_LENS4		33	/* lengths 0..32 */
#define BLOOM_NB_LENS6		129	/* lengths 0..128 */
#define BLOOM_NB_LENS		(BLOOM_NB_LENS4 + BLOOM_NB_LENS6)
#define BLOOM_NB_KEY_MAX	17	/* an IPv6 netblock key */

/**
 * struct bloom_netblocks - the netblock lengths a filter holds, and its kind
 * @kind: BLOOM_KEYS_*; set once (at create or the first add of an
 *	address or netblock), never changed afterwards
 * @present: per family, bit L set while a netblock of length L (shorter
 *	than an address) is counted. Set (atomically) before the count of a
 *	new length is, cleared only by the (serialised) deleters when the
 *	count drops to 0, read locklessly by lookups
 * @plan: per family, bit L set: netblocks of length L may be stored (the
 *	planned lengths, at most BLOOM_EXPAND_LENS_MAX); all clear: any
 *	length (no plan). Set at create or restore, before the store is
 *	published, and never changed afterwards
 * @count: adds of each length minus the deletes that removed one: IPv4
 *	lengths 0..32, then IPv6 0..128 (bloom_nb_index()); at most
 *	BLOOM_NB_COUNT_MAX, where a count stays (saturated: a delete never
 *	takes it down, so its length is never skipped)
 */
struct bloom_netblocks {
	u32 kind;
	unsigned long present[2][128 / BITS_PER_LONG];
	unsigned long plan[2][128 / BITS_PER_LONG];
	bloom_atomic64_t count[BLOOM_NB_LENS];
};

/*
 * The largest count of a length: a merge or a restore that would take a
 * count past it leaves it there, and a snapshot that says more is
 * refused. Far over any number of keys a filter can hold, far under the
 * 2^63 where the signed counter would wrap to a negative (skipped) count.
 */
#define BLOOM_NB_COUNT_MAX	0x4000000000000000ULL	/* 2^62 */

/* Shorter lengths a plan may hold per family: lookups at most one more. */
#define BLOOM_EXPAND_LENS_MAX	7

/**
 * struct bloom_nb_key - a key read as an address or netblock
 * @family: BLOOM_NB_IPV4 or BLOOM_NB_IPV6
 * @plen: the prefix length; 32 or 128 for an address
 * @alen: bytes of the address: 4 or 16
 * @addr: the address, host bits zero
 */
struct bloom_nb_key {
	u8 family;
	u8 plen;
	u8 alen;
	u8 addr[16];
};

/* Bytes of an address of @family, and its full prefix length. */
static inline u32 bloom_nb_alen(u32 family)
{
	return family == BLOOM_NB_IPV6 ? 16 : 4;
}

static inline u32 bloom_nb_full(u32 family)
{
	return family == BLOOM_NB_IPV6 ? 128 : 32;
}

/* The index of (@family, @plen) in struct bloom_netblocks' @count. */
static inline u32 bloom_nb_index(u32 family, u32 plen)
{
	return family == BLOOM_NB_IPV6 ? BLOOM_NB_LENS4 + plen : plen;
}

/* The key kind of @family's addresses. */
static inline u32 bloom_nb_kind(u32 family)
{
	return family == BLOOM_NB_IPV6 ? BLOOM_CORE_KIND_IPV6 : BLOOM_CORE_KIND_IPV4;
}

/*
 * Reads the @len-byte @key as an address (4 or 16 bytes) or a netblock
 * (5 or 17 bytes, the last the length, 1 to one less than an address's,
 * host bits zero): 0, or -EINVAL for any other key, a /0 included.
 */
int bloom_nb_parse(const u8 *key, u32 len, struct bloom_nb_key *k);

/*
 * Are bits of @addr (of @family) set past the first @plen? Then
 * @addr/@plen is not a netblock as routes take it.
 */
bool bloom_nb_host_bits(u32 family, const u8 *addr, u32 plen);

/*
 * The key of @addr/@plen (@plen at most the full length), its host bits
 * cleared, into @out (BLOOM_NB_KEY_MAX bytes): returns its length, 4, 5,
 * 16 or 17.
 */
u32 bloom_nb_key_make(u32 family, const u8 *addr, u32 plen, u8 *out);

/*
 * The shorter lengths (under the full one) present in @nb for @family,
 * at most @plen, longest first, into @lens (up to 128): their number. @nb
 * may be NULL (none).
 */
u32 bloom_nb_lengths(const struct bloom_netblocks *nb, u32 family, u32 plen,
		     u8 *lens);

/* Lookups an address of @family costs: 1 + the shorter lengths present. */
u32 bloom_nb_lookups(const struct bloom_netblocks *nb, u32 family);

/*
 * Counts @delta (+1 an add, -1 a removal, or a merge's or restore's
 * count) of a key of (@family, @plen). A count never goes under 0, nor
 * over BLOOM_NB_COUNT_MAX, where it stays. Adds may run concurrently;
 * removals are serialised with each other and with adds (counting, d-left
 * writers), merges and restores with every writer.
 */
void bloom_nb_account(struct bloom_netblocks *nb, u32 family, u32 plen,
		      s64 delta);

/* The count of (@family, @plen). */
u64 bloom_nb_count(const struct bloom_netblocks *nb, u32 family, u32 plen);

/*
 * Gives @nb the plan of @family in @bits (bit L: length L, 1 to one less
 * than the full length; none set: no plan): 0, or -EINVAL for a length
 * out of range or more than BLOOM_EXPAND_LENS_MAX. Before the store is
 * published.
 */
int bloom_nb_set_plan(struct bloom_netblocks *nb, u32 family,
		      const unsigned long *bits);

/* Has @family a plan in @nb? */
bool bloom_nb_planned(const struct bloom_netblocks *nb, u32 family);

/* May a netblock of (@family, @plen) be stored in @nb? */
bool bloom_nb_plan_allows(const struct bloom_netblocks *nb, u32 family,
			  u32 plen);

/*
 * Are all of @src's present lengths ones @dst may store (a merge of @src
 * into @dst keeps @dst's plan true)?
 */
bool bloom_nb_plan_holds(const struct bloom_netblocks *dst,
			 const struct bloom_netblocks *src);

/* @dst takes @src's kind-independent plan (a flush, a copy). */
void bloom_nb_copy_plan(struct bloom_netblocks *dst,
			const struct bloom_netblocks *src);

/* Every count and bit to zero (the kind and plan stay); writers held off. */
void bloom_nb_clear(struct bloom_netblocks *nb);

/* @dst gets @src's counts added (a merge); writers of @dst held off. */
void bloom_nb_merge(struct bloom_netblocks *dst,
		    const struct bloom_netblocks *src);

/* Does @nb count any key at all? */
bool bloom_nb_any(const struct bloom_netblocks *nb);

/*
 * The rate an address meets in @lookups tests of rate @fpp_ppb each:
 * 1 - (1 - p)^L in parts per billion, rounded up.
 */
u32 bloom_nb_rate(u32 fpp_ppb, u32 lookups);

/* bloom_nb_query() whatever @nb holds; called by it. */
bool bloom_nb_query_walk(const struct bloom_core *f,
			 const struct bloom_netblocks *nb, u32 family,
			 const u8 *addr, u32 plen);

/* Does @nb (NULL: none) hold no netblock of @family? */
static inline bool bloom_nb_none(const struct bloom_netblocks *nb, u32 family)
{
	u32 w;

	if (!nb)
		return true;
	for (w = 0; w * BITS_PER_LONG < bloom_nb_full(family); w++)
		if (READ_ONCE(nb->present[family][w]))
			return false;
	return true;
}

/*
 * May @addr/@plen (of @family; @plen the full length for an address) be
 * covered by a netblock (or be an address) in @f, whose lengths @nb (may
 * be NULL) holds? Tries the address itself (when @plen is the full
 * length) and then every present length up to @plen, longest first; the
 * memory of all tests is prefetched before the first. Lockless, as
 * bloom_core_query_hash().
 *
 * An address in a filter of addresses only, what most packets meet, is its
 * hash and one test, inline in the caller, without the walk's stack frame
 * and calls (bench-bpfmap: bloom_blocked against bloom_blocked_stop).
 */
static __always_inline bool bloom_nb_query(const struct bloom_core *f,
					   const struct bloom_netblocks *nb,
					   u32 family, const u8 *addr,
					   u32 plen)
{
	if (plen >= bloom_nb_full(family) && bloom_nb_none(nb, family))
		return bloom_core_lookup_hash(f, family == BLOOM_NB_IPV6 ?
					      bloom_core_hash16(f, addr) :
					      bloom_core_hash4(f, addr));
	return bloom_nb_query_walk(f, nb, family, addr, plen);
}

#endif /* BLOOM_CORE_NETBLOCK_H */
