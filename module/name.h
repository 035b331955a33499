/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BLOOM_NAME_H
#define BLOOM_NAME_H

#include <linux/types.h>
#include <linux/bloom.h>

bool bloom_name_valid(const char name[BLOOM_NAME_LEN]);
bool bloom_name_empty(const char name[BLOOM_NAME_LEN]);

#endif /* BLOOM_NAME_H */
