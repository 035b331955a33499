// SPDX-License-Identifier: GPL-2.0
/*
 * A store's background work (store_internal.h has the rules): a ring's
 * rotation and a timed table's sweep, one delayed work per store on one
 * workqueue, which also frees retired stores and lets XDP holds go
 * (bloom_store_queue_rcu()). The policies are the core's: which generation to
 * clear and when (module/core/expire.c), which cells expired
 * (module/core/timed.c); this file reads the clock, arms the work, waits
 * for the grace period that seals a generation and walks a table in
 * chunks.
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/timekeeping.h>

#include "store_internal.h"

/*
 * Unbound: a rotation clears memory and sleeps over a grace period, a
 * sweep reads a table, a free waits for a rotation to stop; none needs a
 * CPU of its own, and none waits for another item of the queue but by
 * cancelling it (max_active is the default, far over what runs at once).
 */
static struct workqueue_struct *bloom_wq;

u64 bloom_work_now_ns(void)
{
	return ktime_get_boottime_ns();
}

static bool bloom_work_is_ring(const struct bloom_store_work *w)
{
	return bloom_core_is_expiring(w->core);
}

size_t bloom_work_bytes(u32 shape, u32 type)
{
	if (shape == BLOOM_STORE_RING)
		return struct_size((struct bloom_store_work *)NULL, ring, 1);
	if (shape != BLOOM_STORE_RING && type == BLOOM_CORE_TIMED)
		return sizeof(struct bloom_store_work);
	return 0;
}

static u64 bloom_work_late_ns(const struct bloom_store_work *w)
{
	/* a period / 100, at least two jiffies: a timer's own slack is one */
	return max_t(u64, div_u64(w->ring->period_ns, 100), 2 * TICK_NSEC);
}

/* Arms the work for the next due rotation or sweep; under @w->lock. */
static void bloom_work_arm(struct bloom_store_work *w)
{
	u64 due, now;
	unsigned long delay = 0;

	if (READ_ONCE(w->dying))
		return;
	if (!bloom_work_is_ring(w)) {
		queue_delayed_work(bloom_wq, &w->work,
				   BLOOM_SWEEP_PERIOD_S * HZ);
		return;
	}
	due = bloom_expire_due(w->core);
	now = bloom_work_now_ns();
	/* never: the oldest is not sealed yet; look again a period later */
	if (due == BLOOM_EXPIRE_NEVER)
		due = now + w->ring->period_ns;
	/* a jiffy more: a timer never fires early, so never before @due */
	if (due > now)
		delay = nsecs_to_jiffies(due - now) + 1;
	queue_delayed_work(bloom_wq, &w->work, delay);
}

/*
 * One rotation when it is due: true if it ran. Not due yet (a flush or
 * merge moved an expiry): false, and the work is armed for when it is.
 */
static bool bloom_work_rotate(struct bloom_store_work *w)
{
	struct bloom_core *f = w->core;
	bool rotated = false;
	u64 due, start, newest;
	u32 g, old;

	mutex_lock(&w->lock);
	if (READ_ONCE(w->dying))
		goto unlock;
	due = bloom_expire_due(f);
	start = bloom_work_now_ns();
	if (due > start)
		goto arm;
	g = bloom_expire_unlink_oldest(f);
	bloom_core_clear(&w->ring->gen[g].core);
	newest = bloom_work_now_ns();
	old = bloom_expire_make_newest(f, g, newest);
	mutex_unlock(&w->lock);
	/*
	 * Adds run under RCU and add to the newest they read: after a grace
	 * period none still adds to @old, so every key in it was added
	 * before the time read next, which starts its timeout.
	 */
	synchronize_rcu();
	mutex_lock(&w->lock);
	bloom_expire_seal(f, old, bloom_work_now_ns());
	/*
	 * What lengthens lives: starting after @due (the keys cleared now
	 * lived that much longer) and sealing after the generation stopped
	 * being the newest (its keys' timeouts count from the seal).
	 */
	if (start - due + (bloom_work_now_ns() - newest) > bloom_work_late_ns(w))
		atomic64_inc(&w->late);
	rotated = true;
arm:
	bloom_work_arm(w);
unlock:
	mutex_unlock(&w->lock);
	return rotated;
}

void bloom_work_timed_catch_up(struct bloom_store_work *w)
{
	struct bloom_core *t[BLOOM_CORE_STAGES_MAX];
	u64 now = bloom_clock_s(), gap;
	u32 i, n;

	gap = now > w->active_s ? now - w->active_s : 0;
	if (w->active_s && gap > BLOOM_TIMED_GAP_S) {
		n = bloom_store_timed_tables(w->core, t);
		/* with the largest timeout there is, no cell is refused */
		for (i = 0; i < n; i++)
			bloom_timed_rebase(t[i], w->active_s, gap,
					   BLOOM_CORE_KEY_TIMEOUT_MAX);
	}
	w->active_s = now;
}

