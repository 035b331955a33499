/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A filter's storage (store*.c): struct bloom_store, what a filter holds,
 * charged to an account (account.h). The store is the one place above
 * the filter core (module/core/) that knows the variants of a filter:
 *
 *   plain     one core of any type: standard, blocked, counting, d-left, or
 *             timed (a timeout per key, emptied by a sweep)
 *   chain     a scalable filter's stages, each a core of its own behind the
 *             store's core (the chain's policy is module/core/scale.c's)
 *   ring      an expiring filter's generations over one allocation, which
 *             a rotation clears in turn (the policy is module/core/expire.c's)
 *
 * and what any of them may hold: strings, or addresses and netblocks
 * (module/core/netblock.h) whose lengths it counts. Whoever holds a store
 * (filter.h) makes one from a description (bloom_store_create()), asks it
 * to apply a batch (bloom_store_write(), bloom_store_query_*()), to
 * describe itself (INFO, STAGES, sysfs: store_info.c; snapshots:
 * store_image.c), and publishes, replaces and retires it; it never looks
 * at a variant's fields. The files:
 *
 *   store.c        making, freeing and growing a store
 *   store_change.c merging, flushing, replacing one store by another
 *   store_spec.c   a description from a CREATE request (the uapi's)
 *   store_batch.c  the second pass of a batch: adds, deletes, queries
 *   store_addr.c   keys read as addresses and netblocks, and their counts
 *   store_info.c   INFO, STAGES and the values sysfs shows
 *   store_image.c  a store into a snapshot image and back
 *   store_work.c   the background work: a ring's rotation, a timed
 *                  table's sweep
 */
#ifndef BLOOM_STORE_H
#define BLOOM_STORE_H

#include <linux/bits.h>
#include <linux/percpu.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/bloom.h>

#include "account.h"
#include "core.h"
#include "expire.h"
#include "scale.h"
#include "map.h"
#include "netblock.h"

struct bloom_store_work;
struct bloom_image_header;
struct vm_area_struct;

/*
 * Hot-path counters, per CPU. A lookup bumps one of its pair (hit or miss),
 * never a total and a hit apart: a reader summing the CPUs while lookups go
 * on would otherwise see a hit whose lookup it had not counted yet, and
 * report more hits than lookups. Totals are sums of their pair, made when
 * read (struct bloom_stats_sum).
 */
struct bloom_stats {
	u64 adds;
	u64 hits;
	u64 query_misses;
	u64 deletes;
	u64 delete_misses;
	u64 delete_pinned;
	u64 packet_hits;	/* checked by firewall rules (xt_bloom) */
	u64 packet_misses;
	u64 bpf_hits;		/* lookups by BPF programs (bpf.c) */
	u64 bpf_misses;
};

/* struct bloom_stats summed over the CPUs, with each pair's total. */
struct bloom_stats_sum {
	u64 adds;
	u64 queries;
	u64 hits;		/* of the queries, keys that may be present */
	u64 deletes;
	u64 delete_misses;
	u64 delete_pinned;
	u64 packets;
	u64 packet_hits;
	u64 bpf_calls;
	u64 bpf_hits;
};

/**
 * struct bloom_store - what a filter holds
 * @core: the core filter: geometry, hash key, @core.words into @mem, or
 *	the head of a chain of stages (@scale) or of a ring of generations
 * @mem: the allocation behind @core.words (a ring's generations too);
 *	NULL for a chain and for a mappable store
 * @map: a standard or blocked store of one table: the mappable area
 *	(map.h) that holds @core.words; else NULL
 * @acct: what @memory_bytes is charged to (account.h): the account of the
 *	namespace whose filter holds the store; the store never outlives
 *	its bytes' release (bloom_store_retire() gives them back at once)
 * @stats: what was done to this store, per CPU
 * @memory_bytes: charged against max_memory: the storage, the statistics
 *	and this struct; a chain's grows with its stages (WRITE_ONCE by the
 *	one who grows it, see bloom_store_grow())
 * @free_work: frees the store after a grace period
 * @scale: a chain's stages, behind @core.scale. Stages are only added, by
 *	one grower at a time, and go with the store.
 * @nb: the key kind and the netblock lengths of the keys (netblock.h):
 *	what the store holds, so they go with it (swap, replace, snapshots)
 * @work: a ring's rotation or a timed table's sweep (store_work.c); else
 *	NULL. It goes with the store (swap, replace) and stops before the
 *	store is freed.
 * @features: BLOOM_STORE_F_*, set when the store is made
 */
struct bloom_store {
	struct bloom_core core;
	void *mem;
	struct bloom_map *map;
	struct bloom_account *acct;
	struct bloom_stats __percpu *stats;
	u64 memory_bytes;
	struct rcu_work free_work;
	struct bloom_scale scale;
	struct bloom_netblocks nb;
	struct bloom_store_work *work;
	u32 features;
};

/* The shapes of a store (struct bloom_store_spec's @shape). */
enum bloom_store_shape {
	BLOOM_STORE_PLAIN,
	BLOOM_STORE_CHAIN,
	BLOOM_STORE_RING,
};

/**
 * struct bloom_store_spec - everything a store is made from
 * @shape: enum bloom_store_shape
 * @geo: a plain store's geometry (BLOOM_STORE_PLAIN)
 * @scale: a chain's parameters (BLOOM_STORE_CHAIN)
 * @expire: a ring's parameters (BLOOM_STORE_RING)
 * @key_timeout_s: a timed store's default timeout of a key; 0: none
 * @key_timeout_max_s: a timed store's largest; 0: BLOOM_KEY_TIMEOUT_MAX
 * @keys: the key kind (enum bloom_key_kind); 0: set by the first add
 * @plan: per family, the netblock lengths it may hold (netblock.h)
 * @has_key: @hash_key is the hash key; else a random one is drawn
 * @hash_key: the SipHash key's bytes
 * @hash: the keyed hash, enum bloom_core_hash_id
 * @placement: a timed table's, enum bloom_core_placement: 0 (the current
 *	one) but for a store restored from an older snapshot, or like one
 */
struct bloom_store_spec {
	u32 shape;
	struct bloom_geometry geo;
	struct bloom_scale_params scale;
	struct bloom_expire_params expire;
	u32 key_timeout_s;
	u32 key_timeout_max_s;
	u32 keys;
	unsigned long plan[2][128 / BITS_PER_LONG];
	bool has_key;
	u8 hash_key[BLOOM_CORE_HASH_KEY_LEN];
	u32 hash;
	u32 placement;
};

/*
 * A new, empty store of @spec (checked: bloom_store_spec_decode() or
 * bloom_store_spec_of() made it), its bytes charged to @acct:
 * ERR_PTR(-EDQUOT) over a limit (account.h), ERR_PTR(-ENOMEM), -EINVAL for
 * a ring rotating more than BLOOM_NETNS_ROTATIONS_HZ times a second in a
 * namespace other than the initial one, -ENOSPC/-E2BIG from a chain's first
 * stage. With @start its background work runs (a ring's rotation, a timed
 * table's sweep); without, a restore fills it first and then calls
 * bloom_store_start(). Sleeps.
 */
struct bloom_store *bloom_store_create(struct bloom_account *acct,
				       const struct bloom_store_spec *spec,
				       bool start);
void bloom_store_start(struct bloom_store *s);
/*
 * The description of @s (its hash key included, which the caller wipes),
 * for a store like it: CREATE's like, a chain's flush. Under RCU.
 */
void bloom_store_spec_of(const struct bloom_store *s,
			 struct bloom_store_spec *spec);
/*
 * CREATE's request (bloom.h's struct bloom_create; its name is the
 * caller's) as a description: 0, or the uapi header's errno for it. A
 * request with BLOOM_CREATE_F_LIKE is only checked (the sizing fields 0):
 * the caller fills @spec from the model (bloom_store_spec_of()) and gives
 * it the request's key kind, if any.
 */
int bloom_store_spec_decode(const struct bloom_create *c,
			    struct bloom_store_spec *spec);

/*
 * Rotations a second an expiring filter of a network namespace other than
 * the initial one may make at most: its period, timeout / (G - 1), is at
 * least a quarter of a second.
 */
#define BLOOM_NETNS_ROTATIONS_HZ	4

/* What a store has besides a plain filter's (its sysfs files show them). */
#define BLOOM_STORE_F_DELETES	BIT(0)	/* counting, d-left, timed */
#define BLOOM_STORE_F_CELLS	BIT(1)	/* d-left, timed: subtables of cells */
#define BLOOM_STORE_F_TIMEOUTS	BIT(2)	/* timed: a timeout per key */
#define BLOOM_STORE_F_STAGES	BIT(3)	/* a chain */
#define BLOOM_STORE_F_ROTATES	BIT(4)	/* a ring */

/* @s's BLOOM_STORE_F_*: never change while it lives. */
static inline u32 bloom_store_features(const struct bloom_store *s)
{
	return s->features;
}

/* enum bloom_type of @s. */
static inline u32 bloom_store_type(const struct bloom_store *s)
{
	return s->core.geo.type;
}

/* The key kind of @s, 0 while none was given. Any context. */
static inline u32 bloom_store_kind(const struct bloom_store *s)
{
	return READ_ONCE(s->nb.kind);
}

/*
 * Frees a store that was never published, at once (one with background
 * work: its bytes at once, the rest once the work stopped, as a retired
 * store).
 */
void bloom_store_discard(struct bloom_store *s);
/*
 * Frees a store that was published, once every reader that may have found
 * it is gone (an RCU grace period); its bytes are given back at once, so
 * that a destroy followed by a create of the same size works. Never waits.
 */
void bloom_store_retire(struct bloom_store *s);

/*
 * @new is about to take @old's place (a replace: a restore): 0 when it may
 * (the same key kind, or one not known; a store of no kind takes
 * @old's), -EPROTOTYPE.
 */
int bloom_store_adopt(struct bloom_store *new, const struct bloom_store *old);
/* Two stores may trade places (a swap): 0 or -EPROTOTYPE. */
int bloom_store_kinds_meet(const struct bloom_store *a,
			   const struct bloom_store *b);
/*
 * @dst becomes the union of @dst and @src: two plain stores bit by bit
 * (bloom_core_merge()), two rings generation by generation, two chains
 * stage by stage (@dst first getting the stages it lacks), with the
 * netblock counts. -EINVAL for stores that differ (type, geometry, hash
 * key, parameters, prefix lengths @dst does not hold), -EOPNOTSUPP (d-left
 * and timed, a chain and a store that is not), -EPROTOTYPE (key kinds),
 * -EDQUOT or -ENOMEM (a stage @dst lacked: the ones added stay, empty).
 * Writers of both held off by the caller (their filters' write locks).
 */
int bloom_store_merge(struct bloom_store *dst, struct bloom_store *src);
/*
 * Every key and statistic of @s to zero: in place (*@fresh NULL), or for a
 * chain a new store of the same description with its first stage only, in
 * *@fresh, which the caller publishes in place of @s and then retires @s
 * (stages are never taken away from a store lock-free readers may hold).
 * -EDQUOT or -ENOMEM, and nothing changed, when the new first stage does
 * not fit beside the old stages. Writers held off by the caller.
 */
int bloom_store_flush(struct bloom_store *s, struct bloom_store **fresh);

/*
 * Keys a batch applies to a store in one RCU read section, between
 * yields; a multiple of 8, one results byte per 8 keys.
 */
#define BLOOM_STORE_CHUNK	1024

/* The operations of a batch. */
enum bloom_store_op {
	BLOOM_STORE_QUERY,
	BLOOM_STORE_ADD,
	BLOOM_STORE_DELETE,
};

/**
 * struct bloom_addrs - a batch's keys as addresses and netblocks
 *	(store_addr.c), when the batch asks for it (BLOOM_BATCH_F_NET) or the
 *	filter's key kind implies it
 * @on: the keys are read as addresses and netblocks
 * @implied: by the filter's kind, not asked for
 * @query: keep the keys (@keys), not their lengths: a QUERY looks each up
 *	over the lengths the store holds
 * @family: the batch's (one family a batch)
 * @kind: the filter's, when the batch began
 * @plens: ADD, DELETE: each key's prefix length
 * @keys: QUERY: each key
 */
struct bloom_addrs {
	bool on;
	bool implied;
	bool query;
	u8 family;
	u32 kind;
	u8 *plens;
	struct bloom_nb_key *keys;
};

/*
 * Whether a batch of @flags (BLOOM_BATCH_F_*) against a filter of key kind
 * @a->kind is of addresses: 0 or -EPROTOTYPE (a filter of strings).
 */
int bloom_addrs_mode(struct bloom_addrs *a, u32 flags, enum bloom_store_op op);
/*
 * bloom_addrs_mode() and room for what the first pass keeps of @n keys:
 * 0, -EPROTOTYPE, -ENOMEM. bloom_addrs_free() frees it.
 */
int bloom_addrs_setup(struct bloom_addrs *a, u32 flags, enum bloom_store_op op,
		      u32 n);
void bloom_addrs_free(struct bloom_addrs *a);
/*
 * Key @i read as an address or netblock, kept in slot @slot: -EINVAL when
 * it is none or of the batch's other family, -EPROTOTYPE when the filter's
 * kind (not the caller) asked for addresses or the family is not the kind's.
 */
int bloom_addrs_read(struct bloom_addrs *a, const u8 *key, u32 len, u32 i,
		     u32 slot);

/**
 * struct bloom_store_write - an ADD or DELETE's second pass
 * @op: BLOOM_STORE_ADD or BLOOM_STORE_DELETE
 * @n: keys
 * @hashes: each key's hash, with @s's hash key
 * @addrs: the keys as addresses and netblocks (their lengths counted)
 * @results: a bit per key (an ADD: it was new; a DELETE: removed), or NULL
 * @pinned: DELETE: a bit per key pinned by a saturated counter, or NULL
 * @timed: ADD with keys' own timeouts: each key's in @timeouts or, NULL,
 *	@timeout_s for all
 * @done: out: keys applied (also on failure: what went in stays)
 * @hits: out: of those, the results bits set
 * @npinned: out: DELETE, keys pinned
 * @partial: out: failed after @done keys went in
 */
struct bloom_store_write {
	enum bloom_store_op op;
	u32 n;
	const u64 *hashes;
	const struct bloom_addrs *addrs;
	u8 *results;
	u8 *pinned;
	bool timed;
	u32 timeout_s;
	const u32 *timeouts;
	u32 done;
	u32 hits;
	u32 npinned;
	bool partial;
};

/*
 * Applies @w to @s, which its filter's write lock keeps published: checks
 * first what the keys need of the store (key kind, prefix lengths, keys'
 * timeouts: -EPROTOTYPE, -EDOM, -EOPNOTSUPP, -EINVAL, nothing changed),
 * then adds or deletes a chunk at a time under RCU, growing a chain whose
 * newest stage is full; -ENOSPC (a d-left or timed table with no room for
 * a key, a chain that cannot grow), -EDQUOT, -ENOMEM with @w->partial.
 * Counts what it did. Sleeps.
 */
int bloom_store_write(struct bloom_store *s, struct bloom_store_write *w);
/* Whether @s deletes keys (counting, d-left, timed). Any context. */
bool bloom_store_can_delete(const struct bloom_store *s);

/* @len bytes of @key hashed with @s's hash key. Any context. */
static inline u64 bloom_store_hash(const struct bloom_store *s,
				   const void *key, u32 len)
{
	return bloom_core_hash(&s->core, key, len);
}

/* Whether @s hashes with @key (a batch hashed with it may be applied). */
bool bloom_store_keyed(const struct bloom_store *s, const bloom_hash_key_t *key);

/*
 * QUERY of @n keys by their hashes, or of @n addresses and netblocks
 * (bloom_addrs_read() read them); under RCU. Results from bit 0 of
 * @results (NULL: none wanted); the hits. Counts nothing:
 * bloom_store_count_queries() does once the answers reached the caller.
 */
u32 bloom_store_query_hashes(const struct bloom_store *s, const u64 *hashes,
			     u32 n, u8 *results);
u32 bloom_store_query_addrs(const struct bloom_store *s,
			    const struct bloom_nb_key *k, u32 n, u8 *results);
void bloom_store_count_queries(struct bloom_store *s, u32 done, u32 hits);

/*
 * May the @len-byte @key be in @s? One lookup of the packet paths (rules,
 * BPF programs), under RCU, no lock, no sleep: the test stops at the first
 * clear bit (bloom_core_lookup_hash()). Counts nothing.
 */
static inline bool bloom_store_query(const struct bloom_store *s,
				     const void *key, u32 len)
{
	return bloom_core_lookup_hash(&s->core,
				      bloom_core_hash(&s->core, key, len));
}

/*
 * May the address @addr (@len 4: IPv4, 16: IPv6, the caller checked) be
 * in @s, itself or inside a netblock it holds (bloom_nb_query())? As
 * bloom_store_query().
 */
static inline bool bloom_store_query_addr(const struct bloom_store *s,
					  const void *addr, u32 len)
{
	return bloom_nb_query(&s->core, &s->nb,
			      len == 16 ? BLOOM_NB_IPV6 : BLOOM_NB_IPV4,
			      addr, len * 8);
}

/*
 * Around a change of what @s holds that is not an add (map.h: the
 * mapping's sequence number), by its writers; nothing without a mapping.
 * bloom_store_unpublished() inside such a change: the filter no longer
 * holds @s (destroyed, or replaced).
 */
static inline void bloom_store_changing(struct bloom_store *s)
{
	if (s->map)
		bloom_map_change_begin(s->map);
}

static inline void bloom_store_changed(struct bloom_store *s)
{
	if (s->map)
		bloom_map_change_end(s->map);
}

static inline void bloom_store_unpublished(struct bloom_store *s)
{
	if (s->map)
		bloom_map_set_stale(s->map);
}

/*
 * The key kind of @s was set: the mapping's header says it too, as a
 * change (bloom_store_changing()) when readers may see @s already and the
 * caller is not inside a change of its own.
 */
static inline void bloom_store_keys_changed(struct bloom_store *s,
					    bool published)
{
	if (s->map)
		bloom_map_set_keys(s->map, READ_ONCE(s->nb.kind), published);
}

/*
 * Maps @s's table into @vma read-only (map.h): -EOPNOTSUPP for a store that
 * cannot be mapped, else bloom_map_vma()'s. Under RCU.
 */
int bloom_store_map_vma(struct bloom_store *s, struct vm_area_struct *vma);

/*
 * The statistics, summed over CPUs while they change: each count at least
 * what it was when the call began and at most what it is when it returns,
 * and no hit count above its total (a total is summed from the very hits
 * it is reported with).
 */
void bloom_store_sum_stats(const struct bloom_store *s,
			   struct bloom_stats_sum *sum);

/*
 * store_info.c: what @s says of itself, under RCU. INFO's fields that a
 * store knows (all but the name, the id and the holders: filter.c's;
 * memory_bytes is the store's own, which the filter adds its own to);
 * STAGES' entries, a chain's stages or a ring's generations, oldest first,
 * into @out (BLOOM_SCALE_STAGES_MAX entries, zeroed): their number, or
 * -EOPNOTSUPP for a plain store; the netblocks of one length it holds.
 */
void bloom_store_info(const struct bloom_store *s, struct bloom_info *info);
int bloom_store_stages(const struct bloom_store *s, struct bloom_stage *out);
u64 bloom_store_netblocks(const struct bloom_store *s, bool ipv6, u32 len);

/*
 * store_image.c: snapshots (module/core/snapshot.h has the format). SAVE:
 * the header of @s now, then its image (header and payload, @h's size)
 * into @buf, one point in time; both under the filter's write lock.
 * RESTORE: a store from an image whose header @hdr was read into @h, its
 * payload copied from @upayload and checked; what expired since the save
 * gone, its background work started; not published. ERR_PTR(-EBADMSG) for
 * a payload that does not check, -EFAULT, -EINTR, and the errors of
 * bloom_store_create().
 */
void bloom_store_image_header(const struct bloom_store *s,
			      struct bloom_image_header *h);
void bloom_store_image_write(struct bloom_store *s,
			     struct bloom_image_header *h, u8 *buf);
struct bloom_store *bloom_store_from_image(struct bloom_account *acct,
					   const struct bloom_image_header *h,
					   const u8 *hdr,
					   const u8 __user *upayload);

/*
 * The next rotation of a ring, run in the calling task as soon as it is
 * due (a period at most), not in the workqueue: for tests (debug.c), so
 * that the task's fault injection sees what a rotation allocates. The
 * filter's write lock keeps @s published and flush and merge away. 0 when
 * it ran; -EOPNOTSUPP (not a ring), -EINTR, -EAGAIN (still not due after a
 * few periods).
 */
int bloom_store_rotate_now(struct bloom_store *s);

/*
 * Module init and exit: the workqueue the stores' background work, their
 * freeing and the XDP holds' puts run on (bloom_store_queue_rcu()).
 */
int bloom_store_init(void);
/* Waits until every retired store has been freed. */
void bloom_store_exit(void);
/*
 * From any context: queues @rwork on the module's workqueue (unbound: it
 * may sleep long) after an RCU grace period, when no reader that saw what
 * it frees is left.
 */
void bloom_store_queue_rcu(struct rcu_work *rwork);
/*
 * Runs what is queued now or waits for a grace period to be queued (the
 * XDP holds' puts): first thing at module exit, before the filters go.
 */
void bloom_store_drain(void);

#endif /* BLOOM_STORE_H */
