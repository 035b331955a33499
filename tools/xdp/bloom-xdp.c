// SPDX-License-Identifier: GPL-2.0
/*
 * bloom-xdp: attaches the XDP program of bloom_xdp.bpf.c to a network
 * device, detaches it and shows where it is attached (bloom-xdp(8)).
 *
 * It attaches through libxdp's dispatcher, beside the programs others
 * attach that way (xdp-filter, xdp-loader): the dispatcher and each
 * program's link are pinned in the BPF filesystem, so the program stays
 * when this process exits. --direct attaches it alone, through netlink,
 * where libxdp cannot be used. show and detach find bloom's program among
 * a device's programs by its maps and its read-only data (identify.c) and
 * detach it only: the dispatcher's program of that id, or the device's
 * only program with XDP_FLAGS_REPLACE and the program that was checked.
 * The filters are named by their ids, which attach reads from the filters'
 * INFO (libbloom) in this process's network namespace (filters.c), and
 * held as firewall rules hold theirs, so that destroy refuses them while
 * the program runs (holds.c). A program whose filters are held looks them
 * up through the holds, where bloom.ko has the calls for it; otherwise
 * (no holds, an older bloom.ko) it looks them up by id.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include <libbloom.h>

#include "bloom_xdp.h"
#include "filters.h"
#include "holds.h"
#include "identify.h"

static const char *prog = "bloom-xdp";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s attach DEV --set NAME [--set NAME6] [--dir src|dst] [--mode native|generic]\n"
		"                 [--pass] [--priority N] [--direct]\n"
		"       %s detach DEV\n"
		"       %s show\n"
		"Drops frames whose source (--dir dst: destination) address the bloom\n"
		"filter NAME lists (one filter of IPv4 and one of IPv6 addresses may be\n"
		"given; --set4 and --set6 name a filter's family); --pass counts them and\n"
		"drops none. It runs beside other XDP programs through libxdp's dispatcher\n"
		"(--direct: alone, without libxdp). See bloom-xdp(8).\n",
		prog, prog, prog);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* libbpf's and libxdp's own messages: warnings only (the verifier's log). */
static int print_libbpf(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level > LIBBPF_WARN)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int print_libxdp(enum libxdp_print_level level, const char *fmt,
			va_list ap)
{
	if (level > LIBXDP_WARN)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static unsigned int ifindex_of(const char *dev)
{
	unsigned int i = if_nametoindex(dev);

	if (!i)
		die("no network device %s in this network namespace (ip link lists them)",
		    dev);
	return i;
}

/* The command that removes a program of this XDP mode, and only it. */
static const char *off_command(const struct bloom_xdp_dev *d)
{
	if (d->xdp_flags & XDP_FLAGS_SKB_MODE)
		return "xdpgeneric off";
	if (d->xdp_flags & XDP_FLAGS_HW_MODE)
		return "xdpoffload off";
	return "xdpdrv off";
}

/* Where libxdp keeps its dispatchers' pins. */
static const char *bpffs_dir(void)
{
	const char *dir = getenv("LIBXDP_BPFFS");

	return dir ? dir : "/sys/fs/bpf";
}

static bool bpffs_mounted(void)
{
	struct statfs st;

	return !statfs(bpffs_dir(), &st) && st.f_type == BPF_FS_MAGIC;
}

/*
 * The name under /run/netns of the network namespace this runs in, into
 * @name: what "ip netns exec NAME" entered (it also mounts a /sys of its
 * own, which hides the BPF filesystem); false when none is.
 */
static bool netns_name(char *name, size_t len)
{
	struct stat self, st;
	struct dirent *e;
	char path[PATH_MAX];
	bool found = false;
	DIR *d;

	if (stat("/proc/self/ns/net", &self))
		return false;
	d = opendir("/run/netns");
	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/run/netns/%s", e->d_name);
		if (!stat(path, &st) && st.st_dev == self.st_dev &&
		    st.st_ino == self.st_ino) {
			snprintf(name, len, "%s", e->d_name);
			found = true;
		}
	}
	closedir(d);
	return found;
}

