// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs attributes of the device and of each filter: the files only, each
 * one figure of what INFO and STAGES report (filter.h). The filters/
 * directory and each filter's directory come and go with the filter's name
 * (sysfs_dir.c); which files a directory has follows the filter's type and
 * features (store.h).
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
 * /sys/class/net's are (sysfs_dir.c): the "filters" directory shows the
 * filters of the namespace that mounted sysfs (ip netns exec mounts its own).
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
 * A file showing one figure of INFO's reply for the filter now
 * (bloom_filter_info(): the store published now, read under RCU), @expr of
 * @info. A show() that finds no store (cannot happen while the directory
 * exists) reads as ENODEV.
 */
#define BLOOM_INFO_ATTR(field, fmt, ...)				\
static ssize_t field##_show(struct kobject *kobj,			\
			    struct kobj_attribute *attr, char *buf)	\
{									\
	struct bloom_info info;						\
									\
	if (bloom_filter_info(to_filter(kobj), &info))			\
		return -ENODEV;						\
	return sysfs_emit(buf, fmt "\n", __VA_ARGS__);			\
}									\
static struct kobj_attribute field##_attr = __ATTR_RO(field)

/* One u64 figure of INFO's reply. */
#define BLOOM_U64_ATTR(field, expr)					\
	BLOOM_INFO_ATTR(field, "%llu", (u64)(expr))

/* Milliseconds of INFO's reply (@member) shown as seconds. */
#define BLOOM_MS_ATTR(field, member)					\
static ssize_t field##_show(struct kobject *kobj,			\
			    struct kobj_attribute *attr, char *buf)	\
{									\
	struct bloom_info info;						\
	u64 ms;								\
									\
	if (bloom_filter_info(to_filter(kobj), &info))			\
		return -ENODEV;						\
	ms = info.member;						\
	return sysfs_emit(buf, "%llu.%03llu\n", ms / 1000, ms % 1000);	\
}									\
static struct kobj_attribute field##_attr = __ATTR_RO(field)

BLOOM_U64_ATTR(bits, info.bits);	/* a scalable filter's: its stages' */
BLOOM_U64_ATTR(hashes, info.hashes);
BLOOM_U64_ATTR(capacity, info.capacity);
BLOOM_U64_ATTR(fpp_ppb, info.fpp_ppb);
BLOOM_U64_ATTR(memory_bytes, info.memory_bytes);
BLOOM_U64_ATTR(bits_set, info.bits_set);
BLOOM_U64_ATTR(adds, info.adds);
/* Kept by the core as keys come and go: O(1), like every file here. */
BLOOM_U64_ATTR(count, info.count);
BLOOM_U64_ATTR(queries, info.queries);
BLOOM_U64_ATTR(hits, info.hits);
BLOOM_U64_ATTR(deletes, info.deletes);
BLOOM_U64_ATTR(delete_misses, info.delete_misses);
BLOOM_U64_ATTR(delete_pinned, info.delete_pinned);
BLOOM_U64_ATTR(packets, info.packets);
BLOOM_U64_ATTR(packet_hits, info.packet_hits);
BLOOM_U64_ATTR(bpf_calls, info.bpf_calls);
BLOOM_U64_ATTR(bpf_hits, info.bpf_hits);
BLOOM_U64_ATTR(saturated, info.saturated);
BLOOM_U64_ATTR(insert_failures, info.insert_failures);
BLOOM_U64_ATTR(fingerprint_bits, info.fingerprint_bits);
BLOOM_U64_ATTR(subtable_cells, info.subtable_cells);
BLOOM_U64_ATTR(estimated_keys, info.estimated_keys);
BLOOM_U64_ATTR(estimated_fpp_ppb, info.estimated_fpp_ppb);
/* The rate an address meets: one test per length present (netblock.h). */
BLOOM_U64_ATTR(address_fpp_ppb, info.address_fpp_ppb);
BLOOM_U64_ATTR(rules, info.rules);
/* The id BPF programs name the filter by (registry.h). */
BLOOM_U64_ATTR(id, info.id);
/* Scalable filters; the stage_* files below have one number per stage. */
BLOOM_U64_ATTR(growth, info.growth);
BLOOM_U64_ATTR(tightening_ppm, info.tightening_ppm);
BLOOM_U64_ATTR(stages, info.stages);
/* Expiring filters: the timeout, the time until the next rotation. */
BLOOM_U64_ATTR(generations, info.generations);
BLOOM_MS_ATTR(timeout, timeout_ms);
BLOOM_MS_ATTR(next_rotation, next_rotation_ms);
BLOOM_U64_ATTR(late_rotations, info.late_rotations);
/* Timed filters: their keys' timeouts. */
BLOOM_U64_ATTR(key_timeout_s, info.key_timeout_s);
BLOOM_U64_ATTR(key_timeout_max_s, info.key_timeout_max_s);
BLOOM_U64_ATTR(expired, info.expired);

/* The keyed hash, as enum bloom_hash's names. */
static const char *const bloom_hash_names[] = BLOOM_HASH_NAMES;

BLOOM_INFO_ATTR(hash, "%s", bloom_hash_names[info.hash <
					      ARRAY_SIZE(bloom_hash_names) ?
					      info.hash : 0]);

/* The key kind, as enum bloom_key_kind's names. */
static const char *const bloom_keys_names[] = BLOOM_KEYS_NAMES;

BLOOM_INFO_ATTR(keys, "%s", info.keys < ARRAY_SIZE(bloom_keys_names) ?
		bloom_keys_names[info.keys] : "unknown");

