// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_faults: every call of /dev/bloom that allocates or copies, run with
 * the kernel's fault injection failing its 1st, 2nd, 3rd, ... fault point
 * (/proc/self/task/TID/fail-nth, Documentation/fault-injection/
 * fault-injection.rst) until it succeeds with no fault injected.
 *
 * A fault point is any allocation (failslab, fail_page_alloc) or user copy
 * (fail_usercopy) the call makes in this thread, bloom's own and the
 * kernel's below it (kobject, sysfs, kernfs, uevent). For each one:
 *   - the call fails with ENOMEM or EFAULT (uapi/linux/bloom.h's list; no
 *     other errno can be a fault's), or succeeds (a fault the kernel
 *     absorbed: kvmalloc() falling back to vmalloc(), a uevent not sent)
 *     and then works;
 *   - a failed call leaves the module as it was: the names (LIST), the
 *     memory charged (VERSION's memory_used), the module's live
 *     allocations (debugfs; a filter struct goes with its kobject's
 *     release, which CONFIG_DEBUG_KOBJECT_RELEASE delays by 1-4 s: polled
 *     briefly per point, and to the end of a bounded wait once per
 *     operation), and the filter it worked on (INFO), except where the
 *     uapi header documents a change (ADD's results bitmap unwritable,
 *     a scalable filter's failed growth keeps the keys added before);
 *   - the final, fault-free call must work: the keys it added are present.
 *
 * Prints per operation how many fault points it took and what they did.
 * On a kernel without fault injection (Debian's: no fail-nth) each
 * operation runs once, without faults, and the fault sweep is reported as
 * SKIP; make check-debug's kernel has it (selftests/debug-kernel/).
 * Beyond /dev/bloom's calls: an iptables rule on a filter (xt_bloom's
 * checkentry, through the legacy IPT_SO_SET_REPLACE: bloom_ipt.h) in a
 * namespace of the test's own; a filter made in a new network namespace
 * (unshare, open, create: the namespace's setup, bloom's pernet init with
 * it); an expiring filter's rotation, run in this task through debugfs
 * bloom/rotate; a create that grows the namespace's table of filters by
 * id; then bloom.ko's own load (finit_module of
 * BLOOM_MODFILE, default /run/bloom-vm/bloom.ko, run.sh's copy), with
 * its sysfs, debugfs, device and kfunc registration: a failed load leaves
 * nothing behind, a load that absorbed a fault works, and the final load
 * leaves the module loaded for the tests after this one. The new network
 * namespace's sweep runs last: most of its fault points are the kernel's
 * namespace setup (every pernet init of the loaded modules), each one a
 * namespace made and torn down, which takes the longest. The kernel's
 * own part of those two may fail with errnos of its own (unshare: ENODEV,
 * the module loader: ELOOP, seen on the debug kernel): counted apart, as
 * long as nothing of bloom is left; bloom's calls still give ENOMEM or
 * EFAULT only.
 *
 * Environment: XT_BLOOM_KO (default ./xt_bloom.ko) for the rule sweep,
 * which loads it when it is not and unloads it again; BLOOM_FAULTS_MAX
 * (default 3000) fault points per operation at most;
 * BLOOM_FAULTS_ONLY=word,word,... runs only the operations whose
 * names hold one of the words; BLOOM_FAULTS_BUDGET=SECONDS takes no fault
 * point after that many seconds: the sweep it was in and the operations
 * left are reported as SKIP, the first with the points it took (a full
 * run of the first 37 sweeps, about 2,000 fault points, took 30 minutes on
 * the debug kernel under TCG on a loaded 2-core machine, boot included;
 * selftests/debug-kernel/README has the counts of the later ones).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kselftest.h"
#include "bloom_test.h"
#include "bloom_ipt.h"

#define FI_DIR		"/sys/kernel/debug"
#define NKEYS_SMALL	16
#define NKEYS_LARGE	20000	/* 320 KiB of keys: several 64 KiB copies */
#define MAX_NAMES	256
/* A filter struct's release may be deferred by 1-4 s (see above). */
#define SETTLE_POINT_MS	200
#define SETTLE_OP_MS	(3 * BT_FREE_WAIT_MS)

static int nth_fd = -1;

/* ---- fail-nth ---- */

static bool nth_open(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth",
		 (long)syscall(SYS_gettid));
	nth_fd = open(path, O_RDWR | O_CLOEXEC);
	return nth_fd >= 0;
}

static void nth_arm(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(nth_fd, buf, len, 0) != len)
		ksft_exit_fail_msg("write fail-nth: %s\n", strerror(errno));
}

/*
 * Whether the armed fault was injected, and disarms. The read's own copy
 * to user memory is a fault point too: if the fault was still pending with
 * one point to go, the read fails (EFAULT), which means "not injected
 * during the call"; the write of 0 leaves it disarmed either way.
 */
static bool nth_injected(void)
{
	char buf[16] = "";
	ssize_t n = pread(nth_fd, buf, sizeof(buf) - 1, 0);
	bool injected = n > 0 && atoi(buf) == 0;

	(void)!pwrite(nth_fd, "0", 1, 0);
	return injected;
}

/* ---- the fault attributes (debugfs), set for the run and restored ---- */

static const struct fi_attr {
	const char *file;
	const char *value;
} fi_attrs[] = {
	/* fail sleeping allocations too: all of the module's are */
	{ "failslab/ignore-gfp-wait", "N" },
	{ "fail_page_alloc/ignore-gfp-wait", "N" },
	/* single pages too (vmalloc()'s, new slabs) */
	{ "fail_page_alloc/min-order", "0" },
	/* no stack dump per injected fault on the serial console */
	{ "failslab/verbose", "0" },
	{ "fail_page_alloc/verbose", "0" },
	{ "fail_usercopy/verbose", "0" },
};
static char fi_saved[ARRAY_SIZE(fi_attrs)][32];

static void fi_write(const char *file, const char *value)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), FI_DIR "/%s", file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;	/* that kind of fault is not built in */
	(void)!write(fd, value, strlen(value));
	close(fd);
}

static void fi_setup(void)
{
	char path[128];
	size_t i;

	bt_debugfs_mount();
	for (i = 0; i < ARRAY_SIZE(fi_attrs); i++) {
		snprintf(path, sizeof(path), FI_DIR "/%s", fi_attrs[i].file);
		if (read_str_file(path, fi_saved[i], sizeof(fi_saved[i])))
			fi_saved[i][0] = 0;
		else
			ksft_print_msg("%s: %s (was %s)\n", fi_attrs[i].file,
				       fi_attrs[i].value, fi_saved[i]);
		fi_write(fi_attrs[i].file, fi_attrs[i].value);
	}
}