/* A BPF filesystem, or libxdp cannot attach. */
static void need_bpffs(void)
{
	const char *dir = bpffs_dir();
	char ns[NAME_MAX + 1];

	if (bpffs_mounted())
		return;
	/*
	 * Mounting one inside "ip netns exec" leaves the other XDP programs'
	 * dispatcher (xdp-filter's, pinned in the host's) out of sight, and
	 * libxdp then refuses to share the device.
	 */
	if (netns_name(ns, sizeof(ns)))
		die("no BPF filesystem at %s: 'ip netns exec' mounts a /sys of its own, which hides the host's, where libxdp pins the dispatcher that lets XDP programs share a device; run bloom-xdp with nsenter --net=/run/netns/%s instead of ip netns exec %s (a BPF filesystem mounted here would not see the programs already on the device), or attach with --direct (bloom-xdp then runs alone on the device)",
		    dir, ns, ns);
	die("no BPF filesystem at %s, where libxdp pins the dispatcher that lets XDP programs share a device: mount it (mount -t bpf bpf %s), or attach with --direct (bloom-xdp then runs alone on the device)",
	    dir, dir);
}

/* libxdp's name for the mode of @xdp_flags. */
static enum xdp_attach_mode xdp_mode_of(__u32 xdp_flags)
{
	if (xdp_flags & XDP_FLAGS_SKB_MODE)
		return XDP_MODE_SKB;
	if (xdp_flags & XDP_FLAGS_HW_MODE)
		return XDP_MODE_HW;
	return XDP_MODE_NATIVE;
}

/* What attach was asked for, beside the filters. */
struct attach_opts {
	const char *dev;
	unsigned int ifindex;
	int dst, pass, direct;
	unsigned int priority;	/* 0: the program's own */
	int holds_fd;		/* the holds' map (holds.h), or -1 */
	bool by_hold;		/* the program looks up through the holds */
};

/*
 * The program, opened with its read-only data set; exits on failure. The
 * build that looks up by hold (holds_prog_elf()) when @o->by_hold, with
 * the holds' map of @o->holds_fd as its own; the skeleton's otherwise.
 * Both are one source: the same read-only data.
 */
static struct bpf_object *open_prog(const struct filter_choice *c,
				    const struct attach_opts *o)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "bloom_xdp");
	struct bloom_xdp__rodata ro;
	struct bpf_object *obj;
	struct bpf_map *m;
	const void *elf, *ro0;
	size_t sz;

	elf = o->by_hold ? holds_prog_elf(&sz) : bloom_xdp__elf_bytes(&sz);
	obj = bpf_object__open_mem(elf, sz, &oo);
	if (!obj)
		die("cannot open the XDP program: %s", strerror(errno));
	m = bpf_object__find_map_by_name(obj, ".rodata");
	ro0 = m ? bpf_map__initial_value(m, &sz) : NULL;
	if (!ro0 || sz != sizeof(ro))
		die("bloom-xdp carries an XDP program whose read-only data is not its loader's: rebuild bloom-xdp");
	memcpy(&ro, ro0, sizeof(ro));
	ro.match_dst = o->dst;
	ro.pass_listed = o->pass;
	ro.netns_ino = netns_inode();
	ro.filter_id4 = c->id4;
	ro.filter_id6 = c->id6;
	memcpy((char *)ro.filter_name4, c->name4, sizeof(ro.filter_name4));
	memcpy((char *)ro.filter_name6, c->name6, sizeof(ro.filter_name6));
	if (bpf_map__set_initial_value(m, &ro, sizeof(ro)))
		die("cannot set the XDP program's filters: %s", strerror(errno));
	if (o->by_hold) {
		m = bpf_object__find_map_by_name(obj, BLOOM_XDP_HOLDS_NAME);
		if (!m || bpf_map__reuse_fd(m, o->holds_fd))
			die("cannot give the XDP program the holds of its filters: %s",
			    strerror(m ? errno : ENOENT));
	}
	return obj;
}

