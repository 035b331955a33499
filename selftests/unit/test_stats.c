// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The statistics the core keeps as keys come and go:
 * bits_set (bits set, non-zero counters, cells in use) and keys must equal
 * a full recount after any mix of single adds, batches, repeats and
 * deletes, and after threads adding the same keys at once; reading them
 * must not touch the filter's storage (sysfs reads are O(1)).
 */
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include "unit.h"

static const u32 types[] = {
	BLOOM_CORE_STANDARD, BLOOM_CORE_BLOCKED, BLOOM_CORE_COUNTING,
	BLOOM_CORE_DLEFT,
};

/*
 * The test's own recount, independent of the core's scan: set bits,
 * non-zero 4-bit counters, or d-left cells with a non-zero 2-bit count.
 */
static u64 recount(const struct bloom_core *c, const void *mem)
{
	const u8 *b = mem;
	u64 i, n = 0, bytes = bloom_core_storage_bytes(&c->geo);

	switch (c->geo.type) {
	case BLOOM_CORE_COUNTING:
		for (i = 0; i < bytes; i++)
			n += !!(b[i] & 0x0f) + !!(b[i] & 0xf0);
		return n;
	case BLOOM_CORE_DLEFT:
		/* every cell, by hand: buckets x 4 subtables x 8 */
		for (i = 0; i < c->geo.buckets * 32; i++)
			n += !!(dl_cell_of(mem, c->geo.cell_bits, i) & 3);
		return n;
	default:
		for (i = 0; i < bytes; i++)
			n += (u64)__builtin_popcount(b[i]);
		return n;
	}
}

