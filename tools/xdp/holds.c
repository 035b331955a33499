// SPDX-License-Identifier: GPL-2.0
/*
 * Holds of bloom-xdp's filters (holds.h). The holding program runs through
 * BPF_PROG_TEST_RUN with the device as struct xdp_md's ingress_ifindex,
 * which the hold records for bloomctl destroy's message; it is never
 * attached, and goes once its map is bound to the attached program.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <libbloom.h>

#include "bloom_xdp.h"
#include "bloom_xdp_held.skel.h"
#include "bloom_xdp_hold.skel.h"
#include "holds.h"

/*
 * A bloom.ko without bpf_bloom_xdp_hold() refuses the program with a
 * verifier's log: what matters is said in one sentence instead.
 */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/*
 * Runs the program once: a hold of the filter @id in @slot. Its return
 * value (XDP_PASS: held; XDP_DROP: no filter of that id), or -errno.
 */
static int hold_one(int prog_fd, unsigned int ifindex, __u32 id, __u32 slot)
{
	struct bloom_xdp_hold_frame fr = { .filter_id = id, .slot = slot };
	struct xdp_md ctx = {
		.data_end = sizeof(fr),
		.ingress_ifindex = ifindex,
	};
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = &fr,
		    .data_size_in = sizeof(fr), .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx));

	if (bpf_prog_test_run_opts(prog_fd, &o))
		return -errno;
	return o.retval;
}

/* Whether the filter @name still has the id @id that was held. */
static int still_there(int bloom_fd, const char *name, __u32 id)
{
	struct bloom_info info;

	return !bloom_info(bloom_fd, name, &info) && info.id == id;
}

int holds_take(int bloom_fd, const struct filter_choice *c,
	       unsigned int ifindex, char *msg, size_t len)
{
	const __u32 id[BLOOM_XDP_HOLD_SLOTS] = { c->id4, c->id6 };
	const char *name[BLOOM_XDP_HOLD_SLOTS] = { c->name4, c->name6 };
	libbpf_print_fn_t was = libbpf_set_print(quiet);
	struct bloom_xdp_hold *skel = bloom_xdp_hold__open_and_load();
	int ret, fd = HOLDS_UNABLE;
	__u32 slot;

	libbpf_set_print(was);
	if (!skel) {
		snprintf(msg, len,
			 "cannot hold the filters (the program that holds them does not load: %s; a bloom.ko older than this bloom-xdp has no bpf_bloom_xdp_hold()): destroy will not see this program",
			 strerror(errno));
		return HOLDS_UNABLE;
	}
	for (slot = 0; slot < BLOOM_XDP_HOLD_SLOTS; slot++) {
		if (!id[slot])
			continue;
		ret = hold_one(bpf_program__fd(skel->progs.bloom_xdp_hold),
			       ifindex, id[slot], slot);
		if (ret == XDP_DROP ||
		    (ret == XDP_PASS &&
		     !still_there(bloom_fd, name[slot], id[slot]))) {
			snprintf(msg, len,
				 "filter %s was destroyed while bloom-xdp was attaching it: create it again (bloomctl create %s ...), then attach",
				 name[slot], name[slot]);
			fd = HOLDS_GONE;
			goto out;
		}
		if (ret != XDP_PASS) {
			snprintf(msg, len,
				 "cannot hold filter %s (running the program that holds it: %s): destroy will not see this program",
				 name[slot],
				 ret < 0 ? strerror(-ret) : "it refused the frame");
			goto out;
		}
	}
	/* the map, without the program: it keeps the holds */
	fd = dup(bpf_map__fd(skel->maps.bloom_xdp_holds));
	if (fd < 0) {
		snprintf(msg, len,
			 "cannot hold the filters: %s: destroy will not see this program",
			 strerror(errno));
		fd = HOLDS_UNABLE;
	}
out:
	bloom_xdp_hold__destroy(skel);
	return fd;
}

const void *holds_prog_elf(size_t *sz)
{
	return bloom_xdp_held__elf_bytes(sz);
}
