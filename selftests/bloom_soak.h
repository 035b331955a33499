/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bloom_soak's files (the program is described in bloom_soak.c): main and
 * its watchdog there, and one file for what each kind of thread does. What
 * a thread counts is its file's, read by main to watch the thread and to
 * report.
 */
#ifndef BLOOM_SOAK_H
#define BLOOM_SOAK_H

#include <pthread.h>
#include <stdatomic.h>

/* the harness is for programs of one file (bloom_test.h) */
#define BT_NO_HARNESS
#include "bloom_test.h"

#define BATCH		256	/* keys of every batch */
#define NREADERS	2
#define NTYPES		5	/* standard, blocked, counting, dleft, scalable */

/* main: the threads run until stop; what went wrong, and every miss */
extern atomic_bool stop;
extern _Atomic unsigned long false_negatives, errors;
void report_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One batch of @n keys from @first through @cmd; out_hits, or -1. */
long long keys16(int fd, unsigned long cmd, __u64 first, __u32 n);
/*
 * CREATE in a namespace this thread made, waiting out EDQUOT (bloom_soak.c):
 * of @c, or of bt_typed_req() at p = 0.01
 */
int ns_create_req(int fd, struct bloom_create *c);
int ns_create(int fd, const char *name, __u32 type, __u64 capacity,
	      __u32 flags);
/* Creates that still met EDQUOT after the wait: their rounds skipped. */
extern _Atomic unsigned long ns_quota_skips;
/* The churner's: no new namespace while a create waits out EDQUOT. */
void ns_churn_pause(void);

/* soak_writers.c: a writer per type; readers and the mapped reader too */
struct writer {
	const char *name;
	__u32 type;
	bool scalable;
	bool deletes;
	int fd;
	__u64 base;			/* key numbers of this writer */
	_Atomic __u64 lo, hi;		/* keys [lo, hi) are in the filter */
	_Atomic unsigned long progress;
	char error[200];
};

extern struct writer writers[NTYPES];
int writer_create(struct writer *w);
void *writer_thread(void *arg);

/* soak_readers.c */
extern _Atomic unsigned long reader_progress[NREADERS];
void *reader_thread(void *arg);

/* soak_replacer.c */
extern _Atomic unsigned long replacer_progress;
void *replacer_thread(void *arg);

/* soak_netns.c */
extern _Atomic unsigned long netns_progress;
void *netns_thread(void *arg);

/* soak_expire.c */
#define EXPIRE_MS	1000
#define EXPIRE_GENS	16
#define EXPIRE_PERIOD_MS	(EXPIRE_MS / (EXPIRE_GENS - 1))
extern _Atomic unsigned long expire_progress, expire_rotations, expire_late;
void *expire_thread(void *arg);

/* soak_timed.c */
extern _Atomic unsigned long timed_progress, timed_deleted;
void *timed_thread(void *arg);

/* soak_netblocks.c */
#define NET_LIVE	32	/* blocks in the filter at a time */
extern _Atomic unsigned long net_progress, net_deleted;
void *net_thread(void *arg);

/* soak_rules.c: the rule churner and its sender */
extern _Atomic unsigned long rule_progress, traffic_progress,
	rule_namespaces, rule_packets;
void *rule_thread(void *arg);
void *traffic_thread(void *arg);

/* soak_mapped.c: the mapped pair's writer and reader */
extern _Atomic unsigned long mapped_swaps, mapped_reads;
extern _Atomic __u64 mapped_queries, mapped_retries, mapped_remaps,
	mapped_fallbacks;
int mapped_pair_create(int fd);
void *mapped_writer_thread(void *arg);
void *mapped_reader_thread(void *arg);

/* soak_xdp.c: rounds, and steps of a round (the watchdog's: a round is slow) */
extern _Atomic unsigned long xdp_progress, xdp_steps;
int xdp_unusable(char *why, size_t len, bool *mounted);
void *xdp_thread(void *arg);

/* soak_crowdsec.c: crowdsec-bloom-stdin fed decisions */
extern _Atomic unsigned long cs_progress, cs_decisions, cs_deleted;
int cs_unusable(char *why, size_t len);
void *cs_thread(void *arg);

#endif /* BLOOM_SOAK_H */