/* xorshift64*: a fixed, reproducible mix of operations */
static u64 rnd(u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/*
 * Mixed work on a filter at about its capacity: batches and single adds
 * with repeats (and for the deletable types deletes, of added keys and of
 * never-added ones, batched and single), checking the kept figures against
 * the recount after every step.
 */
static void test_mixed(u32 type)
{
	enum { N = 20000, STEPS = 400, B = 64 };
	bool del = type == BLOOM_CORE_COUNTING || type == BLOOM_CORE_DLEFT;
	u64 s = 0x9e3779b97f4a7c15ULL, hs[B], live = 0, bad = 0, worst = 0;
	u64 nlive = 0;
	u32 *copies = calloc(N, sizeof(*copies));
	struct bloom_core_stats st;
	struct filter f;
	u32 step, i;

	filter_new(&f, type, N, 10000000);
	for (step = 0; step < STEPS; step++) {
		u32 op = rnd(&s) % 8, n = 1 + rnd(&s) % B;

		if (!del)
			op &= 3;	/* adds only */
		for (i = 0; i < n; i++) {
			u64 k = rnd(&s) % (step < STEPS / 2 ? N / 2 : N);
			u32 tag = 1;

			if (op < 5) {
				copies[k]++;
				nlive += copies[k] == 1;
			} else if (nlive && rnd(&s) % 8) {
				/* a live key: the delete must find it */
				while (!copies[k])
					k = (k + 1) % N;
				nlive -= --copies[k] == 0;
			} else {
				tag = 99;	/* never added */
			}
			hs[i] = key_hash(&f.core, tag, k);
		}
		if (!del || op < 5) {
			if (op & 1) {
				for (i = 0; i < n; i++)
					bloom_core_add_hash(&f.core, hs[i]);
			} else if (bloom_core_add_batch(&f.core, hs, n, NULL) < 0) {
				bad++;
			}
		} else if (op & 1) {
			for (i = 0; i < n; i++)
				bloom_core_delete_hash(&f.core, hs[i]);
		} else {
			bloom_core_delete_batch(&f.core, hs, n, NULL, NULL,
						NULL);
		}
		if (bloom_core_bits_set(&f.core) != recount(&f.core, f.mem) ||
		    bloom_core_bits_set(&f.core) !=
		    bloom_core_count_in_use(&f.core))
			bad++;
	}
	for (i = 0; i < N; i++)
		live += copies[i] > 0;
	bloom_core_stats(&f.core, &st);
	worst = live > st.keys ? live - st.keys : st.keys - live;
	check(!bad && st.in_use == recount(&f.core, f.mem),
	      "%s: bits_set kept by adds%s equals a recount after each of %u mixed steps (%llu bad; %llu in use)",
	      tname(type), del ? " and deletes" : "", STEPS,
	      (unsigned long long)bad, (unsigned long long)st.in_use);
	/* keys counts first adds and last deletes: false positives blur it */
	check(worst <= live / 50 + 2,
	      "%s: keys %llu against %llu distinct live keys (within 2%%)",
	      tname(type), (unsigned long long)st.keys,
	      (unsigned long long)live);
	filter_free(&f);
	free(copies);
}

/* Deleting everything that was added takes both figures back to 0. */
static void test_delete_all(u32 type)
{
	enum { N = 5000 };
	static u64 hs[N];
	struct bloom_core_stats a, b;
	struct filter f;
	u32 i, removed, np;

	filter_new(&f, type, 4 * N, 1000000);
	for (i = 0; i < N; i++)
		hs[i] = key_hash(&f.core, 7, i);
	bloom_core_add_batch(&f.core, hs, N, NULL);
	bloom_core_add_batch(&f.core, hs, N / 2, NULL);	/* repeats */
	bloom_core_stats(&f.core, &a);
	removed = bloom_core_delete_batch(&f.core, hs, N, NULL, NULL, &np);
	removed += np;
	for (i = 0; i < N / 2; i++)
		removed += bloom_core_delete_hash(&f.core, hs[i]) !=
			   BLOOM_CORE_DEL_ABSENT;
	bloom_core_stats(&f.core, &b);
	/*
	 * What stays are the saturated counters or cells (two keys sharing
	 * a d-left cell, each added twice, take it to 3): nothing else.
	 */
	check(removed == N + N / 2 && b.in_use == b.saturated &&
	      recount(&f.core, f.mem) == b.in_use &&
	      a.keys >= N - N / 100 && a.keys <= N && b.keys <= N / 100 &&
	      (type != BLOOM_CORE_DLEFT || b.keys == b.in_use),
	      "%s: %u keys (half twice) then all deleted: keys %llu -> %llu, bits_set %llu -> %llu (saturated %llu)",
	      tname(type), N, (unsigned long long)a.keys,
	      (unsigned long long)b.keys, (unsigned long long)a.in_use,
	      (unsigned long long)b.in_use, (unsigned long long)b.saturated);
	filter_free(&f);
}

/* ------------------------------------------------- reads are O(1) */

static sigjmp_buf fault_jmp;

static void on_fault(int sig)
{
	(void)sig;
	siglongjmp(fault_jmp, 1);
}

/*
 * With its storage made inaccessible, a filter's statistics still read:
 * nothing scans the storage (a scan faults and fails the check).
 */
static void test_read_without_storage(u32 type)
{
	struct bloom_geometry g;
	struct bloom_core c;
	struct bloom_core_stats st;
	struct sigaction sa = { .sa_handler = on_fault }, old_segv, old_bus;
	bloom_hash_key_t k;
	volatile u64 set = 0;
	u64 bytes, i, want;
	void *mem;
	volatile bool faulted = false;

	bloom_geometry_size(type, 100000, 10000000, &g);
	bytes = bloom_core_storage_bytes(&g);
	mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		check(false, "%s: mmap failed", tname(type));
		return;
	}
	bloom_hash_key_from_bytes(&k, test_key);
	bloom_core_init(&c, &g, &k, mem);
	for (i = 0; i < 5000; i++)
		bloom_core_add_hash(&c, key_hash(&c, 3, i));
	want = recount(&c, mem);
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	mprotect(mem, bytes, PROT_NONE);
	if (!sigsetjmp(fault_jmp, 1)) {
		set = bloom_core_bits_set(&c);
		bloom_core_stats(&c, &st);
	} else {
		faulted = true;
	}
	mprotect(mem, bytes, PROT_READ | PROT_WRITE);
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	check(!faulted && set == want && st.in_use == want,
	      "%s: bits_set and the statistics read without touching the storage (%s; %llu, recount %llu)",
	      tname(type), faulted ? "it was read" : "not read",
	      (unsigned long long)set, (unsigned long long)want);
	munmap(mem, bytes);
}

/* ------------------------------------------------------ concurrency */

struct adder {
	struct bloom_core *core;
	const u64 *hs;
	u32 n;
	bool batch;
	pthread_barrier_t *go;
	pthread_mutex_t *lock;	/* the writers' lock the core needs */
};

