// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_faults' operations: timed filters, whose keys each have their own
 * timeout: create, ADD with a timeout per key, DELETE, SAVE and RESTORE.
 */
#define _GNU_SOURCE
#include "bloom_faults.h"

/* long enough that no key expires during a sweep, short enough to matter */
#define TIMED_DEFAULT_S		3600
#define TIMED_MAX_S		(30 * 86400)
/* room for the large batch; its SAVE still fits in keybuf */
#define TIMED_CAPACITY		(2 * NKEYS_LARGE)

static __u32 timeouts[NKEYS_LARGE];

int run_create_timed(struct ctx *c)
{
	struct bloom_create req = bt_create_req("a", BLOOM_TYPE_TIMED,
						TIMED_CAPACITY, 10000000, 0);

	req.key_timeout_s = TIMED_DEFAULT_S;
	req.key_timeout_max_s = TIMED_MAX_S;
	return create_named(c, &req);
}

/* ADD of keys [first, first + n), key i with its own timeout (1 h .. 1 d). */
static int add_timed(int fd, __u64 first, __u32 n, struct bloom_batch *b)
{
	__u32 i;

	for (i = 0; i < n; i++) {
		make_key16(first + i, keybuf + 16 * i);
		timeouts[i] = 3600 + (__u32)((first + i) % 82800);
	}
	return bt_timed_add(fd, keybuf, n, 16, timeouts, 0, NULL, b);
}

/* "a", timed, bound to c->fd, with the keys 1..64, each with its timeout. */
void setup_timed_a(struct ctx *c)
{
	struct bloom_batch b;

	must(run_create_timed(c), "create timed a");
	must(bind_new(c, "a"), "bind a");
	must(add_timed(c->fd, 1, 64, &b), "add to a");
}

int run_add_timed_small(struct ctx *c)
{
	struct bloom_batch b;

	return add_timed(c->fd, c->key_base, NKEYS_SMALL, &b);
}

int run_add_timed_large(struct ctx *c)
{
	struct bloom_batch b;

	return add_timed(c->fd, c->key_base, NKEYS_LARGE, &b);
}

/* A snapshot of a timed "a" with the keys 1..64, made before the sweep. */
static __u8 *snap_timed;
static __u64 snap_timed_len;

void setup_snapshot_timed(struct ctx *c)
{
	if (!snap_timed) {
		setup_timed_a(c);
		snap_timed = bt_save_alloc(c->fd, "a", &snap_timed_len);
		must(!snap_timed, "save timed a");
		must(bt_destroy(c->fd, "a"), "destroy a");
	}
}

int run_restore_timed(struct ctx *c)
{
	struct bloom_restore r;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.buf = u64_ptr(snap_timed);
	r.buf_len = snap_timed_len;
	return ioctl(c->fd, BLOOM_IOC_RESTORE, &r);
}

/* the restored keys keep their timeouts: present, and the filter timed */
int works_restored_timed(struct ctx *c)
{
	struct bloom_info info;

	if (works_restored(c) || info_of(c->fd, NULL, &info))
		return -1;
	return info.type == BLOOM_TYPE_TIMED &&
	       info.key_timeout_s == TIMED_DEFAULT_S &&
	       info.key_timeout_max_s == TIMED_MAX_S ? 0 : -1;
}