static void fi_restore(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fi_attrs); i++)
		if (fi_saved[i][0])
			fi_write(fi_attrs[i].file, fi_saved[i]);
}

/* ---- what the module looks like ---- */

struct state {
	char names[MAX_NAMES][BLOOM_NAME_LEN];
	__u32 count;
	__u64 memory_used;
	long long live;
};

static int state_get(int fd, struct state *s)
{
	struct bloom_version v;
	struct bloom_list l;

	memset(s, 0, sizeof(*s));
	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	l.capacity = MAX_NAMES;
	l.names = u64_ptr(s->names);
	if (ioctl(fd, BLOOM_IOC_LIST, &l) || bt_version(fd, &v))
		return -1;
	s->count = l.out_count;
	s->memory_used = v.memory_used;
	s->live = live_allocations();
	return 0;
}

/* What differs between @a and @b, in @why; 0 if nothing but live does. */
static int state_cmp(const struct state *a, const struct state *b,
		     char *why, size_t len)
{
	if (a->count != b->count ||
	    memcmp(a->names, b->names, sizeof(a->names))) {
		snprintf(why, len, "LIST: %u filters, was %u", b->count,
			 a->count);
		return -1;
	}
	if (a->memory_used != b->memory_used) {
		snprintf(why, len, "memory_used %llu, was %llu",
			 (unsigned long long)b->memory_used,
			 (unsigned long long)a->memory_used);
		return -1;
	}
	return 0;
}

/* ---- the operations ---- */

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

/* iptables' filter table of the namespace of the sweep (bloom_ipt.h) */
static int ipt_sock = -1;

/* Snapshots for the restore operations, made once. */
static __u8 *snap_plain, *snap_scalable;
static __u64 snap_plain_len, snap_scalable_len;

static __u8 keybuf[NKEYS_LARGE * 16];
static __u8 resbuf[NKEYS_LARGE / 8 + 1];

static int add_keys(int fd, unsigned long cmd, __u64 first, __u32 n,
		    struct bloom_batch *b)
{
	__u32 i;

	for (i = 0; i < n; i++)
		make_key16(first + i, keybuf + 16 * i);
	return bt_batch(fd, cmd, keybuf, (__u64)n * 16, n, 16, NULL, resbuf,
			b);
}

/* 0 when every key [first, first + n) tests present in the bound filter. */
static int keys_present(int fd, __u64 first, __u32 n)
{
	struct bloom_batch b;

	if (add_keys(fd, BLOOM_IOC_QUERY, first, n, &b))
		return -1;
	return b.out_hits == n ? 0 : -1;
}

static int info_of(int fd, const char *name, struct bloom_info *info)
{
	return bt_info(fd, name, info);
}

static void must(int ret, const char *what)
{
	if (ret)
		ksft_exit_fail_msg("setup: %s: %s\n", what, strerror(errno));
}

static int bind_new(struct ctx *c, const char *name)
{
	close(c->fd);
	c->fd = bt_open();
	return c->fd < 0 ? -1 : bt_bind(c->fd, name);
}

#define OP_A_CHANGES_EFAULT	1U	/* "a" may change on EFAULT */
#define OP_A_CHANGES		2U	/* "a" may change on any failure */
#define OP_A_MEMORY_EFAULT	4U	/* memory_used too, on EFAULT */
#define OP_NETNS_ONLY		8U	/* only in a namespace of the test's */
#define OP_LAST			16U	/* after the load sweep: the longest */

/* create, every way */

static int create_named(struct ctx *c, struct bloom_create *req)
{
	return ioctl(c->fd, BLOOM_IOC_CREATE, req);
}

static int works_a(struct ctx *c)
{
	struct bloom_batch b;

	if (bind_new(c, "a") || add_keys(c->fd, BLOOM_IOC_ADD, 1, 64, &b))
		return -1;
	return keys_present(c->fd, 1, 64);
}

static int run_create_plain(struct ctx *c)
{
	struct bloom_create req = bt_create_req("a", c->type, 1000, 10000000,
						0);

	return create_named(c, &req);
}

static int run_create_hashkey(struct ctx *c)
{
	struct bloom_create req = bt_create_req("a", c->type, 1000, 10000000,
						BLOOM_CREATE_F_HASH_KEY);

	memset(req.hash_key, 0x5a, sizeof(req.hash_key));
	return create_named(c, &req);
}

static int run_create_sized(struct ctx *c)
{
	struct bloom_create req = bt_create_req("a", c->type, 0, 10000000,
						BLOOM_CREATE_F_SIZE);

	req.memory_bytes = 64 << 10;
	return create_named(c, &req);
}

static int run_create_geometry(struct ctx *c)
{
	struct bloom_create req = bt_create_req("a", c->type, 1000, 10000000,
						BLOOM_CREATE_F_GEOMETRY);

	req.bits = 16384;
	req.hashes = 5;
	return create_named(c, &req);
}

static int run_create_scalable(struct ctx *c)
{
	struct bloom_create req = bt_create_req("a", c->type, 100, 10000000,
						BLOOM_CREATE_F_SCALABLE);

	return create_named(c, &req);
}

/* A filter of c->type named @name, bound to c->fd, with 64 keys from @first. */
static void setup_filled(struct ctx *c, const char *name, __u64 first)
{
	struct bloom_batch b;

	must(bt_create(c->fd, name, c->type, 1000, 10000000, 0), "create");
	must(bind_new(c, name), "bind");
	must(add_keys(c->fd, BLOOM_IOC_ADD, first, 64, &b), "add");
}

static void setup_src(struct ctx *c)
{
	setup_filled(c, "src", 1000);
}

static int run_create_like(struct ctx *c)
{
	struct bloom_create req = bt_create_req("a", 0, 0, 0,
						BLOOM_CREATE_F_LIKE);

	set_name(req.like, "src");
	return create_named(c, &req);
}

static void setup_fresh_fd(struct ctx *c)
{
	c->fd2 = bt_open();
	must(c->fd2 < 0, "open");
}

static int run_create_bind(struct ctx *c)
{
	struct bloom_create req = bt_create_req("a", c->type, 1000, 10000000,
						BLOOM_CREATE_F_BIND);

	return ioctl(c->fd2, BLOOM_IOC_CREATE, &req);
}

static int works_bound_fd2(struct ctx *c)
{
	struct bloom_batch b;

	if (add_keys(c->fd2, BLOOM_IOC_ADD, 1, 64, &b))
		return -1;
	return keys_present(c->fd2, 1, 64);
}