static void *adder(void *arg)
{
	struct adder *a = arg;
	u32 i, m;

	pthread_barrier_wait(a->go);
	/* a batch of 4 keys, or one key, a turn */
	for (i = 0; i < a->n; i += m) {
		m = !a->batch ? 1 : a->n - i < 4 ? a->n - i : 4;
		pthread_mutex_lock(a->lock);
		if (a->batch)
			bloom_core_add_batch(a->core, a->hs + i, m, NULL);
		else
			bloom_core_add_hash(a->core, a->hs[i]);
		pthread_mutex_unlock(a->lock);
	}
	return NULL;
}

/*
 * Two threads add the same keys to a small filter at the same moment,
 * taking turns under the writers' lock every few keys, so they meet on the
 * very same bits: each bit must be counted once (by the add that found it
 * clear).
 */
static void test_concurrent(u32 type)
{
	enum { N = 300, ROUNDS = 2000 };
	static u64 hs[N];
	u32 r, i, bad = 0;

	for (r = 0; r < ROUNDS; r++) {
		pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
		pthread_barrier_t go;
		pthread_t t[2];
		struct adder a[2];
		struct filter f;

		filter_new(&f, type, N, 100000000);
		for (i = 0; i < N; i++)
			hs[i] = key_hash(&f.core, 11 + r, i);
		pthread_barrier_init(&go, NULL, 2);
		for (i = 0; i < 2; i++) {
			a[i] = (struct adder){ &f.core, hs, N, (r + i) & 1, &go,
					       &lock };
			pthread_create(&t[i], NULL, adder, &a[i]);
		}
		for (i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		pthread_barrier_destroy(&go);
		bad += bloom_core_bits_set(&f.core) != recount(&f.core, f.mem);
		filter_free(&f);
	}
	check(!bad, "%s: 2 threads adding the same %u keys at once, %u rounds: bits_set equals the recount every time (%u rounds off)",
	      tname(type), N, ROUNDS, bad);
}

/*
 * MERGE keeps bits_set exact (only the bits its OR turned on, the counters
 * it took from 0) and adds the source's keys; CLEAR zeroes both.
 */
static void test_merge_clear(u32 type)
{
	enum { N = 20000 };
	struct bloom_core_stats sa, sb, st;
	struct filter a, b;
	u32 i;

	filter_new(&a, type, N, 10000000);
	filter_new(&b, type, N, 10000000);
	for (i = 0; i < N; i++)
		bloom_core_add_hash(i % 2 ? &a.core : &b.core,
				    key_hash(&a.core, 1, i % 3 ? i : i / 3));
	bloom_core_stats(&a.core, &sa);
	bloom_core_stats(&b.core, &sb);
	check(!bloom_core_merge(&a.core, &b.core), "%s: merge", tname(type));
	bloom_core_stats(&a.core, &st);
	check(st.in_use == recount(&a.core, a.mem) &&
	      st.in_use == bloom_core_count_in_use(&a.core) &&
	      st.keys == sa.keys + sb.keys,
	      "%s: after merge bits_set %llu equals a recount (%llu), keys %llu = %llu + %llu",
	      tname(type), (unsigned long long)st.in_use,
	      (unsigned long long)recount(&a.core, a.mem),
	      (unsigned long long)st.keys, (unsigned long long)sa.keys,
	      (unsigned long long)sb.keys);
	check(!bloom_core_clear(&a.core), "%s: clear", tname(type));
	bloom_core_stats(&a.core, &st);
	check(st.in_use == 0 && st.keys == 0 && recount(&a.core, a.mem) == 0,
	      "%s: after clear bits_set %llu and keys %llu are 0",
	      tname(type), (unsigned long long)st.in_use,
	      (unsigned long long)st.keys);
	filter_free(&a);
	filter_free(&b);
}

int main(void)
{
	u32 i;

	printf("TAP version 13\n");
	for (i = 0; i < 4; i++) {
		test_mixed(types[i]);
		test_read_without_storage(types[i]);
	}
	test_delete_all(BLOOM_CORE_COUNTING);
	test_delete_all(BLOOM_CORE_DLEFT);
	test_concurrent(BLOOM_CORE_STANDARD);
	test_concurrent(BLOOM_CORE_BLOCKED);
	for (i = 0; i < 3; i++)
		test_merge_clear(types[i]);
	printf("1..%d\n", test_no);
	return test_failed ? 1 : 0;
}
