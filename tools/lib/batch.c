// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * Adding, querying and deleting keys: one key, arrays of (pointer, length)
 * keys and packed fixed-size keys, split into ioctls within the ABI's batch
 * limits. The three commands take the same struct bloom_batch, so one code
 * path serves them all.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/*
 * A module of ABI version 2 has no pinned bitmap: it refuses the flag and
 * the longer struct (EINVAL, E2BIG) before it looks at a key, so asking
 * again without them is safe; its DELETE then reports no pinned keys (a
 * pinned key is "found" there).
 */
int lb_batch_ioctl(int fd, unsigned long cmd, const void *keys,
		   const uint32_t *lens, uint32_t key_size, uint32_t nkeys,
		   uint64_t keys_len, uint8_t *results, uint32_t *hits,
		   uint8_t *pinned, uint32_t *npinned, uint32_t *partial)
{
	struct bloom_batch b;
	int err;

	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	b.nkeys = nkeys;
	b.key_size = key_size;
	b.keys = (uintptr_t)keys;
	b.lens = (uintptr_t)lens;
	b.keys_len = keys_len;
	b.results = (uintptr_t)results;
	if (cmd == BLOOM_IOC_DELETE && pinned) {
		b.flags = BLOOM_BATCH_F_PINNED;
		b.pinned = (uintptr_t)pinned;
	}
	err = bloom_ioctl(fd, cmd, &b);
	if ((err == -EINVAL || err == -E2BIG) && b.flags) {
		b.flags = 0;
		b.pinned = 0;
		err = bloom_ioctl(fd, cmd, &b);
		if (!err)
			memset(pinned, 0, (nkeys + 7) / 8);
	}
	if (!err && hits)
		*hits = b.out_hits;
	if (!err && npinned)
		*npinned = b.out_pinned;
	if (partial)
		*partial = err ? b.out_done : nkeys;
	return err;
}

/*
 * A single key is a batch of one fixed-size key: no length array needed.
 * DELETE tells a pinned key by out_pinned (0 from a module of ABI 2).
 */
static int one_key(int fd, unsigned long cmd, const void *key, size_t len)
{
	uint32_t hits, npinned = 0;
	int err;

	if (len == 0 || len > BLOOM_KEY_MAX)
		return -EINVAL;
	err = lb_batch_ioctl(fd, cmd, key, NULL, len, 1, len, NULL, &hits,
			     NULL, &npinned, NULL);
	if (err)
		return err;
	if (cmd == BLOOM_IOC_DELETE && npinned)
		return BLOOM_DELETE_PINNED;
	return hits != 0;
}

int bloom_add(int fd, const void *key, size_t len)
{
	return one_key(fd, BLOOM_IOC_ADD, key, len);
}

int bloom_query(int fd, const void *key, size_t len)
{
	return one_key(fd, BLOOM_IOC_QUERY, key, len);
}

int bloom_delete(int fd, const void *key, size_t len)
{
	return one_key(fd, BLOOM_IOC_DELETE, key, len);
}

/*
 * Every chunk but the last holds a multiple of 8 keys, so each chunk's
 * results start on a byte boundary and the kernel can write them straight
 * into the caller's bitmap. Since BLOOM_BATCH_MAX_BYTES holds at least 1024
 * keys of BLOOM_KEY_MAX bytes, rounding down never leaves a chunk empty.
 */
static size_t round_chunk(size_t cnt, size_t start, size_t n)
{
	if (start + cnt < n && cnt >= 8)
		cnt &= ~(size_t)7;
	return cnt;
}

/*
 * The batch loops: @pinned and *@npinned as for lb_batch_ioctl(), over all
 * the chunks (DELETE only; NULL otherwise).
 */
static long fixed(int fd, unsigned long cmd, const void *keys,
		  size_t key_size, size_t n, uint8_t *results, size_t *done,
		  uint8_t *pinned, size_t *npinned)
{
	size_t per = BLOOM_BATCH_MAX_BYTES / (key_size ? key_size : 1);
	size_t start = 0;
	long total = 0;

	if (done)
		*done = 0;
	if (npinned)
		*npinned = 0;
	if (key_size == 0 || key_size > BLOOM_KEY_MAX)
		return -EINVAL;
	if (per > BLOOM_BATCH_MAX_KEYS)
		per = BLOOM_BATCH_MAX_KEYS;
	while (start < n) {
		size_t cnt = round_chunk(n - start < per ? n - start : per,
					 start, n);
		uint32_t hits, np = 0, partial;
		int err;

		err = lb_batch_ioctl(fd, cmd,
				     (const uint8_t *)keys + start * key_size,
				     NULL, key_size, cnt, cnt * key_size,
				     results ? results + start / 8 : NULL,
				     &hits, pinned ? pinned + start / 8 : NULL,
				     &np, &partial);
		if (err) {
			if (done)
				*done = start + partial;
			return err;
		}
		total += hits;
		if (npinned)
			*npinned += np;
		start += cnt;
		if (done)
			*done = start;
	}
	return total;
}