/* open, bind */

static int run_open(struct ctx *c)
{
	c->fd2 = open(BLOOM_DEV, O_RDWR | O_CLOEXEC);
	return c->fd2 < 0 ? -1 : 0;
}

static int works_open(struct ctx *c)
{
	struct bloom_version v;

	return bt_version(c->fd2, &v);
}

static void setup_a(struct ctx *c)
{
	setup_filled(c, "a", 1);
}

static void setup_a_fd2(struct ctx *c)
{
	setup_a(c);
	setup_fresh_fd(c);
}

static int run_bind(struct ctx *c)
{
	return bt_bind(c->fd2, "a");
}

static int works_bind(struct ctx *c)
{
	return keys_present(c->fd2, 1, 64);
}

/* batches on the filter "a" bound to c->fd */

static int run_add_small(struct ctx *c)
{
	return add_keys(c->fd, BLOOM_IOC_ADD, c->key_base, NKEYS_SMALL, NULL);
}

static int works_add_small(struct ctx *c)
{
	return keys_present(c->fd, c->key_base, NKEYS_SMALL) ?:
	       keys_present(c->fd, 1, 64);
}

static int run_add_large(struct ctx *c)
{
	return add_keys(c->fd, BLOOM_IOC_ADD, c->key_base, NKEYS_LARGE, NULL);
}

static int works_add_large(struct ctx *c)
{
	return keys_present(c->fd, c->key_base, NKEYS_LARGE) ?:
	       keys_present(c->fd, 1, 64);
}

static int run_query(struct ctx *c)
{
	struct bloom_batch b;
	int ret = add_keys(c->fd, BLOOM_IOC_QUERY, 1, 64, &b);

	/* the reply's hits are checked by works: a query changes nothing */
	return ret;
}

static int works_query(struct ctx *c)
{
	return keys_present(c->fd, 1, 64);
}

static int run_delete(struct ctx *c)
{
	return add_keys(c->fd, BLOOM_IOC_DELETE, 1, 32, NULL);
}

static int works_delete(struct ctx *c)
{
	/* the 32 others stay */
	return keys_present(c->fd, 33, 32);
}

/* expiring filters: 16 generations of 10 s / 15 each */

#define EXPIRE_TIMEOUT_MS	10000
#define EXPIRE_GENERATIONS	16

static int run_create_expiring(struct ctx *c)
{
	struct bloom_create req = bt_create_req("a", c->type, 1000, 10000000,
						BLOOM_CREATE_F_TIMEOUT);

	req.timeout_ms = EXPIRE_TIMEOUT_MS;
	req.generations = EXPIRE_GENERATIONS;
	return create_named(c, &req);
}

/* "a", expiring, bound to c->fd, with the keys 1..64. */
static void setup_expiring_a(struct ctx *c)
{
	struct bloom_batch b;

	must(run_create_expiring(c), "create expiring a");
	must(bind_new(c, "a"), "bind a");
	must(add_keys(c->fd, BLOOM_IOC_ADD, 1, 64, &b), "add to a");
}

/*
 * A rotation in this task (debugfs bloom/rotate, module/debug.c): the
 * workqueue's would run where fail-nth cannot reach it.
 */
static void setup_rotate(struct ctx *c)
{
	setup_expiring_a(c);
	c->fd2 = open(BLOOM_DEBUGFS "/rotate", O_WRONLY | O_CLOEXEC);
	must(c->fd2 < 0, "open " BLOOM_DEBUGFS "/rotate");
}

static int run_rotate(struct ctx *c)
{
	return write(c->fd2, "a", 1) == 1 ? 0 : -1;
}

/* the keys of the last 10 s stay; the rotation was one period's */
static int works_rotate(struct ctx *c)
{
	struct bloom_info info;

	if (info_of(c->fd, NULL, &info) ||
	    info.next_rotation_ms >
	    EXPIRE_TIMEOUT_MS / (EXPIRE_GENERATIONS - 1) + 1)
		return -1;
	return keys_present(c->fd, 1, 64);
}

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

static void setup_id_table(struct ctx *c)
{
	char name[BLOOM_NAME_LEN];
	int i;

	setup_src(c);
	for (i = 1; i <= ID_TABLE_PADS; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		must(bt_create(c->fd, name, c->type, 1000, 10000000, 0),
		     "create pad");
	}
}

/* an iptables rule on "a" (xt_bloom's checkentry), in a namespace of ours */

static void setup_rule(struct ctx *c)
{
	must(bt_create(c->fd, "a", c->type, 1000, 10000000, 0), "create a");
	must(bind_new(c, "a"), "bind a");
}

static int run_rule(struct ctx *c)
{
	(void)c;
	return bt_ipt_set(ipt_sock, "a");
}

/* the rule holds "a" (destroy: EBUSY); taken out, it does not */
static int works_rule(struct ctx *c)
{
	struct bloom_info info;

	if (info_of(c->fd, "a", &info) || info.rules != 1 ||
	    bt_ipt_entries(ipt_sock) != 5)
		return -1;
	if (bt_destroy(c->fd, "a") != -1 || errno != EBUSY)
		return -1;
	if (bt_ipt_set(ipt_sock, NULL) || info_of(c->fd, "a", &info) ||
	    info.rules)
		return -1;
	return 0;
}

/* a filter in a new network namespace: unshare, open, create */

static void setup_netns(struct ctx *c)
{
	c->home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	must(c->home < 0, "open the namespace");
}

static int run_netns(struct ctx *c)
{
	if (unshare(CLONE_NEWNET)) {
		c->unshare_failed = true;
		return -1;
	}
	c->fd2 = bt_open();
	if (c->fd2 < 0)
		return -1;
	return bt_create(c->fd2, "a", c->type, 1000, 10000000,
			 BLOOM_CREATE_F_BIND);
}

/* Out of the fault's reach: back home; the new namespace dies with fd2. */
static void after_netns(struct ctx *c)
{
	if (setns(c->home, CLONE_NEWNET))
		ksft_exit_fail_msg("setns home: %s\n", strerror(errno));
	close(c->home);
	c->home = -1;
}

static int works_netns(struct ctx *c)
{
	struct bloom_info info;

	/* home has no "a"; the new namespace has, bound to fd2 */
	if (info_of(c->fd, "a", &info) != -1 || errno != ENOENT)
		return -1;
	return works_bound_fd2(c);
}

/* a scalable filter whose next add needs a new stage */

