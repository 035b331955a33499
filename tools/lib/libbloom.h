/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * libbloom: a thin C library over the /dev/bloom ioctl ABI
 * (<linux/bloom.h>, whose top comment is the specification).
 *
 * Conventions, for every function below:
 *  - no global state: everything lives in the caller's descriptor and
 *    buffers, so threads may share the library (each with its own fd, or
 *    sharing one fd as the kernel allows);
 *  - a return value >= 0 is success, a negative value is -errno, exactly as
 *    the kernel or libc reported it (or -EINVAL for an argument the library
 *    itself rejects before any system call);
 *  - bloom_strerror() turns (operation, -errno) into a sentence for a human.
 *
 * The usual life of a daemon:
 *	int fd = bloom_open(NULL);
 *	bloom_create(fd, "spam", BLOOM_TYPE_STANDARD, 1000000, 0.01,
 *		     BLOOM_CREATE_F_BIND);      // or bloom_bind(fd, "spam")
 *	bloom_add(fd, "a@b.c", 5);
 *	if (bloom_query(fd, "x@y.z", 5) == 0) ... definitely absent ...
 *	bloom_delete(fd, "a@b.c", 5);           // counting and d-left only
 *	bloom_close(fd);
 */
#ifndef LIBBLOOM_H
#define LIBBLOOM_H

#include <stddef.h>
#include <stdint.h>
#include <linux/bloom.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BLOOM_DEFAULT_DEVICE	"/dev/bloom"

/*
 * Opens the bloom device (NULL means BLOOM_DEFAULT_DEVICE) read-write and
 * close-on-exec. When that is refused with EACCES it retries read-only, so
 * users who may only query still get a descriptor; changing filters through
 * such a descriptor fails with -EBADF (and needs CAP_NET_ADMIN anyway).
 * Returns the descriptor.
 */
int bloom_open(const char *devpath);
int bloom_close(int fd);

/* BLOOM_IOC_VERSION: what the running module supports. */
int bloom_version(int fd, struct bloom_version *v);

/*
 * Checks a filter name against the ABI's rules (1..31 printable ASCII
 * characters other than '/', not "." or ".."): 0, -ENAMETOOLONG or -EINVAL.
 */
int bloom_name_check(const char *name);

/*
 * Converts a false-positive rate p in (0, 0.5] to parts per billion, rounded
 * to the nearest integer. -EINVAL for p outside (0, 0.5], NaN, or a p so
 * small that it rounds to 0 ppb (below 5e-10).
 */
int bloom_fpp_to_ppb(double p, uint32_t *ppb);

/*
 * Creates filter @name sized for @capacity keys at false-positive rate @fpp.
 * @flags may hold BLOOM_CREATE_F_BIND to bind @fd to the new filter.
 */
int bloom_create(int fd, const char *name, enum bloom_type type,
		 uint64_t capacity, double fpp, uint32_t flags);

/* Everything BLOOM_IOC_CREATE can do; zero-initialise and fill what you need. */
struct bloom_create_opts {
	enum bloom_type type;		/* 0 means BLOOM_TYPE_STANDARD */
	uint64_t capacity;		/* keys expected */
	double fpp;			/* false-positive rate, (0, 0.5] */
	uint64_t bits;			/* with hashes: explicit geometry m */
	uint32_t hashes;		/* with bits: explicit geometry k */
	const uint8_t *hash_key;	/* BLOOM_HASH_KEY_LEN bytes, or NULL */
	int bind;			/* non-zero: bind fd to the new filter */
};
int bloom_create_opts(int fd, const char *name,
		      const struct bloom_create_opts *opts);

int bloom_destroy(int fd, const char *name);
int bloom_bind(int fd, const char *name);

/*
 * Parameters and statistics of @name, or of the bound filter if NULL.
 * @info is the whole struct of this header (ABI version 2): a module of ABI
 * version 1 fills only the fields before @deletes and leaves the rest 0.
 */
int bloom_info(int fd, const char *name, struct bloom_info *info);

/*
 * The names of all filters, sorted, in a malloc()ed array the caller frees
 * with free(); *n is their number (the array is NULL when there are none).
 */
int bloom_list(int fd, char (**names)[BLOOM_NAME_LEN], size_t *n);

/*
 * One key, through the bound filter. bloom_query() returns 1 "may be
 * present" or 0 "definitely absent"; bloom_add() returns 1 when every bit of
 * the key was set already ("probably present before") and 0 otherwise.
 */
int bloom_add(int fd, const void *key, size_t len);
int bloom_query(int fd, const void *key, size_t len);

/*
 * Counting and d-left filters only (-EOPNOTSUPP on the others): removes one
 * copy of the key. Returns 1 when it was found and removed, 0 when it was
 * not found (nothing changed; the module counts it in delete_misses).
 * Deleting a key that was never added but happens to be a false positive
 * removes what other keys set: a later query of one of them may then answer
 * "absent". Delete only keys you added.
 */
