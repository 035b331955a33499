/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The filters' sysfs directories (sysfs_dir.c): filters/ inside the
 * device's directory, and one directory per registered filter in it, with
 * the files of sysfs.c.
 */
#ifndef BLOOM_SYSFS_DIR_H
#define BLOOM_SYSFS_DIR_H

struct bloom_filter;
struct device;

/*
 * The filters/ directory inside the device's (@dev): made once the device
 * is registered, or by the first create or restore if that failed
 * (-ENOMEM).
 */
int bloom_sysfs_dir_ready(struct device *dev);
/*
 * @f's directory, named after it, with its files; under its namespace's
 * registry lock, after bloom_sysfs_dir_ready() succeeded. 0 or an errno.
 */
int bloom_sysfs_dir_add(struct bloom_filter *f);
/* Removes it, waiting for a show() still running. */
void bloom_sysfs_dir_del(struct bloom_filter *f);
/* Module exit, every filter's directory gone: filters/ goes too. */
void bloom_sysfs_dir_exit(void);

#endif /* BLOOM_SYSFS_DIR_H */
