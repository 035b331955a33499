// SPDX-License-Identifier: GPL-2.0
/*
 * The rotations of expiring stores (expire.h has the rules). The policy,
 * which generation to clear and when, is the core's; this file reads the
 * clock, arms the work and waits for the grace period that seals a
 * generation.
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/timekeeping.h>

#include "expire.h"

static struct workqueue_struct *bloom_expiry_wq;

u64 bloom_expiry_now(void)
{
	return ktime_get_boottime_ns();
}

/* Arms the work for the next due rotation; under @x->lock. */
static void bloom_expiry_arm(struct bloom_expiry *x)
{
	u64 due = bloom_expire_due(x->core), now = bloom_expiry_now();
	unsigned long delay = 0;

	if (READ_ONCE(x->dying))
		return;
	/* never: the oldest is not sealed yet; look again a period later */
	if (due == BLOOM_EXPIRE_NEVER)
		due = now + x->ring.period_ns;
	/* a jiffy more: a timer never fires early, so never before @due */
	if (due > now)
		delay = nsecs_to_jiffies(due - now) + 1;
	queue_delayed_work(bloom_expiry_wq, &x->work, delay);
}

/*
 * One rotation when it is due: true if it ran. Not due yet (a flush or
 * merge moved an expiry): false, and the work is armed for when it is.
 */
static bool bloom_expiry_step(struct bloom_expiry *x)
{
	struct bloom_core *f = x->core;
	bool rotated = false;
	u32 g, old;

	mutex_lock(&x->lock);
	if (READ_ONCE(x->dying))
		goto unlock;
	if (bloom_expire_due(f) > bloom_expiry_now())
		goto arm;
	g = bloom_expire_unlink_oldest(f);
	bloom_core_clear(&x->ring.gen[g].core);
	old = bloom_expire_make_newest(f, g, bloom_expiry_now());
	mutex_unlock(&x->lock);
	/*
	 * Adds run under RCU and add to the newest they read: after a grace
	 * period none still adds to @old, so every key in it was added
	 * before the time read next, which starts its timeout.
	 */
	synchronize_rcu();
	mutex_lock(&x->lock);
	bloom_expire_seal(f, old, bloom_expiry_now());
	rotated = true;
arm:
	bloom_expiry_arm(x);
unlock:
	mutex_unlock(&x->lock);
	return rotated;
}

static void bloom_expiry_rotate(struct work_struct *work)
{
	bloom_expiry_step(container_of(to_delayed_work(work),
				       struct bloom_expiry, work));
}

int bloom_expiry_rotate_now(struct bloom_expiry *x)
{
	u64 due, now;
	int tries;

	/* a few periods at most: the first wait reaches the due time */
	for (tries = 0; tries < 4; tries++) {
		/* the work would run it: this task takes the rotation over */
		cancel_delayed_work_sync(&x->work);
		due = bloom_expire_due(x->core);
		now = bloom_expiry_now();
		if (due == BLOOM_EXPIRE_NEVER)
			due = now + x->ring.period_ns;
		if (due > now &&
		    schedule_timeout_killable(nsecs_to_jiffies(due - now) + 1) &&
		    fatal_signal_pending(current)) {
			bloom_expiry_start(x);
			return -EINTR;
		}
		if (bloom_expiry_step(x))
			return 0;
	}
	return -EAGAIN;
}

void bloom_expiry_init(struct bloom_expiry *x, struct bloom_core *core)
{
	mutex_init(&x->lock);
	INIT_DELAYED_WORK(&x->work, bloom_expiry_rotate);
	x->core = core;
	x->dying = false;
}

void bloom_expiry_start(struct bloom_expiry *x)
{
	mutex_lock(&x->lock);
	bloom_expiry_arm(x);
	mutex_unlock(&x->lock);
}

void bloom_expiry_stop(struct bloom_expiry *x)
{
	mutex_lock(&x->lock);
	WRITE_ONCE(x->dying, true);
	mutex_unlock(&x->lock);
	/* a rotation running now sees @dying before it arms again */
	cancel_delayed_work_sync(&x->work);
	mutex_destroy(&x->lock);
}

int bloom_expiry_module_init(void)
{
	/* unbound: a rotation clears memory and sleeps, no CPU of its own */
	bloom_expiry_wq = alloc_workqueue("bloom_expire", WQ_UNBOUND, 0);
	return bloom_expiry_wq ? 0 : -ENOMEM;
}

void bloom_expiry_module_exit(void)
{
	destroy_workqueue(bloom_expiry_wq);
}
