// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_rehash: an ADD or DELETE whose filter changes its hash key between
 * the batch's two passes (here a SWAP) reads and hashes its keys again.
 * That second read of the caller's memory must not happen with the
 * filter's write lock held: DESTROY waits for that lock with its
 * namespace's registry lock held, so a caller whose memory stalls would
 * hold up every DESTROY and LIST of the namespace. The keys live in a
 * userfaultfd mapping: its second page stalls pass one until the test has
 * swapped the filter and dropped the first page, whose next read (the
 * rehash) then stalls for as long as the test wants.
 */
#define _GNU_SOURCE
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

#include "bloom_test.h"

#define CAP		20000
#define PPB		10000000	/* p = 0.01 */
#define KEY_SIZE	16
/* what a call that waits for no stalled memory takes, even under TCG */
#define UNBLOCKED_MS	10000

FIXTURE(rehash) {
	int fd;		/* bound to "a", the filter whose batch stalls */
	int uffd;
	long page;
	__u8 *keys;	/* two pages of keys in the userfaultfd mapping */
	__u8 *bytes;	/* the same keys, in ordinary memory */
};

FIXTURE_VARIANT(rehash) {
	__u32 type;
	unsigned long cmd;
};

FIXTURE_VARIANT_ADD(rehash, add) {
	.type = BLOOM_TYPE_STANDARD,
	.cmd = BLOOM_IOC_ADD,
};

FIXTURE_VARIANT_ADD(rehash, delete) {
	.type = BLOOM_TYPE_COUNTING,
	.cmd = BLOOM_IOC_DELETE,
};

/*
 * Two pages of keys in a userfaultfd mapping, the first served; without
 * userfaultfd, self->uffd is -1 and the tests skip.
 */
FIXTURE_SETUP(rehash)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	__u32 i;

	self->keys = MAP_FAILED;
	self->page = sysconf(_SC_PAGESIZE);
	self->fd = bt_open();
	ASSERT_LE(0, self->fd);
	bt_destroy_all();
	self->bytes = malloc(2 * self->page);
	ASSERT_NE(NULL, self->bytes);
	for (i = 0; i < 2 * self->page / KEY_SIZE; i++)
		make_key16(i, self->bytes + i * KEY_SIZE);
	self->uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (self->uffd < 0 || ioctl(self->uffd, UFFDIO_API, &api)) {
		TH_LOG("no userfaultfd: %s", strerror(errno));
		if (self->uffd >= 0)
			close(self->uffd);
		self->uffd = -1;
		return;
	}
	self->keys = mmap(NULL, 2 * self->page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->keys);
	reg.range.start = (unsigned long)self->keys;
	reg.range.len = 2 * self->page;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	ASSERT_OK(ioctl(self->uffd, UFFDIO_REGISTER, &reg));
}

FIXTURE_TEARDOWN(rehash)
{
	if (self->keys != MAP_FAILED)
		munmap(self->keys, 2 * self->page);
	if (self->uffd >= 0)
		close(self->uffd);
	free(self->bytes);
	close(self->fd);
	bt_destroy_all();
}

struct call {
	pthread_t t;
	int fd;
	unsigned long cmd;
	const char *name;
	const void *keys;
	__u32 nkeys;
	int ret;	/* errno, 0 on success */
};

static void *batch_thread(void *arg)
{
	struct call *c = arg;

	c->ret = errno_of(bt_batch(c->fd, c->cmd, c->keys,
				   (__u64)c->nkeys * KEY_SIZE, c->nkeys,
				   KEY_SIZE, NULL, NULL, NULL));
	return NULL;
}

/* DESTROY of c->name, then a LIST: both take the namespace's lock. */
static void *destroy_thread(void *arg)
{
	struct call *c = arg;

	c->ret = errno_of(bt_destroy(c->fd, c->name));
	if (!c->ret && nfilters(c->fd) == ~0U)
		c->ret = errno;
	return NULL;
}

/* Whether @c's thread ended within @ms (joined if so). */
static bool joined_within(struct call *c, int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	return !pthread_timedjoin_np(c->t, NULL, &ts);
}

/* The address of the next fault on the mapping; 0 if none came in time. */
static unsigned long next_fault(int uffd)
{
	struct pollfd pfd = { .fd = uffd, .events = POLLIN };
	struct uffd_msg msg;

	if (poll(&pfd, 1, 60000) != 1 ||
	    read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT)
		return 0;
	return msg.arg.pagefault.address;
}

static int serve(int uffd, void *dst, const void *src, long len)
{
	struct uffdio_copy cp = {
		.dst = (unsigned long)dst,
		.src = (unsigned long)src,
		.len = len,
	};

	return ioctl(uffd, UFFDIO_COPY, &cp);
}

