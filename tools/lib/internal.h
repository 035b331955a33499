/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/* Helpers shared by the library's source files; not installed. */
#ifndef LIBBLOOM_INTERNAL_H
#define LIBBLOOM_INTERNAL_H

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include "libbloom.h"

#include <stddef.h>

/*
 * Option structs (libbloom.h, "Option structs"), the libbpf way: OPTS_CHECK
 * is 0 or the negative errno for the caller's @opts (NULL is fine: all
 * defaults); OPTS_GET reads a member, or @fallback when the caller's struct
 * is too old to have it.
 */
#define lb_offsetofend(TYPE, MEMBER) \
	(offsetof(TYPE, MEMBER) + sizeof(((TYPE *)0)->MEMBER))
int lb_opts_check(const void *opts, size_t user_sz, size_t min_sz,
		  size_t lib_sz);
#define OPTS_CHECK(opts, TYPE)						\
	((opts) ? lb_opts_check((opts), (opts)->sz,			\
				lb_offsetofend(struct TYPE, sz),	\
				sizeof(struct TYPE)) : 0)
#define OPTS_HAS(opts, MEMBER)						\
	((opts) && (opts)->sz >= lb_offsetofend(__typeof__(*(opts)), MEMBER))
#define OPTS_GET(opts, MEMBER, fallback)				\
	(OPTS_HAS(opts, MEMBER) ? (opts)->MEMBER : (fallback))

/* ioctl() with the library's convention: 0 or -errno. */
static inline int bloom_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

/*
 * Copies a checked name into a BLOOM_NAME_LEN field that the caller zeroed,
 * so every byte after the NUL is zero as the ABI demands.
 */
int lb_name_copy(char dst[BLOOM_NAME_LEN], const char *name);

/* Bits per key in thousandths (0 stays 0): 0.001 to 4e6, else -EINVAL. */
int lb_bpk_milli(double bpk, uint32_t *milli);

/*
 * One ADD, QUERY or DELETE ioctl of at most one batch's worth of keys, @b
 * filled by the caller but for size and flags: BLOOM_BATCH_F_PINNED goes
 * with a pinned bitmap.
 */
int lb_batch_ioctl(int fd, unsigned long cmd, struct bloom_batch *b);

/*
 * The overfill bound (overfill.c) of an add of @n keys through @fd's bound
 * filter: -EOVERFLOW past it, else 0 (also when INFO fails).
 */
int lb_overfill_check(int fd, uint64_t n);

/* One key's ADD, QUERY or DELETE ioctl: bloom_add()'s and the others' answer. */
int lb_one_key(int fd, unsigned long cmd, const void *key, size_t len);

/*
 * Descriptor generations (fdgen.c): lb_fd_renew() when the library opens,
 * binds or closes @fd; lb_fd_gen() of an @fd under LB_FD_GEN_MAX. A
 * descriptor at or over it is never mapped.
 */
#define LB_FD_GEN_MAX	16384
void lb_fd_renew(int fd);
/* hidden: the mapped query reads it without a call or a GOT entry */
extern _Atomic uint32_t lb_fd_gens[LB_FD_GEN_MAX]
	__attribute__((visibility("hidden")));

static inline uint32_t lb_fd_gen(int fd)
{
	return atomic_load_explicit(&lb_fd_gens[fd], memory_order_relaxed);
}

/*
 * The bound filter's mapping (map.c, where bloom_query() is too):
 * lb_map_batch() answers
 * the first *@done of bloom_batch()'s QUERY of @n keys (key_size 0:
 * struct bloom_key; *@done a multiple of 8 or @n), filling @results (may
 * be NULL) and returning their hits; the ioctl answers the rest.
 */
long lb_map_batch(int fd, const void *keys, size_t n, size_t key_size,
		  uint8_t *results, size_t *done);
/*
 * The calling thread lets go of its mapping of @fd (bloom_close()). Weak:
 * a program that never queries links no map.c.
 */
void lb_map_forget(int fd) __attribute__((weak));

#endif /* LIBBLOOM_INTERNAL_H */
