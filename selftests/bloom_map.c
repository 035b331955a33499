// SPDX-License-Identifier: GPL-2.0
/*
 * Mappings of filters: mmap() of a bound descriptor (struct
 * bloom_map_header in uapi/linux/bloom.h). The header's fields against
 * INFO, every refusal, a fork, destroy and unmap in both orders with the
 * memory and live allocations back, the sequence number's bump for every
 * kind of change, and readers through libbloom's mapped query during a
 * stream of adds and swaps (no false negative, retries counted).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <grp.h>
#include <sys/wait.h>

#include "bloom_test.h"
#include "libbloom.h"

#define PAGE	4096

static const __u8 test_key[BLOOM_HASH_KEY_LEN] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
};

/* A bound descriptor of a new filter @name of @type with @test_key. */
static int bound_filter(const char *name, __u32 type, __u64 capacity,
			__u32 flags)
{
	struct bloom_create c = bt_create_req(name, type, capacity, 10000000,
					      flags | BLOOM_CREATE_F_BIND |
					      BLOOM_CREATE_F_HASH_KEY);
	int fd = bt_open();

	if (fd < 0)
		return -1;
	memcpy(c.hash_key, test_key, sizeof(test_key));
	if (flags & BLOOM_CREATE_F_TIMEOUT)
		c.timeout_ms = 10000;
	if (ioctl(fd, BLOOM_IOC_CREATE, &c)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The whole mapping of @fd's filter, its length in *@len; NULL on error. */
static struct bloom_map_header *map_all(int fd, size_t *len)
{
	struct bloom_map_header *h;
	size_t want;

	h = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		return NULL;
	want = h->map_len;
	munmap(h, PAGE);
	h = mmap(NULL, want, PROT_READ, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		return NULL;
	*len = want;
	return h;
}

static __u64 popcount_bits(const struct bloom_map_header *h)
{
	const __u64 *w = (const void *)((const char *)h + h->bits_offset);
	__u64 i, n = 0;

	for (i = 0; i < h->bits_len / 8; i++)
		n += __builtin_popcountll(w[i]);
	return n;
}

static void add_keys(int fd, __u64 from, __u64 n)
{
	__u8 k[16];
	__u64 i;

	for (i = from; i < from + n; i++) {
		make_key16(i, k);
		bt_one(fd, BLOOM_IOC_ADD, k, sizeof(k));
	}
}

FIXTURE(map) {
	int fd;
};

FIXTURE_VARIANT(map) {
	__u32 type;
};

FIXTURE_VARIANT_ADD(map, standard) { .type = STD, };
FIXTURE_VARIANT_ADD(map, blocked) { .type = BLK, };

FIXTURE_SETUP(map)
{
	self->fd = bound_filter("m", variant->type, 10000, 0);
	ASSERT_LE(0, self->fd) TH_LOG("create: %s", strerror(errno));
}

FIXTURE_TEARDOWN(map)
{
	close(self->fd);
	bt_destroy_all();
}

TEST_F(map, header_matches_info_and_bits_are_live)
{
	struct bloom_map_header *h;
	struct bloom_version v;
	struct bloom_info info;
	size_t len;

	ASSERT_OK(bt_version(self->fd, &v));
	EXPECT_TRUE(v.features & BLOOM_FEATURE_MAP);
	h = map_all(self->fd, &len);
	ASSERT_NE(NULL, h) TH_LOG("mmap: %s", strerror(errno));
	ASSERT_OK(bt_info(self->fd, "m", &info));
	EXPECT_EQ(BLOOM_MAP_MAGIC, h->magic);
	EXPECT_EQ(sizeof(*h), h->header_size);
	EXPECT_EQ(0, h->seq);
	EXPECT_EQ(0, h->flags);
	EXPECT_EQ(variant->type, h->type);
	EXPECT_EQ(info.hashes, h->hashes);
	EXPECT_EQ(info.bits, h->bits);
	EXPECT_EQ(BLOOM_KEYS_UNKNOWN, h->keys);
	EXPECT_EQ(PAGE, h->bits_offset);
	EXPECT_EQ(0, h->bits_len % 64);
	EXPECT_LE(info.bits / 8, h->bits_len);
	EXPECT_EQ(len, h->map_len);
	EXPECT_LE(h->bits_offset + h->bits_len, h->map_len);
	EXPECT_EQ(0, memcmp(h->hash_key, test_key, sizeof(test_key)));
	EXPECT_EQ(0, popcount_bits(h));
	/* adds set bits in place: the mapping sees them, no bump */
	add_keys(self->fd, 0, 500);
	ASSERT_OK(bt_info(self->fd, "m", &info));
	EXPECT_LT(0, info.bits_set);
	EXPECT_EQ(info.bits_set, popcount_bits(h));
	EXPECT_EQ(0, h->seq);
	EXPECT_OK(munmap(h, len));
}

TEST_F(map, writing_is_refused_every_way)
{
	struct bloom_map_header *h;
	int memfd, rofd;
	size_t len;
	__u64 zero = 0;
	void *p;

	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EACCES, errno);
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, self->fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EACCES, errno);
	/* a read-only descriptor: the kernel refuses a shared write itself */
	rofd = open(BLOOM_DEV, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, rofd);
	ASSERT_OK(bt_bind(rofd, "m"));
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, rofd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EACCES, errno);
	/* nor may root read through it: a read-only descriptor never maps */
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, rofd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EACCES, errno);
	close(rofd);

	h = map_all(self->fd, &len);
	ASSERT_NE(NULL, h);
	EXPECT_ERRNO(EACCES, mprotect(h, len, PROT_READ | PROT_WRITE));
	/* FOLL_FORCE through /proc/self/mem: refused, nothing changed */
	memfd = open("/proc/self/mem", O_RDWR);
	ASSERT_LE(0, memfd);
	EXPECT_EQ(-1, pwrite(memfd, &zero, sizeof(zero),
			     (off_t)(uintptr_t)h));
	EXPECT_EQ(-1, pwrite(memfd, &zero, sizeof(zero),
			     (off_t)(uintptr_t)h + PAGE));
	close(memfd);
	EXPECT_EQ(BLOOM_MAP_MAGIC, h->magic);
	/* the mapping cannot grow */
	EXPECT_EQ(MAP_FAILED, mremap(h, len, len + PAGE, 0));
	EXPECT_OK(munmap(h, len));
}

