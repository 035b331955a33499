// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Numbers with unit suffixes (units.h): one parser for module and tools. */
#include "units.h"

int bloom_parse_units(const char *s, size_t len, u64 *out)
{
	static const char suffixes[] = "kMGT";
	u64 v = 0, mul = 1, base = 1000;
	size_t i = 0;
	int power = 0, j;

	if (len && s[len - 1] == '\n')
		len--;
	if (!len || s[0] < '0' || s[0] > '9')
		return -EINVAL;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > (~0ULL - (u64)(s[i] - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (u64)(s[i] - '0');
	}
	if (i < len) {
		char c = s[i] == 'K' ? 'k' : s[i];

		for (j = 0; suffixes[j]; j++)
			if (c == suffixes[j])
				power = j + 1;
		if (!power)
			return -EINVAL;
		i++;
		if (i < len && s[i] == 'i') {
			base = 1024;
			i++;
		}
		if (i != len)
			return -EINVAL;
	}
	while (power--) {
		if (mul > ~0ULL / base)
			return -ERANGE;
		mul *= base;
	}
	if (v && mul > ~0ULL / v)
		return -ERANGE;
	*out = v * mul;
	return 0;
}
