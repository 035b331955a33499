// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_faults' operations: the XDP path's hold of a filter. bloom-xdp
 * attaches its program through libxdp's dispatcher or alone; what reaches
 * bloom.ko on that path is the hold of each filter, taken by its holding
 * program (bloom_xdp_hold.bpf.c, run through BPF_PROG_TEST_RUN, as
 * bloom-xdp's holds.c runs it) with bpf_bloom_xdp_hold(), and let go when
 * the program's map is freed (bpf_bloom_xdp_hold_release(), at detach).
 * The dispatcher's attach and detach allocate in the kernel only (the
 * soak runs bloom-xdp itself); here the holding program is loaded before
 * the call, the call is its run, and the hold is let go as a detach lets
 * it go: by freeing the program's map.
 *
 * A run that failed leaves "a" unheld (INFO's xdp_holds, which attempt()
 * compares), except on EFAULT: the copy of the run's results to this
 * process comes after the program ran, and the hold it took then stays in
 * the map until the map goes, as bloom-xdp's would. A run that held "a":
 * one hold in INFO, destroy refused (EBUSY) while held, and once the map
 * is freed the hold is gone and destroy works.
 *
 * Needs libbpf (bloom_faults built with libbpf-dev), the holding program
 * built beside this program (clang 15 or later: tools/bpf.mk) and the
 * module's BTF; without them the operation SKIPs, saying which.
 */
#define _GNU_SOURCE
#include <libgen.h>
#include <limits.h>

#include "bloom_faults.h"

#ifdef BLOOM_FAULTS_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "../tools/xdp/bloom_xdp.h"

#define HOLD_OBJ	"bloom_xdp_hold.bpf.o"
#define HOLD_PROG	"bloom_xdp_hold"

unsigned int xdp_hold_refused;
static struct bpf_object *hold_obj;
static __u32 hold_id;		/* the id of "a", held */
static char hold_why[200];

/* The program's object, beside this program's executable. */
static int hold_path(char *path, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return -1;
	self[n] = 0;
	snprintf(path, len, "%s/" HOLD_OBJ, dirname(self));
	return 0;
}

/* Loads the holding program: 0, or -1 with the reason in hold_why. */
static int hold_load(void)
{
	char path[PATH_MAX];
	int err;

	if (hold_path(path, sizeof(path)) || access(path, R_OK)) {
		snprintf(hold_why, sizeof(hold_why),
			 "no %s beside bloom_faults (clang 15 or later: tools/bpf.mk)",
			 HOLD_OBJ);
		return -1;
	}
	if (access("/sys/kernel/btf/bloom", R_OK)) {
		snprintf(hold_why, sizeof(hold_why),
			 "bloom.ko has no BTF: no kfuncs");
		return -1;
	}
	hold_obj = bpf_object__open_file(path, NULL);
	err = libbpf_get_error(hold_obj);
	if (err) {
		hold_obj = NULL;
		snprintf(hold_why, sizeof(hold_why), "open " HOLD_OBJ ": %s",
			 strerror(-err));
		return -1;
	}
	err = bpf_object__load(hold_obj);
	if (err) {
		bpf_object__close(hold_obj);
		hold_obj = NULL;
		snprintf(hold_why, sizeof(hold_why), "load " HOLD_OBJ ": %s",
			 strerror(-err));
		return -1;
	}
	return 0;
}

const char *xdp_hold_unusable(void)
{
	static bool tried;

	if (!tried) {
		tried = true;
		if (!hold_load())
			xdp_hold_release();
	}
	return hold_why[0] ? hold_why : NULL;
}

void xdp_hold_release(void)
{
	if (hold_obj)
		bpf_object__close(hold_obj);
	hold_obj = NULL;
}

/* "a", bound to c->fd, and its id; the holding program loaded. */
void setup_xdp_hold(struct ctx *c)
{
	struct bloom_info info;

	setup_a(c);
	must(info_of(c->fd, "a", &info), "info of a");
	hold_id = info.id;
	xdp_hold_release();
	if (hold_load())
		faults_bail("setup: %s\n", hold_why);
}

/*
 * The program run once, as bloom-xdp runs it (the frame says which filter
 * and slot; loopback's index stands for the device): XDP_PASS is a hold,
 * XDP_DROP none (the filter exists: bloom's allocation failed).
 */
int run_xdp_hold(struct ctx *c)
{
	struct bloom_xdp_hold_frame fr = { .filter_id = hold_id, .slot = 0 };
	struct xdp_md md = { .data_end = sizeof(fr), .ingress_ifindex = 1 };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = &fr,
		    .data_size_in = sizeof(fr), .ctx_in = &md,
		    .ctx_size_in = sizeof(md));
	struct bpf_program *p;

	(void)c;
	p = bpf_object__find_program_by_name(hold_obj, HOLD_PROG);
	if (!p)
		faults_bail("no program %s in %s\n", HOLD_PROG, HOLD_OBJ);
	if (bpf_prog_test_run_opts(bpf_program__fd(p), &o))
		return -1;
	if (o.retval == XDP_PASS)
		return 0;
	if (o.retval == XDP_DROP) {
		xdp_hold_refused++;
		errno = ENOMEM;
	} else {
		errno = EPROTO;
	}
	return -1;
}

/* The holds of "a" once they settled to @want (a map's free is deferred). */
static int holds_of_a(struct ctx *c, __u32 want)
{
	struct bloom_info info;
	int i;

	for (i = 0; i < 200; i++) {
		if (info_of(c->fd, "a", &info))
			return -1;
		if (info.xdp_holds == want)
			break;
		usleep(20000);
	}
	return (int)info.xdp_holds;
}

int works_xdp_hold(struct ctx *c)
{
	if (holds_of_a(c, 1) != 1)
		return -1;
	if (!bt_destroy(c->fd, "a") || errno != EBUSY)
		return -1;
	/* as a detach does: the program and its map go, the hold with them */
	xdp_hold_release();
	if (holds_of_a(c, 0) != 0)
		return -1;
	return bt_destroy(c->fd, "a");
}

#else /* !BLOOM_FAULTS_BPF */

unsigned int xdp_hold_refused;

const char *xdp_hold_unusable(void)
{
	return "bloom_faults built without libbpf (clang, bpftool, libbpf-dev: tools/deps.sh)";
}

void xdp_hold_release(void)
{
}

void setup_xdp_hold(struct ctx *c)
{
	setup_a(c);
}

int run_xdp_hold(struct ctx *c)
{
	(void)c;
	errno = EOPNOTSUPP;
	return -1;
}

int works_xdp_hold(struct ctx *c)
{
	(void)c;
	return -1;
}

#endif