long bloom_add_fixed(int fd, const void *keys, size_t key_size, size_t n,
		     uint8_t *results, size_t *done)
{
	return fixed(fd, BLOOM_IOC_ADD, keys, key_size, n, results, done,
		     NULL, NULL);
}

long bloom_query_fixed(int fd, const void *keys, size_t key_size, size_t n,
		       uint8_t *results, size_t *done)
{
	return fixed(fd, BLOOM_IOC_QUERY, keys, key_size, n, results, done,
		     NULL, NULL);
}

long bloom_delete_fixed(int fd, const void *keys, size_t key_size, size_t n,
			uint8_t *results, size_t *done)
{
	return fixed(fd, BLOOM_IOC_DELETE, keys, key_size, n, results, done,
		     NULL, NULL);
}

long bloom_delete_fixed_pinned(int fd, const void *keys, size_t key_size,
			       size_t n, uint8_t *results, uint8_t *pinned,
			       size_t *npinned, size_t *done)
{
	return fixed(fd, BLOOM_IOC_DELETE, keys, key_size, n, results, done,
		     pinned, npinned);
}

/* Variable-size keys are copied into one packed buffer per ioctl. */
static long variable(int fd, unsigned long cmd, const struct bloom_key *keys,
		     size_t n, uint8_t *results, size_t *done, uint8_t *pinned,
		     size_t *npinned)
{
	size_t i, start = 0, bytes = 0, maxkeys;
	uint32_t *lens = NULL;
	uint8_t *buf = NULL;
	long total = 0;
	int err = 0;

	if (done)
		*done = 0;
	if (npinned)
		*npinned = 0;
	for (i = 0; i < n; i++) {
		if (keys[i].len == 0 || keys[i].len > BLOOM_KEY_MAX)
			return -EINVAL;
		bytes += keys[i].len;
	}
	if (n == 0)
		return 0;
	maxkeys = n < BLOOM_BATCH_MAX_KEYS ? n : BLOOM_BATCH_MAX_KEYS;
	if (bytes > BLOOM_BATCH_MAX_BYTES)
		bytes = BLOOM_BATCH_MAX_BYTES;
	lens = malloc(maxkeys * sizeof(*lens));
	buf = malloc(bytes);
	if (!lens || !buf) {
		err = -ENOMEM;
		goto out;
	}
	while (start < n) {
		size_t cnt = 0, len = 0;
		uint32_t hits, np = 0, partial;

		while (start + cnt < n && cnt < maxkeys &&
		       len + keys[start + cnt].len <= BLOOM_BATCH_MAX_BYTES)
			len += keys[start + cnt++].len;
		cnt = round_chunk(cnt, start, n);
		len = 0;
		for (i = 0; i < cnt; i++) {
			memcpy(buf + len, keys[start + i].data,
			       keys[start + i].len);
			lens[i] = keys[start + i].len;
			len += lens[i];
		}
		err = lb_batch_ioctl(fd, cmd, buf, lens, 0, cnt, len,
				     results ? results + start / 8 : NULL,
				     &hits, pinned ? pinned + start / 8 : NULL,
				     &np, &partial);
		if (err) {
			if (done)
				*done = start + partial;
			goto out;
		}
		total += hits;
		if (npinned)
			*npinned += np;
		start += cnt;
		if (done)
			*done = start;
	}
out:
	free(lens);
	free(buf);
	return err ? err : total;
}

long bloom_add_keys(int fd, const struct bloom_key *keys, size_t n,
		    uint8_t *results, size_t *done)
{
	return variable(fd, BLOOM_IOC_ADD, keys, n, results, done, NULL, NULL);
}

long bloom_query_keys(int fd, const struct bloom_key *keys, size_t n,
		      uint8_t *results, size_t *done)
{
	return variable(fd, BLOOM_IOC_QUERY, keys, n, results, done, NULL,
			NULL);
}

long bloom_delete_keys(int fd, const struct bloom_key *keys, size_t n,
		       uint8_t *results, size_t *done)
{
	return variable(fd, BLOOM_IOC_DELETE, keys, n, results, done, NULL,
			NULL);
}

long bloom_delete_keys_pinned(int fd, const struct bloom_key *keys, size_t n,
			      uint8_t *results, uint8_t *pinned,
			      size_t *npinned, size_t *done)
{
	return variable(fd, BLOOM_IOC_DELETE, keys, n, results, done, pinned,
			npinned);
}