/* "a", scalable from 100 keys, bound to c->fd, with the keys 1..64. */
static void setup_scalable_a(struct ctx *c)
{
	struct bloom_create req = bt_create_req("a", c->type, 100, 10000000,
						BLOOM_CREATE_F_SCALABLE);
	struct bloom_batch b;

	must(ioctl(c->fd, BLOOM_IOC_CREATE, &req), "create scalable a");
	must(bind_new(c, "a"), "bind a");
	must(add_keys(c->fd, BLOOM_IOC_ADD, 1, 64, &b), "add to a");
}

static void setup_scalable_full(struct ctx *c)
{
	struct bloom_batch b;

	setup_scalable_a(c);
	/* stage 0 filled to its capacity exactly: false positives do not count */
	c->key_base = 1000000;
	while (info_of(c->fd, NULL, &c->info) == 0 && c->info.stages == 1) {
		struct bloom_stages s;
		struct bloom_stage st[1];

		memset(&s, 0, sizeof(s));
		s.size = sizeof(s);
		s.capacity = 1;
		s.stages = u64_ptr(st);
		must(ioctl(c->fd, BLOOM_IOC_STAGES, &s), "stages");
		if (st[0].count >= st[0].capacity)
			break;
		must(add_keys(c->fd, BLOOM_IOC_ADD, c->key_base++, 1, &b),
		     "fill a");
	}
}

static int run_grow(struct ctx *c)
{
	return add_keys(c->fd, BLOOM_IOC_ADD, c->key_base, NKEYS_SMALL, NULL);
}

static int works_grow(struct ctx *c)
{
	struct bloom_info info;

	if (info_of(c->fd, NULL, &info) || info.stages != 2)
		return -1;
	return works_add_small(c);
}

/* two filters */

static void setup_pair(struct ctx *c)
{
	struct bloom_create like = bt_create_req("b", 0, 0, 0,
						 BLOOM_CREATE_F_LIKE);
	struct bloom_batch b;

	setup_a(c);
	set_name(like.like, "a");
	must(ioctl(c->fd, BLOOM_IOC_CREATE, &like), "create b like a");
	c->fd2 = bt_open();
	must(c->fd2 < 0 || bt_bind(c->fd2, "b"), "bind b");
	must(add_keys(c->fd2, BLOOM_IOC_ADD, 5000, 64, &b), "add to b");
}

static int pair_ioctl(struct ctx *c, unsigned long cmd)
{
	struct bloom_pair p;

	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	set_name(p.name, "a");
	set_name(p.other, "b");
	return ioctl(c->fd, cmd, &p);
}

static int run_merge(struct ctx *c)
{
	return pair_ioctl(c, BLOOM_IOC_MERGE);
}

static int works_merge(struct ctx *c)
{
	return keys_present(c->fd, 1, 64) ?: keys_present(c->fd, 5000, 64);
}

static int run_swap(struct ctx *c)
{
	return pair_ioctl(c, BLOOM_IOC_SWAP);
}

static int works_swap(struct ctx *c)
{
	/* each descriptor stays with its name: a has b's keys now */
	return keys_present(c->fd, 5000, 64) ?: keys_present(c->fd2, 1, 64);
}

static int run_flush(struct ctx *c)
{
	return bt_name_ioctl(c->fd, BLOOM_IOC_FLUSH, "a");
}

static int works_flush(struct ctx *c)
{
	struct bloom_info info;

	if (info_of(c->fd, NULL, &info) || info.bits_set || info.count)
		return -1;
	return 0;
}

static int run_destroy(struct ctx *c)
{
	return bt_destroy(c->fd, "a");
}

static int works_destroy(struct ctx *c)
{
	struct bloom_info info;

	return bt_info(c->fd, "a", &info) == -1 && errno == ENOENT ? 0 : -1;
}

/* replies that allocate or copy */

static int run_list(struct ctx *c)
{
	char names[4][BLOOM_NAME_LEN];
	struct bloom_list l;

	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	l.capacity = 4;
	l.names = u64_ptr(names);
	if (ioctl(c->fd, BLOOM_IOC_LIST, &l))
		return -1;
	return l.out_count == 1 && !strcmp(names[0], "a") ? 0 : -2;
}

static int run_info(struct ctx *c)
{
	struct bloom_info info;

	return bt_info(c->fd, "a", &info);
}

static int run_stages(struct ctx *c)
{
	struct bloom_stage st[BLOOM_SCALE_STAGES_MAX];
	struct bloom_stages s;

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.capacity = BLOOM_SCALE_STAGES_MAX;
	s.stages = u64_ptr(st);
	return ioctl(c->fd, BLOOM_IOC_STAGES, &s);
}

/* "a" grown to 3 stages. */
static void setup_scalable_grown(struct ctx *c)
{
	struct bloom_batch b;

	setup_scalable_a(c);
	must(add_keys(c->fd, BLOOM_IOC_ADD, 100000, 400, &b), "grow a");
}

/* snapshots */

static __u8 *save_a(int fd, __u64 *len)
{
	struct bloom_save s;
	__u8 *buf;

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	set_name(s.name, "a");
	must(ioctl(fd, BLOOM_IOC_SAVE, &s), "save size");
	buf = malloc(s.out_len);
	must(!buf, "malloc");
	memset(buf, 0, s.out_len);
	s.buf = u64_ptr(buf);
	s.buf_len = s.out_len;
	must(ioctl(fd, BLOOM_IOC_SAVE, &s), "save");
	*len = s.out_len;
	return buf;
}

static int run_save(struct ctx *c)
{
	struct bloom_save s;

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	set_name(s.name, "a");
	s.buf = u64_ptr(keybuf);
	s.buf_len = sizeof(keybuf);
	return ioctl(c->fd, BLOOM_IOC_SAVE, &s);
}

/* Makes both snapshots once (keys 1..64; the scalable one with 3 stages). */
static void make_snapshots(int fd)
{
	struct ctx c = { .fd = dup(fd), .fd2 = -1, .type = BLOOM_TYPE_COUNTING };

	setup_a(&c);
	snap_plain = save_a(c.fd, &snap_plain_len);
	must(bt_destroy(c.fd, "a"), "destroy a");
	c.type = BLOOM_TYPE_STANDARD;
	setup_scalable_grown(&c);
	snap_scalable = save_a(c.fd, &snap_scalable_len);
	must(bt_destroy(c.fd, "a"), "destroy a");
	close(c.fd);
}

