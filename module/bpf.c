// SPDX-License-Identifier: GPL-2.0
/*
 * kfuncs: XDP and tc (SCHED_CLS) programs look keys and addresses up in
 * filters, which they name by id (registry.h) in the network namespace of
 * the packet's device, or, XDP programs, through a hold of the filter
 * they keep in a map (hold.h), which needs no lookup of the id. BPF C
 * declares them with uapi/bloom/bpf.h; Documentation/userspace-api.rst
 * ("BPF programs") is the specification.
 *
 * A call takes no lock and allocates nothing: the id is found in the
 * namespace's table of ids (or the hold is read from the map), and the
 * store the filter holds now is read (filter.h), in the program's RCU
 * read side; the query is the one firewall rules make (store.h): the
 * keyed hash and the filter's test, plus every netblock length the filter
 * holds for an address. It counts the call, a hit or a miss, per CPU in
 * the store's statistics (bpf_calls, bpf_hits).
 *
 * The verifier checks the key pointer and size pair (the "__sz" suffix):
 * a program cannot pass more bytes than it owns. The size may still be 0
 * or larger than a key can be, which the calls refuse with -EINVAL.
 *
 * Registering needs the module's BTF (pahole) with resolved ids
 * (resolve_btfids). A module built without them works as ever, without
 * the kfuncs, and says so once at load.
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/errno.h>
#include <linux/filter.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <net/sock.h>
#include <net/xdp.h>

#include "bpf.h"
#include "filter.h"
#include "hold.h"
#include "registry.h"

/* What a call looks up: a key of any kind, or an address. */
enum bloom_bpf_op {
	BLOOM_BPF_KEY,
	BLOOM_BPF_ADDR,
};

/* -EINVAL for a key the call refuses, before any filter is looked for. */
static int bloom_bpf_check(const void *key, u32 len, enum bloom_bpf_op op)
{
	if (!key || !len)
		return -EINVAL;
	if (op == BLOOM_BPF_ADDR ? len != 4 && len != 16 : len > BLOOM_KEY_MAX)
		return -EINVAL;
	return 0;
}

/*
 * No rcu_read_lock() of its own: XDP and tc programs run in a read-side
 * section (BH disabled, or a test run's rcu_read_lock()), which the reads
 * below check, and under PREEMPT_RCU a nested one is two calls, which
 * were two thirds of the id's lookup (make bench, part xdp).
 */
static int bloom_bpf_query_filter(struct bloom_filter *f, const void *key,
				  u32 len, enum bloom_bpf_op op)
{
	struct bloom_store *s = f ? bloom_filter_store(f) : NULL;
	bool hit;

	if (!s)
		return -ENOENT;
	hit = op == BLOOM_BPF_ADDR ? bloom_store_query_addr(s, key, len) :
				     bloom_store_query(s, key, len);
	if (hit)
		this_cpu_inc(s->stats->bpf_hits);
	else
		this_cpu_inc(s->stats->bpf_misses);
	return hit;
}

static int bloom_bpf_lookup(struct net *net, u32 id, const void *key,
			    u32 len, enum bloom_bpf_op op)
{
	int ret = bloom_bpf_check(key, len, op);

	if (ret)
		return ret;
	return bloom_bpf_query_filter(net ? bloom_registry_find_id(net, id) :
					    NULL, key, len, op);
}

/*
 * Through the slot of a program's map that keeps a hold: the hold there
 * now, if any, is valid until the program's read side ends (hold.c), and
 * so is the filter it holds.
 */
static int bloom_bpf_hold_lookup(struct bloom_xdp_hold **slot,
				 const void *key, u32 len, enum bloom_bpf_op op)
{
	struct bloom_xdp_hold *h;
	int ret = bloom_bpf_check(key, len, op);

	if (ret)
		return ret;
	h = slot ? READ_ONCE(*slot) : NULL;
	return bloom_bpf_query_filter(h ? bloom_hold_filter(h) : NULL, key,
				      len, op);
}

