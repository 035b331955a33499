// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * Netblock keys: an address, or a shorter prefix as its masked address
 * and one length byte ("Netblocks" in
 * Documentation/userspace-api.rst).
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static int host_bits(const uint8_t *a, unsigned int alen, unsigned int plen)
{
	unsigned int i;

	for (i = plen / 8; i < alen; i++)
		if (a[i] & ~(i == plen / 8 ? (uint8_t)(0xff00 >> (plen % 8)) : 0))
			return 1;
	return 0;
}

int bloom_netblock_key(int family, const void *addr, unsigned int plen,
		       void *key)
{
	unsigned int alen = family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0;
	uint8_t *k = key;
	unsigned int i;

	if (!alen || plen > alen * 8 || !addr || !key)
		return -EINVAL;
	memcpy(k, addr, alen);
	if (plen == alen * 8)
		return (int)alen;
	for (i = plen / 8; i < alen; i++)
		k[i] &= i == plen / 8 ? (uint8_t)(0xff00 >> (plen % 8)) : 0;
	k[alen] = (uint8_t)plen;
	return (int)alen + 1;
}

int bloom_netblock_parse(const char *text, int family, unsigned int flags,
			 void *key)
{
	char buf[INET6_ADDRSTRLEN + 8];
	const char *slash;
	uint8_t addr[16];
	unsigned long plen;
	unsigned int alen;
	char *end;

	if (!text || !key || flags & ~BLOOM_NETBLOCK_F_MASK)
		return -EINVAL;
	if (family == AF_UNSPEC)
		family = strchr(text, ':') ? AF_INET6 : AF_INET;
	if (family != AF_INET && family != AF_INET6)
		return -EINVAL;
	alen = family == AF_INET ? 4 : 16;
	slash = strchr(text, '/');
	if ((size_t)(slash ? slash - text : (ptrdiff_t)strlen(text)) >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, text, slash ? (size_t)(slash - text) : strlen(text) + 1);
	if (slash)
		buf[slash - text] = '\0';
	if (inet_pton(family, buf, addr) != 1)
		return -EINVAL;
	plen = alen * 8;
	if (slash) {
		if (slash[1] < '0' || slash[1] > '9' || strlen(slash + 1) > 3)
			return -EINVAL;
		plen = strtoul(slash + 1, &end, 10);
		if (*end || plen > alen * 8)
			return -EINVAL;
	}
	if (!(flags & BLOOM_NETBLOCK_F_MASK) && host_bits(addr, alen, plen))
		return -EDOM;
	return bloom_netblock_key(family, addr, (unsigned int)plen, key);
}

int bloom_add_netblock(int fd, const char *text)
{
	uint8_t key[BLOOM_NETBLOCK_KEY_MAX];
	struct bloom_batch b;
	int len, err;

	len = bloom_netblock_parse(text, AF_UNSPEC, 0, key);
	if (len < 0)
		return len;
	err = lb_overfill_check(fd, 1);
	if (err)
		return err;
	memset(&b, 0, sizeof(b));
	b.flags = BLOOM_BATCH_F_NET;
	b.nkeys = 1;
	b.key_size = (uint32_t)len;
	b.keys = (uintptr_t)key;
	b.keys_len = (uint32_t)len;
	err = lb_batch_ioctl(fd, BLOOM_IOC_ADD, &b);
	return err ? err : b.out_hits != 0;
}