TEST_F(map, offset_and_length_are_checked)
{
	struct bloom_map_header *h;
	size_t len;
	void *p;

	h = map_all(self->fd, &len);
	ASSERT_NE(NULL, h);
	p = mmap(NULL, len + PAGE, PROT_READ, MAP_SHARED, self->fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, self->fd, PAGE);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	/* a private read-only mapping is as good as a shared one */
	p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, self->fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(BLOOM_MAP_MAGIC, ((struct bloom_map_header *)p)->magic);
	munmap(p, len);
	munmap(h, len);
}

TEST_F(map, fork_keeps_the_mapping_valid)
{
	struct bloom_map_header *h;
	int ready[2], go[2], status;
	__u64 before;
	size_t len;
	pid_t pid;
	char c;

	h = map_all(self->fd, &len);
	ASSERT_NE(NULL, h);
	add_keys(self->fd, 0, 100);
	before = popcount_bits(h);
	ASSERT_LT(0, before);
	ASSERT_OK(pipe(ready));
	ASSERT_OK(pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (popcount_bits(h) != before)
			_exit(2);
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(3);
		/* the parent's adds since are seen here too */
		_exit(popcount_bits(h) > before ? 0 : 4);
	}
	ASSERT_EQ(1, read(ready[0], &c, 1));
	add_keys(self->fd, 100, 100);
	/* the parent lets go of its own mapping first */
	EXPECT_OK(munmap(h, len));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* Another process, without CAP_NET_ADMIN, on a read-only descriptor. */
TEST_F(map, who_may_not_save_may_not_map)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = open(BLOOM_DEV, O_RDONLY | O_CLOEXEC);
		void *p;

		if (fd < 0 || bt_bind(fd, "m") || setgroups(0, NULL) ||
		    setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(2);
		p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
		_exit(p == MAP_FAILED && errno == EPERM ? 0 : 3);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* Kills a mapping's filter, then lets go of the mapping, or the other way. */
static void lifetime(struct __test_metadata *_metadata, int fd,
		     bool destroy_first)
{
	struct bloom_map_header *h;
	__u64 bits, seq;
	size_t len;
	void *p;

	h = map_all(fd, &len);
	ASSERT_NE(NULL, h);
	add_keys(fd, 0, 300);
	bits = popcount_bits(h);
	seq = h->seq;
	if (destroy_first) {
		ASSERT_OK(bt_destroy(fd, "m"));
		EXPECT_TRUE(h->flags & BLOOM_MAP_F_STALE);
		EXPECT_EQ(seq + 2, h->seq);
		/* the bits stay, frozen, until unmapped; a new map is refused */
		EXPECT_EQ(bits, popcount_bits(h));
		p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
		EXPECT_EQ(MAP_FAILED, p);
		EXPECT_EQ(ESTALE, errno);
		/* the pages still count until the last unmap */
		EXPECT_LE((long long)len, read_u64_file(BLOOM_SYSFS "/memory_used"));
		close(fd);
		EXPECT_EQ(bits, popcount_bits(h));
		EXPECT_OK(munmap(h, len));
	} else {
		EXPECT_OK(munmap(h, len));
		ASSERT_OK(bt_destroy(fd, "m"));
		close(fd);
	}
	EXPECT_EQ(0, wait_memory_used(0, BT_FREE_WAIT_MS));
	EXPECT_EQ(0, wait_live_allocations_zero(BT_FREE_WAIT_MS));
}

TEST_F(map, destroy_then_unmap_leaks_nothing)
{
	lifetime(_metadata, self->fd, true);
	self->fd = bt_open();
}

TEST_F(map, unmap_then_destroy_leaks_nothing)
{
	lifetime(_metadata, self->fd, false);
	self->fd = bt_open();
}

/* A descriptor closed while its mapping lives: the mapping holds it. */
TEST_F(map, close_then_destroy_then_unmap)
{
	struct bloom_map_header *h;
	int fd = bt_open();
	size_t len;

	ASSERT_LE(0, fd);
	h = map_all(self->fd, &len);
	ASSERT_NE(NULL, h);
	close(self->fd);
	self->fd = fd;
	ASSERT_OK(bt_destroy(fd, "m"));
	EXPECT_TRUE(h->flags & BLOOM_MAP_F_STALE);
	EXPECT_OK(munmap(h, len));
	EXPECT_EQ(0, wait_memory_used(0, BT_FREE_WAIT_MS));
	EXPECT_EQ(1, wait_live_allocations(1, BT_FREE_WAIT_MS));
}

TEST_F(map, every_change_bumps_the_sequence)
{
	struct bloom_map_header *h, *h2;
	struct bloom_create c;
	__u8 addr[4] = { 10, 0, 0, 1 };
	size_t len, len2;
	__u64 snap_len;
	struct bloom_batch b;
	__u8 *snap;
	__u64 s;

	h = map_all(self->fd, &len);
	ASSERT_NE(NULL, h);
	add_keys(self->fd, 0, 50);
	c = bt_create_req("o", 0, 0, 0, BLOOM_CREATE_F_LIKE);
	set_name(c.like, "m");
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_CREATE, &c));

	s = h->seq;
	ASSERT_OK(bt_pair(self->fd, BLOOM_IOC_MERGE, "m", "o"));
	EXPECT_EQ(s + 2, h->seq);
	s = h->seq;
	ASSERT_OK(bt_name_ioctl(self->fd, BLOOM_IOC_FLUSH, "m"));
	EXPECT_EQ(s + 2, h->seq);
	EXPECT_EQ(0, popcount_bits(h));
	EXPECT_FALSE(h->flags & BLOOM_MAP_F_STALE);

	/* swap: this mapping now shows what "o" holds */
	s = h->seq;
	ASSERT_OK(bt_pair(self->fd, BLOOM_IOC_SWAP, "m", "o"));
	EXPECT_EQ(s + 2, h->seq);
	EXPECT_FALSE(h->flags & BLOOM_MAP_F_STALE);
	h2 = map_all(self->fd, &len2);
	ASSERT_NE(NULL, h2);
	EXPECT_NE(h, h2);

	/* a replacing restore: the old contents are stale */
	snap = bt_save_alloc(self->fd, "o", &snap_len);
	ASSERT_NE(NULL, snap);
	s = h2->seq;
	ASSERT_OK(bt_restore_as(self->fd, snap, snap_len, "m",
				BLOOM_RESTORE_F_REPLACE));
	free(snap);
	EXPECT_EQ(s + 2, h2->seq);
	EXPECT_TRUE(h2->flags & BLOOM_MAP_F_STALE);
	munmap(h2, len2);

	/* the first address added gives the key kind: a change of meaning */
	h2 = map_all(self->fd, &len2);
	ASSERT_NE(NULL, h2);
	s = h2->seq;
	memset(&b, 0, sizeof(b));
	ASSERT_OK(bt_batch(self->fd, BLOOM_IOC_ADD, addr, 4, 1, 4, NULL, NULL,
			   &b));
	EXPECT_EQ(s, h2->seq) TH_LOG("a plain add is no change of meaning");
	b.flags = BLOOM_BATCH_F_NET;
	b.size = sizeof(b);
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_ADD, &b));
	EXPECT_EQ(s + 2, h2->seq);
	EXPECT_EQ(BLOOM_KEYS_IPV4, h2->keys);
	munmap(h2, len2);
	munmap(h, len);
}

