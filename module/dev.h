/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BLOOM_DEV_H
#define BLOOM_DEV_H

int bloom_dev_init(void);
void bloom_dev_exit(void);

#endif /* BLOOM_DEV_H */
