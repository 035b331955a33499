// SPDX-License-Identifier: GPL-2.0
/* bloom_faults' operations: SAVE and RESTORE. */
#define _GNU_SOURCE
#include "bloom_faults.h"

__u8 *snap_plain, *snap_scalable;
static __u64 snap_plain_len, snap_scalable_len;

static __u8 *save_a(int fd, __u64 *len)
{
	struct bloom_save s;
	__u8 *buf;

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	set_name(s.name, "a");
	must(ioctl(fd, BLOOM_IOC_SAVE, &s), "save size");
	buf = malloc(s.out_len);
	must(!buf, "malloc");
	memset(buf, 0, s.out_len);
	s.buf = u64_ptr(buf);
	s.buf_len = s.out_len;
	must(ioctl(fd, BLOOM_IOC_SAVE, &s), "save");
	*len = s.out_len;
	return buf;
}

int run_save(struct ctx *c)
{
	struct bloom_save s;

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	set_name(s.name, "a");
	s.buf = u64_ptr(keybuf);
	s.buf_len = sizeof(keybuf);
	return ioctl(c->fd, BLOOM_IOC_SAVE, &s);
}

/* Makes both snapshots once (keys 1..64; the scalable one with 3 stages). */
void make_snapshots(int fd)
{
	struct ctx c = { .fd = dup(fd), .fd2 = -1, .type = BLOOM_TYPE_COUNTING };

	setup_a(&c);
	snap_plain = save_a(c.fd, &snap_plain_len);
	must(bt_destroy(c.fd, "a"), "destroy a");
	c.type = BLOOM_TYPE_STANDARD;
	setup_scalable_grown(&c);
	snap_scalable = save_a(c.fd, &snap_scalable_len);
	must(bt_destroy(c.fd, "a"), "destroy a");
	close(c.fd);
}

static int restore(struct ctx *c, __u8 *buf, __u64 len, __u32 flags)
{
	struct bloom_restore r;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.flags = flags;
	r.buf = u64_ptr(buf);
	r.buf_len = len;
	return ioctl(c->fd, BLOOM_IOC_RESTORE, &r);
}

int run_restore_plain(struct ctx *c)
{
	return restore(c, snap_plain, snap_plain_len, 0);
}

int run_restore_scalable(struct ctx *c)
{
	return restore(c, snap_scalable, snap_scalable_len, 0);
}

int works_restored(struct ctx *c)
{
	return bind_new(c, "a") ?: keys_present(c->fd, 1, 64);
}

void setup_counting_empty(struct ctx *c)
{
	must(bt_create(c->fd, "a", BLOOM_TYPE_COUNTING, 1000, 10000000, 0),
	     "create a");
	must(bind_new(c, "a"), "bind a");
}

int run_restore_replace(struct ctx *c)
{
	return restore(c, snap_plain, snap_plain_len, BLOOM_RESTORE_F_REPLACE);
}

int works_replaced(struct ctx *c)
{
	/* the descriptor stays bound across the replace */
	return keys_present(c->fd, 1, 64);
}
