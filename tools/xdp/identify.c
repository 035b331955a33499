// SPDX-License-Identifier: GPL-2.0
/*
 * Recognising bloom-xdp's program (identify.h). Any program may be named
 * bloom_xdp: its maps' types and sizes are checked before a value is read,
 * the read-only data is read only into a struct of exactly the map's value
 * size, and the program counts as bloom's only when that data carries the
 * magic word and layout this loader builds.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "bloom_xdp.h"
#include "identify.h"

/* A map of the program, checked; its fd if it is @want's shape, else -1. */
struct map_shape {
	const char *suffix;	/* the end of its name */
	__u32 type, key_size, value_size, max_entries;
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t sl = strlen(s), xl = strlen(suffix);

	return sl >= xl && !strcmp(s + sl - xl, suffix);
}

static bool shaped(const struct bpf_map_info *mi, const struct map_shape *m)
{
	return ends_with(mi->name, m->suffix) && mi->type == m->type &&
	       mi->key_size == m->key_size &&
	       mi->value_size == m->value_size &&
	       mi->max_entries == m->max_entries;
}

/*
 * Whether the program's code loads the map @map_id (a BPF_LD_IMM64 of it,
 * which the kernel's dump of the code names by the map's id), as the build
 * that looks its filters up through their holds does with the holds' map;
 * a map bound to it (BPF_PROG_BIND_MAP) is among its maps, not in its code.
 */
static bool reads_map(int prog_fd, __u32 map_id)
{
	struct bpf_prog_info info;
	struct bpf_insn *insns;
	__u32 len = sizeof(info), n, i;
	bool found = false;

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return false;
	n = info.xlated_prog_len / sizeof(*insns);
	insns = n ? calloc(n, sizeof(*insns)) : NULL;
	if (!insns)
		return false;
	memset(&info, 0, sizeof(info));
	info.xlated_prog_len = n * sizeof(*insns);
	info.xlated_prog_insns = (__u64)(unsigned long)insns;
	len = sizeof(info);
	if (!bpf_obj_get_info_by_fd(prog_fd, &info, &len) &&
	    info.xlated_prog_len == n * sizeof(*insns))
		for (i = 0; i < n && !found; i++)
			found = insns[i].code == (BPF_LD | BPF_DW | BPF_IMM) &&
				(insns[i].src_reg == BPF_PSEUDO_MAP_FD ||
				 insns[i].src_reg == BPF_PSEUDO_MAP_VALUE) &&
				(__u32)insns[i].imm == map_id;
	free(insns);
	return found;
}

/*
 * The program's maps must be exactly these: its read-only data (one value
 * of the skeleton's size) and its counters, and the map of its filters'
 * holds when it has one (holds.h). 1 with *@ro_fd and *@stats_fd open and
 * *@held set (and *@holds_id, the holds' map's id), 0 when they are not,
 * -errno.
 */
static int open_maps(int prog_fd, int *ro_fd, int *stats_fd, bool *held,
		     __u32 *holds_id)
{
	const struct map_shape shapes[] = {
		{ ".rodata", BPF_MAP_TYPE_ARRAY, sizeof(__u32),
		  sizeof(struct bloom_xdp__rodata), 1 },
		{ BLOOM_XDP_STATS_NAME, BPF_MAP_TYPE_PERCPU_ARRAY,
		  sizeof(__u32), sizeof(__u64), BLOOM_XDP_STATS },
		{ BLOOM_XDP_HOLDS_NAME, BPF_MAP_TYPE_ARRAY, sizeof(__u32),
		  sizeof(__u64), BLOOM_XDP_HOLD_SLOTS },
	};
	enum { RO, STATS, HOLDS, NMAPS };
	int fds[NMAPS] = { -1, -1, -1 };
	struct bpf_prog_info info;
	struct bpf_map_info mi;
	__u32 ids[NMAPS], len, i, s;
	int fd, ret = 0;

	memset(&info, 0, sizeof(info));
	info.nr_map_ids = NMAPS;
	info.map_ids = (__u64)(unsigned long)ids;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	if (info.nr_map_ids != NMAPS && info.nr_map_ids != NMAPS - 1)
		return 0;
	for (i = 0; i < info.nr_map_ids; i++) {
		fd = bpf_map_get_fd_by_id(ids[i]);
		if (fd < 0)
			goto out;
		memset(&mi, 0, sizeof(mi));
		len = sizeof(mi);
		/* the first shape not taken yet that it has */
		s = bpf_obj_get_info_by_fd(fd, &mi, &len) ? NMAPS : 0;
		while (s < NMAPS && (fds[s] >= 0 || !shaped(&mi, &shapes[s])))
			s++;
		if (s == NMAPS) {
			close(fd);
			goto out;
		}
		fds[s] = fd;
		if (s == HOLDS)
			*holds_id = ids[i];
	}
	ret = fds[RO] >= 0 && fds[STATS] >= 0;
out:
	*held = fds[HOLDS] >= 0;
	if (fds[HOLDS] >= 0)
		close(fds[HOLDS]);
	if (ret) {
		*ro_fd = fds[RO];
		*stats_fd = fds[STATS];
		return 1;
	}
	if (fds[RO] >= 0)
		close(fds[RO]);
	if (fds[STATS] >= 0)
		close(fds[STATS]);
	return 0;
}

