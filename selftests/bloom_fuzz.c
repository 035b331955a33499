// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_fuzz: random ioctls against /dev/bloom from several threads. Command
 * numbers (mostly the bloom magic with nr 0..15, random direction and size
 * bits, some other magics), struct sizes and contents, and pointers (NULL,
 * kernel addresses, non-canonical, unmapped, read-only pages for outputs,
 * misaligned, straddling into an inaccessible page, into the middle of
 * valid buffers) are all random. Every call must succeed or fail with an
 * errno of the specification's table: anything else fails the test, with
 * the call printed. Seeded: FUZZ_SEED=<n> replays a seed (the interleaving
 * of the threads is not replayable, each thread's call sequence is).
 *
 * Bounded by MAX_CALLS calls and MAX_SECONDS seconds; max_memory is set
 * low for the run so that created filters stay small, and restored.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

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

#define THREADS		4
#define MAX_CALLS	1000000UL
#define MAX_SECONDS	15.0
/* Low, so that EDQUOT is reached and the filters stay small. */
#define FUZZ_MAX_MEMORY	(1ULL << 20)
#define NSHARED		3		/* descriptors shared by all threads */
#define NOWN		3		/* per-thread descriptors, reopened */
#define PAGE		4096UL
#define BUF_PAGES	16UL

/*
 * Magics whose commands the VFS handles for every file before the driver
 * sees them (FIONBIO/FIOCLEX.. 'T', FIFREEZE/FITHAW 'X', FS_IOC_* 'f',
 * FICLONE 0x94, FIBMAP/FIGETBSZ 0): their errors are the VFS's, not bloom's,
 * and FIFREEZE would freeze the guest's /dev. They are never generated.
 */
static bool vfs_magic(unsigned int magic)
{
	return magic == 0x00 || magic == 'T' || magic == 'X' || magic == 'f' ||
	       magic == 0x94;
}

/* The specification's errno table (uapi/linux/bloom.h), plus ENOTTY. */
static const int allowed[] = {
	EINVAL, E2BIG, EFAULT, EOPNOTSUPP, EEXIST, ENOENT, EBADF, EBADFD,
	EBUSY, ESTALE, EPERM, EDQUOT, ENOMEM, ENOSPC, EINTR, ENOTTY,
	EBADMSG, EPROTONOSUPPORT, EOVERFLOW, EPROTOTYPE, ERANGE, EMFILE,
};
#define NALLOWED	(sizeof(allowed) / sizeof(allowed[0]))

struct region {
	__u8 *rw;	/* BUF_PAGES read-write pages */
	__u8 *ro;	/* one read-only page, random contents */
	__u8 *none;	/* one PROT_NONE page, right after rw */
};

struct shared {
	int fds[NSHARED];
	double deadline;
	atomic_ulong calls;
	atomic_ulong hist[NALLOWED + 1];	/* [NALLOWED]: success */
	atomic_ulong per_cmd[17];	/* [16]: other magics */
	atomic_int bad;
	char bad_what[512];
};

struct fuzzer {
	struct shared *sh;
	int tid;
	__u64 rng;
	int own[NOWN];
	struct region mem;
};

static __u64 rnd(struct fuzzer *f)
{
	f->rng = mix64(f->rng + 0x9e3779b97f4a7c15ULL);
	return f->rng;
}

static __u64 below(struct fuzzer *f, __u64 n)
{
	return n ? rnd(f) % n : 0;
}

static bool chance(struct fuzzer *f, unsigned int percent)
{
	return below(f, 100) < percent;
}

/* A pointer for the kernel to read or write @len bytes at. */
static __u64 fuzz_ptr(struct fuzzer *f, __u64 len, bool output)
{
	__u64 size = BUF_PAGES * PAGE;

	switch (below(f, 20)) {
	case 0:
		return 0;
	case 1:
		return KERNEL_PTR + below(f, 4096);
	case 2:
		return 0x8000000000000000ULL;	/* non-canonical */
	case 3:
		return u64_ptr(f->mem.none) + below(f, PAGE);
	case 4:	/* straddles from valid memory into the PROT_NONE page */
		/* Never further back than our own buffer: outputs land there. */
		return u64_ptr(f->mem.none) - 1 -
		       below(f, len && len < PAGE ? len : 8);
	case 5:
		return output ? u64_ptr(f->mem.ro) + below(f, 64) :
				u64_ptr(f->mem.rw) + 1 + below(f, 7);
	case 6:
		return rnd(f);
	case 7:
		return 1 + below(f, 0xffff);	/* low, never mapped */
	default:	/* valid, at a random (often misaligned) offset */
		if (len >= size)
			return u64_ptr(f->mem.rw);
		return u64_ptr(f->mem.rw) + below(f, size - len + 1);
	}
}

static __u64 fuzz_len(struct fuzzer *f, __u64 usual)
{
	switch (below(f, 10)) {
	case 0:
		return 0;
	case 1:
		return rnd(f);
	case 2:
		return rnd(f) & 0xffffffff;
	case 3:
		return usual + 1 + below(f, 64);
	default:
		return usual;
	}
}

static void fuzz_name(struct fuzzer *f, char *name)
{
	__u32 i, n;

	memset(name, 0, BLOOM_NAME_LEN);
	switch (below(f, 8)) {
	case 0:		/* random bytes, random length, maybe unterminated */
		n = below(f, BLOOM_NAME_LEN + 1);
		for (i = 0; i < n; i++)
			name[i] = rnd(f);
		break;
	case 1:		/* garbage after the NUL */
		snprintf(name, BLOOM_NAME_LEN, "f%u", (unsigned int)below(f, 4));
		name[BLOOM_NAME_LEN - 1 - below(f, 20)] = 'x';
		break;
	case 2:
		memcpy(name, below(f, 2) ? "." : "..", 3);
		break;
	default:	/* a small pool, so names collide across threads */
		snprintf(name, BLOOM_NAME_LEN, "f%u", (unsigned int)below(f, 8));
		break;
	}
}

/* Mostly zero, sometimes one random bit, sometimes anything. */
static __u32 fuzz_flags(struct fuzzer *f, __u32 known)
{
	if (chance(f, 70))
		return known ? rnd(f) & known : 0;
	if (chance(f, 70))
		return 1U << below(f, 32);
	return rnd(f);
}

/*
 * Is byte @pos of the argument of command @nr part of a pointer to memory
 * the kernel may write (or read)? The random byte below leaves those
 * alone: fuzz_ptr() fuzzes the pointers, always within the thread's own
 * region or clearly invalid. One changed byte moves a pointer by up to
 * 2^56 bytes, often into another mapping of this process: the thread
 * stacks sit right below the regions, with each thread's descriptor
 * (struct pthread, the stack canary at fs:0x28) at the top, and the kernel
 * then writes there as asked. That corrupted the test itself in about 1 run
 * of 15 (a thread's descriptor zeroed: "stack smashing detected", SIGSEGV,
 * glibc's advise_stack_range assertion at thread exit).
 */
static bool in_pointer(unsigned int nr, unsigned int pos)
{
	static const struct {
		unsigned int nr;
		size_t off;
	} p[] = {
		{ 5, offsetof(struct bloom_list, names) },
		{ 6, offsetof(struct bloom_batch, keys) },
		{ 6, offsetof(struct bloom_batch, lens) },
		{ 6, offsetof(struct bloom_batch, results) },
		{ 6, offsetof(struct bloom_batch, pinned) },
		{ 9, offsetof(struct bloom_save, buf) },
		{ 10, offsetof(struct bloom_restore, buf) },
		{ 14, offsetof(struct bloom_stages, stages) },
	};
	unsigned int i, n = nr == 7 || nr == 8 ? 6 : nr;

	for (i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		if (p[i].nr == n && pos >= p[i].off && pos < p[i].off + 8)
			return true;
	return false;
}

/* Fills @b with a plausible, then mutated, argument for command @nr. */
static __u32 fuzz_arg(struct fuzzer *f, unsigned int nr, __u8 *b)
{
	static const __u32 sizes[] = {
		sizeof(struct bloom_version), sizeof(struct bloom_create),
		sizeof(struct bloom_name), sizeof(struct bloom_name),
		sizeof(struct bloom_info), sizeof(struct bloom_list),
		sizeof(struct bloom_batch), sizeof(struct bloom_batch),
		sizeof(struct bloom_batch), sizeof(struct bloom_save),
		sizeof(struct bloom_restore), sizeof(struct bloom_pair),
		sizeof(struct bloom_pair), sizeof(struct bloom_name),
	};
	__u32 size = nr < 14 ? sizes[nr] : 8 * (1 + below(f, 32));
	__u32 room = 512, i;

	memset(b, 0, room);
	switch (nr) {
	case 1: {
		struct bloom_create *c = (void *)b;

		c->flags = fuzz_flags(f, BLOOM_CREATE_F_ALL);
		c->type = chance(f, 90) ? 1 + below(f, 4) : rnd(f);
		fuzz_name(f, c->name);
		/* Small, so filters stay small; sometimes absurd. */
		c->capacity = chance(f, 90) ? 1 + below(f, 20000) : rnd(f);
		c->fpp_ppb = chance(f, 90) ? 1000 + below(f, 400000000) :
					     rnd(f);
		if (c->flags & BLOOM_CREATE_F_GEOMETRY || chance(f, 5)) {
			c->bits = chance(f, 80) ? 512 * (1 + below(f, 256)) :
						  rnd(f);
			c->hashes = below(f, 40);
		}
		if (c->flags & BLOOM_CREATE_F_HASH_KEY || chance(f, 5))
			for (i = 0; i < BLOOM_HASH_KEY_LEN; i++)
				c->hash_key[i] = rnd(f);
		if (chance(f, 3))
			c->reserved = rnd(f);
		break;
	}
	case 2:
	case 3:
		fuzz_name(f, ((struct bloom_name *)b)->name);
		break;
	case 4:
		if (chance(f, 60))
			fuzz_name(f, ((struct bloom_info *)b)->name);
		break;
	case 5: {
		struct bloom_list *l = (void *)b;

		l->capacity = chance(f, 80) ? below(f, 64) : rnd(f);
		l->names = fuzz_ptr(f, (__u64)l->capacity * BLOOM_NAME_LEN,
				    true);
		if (chance(f, 5))
			l->out_count = rnd(f);
		break;
	}
	case 6:
	case 7:
	case 8: {
		struct bloom_batch *bt = (void *)b;
		__u32 *lens, n;
		__u64 sum = 0;

		n = chance(f, 90) ? below(f, 300) : rnd(f);
		bt->nkeys = n;
		bt->key_size = chance(f, 50) ? 0 : chance(f, 80) ?
			1 + below(f, 20) : rnd(f);
		if (!bt->key_size && n <= 1024) {
			/* Lengths in the valid buffer's first page. */
			lens = (__u32 *)(f->mem.rw + 4 * below(f, 64));
			for (i = 0; i < n && i < 960; i++) {
				lens[i] = chance(f, 97) ? 1 + below(f, 24) :
							  rnd(f) & 0x1fff;
				sum += lens[i];
			}
			bt->lens = chance(f, 85) ? u64_ptr(lens) :
						   fuzz_ptr(f, 4ULL * n, false);
		} else if (!bt->key_size) {
			bt->lens = fuzz_ptr(f, 4ULL * n, false);
			sum = rnd(f) & 0xfffff;
		} else {
			sum = (__u64)n * bt->key_size;
			if (chance(f, 5))
				bt->lens = fuzz_ptr(f, 4ULL * n, false);
		}
		bt->keys_len = fuzz_len(f, sum);
		bt->keys = chance(f, 80) ?
			u64_ptr(f->mem.rw + PAGE +
				below(f, (BUF_PAGES - 1) * PAGE -
					 (sum < (BUF_PAGES - 1) * PAGE ?
					  sum : 0))) :
			fuzz_ptr(f, sum, false);
		bt->results = chance(f, 10) ? 0 :
			fuzz_ptr(f, ((__u64)n + 7) / 8, true);
		if (chance(f, 5))
			bt->out_done = rnd(f);
		break;
	}
	default:
		break;
	}
	if (nr != 1)	/* no other command has a flag defined */
		((__u32 *)b)[1] = fuzz_flags(f, 0);
	/* The size field: mostly right, sometimes smaller, larger or absurd. */
	switch (below(f, 12)) {
	case 0:
		size = below(f, size);
		break;
	case 1:
		size += 8 * (1 + below(f, 16));
		if (chance(f, 50))	/* a non-zero tail */
			b[size - 1 - below(f, 8)] = 1 + below(f, 255);
		break;
	case 2:
		size = rnd(f);
		break;
	case 3:
		size = PAGE * (1 + below(f, 4));	/* beyond our buffer */
		break;
	default:
		break;
	}
	((__u32 *)b)[0] = size;
	/* A few random bytes anywhere but in the pointers (in_pointer()). */
	if (chance(f, 10)) {
		i = below(f, 256);
		if (!in_pointer(nr, i))
			b[i] = rnd(f);
	}
	return size;
}

static int pick_fd(struct fuzzer *f)
{
	if (chance(f, 50))
		return f->sh->fds[below(f, NSHARED)];
	return f->own[below(f, NOWN)];
}

static unsigned long fuzz_cmd(struct fuzzer *f, unsigned int *nr)
{
	unsigned int magic, dir, sz;

	/* Mostly the commands that exist, to get past the dispatch. */
	*nr = chance(f, 85) ? below(f, 14) : below(f, 16);
	if (chance(f, 80))
		return _IO(BLOOM_IOC_MAGIC, *nr);
	dir = below(f, 4);
	sz = below(f, 1 << _IOC_SIZEBITS);
	if (chance(f, 50))
		return _IOC(dir, BLOOM_IOC_MAGIC, *nr, sz);
	do
		magic = below(f, 256);
	while (vfs_magic(magic));
	*nr = 16;	/* not bloom's: counted separately */
	return _IOC(dir, magic, below(f, 256), sz);
}

static void note(struct fuzzer *f, unsigned long cmd, int fd, __u64 arg,
		 const __u8 *b, long ret, int e)
{
	struct shared *sh = f->sh;
	size_t i;

	if (ret == 0) {
		atomic_fetch_add(&sh->hist[NALLOWED], 1);
		return;
	}
	for (i = 0; ret == -1 && i < NALLOWED; i++) {
		if (allowed[i] == e) {
			atomic_fetch_add(&sh->hist[i], 1);
			return;
		}
	}
	if (atomic_fetch_add(&sh->bad, 1))
		return;
	snprintf(sh->bad_what, sizeof(sh->bad_what),
		 "thread %d: ioctl(fd %d, cmd 0x%08lx, arg 0x%llx) = %ld errno %d (%s); arg words %08x %08x %08x %08x %08x %08x",
		 f->tid, fd, cmd, (unsigned long long)arg, ret, e, strerror(e),
		 ((const __u32 *)b)[0], ((const __u32 *)b)[1],
		 ((const __u32 *)b)[2], ((const __u32 *)b)[3],
		 ((const __u32 *)b)[4], ((const __u32 *)b)[5]);
	DIAG("fuzz: bad call: %s\n", sh->bad_what);
}

static void *fuzz_thread(void *arg)
{
	struct fuzzer *f = arg;
	struct shared *sh = f->sh;
	unsigned long cmd, n;
	unsigned int nr;
	__u8 *b;
	__u64 a;
	long ret;
	int fd, e;

	for (;;) {
		n = atomic_fetch_add(&sh->calls, 1);
		if (n >= MAX_CALLS || atomic_load(&sh->bad) ||
		    ((n & 63) == 0 && now_sec() > sh->deadline))
			break;
		/* Now and then a descriptor of our own starts over. */
		if (chance(f, 1)) {
			int i = below(f, NOWN);

			close(f->own[i]);
			/* Some read-only: every change through them is EBADF. */
			f->own[i] = chance(f, 4) ?
				    open(BLOOM_DEV, O_RDONLY | O_CLOEXEC) :
				    bt_open();
		}
		cmd = fuzz_cmd(f, &nr);
		/* The struct lives in the rw buffer's last page (random offset). */
		b = f->mem.rw + (BUF_PAGES - 1) * PAGE + 8 * below(f, 64);
		fuzz_arg(f, nr, b);
		switch (below(f, 16)) {
		case 0:
			a = fuzz_ptr(f, 64, false);
			break;
		case 1:	/* misaligned, and the tail runs into PROT_NONE */
			a = u64_ptr(f->mem.none) - 1 - below(f, 200);
			break;
		case 2:	/* read-only: outputs cannot be written */
			a = u64_ptr(f->mem.ro);
			break;
		default:
			a = u64_ptr(b);
			break;
		}
		fd = pick_fd(f);
		ret = ioctl(fd, cmd, (unsigned long)a);
		e = errno;
		atomic_fetch_add(&sh->per_cmd[nr], 1);
		note(f, cmd, fd, a, b, ret, e);
	}
	return NULL;
}

FIXTURE(fuzz) {
	long long saved_max_memory;
	long long live0;
	int fd;
};

FIXTURE_SETUP(fuzz)
{
	self->fd = bt_open();
	ASSERT_LE(0, self->fd);
	self->saved_max_memory = read_u64_file(BLOOM_MAX_MEMORY);
	ASSERT_LE(0, self->saved_max_memory);
	/* Our descriptor and nothing else. */
	self->live0 = live_allocations_baseline(1);
	ASSERT_EQ(1, self->live0) TH_LOG("allocations left by earlier tests");
}

FIXTURE_TEARDOWN(fuzz)
{
	write_u64_file(BLOOM_MAX_MEMORY, self->saved_max_memory);
	close(self->fd);
	bt_destroy_all();
}

static int map_region(struct region *r, __u64 seed)
{
	__u8 *m = mmap(NULL, (BUF_PAGES + 2) * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	__u64 i;

	if (m == MAP_FAILED)
		return -1;
	r->rw = m;
	r->none = m + BUF_PAGES * PAGE;
	r->ro = m + (BUF_PAGES + 1) * PAGE;
	/* Random key bytes, so batches hash something. */
	for (i = 0; i < (BUF_PAGES + 2) * PAGE / 8; i++)
		((__u64 *)m)[i] = mix64(seed + i);
	if (mprotect(r->none, PAGE, PROT_NONE) ||
	    mprotect(r->ro, PAGE, PROT_READ))
		return -1;
	return 0;
}

TEST_F_TIMEOUT(fuzz, random_ioctls, 90)
{
	struct fuzzer fz[THREADS];
	pthread_t th[THREADS];
	struct shared *sh;
	const char *env = getenv("FUZZ_SEED");
	__u64 seed = env ? strtoull(env, NULL, 0) :
			   (__u64)time(NULL) ^ ((__u64)getpid() << 32);
	unsigned long calls;
	long long live;
	double t0, secs;
	int i, j;

	DIAG("fuzz: seed %llu (FUZZ_SEED=%llu to replay)\n",
		       (unsigned long long)seed, (unsigned long long)seed);
	sh = calloc(1, sizeof(*sh));
	ASSERT_NE(NULL, sh);
	ASSERT_OK(write_u64_file(BLOOM_MAX_MEMORY, FUZZ_MAX_MEMORY));
	for (i = 0; i < NSHARED; i++) {
		sh->fds[i] = bt_open();
		ASSERT_LE(0, sh->fds[i]);
	}
	for (i = 0; i < THREADS; i++) {
		fz[i].sh = sh;
		fz[i].tid = i;
		fz[i].rng = mix64(seed + i);
		for (j = 0; j < NOWN; j++) {
			fz[i].own[j] = bt_open();
			ASSERT_LE(0, fz[i].own[j]);
		}
		ASSERT_OK(map_region(&fz[i].mem, seed + i));
	}
	t0 = now_sec();
	sh->deadline = t0 + MAX_SECONDS;
	for (i = 0; i < THREADS; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, fuzz_thread, &fz[i]));
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	secs = now_sec() - t0;
	calls = atomic_load(&sh->calls);
	if (calls > MAX_CALLS)
		calls = MAX_CALLS;

	DIAG("fuzz: %lu calls in %.1f s (%.0f calls/s), %d threads\n",
		       calls, secs, calls / secs, THREADS);
	DIAG("fuzz: %-10s %lu\n", "success", atomic_load(&sh->hist[NALLOWED]));
	for (i = 0; i < (int)NALLOWED; i++)
		if (atomic_load(&sh->hist[i]))
			DIAG("fuzz: %-10s %lu\n", strerrorname_np(allowed[i]),
			     atomic_load(&sh->hist[i]));
	for (i = 0; i < 17; i++)
		DIAG("fuzz: nr %2d%s: %lu calls\n", i,
			       i == 16 ? " (other magics)" : "",
			       atomic_load(&sh->per_cmd[i]));
	EXPECT_EQ(0, atomic_load(&sh->bad)) TH_LOG("%s", sh->bad_what);
	/* Something got through validation: the fuzzer reaches the filters. */
	EXPECT_LT(0, atomic_load(&sh->hist[NALLOWED]));
	EXPECT_LT(1000, calls);

	for (i = 0; i < THREADS; i++) {
		for (j = 0; j < NOWN; j++)
			close(fz[i].own[j]);
		munmap(fz[i].mem.rw, (BUF_PAGES + 2) * PAGE);
	}
	for (i = 0; i < NSHARED; i++)
		close(sh->fds[i]);
	ASSERT_OK(write_u64_file(BLOOM_MAX_MEMORY, self->saved_max_memory));
	DIAG("fuzz: %d filters left, destroyed\n", bt_destroy_all());
	/* the frees come a grace period (and a delayed kobject release) later */
	live = wait_live_allocations(self->live0, BT_FREE_WAIT_MS);
	EXPECT_EQ(self->live0, live) TH_LOG("live_allocations after the fuzz");
	free(sh);
}

BT_LEAK_CHECK_TEST()

TEST_HARNESS_MAIN