TEST_F(rehash, stalled_rehash_blocks_nobody)
{
	struct call batch, victim, other;
	__u32 nkeys = 2 * self->page / KEY_SIZE;
	unsigned long addr;
	bool other_done, victim_done;

	if (self->uffd < 0)
		SKIP(return, "no userfaultfd");
	/* a and c: the same type, each its own random hash key */
	ASSERT_OK(bt_create(self->fd, "a", variant->type, CAP, PPB,
			    BLOOM_CREATE_F_BIND));
	ASSERT_OK(bt_create(self->fd, "c", variant->type, CAP, PPB, 0));
	ASSERT_OK(bt_create(self->fd, "b", variant->type, CAP, PPB, 0));
	/* the first page is there; pass one stalls on the second */
	ASSERT_OK(serve(self->uffd, self->keys, self->bytes, self->page));

	batch = (struct call){ .fd = self->fd, .cmd = variant->cmd,
			       .keys = self->keys, .nkeys = nkeys };
	ASSERT_EQ(0, pthread_create(&batch.t, NULL, batch_thread, &batch));
	addr = next_fault(self->uffd);
	ASSERT_EQ((unsigned long)self->keys + self->page,
		  addr & ~(self->page - 1)) TH_LOG("pass one never stalled");

	/*
	 * Pass one has hashed with a's key: give a another one, and drop the
	 * first page, so that reading the keys again stalls.
	 */
	ASSERT_OK(bt_pair(self->fd, BLOOM_IOC_SWAP, "a", "c"));
	ASSERT_OK(madvise(self->keys, self->page, MADV_DONTNEED));
	ASSERT_OK(serve(self->uffd, self->keys + self->page,
			self->bytes + self->page, self->page));
	addr = next_fault(self->uffd);
	ASSERT_EQ((unsigned long)self->keys, addr & ~(self->page - 1))
		TH_LOG("the batch never read its keys again");

	/* the rehash is stalled: a's destroy, then b's and a LIST */
	victim = (struct call){ .fd = bt_open(), .name = "a" };
	other = (struct call){ .fd = bt_open(), .name = "b" };
	ASSERT_LE(0, victim.fd);
	ASSERT_LE(0, other.fd);
	ASSERT_EQ(0, pthread_create(&victim.t, NULL, destroy_thread, &victim));
	usleep(100 * 1000);	/* a's destroy first: it is the one that waits */
	ASSERT_EQ(0, pthread_create(&other.t, NULL, destroy_thread, &other));
	other_done = joined_within(&other, UNBLOCKED_MS);
	victim_done = joined_within(&victim, UNBLOCKED_MS);

	/* served: whatever waited finishes, so the test never hangs */
	EXPECT_OK(serve(self->uffd, self->keys, self->bytes, self->page));
	ASSERT_EQ(0, pthread_join(batch.t, NULL));
	if (!victim_done)
		ASSERT_EQ(0, pthread_join(victim.t, NULL));
	if (!other_done)
		ASSERT_EQ(0, pthread_join(other.t, NULL));
	EXPECT_TRUE(other_done)
		TH_LOG("DESTROY and LIST of the namespace waited for a stalled batch");
	EXPECT_TRUE(victim_done)
		TH_LOG("DESTROY of the batch's filter waited for its stalled memory");
	EXPECT_EQ(0, victim.ret) TH_LOG("destroy a: %s", strerror(victim.ret));
	EXPECT_EQ(0, other.ret) TH_LOG("destroy b: %s", strerror(other.ret));
	/* a went while the batch waited: what it did went with it */
	EXPECT_EQ(ESTALE, batch.ret) TH_LOG("batch: %s", strerror(batch.ret));
	close(victim.fd);
	close(other.fd);
}

/* Without a stall: the batch rehashed after a swap lands in the new store. */
TEST_F(rehash, swapped_batch_lands_whole)
{
	struct call batch;
	__u32 nkeys = 2 * self->page / KEY_SIZE;
	__u8 *res;
	unsigned long addr;

	if (self->uffd < 0)
		SKIP(return, "no userfaultfd");
	ASSERT_OK(bt_create(self->fd, "a", variant->type, CAP, PPB,
			    BLOOM_CREATE_F_BIND));
	ASSERT_OK(bt_create(self->fd, "c", variant->type, CAP, PPB, 0));
	/* DELETE: every key in the filter the batch will find */
	if (variant->cmd == BLOOM_IOC_DELETE) {
		ASSERT_OK(bt_batch(self->fd, BLOOM_IOC_ADD, self->bytes,
				   2 * self->page, nkeys, KEY_SIZE, NULL, NULL,
				   NULL));
		ASSERT_OK(bt_pair(self->fd, BLOOM_IOC_SWAP, "a", "c"));
		ASSERT_OK(bt_batch(self->fd, BLOOM_IOC_ADD, self->bytes,
				   2 * self->page, nkeys, KEY_SIZE, NULL, NULL,
				   NULL));
	}
	ASSERT_OK(serve(self->uffd, self->keys, self->bytes, self->page));

	batch = (struct call){ .fd = self->fd, .cmd = variant->cmd,
			       .keys = self->keys, .nkeys = nkeys };
	ASSERT_EQ(0, pthread_create(&batch.t, NULL, batch_thread, &batch));
	addr = next_fault(self->uffd);
	ASSERT_NE(0, addr) TH_LOG("pass one never stalled");
	ASSERT_OK(bt_pair(self->fd, BLOOM_IOC_SWAP, "a", "c"));
	ASSERT_OK(serve(self->uffd, self->keys + self->page,
			self->bytes + self->page, self->page));
	ASSERT_EQ(0, pthread_join(batch.t, NULL));
	ASSERT_EQ(0, batch.ret) TH_LOG("batch: %s", strerror(batch.ret));

	/* a now holds the other key: its answers are the batch's */
	res = calloc(nkeys / 8, 1);
	ASSERT_NE(NULL, res);
	ASSERT_OK(bt_batch(self->fd, BLOOM_IOC_QUERY, self->bytes,
			   2 * self->page, nkeys, KEY_SIZE, NULL, res, NULL));
	if (variant->cmd == BLOOM_IOC_ADD) {
		EXPECT_EQ(nkeys, popcount_bm(res, nkeys));
	} else {
		/* all deleted: at most the false positives stay */
		EXPECT_GT(nkeys / 10, popcount_bm(res, nkeys));
	}
	free(res);
}

TEST_HARNESS_MAIN
