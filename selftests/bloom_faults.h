/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bloom_faults' files (the program is described in bloom_faults.c): the
 * sweep driver and, one file per family, the operations it runs under fault
 * injection, each a setup, a call and a check; faults_ops.c lists them in
 * the order they run.
 */
#ifndef BLOOM_FAULTS_H
#define BLOOM_FAULTS_H

/* the harness is for programs of one file (bloom_test.h) */
#define BT_NO_HARNESS
#include "bloom_test.h"
#include "bloom_ipt.h"

#define NKEYS_SMALL	16
#define NKEYS_LARGE	20000	/* 320 KiB of keys: several 64 KiB copies */

/*
 * A create that doubles the namespace's table of filters by id
 * (module/registry.c): it holds 16 slots from the namespace's first
 * filter on and doubles when a filter would make it more than half full,
 * so with "src" and seven pads live, creating "a" doubles it. Run in the
 * test's own namespace, whose filters never numbered more than 8 before.
 * A failure after the doubling leaves the larger table (it never shrinks,
 * and is not a counted allocation); the points after it then reach none.
 */
#define ID_TABLE_PADS	7

struct ctx {
	int fd;			/* bound to "a" where the operation binds */
	int fd2;		/* a fresh descriptor, for open and bind */
	__u32 type;
	__u64 key_base;		/* keys of this attempt: fresh each time */
	struct bloom_info info;	/* of "a", before the call */
	bool have_info;
	int home;		/* the thread's network namespace, or -1 */
	bool unshare_failed;	/* run_netns: the kernel's part failed */
};

#define OP_A_CHANGES_EFAULT	1U	/* "a" may change on EFAULT */
#define OP_A_CHANGES		2U	/* "a" may change on any failure */
#define OP_A_MEMORY_EFAULT	4U	/* memory_used too, on EFAULT */
#define OP_NETNS_ONLY		8U	/* only in a namespace of the test's */
#define OP_LAST			16U	/* after the load sweep: the longest */
#define OP_XDP			32U	/* SKIPs where xdp_hold_unusable() says */

/*
 * An operation: @setup (not under fault) may create "a" (and "b", "src")
 * and bind c->fd; @run is the one call under fault (0, or -1 with errno);
 * @works checks a success; @flags says what a failure may change (filter
 * "a" on EFAULT: ADD's and DELETE's results bitmap; on any failure: a
 * scalable filter's growth keeps the keys before the one that needed the
 * stage).
 */
struct op_entry {
	const char *name;
	void (*setup)(struct ctx *c);
	int (*run)(struct ctx *c);
	int (*works)(struct ctx *c);
	__u32 type;
	unsigned int flags;
};

/* The operations, in the order they run, and how many (faults_ops.c). */
extern const struct op_entry ops[];
extern const unsigned int nops;

struct tally {
	unsigned int points, failed, absorbed, enomem, efault;
	unsigned int other;	/* errors of unshare's setup or the module loader */
	int other_errno;
	unsigned int pending;	/* points whose frees came late */
	bool cut;		/* BLOOM_FAULTS_BUDGET spent in the sweep */
	char error[256];
};

/* /proc/self/task/TID/fail-nth, or -1 without fault injection */
extern int nth_fd;
/* iptables' filter table of the namespace of the sweep (bloom_ipt.h) */
extern int ipt_sock;
/* Snapshots for the restore operations, made once. */
extern __u8 *snap_plain, *snap_scalable;
/* The keys of a batch, and where its results go. */
extern __u8 keybuf[NKEYS_LARGE * 16];

/*
 * kselftest.h counts the results in a static of each file that includes it:
 * the operations' files bail out through the driver's file, where every
 * result is counted, so that the totals printed with the bail-out are right.
 */
void faults_bail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* bloom_faults.c: the sweep driver */
void nth_arm(unsigned int n);
bool nth_injected(void);
int fail(struct tally *t, unsigned int n, const char *fmt, ...);
bool over_budget(void);

/* faults_ops.c: what the operations share, and their table */
int add_keys(int fd, unsigned long cmd, __u64 first, __u32 n,
	     struct bloom_batch *b);
int keys_present(int fd, __u64 first, __u32 n);
int info_of(int fd, const char *name, struct bloom_info *info);
void must(int ret, const char *what);
int bind_new(struct ctx *c, const char *name);
int create_named(struct ctx *c, struct bloom_create *req);
void setup_src(struct ctx *c);
int works_bound_fd2(struct ctx *c);
void setup_a(struct ctx *c);

