// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_stress: lifetime and concurrency under churn. Filters destroyed
 * while other descriptors use them, descriptors closed while another thread
 * is inside an ioctl on them, rmmod refused while /dev/bloom is open, and
 * several threads mixing every command on a small pool of names of all four
 * types for a bounded time. Whatever interleaving happens, every call must
 * succeed or fail with an errno the specification allows for it, keys added
 * to long-lived "anchor" filters must never be reported absent, and at the
 * end the module's live allocations are back at the baseline.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <sys/wait.h>

#include "bloom_test.h"

/*
 * Diagnostics from inside a test: the harness runs each test in a child
 * that leaves with _exit(), so stdout (a pipe in the VM) must be flushed
 * or the lines are lost.
 */
#define DIAG(...) do {							\
	ksft_print_msg(__VA_ARGS__);					\
	fflush(stdout);							\
} while (0)

#define MIX_THREADS	6
#define MIX_SECONDS	8.0
#define MIX_MIN_ITERS	300U		/* per thread, however slow the VM */
#define POOL		6		/* churned names */
#define ANCHOR_KEYS	256U		/* per anchor filter */
#define OWN_KEYS	64U		/* per thread per anchor, added/deleted */
#define NTYPES		4

/* Keys: anchors from 0, each thread's own from (1 + tid) << 32. */
static void anchor_key(__u32 i, __u8 *k)
{
	make_key16(i, k);
}

static void own_key(int tid, __u32 i, __u8 *k)
{
	make_key16(((__u64)(1 + tid) << 32) + i, k);
}

static __u64 xrand(__u64 *s)
{
	*s = mix64(*s + 0x9e3779b97f4a7c15ULL);
	return *s;
}

/*
 * Every open descriptor holds an allocation, so the live_allocations
 * baseline is taken with the fixture's fd open.
 */
FIXTURE(stress) {
	int fd;
	long long live0;
};

FIXTURE_SETUP(stress)
{
	self->fd = bt_open();
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", BLOOM_DEV, strerror(errno));
	/* Our descriptor and nothing else. */
	self->live0 = live_allocations_baseline(1);
	ASSERT_EQ(1, self->live0) TH_LOG("allocations left by earlier tests");
}

FIXTURE_TEARDOWN(stress)
{
	close(self->fd);
	bt_destroy_all();
}

/* ---- destroy under users ---------------------------------------------- */

struct user {
	int fd;
	double deadline;
	atomic_int ok_ops;
	atomic_int stale;
	int bad_errno;		/* first errno outside {ESTALE} */
	int ok_after_stale;	/* must stay 0: ESTALE is for good */
};

static void *destroy_user(void *arg)
{
	struct user *u = arg;
	__u8 keys[32 * 16], res[4];
	struct bloom_info info;
	unsigned int n = 0;
	int e, i;

	for (i = 0; i < 32; i++)
		own_key(0, i, keys + 16 * i);
	/* Until the deadline, and in any case until the destroy was seen. */
	while (now_sec() < u->deadline || !atomic_load(&u->stale)) {
		switch (n++ % 3) {
		case 0:
			e = errno_of(bt_batch(u->fd, BLOOM_IOC_ADD, keys,
					      sizeof(keys), 32, 16, NULL,
					      NULL, NULL));
			break;
		case 1:
			e = errno_of(bt_batch(u->fd, BLOOM_IOC_QUERY, keys,
					      sizeof(keys), 32, 16, NULL,
					      res, NULL));
			break;
		default:
			e = errno_of(bt_info(u->fd, NULL, &info));
			break;
		}
		if (!e && atomic_load(&u->stale))
			u->ok_after_stale++;
		if (!e) {
			atomic_fetch_add(&u->ok_ops, 1);
		} else if (e == ESTALE) {
			if (atomic_fetch_add(&u->stale, 1) > 20)
				break;
		} else {
			u->bad_errno = e;
			break;
		}
	}
	return NULL;
}