BT_DEV_FIXTURE(refuse);

TEST_F(refuse, unbound_descriptor)
{
	void *p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, self->fd, 0);

	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EBADFD, errno);
}

TEST_F(refuse, types_without_one_table)
{
	static const struct {
		__u32 type, flags;
	} cases[] = {
		{ CNT, 0 }, { DLF, 0 },
		{ STD, BLOOM_CREATE_F_SCALABLE },
		{ BLK, BLOOM_CREATE_F_TIMEOUT },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int fd = bound_filter("r", cases[i].type, 1000,
				      cases[i].flags);
		void *p;

		ASSERT_LE(0, fd);
		p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
		EXPECT_EQ(MAP_FAILED, p) TH_LOG("case %zu", i);
		EXPECT_EQ(EOPNOTSUPP, errno);
		close(fd);
		ASSERT_OK(bt_destroy(self->fd, "r"));
	}
}

/* libbloom's mapped queries, against the ioctl's answers. */
FIXTURE(lib) {
	int fd;
};

FIXTURE_VARIANT(lib) {
	__u32 type;
};

FIXTURE_VARIANT_ADD(lib, standard) { .type = STD, };
FIXTURE_VARIANT_ADD(lib, blocked) { .type = BLK, };

FIXTURE_SETUP(lib)
{
	self->fd = bound_filter("a", variant->type, 100000, 0);
	ASSERT_LE(0, self->fd);
	bloom_set_mapping(1);
}