/* An array of one type, one number per subtable, as sysfs allows. */
static ssize_t subtable_used_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	struct bloom_info info;
	ssize_t len = 0;
	u32 i;

	if (bloom_filter_info(to_filter(kobj), &info))
		return -ENODEV;
	for (i = 0; i < info.subtables && i < ARRAY_SIZE(info.subtable_used);
	     i++)
		len += sysfs_emit_at(buf, len, "%s%llu", i ? " " : "",
				     info.subtable_used[i]);
	return len + sysfs_emit_at(buf, len, "\n");
}

static struct kobj_attribute subtable_used_attr = __ATTR_RO(subtable_used);

/*
 * A file with one number per stage of a scalable filter, oldest first, as
 * subtable_used has one per subtable: @field of each STAGES entry, read
 * under RCU from the store published now (its stages never move while it
 * is).
 */
#define BLOOM_STAGE_ATTR(field)						\
static ssize_t stage_##field##_show(struct kobject *kobj,		\
				    struct kobj_attribute *attr,	\
				    char *buf)				\
{									\
	struct bloom_stage *st;						\
	ssize_t len = 0;						\
	int i, n;							\
									\
	st = kcalloc(BLOOM_SCALE_STAGES_MAX, sizeof(*st), GFP_KERNEL);	\
	if (!st)							\
		return -ENOMEM;						\
	n = bloom_filter_stages(to_filter(kobj), st);			\
	for (i = 0; i < n; i++)						\
		len += sysfs_emit_at(buf, len, "%s%llu", i ? " " : "",	\
				     (u64)st[i].field);			\
	kfree(st);							\
	if (n == -ESTALE)						\
		return -ENODEV;						\
	return len + sysfs_emit_at(buf, len, "\n");			\
}									\
static struct kobj_attribute stage_##field##_attr =			\
	__ATTR_RO(stage_##field)

BLOOM_STAGE_ATTR(capacity);
BLOOM_STAGE_ATTR(fpp_ppb);
BLOOM_STAGE_ATTR(bits);
BLOOM_STAGE_ATTR(hashes);
BLOOM_STAGE_ATTR(count);
BLOOM_STAGE_ATTR(bits_set);
BLOOM_STAGE_ATTR(estimated_fpp_ppb);

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
		for (l = 0; l <= (fam ? 128 : 32); l++) {
			c = bloom_store_netblocks(s, fam, l);
			if (c)
				len += sysfs_emit_at(buf, len, "%s/%u %llu\n",
						     fam ? "ipv6" : "ipv4", l,
						     c);
		}
	rcu_read_unlock();
	return s ? len : -ENODEV;
}

static struct kobj_attribute type_attr = __ATTR_RO(type);
static struct kobj_attribute prefixes_attr = __ATTR_RO(prefixes);

static struct attribute *bloom_filter_attrs[] = {
	&type_attr.attr,
	&bits_attr.attr,
	&hashes_attr.attr,
	&hash_attr.attr,
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

/* A group's files are there when the filter has its feature (store.h). */
static umode_t bloom_feature_visible(struct kobject *kobj,
				     struct attribute *attr, u32 feature)
{
	return to_filter(kobj)->features & feature ? attr->mode : 0;
}

static umode_t bloom_delete_visible(struct kobject *kobj,
				    struct attribute *attr, int n)
{
	return bloom_feature_visible(kobj, attr, BLOOM_STORE_F_DELETES);
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
	return bloom_feature_visible(kobj, attr, BLOOM_STORE_F_CELLS);
}

static const struct attribute_group bloom_dleft_group = {
	.attrs = bloom_dleft_attrs,
	.is_visible = bloom_dleft_visible,
};

/* Files that only the timed filter has: its keys' timeouts. */
static struct attribute *bloom_timeouts_attrs[] = {
	&key_timeout_s_attr.attr,
	&key_timeout_max_s_attr.attr,
	&expired_attr.attr,
	NULL,
};

static umode_t bloom_timeouts_visible(struct kobject *kobj,
				      struct attribute *attr, int n)
{
	return bloom_feature_visible(kobj, attr, BLOOM_STORE_F_TIMEOUTS);
}

static const struct attribute_group bloom_timeouts_group = {
	.attrs = bloom_timeouts_attrs,
	.is_visible = bloom_timeouts_visible,
};

/* Files that only scalable filters have. */
static struct attribute *bloom_stages_attrs[] = {
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

static umode_t bloom_stages_visible(struct kobject *kobj,
				    struct attribute *attr, int n)
{
	return bloom_feature_visible(kobj, attr, BLOOM_STORE_F_STAGES);
}

static const struct attribute_group bloom_stages_group = {
	.attrs = bloom_stages_attrs,
	.is_visible = bloom_stages_visible,
};

/* Files that only expiring filters have. */
static struct attribute *bloom_rotation_attrs[] = {
	&generations_attr.attr,
	&timeout_attr.attr,
	&next_rotation_attr.attr,
	&late_rotations_attr.attr,
	NULL,
};

static umode_t bloom_rotation_visible(struct kobject *kobj,
				      struct attribute *attr, int n)
{
	return bloom_feature_visible(kobj, attr, BLOOM_STORE_F_ROTATES);
}

static const struct attribute_group bloom_rotation_group = {
	.attrs = bloom_rotation_attrs,
	.is_visible = bloom_rotation_visible,
};

/* The files of a filter's directory (the registry adds them). */
const struct attribute_group *bloom_filter_groups[] = {
	&bloom_filter_group,
	&bloom_delete_group,
	&bloom_dleft_group,
	&bloom_timeouts_group,
	&bloom_stages_group,
	&bloom_rotation_group,
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

