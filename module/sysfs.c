// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs attributes of the device and of each filter: the files only, which
 * read what filter.h exposes. The filters/ directory and each filter's
 * directory come and go with the filter's name (registry.c).
 *
 * Per-filter files read the filter without a lock: kernfs keeps the filter
 * alive while a show() runs (kobject_del() waits for it, and destroy removes
 * the directory before it unpublishes the store), the store is read under
 * RCU (filter.h), and the counters are per-CPU sums or kept by the core as
 * keys come and go (bits_set, count): every read costs the same whatever the
 * filter's size.
 *
 * Filters belong to network namespaces and two namespaces may use the same
 * name, so the filter directories are tagged with their namespace as
 * /sys/class/net's are (registry.c): the "filters" directory shows the filters
 * of the namespace that mounted sysfs (ip netns exec mounts its own).
 */
#include <linux/kobject.h>
#include <linux/netdevice.h>
#include <linux/nsproxy.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/stringify.h>
#include <linux/sysfs.h>

#include "filter.h"
#include "registry.h"
#include "sysfs.h"

static struct bloom_filter *to_filter(struct kobject *kobj)
{
	return container_of(kobj, struct bloom_filter, kobj);
}

static ssize_t type_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", bloom_filter_type_name(to_filter(kobj)));
}

/*
 * A file showing one u64 of the filter's store, @expr, with the store in
 * @s. The store is read under RCU (a replace may swap it at any time); a
 * show() that finds none (cannot happen while the directory exists) reads
 * as ENODEV.
 */
#define BLOOM_STORE_ATTR(field, expr)					\
static ssize_t field##_show(struct kobject *kobj,			\
			    struct kobj_attribute *attr, char *buf)	\
{									\
	struct bloom_store *s;						\
	ssize_t ret = -ENODEV;						\
									\
	rcu_read_lock();						\
	s = bloom_filter_store(to_filter(kobj));			\
	if (s)								\
		ret = sysfs_emit(buf, "%llu\n", (u64)(expr));		\
	rcu_read_unlock();						\
	return ret;							\
}									\
static struct kobj_attribute field##_attr = {				\
	.attr = { .name = __stringify(field), .mode = 0444 },		\
	.show = field##_show,						\
}

static ssize_t rules_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&to_filter(kobj)->rules));
}

/* The id BPF programs name the filter by (registry.h). */
static ssize_t id_show(struct kobject *kobj, struct kobj_attribute *attr,
		       char *buf)
{
	return sysfs_emit(buf, "%u\n", to_filter(kobj)->id);
}

static struct bloom_stats_sum bloom_sysfs_stats(const struct bloom_store *s)
{
	struct bloom_stats_sum sum;

	bloom_store_sum_stats(s, &sum);
	return sum;
}

static struct bloom_core_stats bloom_sysfs_core_stats(const struct bloom_store *s)
{
	struct bloom_core_stats cs;

	bloom_core_stats(&s->core, &cs);
	return cs;
}

/* A scalable filter's bits: its stages' together. */
BLOOM_STORE_ATTR(bits, bloom_core_bits(&s->core));
BLOOM_STORE_ATTR(hashes, s->core.geo.hashes);
BLOOM_STORE_ATTR(capacity, s->core.geo.capacity);
BLOOM_STORE_ATTR(fpp_ppb, s->core.geo.fpp_ppb);
BLOOM_STORE_ATTR(memory_bytes, bloom_filter_memory_bytes(s));
BLOOM_STORE_ATTR(bits_set, bloom_core_bits_set(&s->core));
BLOOM_STORE_ATTR(adds, bloom_sysfs_stats(s).adds);
/* Kept by the core as keys come and go: O(1), like every file here. */
BLOOM_STORE_ATTR(count, bloom_sysfs_core_stats(s).keys);
BLOOM_STORE_ATTR(queries, bloom_sysfs_stats(s).queries);
BLOOM_STORE_ATTR(hits, bloom_sysfs_stats(s).hits);
BLOOM_STORE_ATTR(deletes, bloom_sysfs_stats(s).deletes);
BLOOM_STORE_ATTR(delete_misses, bloom_sysfs_stats(s).delete_misses);
BLOOM_STORE_ATTR(delete_pinned, bloom_sysfs_stats(s).delete_pinned);
BLOOM_STORE_ATTR(packets, bloom_sysfs_stats(s).packets);
BLOOM_STORE_ATTR(packet_hits, bloom_sysfs_stats(s).packet_hits);
BLOOM_STORE_ATTR(bpf_calls, bloom_sysfs_stats(s).bpf_calls);
BLOOM_STORE_ATTR(bpf_hits, bloom_sysfs_stats(s).bpf_hits);
BLOOM_STORE_ATTR(saturated, bloom_sysfs_core_stats(s).saturated);
BLOOM_STORE_ATTR(insert_failures, bloom_sysfs_core_stats(s).insert_failures);
BLOOM_STORE_ATTR(fingerprint_bits, bloom_sysfs_core_stats(s).fingerprint_bits);
BLOOM_STORE_ATTR(subtable_cells, bloom_sysfs_core_stats(s).subtable_cells);
/* Scalable filters; the stage_* files below have one number per stage. */
BLOOM_STORE_ATTR(growth, s->scale.p.growth);
BLOOM_STORE_ATTR(tightening_ppm, s->scale.p.tightening_ppm);
BLOOM_STORE_ATTR(stages, bloom_core_is_scalable(&s->core) ?
			 bloom_scale_stages(&s->core) : 0);

