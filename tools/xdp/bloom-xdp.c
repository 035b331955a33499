// SPDX-License-Identifier: GPL-2.0
/*
 * bloom-xdp: attaches the XDP program of bloom_xdp.bpf.c to a network
 * device, detaches it and shows where it is attached (bloom-xdp(8)).
 *
 * The program is attached through netlink (bpf_xdp_attach()), so it stays
 * when this process exits, as "ip link set dev DEV xdp" does; show and
 * detach find it again by its name on each device of the network
 * namespace. The filter is named by its id, which attach reads from the
 * filter's INFO (libbloom) in this process's network namespace; the
 * program keeps the filter's name in its read-only data for show.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <libbloom.h>

#include "bloom_xdp.h"
#include "bloom_xdp.skel.h"

static const char *prog = "bloom-xdp";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s attach DEV --set NAME [--set NAME6] [--dir src|dst] [--mode native|generic] [--pass]\n"
		"       %s detach DEV\n"
		"       %s show\n"
		"Drops frames whose source (--dir dst: destination) address the bloom\n"
		"filter NAME lists (one filter of IPv4 and one of IPv6 addresses may be\n"
		"given); --pass counts them and drops none. See bloom-xdp(8).\n",
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

/* libbpf's own messages: warnings only (the verifier's log among them). */
static int print_libbpf(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level > LIBBPF_WARN)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static unsigned int ifindex_of(const char *dev)
{
	unsigned int i = if_nametoindex(dev);

	if (!i)
		die("no network device %s in this network namespace", dev);
	return i;
}

/* What is attached to a device: the program's id and its XDP mode. */
struct attached {
	__u32 prog_id;
	__u32 flags;		/* XDP_FLAGS_DRV_MODE or XDP_FLAGS_SKB_MODE */
	const char *mode;
};

/* Is the program @id bloom-xdp's? Its fd in *@fd (to close) if so. */
static int ours(__u32 id, int *fd)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	*fd = bpf_prog_get_fd_by_id(id);
	if (*fd < 0)
		return 0;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(*fd, &info, &len) ||
	    strcmp(info.name, BLOOM_XDP_PROG_NAME)) {
		close(*fd);
		*fd = -1;
		return 0;
	}
	return 1;
}

/* The XDP program of @ifindex in native or generic mode, if any. */
static int query(unsigned int ifindex, struct attached *a)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	int err = bpf_xdp_query(ifindex, 0, &q);

	memset(a, 0, sizeof(*a));
	if (err)
		return err;
	if (q.drv_prog_id) {
		a->prog_id = q.drv_prog_id;
		a->flags = XDP_FLAGS_DRV_MODE;
		a->mode = "native";
	} else if (q.skb_prog_id) {
		a->prog_id = q.skb_prog_id;
		a->flags = XDP_FLAGS_SKB_MODE;
		a->mode = "generic";
	} else if (q.hw_prog_id) {
		a->prog_id = q.hw_prog_id;
		a->flags = XDP_FLAGS_HW_MODE;
		a->mode = "offload";
	}
	return 0;
}