static int restore(struct ctx *c, __u8 *buf, __u64 len, __u32 flags)
{
	struct bloom_restore r;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.flags = flags;
	r.buf = u64_ptr(buf);
	r.buf_len = len;
	return ioctl(c->fd, BLOOM_IOC_RESTORE, &r);
}

static int run_restore_plain(struct ctx *c)
{
	return restore(c, snap_plain, snap_plain_len, 0);
}

static int run_restore_scalable(struct ctx *c)
{
	return restore(c, snap_scalable, snap_scalable_len, 0);
}

static int works_restored(struct ctx *c)
{
	return bind_new(c, "a") ?: keys_present(c->fd, 1, 64);
}

static void setup_counting_empty(struct ctx *c)
{
	must(bt_create(c->fd, "a", BLOOM_TYPE_COUNTING, 1000, 10000000, 0),
	     "create a");
	must(bind_new(c, "a"), "bind a");
}

static int run_restore_replace(struct ctx *c)
{
	return restore(c, snap_plain, snap_plain_len, BLOOM_RESTORE_F_REPLACE);
}

static int works_replaced(struct ctx *c)
{
	/* the descriptor stays bound across the replace */
	return keys_present(c->fd, 1, 64);
}

#define CREATE_OP(_name, _run, _type)					\
	{ .name = _name, .run = _run, .works = works_a, .type = _type }

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

static const struct op_entry ops[] = {
	{ "open", NULL, run_open, works_open, 0, 0 },
	CREATE_OP("create standard", run_create_plain, BLOOM_TYPE_STANDARD),
	CREATE_OP("create blocked", run_create_plain, BLOOM_TYPE_BLOCKED),
	CREATE_OP("create counting", run_create_plain, BLOOM_TYPE_COUNTING),
	CREATE_OP("create dleft", run_create_plain, BLOOM_TYPE_DLEFT),
	CREATE_OP("create with hash key", run_create_hashkey,
		  BLOOM_TYPE_STANDARD),
	CREATE_OP("create sized (memory, rate)", run_create_sized,
		  BLOOM_TYPE_BLOCKED),
	CREATE_OP("create geometry standard", run_create_geometry,
		  BLOOM_TYPE_STANDARD),
	CREATE_OP("create geometry counting", run_create_geometry,
		  BLOOM_TYPE_COUNTING),
	CREATE_OP("create scalable standard", run_create_scalable,
		  BLOOM_TYPE_STANDARD),
	CREATE_OP("create scalable blocked", run_create_scalable,
		  BLOOM_TYPE_BLOCKED),
	CREATE_OP("create expiring standard", run_create_expiring,
		  BLOOM_TYPE_STANDARD),
	CREATE_OP("create expiring blocked", run_create_expiring,
		  BLOOM_TYPE_BLOCKED),
	{ "create like", setup_src, run_create_like, works_a,
	  BLOOM_TYPE_COUNTING, 0 },
	{ "create bind", setup_fresh_fd, run_create_bind, works_bound_fd2,
	  BLOOM_TYPE_DLEFT, 0 },
	{ "bind", setup_a_fd2, run_bind, works_bind, BLOOM_TYPE_STANDARD, 0 },
	{ "add small batch standard", setup_a, run_add_small, works_add_small,
	  BLOOM_TYPE_STANDARD, OP_A_CHANGES_EFAULT },
	{ "add small batch dleft", setup_a, run_add_small, works_add_small,
	  BLOOM_TYPE_DLEFT, OP_A_CHANGES_EFAULT },
	{ "add large batch blocked", setup_a, run_add_large, works_add_large,
	  BLOOM_TYPE_BLOCKED, OP_A_CHANGES_EFAULT },
	{ "add large batch counting", setup_a, run_add_large, works_add_large,
	  BLOOM_TYPE_COUNTING, OP_A_CHANGES_EFAULT },
	{ "query batch", setup_a, run_query, works_query,
	  BLOOM_TYPE_STANDARD, 0 },
	{ "delete batch counting", setup_a, run_delete, works_delete,
	  BLOOM_TYPE_COUNTING, OP_A_CHANGES_EFAULT },
	{ "scalable growth", setup_scalable_full, run_grow, works_grow,
	  BLOOM_TYPE_STANDARD, OP_A_CHANGES | OP_A_MEMORY_EFAULT },
	{ "save counting", setup_a, run_save, works_query,
	  BLOOM_TYPE_COUNTING, 0 },
	{ "save scalable", setup_scalable_grown, run_save, works_query,
	  BLOOM_TYPE_STANDARD, 0 },
	{ "restore plain", NULL, run_restore_plain, works_restored, 0, 0 },
	{ "restore scalable", NULL, run_restore_scalable, works_restored, 0, 0 },
	{ "restore replace", setup_counting_empty, run_restore_replace,
	  works_replaced, 0, 0 },
	{ "merge", setup_pair, run_merge, works_merge, BLOOM_TYPE_COUNTING, 0 },
	{ "swap", setup_pair, run_swap, works_swap, BLOOM_TYPE_COUNTING, 0 },
	{ "flush", setup_a, run_flush, works_flush, BLOOM_TYPE_COUNTING, 0 },
	{ "destroy", setup_a, run_destroy, works_destroy, BLOOM_TYPE_BLOCKED,
	  0 },
	{ "list", setup_a, run_list, NULL, BLOOM_TYPE_STANDARD, 0 },
	{ "info", setup_a, run_info, NULL, BLOOM_TYPE_DLEFT, 0 },
	{ "stages", setup_scalable_grown, run_stages, NULL, BLOOM_TYPE_STANDARD,
	  0 },
	{ "save expiring", setup_expiring_a, run_save, works_query,
	  BLOOM_TYPE_BLOCKED, 0 },
	{ "expiring rotation", setup_rotate, run_rotate, works_rotate,
	  BLOOM_TYPE_STANDARD, 0 },
	{ "create growing the id table", setup_id_table, run_create_plain,
	  works_a, BLOOM_TYPE_STANDARD, OP_NETNS_ONLY },
	{ "insert rule", setup_rule, run_rule, works_rule, BLOOM_TYPE_STANDARD,
	  OP_NETNS_ONLY },
	{ "unshare and create", setup_netns, run_netns, works_netns,
	  BLOOM_TYPE_BLOCKED, OP_LAST },
};

/* ---- the sweep ---- */

struct tally {
	unsigned int points, failed, absorbed, enomem, efault;
	unsigned int other;	/* errors of unshare's setup or the module loader */
	int other_errno;
	unsigned int pending;	/* points whose frees came late */
	bool cut;		/* BLOOM_FAULTS_BUDGET spent in the sweep */
	char error[256];
};