/* Destroying a filter of each type while three descriptors are busy on it. */
TEST_F_TIMEOUT(stress, destroy_while_in_use, 60)
{
	struct user u[3];
	pthread_t th[3];
	__u32 type;
	int i, ready;

	for (type = 1; type <= NTYPES; type++) {
		double deadline = now_sec() + 10;

		ASSERT_OK(bt_create(self->fd, "victim", type, 10000,
				    10000000, 0));
		for (i = 0; i < 3; i++) {
			memset(&u[i], 0, sizeof(u[i]));
			u[i].deadline = deadline;
			u[i].fd = bt_open();
			ASSERT_LE(0, u[i].fd);
			ASSERT_OK(bt_bind(u[i].fd, "victim"));
			ASSERT_EQ(0, pthread_create(&th[i], NULL, destroy_user,
						    &u[i]));
		}
		do {
			usleep(1000);
			for (ready = 0, i = 0; i < 3; i++)
				ready += atomic_load(&u[i].ok_ops) > 5;
		} while (ready < 3 && now_sec() < deadline);
		ASSERT_OK(bt_destroy(self->fd, "victim"));
		/* The name (and the memory) are free at once. */
		ASSERT_OK(bt_create(self->fd, "victim", type, 100, 10000000,
				    0));
		ASSERT_OK(bt_destroy(self->fd, "victim"));
		for (i = 0; i < 3; i++) {
			pthread_join(th[i], NULL);
			EXPECT_EQ(0, u[i].bad_errno)
				TH_LOG("%s: user %d: %s", bt_type_str(type),
				       i, strerror(u[i].bad_errno));
			EXPECT_LT(0, atomic_load(&u[i].stale))
				TH_LOG("%s: user %d never saw ESTALE",
				       bt_type_str(type), i);
			EXPECT_EQ(0, u[i].ok_after_stale);
			close(u[i].fd);
		}
	}
	EXPECT_EQ(self->live0, wait_live_allocations(self->live0, BT_FREE_WAIT_MS));
}

/* ---- close() of a descriptor another thread is using ------------------ */

#define CLOSE_ROUNDS	40
#define CBATCH		2048U

struct closer {
	int fd;			/* the shared descriptor of this round */
	__u32 type;
	atomic_int in_flight;
	atomic_ulong calls, ok, ebadf;
	int bad_errno;
};

static void *close_user(void *arg)
{
	struct closer *c = arg;
	__u8 *keys = malloc(CBATCH * 16), res[CBATCH / 8];
	unsigned long cmd;
	unsigned int n = 0;
	__u32 i;
	int e;

	if (!keys) {
		c->bad_errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < CBATCH; i++)
		own_key(1, i, keys + 16 * i);
	for (;;) {
		cmd = n++ & 1 ? BLOOM_IOC_QUERY : BLOOM_IOC_ADD;
		if (c->type >= BLOOM_TYPE_COUNTING && n % 4 == 3)
			cmd = BLOOM_IOC_DELETE;
		atomic_fetch_add(&c->in_flight, 1);
		e = errno_of(bt_batch(c->fd, cmd, keys, CBATCH * 16, CBATCH,
				      16, NULL, res, NULL));
		atomic_fetch_sub(&c->in_flight, 1);
		atomic_fetch_add(&c->calls, 1);
		if (!e) {
			atomic_fetch_add(&c->ok, 1);
		} else if (e == EBADF) {
			/* The close won: the descriptor number is gone. */
			atomic_fetch_add(&c->ebadf, 1);
			break;
		} else if (e != ENOSPC) {
			c->bad_errno = e;
			break;
		}
	}
	free(keys);
	return NULL;
}

/*
 * close() while other threads are in ADD/QUERY/DELETE on the descriptor: the
 * calls in flight keep the file alive and complete (or fail cleanly), the
 * next ones get EBADF from the VFS. Nothing else opens files meanwhile, so
 * the number is not reused under them.
 */