/*
 * One pass of the sweep over every table (a chain's stages one after the
 * other), the stages it emptied dropped, then the next pass armed.
 */
static void bloom_work_sweep(struct bloom_store_work *w)
{
	struct bloom_core *t[BLOOM_CORE_STAGES_MAX];
	u32 i, nt;
	u64 b, n;

	mutex_lock(&w->lock);
	nt = bloom_store_timed_tables(w->core, t);
	mutex_unlock(&w->lock);
	for (i = 0; i < nt; i++) {
		n = bloom_timed_buckets(t[i]);
		for (b = 0; b < n; b += BLOOM_SWEEP_CHUNK) {
			mutex_lock(&w->lock);
			if (READ_ONCE(w->dying)) {
				mutex_unlock(&w->lock);
				return;
			}
			bloom_work_timed_catch_up(w);
			bloom_timed_sweep(t[i], b, BLOOM_SWEEP_CHUNK);
			mutex_unlock(&w->lock);
			cond_resched();
		}
	}
	mutex_lock(&w->lock);
	if (!READ_ONCE(w->dying))
		bloom_store_drop_empty_stages(w->core);
	bloom_work_arm(w);
	mutex_unlock(&w->lock);
}

static void bloom_work_run(struct work_struct *work)
{
	struct bloom_store_work *w = container_of(to_delayed_work(work),
						  struct bloom_store_work, work);

	if (bloom_work_is_ring(w))
		bloom_work_rotate(w);
	else
		bloom_work_sweep(w);
}

int bloom_work_rotate_now(struct bloom_store_work *w)
{
	u64 due, now;
	int tries;

	/* a few periods at most: the first wait reaches the due time */
	for (tries = 0; tries < 4; tries++) {
		/* the work would run it: this task takes the rotation over */
		cancel_delayed_work_sync(&w->work);
		due = bloom_expire_due(w->core);
		now = bloom_work_now_ns();
		if (due == BLOOM_EXPIRE_NEVER)
			due = now + w->ring->period_ns;
		if (due > now &&
		    schedule_timeout_killable(nsecs_to_jiffies(due - now) + 1) &&
		    fatal_signal_pending(current)) {
			bloom_work_start(w);
			return -EINTR;
		}
		if (bloom_work_rotate(w))
			return 0;
	}
	return -EAGAIN;
}

u64 bloom_work_next_rotation_ms(const struct bloom_store_work *w)
{
	u64 due = bloom_expire_due(w->core), now = bloom_work_now_ns();

	if (due == BLOOM_EXPIRE_NEVER)
		due = now + w->ring->period_ns;
	return due > now ? div_u64(due - now + NSEC_PER_MSEC - 1,
				   NSEC_PER_MSEC) : 0;
}

u64 bloom_work_late(const struct bloom_store_work *w)
{
	return atomic64_read(&w->late);
}

void bloom_work_init(struct bloom_store_work *w, struct bloom_core *core)
{
	mutex_init(&w->lock);
	INIT_DELAYED_WORK(&w->work, bloom_work_run);
	w->core = core;
	w->dying = false;
	atomic64_set(&w->late, 0);
}

void bloom_work_start(struct bloom_store_work *w)
{
	mutex_lock(&w->lock);
	bloom_work_arm(w);
	mutex_unlock(&w->lock);
}

void bloom_work_stop(struct bloom_store_work *w)
{
	mutex_lock(&w->lock);
	WRITE_ONCE(w->dying, true);
	mutex_unlock(&w->lock);
	/* a rotation or pass running now sees @dying before it arms again */
	cancel_delayed_work_sync(&w->work);
	mutex_destroy(&w->lock);
}

void bloom_store_queue_rcu(struct rcu_work *rwork)
{
	queue_rcu_work(bloom_wq, rwork);
}

void bloom_store_drain(void)
{
	/* the grace periods' callbacks queue the work that waited for them */
	rcu_barrier();
	flush_workqueue(bloom_wq);
}

int bloom_work_module_init(void)
{
	bloom_wq = alloc_workqueue("bloom", WQ_UNBOUND, 0);
	return bloom_wq ? 0 : -ENOMEM;
}

void bloom_work_module_exit(void)
{
	destroy_workqueue(bloom_wq);
}
