// SPDX-License-Identifier: GPL-2.0
/*
 * XDP programs' holds of filters (hold.h). A hold is one of the filter's
 * holders (filter.h) at once, and takes and puts a reference of the
 * filter's contents; the put may destroy and free (it sleeps), so it is
 * left to a work item on the module's workqueue (store.h): a hold ends in
 * an XDP program or in the kernel's freeing of a map, neither of which
 * may sleep. The work runs after an RCU grace period: a program on
 * another CPU may have read the hold from its map (bpf_bloom_hold_query())
 * just before it was exchanged out and let go, and reads it and its
 * filter until its read side ends.
 */
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "alloc.h"
#include "filter.h"
#include "hold.h"
#include "registry.h"
#include "store.h"

struct bloom_xdp_hold {
	struct bloom_filter *f;
	struct rcu_work put;
};

static void bloom_hold_free(struct work_struct *work)
{
	struct bloom_xdp_hold *h = container_of(to_rcu_work(work),
						struct bloom_xdp_hold, put);

	bloom_filter_put(h->f);
	bloom_kfree(h);
}

struct bloom_xdp_hold *bloom_hold_new(struct net *net, u32 id, int ifindex)
{
	struct bloom_xdp_hold *h;
	struct bloom_filter *f;

	h = bloom_kzalloc(sizeof(*h), GFP_ATOMIC | __GFP_NOWARN);
	if (!h)
		return NULL;
	INIT_RCU_WORK(&h->put, bloom_hold_free);
	rcu_read_lock();
	f = net ? bloom_registry_find_id(net, id) : NULL;
	/* a filter whose last user is going is as good as gone */
	if (f && !refcount_inc_not_zero(&f->users))
		f = NULL;
	rcu_read_unlock();
	if (!f) {
		bloom_kfree(h);
		return NULL;
	}
	h->f = f;
	WRITE_ONCE(f->xdp_ifindex, ifindex);
	bloom_filter_hold(f, BLOOM_HOLD_XDP);
	/* destroyed meanwhile (DESTROY saw no hold yet): no hold either */
	rcu_read_lock();
	if (!bloom_filter_store(f)) {
		rcu_read_unlock();
		bloom_hold_put(h);
		return NULL;
	}
	rcu_read_unlock();
	return h;
}

void bloom_hold_put(struct bloom_xdp_hold *h)
{
	bloom_filter_unhold(h->f, BLOOM_HOLD_XDP);
	bloom_store_queue_rcu(&h->put);
}

struct bloom_filter *bloom_hold_filter(const struct bloom_xdp_hold *h)
{
	return h->f;
}
