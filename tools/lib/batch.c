// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * Adding, querying and deleting keys: one key, or a batch of (pointer,
 * length) keys or of packed fixed-size keys, split into ioctls within the
 * ABI's batch limits. The three commands take the same struct bloom_batch,
 * so one code path serves them all.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* The ioctl of a batch operation, or 0 for an operation that is none. */
static unsigned long batch_cmd(enum bloom_op op)
{
	switch (op) {
	case BLOOM_OP_ADD:
		return BLOOM_IOC_ADD;
	case BLOOM_OP_QUERY:
		return BLOOM_IOC_QUERY;
	case BLOOM_OP_DELETE:
		return BLOOM_IOC_DELETE;
	default:
		return 0;
	}
}

int bloom_add(int fd, const void *key, size_t len)
{
	int err;

	if (len == 0 || len > BLOOM_KEY_MAX)
		return -EINVAL;
	err = lb_overfill_check(fd, 1);
	return err ? err : lb_one_key(fd, BLOOM_IOC_ADD, key, len);
}

int bloom_delete(int fd, const void *key, size_t len)
{
	return lb_one_key(fd, BLOOM_IOC_DELETE, key, len);
}

/*
 * The keys of one bloom_batch() call, cut into chunks of one ioctl each.
 * Variable-size keys are copied into one packed buffer per chunk, with
 * their lengths; fixed-size keys are sent where they are.
 */
struct chunker {
	const void *keys;
	size_t n;
	size_t key_size;	/* 0: @keys is struct bloom_key[@n] */
	size_t max_keys;	/* keys one chunk may hold */
	uint8_t *buf;		/* variable keys: BLOOM_BATCH_MAX_BYTES at most */
	uint32_t *lens;		/* variable keys: @max_keys lengths */
};

static int chunker_init_fixed(struct chunker *c)
{
	if (c->key_size > BLOOM_KEY_MAX)
		return -EINVAL;
	c->max_keys = BLOOM_BATCH_MAX_BYTES / c->key_size;
	if (c->max_keys > BLOOM_BATCH_MAX_KEYS)
		c->max_keys = BLOOM_BATCH_MAX_KEYS;
	return 0;
}

/* Checks every key before any is sent; room for the largest chunk. */
static int chunker_init_variable(struct chunker *c)
{
	const struct bloom_key *keys = c->keys;
	size_t i, bytes = 0;

	for (i = 0; i < c->n; i++) {
		if (keys[i].len == 0 || keys[i].len > BLOOM_KEY_MAX)
			return -EINVAL;
		bytes += keys[i].len;
	}
	if (c->n == 0)
		return 0;
	c->max_keys = c->n < BLOOM_BATCH_MAX_KEYS ? c->n : BLOOM_BATCH_MAX_KEYS;
	if (bytes > BLOOM_BATCH_MAX_BYTES)
		bytes = BLOOM_BATCH_MAX_BYTES;
	c->lens = malloc(c->max_keys * sizeof(*c->lens));
	c->buf = malloc(bytes);
	return c->lens && c->buf ? 0 : -ENOMEM;
}

static int chunker_init(struct chunker *c, const void *keys, size_t n,
			size_t key_size)
{
	memset(c, 0, sizeof(*c));
	c->keys = keys;
	c->n = n;
	c->key_size = key_size;
	return key_size ? chunker_init_fixed(c) : chunker_init_variable(c);
}

static void chunker_free(struct chunker *c)
{
	free(c->lens);
	free(c->buf);
}

/*
 * Every chunk but the last holds a multiple of 8 keys, so each chunk's
 * results start on a byte boundary and the kernel can write them straight
 * into the caller's bitmaps. Since BLOOM_BATCH_MAX_BYTES holds at least 1024
 * keys of BLOOM_KEY_MAX bytes, rounding down never leaves a chunk empty.
 */
static size_t round_chunk(size_t cnt, size_t start, size_t n)
{
	if (start + cnt < n && cnt >= 8)
		cnt &= ~(size_t)7;
	return cnt;
}

/* Fills @b with the keys of the chunk that starts at key @start. */
static void chunk_fixed(const struct chunker *c, size_t start,
			struct bloom_batch *b)
{
	size_t cnt = c->n - start < c->max_keys ? c->n - start : c->max_keys;