static struct bpf_program *prog_of(struct bpf_object *obj)
{
	return bpf_object__find_program_by_name(obj, BLOOM_XDP_PROG_NAME);
}

static void __attribute__((noreturn)) die_load(int err)
{
	die("cannot load the XDP program (%s): bloom.ko must be built with BTF for its kfuncs (dmesg says so at load), and the verifier's words are above",
	    strerror(-err));
}

/*
 * Loads the program once as plain XDP, before the attach loads it again
 * (libxdp as an extension of its dispatcher), to choose the build: held
 * filters are looked up through their holds when the program built for
 * that loads (bloom.ko has bpf_bloom_hold_lookup_addr()); an older
 * bloom.ko refuses it, and the program looks them up by id. What a load
 * can get wrong (no BTF for the kfuncs) is said in words of its own.
 */
static void try_load(const struct filter_choice *c, struct attach_opts *o)
{
	libbpf_print_fn_t was;
	struct bpf_object *obj;
	int err;

	if (o->holds_fd >= 0 && holds_prog_elf(&(size_t){ 0 })) {
		o->by_hold = true;
		obj = open_prog(c, o);
		/* a refusal is no error: the program by id follows */
		was = libbpf_set_print(NULL);
		err = bpf_object__load(obj);
		libbpf_set_print(was);
		bpf_object__close(obj);
		if (!err)
			return;
		o->by_hold = false;
	}
	obj = open_prog(c, o);
	err = bpf_object__load(obj);
	bpf_object__close(obj);
	if (err)
		die_load(err);
}

/* One attach in @mode ("native" or "generic"): 0 or -errno. */
static int attach_mode(const struct filter_choice *c,
		       const struct attach_opts *o, const char *mode)
{
	int native = !strcmp(mode, "native"), err;
	struct bpf_object *obj = open_prog(c, o);
	struct xdp_program *xp;

	if (o->direct) {
		err = bpf_object__load(obj);
		if (err)
			die_load(err);
		err = bpf_xdp_attach(o->ifindex, bpf_program__fd(prog_of(obj)),
				     XDP_FLAGS_UPDATE_IF_NOEXIST |
				     (native ? XDP_FLAGS_DRV_MODE :
					       XDP_FLAGS_SKB_MODE), NULL);
		bpf_object__close(obj);
		return err;
	}
	xp = xdp_program__from_bpf_obj(obj, NULL);
	err = libxdp_get_error(xp);
	if (!err && o->priority)
		err = xdp_program__set_run_prio(xp, o->priority);
	if (!err)
		err = xdp_program__attach(xp, o->ifindex,
					  native ? XDP_MODE_NATIVE :
						   XDP_MODE_SKB, 0);
	if (!libxdp_get_error(xp))
		xdp_program__close(xp);
	bpf_object__close(obj);
	return err;
}

