/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the store's own files share (store.h lists them); nobody else
 * includes this.
 *
 * A store's background work (store_work.c): a ring's rotation or a timed
 * table's sweep, one delayed work per store on the module's workqueue, and
 * the lock that keeps it apart from the changes of the whole store.
 *
 * A rotation runs in process context, off every packet and ioctl path: it
 * takes @lock, unlinks the oldest generation, clears it (yielding between
 * chunks of big tables), publishes it as the newest, drops the lock, waits
 * for an RCU grace period (so that every add that read the old newest has
 * finished: adds run under RCU) and only then seals the old newest at the
 * time it reads then. Times are CLOCK_BOOTTIME, which counts suspend too:
 * a machine that slept finds its keys aged.
 *
 * A sweep empties the cells of expired keys, BLOOM_SWEEP_CHUNK buckets at
 * a time under @lock, yielding between chunks, so a writer waits for one
 * chunk at most and queries never wait (they read expiries themselves).
 * Why it must run: a cell keeps its key's expiry as a tick modulo 64 of the
 * key's unit, so an expired cell that no add or delete looked at reads as
 * live again 29 units after its expiry (a false positive; never the other
 * way round, module/core/timed.c). The sweep visits every bucket once every
 * BLOOM_SWEEP_PERIOD_S seconds, well within the 29 s of the finest unit.
 */
#ifndef BLOOM_STORE_INTERNAL_H
#define BLOOM_STORE_INTERNAL_H

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

#include "store.h"
#include "timed.h"

#define BLOOM_SWEEP_PERIOD_S	8
/*
 * A timed store whose tables nobody touched this long (the sweep comes
 * every BLOOM_SWEEP_PERIOD_S) was stopped: its cells are decoded against
 * the time it stopped (bloom_work_timed_catch_up()); under the 29 s before
 * a cell of 1-second units could read live again.
 */
#define BLOOM_TIMED_GAP_S	20
/* buckets a chunk sweeps under the lock: 512 KiB of 64-bit cells at most */
#define BLOOM_SWEEP_CHUNK	8192

/**
 * struct bloom_store_work - a store's background work
 * @lock: held by a rotation (but not over its grace period) or a chunk of a
 *	sweep, and by every change of the whole store: clear, merge, the copy
 *	a save takes; a timed store's writers (adds, deletes, the restore that
 *	fills it) take it too, beside the filter's write lock
 * @work: the next rotation or pass of the sweep
 * @core: the store's core
 * @dying: set when the store is retired: nothing runs or is armed after
 *	the store's bytes are given back
 * @late: rotations that ran late: started more than bloom_work_late_ns()
 *	after they were due, or sealed more than that after they made a
 *	generation the newest (a long grace period), or both together. Each
 *	lengthens the lives of some keys past timeout x (1 + 1/(G - 1)) by as
 *	much.
 * @active_s: a timed store's: the clock (bloom_clock_s()) when a writer or
 *	the sweep last left its tables, every cell of which then reads
 *	right against it (bloom_work_timed_catch_up())
 * @ring: a ring's generations, behind the core's expire; absent otherwise
 */
struct bloom_store_work {
	struct mutex lock;	/* the work against whole-store changes */
	struct delayed_work work;
	struct bloom_core *core;
	bool dying;
	atomic64_t late;
	u64 active_s;
	struct bloom_expire ring[];
};

/*
 * A timed store's tables made right after their clock jumped (a suspend,
 * which CLOCK_BOOTTIME counts, or a sweep that could not run for longer
 * than BLOOM_TIMED_GAP_S): the expiry of a cell reads right only up to 29
 * of its units after it (module/core/timed.c), so every cell is decoded
 * against the time the tables were last left whole and what expired since
 * is emptied (bloom_timed_rebase()); then, and every time, the time is
 * noted. Under the work's lock, by every writer and every chunk of the
 * sweep before they touch a cell; O(table) after a jump, nothing else.
 */
void bloom_work_timed_catch_up(struct bloom_store_work *w);

/* Now, on the clock a ring's times are kept on (ns). */
u64 bloom_work_now_ns(void);
/* Bytes of the work of a store of @shape and @type; 0: it has none. */
size_t bloom_work_bytes(u32 shape, u32 type);
/* Sets @w up for @core (whose expire, for a ring, is @w->ring); idle. */
void bloom_work_init(struct bloom_store_work *w, struct bloom_core *core);
/*
 * A timed store's tables, what its sweep walks: its one table or a chain's
 * stages, into @t (room for BLOOM_CORE_STAGES_MAX); their number. Under
 * the work's lock; the stages stay while the sweep runs (only it unlinks).
 */
u32 bloom_store_timed_tables(struct bloom_core *f, struct bloom_core **t);
/*
 * After a sweep, a timed chain's empty stages but the newest taken out and
 * freed after a grace period, their bytes given back. Under the work's
 * lock.
 */
void bloom_store_drop_empty_stages(struct bloom_core *f);
/* Arms the first rotation when it is due, the first sweep a period on. */
void bloom_work_start(struct bloom_store_work *w);
/*
 * Nothing runs after this returns, nor is armed. Sleeps (waits for a
 * running rotation, its grace period included): never on an ioctl path;
 * store.c calls it from the work that frees retired stores.
 */
void bloom_work_stop(struct bloom_store_work *w);
int bloom_work_rotate_now(struct bloom_store_work *w);
/* A ring's: milliseconds until its next rotation (0: due), late ones. */
u64 bloom_work_next_rotation_ms(const struct bloom_store_work *w);
u64 bloom_work_late(const struct bloom_store_work *w);

/* Module init and exit: the workqueue. */
int bloom_work_module_init(void);
void bloom_work_module_exit(void);

/*
 * Changes of the whole store (clear, merge, a save's copy) keep the
 * background work away; nothing for a store without.
 */
static inline void bloom_store_lock_work(struct bloom_store *s)
{
	if (s->work)
		mutex_lock(&s->work->lock);
}

static inline void bloom_store_unlock_work(struct bloom_store *s)
{
	if (s->work)
		mutex_unlock(&s->work->lock);
}

/*
 * store.c: allocates a stage of @geo (zeroed) and publishes it as @s's
 * next stage, counted in s->memory_bytes. The caller serialises growers
 * (or @s is not published yet) and has checked that @s may have it. The
 * stage, or ERR_PTR(-EDQUOT) (max_memory), ERR_PTR(-ENOMEM). Sleeps.
 * bloom_store_grow(): the next stage of a chain if its newest is full (or
 * it has none): 0 (also when another grower did meanwhile, or @s is not a
 * chain), -ENOSPC (no further stage possible), -EDQUOT, -ENOMEM.
 */
struct bloom_scale_stage *bloom_store_add_stage(struct bloom_store *s,
						const struct bloom_geometry *geo);
int bloom_store_grow(struct bloom_store *s);

/* store_addr.c: a write's and a query's netblock side. */
int bloom_addrs_check(const struct bloom_addrs *a, enum bloom_store_op op,
		      struct bloom_store *s, u32 n);
void bloom_addrs_account(const struct bloom_addrs *a, enum bloom_store_op op,
			 struct bloom_store *s, const u8 *results, u32 from,
			 u32 to);

#endif /* BLOOM_STORE_INTERNAL_H */