/* The namespace of the device the frame arrived on (nf_conntrack_bpf.c). */
static struct net *bloom_bpf_xdp_net(struct xdp_md *xdp_ctx)
{
	struct xdp_buff *ctx = (struct xdp_buff *)xdp_ctx;

	return dev_net(ctx->rxq->dev);
}

/* The device's namespace, or the socket's for a packet without a device. */
static struct net *bloom_bpf_skb_net(struct __sk_buff *skb_ctx)
{
	struct sk_buff *skb = (struct sk_buff *)skb_ctx;

	if (skb->dev)
		return dev_net(skb->dev);
	return skb->sk ? sock_net(skb->sk) : NULL;
}

/*
 * 1: @key may be in the filter @filter_id of the frame's network
 * namespace, 0: it is not, -ENOENT: no such filter there, -EINVAL: a key
 * size of 0 or above BLOOM_KEY_MAX.
 */
int bpf_bloom_xdp_query(struct xdp_md *ctx, u32 filter_id, const void *key,
			u32 key__sz)
{
	return bloom_bpf_lookup(bloom_bpf_xdp_net(ctx), filter_id, key,
				key__sz, BLOOM_BPF_KEY);
}

/* The same for a tc program's packet. */
int bpf_bloom_skb_query(struct __sk_buff *skb, u32 filter_id, const void *key,
			u32 key__sz)
{
	return bloom_bpf_lookup(bloom_bpf_skb_net(skb), filter_id, key,
				key__sz, BLOOM_BPF_KEY);
}

/*
 * An address, 4 (IPv4) or 16 (IPv6) bytes in network byte order, as the
 * iptables match looks it up: itself and every netblock length the filter
 * holds. -EINVAL for any other size.
 */
int bpf_bloom_xdp_lookup_addr(struct xdp_md *ctx, u32 filter_id,
			      const void *addr, u32 addr__sz)
{
	return bloom_bpf_lookup(bloom_bpf_xdp_net(ctx), filter_id, addr,
				addr__sz, BLOOM_BPF_ADDR);
}

int bpf_bloom_skb_lookup_addr(struct __sk_buff *skb, u32 filter_id,
			      const void *addr, u32 addr__sz)
{
	return bloom_bpf_lookup(bloom_bpf_skb_net(skb), filter_id, addr,
				addr__sz, BLOOM_BPF_ADDR);
}

/*
 * A hold of the filter @filter_id of the frame's namespace for the program
 * on the frame's device (hold.h), or NULL. The program keeps it in a map of
 * its own (bpf_kptr_xchg()): run once by the program's loader with the
 * device as the frame's (BPF_PROG_TEST_RUN's ingress_ifindex), it makes
 * DESTROY of the filter fail with EBUSY for as long as the map is there,
 * which is as long as the program.
 */
struct bloom_xdp_hold *bpf_bloom_xdp_hold(struct xdp_md *ctx, u32 filter_id)
{
	struct xdp_buff *x = (struct xdp_buff *)ctx;

	return bloom_hold_new(dev_net(x->rxq->dev), filter_id,
			      x->rxq->dev->ifindex);
}

/*
 * Ends a hold; also the destructor the kernel calls for each slot of the
 * map when the map goes, an empty one too (with NULL).
 */
void bpf_bloom_xdp_hold_release(struct bloom_xdp_hold *hold)
{
	if (hold)
		bloom_hold_put(hold);
}

/*
 * Through a hold the program keeps in its map: @hold is the address of
 * the map value's field (struct bloom_xdp_hold __kptr_ref *), which the
 * verifier checks (KF_KPTR_GET); the filter is the one the hold names,
 * whatever store it has now, without a lookup of its id. 1, 0 or -EINVAL
 * as bpf_bloom_xdp_query(); -ENOENT: the slot holds nothing, or the filter
 * it holds is destroyed.
 */
int bpf_bloom_hold_query(struct bloom_xdp_hold **hold, const void *key,
			 u32 key__sz)
{
	return bloom_bpf_hold_lookup(hold, key, key__sz, BLOOM_BPF_KEY);
}

