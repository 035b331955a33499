/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sysfs: /sys/class/misc/bloom/memory_used and a
 * directory per filter, /sys/class/misc/bloom/filters/<name>/, one value per
 * file (Documentation/ABI/testing/sysfs-class-misc-bloom).
 */
#ifndef BLOOM_SYSFS_H
#define BLOOM_SYSFS_H

#include <linux/device.h>

struct bloom_filter;

extern const struct attribute_group *bloom_dev_groups[];

int bloom_sysfs_ready(struct device *dev);
void bloom_sysfs_exit(void);
int bloom_sysfs_add_filter(struct bloom_filter *f);
void bloom_sysfs_del_filter(struct bloom_filter *f);

#endif /* BLOOM_SYSFS_H */