int bloom_delete(int fd, const void *key, size_t len);

/*
 * Batches through the bound filter. The library splits them into as many
 * ioctls as BLOOM_BATCH_MAX_KEYS and BLOOM_BATCH_MAX_BYTES require.
 * @results, when not NULL, is a bitmap of (n + 7) / 8 bytes that receives
 * bit (i % 8) of byte (i / 8) for key i (see "Results" in <linux/bloom.h>).
 * Returns the number of keys whose bit is set (may be present / was present
 * already / found and removed). On an error, the keys of the ioctls that
 * succeeded before it stay added (or deleted): *done (when not NULL) tells
 * how many keys that is. A d-left ADD that fails with -ENOSPC undoes its own
 * ioctl's keys only, not those of the ioctls before it.
 */
struct bloom_key {
	const void *data;
	size_t len;
};
long bloom_add_keys(int fd, const struct bloom_key *keys, size_t n,
		    uint8_t *results, size_t *done);
long bloom_query_keys(int fd, const struct bloom_key *keys, size_t n,
		      uint8_t *results, size_t *done);
/* @n keys of @key_size bytes each, packed one after the other at @keys. */
long bloom_add_fixed(int fd, const void *keys, size_t key_size, size_t n,
		     uint8_t *results, size_t *done);
long bloom_query_fixed(int fd, const void *keys, size_t key_size, size_t n,
		       uint8_t *results, size_t *done);
/* Deleting in batches: bit i set = key i was found and removed. */
long bloom_delete_keys(int fd, const struct bloom_key *keys, size_t n,
		       uint8_t *results, size_t *done);
long bloom_delete_fixed(int fd, const void *keys, size_t key_size, size_t n,
			uint8_t *results, size_t *done);

/* Bit i of a results bitmap: 1 or 0. */
static inline int bloom_result(const uint8_t *results, size_t i)
{
	return (results[i / 8] >> (i % 8)) & 1;
}

/*
 * Batch builder: accumulates keys (copied) into one ioctl-sized batch for
 * streams of unknown length, such as a file read line by line.
 *
 *	bloom_builder_new(&b, fd, BLOOM_IOC_QUERY, 0);
 *	for each key:
 *		if (!bloom_builder_room(b, len)) {
 *			bloom_builder_flush(b);
 *			... bloom_builder_result(b, i) for the flushed keys ...
 *		}
 *		bloom_builder_push(b, key, len);
 *	bloom_builder_flush(b); ... results of the last batch ...
 *	bloom_builder_free(b);
 *
 * After a flush, the flushed keys and their results stay readable until the
 * next push, which starts a new batch.
 */
struct bloom_builder;

/*
 * @cmd is BLOOM_IOC_ADD, BLOOM_IOC_QUERY or BLOOM_IOC_DELETE; @key_size 0 =
 * variable keys.
 */
int bloom_builder_new(struct bloom_builder **out, int fd, unsigned long cmd,
		      size_t key_size);
void bloom_builder_free(struct bloom_builder *b);
/* 1 if a key of @len bytes fits before a flush, 0 if not, -EINVAL if @len
 * can never be a key (0, over BLOOM_KEY_MAX, or not the fixed key size). */
int bloom_builder_room(const struct bloom_builder *b, size_t len);
/* Copies the key in; -ENOSPC when there is no room (flush first). */
int bloom_builder_push(struct bloom_builder *b, const void *key, size_t len);
/* Sends the pending keys; returns how many of them have their bit set. */
long bloom_builder_flush(struct bloom_builder *b);
/* Keys in the current batch (pending, or just flushed). */
size_t bloom_builder_count(const struct bloom_builder *b);
/* Result of key @i of the batch just flushed: 1 or 0. */
int bloom_builder_result(const struct bloom_builder *b, size_t i);
/* Key @i of the current batch. */
void bloom_builder_key(const struct bloom_builder *b, size_t i,
		       const void **key, size_t *len);

/* What was being done, for bloom_strerror(). */
enum bloom_op {
	BLOOM_OP_OPEN,
	BLOOM_OP_VERSION,
	BLOOM_OP_CREATE,
	BLOOM_OP_DESTROY,
	BLOOM_OP_BIND,
	BLOOM_OP_INFO,
	BLOOM_OP_LIST,
	BLOOM_OP_ADD,
	BLOOM_OP_QUERY,
	BLOOM_OP_DELETE,	/* appended: the values above stay as they were */
};

/*
 * Writes into @buf a sentence that says what went wrong and what to do,
 * e.g. "/dev/bloom not found: is the bloom module loaded? (modprobe bloom)".
 * @subject is the device path for BLOOM_OP_OPEN and the filter name for the
 * others (NULL if unknown). @err is the negative errno a function returned.
 * Returns @buf.
 */
const char *bloom_strerror(char *buf, size_t len, enum bloom_op op,
			   const char *subject, int err);

#ifdef __cplusplus
}
#endif

#endif /* LIBBLOOM_H */