TEST_F_TIMEOUT(stress, close_fd_mid_batch, 60)
{
	unsigned long calls = 0, oks = 0, closed_busy = 0;
	struct closer c;
	pthread_t th[3];
	int r, i;

	for (r = 0; r < CLOSE_ROUNDS; r++) {
		memset(&c, 0, sizeof(c));
		c.type = 1 + r % NTYPES;
		c.fd = bt_open();
		ASSERT_LE(0, c.fd);
		ASSERT_OK(bt_create(c.fd, "closing", c.type, 50000,
				    10000000, BLOOM_CREATE_F_BIND));
		for (i = 0; i < 3; i++)
			ASSERT_EQ(0, pthread_create(&th[i], NULL, close_user,
						    &c));
		/* Close once a call is in flight, at varying depths. */
		while (atomic_load(&c.calls) < (unsigned long)(r % 3) ||
		       !atomic_load(&c.in_flight))
			usleep(50);
		usleep(r % 5 * 200);
		closed_busy += atomic_load(&c.in_flight) > 0;
		ASSERT_EQ(0, close(c.fd));
		for (i = 0; i < 3; i++)
			pthread_join(th[i], NULL);
		EXPECT_EQ(0, c.bad_errno)
			TH_LOG("round %d (%s): %s", r, bt_type_str(c.type),
			       strerror(c.bad_errno));
		EXPECT_EQ(3, atomic_load(&c.ebadf));
		calls += atomic_load(&c.calls);
		oks += atomic_load(&c.ok);
		ASSERT_OK(bt_destroy(self->fd, "closing"));
	}
	TH_LOG("%d rounds, %lu batch calls (%lu ok), closed with a call in flight %lu times",
	       CLOSE_ROUNDS, calls, oks, closed_busy);
	EXPECT_LT(0, closed_busy);
	EXPECT_EQ(self->live0, wait_live_allocations(self->live0, BT_FREE_WAIT_MS));
}

/* ---- rmmod while open --------------------------------------------------- */

