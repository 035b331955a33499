/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sysfs: /sys/class/misc/bloom/memory_used and a
 * directory per filter, /sys/class/misc/bloom/filters/<name>/, one value per
 * file (Documentation/ABI/testing/sysfs-class-misc-bloom).
 */
#ifndef BLOOM_SYSFS_H
#define BLOOM_SYSFS_H

#include <linux/device.h>

/* The device's files (memory_used). */
extern const struct attribute_group *bloom_dev_groups[];
/*
 * The files of a filter's directory, which the registry adds (registry.c);
 * they read filters through filter.h only.
 */
extern const struct attribute_group *bloom_filter_groups[];

#endif /* BLOOM_SYSFS_H */