FIXTURE_TEARDOWN(lib)
{
	bloom_close(self->fd);
	bt_destroy_all();
}

#define LIB_KEYS	4096

TEST_F(lib, mapped_answers_are_the_ioctls)
{
	static __u8 keys[2 * LIB_KEYS][16];
	__u8 res_map[2 * LIB_KEYS / 8], res_ioctl[2 * LIB_KEYS / 8];
	struct bloom_map_stats st0, st1;
	long hits_map, hits_ioctl;
	int i, present = 0;

	for (i = 0; i < 2 * LIB_KEYS; i++)
		make_key16(i, keys[i]);
	add_keys(self->fd, 0, LIB_KEYS);
	bloom_map_stats(&st0);
	for (i = 0; i < 2 * LIB_KEYS; i++) {
		int m = bloom_query(self->fd, keys[i], 16);
		int k = bt_one(self->fd, BLOOM_IOC_QUERY, keys[i], 16);

		ASSERT_EQ(k, m) TH_LOG("key %d", i);
		present += m;
	}
	bloom_map_stats(&st1);
	EXPECT_EQ(2 * LIB_KEYS, st1.queries - st0.queries);
	EXPECT_EQ(0, st1.fallbacks - st0.fallbacks);
	EXPECT_LE(LIB_KEYS, present);
	EXPECT_GT(2 * LIB_KEYS, present);
	{
		BLOOM_OPTS(bloom_batch_opts, o, .key_size = 16,
			   .results = res_map);

		hits_map = bloom_batch(self->fd, BLOOM_OP_QUERY, keys,
				       2 * LIB_KEYS, &o);
		bloom_set_mapping(0);
		o.results = res_ioctl;
		hits_ioctl = bloom_batch(self->fd, BLOOM_OP_QUERY, keys,
					 2 * LIB_KEYS, &o);
		bloom_set_mapping(1);
	}
	EXPECT_EQ(present, hits_map);
	EXPECT_EQ(hits_ioctl, hits_map);
	EXPECT_EQ(0, memcmp(res_map, res_ioctl, sizeof(res_map)));
	bloom_map_stats(&st0);
	EXPECT_EQ(st1.queries + 2 * LIB_KEYS, st0.queries);
}