/*
 * Expiring filters: milliseconds shown as seconds with three decimals
 * (the timeout, the time until the next rotation).
 */
#define BLOOM_MS_ATTR(field, expr)					\
static ssize_t field##_show(struct kobject *kobj,			\
			    struct kobj_attribute *attr, char *buf)	\
{									\
	struct bloom_store *s;						\
	ssize_t ret = -ENODEV;						\
	u64 ms;								\
									\
	rcu_read_lock();						\
	s = bloom_filter_store(to_filter(kobj));			\
	if (s) {							\
		ms = (expr);						\
		ret = sysfs_emit(buf, "%llu.%03llu\n", ms / 1000,	\
				 ms % 1000);				\
	}								\
	rcu_read_unlock();						\
	return ret;							\
}									\
static struct kobj_attribute field##_attr = __ATTR_RO(field)

BLOOM_STORE_ATTR(generations, s->clock ? s->clock->ring.p.generations : 0);
BLOOM_MS_ATTR(timeout, s->clock ? s->clock->ring.p.timeout_ms : 0);
BLOOM_MS_ATTR(next_rotation, bloom_store_next_rotation_ms(s));
BLOOM_STORE_ATTR(late_rotations, bloom_store_late_rotations(s));

/* Computed from the kept statistics: a bounded number of steps. */
static struct bloom_core_estimate bloom_sysfs_estimate(const struct bloom_store *s)
{
	struct bloom_core_estimate e;

	bloom_core_estimate(&s->core, &e);
	return e;
}

BLOOM_STORE_ATTR(estimated_keys, bloom_sysfs_estimate(s).keys);
BLOOM_STORE_ATTR(estimated_fpp_ppb, bloom_sysfs_estimate(s).fpp_ppb);

/* An array of one type, one number per subtable, as sysfs allows. */
static ssize_t subtable_used_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	struct bloom_core_stats cs;
	struct bloom_store *s;
	ssize_t len = 0;
	u32 i;

	rcu_read_lock();
	s = bloom_filter_store(to_filter(kobj));
	if (s)
		bloom_core_stats(&s->core, &cs);
	rcu_read_unlock();
	if (!s)
		return -ENODEV;
	for (i = 0; i < cs.subtables && i < ARRAY_SIZE(cs.subtable_used); i++)
		len += sysfs_emit_at(buf, len, "%s%llu", i ? " " : "",
				     cs.subtable_used[i]);
	return len + sysfs_emit_at(buf, len, "\n");
}

static struct kobj_attribute subtable_used_attr = __ATTR_RO(subtable_used);

/* A stage's estimated rate: the core's, as for a filter of its type. */
static u64 bloom_stage_est_fpp_ppb(const struct bloom_scale_stage *st)
{
	struct bloom_core_estimate e;

	bloom_core_estimate(&st->core, &e);
	return e.fpp_ppb;
}

/*
 * A file with one number per stage of a scalable filter, oldest first, as
 * subtable_used has one per subtable: @expr of the stage @st, read under
 * RCU from the store published now (its stages never move while it is).
 */