	cnt = round_chunk(cnt, start, c->n);
	b->nkeys = cnt;
	b->key_size = c->key_size;
	b->keys = (uintptr_t)((const uint8_t *)c->keys + start * c->key_size);
	b->keys_len = cnt * c->key_size;
}

static void chunk_variable(const struct chunker *c, size_t start,
			   struct bloom_batch *b)
{
	const struct bloom_key *keys = (const struct bloom_key *)c->keys + start;
	size_t i, cnt = 0, len = 0;

	while (start + cnt < c->n && cnt < c->max_keys &&
	       len + keys[cnt].len <= BLOOM_BATCH_MAX_BYTES)
		len += keys[cnt++].len;
	cnt = round_chunk(cnt, start, c->n);
	len = 0;
	for (i = 0; i < cnt; i++) {
		memcpy(c->buf + len, keys[i].data, keys[i].len);
		c->lens[i] = keys[i].len;
		len += keys[i].len;
	}
	b->nkeys = cnt;
	b->keys = (uintptr_t)c->buf;
	b->lens = (uintptr_t)c->lens;
	b->keys_len = len;
}

long bloom_batch(int fd, enum bloom_op op, const void *keys, size_t n,
		 const struct bloom_batch_opts *opts)
{
	unsigned long cmd = batch_cmd(op);
	const uint32_t *timeouts;
	uint8_t *results, *pinned;
	size_t *done, *npinned;
	struct chunker c;
	size_t start = 0;
	long total = 0;
	uint32_t flags, add_flags;
	int err;

	err = OPTS_CHECK(opts, bloom_batch_opts);
	if (err)
		return err;
	flags = OPTS_GET(opts, flags, 0);
	add_flags = OPTS_GET(opts, add_flags, 0);
	if (!cmd || flags & ~(BLOOM_BATCH_F_NET | BLOOM_BATCH_F_TIMEOUT) ||
	    add_flags & ~BLOOM_ADD_F_OVERFILL ||
	    (add_flags && cmd != BLOOM_IOC_ADD))
		return -EINVAL;
	timeouts = OPTS_GET(opts, timeouts, NULL);
	results = OPTS_GET(opts, results, NULL);
	pinned = OPTS_GET(opts, pinned, NULL);
	npinned = OPTS_GET(opts, npinned, NULL);
	done = OPTS_GET(opts, done, NULL);
	if (done)
		*done = 0;
	if (npinned)
		*npinned = 0;
	err = chunker_init(&c, keys, n, OPTS_GET(opts, key_size, 0));
	/* the whole call against the bound, before any key is sent */
	if (!err && cmd == BLOOM_IOC_ADD && !(add_flags & BLOOM_ADD_F_OVERFILL))
		err = lb_overfill_check(fd, n);
	/* a plain query through the mapping; the ioctl from where it stopped */
	if (!err && cmd == BLOOM_IOC_QUERY && !flags) {
		total = lb_map_batch(fd, keys, n, c.key_size, results, &start);
		if (done)
			*done = start;
	}
	while (!err && start < n) {
		struct bloom_batch b;

		memset(&b, 0, sizeof(b));
		if (c.key_size)
			chunk_fixed(&c, start, &b);
		else
			chunk_variable(&c, start, &b);
		b.flags = flags;
		if (flags & BLOOM_BATCH_F_TIMEOUT) {
			b.timeout_s = timeouts ? 0 : OPTS_GET(opts, timeout_s, 0);
			b.timeouts = timeouts ? (uintptr_t)(timeouts + start) : 0;
		}
		b.results = results ? (uintptr_t)(results + start / 8) : 0;
		b.pinned = pinned ? (uintptr_t)(pinned + start / 8) : 0;
		err = lb_batch_ioctl(fd, cmd, &b);
		/*
		 * A failed ioctl may have done some of its keys (an ADD to a
		 * scalable filter that could not grow): out_done says how many.
		 */
		start += err ? b.out_done : b.nkeys;
		if (done)
			*done = start;
		if (err)
			break;
		total += b.out_hits;
		if (npinned)
			*npinned += b.out_pinned;
	}
	chunker_free(&c);
	return err ? err : total;
}