static int cmd_attach(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "set", required_argument, NULL, 's' },
		{ "dir", required_argument, NULL, 'd' },
		{ "mode", required_argument, NULL, 'm' },
		{ "pass", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *set[2] = { NULL, NULL }, *dev, *mode = NULL;
	int c, fd, err, dst = 0, pass = 0, prog_fd, nset = 0, i;
	struct bloom_info info[2], *in4 = NULL, *in6 = NULL;
	struct bloom_xdp *skel;
	struct attached a;
	unsigned int ifindex;
	__u32 flags;

	while ((c = getopt_long(argc, argv, "s:d:m:ph", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (nset == 2)
				die("--set names at most two filters: one of IPv4 and one of IPv6 addresses");
			set[nset++] = optarg;
			break;
		case 'd':
			if (!strcmp(optarg, "dst"))
				dst = 1;
			else if (strcmp(optarg, "src"))
				die("--dir takes src or dst, not '%s'", optarg);
			break;
		case 'm':
			if (strcmp(optarg, "native") && strcmp(optarg, "generic"))
				die("--mode takes native or generic, not '%s'",
				    optarg);
			mode = optarg;
			break;
		case 'p':
			pass = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind + 1 != argc || !nset) {
		usage(stderr);
		return 2;
	}
	dev = argv[optind];
	ifindex = ifindex_of(dev);
	if (query(ifindex, &a))
		die("cannot read the XDP state of %s", dev);
	if (a.prog_id)
		die("%s has an XDP program already (id %u, %s): 'bloom-xdp detach %s' (or 'ip link set dev %s xdp off') first",
		    dev, a.prog_id, a.mode, dev, dev);

	fd = bloom_open(NULL);
	if (fd < 0)
		die("cannot open /dev/bloom: %s (is bloom.ko loaded? modprobe bloom)",
		    strerror(-fd));
	/*
	 * A filter of IPv4 keys serves IPv4 frames, one of IPv6 keys IPv6
	 * frames; one whose kind is not known yet (no address added) both,
	 * unless the other filter is of that family.
	 */
	for (i = 0; i < nset; i++) {
		err = bloom_info(fd, set[i], &info[i]);
		if (err)
			die("filter %s: %s", set[i], strerror(-err));
		if (info[i].keys == BLOOM_KEYS_STRINGS)
			die("filter %s holds strings, not addresses: name a filter filled with bloomctl add --ipv4 or --ipv6",
			    set[i]);
		if (info[i].keys == BLOOM_KEYS_IPV4 && in4)
			die("filters %s and %s both hold IPv4 addresses: give one per family",
			    in4->name, set[i]);
		if (info[i].keys == BLOOM_KEYS_IPV6 && in6)
			die("filters %s and %s both hold IPv6 addresses: give one per family",
			    in6->name, set[i]);
		if (info[i].keys == BLOOM_KEYS_IPV4)
			in4 = &info[i];
		if (info[i].keys == BLOOM_KEYS_IPV6)
			in6 = &info[i];
	}
	bloom_close(fd);
	for (i = 0; i < nset; i++) {
		if (info[i].keys != BLOOM_KEYS_UNKNOWN)
			continue;
		if (!in4)
			in4 = &info[i];
		if (!in6)
			in6 = &info[i];
	}

	skel = bloom_xdp__open();
	if (!skel)
		die("cannot open the XDP program: %s", strerror(errno));
	skel->rodata->match_dst = dst;
	skel->rodata->pass_listed = pass;
	if (in4) {
		skel->rodata->filter_id4 = in4->id;
		memcpy((char *)skel->rodata->filter_name4, in4->name,
		       sizeof(skel->rodata->filter_name4));
	}
	if (in6) {
		skel->rodata->filter_id6 = in6->id;
		memcpy((char *)skel->rodata->filter_name6, in6->name,
		       sizeof(skel->rodata->filter_name6));
	}
	err = bloom_xdp__load(skel);
	if (err)
		die("cannot load the XDP program (%s): bloom.ko must be built with BTF for its kfuncs (dmesg says so at load)",
		    strerror(-err));
	prog_fd = bpf_program__fd(skel->progs.bloom_xdp);
	/* Without --mode: native where the driver has it, else generic. */
	flags = XDP_FLAGS_UPDATE_IF_NOEXIST;
	if (!mode || !strcmp(mode, "native"))
		err = bpf_xdp_attach(ifindex, prog_fd,
				     flags | XDP_FLAGS_DRV_MODE, NULL);
	if (mode && !strcmp(mode, "native") && err)
		die("cannot attach to %s in native mode: %s (the driver may not support XDP: try --mode generic)",
		    dev, strerror(-err));
	if (!mode && !err)
		mode = "native";
	if (!mode || !strcmp(mode, "generic")) {
		mode = "generic";
		err = bpf_xdp_attach(ifindex, prog_fd,
				     flags | XDP_FLAGS_SKB_MODE, NULL);
		if (err)
			die("cannot attach to %s: %s", dev, strerror(-err));
	}
	printf("attached to %s (%s XDP): IPv4 %s%s%s, IPv6 %s%s%s; %s addresses, %s\n",
	       dev, mode, in4 ? "filter " : "", in4 ? in4->name : "none",
	       in4 ? "" : " (passed)", in6 ? "filter " : "",
	       in6 ? in6->name : "none", in6 ? "" : " (passed)",
	       dst ? "destination" : "source",
	       pass ? "listed frames counted, not dropped" : "listed frames dropped");
	bloom_xdp__destroy(skel);
	return 0;
}

static int cmd_detach(int argc, char **argv)
{
	unsigned int ifindex;
	struct attached a;
	int fd, err;

	if (argc != 2) {
		usage(stderr);
		return 2;
	}
	ifindex = ifindex_of(argv[1]);
	if (query(ifindex, &a))
		die("cannot read the XDP state of %s", argv[1]);
	if (!a.prog_id)
		die("%s has no XDP program", argv[1]);
	if (!ours(a.prog_id, &fd))
		die("the XDP program of %s (id %u) is not bloom-xdp's: leaving it (ip link set dev %s xdp off removes any)",
		    argv[1], a.prog_id, argv[1]);
	close(fd);
	err = bpf_xdp_detach(ifindex, a.flags, NULL);
	if (err)
		die("cannot detach from %s: %s", argv[1], strerror(-err));
	printf("detached from %s\n", argv[1]);
	return 0;
}

/* The program's map named @suffix (".rodata" or the stats map). */
static int prog_map(int prog_fd, const char *suffix)
{
	struct bpf_prog_info info;
	struct bpf_map_info mi;
	__u32 ids[8], len, i;
	size_t sl = strlen(suffix), nl;
	int fd;

	memset(&info, 0, sizeof(info));
	info.nr_map_ids = 8;
	info.map_ids = (__u64)(unsigned long)ids;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -1;
	for (i = 0; i < info.nr_map_ids && i < 8; i++) {
		fd = bpf_map_get_fd_by_id(ids[i]);
		if (fd < 0)
			continue;
		memset(&mi, 0, sizeof(mi));
		len = sizeof(mi);
		if (!bpf_obj_get_info_by_fd(fd, &mi, &len)) {
			nl = strlen(mi.name);
			if (nl >= sl && !strcmp(mi.name + nl - sl, suffix))
				return fd;
		}
		close(fd);
	}
	return -1;
}

static void show_one(const char *dev, const struct attached *a, int prog_fd)
{
	struct bloom_xdp__rodata ro;
	uint64_t sum[BLOOM_XDP_STATS] = { 0 }, *v;
	int ncpu = libbpf_num_possible_cpus(), rofd, sfd, cpu;
	__u32 key = 0, slot;
	char f4[48], f6[48];

	memset(&ro, 0, sizeof(ro));
	rofd = prog_map(prog_fd, ".rodata");
	if (rofd >= 0) {
		bpf_map_lookup_elem(rofd, &key, &ro);
		close(rofd);
	}
	sfd = prog_map(prog_fd, "bloom_xdp_stats");
	v = ncpu > 0 ? calloc(ncpu, sizeof(*v)) : NULL;
	for (slot = 0; sfd >= 0 && v && slot < BLOOM_XDP_STATS; slot++)
		if (!bpf_map_lookup_elem(sfd, &slot, v))
			for (cpu = 0; cpu < ncpu; cpu++)
				sum[slot] += v[cpu];
	free(v);
	if (sfd >= 0)
		close(sfd);
	snprintf(f4, sizeof(f4), "%s(%u)", ro.filter_id4 ?
		 (const char *)ro.filter_name4 : "-", ro.filter_id4);
	snprintf(f6, sizeof(f6), "%s(%u)", ro.filter_id6 ?
		 (const char *)ro.filter_name6 : "-", ro.filter_id6);
	printf("%-15s %-8s %-20s %-20s %-4s %-4s %12" PRIu64 " %12" PRIu64
	       " %12" PRIu64 " %8" PRIu64 "\n", dev, a->mode, f4, f6,
	       ro.match_dst ? "dst" : "src", ro.pass_listed ? "pass" : "drop",
	       sum[BLOOM_XDP_PACKETS], sum[BLOOM_XDP_LISTED],
	       sum[BLOOM_XDP_DROPPED], sum[BLOOM_XDP_ERRORS]);
}

static int cmd_show(int argc, char **argv)
{
	struct if_nameindex *ifs, *i;
	struct attached a;
	int fd;

	(void)argv;
	if (argc != 1) {
		usage(stderr);
		return 2;
	}
	ifs = if_nameindex();
	if (!ifs)
		die("cannot list the network devices: %s", strerror(errno));
	printf("%-15s %-8s %-20s %-20s %-4s %-4s %12s %12s %12s %8s\n", "DEV",
	       "MODE", "IPV4 FILTER(ID)", "IPV6 FILTER(ID)", "DIR", "HIT",
	       "PACKETS", "LISTED", "DROPPED", "ERRORS");
	for (i = ifs; i->if_index; i++) {
		if (query(i->if_index, &a) || !a.prog_id || !ours(a.prog_id, &fd))
			continue;
		show_one(i->if_name, &a, fd);
		close(fd);
	}
	if_freenameindex(ifs);
	return 0;
}

int main(int argc, char **argv)
{
	libbpf_set_print(print_libbpf);
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