#define BLOOM_STAGE_ATTR(field, expr)					\
static ssize_t stage_##field##_show(struct kobject *kobj,		\
				    struct kobj_attribute *attr,	\
				    char *buf)				\
{									\
	const struct bloom_scale_stage *st;				\
	struct bloom_store *s;						\
	ssize_t len = 0;						\
	u32 i, n;							\
									\
	rcu_read_lock();						\
	s = bloom_filter_store(to_filter(kobj));			\
	if (!s) {							\
		rcu_read_unlock();					\
		return -ENODEV;						\
	}								\
	n = bloom_core_is_scalable(&s->core) ?				\
	    bloom_scale_stages(&s->core) : 0;				\
	for (i = 0; i < n; i++) {					\
		st = bloom_scale_stage(&s->core, i);			\
		len += sysfs_emit_at(buf, len, "%s%llu", i ? " " : "",	\
				     (u64)(expr));			\
	}								\
	rcu_read_unlock();						\
	return len + sysfs_emit_at(buf, len, "\n");			\
}									\
static struct kobj_attribute stage_##field##_attr =			\
	__ATTR_RO(stage_##field)

BLOOM_STAGE_ATTR(capacity, st->core.geo.capacity);
BLOOM_STAGE_ATTR(fpp_ppb, st->core.geo.fpp_ppb);
BLOOM_STAGE_ATTR(bits, st->core.geo.bits);
BLOOM_STAGE_ATTR(hashes, st->core.geo.hashes);
BLOOM_STAGE_ATTR(count, READ_ONCE(st->count));
BLOOM_STAGE_ATTR(bits_set, bloom_core_bits_set(&st->core));
BLOOM_STAGE_ATTR(estimated_fpp_ppb, bloom_stage_est_fpp_ppb(st));

/* The key kind, as enum bloom_key_kind's names. */
static ssize_t keys_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	static const char *const names[] = BLOOM_KEYS_NAMES;
	struct bloom_store *s;
	u32 kind = 0;

	rcu_read_lock();
	s = bloom_filter_store(to_filter(kobj));
	if (s)
		kind = READ_ONCE(s->nb.kind);
	rcu_read_unlock();
	if (!s)
		return -ENODEV;
	return sysfs_emit(buf, "%s\n", kind < ARRAY_SIZE(names) ?
			  names[kind] : "unknown");
}

/*
 * The prefix lengths held, one line each, "ipv4/24 1200": the family, the
 * length and the keys of that length (the full length: the addresses).
 */
static ssize_t prefixes_show(struct kobject *kobj,
			     struct kobj_attribute *attr, char *buf)
{
	struct bloom_store *s;
	ssize_t len = 0;
	u32 fam, l;
	u64 c;

	rcu_read_lock();
	s = bloom_filter_store(to_filter(kobj));
	for (fam = 0; s && fam < 2; fam++)
		for (l = 0; l <= bloom_nb_full(fam); l++) {
			c = bloom_nb_count(&s->nb, fam, l);
			if (c)
				len += sysfs_emit_at(buf, len, "%s/%u %llu\n",
						     fam ? "ipv6" : "ipv4", l,
						     c);
		}
	rcu_read_unlock();
	return s ? len : -ENODEV;
}

/* The rate an address meets: one test per length present (netblock.h). */
static u32 bloom_sysfs_address_fpp(const struct bloom_store *s)
{
	struct bloom_core_estimate e;
	u32 kind = READ_ONCE(s->nb.kind);
	u32 l4 = bloom_nb_lookups(&s->nb, BLOOM_NB_IPV4);
	u32 l6 = bloom_nb_lookups(&s->nb, BLOOM_NB_IPV6);

	bloom_core_estimate(&s->core, &e);
	return bloom_nb_rate(e.fpp_ppb, kind == BLOOM_KEYS_IPV4 ? l4 :
				       kind == BLOOM_KEYS_IPV6 ? l6 :
				       max(l4, l6));
}

BLOOM_STORE_ATTR(address_fpp_ppb, bloom_sysfs_address_fpp(s));

static struct kobj_attribute type_attr = __ATTR_RO(type);
static struct kobj_attribute rules_attr = __ATTR_RO(rules);
static struct kobj_attribute id_attr = __ATTR_RO(id);
static struct kobj_attribute keys_attr = __ATTR_RO(keys);
static struct kobj_attribute prefixes_attr = __ATTR_RO(prefixes);

static struct attribute *bloom_filter_attrs[] = {
	&type_attr.attr,
	&bits_attr.attr,
	&hashes_attr.attr,
	&capacity_attr.attr,
	&fpp_ppb_attr.attr,
	&memory_bytes_attr.attr,
	&bits_set_attr.attr,
	&adds_attr.attr,
	&count_attr.attr,
	&estimated_keys_attr.attr,
	&estimated_fpp_ppb_attr.attr,
	&queries_attr.attr,
	&hits_attr.attr,
	&rules_attr.attr,
	&packets_attr.attr,
	&packet_hits_attr.attr,
	&id_attr.attr,
	&bpf_calls_attr.attr,
	&bpf_hits_attr.attr,
	&keys_attr.attr,
	&prefixes_attr.attr,
	&address_fpp_ppb_attr.attr,
	NULL,
};

static const struct attribute_group bloom_filter_group = {
	.attrs = bloom_filter_attrs,
};

/* Files that only the deletable types have. */
static struct attribute *bloom_delete_attrs[] = {
	&deletes_attr.attr,
	&delete_misses_attr.attr,
	&delete_pinned_attr.attr,
	&saturated_attr.attr,
	NULL,
};

static umode_t bloom_delete_visible(struct kobject *kobj,
				    struct attribute *attr, int n)
{
	u32 type = to_filter(kobj)->type;

