// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_soak: everything at once for a while, checking the promise all
 * along. Threads, each with its own descriptors:
 *   - a writer per type (standard, blocked, counting, d-left, and a
 *     scalable standard filter from 100 keys, which grows stage after
 *     stage): adds batches of new keys and, for counting and d-left,
 *     deletes the oldest ones, and queries what it holds;
 *   - readers that query the keys each writer reports added (every key
 *     whose ADD returned and that was not deleted must test present);
 *   - a replacer: two filters with the same keys swapped and restored
 *     over (BLOOM_RESTORE_F_REPLACE) while readers query those keys
 *     through descriptors bound to them;
 *   - a namespace churner: a network namespace with filters in it, made
 *     and dropped again and again (the filters go with it);
 *   - an expiring writer: a filter whose keys live 1 s, in 16 generations
 *     (a rotation every 67 ms): what it added last, and a batch it added
 *     between a quarter and half a timeout ago, must test present. It
 *     counts the rotations it sees (STAGES: the newest generation's birth,
 *     now - age_ms, moving on), which the watchdog below watches as it
 *     does every thread's progress;
 *   - a timed writer: a timed filter (keys with their own timeouts) that
 *     gets batches of keys with timeouts of 1 to 4 s, one per key, and
 *     deletes every third batch soon after its add: every key of a batch
 *     not deleted whose timeout has not passed when its query returns
 *     must test present;
 *   - a rule churner: in a network namespace of its own, its loopback up,
 *     an IPv4 filter holding 127.0.0.1 and an iptables rule on it in
 *     INPUT (xt_bloom, through IPT_SO_SET_REPLACE: bloom_ipt.h), inserted
 *     and removed again and again while a sender thread sends UDP to
 *     127.0.0.1 there: every packet the rule checked must hit (INFO's
 *     packets == packet_hits). Every 8 inserts the namespace is dropped
 *     with its filter and the rule in it, and a new one made. Needs
 *     xt_bloom.ko (XT_BLOOM_KO, else ./xt_bloom.ko; loaded if it is not,
 *     unloaded again) and iptables' filter table; without them it is
 *     left out and the run says so;
 *   - a mapped pair: two blocked filters that a writer adds the same keys
 *     to and then swaps, again and again, while a reader queries them one
 *     key at a time and in batches through libbloom's read-only mapping
 *     of a descriptor bound to one of them (and the standard writer's
 *     keys the same way): every key added before the query began must
 *     test present; the reader's mapped queries, retries (a change seen
 *     during a test), remaps (after a swap) and fallbacks are counted and
 *     printed, and the run fails if no query went through a mapping or no
 *     swap was ever seen there;
 *   - a netblock writer: a counting filter of IPv4 netblocks with the
 *     lengths 16 and 24, given /22s and /23s (expanded into /24s) and
 *     deleting each again 32 adds later: addresses spread over every
 *     block still added, its first and last included, must test present;
 *   - bloom-xdp: in a network namespace of its own with a veth pair, a
 *     filter made, bloom-xdp attached to it through libxdp's dispatcher
 *     (INFO's xdp_holds 1, destroy refused with EBUSY, its address
 *     present), detached (the hold gone within 4 s, destroy works), again
 *     and again. Needs bloom-xdp built beside this program (../bin), the
 *     kernel's and the module's BTF and the BPF filesystem (mounted if it
 *     is not); without them it is left out and the run says why.
 * A thread's result line fails when it did no work.
 * A watchdog sees that every thread makes progress. At the end every
 * filter is destroyed and memory_used and live_allocations must come back
 * to where they were. The kernel's own checkers (KASAN, lockdep, kmemleak,
 * the hung task detector) report in the kernel log, which run.sh scans.
 *
 * Usage: bloom_soak [SECONDS]  (default: $BLOOM_SOAK_SECONDS, else 5)
 * make soak runs it in the VM for $SOAK_SECONDS (default 60).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <libgen.h>
#include <limits.h>
#include <arpa/inet.h>
#include <linux/magic.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/wait.h>

#include "kselftest.h"
#include "bloom_test.h"
#include "bloom_ipt.h"
#include "libbloom.h"

#define BATCH		256
#define NREADERS	2
#define NTYPES		5	/* standard, blocked, counting, dleft, scalable */
#define SCALABLE_MAX	200000	/* keys before the scalable filter starts over */
#define STALL_S		60	/* a thread without progress this long: hung */
/*
 * A step of bloom-xdp's round is a process that loads BPF programs: on a
 * debug kernel on a loaded host one took close to STALL_S.
 */
#define XDP_STALL_S	300
/*
 * writers, readers, replacer, namespaces, expiring adds and rotations,
 * timed adds, netblocks, the mapped pair's writer and reader, rules,
 * traffic, XDP
 */
#define WATCHED		(NTYPES + NREADERS + 11)

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

static struct writer writers[NTYPES] = {
	{ .name = "soak-standard", .type = BLOOM_TYPE_STANDARD },
	{ .name = "soak-blocked", .type = BLOOM_TYPE_BLOCKED },
	{ .name = "soak-counting", .type = BLOOM_TYPE_COUNTING, .deletes = true },
	{ .name = "soak-dleft", .type = BLOOM_TYPE_DLEFT, .deletes = true },
	{ .name = "soak-scalable", .type = BLOOM_TYPE_STANDARD, .scalable = true },
};

static atomic_bool stop;
static _Atomic unsigned long reader_progress[NREADERS], replacer_progress,
	netns_progress, expire_progress, rule_progress, traffic_progress,
	expire_rotations, timed_progress, timed_deleted;
static _Atomic unsigned long rule_namespaces, rule_packets;
static _Atomic unsigned long false_negatives, errors;
static char first_error[256];
static pthread_mutex_t error_lock = PTHREAD_MUTEX_INITIALIZER;

