// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_soak's XDP thread (bloom_soak.c): bloom-xdp attached and detached
 * through libxdp's dispatcher, holding a filter while it is attached.
 */
#define _GNU_SOURCE
#include <libgen.h>
#include <limits.h>
#include <sched.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <sys/wait.h>

#include "bloom_soak.h"

#define XDP_FILTER	"soak-xdp"
#define XDP_DEV		"soakx0"

_Atomic unsigned long xdp_progress, xdp_steps;
static char xdp_tool[PATH_MAX];

/*
 * Runs @argv with its output kept: its exit status, or -1; on a failure
 * the start of what it printed is in @out.
 */
static int run_tool(char *const argv[], char *out, size_t len)
{
	int mfd = memfd_create("soak-tool", MFD_CLOEXEC), status = -1;
	ssize_t n;
	pid_t pid;

	out[0] = 0;
	if (mfd < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(mfd, 1);
		dup2(mfd, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		status = -1;
	else
		status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	if (status) {
		n = pread(mfd, out, len - 1, 0);
		out[n > 0 ? n : 0] = 0;
		out[strcspn(out, "\n")] = 0;
	}
	close(mfd);
	return status;
}

/*
 * Why the XDP thread cannot run here, in @why (0 when it can): it needs
 * bloom-xdp built beside this program, kernel and module BTF (kfuncs),
 * and the BPF filesystem where libxdp pins its dispatcher (mounted here
 * if it is not; *@mounted then says so).
 */
int xdp_unusable(char *why, size_t len, bool *mounted)
{
	char self[PATH_MAX];
	struct statfs sf;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	*mounted = false;
	if (n <= 0)
		return snprintf(why, len, "/proc/self/exe: %s", strerror(errno));
	self[n] = 0;
	snprintf(xdp_tool, sizeof(xdp_tool), "%s/../bin/bloom-xdp",
		 dirname(self));
	if (access(xdp_tool, X_OK))
		return snprintf(why, len, "no bloom-xdp at %s (clang, bpftool, libbpf-dev, libxdp-dev: tools/deps.sh)",
				xdp_tool);
	if (access("/sys/kernel/btf/vmlinux", R_OK) ||
	    access("/sys/kernel/btf/bloom", R_OK))
		return snprintf(why, len, "no kernel or module BTF: no kfuncs, no dispatcher");
	if (statfs("/sys/fs/bpf", &sf) || sf.f_type != BPF_FS_MAGIC) {
		if (mount("bpf", "/sys/fs/bpf", "bpf", 0, NULL))
			return snprintf(why, len, "cannot mount the BPF filesystem: %s",
					strerror(errno));
		*mounted = true;
	}
	return 0;
}

/* The filter's XDP holds, or -1. */
static int xdp_holds(int fd)
{
	struct bloom_info info;

	return bt_info(fd, XDP_FILTER, &info) ? -1 : (int)info.xdp_holds;
}

/*
 * One round: the filter made, bloom-xdp attached to it (held: destroy
 * refused), its address queried while it is held, bloom-xdp detached (the
 * hold goes with the program, a moment later), the filter destroyed.
 */
static int xdp_round(int fd, __u64 round)
{
	char *attach[] = { xdp_tool, "attach", XDP_DEV, "--set", XDP_FILTER,
			   NULL };
	char *detach[] = { xdp_tool, "detach", XDP_DEV, NULL };
	struct bloom_create c = bt_create_req(XDP_FILTER, BLOOM_TYPE_BLOCKED,
					      1000, 10000000, 0);
	__u8 addr[4] = { 10, 7, (__u8)(round >> 8), (__u8)round };
	int held, i, bfd = -1, ret = -1;
	char out[160];

	c.keys = BLOOM_KEYS_IPV4;
	/* in the thread's own namespace: its guarantee may be owed a while */
	if (ns_create_req(fd, &c)) {
		report_error("xdp: create: %s", strerror(errno));
		return -1;
	}
	/* a descriptor bound to it keeps its struct, not the filter */
	bfd = bt_open();
	if (bfd < 0 || bt_bind(bfd, XDP_FILTER) ||
	    bt_one(bfd, BLOOM_IOC_ADD, addr, sizeof(addr)) < 0) {
		report_error("xdp: bind, add: %s", strerror(errno));
		goto out;
	}
	if (run_tool(attach, out, sizeof(out))) {
		report_error("xdp: bloom-xdp attach: %s", out);
		goto out;
	}
	atomic_fetch_add(&xdp_steps, 1);
	held = xdp_holds(fd);
	if (held != 1) {
		report_error("xdp: attached, but the filter has %d XDP holds, not 1",
			     held);
		goto out;
	}
	if (bt_one(bfd, BLOOM_IOC_QUERY, addr, sizeof(addr)) != 1) {
		atomic_fetch_add(&false_negatives, 1);
		report_error("xdp: an address added is absent while held");
	}
	if (!bt_destroy(fd, XDP_FILTER)) {
		report_error("xdp: a held filter was destroyed");
		return -1;	/* nothing left to detach from */
	}
	if (errno != EBUSY) {
		report_error("xdp: destroy of a held filter: %s, not EBUSY",
			     strerror(errno));
		goto out;
	}
	atomic_fetch_add(&xdp_steps, 1);
	if (run_tool(detach, out, sizeof(out))) {
		report_error("xdp: bloom-xdp detach: %s", out);
		goto out;
	}
	atomic_fetch_add(&xdp_steps, 1);
	for (i = 0; i < 200 && (held = xdp_holds(fd)) > 0; i++)
		usleep(20000);
	if (held) {
		report_error("xdp: detached, the filter still has %d XDP holds after 4 s",
			     held);
		goto out;
	}
	if (bt_destroy(fd, XDP_FILTER)) {
		report_error("xdp: destroy after detach: %s", strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (bfd >= 0)
		close(bfd);
	return ret;
}

/*
 * In a network namespace of its own, with a veth pair: bloom-xdp attached
 * and detached again and again while the other threads query, swap and
 * destroy their filters.
 */
void *xdp_thread(void *arg)
{
	char *link[] = { "/sbin/ip", "link", "add", XDP_DEV, "type", "veth",
			 "peer", "name", "soakx1", NULL };
	char *up[] = { "/sbin/ip", "link", "set", XDP_DEV, "up", NULL };
	char out[160];
	__u64 round = 0;
	int fd;

	(void)arg;
	if (unshare(CLONE_NEWNET)) {
		report_error("xdp: unshare: %s", strerror(errno));
		return NULL;
	}
	if (run_tool(link, out, sizeof(out)) || run_tool(up, out, sizeof(out))) {
		report_error("xdp: a veth pair: %s", out);
		return NULL;
	}
	fd = bt_open();
	if (fd < 0) {
		report_error("xdp: open: %s", strerror(errno));
		return NULL;
	}
	/* one round at least, however short the run: its line says so */
	do {
		if (xdp_round(fd, round++))
			break;
		atomic_fetch_add(&xdp_progress, 1);
	} while (!atomic_load(&stop));
	/* the namespace, the veth pair and a filter left go with the thread */
	close(fd);
	return NULL;
}
