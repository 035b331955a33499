// SPDX-License-Identifier: GPL-2.0
/*
 * The rotations of expiring stores (clock.h has the rules). The policy,
 * which generation to clear and when, is the core's; this file reads the
 * clock, arms the work and waits for the grace period that seals a
 * generation.
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/timekeeping.h>

#include "clock.h"

static struct workqueue_struct *bloom_clock_wq;

u64 bloom_clock_now(void)
{
	return ktime_get_boottime_ns();
}

/* Arms the work for the next due rotation; under @x->lock. */
static void bloom_clock_arm(struct bloom_clock *x)
{
	u64 due = bloom_expire_due(x->core), now = bloom_clock_now();
	unsigned long delay = 0;

	if (READ_ONCE(x->dying))
		return;
	/* never: the oldest is not sealed yet; look again a period later */
	if (due == BLOOM_EXPIRE_NEVER)
		due = now + x->ring.period_ns;
	/* a jiffy more: a timer never fires early, so never before @due */
	if (due > now)
		delay = nsecs_to_jiffies(due - now) + 1;
	queue_delayed_work(bloom_clock_wq, &x->work, delay);
}

u64 bloom_clock_late_ns(const struct bloom_clock *x)
{
	return max_t(u64, div_u64(x->ring.period_ns, 100), 2 * TICK_NSEC);
}

/*
 * One rotation when it is due: true if it ran. Not due yet (a flush or
 * merge moved an expiry): false, and the work is armed for when it is.
 */
static bool bloom_clock_step(struct bloom_clock *x)
{
	struct bloom_core *f = x->core;
	bool rotated = false;
	u64 due, start, newest;
	u32 g, old;

	mutex_lock(&x->lock);
	if (READ_ONCE(x->dying))
		goto unlock;
	due = bloom_expire_due(f);
	start = bloom_clock_now();
	if (due > start)
		goto arm;
	g = bloom_expire_unlink_oldest(f);
	bloom_core_clear(&x->ring.gen[g].core);
	newest = bloom_clock_now();
	old = bloom_expire_make_newest(f, g, newest);
	mutex_unlock(&x->lock);
	/*
	 * Adds run under RCU and add to the newest they read: after a grace
	 * period none still adds to @old, so every key in it was added
	 * before the time read next, which starts its timeout.
	 */
	synchronize_rcu();
	mutex_lock(&x->lock);
	bloom_expire_seal(f, old, bloom_clock_now());
	/*
	 * What lengthens lives: starting after @due (the keys cleared now
	 * lived that much longer) and sealing after the generation stopped
	 * being the newest (its keys' timeouts count from the seal).
	 */
	if (start - due + (bloom_clock_now() - newest) > bloom_clock_late_ns(x))
		atomic64_inc(&x->late);
	rotated = true;
arm:
	bloom_clock_arm(x);
unlock:
	mutex_unlock(&x->lock);
	return rotated;
}

static void bloom_clock_rotate(struct work_struct *work)
{
	bloom_clock_step(container_of(to_delayed_work(work),
				      struct bloom_clock, work));
}

int bloom_clock_rotate_now(struct bloom_clock *x)
{
	u64 due, now;
	int tries;

	/* a few periods at most: the first wait reaches the due time */
	for (tries = 0; tries < 4; tries++) {
		/* the work would run it: this task takes the rotation over */
		cancel_delayed_work_sync(&x->work);
		due = bloom_expire_due(x->core);
		now = bloom_clock_now();
		if (due == BLOOM_EXPIRE_NEVER)
			due = now + x->ring.period_ns;
		if (due > now &&
		    schedule_timeout_killable(nsecs_to_jiffies(due - now) + 1) &&
		    fatal_signal_pending(current)) {
			bloom_clock_start(x);
			return -EINTR;
		}
		if (bloom_clock_step(x))
			return 0;
	}
	return -EAGAIN;
}

void bloom_clock_init(struct bloom_clock *x, struct bloom_core *core)
{
	mutex_init(&x->lock);
	INIT_DELAYED_WORK(&x->work, bloom_clock_rotate);
	x->core = core;
	x->dying = false;
	atomic64_set(&x->late, 0);
}

void bloom_clock_start(struct bloom_clock *x)
{
	mutex_lock(&x->lock);
	bloom_clock_arm(x);
	mutex_unlock(&x->lock);
}

void bloom_clock_stop(struct bloom_clock *x)
{
	mutex_lock(&x->lock);
	WRITE_ONCE(x->dying, true);
	mutex_unlock(&x->lock);
	/* a rotation running now sees @dying before it arms again */
	cancel_delayed_work_sync(&x->work);
	mutex_destroy(&x->lock);
}

int bloom_clock_module_init(void)
{
	/* unbound: a rotation clears memory and sleeps, no CPU of its own */
	bloom_clock_wq = alloc_workqueue("bloom_expire", WQ_UNBOUND, 0);
	return bloom_clock_wq ? 0 : -ENOMEM;
}

void bloom_clock_module_exit(void)
{
	destroy_workqueue(bloom_clock_wq);
}