static void parse_attach(int argc, char **argv, struct filter_request *req,
			 int *nreq, const char **mode, struct attach_opts *o)
{
	static const struct option opts[] = {
		{ "set", required_argument, NULL, 's' },
		{ "set4", required_argument, NULL, '4' },
		{ "set6", required_argument, NULL, '6' },
		{ "dir", required_argument, NULL, 'd' },
		{ "mode", required_argument, NULL, 'm' },
		{ "pass", no_argument, NULL, 'p' },
		{ "priority", required_argument, NULL, 'P' },
		{ "direct", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	long v;
	int c;

	while ((c = getopt_long(argc, argv, "s:d:m:ph", opts, NULL)) != -1) {
		switch (c) {
		case 's':
		case '4':
		case '6':
			if (*nreq == 2)
				die("--set names at most two filters: one of IPv4 and one of IPv6 addresses");
			req[*nreq].name = optarg;
			req[(*nreq)++].family = c == 's' ? 0 : c - '0';
			break;
		case 'd':
			if (!strcmp(optarg, "dst"))
				o->dst = 1;
			else if (strcmp(optarg, "src"))
				die("--dir takes src or dst, not '%s'", optarg);
			break;
		case 'm':
			if (strcmp(optarg, "native") && strcmp(optarg, "generic"))
				die("--mode takes native or generic, not '%s'",
				    optarg);
			*mode = optarg;
			break;
		case 'p':
			o->pass = 1;
			break;
		case 'P':
			v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 1 || v > 999)
				die("--priority takes 1 to 999 (lower runs first; libxdp's default is 50), not '%s'",
				    optarg);
			o->priority = v;
			break;
		case 'D':
			o->direct = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind + 1 != argc || !*nreq) {
		usage(stderr);
		exit(2);
	}
	o->dev = argv[optind];
	if (o->direct && o->priority)
		die("--priority is a place in libxdp's dispatcher: --direct has none");
}

/* Refuses what would not run beside what @dev runs now. */
static void check_device(const struct attach_opts *o, const char **mode)
{
	struct bloom_xdp_slot s;
	struct bloom_xdp_dev d;

	if (bloom_xdp_find(o->ifindex, &s) == 1) {
		bloom_xdp_prog_close(&s.prog);
		die("bloom-xdp is attached to %s already (program id %u): 'bloom-xdp detach %s' first ('bloom-xdp show' says what it uses)",
		    o->dev, s.prog.id, o->dev);
	}
	if (bloom_xdp_dev_query(o->ifindex, &d))
		die("cannot read the XDP state of %s: %s", o->dev,
		    strerror(errno));
	if (!d.main_id)
		return;
	if (o->direct)
		die("%s has an XDP program already (id %u, %s): --direct attaches bloom-xdp alone; without --direct it runs beside programs attached through libxdp (xdp-loader status %s lists them)",
		    o->dev, d.main_id, d.mode, o->dev);
	if (!d.dispatcher)
		die("%s has an XDP program that runs alone, not under libxdp's dispatcher (id %u, %s), and nothing can run beside it: remove it with the tool that attached it (or 'ip link set dev %s %s'), then attach it and bloom-xdp through libxdp (xdp-loader load)",
		    o->dev, d.main_id, d.mode, o->dev, off_command(&d));
	if (*mode && strcmp(*mode, d.mode))
		die("libxdp's dispatcher runs on %s in %s mode, and the programs beside it run in that mode: attach with --mode %s, or without --mode",
		    o->dev, d.mode, d.mode);
	*mode = d.mode;
}

static int cmd_attach(int argc, char **argv)
{
	struct attach_opts o = { 0 };
	struct filter_request req[2];
	const char *mode = NULL, *given;
	struct filter_choice c;
	struct bloom_xdp_slot s;
	char msg[512];
	int fd, err, nreq = 0;

	parse_attach(argc, argv, req, &nreq, &mode, &o);
	o.ifindex = ifindex_of(o.dev);
	given = mode;
	check_device(&o, &mode);

	fd = bloom_open(NULL);
	if (fd < 0)
		die("%s", bloom_strerror(msg, sizeof(msg), BLOOM_OP_OPEN,
					 BLOOM_DEFAULT_DEVICE, fd));
	err = filters_choose(fd, req, nreq, &c, msg, sizeof(msg));
	if (err)
		die("%s", msg);
	/* until the program has them, this process's fd keeps them */
	o.holds_fd = holds_take(fd, &c, o.ifindex, msg, sizeof(msg));
	bloom_close(fd);
	if (o.holds_fd == HOLDS_GONE)
		die("%s", msg);
	if (o.holds_fd < 0)
		fprintf(stderr, "%s: %s\n", prog, msg);
	if (!o.direct)
		need_bpffs();
	try_load(&c, &o);
	/* Without --mode: native where the driver has it, else generic. */
	err = attach_mode(&c, &o, mode ? mode : "native");
	if (err && !mode) {
		mode = "generic";
		err = attach_mode(&c, &o, mode);
	}
	if (err && o.direct)
		die("cannot attach to %s in %s mode: %s%s", o.dev,
		    mode ? mode : "native", strerror(-err),
		    given ? " (the driver may not support XDP: try --mode generic)" : "");
	if (err)
		die("cannot attach to %s through libxdp's dispatcher: %s (libxdp's words are above). A kernel before 5.10 cannot add programs to a dispatcher: there, --direct attaches bloom-xdp alone",
		    o.dev, strerror(-err));
	if (bloom_xdp_find(o.ifindex, &s) != 1)
		die("attached to %s, but bloom-xdp's program is not found there: another tool changed the device meanwhile; 'bloom-xdp show' and 'xdp-loader status %s' say what runs",
		    o.dev, o.dev);
	if (o.by_hold) {
		/* the program's own map: freed with it, letting the holds go */
		s.prog.held = true;
		close(o.holds_fd);
	} else if (o.holds_fd >= 0) {
		/* the program's now: freed with it, letting the holds go */
		if (bpf_prog_bind_map(s.prog.fd, o.holds_fd, NULL))
			fprintf(stderr, "%s: cannot hold the filters (binding their holds to the program: %s): destroy will not see this program\n",
				prog, strerror(errno));
		else
			s.prog.held = true;
		close(o.holds_fd);
	}
	printf("attached to %s (%s XDP, %s", o.dev, s.mode,
	       s.direct ? "alone" : "libxdp's dispatcher");
	if (!s.direct)
		printf(", priority %u", s.priority);
	printf("): IPv4 %s%s%s, IPv6 %s%s%s; %s addresses, %s%s%s\n",
	       c.id4 ? "filter " : "", c.id4 ? c.name4 : "none",
	       c.id4 ? "" : " (passed)", c.id6 ? "filter " : "",
	       c.id6 ? c.name6 : "none", c.id6 ? "" : " (passed)",
	       o.dst ? "destination" : "source",
	       o.pass ? "listed frames counted, not dropped" : "listed frames dropped",
	       s.prog.held ? "; the filters are held until detach" : "",
	       o.by_hold ? ", looked up through their holds" : "");
	bloom_xdp_prog_close(&s.prog);
	return 0;
}

/* Why bloom's program is not found on @dev, and what to do. */
static void __attribute__((noreturn)) die_absent(const char *dev,
						 unsigned int ifindex)
{
	struct bloom_xdp_dev d;

	if (bloom_xdp_dev_query(ifindex, &d) || !d.main_id)
		die("bloom-xdp is not attached to %s: it has no XDP program",
		    dev);
	die("bloom-xdp is not attached to %s: its XDP programs are others' (xdp-loader status %s lists them), and bloom-xdp leaves them alone",
	    dev, dev);
}

/*
 * bloom's program runs under a dispatcher that libxdp cannot change here:
 * it needs the pins it made, under the device's index of the time.
 */
static void __attribute__((noreturn))
die_unmanaged(const char *dev, struct bloom_xdp_slot *s)
{
	struct bloom_xdp_dev d = { .xdp_flags = s->xdp_flags };

	bloom_xdp_prog_close(&s->prog);
	if (!bpffs_mounted())
		die("bloom-xdp runs on %s under libxdp's dispatcher, whose programs libxdp finds in the BPF filesystem, and none is mounted at %s: mount it (mount -t bpf bpf %s; 'ip netns exec' mounts a /sys of its own: use nsenter --net instead) and try again",
		    dev, bpffs_dir(), bpffs_dir());
	die("bloom-xdp runs on %s under libxdp's dispatcher, but libxdp cannot find the dispatcher's pins in %s/xdp: they name the device by the index it had where it was attached (was it moved from another network namespace?). Move it back and detach there, or remove the dispatcher with every program on it: ip link set dev %s %s",
	    dev, bpffs_dir(), dev, off_command(&d));
}

static int cmd_detach(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, xo);
	struct bloom_xdp_slot s;
	struct xdp_program *xp;
	unsigned int ifindex;
	int err;

	if (argc != 2) {
		usage(stderr);
		return 2;
	}
	ifindex = ifindex_of(argv[1]);
	err = bloom_xdp_find(ifindex, &s);
	if (err < 0)
		die("cannot read the XDP programs of %s: %s", argv[1],
		    strerror(-err));
	if (!err)
		die_absent(argv[1], ifindex);
	if (!s.direct && !s.managed)
		die_unmanaged(argv[1], &s);
	if (s.direct) {
		/* only the program checked, held open: its id is its own */
		xo.old_prog_fd = s.prog.fd;
		err = bpf_xdp_attach(ifindex, -1,
				     s.xdp_flags | XDP_FLAGS_REPLACE, &xo);
	} else {
		xp = xdp_program__from_id(s.prog.id);
		err = libxdp_get_error(xp);
		if (!err) {
			/* the dispatcher's mode: no mode means native */
			err = xdp_program__detach(xp, ifindex,
						  xdp_mode_of(s.xdp_flags), 0);
			xdp_program__close(xp);
		}
	}
	bloom_xdp_prog_close(&s.prog);
	if (err == -EEXIST || err == -ENOENT)
		die("%s's XDP programs changed while bloom-xdp was detaching its own: 'bloom-xdp show' says whether it is still there",
		    argv[1]);
	if (err)
		die("cannot detach from %s: %s", argv[1], strerror(-err));
	printf("detached from %s%s\n", argv[1],
	       s.direct ? "" : " (the programs beside it run on)");
	return 0;
}

/* A filter's column: name(id), "-(0)" for none. */
static void filter_column(char *buf, size_t len, uint32_t id,
			  const volatile char *name)
{
	char n[BLOOM_NAME_LEN];

	memcpy(n, (const char *)name, sizeof(n));
	n[sizeof(n) - 1] = '\0';
	snprintf(buf, len, "%s(%u)", id ? n : "-", id);
}

/*
 * Appends to @note (and says on stderr, with what to do) what became of
 * the filter of @family that @dev's program names by @id.
 */
static void note_filter(int fd, const char *dev, int family, uint32_t id,
			const volatile char *vname, char *note, size_t len)
{
	char name[BLOOM_NAME_LEN], other[BLOOM_NAME_LEN];
	size_t used = strlen(note);

	if (!id)
		return;
	memcpy(name, (const char *)vname, sizeof(name));
	name[sizeof(name) - 1] = '\0';
	switch (filter_check(fd, id, name, other)) {
	case FILTER_OK:
	case FILTER_UNKNOWN:
		return;
	case FILTER_GONE:
		snprintf(note + used, len - used, "%sipv%d-gone",
			 used ? "," : "", family);
		fprintf(stderr, "%s: %s: filter %s (id %u) is gone: IPv%d frames pass and count as errors; create it and attach again, or detach\n",
			prog, dev, name, id, family);
		return;
	case FILTER_OTHER:
		snprintf(note + used, len - used, "%sipv%d-id-is:%s",
			 used ? "," : "", family, other);
		fprintf(stderr, "%s: %s: the program looks IPv%d up in filter id %u, given for %s, which is %s's id here: detach and attach again to use the filter you mean\n",
			prog, dev, family, id, name, other);
		return;
	}
}

static void show_one(const char *dev, const struct bloom_xdp_slot *s,
		     int bloom_fd, uint64_t ns)
{
	const struct bloom_xdp__rodata *ro = &s->prog.ro;
	char f4[48], f6[48], prio[12], note[128] = "";
	__u64 sum[BLOOM_XDP_STATS];

	bloom_xdp_stats_sum(&s->prog, sum);
	filter_column(f4, sizeof(f4), ro->filter_id4, ro->filter_name4);
	filter_column(f6, sizeof(f6), ro->filter_id6, ro->filter_name6);
	if (s->direct)
		snprintf(prio, sizeof(prio), "alone");
	else if (s->priority)
		snprintf(prio, sizeof(prio), "%u", s->priority);
	else
		snprintf(prio, sizeof(prio), "?");
	if (ns && ro->netns_ino && ro->netns_ino != ns) {
		snprintf(note, sizeof(note), "moved-netns");
		if (s->prog.by_hold)
			fprintf(stderr, "%s: %s: the device was moved here from the network namespace bloom-xdp attached it in: its program looks up the filters it holds there; detach and attach it again here to use this namespace's\n",
				prog, dev);
		else
			fprintf(stderr, "%s: %s: the device was moved here from the network namespace bloom-xdp attached it in: the filter ids its program keeps name this namespace's filters now; detach and attach it again here\n",
				prog, dev);
	}
	/* through its holds, the program uses no id: its filters are there */
	if (!s->prog.by_hold) {
		note_filter(bloom_fd, dev, 4, ro->filter_id4, ro->filter_name4,
			    note, sizeof(note));
		note_filter(bloom_fd, dev, 6, ro->filter_id6, ro->filter_name6,
			    note, sizeof(note));
	}
	printf("%-15s %-8s %-5s %-20s %-20s %-4s %-4s %12llu %12llu %12llu %8llu %-4s %s\n",
	       dev, s->mode, prio, f4, f6, ro->match_dst ? "dst" : "src",
	       ro->pass_listed ? "pass" : "drop",
	       (unsigned long long)sum[BLOOM_XDP_PACKETS],
	       (unsigned long long)sum[BLOOM_XDP_LISTED],
	       (unsigned long long)sum[BLOOM_XDP_DROPPED],
	       (unsigned long long)sum[BLOOM_XDP_ERRORS],
	       s->prog.held ? "yes" : "no", note[0] ? note : "-");
}

static int cmd_show(int argc, char **argv)
{
	struct if_nameindex *ifs, *i;
	struct bloom_xdp_slot s;
	uint64_t ns = netns_inode();
	int bloom_fd;

	(void)argv;
	if (argc != 1) {
		usage(stderr);
		return 2;
	}
	ifs = if_nameindex();
	if (!ifs)
		die("cannot list the network devices: %s", strerror(errno));
	bloom_fd = bloom_open(NULL);
	printf("%-15s %-8s %-5s %-20s %-20s %-4s %-4s %12s %12s %12s %8s %-4s %s\n",
	       "DEV", "MODE", "PRIO", "IPV4 FILTER(ID)", "IPV6 FILTER(ID)",
	       "DIR", "HIT", "PACKETS", "LISTED", "DROPPED", "ERRORS", "HELD",
	       "NOTE");
	for (i = ifs; i->if_index; i++) {
		if (bloom_xdp_find(i->if_index, &s) != 1)
			continue;
		show_one(i->if_name, &s, bloom_fd, ns);
		bloom_xdp_prog_close(&s.prog);
	}
	if (bloom_fd >= 0)
		bloom_close(bloom_fd);
	if_freenameindex(ifs);
	return 0;
}

int main(int argc, char **argv)
{
	libbpf_set_print(print_libbpf);
	libxdp_set_print(print_libxdp);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "attach"))
		return cmd_attach(argc - 1, argv + 1);
	if (!strcmp(argv[1], "detach"))
		return cmd_detach(argc - 1, argv + 1);
	if (!strcmp(argv[1], "show"))
		return cmd_show(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	usage(stderr);
	return 2;
}