static void teardown(struct ctx *c)
{
	if (c->fd2 >= 0)
		close(c->fd2);
	c->fd2 = -1;
	if (ipt_sock >= 0)
		bt_ipt_set(ipt_sock, NULL);
	bt_destroy(c->fd, "a");
	bt_destroy(c->fd, "b");
	bt_destroy(c->fd, "src");
	for (int i = 1; i <= ID_TABLE_PADS; i++) {
		char name[BLOOM_NAME_LEN];

		snprintf(name, sizeof(name), "p%d", i);
		bt_destroy(c->fd, name);
	}
	/* an unbound descriptor again: a bound one keeps the filter struct */
	close(c->fd);
	c->fd = bt_open();
	if (c->fd < 0)
		ksft_exit_fail_msg("open: %s\n", strerror(errno));
}

static bool info_same(const struct bloom_info *a, const struct bloom_info *b)
{
	return a->bits == b->bits && a->bits_set == b->bits_set &&
	       a->count == b->count && a->memory_bytes == b->memory_bytes &&
	       a->stages == b->stages && a->deletes == b->deletes &&
	       a->rules == b->rules;
}

static int fail(struct tally *t, unsigned int n, const char *fmt, ...)
{
	int len = snprintf(t->error, sizeof(t->error), "fault point %u: ", n);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->error + len, sizeof(t->error) - len, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * One attempt with the @n-th fault point failing (0: none). 1 when the call
 * succeeded with no fault injected (the sweep is over), 0 to go on, -1 on
 * a failed check (t->error says which).
 */
static int attempt(const struct op_entry *op, int *fdp, unsigned int n,
		   struct tally *t)
{
	struct ctx c = { .fd = *fdp, .fd2 = -1, .type = op->type,
			 .key_base = 1000000ULL * (n + 2), .home = -1 };
	struct state s0, s1, s2;
	struct bloom_info after;
	char why[160];
	bool injected;
	int ret, err;

	if (state_get(c.fd, &s0))
		return fail(t, n, "state: %s", strerror(errno));
	if (op->setup)
		op->setup(&c);
	c.have_info = !info_of(c.fd, "a", &c.info);
	if (state_get(c.fd, &s1))
		return fail(t, n, "state: %s", strerror(errno));

	if (n)
		nth_arm(n);
	ret = op->run(&c);
	err = errno;
	injected = n && nth_injected();
	*fdp = c.fd;
	if (op->run == run_netns)
		after_netns(&c);

	if (!injected && ret)
		return fail(t, n, "failed with no fault injected: %s (%d)",
			    strerror(err), ret);
	if (injected)
		t->points++;
	if (ret) {
		t->failed++;
		if (err == ENOMEM) {
			t->enomem++;
		} else if (err == EFAULT) {
			t->efault++;
		} else if (c.unshare_failed) {
			/* the namespace's setup is the kernel's, its errnos too */
			t->other++;
			t->other_errno = err;
		} else {
			return fail(t, n, "errno %s, not ENOMEM or EFAULT",
				    strerror(err));
		}
		if (op->run == run_open && c.fd2 >= 0)
			return fail(t, n, "open failed but returned a descriptor");
		if (state_get(c.fd, &s2))
			return fail(t, n, "state: %s", strerror(errno));
		if (state_cmp(&s1, &s2, why, sizeof(why)) &&
		    !(err == EFAULT && (op->flags & OP_A_MEMORY_EFAULT) &&
		      s1.count == s2.count))
			return fail(t, n, "after %s: %s", strerror(err), why);
		if (c.have_info && !(op->flags & OP_A_CHANGES) &&
		    !(err == EFAULT && (op->flags & OP_A_CHANGES_EFAULT))) {
			if (info_of(c.fd, "a", &after))
				return fail(t, n, "a is gone after %s",
					    strerror(err));
			if (!info_same(&c.info, &after))
				return fail(t, n, "a changed after %s (bits_set %llu -> %llu)",
					    strerror(err),
					    (unsigned long long)c.info.bits_set,
					    (unsigned long long)after.bits_set);
		}
		if (op->run == run_create_bind && bt_info(c.fd2, NULL, &after) != -1)
			return fail(t, n, "the descriptor is bound after a failed create");
		if (op->run == run_rule && bt_ipt_entries(ipt_sock) != 4)
			return fail(t, n, "the table has %d entries after a failed replace, not 4",
				    bt_ipt_entries(ipt_sock));
	} else {
		if (injected)
			t->absorbed++;
		if (op->works && op->works(&c))
			return fail(t, n, "%s succeeded%s but does not work",
				    op->name, injected ? " (fault absorbed)" : "");
	}
	teardown(&c);
	*fdp = c.fd;
	/* the initial namespace's memory_used counts dying namespaces too */
	if (op->run == run_netns)
		wait_memory_used(s0.memory_used, SETTLE_OP_MS);
	if (state_get(c.fd, &s2))
		return fail(t, n, "state: %s", strerror(errno));
	if (state_cmp(&s0, &s2, why, sizeof(why)))
		return fail(t, n, "after teardown: %s", why);
	if (wait_live_allocations(s0.live, SETTLE_POINT_MS) != s0.live)
		t->pending++;
	return injected || !n ? 0 : 1;
}

/* Set once over_budget() said so: a sweep, or a part of one, was left out. */
static bool budget_spent;
/* Operations this environment left out (no iptables table, no module file). */
static unsigned int ops_left_out;

/*
 * Whether BLOOM_FAULTS_BUDGET seconds have passed since the first call;
 * the caller then leaves out what it was about to do.
 */
static bool over_budget(void)
{
	static double start;
	const char *env = getenv("BLOOM_FAULTS_BUDGET");

	if (!start)
		start = now_sec();
	if (env && atoi(env) > 0 && now_sec() - start > atoi(env))
		budget_spent = true;
	return budget_spent;
}

/*
 * The sweep of one operation; 0 when every point failed cleanly, or when
 * the budget ran out in the middle (t->cut: the points taken were clean).
 */
static int sweep(const struct op_entry *op, int *fdp, unsigned int max,
		 struct tally *t)
{
	struct state s0;
	long long live;
	unsigned int n;
	int ret = 0;

	memset(t, 0, sizeof(*t));
	if (state_get(*fdp, &s0))
		return fail(t, 0, "state: %s", strerror(errno));
	/* the call as it is, once: it must work without faults */
	ret = attempt(op, fdp, 0, t);
	for (n = 1; nth_fd >= 0 && !ret && n <= max; n++) {
		if (over_budget()) {
			t->cut = true;
			break;
		}
		ret = attempt(op, fdp, n, t);
	}
	if (nth_fd >= 0 && !ret && !t->cut)
		ret = fail(t, max, "still failing after %u fault points", max);
	if (ret < 0)
		return ret;
	/* every deferred free has happened, within a bound */
	live = wait_live_allocations(s0.live, SETTLE_OP_MS);
	if (live != s0.live)
		return fail(t, n, "live_allocations %lld, was %lld (%u points freed late)",
			    live, s0.live, t->pending);
	return 0;
}

static void report(const struct op_entry *op, const char *where, int ret,
		   const struct tally *t)
{
	if (ret) {
		ksft_test_result_fail("%s%s: %s\n", op->name, where, t->error);
		return;
	}
	if (nth_fd < 0) {
		ksft_test_result_pass("%s%s: works, without faults\n", op->name,
				      where);
		return;
	}
	if (t->cut) {
		ksft_test_result_skip("%s%s: BLOOM_FAULTS_BUDGET spent in the sweep, after %u fault points (%u failed cleanly, %u absorbed); the points after them were not taken\n",
				      op->name, where, t->points, t->failed,
				      t->absorbed);
		return;
	}
	ksft_test_result_pass("%s%s: %u fault points: %u failed cleanly (ENOMEM %u, EFAULT %u, other errnos of the kernel's own part %u%s%s), %u absorbed by the kernel; %u attempts' frees came later than %d ms\n",
			      op->name, where, t->points, t->failed, t->enomem,
			      t->efault, t->other, t->other ? ", last " : "",
			      t->other ? strerror(t->other_errno) : "",
			      t->absorbed, t->pending, SETTLE_POINT_MS);
}

/* BLOOM_FAULTS_ONLY: comma-separated substrings of operation names */
static bool selected(const char *name)
{
	const char *only = getenv("BLOOM_FAULTS_ONLY"), *p, *end;
	char word[64];
	size_t len;

	if (!only || !*only)
		return true;
	for (p = only; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ',');
		len = end - p < (long)sizeof(word) - 1 ? (size_t)(end - p) :
							 sizeof(word) - 1;
		memcpy(word, p, len);
		word[len] = 0;
		if (len && strstr(name, word))
			return true;
	}
	return false;
}

