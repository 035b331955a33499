/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sweep of a timed store (sweep.c): the delayed work that empties the
 * cells of expired keys, a bounded piece of the table at a time, and the
 * lock that keeps it apart from the store's writers. A store has one when
 * its core is timed (module/core/timed.c); store.c makes, starts and stops
 * it.
 *
 * Why it must run: a cell keeps its key's expiry as a tick modulo 64 of
 * the key's unit, so an expired cell that no add or delete looked at reads
 * as live again 29 units after its expiry (a false positive; never the
 * other way round, timed.c). The sweep visits every bucket once every
 * BLOOM_SWEEP_PERIOD_S seconds, well within the 29 s of the finest unit.
 * It takes @lock a chunk of buckets at a time and yields between chunks,
 * so a writer waits for one chunk at most and a big table never holds the
 * CPU; queries never wait for it (they read expiries themselves).
 */
#ifndef BLOOM_SWEEP_H
#define BLOOM_SWEEP_H

#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "timed.h"

#define BLOOM_SWEEP_PERIOD_S	8
/* buckets a chunk sweeps under the lock: 512 KiB of 64-bit cells at most */
#define BLOOM_SWEEP_CHUNK	8192

/**
 * struct bloom_sweep - a timed store's sweep
 * @lock: serialises the sweep with the store's writers: adds and deletes
 *	(batch.c, under the filter's write_lock too), clear and the
 *	restore that fills the table
 * @work: the next pass over the table
 * @core: the store's core
 * @dying: set when the store is retired: no pass runs or is armed after
 */
struct bloom_sweep {
	struct mutex lock;	/* the sweep against the store's writers */
	struct delayed_work work;
	struct bloom_core *core;
	bool dying;
};

void bloom_sweep_init(struct bloom_sweep *w, struct bloom_core *core);
/* Arms the first pass, a period from now. */
void bloom_sweep_start(struct bloom_sweep *w);
/*
 * No pass runs after this returns, nor is one armed. Sleeps: store.c calls
 * it from the work that frees retired stores, never on an ioctl path.
 */
void bloom_sweep_stop(struct bloom_sweep *w);

int bloom_sweep_module_init(void);
/* After every store was freed. */
void bloom_sweep_module_exit(void);

#endif /* BLOOM_SWEEP_H */