/* Runs "rmmod bloom"; returns its exit status and what it printed. */
static int run_rmmod(char *out, size_t len)
{
	int p[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		execlp("rmmod", "rmmod", "bloom", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while (got < (ssize_t)len - 1 &&
	       (n = read(p[0], out + got, len - 1 - got)) > 0)
		got += n;
	out[got] = 0;
	close(p[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/*
 * An open descriptor holds a reference on the module: rmmod must refuse
 * ("in use") and the module must stay fully working. Also with a
 * descriptor bound to a destroyed filter, whose memory it still keeps.
 */
TEST_F(stress, rmmod_refused_while_open)
{
	struct bloom_version v;
	char out[512];
	int st, fd2;

	st = run_rmmod(out, sizeof(out));
	ASSERT_NE(127, st) TH_LOG("rmmod not found");
	EXPECT_NE(0, st) TH_LOG("rmmod bloom succeeded with /dev/bloom open");
	EXPECT_NE(NULL, strstr(out, "in use")) TH_LOG("rmmod said: %s", out);
	ASSERT_EQ(0, access("/sys/module/bloom", F_OK));
	ASSERT_OK(bt_version(self->fd, &v));

	fd2 = bt_open();
	ASSERT_LE(0, fd2);
	ASSERT_OK(bt_create(fd2, "held", BLOOM_TYPE_DLEFT, 1000, 10000000,
			    BLOOM_CREATE_F_BIND));
	ASSERT_OK(bt_destroy(self->fd, "held"));
	close(self->fd);
	self->fd = -1;
	/* Only the stale bound descriptor is left open now. */
	st = run_rmmod(out, sizeof(out));
	EXPECT_NE(0, st) TH_LOG("rmmod succeeded with a stale fd open");
	EXPECT_NE(NULL, strstr(out, "in use")) TH_LOG("rmmod said: %s", out);
	ASSERT_EQ(0, access("/sys/module/bloom", F_OK));
	EXPECT_ERRNO(ESTALE, bt_info(fd2, NULL,
				     &(struct bloom_info){ 0 }));
	close(fd2);
	self->fd = bt_open();
	ASSERT_LE(0, self->fd);
	EXPECT_EQ(self->live0, wait_live_allocations(self->live0, BT_FREE_WAIT_MS));
}

/* ---- the mix ------------------------------------------------------------ */

enum op {
	OP_CREATE, OP_DESTROY, OP_BIND, OP_ADD, OP_DELETE, OP_QUERY, OP_INFO,
	OP_LIST, OP_ANCHOR_ADD, OP_ANCHOR_DELETE, OP_ANCHOR_QUERY, NOPS
};

static const char *const op_name[NOPS] = {
	"create", "destroy", "bind", "add", "delete", "query", "info", "list",
	"anchor_add", "anchor_delete", "anchor_query"
};

struct mix {
	double deadline;
	int anchor_fd[NTYPES + 1];	/* shared, bound to "anchor-<type>" */
	atomic_ulong ops[NOPS], fails[NOPS];
	atomic_ulong false_negatives;
	atomic_int bad;			/* unexpected errnos */
	char bad_what[160];
};

struct mixer {
	struct mix *m;
	int tid;
};

static void bad(struct mix *m, enum op op, const char *name, int e)
{
	if (atomic_fetch_add(&m->bad, 1) == 0)
		snprintf(m->bad_what, sizeof(m->bad_what), "%s %s: %s (%d)",
			 op_name[op], name, strerror(e), e);
}

/* Counts an operation; e must be 0 or one of the listed errnos. */
static void account(struct mix *m, enum op op, const char *name, int e,
		    const int *allowed, int nallowed)
{
	int i;

	atomic_fetch_add(&m->ops[op], 1);
	if (!e)
		return;
	atomic_fetch_add(&m->fails[op], 1);
	for (i = 0; i < nallowed; i++)
		if (allowed[i] == e)
			return;
	bad(m, op, name, e);
}

#define ACCOUNT(m, op, name, e, ...) do {				\
	static const int allowed_[] = { __VA_ARGS__ };			\
	account(m, op, name, e, allowed_,				\
		sizeof(allowed_) / sizeof(allowed_[0]));		\
} while (0)

static void *mix_worker(void *arg)
{
	struct mixer *mx = arg;
	struct mix *m = mx->m;
	__u64 rng = 0xabcdef + mx->tid;
	/* Own keys in each anchor: added[type][i] counts live copies. */
	unsigned char added[NTYPES + 1][OWN_KEYS];
	char names[8][BLOOM_NAME_LEN];
	__u8 keys[64 * 16], res[8];
	struct bloom_batch db;
	struct bloom_info info;
	struct bloom_list l;
	char name[BLOOM_NAME_LEN];
	__u32 type, i, n;
	int fd = -1, e;
	unsigned int iters = 0;

	memset(added, 0, sizeof(added));
	/*
	 * Until the deadline, and at least MIX_MIN_ITERS times: "every kind
	 * of operation happened" then holds on any scheduler (the rarest
	 * kind is picked ~4% of the time).
	 */
	while ((now_sec() < m->deadline || iters < MIX_MIN_ITERS) &&
	       !atomic_load(&m->bad)) {
		__u64 r = xrand(&rng);
		unsigned int pick = r % 100;

		iters++;

		snprintf(name, sizeof(name), "pool%u", (unsigned int)(r >> 8) % POOL);
		type = 1 + (r >> 16) % NTYPES;
		n = 1 + (r >> 24) % 64;
		for (i = 0; i < n; i++)
			own_key(mx->tid, (__u32)(r >> 32) + i, keys + 16 * i);

		if (pick < 8) {
			e = errno_of(bt_create(m->anchor_fd[1], name, type,
					       1 + (r >> 40) % 5000,
					       1000000 + (r >> 20) % 100000000,
					       0));
			ACCOUNT(m, OP_CREATE, name, e, EEXIST);
		} else if (pick < 14) {
			e = errno_of(bt_destroy(m->anchor_fd[2], name));
			ACCOUNT(m, OP_DESTROY, name, e, ENOENT);
		} else if (pick < 22) {
			/* A fresh descriptor bound to a pool filter. */
			if (fd >= 0)
				close(fd);
			fd = bt_open();
			if (fd < 0) {
				bad(m, OP_BIND, "open", errno);
				break;
			}
			e = errno_of(bt_bind(fd, name));
			ACCOUNT(m, OP_BIND, name, e, ENOENT);
		} else if (pick < 50 && fd < 0) {
			continue;	/* no descriptor of our own yet */
		} else if (pick < 34) {
			e = errno_of(bt_batch(fd, BLOOM_IOC_ADD, keys, n * 16,
					      n, 16, NULL, res, NULL));
			/* Unbound (EBADFD), destroyed (ESTALE), full d-left. */
			ACCOUNT(m, OP_ADD, "bound", e, EBADFD, ESTALE, ENOSPC);
		} else if (pick < 40) {
			e = errno_of(bt_batch(fd, BLOOM_IOC_DELETE, keys,
					      n * 16, n, 16, NULL, res,
					      NULL));
			ACCOUNT(m, OP_DELETE, "bound", e, EBADFD, ESTALE,
				EOPNOTSUPP);
		} else if (pick < 50) {
			e = errno_of(bt_batch(fd, BLOOM_IOC_QUERY, keys,
					      n * 16, n, 16, NULL, res,
					      NULL));
			ACCOUNT(m, OP_QUERY, "bound", e, EBADFD, ESTALE);
		} else if (pick < 56) {
			e = errno_of(bt_info(m->anchor_fd[3], name, &info));
			ACCOUNT(m, OP_INFO, name, e, ENOENT);
			if (!e && (info.type < 1 || info.type > NTYPES ||
				   strcmp(info.name, name)))
				bad(m, OP_INFO, name, EPROTO);
		} else if (pick < 60) {
			memset(&l, 0, sizeof(l));
			l.size = sizeof(l);
			l.capacity = 8;
			l.names = u64_ptr(names);
			e = errno_of(ioctl(m->anchor_fd[4], BLOOM_IOC_LIST, &l));
			ACCOUNT(m, OP_LIST, "", e, 0);
			/* 4 anchors are always there. */
			if (!e && l.out_count < NTYPES)
				bad(m, OP_LIST, "count", EPROTO);
		} else if (pick < 80) {
			/* Add one of my own keys to an anchor, then check it. */
			i = (r >> 32) % OWN_KEYS;
			own_key(mx->tid, i, keys);
			e = errno_of(bt_batch(m->anchor_fd[type],
					      BLOOM_IOC_ADD, keys, 16, 1, 16,
					      NULL, res, NULL));
			ACCOUNT(m, OP_ANCHOR_ADD, "anchor", e, ENOSPC);
			if (!e && added[type][i] < 255)
				added[type][i]++;
			if (!e && bt_one(m->anchor_fd[type], BLOOM_IOC_QUERY,
					 keys, 16) != 1)
				atomic_fetch_add(&m->false_negatives, 1);
		} else if (pick < 88) {
			/* Delete only what I added: never a caller's error. */
			if (type < BLOOM_TYPE_COUNTING)
				type = BLOOM_TYPE_COUNTING + (r & 1);
			i = (r >> 32) % OWN_KEYS;
			if (!added[type][i])
				continue;
			own_key(mx->tid, i, keys);
			memset(res, 0, sizeof(res));
			e = errno_of(bt_batch(m->anchor_fd[type],
					      BLOOM_IOC_DELETE, keys, 16, 1,
					      16, NULL, res, &db));
			ACCOUNT(m, OP_ANCHOR_DELETE, "anchor", e, 0);
			/* found: removed, or pinned by a saturated counter */
			if (!e && !(res[0] & 1) && db.out_pinned != 1)
				bad(m, OP_ANCHOR_DELETE, "added key not found",
				    EPROTO);
			if (!e)
				added[type][i]--;
		} else {
			/* The anchors' own keys and my live keys: all present. */
			__u32 base = (r >> 32) % (ANCHOR_KEYS - 64), cnt = 0;

			for (i = 0; i < 64; i++)
				anchor_key(base + i, keys + 16 * i);
			memset(res, 0, sizeof(res));
			e = errno_of(bt_batch(m->anchor_fd[type],
					      BLOOM_IOC_QUERY, keys,
					      sizeof(keys), 64, 16, NULL,
					      res, NULL));
			ACCOUNT(m, OP_ANCHOR_QUERY, "anchor", e, 0);
			if (!e && popcount_bm(res, 64) != 64)
				atomic_fetch_add(&m->false_negatives,
						 64 - popcount_bm(res, 64));
			for (i = 0; i < OWN_KEYS && cnt < 64; i++)
				if (added[type][i])
					own_key(mx->tid, i, keys + 16 * cnt++);
			if (cnt && !bt_batch(m->anchor_fd[type],
					     BLOOM_IOC_QUERY, keys, cnt * 16,
					     cnt, 16, NULL, res, NULL) &&
			    popcount_bm(res, cnt) != cnt)
				atomic_fetch_add(&m->false_negatives,
						 cnt - popcount_bm(res, cnt));
		}
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

TEST_F_TIMEOUT(stress, mixed_threads_all_types, 90)
{
	struct mixer mx[MIX_THREADS];
	pthread_t th[MIX_THREADS];
	__u8 keys[ANCHOR_KEYS * 16];
	unsigned long total = 0;
	struct mix *m;
	char an[BLOOM_NAME_LEN];
	double t0, secs;
	__u32 type, i;
	int k;

	m = calloc(1, sizeof(*m));
	ASSERT_NE(NULL, m);
	for (i = 0; i < ANCHOR_KEYS; i++)
		anchor_key(i, keys + 16 * i);
	for (type = 1; type <= NTYPES; type++) {
		snprintf(an, sizeof(an), "anchor-%s", bt_type_str(type));
		m->anchor_fd[type] = bt_open();
		ASSERT_LE(0, m->anchor_fd[type]);
		/* Roomy, so d-left never refuses an anchor key. */
		ASSERT_OK(bt_create(m->anchor_fd[type], an, type, 20000,
				    10000000, BLOOM_CREATE_F_BIND));
		ASSERT_OK(bt_batch(m->anchor_fd[type], BLOOM_IOC_ADD, keys,
				   sizeof(keys), ANCHOR_KEYS, 16, NULL, NULL,
				   NULL));
	}
	t0 = now_sec();
	m->deadline = t0 + MIX_SECONDS;
	for (k = 0; k < MIX_THREADS; k++) {
		mx[k].m = m;
		mx[k].tid = k;
		ASSERT_EQ(0, pthread_create(&th[k], NULL, mix_worker, &mx[k]));
	}
	for (k = 0; k < MIX_THREADS; k++)
		pthread_join(th[k], NULL);
	secs = now_sec() - t0;

	for (k = 0; k < NOPS; k++) {
		total += atomic_load(&m->ops[k]);
		DIAG("mix: %-14s %8lu calls, %8lu refused as allowed\n",
			       op_name[k], atomic_load(&m->ops[k]),
			       atomic_load(&m->fails[k]));
	}
	DIAG("mix: %d threads, %.1f s, %lu operations (%.0f/s)\n",
		       MIX_THREADS, secs, total, total / secs);
	EXPECT_EQ(0, atomic_load(&m->bad)) TH_LOG("%s", m->bad_what);
	EXPECT_EQ(0, atomic_load(&m->false_negatives))
		TH_LOG("anchor keys reported absent");
	/* Every kind of operation actually happened. */
	for (k = 0; k < NOPS; k++)
		EXPECT_LT(0, atomic_load(&m->ops[k])) TH_LOG("%s", op_name[k]);
	/* The anchors survived the churn with all their keys. */
	for (type = 1; type <= NTYPES; type++) {
		__u8 res[ANCHOR_KEYS / 8];

		ASSERT_OK(bt_batch(m->anchor_fd[type], BLOOM_IOC_QUERY, keys,
				   sizeof(keys), ANCHOR_KEYS, 16, NULL, res,
				   NULL));
		EXPECT_EQ(ANCHOR_KEYS, popcount_bm(res, ANCHOR_KEYS))
			TH_LOG("%s anchor", bt_type_str(type));
		close(m->anchor_fd[type]);
	}
	EXPECT_GT(m->deadline + 20, now_sec()) TH_LOG("threads overran");
	bt_destroy_all();
	EXPECT_EQ(self->live0, wait_live_allocations(self->live0, BT_FREE_WAIT_MS));
	free(m);
}

BT_LEAK_CHECK_TEST()

TEST_HARNESS_MAIN