/* What the mapping cannot answer, the ioctl does, with its errors. */
TEST_F(lib, falls_back_to_the_ioctl)
{
	struct bloom_map_stats st0, st1;
	__u8 addr[4] = { 192, 0, 2, 1 }, net[5] = { 192, 0, 2, 0, 24 };
	int cfd = bound_filter("c", CNT, 1000, 0);
	struct bloom_batch b;

	ASSERT_LE(0, cfd);
	add_keys(cfd, 0, 10);
	bloom_map_stats(&st0);
	EXPECT_EQ(1, bloom_query(cfd, "x", 1) >= 0);
	bloom_map_stats(&st1);
	EXPECT_EQ(st0.queries, st1.queries);
	EXPECT_LT(st0.fallbacks, st1.fallbacks);
	bloom_close(cfd);

	/* an address filter looks netblocks up: the ioctl answers */
	memset(&b, 0, sizeof(b));
	ASSERT_OK(bt_batch(self->fd, BLOOM_IOC_ADD, net, 5, 1, 5, NULL, NULL,
			   &b));
	b.size = sizeof(b);
	b.flags = BLOOM_BATCH_F_NET;
	ASSERT_OK(ioctl(self->fd, BLOOM_IOC_ADD, &b));
	EXPECT_EQ(1, bloom_query(self->fd, addr, 4));

	/* destroyed: ESTALE, as from the ioctl */
	ASSERT_OK(bt_destroy(self->fd, "a"));
	EXPECT_EQ(-ESTALE, bloom_query(self->fd, addr, 4));
}

/* bloom_close() lets go of the mapping: a destroy gives the memory back. */
TEST_F(lib, close_releases_the_mapping)
{
	int fd = bloom_open(NULL);

	ASSERT_LE(0, fd);
	ASSERT_OK(bloom_bind(fd, "a"));
	EXPECT_EQ(0, bloom_query(fd, "absent", 6));
	ASSERT_OK(bloom_close(fd));
	ASSERT_OK(bloom_close(self->fd));
	self->fd = bt_open();
	ASSERT_OK(bt_destroy(self->fd, "a"));
	EXPECT_EQ(0, wait_memory_used(0, BT_FREE_WAIT_MS));
}

/*
 * An idle thread's mapping of a destroyed filter: the pages stay charged
 * to max_memory (memory_used) until that thread queries the descriptor
 * again, which answers -ESTALE and drops the mapping, as libbloom(3)
 * says; then memory_used goes back to 0.
 */
struct idle_arg {
	int fd;
	pthread_barrier_t *step;
	int first, second;
};

static void *idle_querier(void *p)
{
	struct idle_arg *a = p;

	a->first = bloom_query(a->fd, "k", 1);
	pthread_barrier_wait(a->step);	/* mapped: now idle */
	pthread_barrier_wait(a->step);	/* the filter was destroyed */
	a->second = bloom_query(a->fd, "k", 1);
	pthread_barrier_wait(a->step);	/* queried again */
	pthread_barrier_wait(a->step);	/* memory_used was read: exit */
	return NULL;
}

TEST_F(lib, idle_threads_mapping_stays_charged_until_its_next_query)
{
	pthread_barrier_t step;
	struct idle_arg a;
	pthread_t th;
	int other = bt_open();

	ASSERT_LE(0, other);
	ASSERT_OK(pthread_barrier_init(&step, NULL, 2));
	a = (struct idle_arg){ .fd = self->fd, .step = &step };
	ASSERT_OK(pthread_create(&th, NULL, idle_querier, &a));
	pthread_barrier_wait(&step);
	ASSERT_OK(bt_destroy(other, "a"));
	/* the idle thread's mapping keeps the table's pages, charged */
	usleep(200 * 1000);
	EXPECT_LT(100000 / 8, read_u64_file(BLOOM_SYSFS "/memory_used"));
	pthread_barrier_wait(&step);
	pthread_barrier_wait(&step);
	/* its next query dropped the mapping: the thread still lives */
	EXPECT_EQ(0, wait_memory_used(0, BT_FREE_WAIT_MS));
	pthread_barrier_wait(&step);
	ASSERT_OK(pthread_join(th, NULL));
	EXPECT_EQ(0, a.first);
	EXPECT_EQ(-ESTALE, a.second);
	pthread_barrier_destroy(&step);
	close(other);
}

/*
 * Readers query through libbloom while a writer adds keys to two filters
 * of one hash key and swaps them every few keys (both hold every key
 * added so far, so a swap loses none). After each swap the writer waits
 * until every reader has queried again: each sees every swap.
 */
#define STREAM_READERS	2
#define STREAM_KEYS	4096
#define STREAM_EVERY	64