int bloom_xdp_identify(__u32 id, struct bloom_xdp_prog *p)
{
	struct bpf_prog_info info;
	int ro_fd = -1, ret;
	__u32 len = sizeof(info), key = 0, holds_id = 0;

	memset(p, 0, sizeof(*p));
	p->stats_fd = -1;
	p->fd = bpf_prog_get_fd_by_id(id);
	if (p->fd < 0)
		return errno == ENOENT ? 0 : -errno;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(p->fd, &info, &len)) {
		ret = -errno;
		goto out;
	}
	/* under the dispatcher it is an extension of the dispatcher's slot */
	ret = 0;
	if (strcmp(info.name, BLOOM_XDP_PROG_NAME) ||
	    (info.type != BPF_PROG_TYPE_XDP && info.type != BPF_PROG_TYPE_EXT))
		goto out;
	ret = open_maps(p->fd, &ro_fd, &p->stats_fd, &p->held, &holds_id);
	if (ret <= 0)
		goto out;
	p->by_hold = p->held && reads_map(p->fd, holds_id);
	ret = !bpf_map_lookup_elem(ro_fd, &key, &p->ro) &&
	      p->ro.bloom_xdp_magic == (BLOOM_XDP_MAGIC | BLOOM_XDP_LAYOUT);
	close(ro_fd);
	if (ret) {
		p->id = id;
		return 1;
	}
out:
	bloom_xdp_prog_close(p);
	return ret;
}

void bloom_xdp_prog_close(struct bloom_xdp_prog *p)
{
	if (p->fd >= 0)
		close(p->fd);
	if (p->stats_fd >= 0)
		close(p->stats_fd);
	p->fd = -1;
	p->stats_fd = -1;
}

int bloom_xdp_dev_query(unsigned int ifindex, struct bloom_xdp_dev *d)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int fd, err;

	memset(d, 0, sizeof(*d));
	err = bpf_xdp_query(ifindex, 0, &q);
	if (err)
		return err;
	if (q.drv_prog_id) {
		d->main_id = q.drv_prog_id;
		d->xdp_flags = XDP_FLAGS_DRV_MODE;
		d->mode = "native";
	} else if (q.skb_prog_id) {
		d->main_id = q.skb_prog_id;
		d->xdp_flags = XDP_FLAGS_SKB_MODE;
		d->mode = "generic";
	} else if (q.hw_prog_id) {
		d->main_id = q.hw_prog_id;
		d->xdp_flags = XDP_FLAGS_HW_MODE;
		d->mode = "offload";
	}
	if (!d->main_id)
		return 0;
	fd = bpf_prog_get_fd_by_id(d->main_id);
	if (fd < 0)
		return 0;
	memset(&info, 0, sizeof(info));
	if (!bpf_obj_get_info_by_fd(fd, &info, &len))
		d->dispatcher = !strcmp(info.name, "xdp_dispatcher");
	close(fd);
	return 0;
}

/*
 * bloom's program among the extensions linked to the dispatcher @disp_id,
 * from the kernel's list of links: found without the BPF filesystem, and
 * after the device moved to another namespace (libxdp's pins name it by
 * the index it had).
 */
static int find_linked(__u32 disp_id, struct bloom_xdp_prog *p)
{
	struct bpf_link_info li;
	__u32 id = 0, len;
	int fd, ret;

	while (!bpf_link_get_next_id(id, &id)) {
		fd = bpf_link_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&li, 0, sizeof(li));
		len = sizeof(li);
		ret = bpf_obj_get_info_by_fd(fd, &li, &len);
		close(fd);
		if (ret || li.type != BPF_LINK_TYPE_TRACING ||
		    li.tracing.target_obj_id != disp_id)
			continue;
		ret = bloom_xdp_identify(li.prog_id, p);
		if (ret)
			return ret;
	}
	return 0;
}

static int quiet(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/* Whether libxdp can manage the dispatcher on @ifindex, and @id's place. */
static void libxdp_view(unsigned int ifindex, struct bloom_xdp_slot *s)
{
	libxdp_print_fn_t was = libxdp_set_print(quiet);
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	struct xdp_program *xp = NULL;

	libxdp_set_print(was);
	if (!mp || libxdp_get_error(mp))
		return;
	/* without its pins, libxdp takes a dispatcher for a lone program */
	while (!xdp_multiprog__is_legacy(mp) &&
	       (xp = xdp_multiprog__next_prog(xp, mp))) {
		if (xdp_program__id(xp) != s->prog.id)
			continue;
		s->managed = true;
		s->priority = xdp_program__run_prio(xp);
		break;
	}
	xdp_multiprog__close(mp);
}

int bloom_xdp_find(unsigned int ifindex, struct bloom_xdp_slot *s)
{
	struct bloom_xdp_dev d;
	int ret;

	memset(s, 0, sizeof(*s));
	s->prog.fd = -1;
	s->prog.stats_fd = -1;
	ret = bloom_xdp_dev_query(ifindex, &d);
	if (ret || !d.main_id)
		return ret;
	s->mode = d.mode;
	s->xdp_flags = d.xdp_flags;
	if (d.dispatcher) {
		ret = find_linked(d.main_id, &s->prog);
		if (ret == 1)
			libxdp_view(ifindex, s);
		return ret;
	}
	s->direct = true;
	return bloom_xdp_identify(d.main_id, &s->prog);
}

void bloom_xdp_stats_sum(const struct bloom_xdp_prog *p, __u64 *sum)
{
	int ncpu = libbpf_num_possible_cpus(), cpu;
	__u64 *v = ncpu > 0 ? calloc(ncpu, sizeof(*v)) : NULL;
	__u32 slot;

	memset(sum, 0, BLOOM_XDP_STATS * sizeof(*sum));
	for (slot = 0; v && slot < BLOOM_XDP_STATS; slot++)
		if (!bpf_map_lookup_elem(p->stats_fd, &slot, v))
			for (cpu = 0; cpu < ncpu; cpu++)
				sum[slot] += v[cpu];
	free(v);
}
