/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Numbers with a unit suffix, parsed the same way everywhere: the module
 * parameter max_memory, bloomctl's --capacity and its sizes in bytes.
 */
#ifndef BLOOM_CORE_UNITS_H
#define BLOOM_CORE_UNITS_H

#include "shim.h"

/*
 * bloom_parse_units() - "1000", "10k", "2M", "1G", "1T" (powers of 1000:
 * k or K, M, G, T) or "64Ki", "512Mi", "1Gi", "1Ti" (powers of 1024), the
 * digits decimal, nothing before or after. "1M" is 1000000 whatever it
 * counts; "1Mi" is 1048576.
 * @s: the text; @len: its length (a trailing "\n", as sysfs writes bring,
 * is ignored)
 * @out: the value
 *
 * Return: 0, -EINVAL for text that is not such a number, -ERANGE when the
 * value does not fit in 64 bits.
 */
int bloom_parse_units(const char *s, size_t len, u64 *out);

#endif /* BLOOM_CORE_UNITS_H */