/* ---- xt_bloom and bloom.ko themselves ---- */

/* What a bloom.ko load leaves when it fails: nothing. */
static int module_gone(char *why, size_t len)
{
	static const char *const left[] = {
		"/sys/module/bloom", BLOOM_DEV, BLOOM_DEBUGFS,
		"/sys/kernel/btf/bloom", BLOOM_SYSFS,
	};
	struct stat st;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(left); i++)
		if (!stat(left[i], &st)) {
			snprintf(why, len, "%s is left", left[i]);
			return -1;
		}
	return 0;
}

/* A loaded bloom.ko works: a filter made, filled, queried, destroyed. */
static int module_works(void)
{
	struct bloom_batch b;
	int fd = bt_open(), ret;

	if (fd < 0)
		return -1;
	ret = bt_create(fd, "a", BLOOM_TYPE_BLOCKED, 1000, 10000000,
			BLOOM_CREATE_F_BIND) ||
	      add_keys(fd, BLOOM_IOC_ADD, 1, 64, &b) ||
	      keys_present(fd, 1, 64) || bt_destroy(fd, "a");
	close(fd);
	return ret ? -1 : 0;
}

/*
 * bloom.ko's load (finit_module) with the n-th fault point failing, kfunc
 * and BTF registration included, until it loads with no fault injected:
 * a failed load leaves nothing behind (module_gone(); kmemleak's verdict
 * comes from guest.sh), a load that absorbed a fault works and unloads.
 * Runs with bloom.ko unloaded; leaves it loaded, as a plain insmod does.
 */
static int sweep_load(int modfd, unsigned int max, struct tally *t)
{
	unsigned int n;
	bool injected;
	char why[128];
	int ret, err;

	memset(t, 0, sizeof(*t));
	for (n = nth_fd >= 0 ? 1 : 0; n <= max; n++) {
		if (n && over_budget()) {
			/* no fault point left to take: loaded as insmod does */
			t->cut = true;
			if (!bt_module_loaded("bloom") &&
			    syscall(SYS_finit_module, modfd, "", 0))
				return fail(t, n, "load after the budget: %s",
					    strerror(errno));
			return 0;
		}
		if (n)
			nth_arm(n);
		ret = syscall(SYS_finit_module, modfd, "", 0);
		err = errno;
		injected = n && nth_injected();
		if (!injected && ret)
			return fail(t, n, "load failed with no fault injected: %s",
				    strerror(err));
		if (injected)
			t->points++;
		if (ret) {
			t->failed++;
			if (module_gone(why, sizeof(why)))
				return fail(t, n, "after %s: %s",
					    strerror(err), why);
			/* the module loader's own errnos (ELOOP seen) too */
			if (err == ENOMEM) {
				t->enomem++;
			} else if (err == EFAULT) {
				t->efault++;
			} else {
				t->other++;
				t->other_errno = err;
			}
			continue;
		}
		if (module_works())
			return fail(t, n, "loaded%s but does not work",
				    injected ? " (fault absorbed)" : "");
		if (!injected)
			return 0;
		t->absorbed++;
		if (bt_unload_module("bloom"))
			return fail(t, n, "unload after an absorbed fault: %s",
				    strerror(errno));
	}
	return fail(t, max, "still failing after %u fault points", max);
}

/*
 * The selected operations of the initial namespace: the OP_LAST ones when
 * @last, else the others. Each one left after the budget SKIPs.
 */
static void sweep_ops(int *fdp, unsigned int max, bool last)
{
	struct tally t;
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		if (!selected(ops[i].name) || ops[i].flags & OP_NETNS_ONLY ||
		    !(ops[i].flags & OP_LAST) != !last)
			continue;
		if (over_budget()) {
			ksft_test_result_skip("%s: BLOOM_FAULTS_BUDGET spent\n",
					      ops[i].name);
			continue;
		}
		ret = sweep(&ops[i], fdp, max, &t);
		report(&ops[i], "", ret, &t);
	}
}