	return type == BLOOM_TYPE_COUNTING || type == BLOOM_TYPE_DLEFT ||
	       type == BLOOM_TYPE_TIMED ? attr->mode : 0;
}

static const struct attribute_group bloom_delete_group = {
	.attrs = bloom_delete_attrs,
	.is_visible = bloom_delete_visible,
};

/* Files that only the d-left filter has. */
static struct attribute *bloom_dleft_attrs[] = {
	&insert_failures_attr.attr,
	&fingerprint_bits_attr.attr,
	&subtable_cells_attr.attr,
	&subtable_used_attr.attr,
	NULL,
};

static umode_t bloom_dleft_visible(struct kobject *kobj,
				   struct attribute *attr, int n)
{
	u32 type = to_filter(kobj)->type;

	return type == BLOOM_TYPE_DLEFT || type == BLOOM_TYPE_TIMED ?
	       attr->mode : 0;
}

static const struct attribute_group bloom_dleft_group = {
	.attrs = bloom_dleft_attrs,
	.is_visible = bloom_dleft_visible,
};

/* Files that only the timed filter has: its keys' timeouts. */
BLOOM_STORE_ATTR(key_timeout_s, s->core.key_timeout_s);
BLOOM_STORE_ATTR(key_timeout_max_s, s->core.key_timeout_max_s);
BLOOM_STORE_ATTR(expired, READ_ONCE(s->core.reclaimed));

static struct attribute *bloom_timed_attrs[] = {
	&key_timeout_s_attr.attr,
	&key_timeout_max_s_attr.attr,
	&expired_attr.attr,
	NULL,
};

static umode_t bloom_timed_visible(struct kobject *kobj,
				   struct attribute *attr, int n)
{
	return to_filter(kobj)->type == BLOOM_TYPE_TIMED ? attr->mode : 0;
}

static const struct attribute_group bloom_timed_group = {
	.attrs = bloom_timed_attrs,
	.is_visible = bloom_timed_visible,
};

/* Files that only scalable filters have. */
static struct attribute *bloom_scale_attrs[] = {
	&growth_attr.attr,
	&tightening_ppm_attr.attr,
	&stages_attr.attr,
	&stage_capacity_attr.attr,
	&stage_fpp_ppb_attr.attr,
	&stage_bits_attr.attr,
	&stage_hashes_attr.attr,
	&stage_count_attr.attr,
	&stage_bits_set_attr.attr,
	&stage_estimated_fpp_ppb_attr.attr,
	NULL,
};

static umode_t bloom_scale_visible(struct kobject *kobj,
				   struct attribute *attr, int n)
{
	return to_filter(kobj)->scalable ? attr->mode : 0;
}

static const struct attribute_group bloom_scale_group = {
	.attrs = bloom_scale_attrs,
	.is_visible = bloom_scale_visible,
};

/* Files that only expiring filters have. */
static struct attribute *bloom_expire_attrs[] = {
	&generations_attr.attr,
	&timeout_attr.attr,
	&next_rotation_attr.attr,
	&late_rotations_attr.attr,
	NULL,
};

static umode_t bloom_expire_visible(struct kobject *kobj,
				    struct attribute *attr, int n)
{
	return to_filter(kobj)->expiring ? attr->mode : 0;
}

static const struct attribute_group bloom_expire_group = {
	.attrs = bloom_expire_attrs,
	.is_visible = bloom_expire_visible,
};

/* The files of a filter's directory (the registry adds them). */
const struct attribute_group *bloom_filter_groups[] = {
	&bloom_filter_group,
	&bloom_delete_group,
	&bloom_dleft_group,
	&bloom_timed_group,
	&bloom_scale_group,
	&bloom_expire_group,
	NULL,
};

/* The memory files show the reader's namespace's figures: account.h */
#define BLOOM_ACCOUNT_ATTR(file, shown)					\
static ssize_t file##_show(struct device *dev,				\
			   struct device_attribute *attr, char *buf)	\
{									\
	return sysfs_emit(buf, "%llu\n", shown(bloom_registry_account(	\
				current->nsproxy->net_ns)));		\
}									\
static DEVICE_ATTR_RO(file)

BLOOM_ACCOUNT_ATTR(memory_used, bloom_account_shown_used);
BLOOM_ACCOUNT_ATTR(memory_limit, bloom_account_shown_limit);
BLOOM_ACCOUNT_ATTR(memory_guaranteed, bloom_account_shown_guaranteed);

static struct attribute *bloom_dev_attrs[] = {
	&dev_attr_memory_used.attr,
	&dev_attr_memory_limit.attr,
	&dev_attr_memory_guaranteed.attr,
	NULL,
};

static const struct attribute_group bloom_dev_group = {
	.attrs = bloom_dev_attrs,
};

const struct attribute_group *bloom_dev_groups[] = {
	&bloom_dev_group,
	NULL,
};