/* faults_create.c: create, every way; open; bind */
int run_create_plain(struct ctx *c);
int run_create_hashkey(struct ctx *c);
int run_create_sized(struct ctx *c);
int run_create_geometry(struct ctx *c);
int run_create_scalable(struct ctx *c);
int run_create_like(struct ctx *c);
int run_create_bind(struct ctx *c);
int run_open(struct ctx *c);
int works_open(struct ctx *c);
int run_bind(struct ctx *c);
int works_bind(struct ctx *c);

/* faults_batch.c: ADD, QUERY, DELETE; a scalable filter's growth */
int run_add_small(struct ctx *c);
int works_add_small(struct ctx *c);
int run_add_large(struct ctx *c);
int works_add_large(struct ctx *c);
int run_query(struct ctx *c);
int works_query(struct ctx *c);
int run_delete(struct ctx *c);
int works_delete(struct ctx *c);
void setup_scalable_full(struct ctx *c);
int run_grow(struct ctx *c);
int works_grow(struct ctx *c);
void setup_scalable_grown(struct ctx *c);

/* faults_expire.c: expiring filters and their rotation */
int run_create_expiring(struct ctx *c);
void setup_expiring_a(struct ctx *c);
void setup_rotate(struct ctx *c);
int run_rotate(struct ctx *c);
int works_rotate(struct ctx *c);

/* faults_timed.c: timed filters, keys with their own timeouts */
int run_create_timed(struct ctx *c);
void setup_timed_a(struct ctx *c);
int run_add_timed_small(struct ctx *c);
int run_add_timed_large(struct ctx *c);
void setup_snapshot_timed(struct ctx *c);
int run_restore_timed(struct ctx *c);
int works_restored_timed(struct ctx *c);

/* faults_netns.c: the id table, an iptables rule, a new network namespace */
void setup_id_table(struct ctx *c);
void setup_rule(struct ctx *c);
int run_rule(struct ctx *c);
int works_rule(struct ctx *c);
void setup_netns(struct ctx *c);
int run_netns(struct ctx *c);
void after_netns(struct ctx *c);
int works_netns(struct ctx *c);

/* faults_filters.c: MERGE, SWAP, FLUSH, DESTROY, LIST, INFO, STAGES */
void setup_pair(struct ctx *c);
int run_merge(struct ctx *c);
int works_merge(struct ctx *c);
int run_swap(struct ctx *c);
int works_swap(struct ctx *c);
int run_flush(struct ctx *c);
int works_flush(struct ctx *c);
int run_destroy(struct ctx *c);
int works_destroy(struct ctx *c);
int run_list(struct ctx *c);
int run_info(struct ctx *c);
int run_stages(struct ctx *c);

/* faults_snapshot.c: SAVE and RESTORE */
int run_save(struct ctx *c);
void make_snapshots(int fd);
int run_restore_plain(struct ctx *c);
int run_restore_scalable(struct ctx *c);
int works_restored(struct ctx *c);
void setup_counting_empty(struct ctx *c);
int run_restore_replace(struct ctx *c);
int works_replaced(struct ctx *c);

/* faults_map.c: mmap() of a filter, unmapped before or after its destroy */
void setup_map(struct ctx *c);
int run_map(struct ctx *c);
int works_map(struct ctx *c);
int works_map_destroyed(struct ctx *c);
/* faults_prefix.c: a filter with its own netblock lengths */
void setup_prefix_a(struct ctx *c);
int run_add_expanded(struct ctx *c);
int works_add_expanded(struct ctx *c);

/* faults_xdp.c: the XDP path's hold of a filter (bpf_bloom_xdp_hold()) */
const char *xdp_hold_unusable(void);
void setup_xdp_hold(struct ctx *c);
int run_xdp_hold(struct ctx *c);
int works_xdp_hold(struct ctx *c);
/* Lets go of the hold the program took, if any: its map is freed. */
void xdp_hold_release(void);
/* Runs that found no hold: bloom's allocation of it failed */
extern unsigned int xdp_hold_refused;

/* faults_load.c: bloom.ko's own load */
int sweep_load(int modfd, unsigned int max, struct tally *t);

#endif /* BLOOM_FAULTS_H */
