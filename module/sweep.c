// SPDX-License-Identifier: GPL-2.0
/*
 * The sweeps of timed stores (sweep.h has the rules): which cells are
 * expired is the core's (bloom_timed_sweep()); this file walks the table
 * in chunks under the store's sweep lock and arms the next pass.
 */
#include <linux/jiffies.h>
#include <linux/sched.h>

#include "sweep.h"

static struct workqueue_struct *bloom_sweep_wq;

static void bloom_sweep_pass(struct work_struct *work)
{
	struct bloom_sweep *w = container_of(to_delayed_work(work),
					     struct bloom_sweep, work);
	u64 b, n = bloom_timed_buckets(w->core);

	for (b = 0; b < n; b += BLOOM_SWEEP_CHUNK) {
		mutex_lock(&w->lock);
		if (READ_ONCE(w->dying)) {
			mutex_unlock(&w->lock);
			return;
		}
		bloom_timed_sweep(w->core, b, BLOOM_SWEEP_CHUNK, bloom_clock_s());
		mutex_unlock(&w->lock);
		cond_resched();
	}
	mutex_lock(&w->lock);
	if (!READ_ONCE(w->dying))
		queue_delayed_work(bloom_sweep_wq, &w->work,
				   BLOOM_SWEEP_PERIOD_S * HZ);
	mutex_unlock(&w->lock);
}

void bloom_sweep_init(struct bloom_sweep *w, struct bloom_core *core)
{
	mutex_init(&w->lock);
	INIT_DELAYED_WORK(&w->work, bloom_sweep_pass);
	w->core = core;
	w->dying = false;
}

void bloom_sweep_start(struct bloom_sweep *w)
{
	queue_delayed_work(bloom_sweep_wq, &w->work, BLOOM_SWEEP_PERIOD_S * HZ);
}

void bloom_sweep_stop(struct bloom_sweep *w)
{
	mutex_lock(&w->lock);
	WRITE_ONCE(w->dying, true);
	mutex_unlock(&w->lock);
	/* a pass running now sees @dying before it arms again */
	cancel_delayed_work_sync(&w->work);
	mutex_destroy(&w->lock);
}

int bloom_sweep_module_init(void)
{
	/* unbound: a pass reads memory and sleeps, no CPU of its own */
	bloom_sweep_wq = alloc_workqueue("bloom_sweep", WQ_UNBOUND, 0);
	return bloom_sweep_wq ? 0 : -ENOMEM;
}

void bloom_sweep_module_exit(void)
{
	destroy_workqueue(bloom_sweep_wq);
}
