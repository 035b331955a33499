/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * xt_bloom: the iptables/ip6tables match "bloom" (xt_bloom.ko,
 * libxt_bloom.so): does a packet's address appear in a bloom filter?
 *
 *   iptables -A INPUT -m bloom --bloom-set badips --bloom-dir src -j DROP
 *
 * The key looked up is built from the packet's fields listed in @key, in
 * that order, each in network byte order: revision 0 knows one field, the
 * source or the destination address (4 bytes for IPv4, 16 for IPv6), which
 * is exactly what "bloomctl add --ipv4/--ipv6" stores. Later releases may
 * accept more fields and combinations (ports, address + port) in the same
 * struct, so rules saved today keep their meaning; the kernel refuses
 * (EINVAL) fields, combinations and flags it does not know, and every
 * reserved byte must be zero.
 *
 * The filter is looked up by @name in the rule's network namespace once, when
 * the rule is inserted (ENOENT if there is none); the rule then holds it, and
 * destroying it fails with EBUSY until the rule is gone.
 */
#ifndef _UAPI_XT_BLOOM_H
#define _UAPI_XT_BLOOM_H

#include <linux/types.h>

#define XT_BLOOM_NAME_LEN	32	/* BLOOM_NAME_LEN of <linux/bloom.h> */
#define XT_BLOOM_KEY_FIELDS	8

/* The fields of a key; XT_BLOOM_FIELD_NONE ends the list. */
enum xt_bloom_field {
	XT_BLOOM_FIELD_NONE = 0,
	XT_BLOOM_FIELD_SRC_ADDR = 1,
	XT_BLOOM_FIELD_DST_ADDR = 2
};

/* Match when the key is NOT in the filter ("! --bloom-set"). */
#define XT_BLOOM_F_INVERT	(1U << 0)
#define XT_BLOOM_F_ALL		XT_BLOOM_F_INVERT

/**
 * struct xt_bloom_mtinfo - the match's data in a rule (revision 0)
 * @name: the filter's name, NUL-terminated, zero-padded
 * @flags: XT_BLOOM_F_*
 * @reserved: must be 0
 * @key: enum xt_bloom_field values, the key's fields in order, the rest 0
 * @reserved2: must be 0
 * @filter: kernel only (never copied to userspace)
 */
struct xt_bloom_mtinfo {
	char name[XT_BLOOM_NAME_LEN];
	__u32 flags;
	__u32 reserved;
	__u8 key[XT_BLOOM_KEY_FIELDS];
	__u64 reserved2[2];

	/* Used internally by the kernel. */
	struct bloom_filter *filter __attribute__((aligned(8)));
};

#endif /* _UAPI_XT_BLOOM_H */