struct stream {
	_Atomic __u64 added;
	_Atomic __u64 swaps;
	_Atomic __u64 seen[STREAM_READERS];
	_Atomic int stop;
	_Atomic __u64 false_negatives;
	_Atomic __u64 queries, retries, remaps, fallbacks;
	_Atomic int ready;
};

struct reader_arg {
	struct stream *st;
	int id;
};

static void *reader(void *p)
{
	struct reader_arg *a = p;
	struct stream *st = a->st;
	struct bloom_map_stats ms;
	__u64 n, e, j = 0;
	__u8 k[16];
	int fd = bloom_open(NULL);

	if (fd < 0 || bloom_bind(fd, "a")) {
		st->false_negatives = ~0ULL;
		st->ready++;
		return NULL;
	}
	st->ready++;
	while (!st->stop) {
		e = atomic_load(&st->swaps);
		n = atomic_load(&st->added);
		if (n) {
			/* the newest key, and one walking over the others */
			make_key16(n - 1, k);
			if (bloom_query(fd, k, 16) != 1)
				st->false_negatives++;
			make_key16(j++ % n, k);
			if (bloom_query(fd, k, 16) != 1)
				st->false_negatives++;
			/* queried since swap e: seen e + 1 */
			atomic_store(&st->seen[a->id], e + 1);
		}
	}
	bloom_map_stats(&ms);
	st->queries += ms.queries;
	st->retries += ms.retries;
	st->remaps += ms.remaps;
	st->fallbacks += ms.fallbacks;
	bloom_close(fd);
	return NULL;
}

/*
 * 8,192 ADDs and 64 swaps, each swap waiting for both readers: under
 * KASAN and lockdep on a loaded host this took over the harness's
 * default 30 s.
 */
TEST_F_TIMEOUT(lib, readers_miss_nothing_during_adds_and_swaps, 300)
{
	struct reader_arg args[STREAM_READERS];
	pthread_t th[STREAM_READERS];
	static struct stream st;
	struct bloom_create c;
	int bfd, i, r;
	__u64 key;
	__u8 k[16];

	memset(&st, 0, sizeof(st));
	c = bt_create_req("b", 0, 0, 0, BLOOM_CREATE_F_LIKE |
			  BLOOM_CREATE_F_BIND);
	set_name(c.like, "a");
	bfd = bt_open();
	ASSERT_LE(0, bfd);
	ASSERT_OK(ioctl(bfd, BLOOM_IOC_CREATE, &c));
	for (i = 0; i < STREAM_READERS; i++) {
		args[i].st = &st;
		args[i].id = i;
		ASSERT_OK(pthread_create(&th[i], NULL, reader, &args[i]));
	}
	while (st.ready < STREAM_READERS)
		sched_yield();
	for (key = 0; key < STREAM_KEYS; key++) {
		make_key16(key, k);
		ASSERT_LE(0, bt_one(self->fd, BLOOM_IOC_ADD, k, 16));
		ASSERT_LE(0, bt_one(bfd, BLOOM_IOC_ADD, k, 16));
		atomic_store(&st.added, key + 1);
		if (key && (key + 1) % STREAM_EVERY)
			continue;
		/* every reader has mapped before the first swap */
		if (key) {
			ASSERT_OK(bt_pair(self->fd, BLOOM_IOC_SWAP, "a", "b"));
			atomic_store(&st.swaps, (key + 1) / STREAM_EVERY);
		}
		for (i = 0; i < STREAM_READERS; i++)
			while (atomic_load(&st.seen[i]) < st.swaps + 1)
				sched_yield();
	}
	st.stop = 1;
	for (i = 0; i < STREAM_READERS; i++)
		pthread_join(th[i], NULL);
	close(bfd);
	r = STREAM_KEYS / STREAM_EVERY;
	TH_LOG("%d swaps: %llu mapped queries, %llu retries, %llu remaps, %llu fallbacks",
	       r, (unsigned long long)st.queries,
	       (unsigned long long)st.retries, (unsigned long long)st.remaps,
	       (unsigned long long)st.fallbacks);
	EXPECT_EQ(0, st.false_negatives);
	EXPECT_LT(0, st.queries);
	/* every reader saw every swap: a remap each, at least */
	EXPECT_LE((__u64)r * STREAM_READERS, st.remaps);
}

BT_LEAK_CHECK_TEST();

TEST_HARNESS_MAIN