/* An address, as bpf_bloom_xdp_lookup_addr() looks it up. */
int bpf_bloom_hold_lookup_addr(struct bloom_xdp_hold **hold,
			       const void *addr, u32 addr__sz)
{
	return bloom_bpf_hold_lookup(hold, addr, addr__sz, BLOOM_BPF_ADDR);
}

/* Each program type gets the calls that take its context. */
BTF_SET8_START(bloom_xdp_kfunc_ids)
BTF_ID_FLAGS(func, bpf_bloom_xdp_query)
BTF_ID_FLAGS(func, bpf_bloom_xdp_lookup_addr)
BTF_ID_FLAGS(func, bpf_bloom_xdp_hold, KF_ACQUIRE | KF_RET_NULL)
BTF_ID_FLAGS(func, bpf_bloom_xdp_hold_release, KF_RELEASE)
BTF_ID_FLAGS(func, bpf_bloom_hold_query, KF_KPTR_GET)
BTF_ID_FLAGS(func, bpf_bloom_hold_lookup_addr, KF_KPTR_GET)
BTF_SET8_END(bloom_xdp_kfunc_ids)

/* A hold kept in a map is let go of by the kernel through its destructor. */
BTF_ID_LIST(bloom_hold_dtor_ids)
BTF_ID(struct, bloom_xdp_hold)
BTF_ID(func, bpf_bloom_xdp_hold_release)

BTF_SET8_START(bloom_skb_kfunc_ids)
BTF_ID_FLAGS(func, bpf_bloom_skb_query)
BTF_ID_FLAGS(func, bpf_bloom_skb_lookup_addr)
BTF_SET8_END(bloom_skb_kfunc_ids)

static const struct btf_kfunc_id_set bloom_xdp_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &bloom_xdp_kfunc_ids,
};

static const struct btf_kfunc_id_set bloom_skb_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &bloom_skb_kfunc_ids,
};

/* resolve_btfids fills the ids in at build time; 0: it did not run. */
static bool bloom_bpf_ids_resolved(const struct btf_id_set8 *set)
{
	u32 i;

	for (i = 0; i < set->cnt; i++)
		if (!set->pairs[i].id)
			return false;
	return set->cnt;
}

void bloom_bpf_init(void)
{
	int ret;

#if IS_ENABLED(CONFIG_DEBUG_INFO_BTF_MODULES)
	if (!THIS_MODULE->btf_data_size) {
		pr_info("built without BTF (pahole): BPF programs cannot call bloom's kfuncs; everything else works\n");
		return;
	}
#else
	pr_info("the kernel has no module BTF (CONFIG_DEBUG_INFO_BTF_MODULES): BPF programs cannot call bloom's kfuncs; everything else works\n");
	return;
#endif
	if (!bloom_bpf_ids_resolved(&bloom_xdp_kfunc_ids) ||
	    !bloom_bpf_ids_resolved(&bloom_skb_kfunc_ids)) {
		pr_info("built without resolve_btfids: BPF programs cannot call bloom's kfuncs; everything else works\n");
		return;
	}
	ret = register_btf_kfunc_id_set(BPF_PROG_TYPE_XDP,
					&bloom_xdp_kfunc_set);
	if (!ret)
		ret = register_btf_kfunc_id_set(BPF_PROG_TYPE_SCHED_CLS,
						&bloom_skb_kfunc_set);
	if (!ret) {
		const struct btf_id_dtor_kfunc dtors[] = {
			{ .btf_id = bloom_hold_dtor_ids[0],
			  .kfunc_btf_id = bloom_hold_dtor_ids[1] },
		};

		ret = register_btf_id_dtor_kfuncs(dtors, ARRAY_SIZE(dtors),
						  THIS_MODULE);
	}
	if (ret)
		pr_warn("registering the BPF kfuncs failed (%d): BPF programs cannot call them; everything else works\n",
			ret);
}