int main(void)
{
	unsigned int max = 3000, nsel = 0, i;
	const char *env = getenv("BLOOM_FAULTS_MAX");
	/* the operations run again in a new network namespace */
	static const char *const in_netns[] = {
		"create counting", "create scalable standard", "restore plain",
		"add large batch blocked", "insert rule",
		"create growing the id table",
	};
	static const struct op_entry load_op = { .name = "load bloom.ko" };
	const char *modpath = getenv("BLOOM_MODFILE") ?: "/run/bloom-vm/bloom.ko";
	char why[160] = "";
	struct tally t;
	int fd, ret, self_ns, xt = -1, modfd;

	if (env)
		max = strtoul(env, NULL, 10);
	/* a line at a time: a sweep is long on a debug kernel */
	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	fd = bt_open();
	if (fd < 0)
		ksft_exit_fail_msg("open %s: %s (is bloom.ko loaded?)\n",
				   BLOOM_DEV, strerror(errno));
	for (i = 0; i < ARRAY_SIZE(ops); i++)
		nsel += selected(ops[i].name) &&
			!(ops[i].flags & OP_NETNS_ONLY);
	for (i = 0; i < ARRAY_SIZE(in_netns); i++)
		nsel += selected(in_netns[i]);
	nsel += selected(load_op.name);
	ksft_set_plan(nsel + 2);
	/* without fault injection: every operation once, then SKIP */
	if (!nth_open())
		ksft_print_msg("no /proc/self/task/TID/fail-nth: this kernel has no fault injection; the operations run once each, without faults\n");
	/* no page faults in the calls: their allocations are not the module's */
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		ksft_print_msg("mlockall: %s (page faults may add fault points)\n",
			       strerror(errno));
	bt_destroy_all();
	make_snapshots(fd);
	/* what earlier programs and the snapshots destroyed is freed */
	wait_live_allocations(1, SETTLE_OP_MS);
	if (nth_fd >= 0)
		fi_setup();
	over_budget();

	sweep_ops(&fd, max, false);

	/* the same in a network namespace of its own, which then goes away */
	if (selected("insert rule"))
		xt = bt_xt_load(why, sizeof(why));
	self_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self_ns < 0 || unshare(CLONE_NEWNET))
		ksft_exit_fail_msg("unshare(CLONE_NEWNET): %s\n", strerror(errno));
	close(fd);
	fd = bt_open();
	if (fd < 0)
		ksft_exit_fail_msg("open in the new namespace: %s\n",
				   strerror(errno));
	if (xt >= 0) {
		ipt_sock = bt_ipt_socket();
		if (ipt_sock < 0 || bt_ipt_entries(ipt_sock) < 0)
			snprintf(why, sizeof(why), "no iptables filter table: %s",
				 strerror(errno));
		if (ipt_sock >= 0 && *why) {
			close(ipt_sock);
			ipt_sock = -1;
		}
	}
	for (i = 0; i < ARRAY_SIZE(in_netns); i++) {
		unsigned int j;

		if (!selected(in_netns[i]))
			continue;
		for (j = 0; j < ARRAY_SIZE(ops); j++)
			if (!strcmp(ops[j].name, in_netns[i]))
				break;
		if (over_budget()) {
			ksft_test_result_skip("%s in a new network namespace: BLOOM_FAULTS_BUDGET spent\n",
					      ops[j].name);
			continue;
		}
		if (ops[j].run == run_rule && ipt_sock < 0) {
			ksft_test_result_skip("%s in a new network namespace: %s\n",
					      ops[j].name, why);
			ops_left_out++;
			continue;
		}
		ret = sweep(&ops[j], &fd, max, &t);
		report(&ops[j], " in a new network namespace", ret, &t);
	}
	if (ipt_sock >= 0)
		close(ipt_sock);
	ipt_sock = -1;
	{
		/* a filter left in the namespace goes with it */
		long long live0 = live_allocations() - 1;	/* our fd */
		int ok = !bt_create(fd, "left", BLOOM_TYPE_STANDARD, 1000,
				    10000000, 0);

		close(fd);
		ok = ok && !setns(self_ns, CLONE_NEWNET);
		ok = ok && wait_live_allocations(live0, SETTLE_OP_MS) == live0;
		ksft_test_result(ok, "a filter left in the namespace is freed with it\n");
	}
	close(self_ns);
	if (xt == 1 && bt_unload_module("xt_bloom"))
		ksft_print_msg("rmmod xt_bloom: %s\n", strerror(errno));

	/* last: bloom.ko itself, unloaded and loaded under faults */
	if (selected(load_op.name)) {
		modfd = open(modpath, O_RDONLY | O_CLOEXEC);
		if (over_budget()) {
			ksft_test_result_skip("%s: BLOOM_FAULTS_BUDGET spent\n",
					      load_op.name);
		} else if (bt_module_loaded("xt_bloom")) {
			ksft_test_result_skip("%s: xt_bloom.ko holds bloom.ko (loaded before this program)\n",
					      load_op.name);
			ops_left_out++;
		} else if (modfd < 0) {
			ksft_test_result_skip("%s: %s: %s (BLOOM_MODFILE)\n",
					      load_op.name, modpath,
					      strerror(errno));
			ops_left_out++;
		} else if (bt_unload_module("bloom")) {
			ksft_test_result_fail("%s: rmmod bloom first: %s\n",
					      load_op.name, strerror(errno));
		} else {
			ret = sweep_load(modfd, max, &t);
			report(&load_op, "", ret, &t);
			if (ret && !bt_module_loaded("bloom") &&
			    syscall(SYS_finit_module, modfd, "", 0))
				ksft_print_msg("loading bloom.ko again: %s\n",
					       strerror(errno));
		}
		if (modfd >= 0)
			close(modfd);
	}

	/* the longest sweeps, last, so that the budget cuts them only */
	fd = bt_open();
	if (fd < 0)
		ksft_exit_fail_msg("open %s after the load sweep: %s\n",
				   BLOOM_DEV, strerror(errno));
	sweep_ops(&fd, max, true);
	close(fd);
	if (nth_fd < 0)
		ksft_test_result_skip("fault injection: this kernel has none (CONFIG_FAULT_INJECTION, FAILSLAB, FAIL_PAGE_ALLOC, FAULT_INJECTION_USERCOPY; make check-debug's kernel has them)\n");
	else if (budget_spent)
		ksft_test_result_skip("fault injection: BLOOM_FAULTS_BUDGET spent: the sweeps reported SKIP above were not taken in full\n");
	else if (ops_left_out)
		ksft_test_result_skip("fault injection: not every operation was swept: left out, as reported SKIP above: %u\n",
				      ops_left_out);
	else
		ksft_test_result_pass("fault injection: every fault point of every operation swept\n");
	fi_restore();
	free(snap_plain);
	free(snap_scalable);
	ksft_finished();
}