static void report_error(const char *fmt, ...)
{
	va_list ap;

	atomic_fetch_add(&errors, 1);
	pthread_mutex_lock(&error_lock);
	if (!first_error[0]) {
		va_start(ap, fmt);
		vsnprintf(first_error, sizeof(first_error), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&error_lock);
}

/* One batch of @n keys from @first through @cmd; out_hits, or -1. */
static long long keys16(int fd, unsigned long cmd, __u64 first, __u32 n)
{
	__u8 keys[BATCH * 16], res[BATCH / 8];

	return run_keys16(fd, cmd, keys, res, BATCH, first, n, NULL);
}

static int writer_create(struct writer *w)
{
	struct bloom_create c = bt_create_req(w->name, w->type,
					      w->scalable ? 100 : 1000000,
					      10000000,
					      BLOOM_CREATE_F_BIND |
					      (w->scalable ?
					       BLOOM_CREATE_F_SCALABLE : 0));

	if (w->fd >= 0)
		close(w->fd);
	w->fd = bt_open();
	if (w->fd < 0)
		return -1;
	return ioctl(w->fd, BLOOM_IOC_CREATE, &c);
}

static void *writer_thread(void *arg)
{
	struct writer *w = arg;
	__u64 hi, lo;
	long long hits;

	while (!atomic_load(&stop)) {
		hi = atomic_load(&w->hi);
		if (keys16(w->fd, BLOOM_IOC_ADD, w->base + hi, BATCH) < 0) {
			report_error("%s: ADD: %s", w->name, strerror(errno));
			break;
		}
		atomic_store(&w->hi, hi + BATCH);
		lo = atomic_load(&w->lo);
		/* d-left and counting keep 64k keys, dropping the oldest */
		if (w->deletes && hi + BATCH - lo > 65536) {
			atomic_store(&w->lo, lo + BATCH);
			if (keys16(w->fd, BLOOM_IOC_DELETE, w->base + lo,
				   BATCH) < 0) {
				report_error("%s: DELETE: %s", w->name,
					     strerror(errno));
				break;
			}
		}
		/* what it added last must be there */
		hits = keys16(w->fd, BLOOM_IOC_QUERY, w->base + hi, BATCH);
		if (hits != BATCH) {
			atomic_fetch_add(&false_negatives, 1);
			report_error("%s: %lld of its last %d keys present",
				     w->name, hits, BATCH);
		}
		if (w->scalable && hi > SCALABLE_MAX) {
			/* start over: readers see the keys go, as they should */
			atomic_store(&w->lo, hi + BATCH);
			if (bt_destroy(w->fd, w->name) || writer_create(w)) {
				report_error("%s: recreate: %s", w->name,
					     strerror(errno));
				break;
			}
		}
		atomic_fetch_add(&w->progress, 1);
	}
	return NULL;
}

/*
 * Readers bind their own descriptors and query a window of each writer's
 * live keys. A writer may delete the window's start meanwhile (counting,
 * d-left) or start over (scalable): a key counts as missing only if it
 * is still in [lo, hi) after the query returned.
 */
static void *reader_thread(void *arg)
{
	long id = (long)arg;
	int fds[NTYPES], i;
	unsigned int seed = id;

	for (i = 0; i < NTYPES; i++)
		fds[i] = -1;
	while (!atomic_load(&stop)) {
		for (i = 0; i < NTYPES && !atomic_load(&stop); i++) {
			struct writer *w = &writers[i];
			__u64 lo = atomic_load(&w->lo), hi = atomic_load(&w->hi);
			__u64 first;
			long long hits;

			if (fds[i] < 0) {
				fds[i] = bt_open();
				if (fds[i] < 0 || bt_bind(fds[i], w->name)) {
					close(fds[i]);
					fds[i] = -1;
					continue;
				}
			}
			if (hi - lo < BATCH)
				continue;
			first = lo + rand_r(&seed) % (hi - lo - BATCH + 1);
			hits = keys16(fds[i], BLOOM_IOC_QUERY, w->base + first,
				      BATCH);
			if (hits < 0 && errno == ESTALE) {
				/* the scalable filter started over */
				close(fds[i]);
				fds[i] = -1;
				continue;
			}
			if (hits != BATCH && atomic_load(&w->lo) <= first &&
			    !(w->scalable && hits < 0)) {
				atomic_fetch_add(&false_negatives, 1);
				report_error("reader: %s: %lld of %d live keys present (%s)",
					     w->name, hits, BATCH,
					     hits < 0 ? strerror(errno) : "absent");
			}
		}
		atomic_fetch_add(&reader_progress[id], 1);
	}
	for (i = 0; i < NTYPES; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return NULL;
}

/* keys of the swapped pair: both filters hold them, always */
#define PAIR_KEYS	4096
#define PAIR_BASE	(1ULL << 40)

static __u8 *pair_snapshot(int fd, const char *name, __u64 *len)
{
	struct bloom_save s;
	__u8 *buf;

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	set_name(s.name, name);
	if (ioctl(fd, BLOOM_IOC_SAVE, &s))
		return NULL;
	buf = malloc(s.out_len);
	if (!buf)
		return NULL;
	s.buf = u64_ptr(buf);
	s.buf_len = s.out_len;
	if (ioctl(fd, BLOOM_IOC_SAVE, &s)) {
		free(buf);
		return NULL;
	}
	*len = s.out_len;
	return buf;
}

static void *replacer_thread(void *arg)
{
	static const char *const names[2] = { "soak-pair-a", "soak-pair-b" };
	int fd = bt_open(), bound[2], i;
	struct bloom_restore r;
	struct bloom_pair p;
	__u8 *snap = NULL;
	__u64 len = 0;
	long long hits;

	(void)arg;
	for (i = 0; i < 2; i++) {
		bound[i] = bt_open();
		if (bt_create(fd, names[i], BLOOM_TYPE_COUNTING, 100000,
			      1000000, 0) || bt_bind(bound[i], names[i]) ||
		    keys16(bound[i], BLOOM_IOC_ADD, PAIR_BASE, PAIR_KEYS) < 0) {
			report_error("pair: setup: %s", strerror(errno));
			return NULL;
		}
	}
	snap = pair_snapshot(fd, names[0], &len);
	if (!snap) {
		report_error("pair: save: %s", strerror(errno));
		return NULL;
	}
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	set_name(p.name, names[0]);
	set_name(p.other, names[1]);
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.flags = BLOOM_RESTORE_F_NAME | BLOOM_RESTORE_F_REPLACE;
	r.buf = u64_ptr(snap);
	r.buf_len = len;
	while (!atomic_load(&stop)) {
		if (ioctl(fd, BLOOM_IOC_SWAP, &p))
			report_error("pair: swap: %s", strerror(errno));
		set_name(r.name, names[atomic_load(&replacer_progress) % 2]);
		if (ioctl(fd, BLOOM_IOC_RESTORE, &r))
			report_error("pair: restore: %s", strerror(errno));
		/* through the bound descriptors, racing the next swap */
		for (i = 0; i < 2; i++) {
			hits = keys16(bound[i], BLOOM_IOC_QUERY, PAIR_BASE,
				      BATCH);
			if (hits != BATCH) {
				atomic_fetch_add(&false_negatives, 1);
				report_error("pair: %lld of %d keys present",
					     hits, BATCH);
			}
		}
		atomic_fetch_add(&replacer_progress, 1);
	}
	for (i = 0; i < 2; i++) {
		bt_destroy(fd, names[i]);
		close(bound[i]);
	}
	close(fd);
	free(snap);
	return NULL;
}

/* A namespace with filters, made and dropped, over and over. */
static void *netns_thread(void *arg)
{
	int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	char name[BLOOM_NAME_LEN];
	int fd, i;

	(void)arg;
	while (!atomic_load(&stop) && self >= 0) {
		if (unshare(CLONE_NEWNET)) {
			report_error("unshare: %s", strerror(errno));
			break;
		}
		fd = bt_open();
		for (i = 0; i < 4 && fd >= 0; i++) {
			snprintf(name, sizeof(name), "ns-%d", i);
			if (bt_create(fd, name, 1 + i % 4, 10000, 10000000,
				      0)) {
				report_error("netns: create: %s",
					     strerror(errno));
				break;
			}
		}
		if (fd >= 0 && !bt_bind(fd, "ns-0") &&
		    keys16(fd, BLOOM_IOC_ADD, 0, BATCH) < 0)
			report_error("netns: add: %s", strerror(errno));
		/* back home; the namespace goes with the last reference */
		if (setns(self, CLONE_NEWNET)) {
			report_error("setns: %s", strerror(errno));
			break;
		}
		close(fd);
		atomic_fetch_add(&netns_progress, 1);
	}
	close(self);
	return NULL;
}

/* ---- expiring keys ---- */

#define EXPIRE_MS	1000
#define EXPIRE_GENS	16
#define EXPIRE_RING	64
#define EXPIRE_PERIOD_MS	(EXPIRE_MS / (EXPIRE_GENS - 1))

/*
 * When the newest generation of @fd's filter became the newest, in ms of
 * CLOCK_MONOTONIC (now - its age_ms), or -1.
 */
static double newest_born_ms(int fd)
{
	struct bloom_stage st[EXPIRE_GENS];
	struct bloom_stages s = {
		.size = sizeof(s), .capacity = EXPIRE_GENS,
		.stages = (uintptr_t)st,
	};

	if (ioctl(fd, BLOOM_IOC_STAGES, &s) || !s.out_count ||
	    s.out_count > EXPIRE_GENS)
		return -1;
	return now_sec() * 1000 - st[s.out_count - 1].age_ms;
}

static void *expire_thread(void *arg)
{
	struct bloom_create c = bt_create_req("soak-expiring",
					      BLOOM_TYPE_BLOCKED, 100000,
					      10000000,
					      BLOOM_CREATE_F_BIND |
					      BLOOM_CREATE_F_TIMEOUT);
	/* batches added: first key and the time before the ADD started */
	struct { __u64 first; double t; } ring[EXPIRE_RING];
	__u64 next = 3ULL << 40;
	unsigned int n = 0, i;
	long long hits;
	double now, born, last_born = -1;
	int fd = bt_open();

	(void)arg;
	c.timeout_ms = EXPIRE_MS;
	c.generations = EXPIRE_GENS;
	if (fd < 0 || ioctl(fd, BLOOM_IOC_CREATE, &c)) {
		report_error("expiring: create: %s", strerror(errno));
		return NULL;
	}
	while (!atomic_load(&stop)) {
		ring[n % EXPIRE_RING].first = next;
		ring[n % EXPIRE_RING].t = now_sec();
		if (keys16(fd, BLOOM_IOC_ADD, next, BATCH) < 0) {
			report_error("expiring: ADD: %s", strerror(errno));
			break;
		}
		n++;
		next += BATCH;
		hits = keys16(fd, BLOOM_IOC_QUERY, next - BATCH, BATCH);
		if (hits != BATCH) {
			atomic_fetch_add(&false_negatives, 1);
			report_error("expiring: %lld of its last %d keys present",
				     hits, BATCH);
		}
		/* the oldest batch in the ring between T/4 and T/2 old */
		now = now_sec();
		for (i = n > EXPIRE_RING ? n - EXPIRE_RING : 0; i + 1 < n; i++) {
			double age = now - ring[i % EXPIRE_RING].t;

			if (age > EXPIRE_MS / 2000.0 || age < EXPIRE_MS / 4000.0)
				continue;
			hits = keys16(fd, BLOOM_IOC_QUERY,
				      ring[i % EXPIRE_RING].first, BATCH);
			/* the query must have ended within the timeout */
			if (hits != BATCH && now_sec() - ring[i % EXPIRE_RING].t <
			    EXPIRE_MS / 1000.0) {
				atomic_fetch_add(&false_negatives, 1);
				report_error("expiring: %lld of %d keys present %.0f ms after their add",
					     hits, BATCH, age * 1000);
			}
			break;
		}
		/* a new newest generation: rotated (age_ms is whole ms) */
		born = newest_born_ms(fd);
		if (born < 0) {
			report_error("expiring: STAGES: %s", strerror(errno));
			break;
		}
		if (last_born >= 0 && born > last_born + EXPIRE_PERIOD_MS / 2)
			atomic_fetch_add(&expire_rotations, 1);
		last_born = born;
		atomic_fetch_add(&expire_progress, 1);
		/* a pace that spans many rotations without filling it */
		usleep(5000);
	}
	bt_destroy(fd, "soak-expiring");
	close(fd);
	return NULL;
}

/* ---- keys with their own timeouts ---- */

#define TIMED_RING	16
#define TIMED_DELETE_EVERY	3	/* every third batch is deleted ... */
#define TIMED_DELETE_AFTER	4	/* ... this many batches after its add */

/* key @i's timeout in the timed writer's filter: 1 to 4 s */
static __u32 timed_timeout(__u64 i)
{
	return 1 + i % 4;
}

/* ADD (with a timeout per key), QUERY or DELETE of the keys [first, +BATCH) */
static int timed_batch(int fd, unsigned long cmd, __u64 first, __u8 *res,
		       struct bloom_batch *b)
{
	__u8 keys[BATCH * 16];
	__u32 timeouts[BATCH], i;
	int ret;

	for (i = 0; i < BATCH; i++) {
		make_key16(first + i, keys + 16 * i);
		timeouts[i] = timed_timeout(first + i);
	}
	if (cmd == BLOOM_IOC_ADD)
		ret = bt_timed_add(fd, keys, BATCH, 16, timeouts, 0, res, b);
	else
		ret = bt_batch(fd, cmd, keys, sizeof(keys), BATCH, 16, NULL,
			       res, b);
	return ret || b->out_done != BATCH ? -1 : 0;
}

/*
 * The keys of the batch from @first added at @t (before its ADD) whose
 * timeout had not passed when the query returned, and that tested absent.
 */
static int timed_missing(int fd, __u64 first, double t)
{
	__u8 res[BATCH / 8];
	struct bloom_batch b;
	double end;
	int i, missing = 0;

	if (timed_batch(fd, BLOOM_IOC_QUERY, first, res, &b))
		return -1;
	end = now_sec();
	for (i = 0; i < BATCH; i++)
		if (end < t + timed_timeout(first + i) && !bit_at(res, i))
			missing++;
	return missing;
}

static void *timed_thread(void *arg)
{
	struct bloom_create c = bt_create_req("soak-timed", BLOOM_TYPE_TIMED,
					      500000, 1000,
					      BLOOM_CREATE_F_BIND);
	struct { __u64 first; double t; bool deleted; } ring[TIMED_RING];
	__u64 next = 4ULL << 40;
	unsigned int n = 0, i;
	__u8 res[BATCH / 8];
	struct bloom_batch b;
	int fd = bt_open(), missing;

	(void)arg;
	/*
	 * At 1e-6 the tag makes a cell shared by two keys (a delete of one
	 * would take the other) 2^-28 times rarer than a false positive.
	 */
	c.key_timeout_max_s = 60;
	if (fd < 0 || ioctl(fd, BLOOM_IOC_CREATE, &c)) {
		report_error("timed: create: %s", strerror(errno));
		return NULL;
	}
	while (!atomic_load(&stop)) {
		ring[n % TIMED_RING].first = next;
		ring[n % TIMED_RING].t = now_sec();
		ring[n % TIMED_RING].deleted = false;
		if (timed_batch(fd, BLOOM_IOC_ADD, next, res, &b)) {
			report_error("timed: ADD: %s", strerror(errno));
			break;
		}
		n++;
		next += BATCH;
		if (n > TIMED_DELETE_AFTER &&
		    (n - TIMED_DELETE_AFTER) % TIMED_DELETE_EVERY == 0) {
			i = (n - 1 - TIMED_DELETE_AFTER) % TIMED_RING;
			ring[i].deleted = true;
			if (timed_batch(fd, BLOOM_IOC_DELETE, ring[i].first,
					res, &b)) {
				report_error("timed: DELETE: %s", strerror(errno));
				break;
			}
			atomic_fetch_add(&timed_deleted, b.out_hits);
		}
		/* the newest batch, and every batch of the ring not deleted */
		for (i = n > TIMED_RING ? n - TIMED_RING : 0; i < n; i++) {
			if (ring[i % TIMED_RING].deleted)
				continue;
			missing = timed_missing(fd, ring[i % TIMED_RING].first,
						ring[i % TIMED_RING].t);
			if (missing < 0) {
				report_error("timed: QUERY: %s", strerror(errno));
				goto out;
			}
			if (missing) {
				atomic_fetch_add(&false_negatives, 1);
				report_error("timed: %d keys absent before their timeout, %.0f ms after their add",
					     missing,
					     (now_sec() - ring[i % TIMED_RING].t) * 1000);
			}
		}
		atomic_fetch_add(&timed_progress, 1);
		usleep(5000);
	}
out:
	bt_destroy(fd, "soak-timed");
	close(fd);
	return NULL;
}

/* ---- netblocks expanded to the filter's own lengths ---- */

#define NET_FILTER	"soak-net"
#define NET_LIVE	32	/* blocks in the filter at a time */
#define NET_SLOTS	16384	/* where blocks go: 10.0.0.0/8 in /22s */
#define NET_PROBES	32	/* addresses tested per live block */

static _Atomic unsigned long net_progress, net_deleted;

/*
 * Block @n: 10.x.y.0/22 for even n, its first /23 for odd n; both are
 * stored as /24s (the filter's lengths are 16 and 24), 4 or 2 of them:
 * the kernel refuses other lengths (EDOM), the caller expands.
 */
static void net_block(__u64 n, __u8 key[5])
{
	__u32 slot = n % NET_SLOTS;

	key[0] = 10;
	key[1] = (__u8)(slot >> 6);
	key[2] = (__u8)((slot & 63) << 2);
	key[3] = 0;
	key[4] = n % 2 ? 23 : 22;
}

/* Block @n added or deleted (@cmd) as the keys libbloom expands it to. */
static int net_one(int fd, unsigned long cmd, __u64 n)
{
	static const struct bloom_prefix_plan plan = {
		.nlens = 2, .lens = { 16, 24 },
	};
	__u8 key[5], keys[4 * BLOOM_NETBLOCK_KEY_MAX], res[1];
	int klen;
	long cnt;

	net_block(n, key);
	cnt = bloom_plan_expand(&plan, AF_INET, key, sizeof(key), keys, 4,
				&klen);
	if (cnt < 0) {
		errno = -cnt;
		return -1;
	}
	return bt_batch(fd, cmd, keys, (__u64)cnt * klen, cnt, klen, NULL,
			res, NULL);
}

/* Addresses of block @n not present: NET_PROBES of them tested; or -1. */
static int net_missing(int fd, __u64 n)
{
	__u8 key[5], addrs[NET_PROBES * 4], res[NET_PROBES / 8];
	__u32 size, i, a;
	struct bloom_batch b;

	net_block(n, key);
	size = 1U << (32 - key[4]);
	for (i = 0; i < NET_PROBES; i++) {
		/* spread over the block, its first and last address included */
		a = (key[0] << 24 | key[1] << 16 | key[2] << 8) +
		    (i == NET_PROBES - 1 ? size - 1 : i * (size / NET_PROBES) +
						      (__u32)(n + i) % 7);
		addrs[4 * i] = a >> 24;
		addrs[4 * i + 1] = a >> 16;
		addrs[4 * i + 2] = a >> 8;
		addrs[4 * i + 3] = a;
	}
	if (bt_batch(fd, BLOOM_IOC_QUERY, addrs, sizeof(addrs), NET_PROBES, 4,
		     NULL, res, &b))
		return -1;
	return NET_PROBES - b.out_hits;
}

/*
 * A counting filter of IPv4 netblocks with the lengths 16 and 24: /22s
 * and /23s added, expanded into /24s, and deleted again NET_LIVE adds
 * later; every address of every block still added must test present.
 */
static void *net_thread(void *arg)
{
	struct bloom_create c = bt_create_req(NET_FILTER, BLOOM_TYPE_COUNTING,
					      100000, 1000000,
					      BLOOM_CREATE_F_BIND |
					      BLOOM_CREATE_F_PREFIXES);
	int fd = bt_open(), missing;
	__u64 n = 0, i;

	(void)arg;
	c.keys = BLOOM_KEYS_IPV4;
	c.prefix_lengths4 = 1U << 16 | 1U << 24;
	if (fd < 0 || ioctl(fd, BLOOM_IOC_CREATE, &c)) {
		report_error("netblocks: create: %s", strerror(errno));
		goto out;
	}
	/* one round at least, however short the run: its line says so */
	do {
		if (net_one(fd, BLOOM_IOC_ADD, n)) {
			report_error("netblocks: ADD: %s", strerror(errno));
			break;
		}
		n++;
		if (n > NET_LIVE) {
			if (net_one(fd, BLOOM_IOC_DELETE, n - 1 - NET_LIVE)) {
				report_error("netblocks: DELETE: %s",
					     strerror(errno));
				break;
			}
			atomic_fetch_add(&net_deleted, 1);
		}
		for (i = n > NET_LIVE ? n - NET_LIVE : 0; i < n; i++) {
			missing = net_missing(fd, i);
			if (missing < 0) {
				report_error("netblocks: QUERY: %s",
					     strerror(errno));
				goto out;
			}
			if (missing) {
				atomic_fetch_add(&false_negatives, 1);
				report_error("netblocks: %d of %d addresses of a live block absent",
					     missing, NET_PROBES);
			}
		}
		atomic_fetch_add(&net_progress, 1);
		usleep(5000);
	} while (!atomic_load(&stop));
out:
	bt_destroy(fd, NET_FILTER);
	close(fd);
	return NULL;
}

/* ---- bloom-xdp attached and detached through libxdp's dispatcher ---- */

#define XDP_FILTER	"soak-xdp"
#define XDP_DEV		"soakx0"

/* rounds; steps of a round, which the watchdog watches: a round is slow */
static _Atomic unsigned long xdp_progress, xdp_steps;
static char xdp_tool[PATH_MAX];

/*
 * Runs @argv with its output kept: its exit status, or -1; on a failure
 * the start of what it printed is in @out.
 */
static int run_tool(char *const argv[], char *out, size_t len)
{
	int mfd = memfd_create("soak-tool", MFD_CLOEXEC), status = -1;
	ssize_t n;
	pid_t pid;

	out[0] = 0;
	if (mfd < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(mfd, 1);
		dup2(mfd, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		status = -1;
	else
		status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	if (status) {
		n = pread(mfd, out, len - 1, 0);
		out[n > 0 ? n : 0] = 0;
		out[strcspn(out, "\n")] = 0;
	}
	close(mfd);
	return status;
}

/*
 * Why the XDP thread cannot run here, in @why (0 when it can): it needs
 * bloom-xdp built beside this program, kernel and module BTF (kfuncs),
 * and the BPF filesystem where libxdp pins its dispatcher (mounted here
 * if it is not; *@mounted then says so).
 */
static int xdp_unusable(char *why, size_t len, bool *mounted)
{
	char self[PATH_MAX];
	struct statfs sf;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	*mounted = false;
	if (n <= 0)
		return snprintf(why, len, "/proc/self/exe: %s", strerror(errno));
	self[n] = 0;
	snprintf(xdp_tool, sizeof(xdp_tool), "%s/../bin/bloom-xdp",
		 dirname(self));
	if (access(xdp_tool, X_OK))
		return snprintf(why, len, "no bloom-xdp at %s (clang, bpftool, libbpf-dev, libxdp-dev: tools/deps.sh)",
				xdp_tool);
	if (access("/sys/kernel/btf/vmlinux", R_OK) ||
	    access("/sys/kernel/btf/bloom", R_OK))
		return snprintf(why, len, "no kernel or module BTF: no kfuncs, no dispatcher");
	if (statfs("/sys/fs/bpf", &sf) || sf.f_type != BPF_FS_MAGIC) {
		if (mount("bpf", "/sys/fs/bpf", "bpf", 0, NULL))
			return snprintf(why, len, "cannot mount the BPF filesystem: %s",
					strerror(errno));
		*mounted = true;
	}
	return 0;
}

/* The filter's XDP holds, or -1. */
static int xdp_holds(int fd)
{
	struct bloom_info info;

	return bt_info(fd, XDP_FILTER, &info) ? -1 : (int)info.xdp_holds;
}

/*
 * One round: the filter made, bloom-xdp attached to it (held: destroy
 * refused), its address queried while it is held, bloom-xdp detached (the
 * hold goes with the program, a moment later), the filter destroyed.
 */
static int xdp_round(int fd, __u64 round)
{
	char *attach[] = { xdp_tool, "attach", XDP_DEV, "--set", XDP_FILTER,
			   NULL };
	char *detach[] = { xdp_tool, "detach", XDP_DEV, NULL };
	struct bloom_create c = bt_create_req(XDP_FILTER, BLOOM_TYPE_BLOCKED,
					      1000, 10000000, 0);
	__u8 addr[4] = { 10, 7, (__u8)(round >> 8), (__u8)round };
	int held, i, bfd = -1, ret = -1;
	char out[160];

	c.keys = BLOOM_KEYS_IPV4;
	if (ioctl(fd, BLOOM_IOC_CREATE, &c)) {
		report_error("xdp: create: %s", strerror(errno));
		return -1;
	}
	/* a descriptor bound to it keeps its struct, not the filter */
	bfd = bt_open();
	if (bfd < 0 || bt_bind(bfd, XDP_FILTER) ||
	    bt_one(bfd, BLOOM_IOC_ADD, addr, sizeof(addr)) < 0) {
		report_error("xdp: bind, add: %s", strerror(errno));
		goto out;
	}
	if (run_tool(attach, out, sizeof(out))) {
		report_error("xdp: bloom-xdp attach: %s", out);
		goto out;
	}
	atomic_fetch_add(&xdp_steps, 1);
	held = xdp_holds(fd);
	if (held != 1) {
		report_error("xdp: attached, but the filter has %d XDP holds, not 1",
			     held);
		goto out;
	}
	if (bt_one(bfd, BLOOM_IOC_QUERY, addr, sizeof(addr)) != 1) {
		atomic_fetch_add(&false_negatives, 1);
		report_error("xdp: an address added is absent while held");
	}
	if (!bt_destroy(fd, XDP_FILTER)) {
		report_error("xdp: a held filter was destroyed");
		return -1;	/* nothing left to detach from */
	}
	if (errno != EBUSY) {
		report_error("xdp: destroy of a held filter: %s, not EBUSY",
			     strerror(errno));
		goto out;
	}
	atomic_fetch_add(&xdp_steps, 1);
	if (run_tool(detach, out, sizeof(out))) {
		report_error("xdp: bloom-xdp detach: %s", out);
		goto out;
	}
	atomic_fetch_add(&xdp_steps, 1);
	for (i = 0; i < 200 && (held = xdp_holds(fd)) > 0; i++)
		usleep(20000);
	if (held) {
		report_error("xdp: detached, the filter still has %d XDP holds after 4 s",
			     held);
		goto out;
	}
	if (bt_destroy(fd, XDP_FILTER)) {
		report_error("xdp: destroy after detach: %s", strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (bfd >= 0)
		close(bfd);
	return ret;
}

/*
 * In a network namespace of its own, with a veth pair: bloom-xdp attached
 * and detached again and again while the other threads query, swap and
 * destroy their filters.
 */
static void *xdp_thread(void *arg)
{
	char *link[] = { "/sbin/ip", "link", "add", XDP_DEV, "type", "veth",
			 "peer", "name", "soakx1", NULL };
	char *up[] = { "/sbin/ip", "link", "set", XDP_DEV, "up", NULL };
	char out[160];
	__u64 round = 0;
	int fd;

	(void)arg;
	if (unshare(CLONE_NEWNET)) {
		report_error("xdp: unshare: %s", strerror(errno));
		return NULL;
	}
	if (run_tool(link, out, sizeof(out)) || run_tool(up, out, sizeof(out))) {
		report_error("xdp: a veth pair: %s", out);
		return NULL;
	}
	fd = bt_open();
	if (fd < 0) {
		report_error("xdp: open: %s", strerror(errno));
		return NULL;
	}
	/* one round at least, however short the run: its line says so */
	do {
		if (xdp_round(fd, round++))
			break;
		atomic_fetch_add(&xdp_progress, 1);
	} while (!atomic_load(&stop));
	/* the namespace, the veth pair and a filter left go with the thread */
	close(fd);
	return NULL;
}

/* ---- rules under traffic, in namespaces that come and go ---- */

#define RULE_FILTER	"soak-rule"
#define RULES_PER_NS	8

static pthread_mutex_t traffic_lock = PTHREAD_MUTEX_INITIALIZER;
static int traffic_fd = -1;	/* a UDP socket of the rule namespace */

/* Sends to 127.0.0.1 through whatever namespace's socket is published. */
static void *traffic_thread(void *arg)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(9) };
	int fd, i;

	(void)arg;
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	while (!atomic_load(&stop)) {
		pthread_mutex_lock(&traffic_lock);
		fd = traffic_fd >= 0 ? dup(traffic_fd) : -1;
		pthread_mutex_unlock(&traffic_lock);
		if (fd < 0) {
			usleep(10000);
			continue;
		}
		for (i = 0; i < 16; i++)
			(void)!sendto(fd, "soak", 4, MSG_DONTWAIT,
				      (struct sockaddr *)&to, sizeof(to));
		close(fd);
		atomic_fetch_add(&traffic_progress, 1);
		usleep(1000);
	}
	return NULL;
}

static int lo_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret;

	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	ret = ioctl(fd, SIOCGIFFLAGS, &ifr);
	ifr.ifr_flags |= IFF_UP;
	ret = ret ?: ioctl(fd, SIOCSIFFLAGS, &ifr);
	close(fd);
	return ret;
}

/*
 * One namespace: the filter, then RULES_PER_NS times the rule in and out
 * under traffic, the last one left in; the namespace goes when this
 * thread leaves it and the socket is closed.
 */
static int rule_namespace(int self)
{
	static const __u8 lo[4] = { 127, 0, 0, 1 };
	struct bloom_info info;
	int fd = -1, sock = -1, udp = -1, i, ret = -1;

	if (unshare(CLONE_NEWNET)) {
		report_error("rules: unshare: %s", strerror(errno));
		return -1;
	}
	fd = bt_open();
	sock = bt_ipt_socket();
	udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || sock < 0 || udp < 0 || lo_up() ||
	    bt_create(fd, RULE_FILTER, BLOOM_TYPE_BLOCKED, 1000, 10000000,
		      BLOOM_CREATE_F_BIND) ||
	    bt_one(fd, BLOOM_IOC_ADD, lo, sizeof(lo)) < 0) {
		report_error("rules: setup: %s", strerror(errno));
		goto out;
	}
	pthread_mutex_lock(&traffic_lock);
	traffic_fd = udp;
	pthread_mutex_unlock(&traffic_lock);
	for (i = 0; i < RULES_PER_NS && !atomic_load(&stop); i++) {
		if (bt_ipt_set(sock, RULE_FILTER)) {
			report_error("rules: insert: %s", strerror(errno));
			goto out;
		}
		usleep(20000);	/* packets go by meanwhile */
		if (i + 1 < RULES_PER_NS && bt_ipt_set(sock, NULL)) {
			report_error("rules: remove: %s", strerror(errno));
			goto out;
		}
		atomic_fetch_add(&rule_progress, 1);
	}
	if (bt_info(fd, NULL, &info)) {
		report_error("rules: info: %s", strerror(errno));
		goto out;
	}
	if (info.packets != info.packet_hits) {
		atomic_fetch_add(&false_negatives, 1);
		report_error("rules: %llu of %llu packets from 127.0.0.1 matched",
			     (unsigned long long)info.packet_hits,
			     (unsigned long long)info.packets);
	}
	atomic_fetch_add(&rule_packets, info.packets);
	ret = 0;
out:
	pthread_mutex_lock(&traffic_lock);
	traffic_fd = -1;
	pthread_mutex_unlock(&traffic_lock);
	if (setns(self, CLONE_NEWNET)) {
		report_error("rules: setns: %s", strerror(errno));
		ret = -1;
	}
	/* the filter and the rule on it go with the namespace */
	close(udp);
	close(sock);
	close(fd);
	atomic_fetch_add(&rule_namespaces, 1);
	return ret;
}

static void *rule_thread(void *arg)
{
	int self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);

	(void)arg;
	while (!atomic_load(&stop) && self >= 0 && !rule_namespace(self))
		;
	close(self);
	return NULL;
}

/* ---- the mapped pair ---- */

#define MAPPED_BASE	(1ULL << 41)
#define MAPPED_MAX	400000	/* keys before the pair stops growing */

static const char *const mapped_names[2] = { "soak-map-a", "soak-map-b" };
static _Atomic __u64 mapped_hi;	/* keys [0, hi) are in both */
static _Atomic unsigned long mapped_swaps, mapped_reads;
static _Atomic __u64 mapped_queries, mapped_retries, mapped_remaps,
	mapped_fallbacks;

/* Adds keys to both filters of the pair, then swaps them, over and over. */
static void *mapped_writer_thread(void *arg)
{
	int fd = bt_open(), bound[2] = { -1, -1 }, i;
	__u64 hi = 0;

	(void)arg;
	for (i = 0; i < 2; i++) {
		bound[i] = bt_open();
		if (bt_bind(bound[i], mapped_names[i])) {
			report_error("mapped pair: bind: %s", strerror(errno));
			goto out;
		}
	}
	while (!atomic_load(&stop)) {
		if (hi < MAPPED_MAX) {
			for (i = 0; i < 2; i++)
				if (keys16(bound[i], BLOOM_IOC_ADD,
					   MAPPED_BASE + hi, BATCH) < 0)
					report_error("mapped pair: ADD: %s",
						     strerror(errno));
			hi += BATCH;
			atomic_store(&mapped_hi, hi);
		} else {
			usleep(1000);	/* full: swaps only, at a pace */
		}
		if (bt_pair(fd, BLOOM_IOC_SWAP, mapped_names[0], mapped_names[1]))
			report_error("mapped pair: swap: %s", strerror(errno));
		atomic_fetch_add(&mapped_swaps, 1);
	}
out:
	for (i = 0; i < 2; i++)
		close(bound[i]);
	close(fd);
	return NULL;
}

/* Keys [first, first + n) of @base through @fd's mapping: those absent. */
static __u32 mapped_misses(int fd, __u64 base, __u64 first, __u32 n)
{
	__u8 keys[BATCH][16], res[BATCH / 8];
	BLOOM_OPTS(bloom_batch_opts, o, .key_size = 16, .results = res);
	__u32 i, misses = 0;

	for (i = 0; i < n; i++) {
		make_key16(base + first + i, keys[i]);
		/* one at a time on even keys, as a daemon asks */
		if (!(i & 1) && bloom_query(fd, keys[i], 16) != 1)
			misses++;
	}
	if (bloom_batch(fd, BLOOM_OP_QUERY, keys, n, &o) != n)
		misses++;
	return misses;
}

/*
 * Queries the pair through a mapping of "soak-map-a" (whichever filter
 * holds that name now) and the standard writer's keys through one of its
 * own, one key at a time and in batches.
 */
static void *mapped_reader_thread(void *arg)
{
	struct writer *w = &writers[0];	/* standard: adds only */
	int fd = bloom_open(NULL), wfd = bloom_open(NULL);
	unsigned int seed = 7;
	struct bloom_map_stats st;
	__u64 hi, lo, first;
	__u32 misses;

	(void)arg;
	if (fd < 0 || wfd < 0 || bloom_bind(fd, mapped_names[0]) ||
	    bloom_bind(wfd, w->name)) {
		report_error("mapped reader: bind: %s", strerror(errno));
		goto out;
	}
	while (!atomic_load(&stop)) {
		hi = atomic_load(&mapped_hi);
		if (hi >= BATCH) {
			first = rand_r(&seed) % (hi - BATCH + 1);
			misses = mapped_misses(fd, MAPPED_BASE, first, BATCH);
			if (misses) {
				atomic_fetch_add(&false_negatives, 1);
				report_error("mapped reader: pair: %u of %d keys absent",
					     misses, BATCH);
			}
		}
		lo = atomic_load(&w->lo);
		hi = atomic_load(&w->hi);
		if (hi - lo >= BATCH) {
			first = lo + rand_r(&seed) % (hi - lo - BATCH + 1);
			misses = mapped_misses(wfd, w->base, first, BATCH);
			if (misses) {
				atomic_fetch_add(&false_negatives, 1);
				report_error("mapped reader: %s: %u of %d keys absent",
					     w->name, misses, BATCH);
			}
		}
		atomic_fetch_add(&mapped_reads, 1);
	}
out:
	bloom_map_stats(&st);
	atomic_store(&mapped_queries, st.queries);
	atomic_store(&mapped_retries, st.retries);
	atomic_store(&mapped_remaps, st.remaps);
	atomic_store(&mapped_fallbacks, st.fallbacks);
	bloom_close(fd);
	bloom_close(wfd);
	return NULL;
}

static int mapped_pair_create(int fd)
{
	int i;

	for (i = 0; i < 2; i++)
		if (bt_create(fd, mapped_names[i], BLOOM_TYPE_BLOCKED,
			      MAPPED_MAX, 10000000, 0))
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
	const char *env = getenv("BLOOM_SOAK_SECONDS");
	unsigned int seconds = argc > 1 ? atoi(argv[1]) : env ? atoi(env) : 5;
	/* what the watchdog watches: see the loop below */
	unsigned long last[WATCHED], now_p[WATCHED];
	const char *what[WATCHED];
	pthread_t wt[NTYPES], rt[NREADERS], rp, nt, et, tmt, rlt, tt, mw, mr,
		nbt, xdt;
	long long mem0, live0, mem, live;
	static const char xdp_what[] = "bloom-xdp's attach and detach";
	unsigned int t, stall, stalled_s[WATCHED] = { 0 };
	bool hung = false, bpffs_mounted;
	char why[160] = "", xdp_why[200] = "";
	int i, k, fd, xt, xdp;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	ksft_set_plan(7);
	fd = bt_open();
	if (fd < 0)
		ksft_exit_fail_msg("open %s: %s\n", BLOOM_DEV, strerror(errno));
	bt_destroy_all();
	xt = bt_xt_load(why, sizeof(why));
	if (xt >= 0) {
		int sock = bt_ipt_socket();

		if (sock < 0 || bt_ipt_entries(sock) < 0) {
			snprintf(why, sizeof(why), "no iptables filter table: %s",
				 strerror(errno));
			xt = -1;
		}
		if (sock >= 0)
			close(sock);
	}
	if (xt < 0)
		ksft_print_msg("rules under traffic left out: %s\n", why);
	xdp = xdp_unusable(xdp_why, sizeof(xdp_why), &bpffs_mounted) ? -1 : 0;
	if (xdp < 0)
		ksft_print_msg("bloom-xdp attached and detached left out: %s\n",
			       xdp_why);
	mem0 = wait_memory_used(0, BT_FREE_WAIT_MS);
	live0 = wait_live_allocations(1, BT_FREE_WAIT_MS);
	for (i = 0; i < NTYPES; i++) {
		writers[i].fd = -1;
		writers[i].base = (__u64)(i + 1) << 32;
		if (writer_create(&writers[i]))
			ksft_exit_fail_msg("create %s: %s\n", writers[i].name,
					   strerror(errno));
	}
	if (mapped_pair_create(fd))
		ksft_exit_fail_msg("create the mapped pair: %s\n",
				   strerror(errno));
	for (i = 0; i < NTYPES; i++)
		pthread_create(&wt[i], NULL, writer_thread, &writers[i]);
	for (i = 0; i < NREADERS; i++)
		pthread_create(&rt[i], NULL, reader_thread, (void *)(long)i);
	pthread_create(&rp, NULL, replacer_thread, NULL);
	pthread_create(&nt, NULL, netns_thread, NULL);
	pthread_create(&et, NULL, expire_thread, NULL);
	pthread_create(&tmt, NULL, timed_thread, NULL);
	pthread_create(&mw, NULL, mapped_writer_thread, NULL);
	pthread_create(&mr, NULL, mapped_reader_thread, NULL);
	pthread_create(&nbt, NULL, net_thread, NULL);
	if (xt >= 0) {
		pthread_create(&rlt, NULL, rule_thread, NULL);
		pthread_create(&tt, NULL, traffic_thread, NULL);
	}
	if (xdp >= 0)
		pthread_create(&xdt, NULL, xdp_thread, NULL);

	memset(last, 0, sizeof(last));
	for (t = 0; t < seconds && !atomic_load(&errors); t++) {
		sleep(1);
		for (k = 0; k < NTYPES; k++) {
			now_p[k] = atomic_load(&writers[k].progress);
			what[k] = writers[k].name;
		}
		for (i = 0; i < NREADERS; i++) {
			what[k] = "a reader";
			now_p[k++] = atomic_load(&reader_progress[i]);
		}
		what[k] = "the replacer";
		now_p[k++] = atomic_load(&replacer_progress);
		what[k] = "the namespace churner";
		now_p[k++] = atomic_load(&netns_progress);
		what[k] = "the expiring writer";
		now_p[k++] = atomic_load(&expire_progress);
		what[k] = "the expiring filter's rotation";
		now_p[k++] = atomic_load(&expire_rotations);
		what[k] = "the timed writer";
		now_p[k++] = atomic_load(&timed_progress);
		what[k] = "the mapped pair's writer";
		now_p[k++] = atomic_load(&mapped_swaps);
		what[k] = "the mapped reader";
		now_p[k++] = atomic_load(&mapped_reads);
		what[k] = "the netblock writer";
		now_p[k++] = atomic_load(&net_progress);
		if (xt >= 0) {
			what[k] = "the rule churner";
			now_p[k++] = atomic_load(&rule_progress);
			what[k] = "the sender";
			now_p[k++] = atomic_load(&traffic_progress);
		}
		if (xdp >= 0) {
			what[k] = xdp_what;
			now_p[k++] = atomic_load(&xdp_steps);
		}
		for (i = 0; i < k; i++) {
			stall = what[i] == xdp_what ? XDP_STALL_S : STALL_S;
			stalled_s[i] = now_p[i] == last[i] ? stalled_s[i] + 1 : 0;
			if (stalled_s[i] >= stall && !hung) {
				hung = true;
				report_error("%s made no progress for %u s",
					     what[i], stall);
			}
			last[i] = now_p[i];
		}
	}
	atomic_store(&stop, true);
	for (i = 0; i < NTYPES; i++)
		pthread_join(wt[i], NULL);
	for (i = 0; i < NREADERS; i++)
		pthread_join(rt[i], NULL);
	pthread_join(rp, NULL);
	pthread_join(nt, NULL);
	pthread_join(et, NULL);
	pthread_join(tmt, NULL);
	pthread_join(mw, NULL);
	pthread_join(mr, NULL);
	pthread_join(nbt, NULL);
	if (xt >= 0) {
		pthread_join(rlt, NULL);
		pthread_join(tt, NULL);
	}
	if (xdp >= 0)
		pthread_join(xdt, NULL);
	if (bpffs_mounted && umount("/sys/fs/bpf"))
		ksft_print_msg("umount /sys/fs/bpf: %s\n", strerror(errno));

	ksft_print_msg("%u s: adds+queries per writer:", t);
	for (i = 0; i < NTYPES; i++)
		printf(" %s %lu", writers[i].name,
		       atomic_load(&writers[i].progress));
	printf("; swaps+restores %lu, namespaces %lu; expiring adds %lu, rotations seen %lu (timeout %d ms, %d generations: a rotation every %d ms)",
	       atomic_load(&replacer_progress), atomic_load(&netns_progress),
	       atomic_load(&expire_progress), atomic_load(&expire_rotations),
	       EXPIRE_MS, EXPIRE_GENS, EXPIRE_PERIOD_MS);
	printf("; timed batches %lu, keys deleted %lu",
	       atomic_load(&timed_progress), atomic_load(&timed_deleted));
	if (xt >= 0)
		printf("; rules inserted %lu in %lu namespaces, %lu packets checked, %lu send rounds",
		       atomic_load(&rule_progress),
		       atomic_load(&rule_namespaces),
		       atomic_load(&rule_packets),
		       atomic_load(&traffic_progress));
	printf("\n");
	ksft_test_result(!atomic_load(&false_negatives),
			 "no key known present ever tested absent (%lu misses)\n",
			 atomic_load(&false_negatives));
	ksft_test_result(!atomic_load(&errors) || atomic_load(&false_negatives),
			 "every call worked, every thread progressed%s%s\n",
			 first_error[0] ? ": " : "", first_error);
	ksft_test_result(atomic_load(&mapped_queries) &&
			 atomic_load(&mapped_remaps),
			 "mapped reader: %llu keys through the mapping, %llu retries, %llu remaps over %lu swaps, %llu calls fell back to the ioctl\n",
			 (unsigned long long)atomic_load(&mapped_queries),
			 (unsigned long long)atomic_load(&mapped_retries),
			 (unsigned long long)atomic_load(&mapped_remaps),
			 atomic_load(&mapped_swaps),
			 (unsigned long long)atomic_load(&mapped_fallbacks));
	ksft_test_result(atomic_load(&net_progress) > 0,
			 "netblocks: %lu rounds of a /22 or /23 added as /24s, %d live blocks' addresses tested, %lu blocks deleted\n",
			 atomic_load(&net_progress), NET_LIVE,
			 atomic_load(&net_deleted));
	if (xdp < 0)
		ksft_test_result_skip("bloom-xdp attached and detached: %s\n",
				      xdp_why);
	else
		ksft_test_result(atomic_load(&xdp_progress) > 0,
				 "bloom-xdp attached (held: destroy refused), detached (hold gone: destroy works) %lu times\n",
				 atomic_load(&xdp_progress));

	for (i = 0; i < NTYPES; i++) {
		bt_destroy(writers[i].fd, writers[i].name);
		close(writers[i].fd);
	}
	bt_destroy_all();
	mem = wait_memory_used(mem0, 3 * BT_FREE_WAIT_MS);
	ksft_test_result(mem == mem0, "memory_used back to %lld (%lld)\n",
			 mem0, mem);
	live = wait_live_allocations(live0, 3 * BT_FREE_WAIT_MS);
	ksft_test_result(live == live0,
			 "live_allocations back to %lld (%lld)\n", live0, live);
	close(fd);
	if (xt == 1 && bt_unload_module("xt_bloom"))
		ksft_print_msg("rmmod xt_bloom: %s\n", strerror(errno));
	ksft_finished();
}
