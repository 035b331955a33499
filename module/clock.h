/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The clock of an expiring store (clock.c): the delayed work that rotates
 * its generations (the ring and its policy are the core's:
 * module/core/expire.c), and the lock that keeps rotations apart from the
 * whole-store changes (flush, merge, save). A store has one when its core
 * is expiring; store.c makes, starts and stops it.
 *
 * A rotation runs in process context, off every packet and ioctl path:
 * it takes the lock, unlinks the oldest generation, clears it (yielding
 * between chunks of big tables), publishes it as the newest, drops the
 * lock, waits for an RCU grace period (so that every add that read the
 * old newest has finished: adds run under RCU) and only then seals the
 * old newest at the time it reads then. Times are CLOCK_BOOTTIME, which
 * counts suspend too: a machine that slept finds its keys aged.
 */
#ifndef BLOOM_CLOCK_H
#define BLOOM_CLOCK_H

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "core.h"
#include "expire.h"

/**
 * struct bloom_clock - an expiring store's generations and clock
 * @ring: the core's ring, behind the store's core.expire
 * @lock: held by a rotation (but not over its grace period) and by every
 *	change of the whole ring: clear, merge, the copy a save takes
 * @work: the next rotation
 * @core: the store's core
 * @dying: set when the store is retired: no rotation runs or is armed
 *	after the store's bytes are given back
 * @late: rotations that ran late: started more than bloom_clock_late_ns()
 *	after they were due, or sealed more than that after they made a
 *	generation the newest (a long grace period), or both together. Each lengthens
 *	the lives of some keys past timeout x (1 + 1/(G - 1)) by as much.
 */
struct bloom_clock {
	struct bloom_expire ring;
	struct mutex lock;	/* rotations against whole-ring changes */
	struct delayed_work work;
	struct bloom_core *core;
	bool dying;
	atomic64_t late;
};

/*
 * A rotation this much later than due (a period / 100, at least two
 * jiffies: a timer's own slack is one) counts as late.
 */
u64 bloom_clock_late_ns(const struct bloom_clock *x);

/* Now, on the clock the generations' times are kept on (ns). */
u64 bloom_clock_now(void);
/* Sets @x up for @core (whose expire is &@x->ring); not running yet. */
void bloom_clock_init(struct bloom_clock *x, struct bloom_core *core);
/* Arms the first rotation, when the core says it is due. */
void bloom_clock_start(struct bloom_clock *x);
/*
 * The next rotation, run in the calling task as soon as it is due (a
 * period at most), instead of in the workqueue: for tests (debug.c), so
 * that the task's fault injection sees what a rotation allocates. The
 * caller keeps the store from being retired meanwhile and keeps flush and
 * merge away (the filter's write lock). 0 when it ran; -EINTR (killed
 * while waiting), -EAGAIN (still not due after a few periods).
 */
int bloom_clock_rotate_now(struct bloom_clock *x);
/*
 * No rotation runs after this returns, nor is one armed. Sleeps (waits
 * for a running rotation, its grace period included): never on an ioctl
 * path; store.c calls it from the work that frees retired stores.
 */
void bloom_clock_stop(struct bloom_clock *x);

/* Module init and exit: the workqueue rotations run on. */
int bloom_clock_module_init(void);
/* After every store was freed (bloom_store_exit()). */
void bloom_clock_module_exit(void);

#endif /* BLOOM_CLOCK_H */
