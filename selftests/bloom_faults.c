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
 *
 * The files: this one, the sweep driver (fail-nth, what the module looks
 * like before and after, one sweep, the report, main); the operations it
 * sweeps, one file per family (faults_create.c, faults_batch.c,
 * faults_expire.c, faults_filters.c, faults_snapshot.c, faults_netns.c,
 * faults_timed.c, faults_map.c, faults_prefix.c, faults_xdp.c),
 * what they share and their table (faults_ops.c); and bloom.ko's own load
 * (faults_load.c). bloom_faults.h holds what they share.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdarg.h>
#include <sys/syscall.h>

#include "kselftest.h"
#include "bloom_faults.h"

#define FI_DIR		"/sys/kernel/debug"
#define MAX_NAMES	256
/* A filter struct's release may be deferred by 1-4 s (see above). */
#define SETTLE_POINT_MS	200
#define SETTLE_OP_MS	(3 * BT_FREE_WAIT_MS)

int nth_fd = -1;

void faults_bail(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ksft_exit_fail_msg("%s", msg);
}

/* ---- fail-nth ---- */

static bool nth_open(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth",
		 (long)syscall(SYS_gettid));
	nth_fd = open(path, O_RDWR | O_CLOEXEC);
	return nth_fd >= 0;
}

void nth_arm(unsigned int n)
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
bool nth_injected(void)
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

/* ---- the sweep ---- */

static void teardown(struct ctx *c)
{
	if (c->fd2 >= 0)
		close(c->fd2);
	c->fd2 = -1;
	xdp_hold_release();
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
	       a->rules == b->rules && a->xdp_holds == b->xdp_holds;
}

int fail(struct tally *t, unsigned int n, const char *fmt, ...)
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
bool over_budget(void)
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

/*
 * Whether a clean, complete sweep of an XDP operation missed the hold's
 * own allocation in bloom.ko (no run was refused a hold).
 */
static bool missed_hold(const struct op_entry *op, int ret,
			const struct tally *t)
{
	return !ret && (op->flags & OP_XDP) && nth_fd >= 0 && !t->cut &&
	       !xdp_hold_refused;
}

/*
 * The selected operations of the initial namespace: the OP_LAST ones when
 * @last, else the others. Each one left after the budget SKIPs.
 */
static void sweep_ops(int *fdp, unsigned int max, bool last)
{
	const char *why;
	unsigned int i, tries;
	struct tally t;
	int ret;

	for (i = 0; i < nops; i++) {
		if (!selected(ops[i].name) || ops[i].flags & OP_NETNS_ONLY ||
		    !(ops[i].flags & OP_LAST) != !last)
			continue;
		if (over_budget()) {
			ksft_test_result_skip("%s: BLOOM_FAULTS_BUDGET spent\n",
					      ops[i].name);
			continue;
		}
		why = ops[i].flags & OP_XDP ? xdp_hold_unusable() : NULL;
		if (why) {
			ksft_test_result_skip("%s: %s\n", ops[i].name, why);
			ops_left_out++;
			continue;
		}
		ret = sweep(&ops[i], fdp, max, &t);
		/*
		 * The sweep must reach the kfunc's own allocation, not only
		 * the syscall's. fail_nth counts every allocation of this
		 * task, and under KASAN the stack depot now and then takes a
		 * page on the way (its failure absorbed): the point meant for
		 * the hold can land there. Up to three sweeps.
		 */
		for (tries = 1; missed_hold(&ops[i], ret, &t); tries++) {
			if (tries == 3) {
				ret = fail(&t, t.points, "no fault point was the hold's own allocation in bloom.ko, in %u sweeps",
					   tries);
				break;
			}
			ret = sweep(&ops[i], fdp, max, &t);
		}
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
	for (i = 0; i < nops; i++)
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
		for (j = 0; j < nops; j++)
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
