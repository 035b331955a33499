/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * bloom: Bloom filters in kernel memory, behind the misc device /dev/bloom.
 *
 * This header is the ioctl ABI: the calling convention, the limits, each
 * struct with the numbers of the ioctls that take it, and the errors. What
 * the commands mean, and the rules that span several of them, are
 * Documentation/userspace-api.rst in bloom's source tree; a section named
 * here ("see Sizing") is one of that page's.
 *
 * Calling convention
 * ------------------
 * Every command is _IO(BLOOM_IOC_MAGIC, nr) and takes a pointer to a struct
 * whose first member is "__u32 size", set by the caller to the size of the
 * struct it was compiled with, and whose second member is "__u32 flags".
 * A size smaller than the struct's first version (ABI version 1, this
 * header's) is EINVAL; a size over 4096 bytes is E2BIG, unread. A larger size
 * is accepted if every byte the kernel does not know is zero (else E2BIG), so
 * binaries built against a newer header work on an older module as long as
 * they do not use what it lacks, and old binaries keep working on new modules.
 * Every flag bit not defined here, and every field named "reserved", must be
 * zero (else EINVAL). Output structs are zeroed before they are filled.
 * A successful command returns 0.
 *
 * Errors (errno after ioctl() returns -1)
 * ---------------------------------------
 *   ENOTTY     unknown command
 *   EINVAL     size smaller than the struct's first version; a flag or
 *              reserved field that is not zero; a malformed name; a key of
 *              length 0 or over BLOOM_KEY_MAX; lengths that do not add up to
 *              keys_len; a capacity or rate outside its range; a geometry that
 *              does not fit the type; BLOOM_BATCH_F_PINNED without a
 *              pinned bitmap, a pinned bitmap without it, or either on ADD
 *              or QUERY; with BLOOM_BATCH_F_NET, a key that is not an
 *              address or netblock (host bits set, a length of 0 or
 *              over the family's) or keys of both families; CREATE's @keys over
 *              BLOOM_KEYS_IPV6; a timeout or generations out of range
 *              or with a type that cannot expire (see Expiring filters);
 *              a key's timeout over its filter's largest, or key timeouts
 *              at CREATE of another type than timed
 *   E2BIG      size larger than the kernel's struct with non-zero bytes past
 *              it, or over 4096 bytes; a batch over BLOOM_BATCH_MAX_KEYS keys or
 *              BLOOM_BATCH_MAX_BYTES bytes; a filter over BLOOM_BITS_MAX bits
 *   EFAULT     a pointer the kernel cannot read or write
 *   EOPNOTSUPP a filter type this module does not implement; an operation the
 *              filter's type cannot do (DELETE on a standard or blocked
 *              filter, explicit geometry for a d-left or timed filter,
 *              BLOOM_BATCH_F_TIMEOUT on a filter that is not timed)
 *   ENOSPC     a d-left insert found every candidate bucket full (create a
 *              larger filter), or a scalable filter cannot get another
 *              stage (see Scalable filters); either way the keys before
 *              out_done were added and stay (see Deleting)
 *   EPROTOTYPE a key, batch or rule of another kind than the filter's
 *              (see Key kinds)
 *   ERANGE     CREATE with BLOOM_CREATE_F_SIZE: the numbers given cannot
 *              make a filter (a rate over 0.5, not even one key)
 *   EEXIST     a filter of that name exists already
 *   ENOENT     no filter of that name
 *   EBADF      CREATE, DESTROY, ADD, DELETE, RESTORE, MERGE, SWAP or FLUSH
 *              through a descriptor that was not opened for writing
 *   EBADFD     ADD, QUERY, DELETE or INFO of the bound filter (no name) on a
 *              descriptor that is not bound
 *   EBUSY      BIND, or CREATE with BLOOM_CREATE_F_BIND, on a descriptor
 *              that is bound already; DESTROY of a filter that firewall
 *              rules use (delete the rules first): DESTROY waits up to 2 s
 *              for rules to let go of the filter before it fails (the nft
 *              backend of iptables frees a deleted rule a moment after
 *              iptables returns)
 *   ESTALE     ADD, QUERY, DELETE or INFO of the bound filter after that
 *              filter was destroyed (also when the destroy happens during
 *              the call)
 *   EPERM      CREATE, DESTROY, ADD, DELETE, SAVE, RESTORE, MERGE, SWAP or
 *              FLUSH without CAP_NET_ADMIN
 *   EDQUOT     the filter, or a scalable filter's next stage (ADD, and
 *              FLUSH and MERGE of scalable filters), or SAVE's copy of a
 *              filter, would take the module's memory over its
 *              limit (module parameter max_memory) or the namespace's
 *              (max_memory_per_netns, see Network namespaces)
 *   EMFILE     CREATE or RESTORE in a network namespace other than the
 *              initial one that holds max_filters_per_netns filters
 *   ENOMEM     the kernel could not allocate the memory (or the caller's
 *              memory cgroup is at its limit), also for a scalable
 *              filter's next stage
 *   EINTR      interrupted by a fatal signal while waiting for a lock (or
 *              while a batch is hashed again after its filter's contents
 *              were replaced with another hash key; RESTORE: or while
 *              reading a large snapshot)
 *   EAGAIN     ADD, QUERY or DELETE whose filter's hash key changed (a
 *              swap, a replacing restore, a flush) more than 8 times during
 *              the call: nothing was added or deleted; try again
 *   EDOM       ADD of a netblock of a length the filter's prefix lengths
 *              (BLOOM_CREATE_F_PREFIXES) do not hold: store it as the
 *              netblocks of the next length they hold (see Prefix
 *              expansion; libbloom's bloom_plan_expand() does); nothing
 *              was added
 *   EBADMSG    RESTORE: not a snapshot, or a damaged one (a checksum, a
 *              length, a field or a counter or cell out of range)
 *   EPROTONOSUPPORT RESTORE: a snapshot of another format version, with an
 *              incompatible feature flag, or of another hash and position
 *              scheme (written by another version of bloom, or a
 *              SipHash-1-3 filter's read by a bloom that knows only
 *              SipHash-2-4)
 *   EOVERFLOW  SAVE: the buffer is smaller than the snapshot (out_len says
 *              how large it must be)
 * MERGE of two filters that differ in type, geometry, hash key or hash
 * scheme (enum bloom_hash), or of a filter with itself, is EINVAL; of
 * d-left filters EOPNOTSUPP. CREATE with BLOOM_CREATE_F_HASH and a @hash
 * that is not an enum bloom_hash is EINVAL.
 * On any error a filter is left as it was, with four exceptions. ADD or
 * DELETE failing with EFAULT because the results bitmap became unwritable
 * during the call (the caller unmapped it; it is checked writable before the
 * filter changes): every key was applied, out_done is nkeys and out_hits is
 * right, only the bitmap is missing. ADD to a full d-left filter (ENOSPC)
 * or to a scalable filter that cannot grow (EDQUOT, ENOMEM, ENOSPC): the
 * first out_done keys were added and stay, with their result bits. MERGE
 * of scalable filters failing with EDQUOT or ENOMEM while it gives the
 * destination the stages it lacks: the stages added before the failure
 * stay, empty (they change no answer), and no key was merged. And a batch
 * whose filter is destroyed during the call fails with ESTALE: what it had
 * done went with the filter.
 */
#ifndef _UAPI_LINUX_BLOOM_H
#define _UAPI_LINUX_BLOOM_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define BLOOM_ABI_VERSION	1

/*
 * A filter's name is 1..31 printable ASCII characters other than space and
 * '/' (0x21..0x7e without 0x2f: a name is a sysfs directory and a word in
 * listings), and not "." or "..". It travels in a BLOOM_NAME_LEN-byte
 * field, NUL-terminated, and every byte after the terminating NUL must be
 * zero.
 */
#define BLOOM_NAME_LEN		32	/* includes the terminating NUL */
#define BLOOM_KEY_MAX		4096	/* longest key, in bytes */
#define BLOOM_HASH_KEY_LEN	16	/* SipHash key, 128 bits */
#define BLOOM_BATCH_MAX_KEYS	65536	/* keys in one ADD/QUERY/DELETE call */
#define BLOOM_BATCH_MAX_BYTES	(4U << 20)	/* key bytes in one call */
#define BLOOM_CAPACITY_MAX	0xffffffffULL	/* keys a filter is sized for */
#define BLOOM_FPP_PPB_MIN	1		/* p = 1e-9 */
#define BLOOM_FPP_PPB_MAX	500000000	/* p = 0.5 */
#define BLOOM_HASHES_MAX	32
#define BLOOM_BITS_MAX		(1ULL << 40)	/* 128 GiB of bits */
#define BLOOM_SCALE_STAGES_MAX	32	/* stages of a scalable filter */
#define BLOOM_GROWTH_MIN	2	/* s: stage i + 1 holds s times stage i */
#define BLOOM_GROWTH_MAX	16
#define BLOOM_GROWTH_DEFAULT	2
/*
 * A timed filter's stages (BLOOM_TYPE_TIMED with BLOOM_CREATE_F_SCALABLE)
 * grow faster by default: an absent key's lookup tests every stage, and at
 * ten times the capacity this makes two stages where 2 makes four.
 */
#define BLOOM_TIMED_GROWTH_DEFAULT	10
/* Expiring filters (see Expiring filters): the timeout and the generations. */
#define BLOOM_TIMEOUT_MS_MIN	1000ULL		/* 1 s */
#define BLOOM_TIMEOUT_MS_MAX	2147483000ULL	/* ipset's largest timeout */
#define BLOOM_GENERATIONS_MIN	2
#define BLOOM_GENERATIONS_MAX	16
#define BLOOM_GENERATIONS_DEFAULT	5
#define BLOOM_TIGHTENING_PPM_MIN	500000	/* r = 0.5 */
#define BLOOM_TIGHTENING_PPM_MAX	950000	/* r = 0.95 */
#define BLOOM_TIGHTENING_PPM_DEFAULT	850000	/* r = 0.85 */
/* Keys with their own timeouts: the largest timeout, in seconds (68 years). */
#define BLOOM_KEY_TIMEOUT_MAX	0x7fffffffU

/* Every command is _IO(BLOOM_IOC_MAGIC, nr), defined after its struct. */
#define BLOOM_IOC_MAGIC		0xBF	/* unused in ioctl-number.rst of 6.1 */

/**
 * enum bloom_type - filter types
 * @BLOOM_TYPE_STANDARD: bit array, k bits anywhere in it per key
 * @BLOOM_TYPE_BLOCKED: bit array of 512-bit blocks, all k bits of a key in
 *	one block (one cache line per query)
 * @BLOOM_TYPE_COUNTING: 4-bit counters instead of bits: deletable
 * @BLOOM_TYPE_DLEFT: d-left counting filter: deletable in about half the
 *	memory of the counting filter from p = 0.01 down (0.74 times at 0.1,
 *	more than it above 0.23)
 * @BLOOM_TYPE_TIMED: d-left cells that hold each key's own expiry instead
 *	of a counter (see Keys with their own timeouts): a set of keys that each
 *	live until their timeout, and can be deleted
 */
enum bloom_type {
	BLOOM_TYPE_STANDARD = 1,
	BLOOM_TYPE_BLOCKED = 2,
	BLOOM_TYPE_COUNTING = 3,
	BLOOM_TYPE_DLEFT = 4,
	BLOOM_TYPE_TIMED = 5
};

/*
 * The types' names, indexed by enum bloom_type (NULL: no type), as the sysfs
 * file "type" shows them; libbloom's bloom_type_name() and bloomctl use the
 * same. An initialiser, so that this header defines no data:
 *	static const char *const names[] = BLOOM_TYPE_NAMES;
 */
#define BLOOM_TYPE_NAMES \
	{ (const char *)0, "standard", "blocked", "counting", "dleft", "timed" }

/**
 * enum bloom_key_kind - what a filter's keys are (see Key kinds)
 * @BLOOM_KEYS_UNKNOWN: not said (an older snapshot, or never set): any key
 * @BLOOM_KEYS_STRINGS: byte strings; never addresses
 * @BLOOM_KEYS_IPV4: IPv4 addresses (4 bytes) and netblocks (5 bytes)
 * @BLOOM_KEYS_IPV6: IPv6 addresses (16 bytes) and netblocks (17 bytes)
 */
enum bloom_key_kind {
	BLOOM_KEYS_UNKNOWN = 0,
	BLOOM_KEYS_STRINGS = 1,
	BLOOM_KEYS_IPV4 = 2,
	BLOOM_KEYS_IPV6 = 3
};

/* The kinds' names, indexed by enum bloom_key_kind, as sysfs "keys" shows them. */
#define BLOOM_KEYS_NAMES \
	{ "unknown", "strings", "ipv4", "ipv6" }

/**
 * enum bloom_hash - the keyed hash of a filter's keys (see Hashing)
 * @BLOOM_HASH_SIPHASH_2_4: SipHash-2-4 under the filter's secret: filters
 *	that ask for it (BLOOM_CREATE_F_HASH), and every filter of a module
 *	older than the choice, whose snapshots and mappings say 0 here
 * @BLOOM_HASH_SIPHASH_1_3: SipHash-1-3 under the same secret, 64-bit
 *	result: what new filters use unless they ask for another
 */
enum bloom_hash {
	BLOOM_HASH_SIPHASH_2_4 = 0,
	BLOOM_HASH_SIPHASH_1_3 = 1
};

/* The hashes' names, indexed by enum bloom_hash, as sysfs "hash" shows them. */
#define BLOOM_HASH_NAMES \
	{ "siphash-2-4", "siphash-1-3" }

/**
 * struct bloom_version - BLOOM_IOC_VERSION: what the running module supports
 * @size: sizeof(struct bloom_version)
 * @flags: must be 0
 * @abi_version: out: BLOOM_ABI_VERSION of the module
 * @types: out: bit (1 << type) set for every implemented enum bloom_type
 * @create_flags: out: the BLOOM_CREATE_F_* flags the module knows
 * @batch_flags: out: the BLOOM_BATCH_F_* flags the module knows
 * @key_max: out: BLOOM_KEY_MAX
 * @batch_max_keys: out: BLOOM_BATCH_MAX_KEYS
 * @batch_max_bytes: out: BLOOM_BATCH_MAX_BYTES
 * @memory_limit: out: the most @memory_used can reach now: in the initial
 *	network namespace, max_memory less what other namespaces were
 *	guaranteed and do not use; in any other, what that namespace holds
 *	(its guarantee or its use) plus what nobody holds, at most
 *	max_memory_per_netns (Documentation/bloom.rst, Network namespaces)
 * @memory_used: out: in the initial network namespace: bytes all filters
 *	take now; in any other: bytes that namespace's filters take (no
 *	namespace learns what the others use)
 * @features: out: BLOOM_FEATURE_* the module has (0 from a module older
 *	than the first feature)
 * @reserved: must be 0
 */
struct bloom_version {
	__u32 size;
	__u32 flags;
	__u32 abi_version;
	__u32 types;
	__u32 create_flags;
	__u32 batch_flags;
	__u32 key_max;
	__u32 batch_max_keys;
	__aligned_u64 batch_max_bytes;
	__aligned_u64 memory_limit;
	__aligned_u64 memory_used;
	__u32 features;
	__u32 reserved;
};

/* mmap() of a bound descriptor: see struct bloom_map_header. */
#define BLOOM_FEATURE_MAP	(1U << 0)
/*
 * Filters hash with SipHash-1-3 unless CREATE asks for another scheme
 * (BLOOM_CREATE_F_HASH); INFO and the mapping's header say which. A module
 * without it makes SipHash-2-4 filters only.
 */
#define BLOOM_FEATURE_HASH	(1U << 1)
#define BLOOM_FEATURE_ALL	(BLOOM_FEATURE_MAP | BLOOM_FEATURE_HASH)

#define BLOOM_IOC_VERSION	_IO(BLOOM_IOC_MAGIC, 0x00)

/* Bind the creating descriptor to the new filter. */
#define BLOOM_CREATE_F_BIND	(1U << 0)
/* Use @hash_key instead of a random secret. */
#define BLOOM_CREATE_F_HASH_KEY	(1U << 1)
/* Use @bits and @hashes instead of sizing from capacity and fpp_ppb. */
#define BLOOM_CREATE_F_GEOMETRY	(1U << 2)
/* A scalable filter: grows by stages (see Scalable filters). */
#define BLOOM_CREATE_F_SCALABLE	(1U << 3)
/*
 * Size from any two of capacity, fpp_ppb, bits_per_key_milli and
 * memory_bytes (the others 0), with hashes a fixed k or 0 (see Sizing).
 */
#define BLOOM_CREATE_F_SIZE	(1U << 4)
/*
 * Bit 5: the type, geometry, hash key and hash scheme of the filter named
 * @like, empty (so the two can be merged); @type, @capacity, @fpp_ppb,
 * @bits, @hashes, @hash_key, @hash, @memory_bytes and @bits_per_key_milli
 * must then be 0 and no other sizing flag set.
 */
#define BLOOM_CREATE_F_LIKE	(1U << 5)
/*
 * Bit 6: an expiring filter (see Expiring filters): a key tests present
 * for at least @timeout_ms after its last add, in @generations
 * generations. The name says "timeout" for the filter's one timeout, which
 * rotations keep; a timed filter's keys have their own (BLOOM_TYPE_TIMED,
 * @key_timeout_s, BLOOM_BATCH_F_TIMEOUT), a different feature.
 */
#define BLOOM_CREATE_F_TIMEOUT	(1U << 6)
/*
 * Bit 7: the filter stores netblocks only at the lengths in
 * @prefix_lengths4 and @prefix_lengths6 (see Prefix expansion).
 */
#define BLOOM_CREATE_F_PREFIXES	(1U << 7)
/*
 * Bit 8: hash keys with @hash (enum bloom_hash) instead of SipHash-1-3,
 * the scheme of a filter created without it (see Hashing).
 */
#define BLOOM_CREATE_F_HASH	(1U << 8)
#define BLOOM_CREATE_F_ALL	(BLOOM_CREATE_F_BIND | BLOOM_CREATE_F_HASH_KEY | \
				 BLOOM_CREATE_F_GEOMETRY | BLOOM_CREATE_F_SCALABLE | \
				 BLOOM_CREATE_F_SIZE | BLOOM_CREATE_F_LIKE | \
				 BLOOM_CREATE_F_TIMEOUT | BLOOM_CREATE_F_PREFIXES | \
				 BLOOM_CREATE_F_HASH)
/* Netblock lengths a filter's prefix lengths hold per family, at most. */
#define BLOOM_PREFIX_LENGTHS_MAX	7

/**
 * struct bloom_create - BLOOM_IOC_CREATE: create a named filter
 * @size: sizeof(struct bloom_create)
 * @flags: BLOOM_CREATE_F_*
 * @type: enum bloom_type
 * @hashes: with BLOOM_CREATE_F_GEOMETRY: k, 1..BLOOM_HASHES_MAX; else 0
 * @name: the new filter's name
 * @capacity: keys the filter is sized for, 1..BLOOM_CAPACITY_MAX
 * @bits: with BLOOM_CREATE_F_GEOMETRY: m, 64..BLOOM_BITS_MAX (a multiple of
 *	512 for a blocked filter); else 0
 * @fpp_ppb: false-positive rate in parts per billion,
 *	BLOOM_FPP_PPB_MIN..BLOOM_FPP_PPB_MAX
 * @bits_per_key_milli: with BLOOM_CREATE_F_SIZE: bits of table per key of
 *	capacity, in thousandths, or 0; else 0
 * @memory_bytes: with BLOOM_CREATE_F_SIZE: the most bytes the filter's
 *	table may take, or 0; else 0
 * @hash_key: with BLOOM_CREATE_F_HASH_KEY: the SipHash key; else all zero
 * @like: with BLOOM_CREATE_F_LIKE: the filter whose type, geometry and hash
 *	key the new one takes; else all zero
 * @growth: with BLOOM_CREATE_F_SCALABLE: s, BLOOM_GROWTH_MIN..MAX, or 0 for
 *	BLOOM_GROWTH_DEFAULT (a timed filter's: BLOOM_TIMED_GROWTH_DEFAULT);
 *	else 0
 * @tightening_ppm: with BLOOM_CREATE_F_SCALABLE: r in parts per million,
 *	BLOOM_TIGHTENING_PPM_MIN..MAX, or 0 for BLOOM_TIGHTENING_PPM_DEFAULT;
 *	else 0
 * @keys: enum bloom_key_kind: what the keys are (see Key kinds), or
 *	BLOOM_KEYS_UNKNOWN (0): set by the first add of addresses. With
 *	BLOOM_CREATE_F_LIKE, 0 takes the kind of @like.
 * @generations: with BLOOM_CREATE_F_TIMEOUT: G,
 *	BLOOM_GENERATIONS_MIN..BLOOM_GENERATIONS_MAX, or 0 for the default;
 *	else 0
 * @timeout_ms: with BLOOM_CREATE_F_TIMEOUT: the timeout,
 *	BLOOM_TIMEOUT_MS_MIN..BLOOM_TIMEOUT_MS_MAX; else 0
 * @key_timeout_s: BLOOM_TYPE_TIMED: the timeout of keys added without one,
 *	seconds, 0 (none) ..@key_timeout_max_s; else 0
 * @key_timeout_max_s: BLOOM_TYPE_TIMED: the largest timeout a key may be
 *	given, 1..BLOOM_KEY_TIMEOUT_MAX, or 0 for BLOOM_KEY_TIMEOUT_MAX; else 0
 * @reserved: must be 0
 * @prefix_lengths4: with BLOOM_CREATE_F_PREFIXES: bit L set (L 1..31): IPv4
 *	netblocks of length L are stored; at most BLOOM_PREFIX_LENGTHS_MAX
 *	bits; else 0 (see Prefix expansion)
 * @hash: with BLOOM_CREATE_F_HASH: the keyed hash, enum bloom_hash; else 0
 *	(the filter hashes with SipHash-1-3). Named reserved1 before it was
 *	defined: a module that does not know it refuses the flag (EINVAL)
 * @prefix_lengths6: with BLOOM_CREATE_F_PREFIXES: bit L % 64 of word L / 64
 *	set (L 1..127): IPv6 netblocks of length L are stored; at most
 *	BLOOM_PREFIX_LENGTHS_MAX bits; else 0
 *
 * A caller built against ABI version 1 passes the struct up to and
 * including @generations (then named reserved and 0): it is taken; so is
 * one that ends at @key_timeout_s (then named reserved and 0), or at
 * @reserved.
 *
 * With BLOOM_CREATE_F_SIZE, capacity and fpp_ppb may be 0 (exactly two of
 * capacity, fpp_ppb, bits_per_key_milli and memory_bytes are given, not
 * fpp_ppb with bits_per_key_milli) and @hashes is a fixed k for a standard
 * or counting filter (0: the best k); @bits must be 0.
 *
 * For a scalable filter @capacity and @fpp_ppb are stage 0's capacity and
 * the compound rate P.
 */
struct bloom_create {
	__u32 size;
	__u32 flags;
	__u32 type;
	__u32 hashes;
	char name[BLOOM_NAME_LEN];
	__aligned_u64 capacity;
	__aligned_u64 bits;
	__u32 fpp_ppb;
	__u32 bits_per_key_milli;
	__aligned_u64 memory_bytes;
	__u8 hash_key[BLOOM_HASH_KEY_LEN];
	char like[BLOOM_NAME_LEN];
	__u32 growth;
	__u32 tightening_ppm;
	__u32 keys;
	__u32 generations;
	__aligned_u64 timeout_ms;
	__u32 key_timeout_s;
	__u32 key_timeout_max_s;
	__aligned_u64 reserved;
	__u32 prefix_lengths4;
	__u32 hash;
	__aligned_u64 prefix_lengths6[2];
};

#define BLOOM_IOC_CREATE	_IO(BLOOM_IOC_MAGIC, 0x01)

/**
 * struct bloom_name - BLOOM_IOC_DESTROY, BLOOM_IOC_BIND, BLOOM_IOC_FLUSH: name
 *	a filter
 * @size: sizeof(struct bloom_name)
 * @flags: must be 0
 * @name: the filter's name
 * @reserved: must be 0
 */
struct bloom_name {
	__u32 size;
	__u32 flags;
	char name[BLOOM_NAME_LEN];
	__aligned_u64 reserved;
};

#define BLOOM_IOC_DESTROY	_IO(BLOOM_IOC_MAGIC, 0x02)
#define BLOOM_IOC_BIND		_IO(BLOOM_IOC_MAGIC, 0x03)
#define BLOOM_IOC_FLUSH		_IO(BLOOM_IOC_MAGIC, 0x0d)

/**
 * struct bloom_info - BLOOM_IOC_INFO: a filter's parameters and statistics
 * @size: sizeof(struct bloom_info)
 * @flags: must be 0
 * @name: in: the filter's name, or all zero for the descriptor's bound filter;
 *	out: the filter's name
 * @type: out: enum bloom_type
 * @hashes: out: k
 * @bits: out: m
 * @capacity: out: keys the filter was sized for
 * @fpp_ppb: out: false-positive rate asked for, parts per billion
 * @estimated_fpp_ppb: out: the false-positive rate a never-added key meets
 *	now, parts per billion: (bits_set/m)^k for standard and counting
 *	filters; for blocked filters the block-load model (keys per block
 *	Poisson with mean @estimated_keys / blocks); d-left: cells a query
 *	compares x 2^-fingerprint_bits. Above @fpp_ppb once the filter holds
 *	more than @capacity keys. Scalable: the compound rate
 *	1 - prod(1 - rate_i) over its stages, each stage's rate as above.
 * @memory_bytes: out: bytes of kernel memory the filter takes, all included
 * @count: out: keys added that set at least one new bit (counting: took a
 *	counter from 0; d-left: took a new cell), minus, for counting and
 *	d-left filters, keys deleted that took a counter to 0 or emptied
 *	their cell: an estimate of the distinct keys in the filter
 * @adds: out: keys passed to ADD
 * @queries: out: keys passed to QUERY
 * @hits: out: queried keys reported "may be present"
 * @bits_set: out: bits that are 1 now (counting: counters that are not 0;
 *	d-left: cells in use), kept by every add and delete (no scan)
 * @deletes: out: keys removed by DELETE
 * @delete_misses: out: keys passed to DELETE that were not found
 * @delete_pinned: out: keys passed to DELETE that were pinned (found, but a
 *	saturated counter or cell kept them; see Deleting)
 * @saturated: out: counters that reached their maximum and stay there
 * @insert_failures: out: d-left: keys refused with ENOSPC
 * @fingerprint_bits: out: d-left: bits of a fingerprint; else 0
 * @subtables: out: d-left: number of subtables (4); else 0
 * @subtable_cells: out: d-left: cells in each subtable
 * @subtable_used: out: d-left: cells in use in each subtable
 * @estimated_keys: out: distinct keys in the filter, estimated from
 *	@bits_set (Swamidass and Baldi: -(m/k) ln(1 - bits_set/m); blocked:
 *	-(m/512) ln(1 - bits_set/m) / (1 - (1 - 1/512)^k), the same under the
 *	block-load model; d-left: the cells in use); ~0 when every bit is set
 *	(too many keys to tell); scalable: the sum over its stages
 * @stages: out: scalable: stages now (1..BLOOM_SCALE_STAGES_MAX); else 0
 * @growth: out: scalable: s; else 0
 * @tightening_ppm: out: scalable: r in parts per million; else 0
 * @rules: out: firewall rules that name the filter (while this is not 0,
 *	DESTROY fails with EBUSY)
 * @packets: out: packets firewall rules (iptables -m bloom) checked against
 *	the filter
 * @packet_hits: out: of those, packets whose address may be present
 * @keys: out: enum bloom_key_kind, the filter's key kind
 * @prefixes4: out: bit L set: the filter holds IPv4 netblocks of length L
 *	(0..31; see Netblocks)
 * @prefixes6: out: bit L % 64 of word L / 64 set: the filter holds IPv6
 *	netblocks of length L (0..127)
 * @address_lookups: out: tests a lookup of an address makes at most: 1
 *	(the address) + the netblock lengths present of the kind's family
 *	(of the family with more of them when the kind is not an address
 *	family)
 * @address_fpp_ppb: out: the false-positive rate of such a lookup,
 *	1 - (1 - @estimated_fpp_ppb)^@address_lookups, at most L times the
 *	rate of one test
 * @id: out: the filter's id, unique in its network namespace while the
 *	filter exists; what BPF programs name it by (see BPF programs).
 *	SWAP and RESTORE with BLOOM_RESTORE_F_REPLACE keep it.
 * @generations: out: expiring: G; else 0
 * @timeout_ms: out: expiring: the timeout; else 0
 * @next_rotation_ms: out: expiring: milliseconds until the oldest
 *	generation is due to be cleared and become the newest (0: due now);
 *	else 0
 * @bpf_calls: out: lookups BPF programs made in the filter (kfuncs)
 * @bpf_hits: out: of those, lookups that answered "may be present"
 * @reserved: in: must be 0; out: 0
 * @late_rotations: out: expiring: the rotations that ran late (a loaded
 *	machine: the work started over a period / 100 after it was due, or
 *	its grace period was that long); each lengthens some keys' lives
 *	past timeout x (1 + 1/(G - 1)) by its delay; else 0. A caller whose
 *	struct ends before it does not get it.
 * @key_timeout_s: out: timed: the timeout of keys added without one; else 0
 * @key_timeout_max_s: out: timed: the largest timeout; else 0
 * @tag_bits: out: timed: the bits beside the fingerprint that ADD and
 *	DELETE compare (see Keys with their own timeouts); else 0
 * @hash: in: must be 0; out: the filter's keyed hash, enum bloom_hash (0,
 *	SipHash-2-4, from a module without BLOOM_FEATURE_HASH, which called
 *	it reserved1)
 * @expired: out: timed: cells of expired keys reclaimed; else 0
 * @prefix_lengths4: out: the IPv4 netblock lengths the filter stores, as
 *	CREATE's (0: any length; see Prefix expansion)
 * @reserved2: in: must be 0; out: 0
 * @prefix_lengths6: out: the IPv6 netblock lengths the filter stores (all
 *	0: any length)
 * @xdp_holds: out: XDP programs that hold the filter
 *	(bpf_bloom_xdp_hold(), see BPF programs; while this is not 0,
 *	DESTROY fails with EBUSY)
 * @xdp_ifindex: out: the device of the latest of them, an ifindex in the
 *	filter's network namespace; 0 when none ever held it
 *
 * A caller built against ABI version 1 passes the struct up to and
 * including @generations (then named reserved): it gets that much; so
 * does one whose struct ends at @reserved, @late_rotations, @expired or
 * @prefix_lengths6 (the struct of each later version before this one).
 *
 * For a scalable filter @bits and @bits_set are the sums over its stages,
 * @hashes is stage 0's k, @capacity stage 0's capacity and @fpp_ppb the
 * compound rate asked for; BLOOM_IOC_STAGES has each stage.
 */
struct bloom_info {
	__u32 size;
	__u32 flags;
	char name[BLOOM_NAME_LEN];
	__u32 type;
	__u32 hashes;
	__aligned_u64 bits;
	__aligned_u64 capacity;
	__u32 fpp_ppb;
	__u32 estimated_fpp_ppb;
	__aligned_u64 memory_bytes;
	__aligned_u64 count;
	__aligned_u64 adds;
	__aligned_u64 queries;
	__aligned_u64 hits;
	__aligned_u64 bits_set;
	__aligned_u64 deletes;
	__aligned_u64 delete_misses;
	__aligned_u64 delete_pinned;
	__aligned_u64 saturated;
	__aligned_u64 insert_failures;
	__u32 fingerprint_bits;
	__u32 subtables;
	__aligned_u64 subtable_cells;
	__aligned_u64 subtable_used[4];
	__aligned_u64 estimated_keys;
	__u32 stages;
	__u32 growth;
	__u32 tightening_ppm;
	__u32 rules;
	__aligned_u64 packets;
	__aligned_u64 packet_hits;
	__u32 keys;
	__u32 prefixes4;
	__aligned_u64 prefixes6[2];
	__u32 address_lookups;
	__u32 address_fpp_ppb;
	__u32 id;
	__u32 generations;
	__aligned_u64 timeout_ms;
	__aligned_u64 next_rotation_ms;
	__aligned_u64 bpf_calls;
	__aligned_u64 bpf_hits;
	__aligned_u64 reserved;
	__aligned_u64 late_rotations;
	__u32 key_timeout_s;
	__u32 key_timeout_max_s;
	__u32 tag_bits;
	__u32 hash;
	__aligned_u64 expired;
	__u32 prefix_lengths4;
	__u32 reserved2;
	__aligned_u64 prefix_lengths6[2];
	__u32 xdp_holds;
	__u32 xdp_ifindex;
};

#define BLOOM_IOC_INFO		_IO(BLOOM_IOC_MAGIC, 0x04)

/**
 * struct bloom_list - BLOOM_IOC_LIST: the names of all filters
 * @size: sizeof(struct bloom_list)
 * @flags: must be 0
 * @capacity: in: number of BLOOM_NAME_LEN-byte slots at @names (may be 0)
 * @out_count: out: number of filters; when larger than @capacity only the
 *	first @capacity names were written: call again with more room
 * @names: in: user pointer to char[@capacity][BLOOM_NAME_LEN], sorted by
 *	name on return
 * @reserved: must be 0
 */
struct bloom_list {
	__u32 size;
	__u32 flags;
	__u32 capacity;
	__u32 out_count;
	__aligned_u64 names;
	__aligned_u64 reserved;
};

#define BLOOM_IOC_LIST		_IO(BLOOM_IOC_MAGIC, 0x05)

/**
 * struct bloom_batch - BLOOM_IOC_ADD, BLOOM_IOC_QUERY, BLOOM_IOC_DELETE: many
 *	keys in one call
 * @size: sizeof(struct bloom_batch)
 * @flags: BLOOM_BATCH_F_* (BLOOM_BATCH_F_PINNED: DELETE only)
 * @nkeys: number of keys, 0..BLOOM_BATCH_MAX_KEYS
 * @key_size: 0: keys of different lengths, given at @lens; else every key
 *	is @key_size bytes (1..BLOOM_KEY_MAX) and @lens must be 0
 * @keys: user pointer to the keys, packed one after the other
 * @lens: user pointer to __u32[@nkeys], each 1..BLOOM_KEY_MAX, when
 *	@key_size is 0; else 0
 * @keys_len: bytes at @keys; must equal the sum of the lengths, at most
 *	BLOOM_BATCH_MAX_BYTES
 * @results: user pointer to a bitmap of (@nkeys + 7) / 8 bytes (see
 *	Results), or 0 when the caller needs only the counts
 * @pinned: with BLOOM_BATCH_F_PINNED: user pointer to a bitmap of
 *	(@nkeys + 7) / 8 bytes that receives a set bit for every pinned key
 *	(see Deleting); else 0
 * @out_done: out: keys processed (@nkeys on success)
 * @out_hits: out: QUERY: keys that may be present; ADD: keys whose bits were
 *	all set already; DELETE: keys found and removed (pinned keys are not)
 * @out_pinned: out: DELETE: keys found but pinned. Keys not found:
 *	@out_done - @out_hits - @out_pinned
 * @timeout_s: ADD with BLOOM_BATCH_F_TIMEOUT: every key's timeout in
 *	seconds when @timeouts is 0; else 0
 * @timeouts: ADD with BLOOM_BATCH_F_TIMEOUT: user pointer to
 *	__u32[@nkeys], key i's timeout, or 0; else 0
 * @reserved: must be 0
 *
 * A caller built against ABI version 1 passes the struct up to and
 * including @timeout_s (then named reserved and 0): it is taken.
 */
struct bloom_batch {
	__u32 size;
	__u32 flags;
	__u32 nkeys;
	__u32 key_size;
	__aligned_u64 keys;
	__aligned_u64 lens;
	__aligned_u64 keys_len;
	__aligned_u64 results;
	__aligned_u64 pinned;
	__u32 out_done;
	__u32 out_hits;
	__u32 out_pinned;
	__u32 timeout_s;
	__aligned_u64 timeouts;
	__aligned_u64 reserved;
};

#define BLOOM_IOC_ADD		_IO(BLOOM_IOC_MAGIC, 0x06)
#define BLOOM_IOC_QUERY		_IO(BLOOM_IOC_MAGIC, 0x07)
#define BLOOM_IOC_DELETE	_IO(BLOOM_IOC_MAGIC, 0x08)

/* DELETE: report the pinned keys in the bitmap at @pinned. */
#define BLOOM_BATCH_F_PINNED	(1U << 0)
/*
 * The keys are addresses and netblocks (see Netblocks), all of one family:
 * ADD and DELETE count their lengths, QUERY looks each up over the
 * lengths present. Implied on a filter whose kind is ipv4 or ipv6.
 */
#define BLOOM_BATCH_F_NET	(1U << 1)
/*
 * ADD to a timed filter (BLOOM_TYPE_TIMED): the keys' own timeouts are
 * @timeout_s or @timeouts (see Keys with their own timeouts), not the
 * filter's default. Not the expiring filter's timeout (BLOOM_CREATE_F_TIMEOUT).
 */
#define BLOOM_BATCH_F_TIMEOUT	(1U << 2)
#define BLOOM_BATCH_F_ALL	(BLOOM_BATCH_F_PINNED | BLOOM_BATCH_F_NET | \
				 BLOOM_BATCH_F_TIMEOUT)

/* The snapshot format (Documentation/snapshot.rst); the kernel reads it. */
#define BLOOM_SNAP_MAGIC	"\211BLOOM\r\n"	/* 8 bytes: 0x89 "BLOOM" CR LF */
#define BLOOM_SNAP_VERSION	1

/**
 * struct bloom_save - BLOOM_IOC_SAVE: a filter as a snapshot
 * @size: sizeof(struct bloom_save)
 * @flags: must be 0
 * @name: the filter, or all zero for the descriptor's bound filter
 * @buf: user pointer to @buf_len bytes that receive the snapshot; 0 to
 *	learn its size only
 * @buf_len: bytes at @buf
 * @out_len: out: bytes of the snapshot (written at @buf when it fits,
 *	else EOVERFLOW)
 * @reserved: must be 0
 */
struct bloom_save {
	__u32 size;
	__u32 flags;
	char name[BLOOM_NAME_LEN];
	__aligned_u64 buf;
	__aligned_u64 buf_len;
	__aligned_u64 out_len;
	__aligned_u64 reserved;
};

#define BLOOM_IOC_SAVE		_IO(BLOOM_IOC_MAGIC, 0x09)

/* Give the restored filter @name instead of the name in the snapshot. */
#define BLOOM_RESTORE_F_NAME	(1U << 0)
/*
 * Replace the contents of the existing filter of that name (ENOENT if there
 * is none; EINVAL if it is of another type) instead of creating one; queries
 * running meanwhile see the old contents or the new, never neither.
 */
#define BLOOM_RESTORE_F_REPLACE	(1U << 1)
#define BLOOM_RESTORE_F_ALL	(BLOOM_RESTORE_F_NAME | BLOOM_RESTORE_F_REPLACE)

/**
 * struct bloom_restore - BLOOM_IOC_RESTORE: a filter from a snapshot
 * @size: sizeof(struct bloom_restore)
 * @flags: BLOOM_RESTORE_F_*
 * @name: with BLOOM_RESTORE_F_NAME: the new filter's name; else all zero
 * @buf: user pointer to the snapshot, the whole file
 * @buf_len: bytes at @buf: exactly the snapshot's size
 * @reserved: must be 0
 */
struct bloom_restore {
	__u32 size;
	__u32 flags;
	char name[BLOOM_NAME_LEN];
	__aligned_u64 buf;
	__aligned_u64 buf_len;
	__aligned_u64 reserved;
};

#define BLOOM_IOC_RESTORE	_IO(BLOOM_IOC_MAGIC, 0x0a)

/**
 * struct bloom_pair - BLOOM_IOC_MERGE, BLOOM_IOC_SWAP: two filters
 * @size: sizeof(struct bloom_pair)
 * @flags: must be 0
 * @name: MERGE: the destination, which becomes the union of both; SWAP: one
 * @other: MERGE: the source, left as it is; SWAP: the other
 * @reserved: must be 0
 */
struct bloom_pair {
	__u32 size;
	__u32 flags;
	char name[BLOOM_NAME_LEN];
	char other[BLOOM_NAME_LEN];
	__aligned_u64 reserved;
};

#define BLOOM_IOC_MERGE		_IO(BLOOM_IOC_MAGIC, 0x0b)
#define BLOOM_IOC_SWAP		_IO(BLOOM_IOC_MAGIC, 0x0c)

/**
 * struct bloom_stage - one stage of a scalable filter or generation of an
 *	expiring one, as BLOOM_IOC_STAGES returns it (struct bloom_stages)
 * @capacity: keys it holds at most
 * @bits: its m
 * @count: new keys added to it (at most @capacity)
 * @bits_set: its bits that are 1 now
 * @fpp_ppb: its rate at capacity, parts per billion
 * @hashes: its k
 * @estimated_fpp_ppb: its rate estimated from its bits now, as struct
 *	bloom_info's @estimated_fpp_ppb is for a filter of its type
 * @age_ms: expiring: milliseconds since this generation became the newest
 *	by the schedule (a rotation may run a little later), at most
 *	0xffffffff; else 0
 */
struct bloom_stage {
	__aligned_u64 capacity;
	__aligned_u64 bits;
	__aligned_u64 count;
	__aligned_u64 bits_set;
	__u32 fpp_ppb;
	__u32 hashes;
	__u32 estimated_fpp_ppb;
	__u32 age_ms;
};

/**
 * struct bloom_stages - BLOOM_IOC_STAGES: the stages of a scalable filter
 * @size: sizeof(struct bloom_stages)
 * @flags: must be 0
 * @name: the filter's name, or all zero for the descriptor's bound filter
 * @capacity: in: number of struct bloom_stage slots at @stages (may be 0)
 * @out_count: out: stages the filter has; when larger than @capacity only
 *	the first @capacity were written: call again with more room
 *	(BLOOM_SCALE_STAGES_MAX is always enough)
 * @stages: in: user pointer to struct bloom_stage[@capacity], oldest stage
 *	first on return
 * @reserved: must be 0
 *
 * An expiring filter's generations come back the same way (@count: the
 * keys that set a new bit in it). A filter that is neither: EOPNOTSUPP.
 */
struct bloom_stages {
	__u32 size;
	__u32 flags;
	char name[BLOOM_NAME_LEN];
	__u32 capacity;
	__u32 out_count;
	__aligned_u64 stages;
	__aligned_u64 reserved;
};

#define BLOOM_IOC_STAGES	_IO(BLOOM_IOC_MAGIC, 0x0e)

/*
 * Mapping a filter (see Mappings): mmap() of a descriptor bound to a
 * standard or blocked filter (not scalable, not expiring), PROT_READ,
 * MAP_SHARED (or MAP_PRIVATE), offset 0, at most the header's @map_len
 * bytes: a header page, struct bloom_map_header, then the filter's bits.
 * The mapping is read-only for good: PROT_WRITE, mprotect() to write and
 * writes through /proc/PID/mem or ptrace are refused. Errors (errno after
 * mmap() returns MAP_FAILED):
 *   EBADFD     the descriptor is not bound
 *   ESTALE     its filter was destroyed
 *   EPERM      without CAP_NET_ADMIN (SAVE's rule: the header holds the
 *              hash key)
 *   EACCES     PROT_WRITE (on a descriptor opened O_RDONLY with MAP_SHARED
 *              the kernel says EACCES before the module is asked), or a
 *              descriptor opened O_RDONLY (even root's)
 *   EOPNOTSUPP a counting, d-left, scalable or expiring filter
 *   EINVAL     an offset other than 0, or a length over @map_len
 */
#define BLOOM_MAP_MAGIC		0x50414d42	/* "BMAP", little-endian */
/* The filter no longer holds these bits (destroyed, or replaced). */
#define BLOOM_MAP_F_STALE	(1U << 0)

/**
 * struct bloom_map_header - the first page of a filter's mapping
 * @magic: BLOOM_MAP_MAGIC
 * @header_size: sizeof(struct bloom_map_header) of the module; fields are
 *	only ever added at the end
 * @seq: even while the bits are what the filter holds; bumped to odd
 *	before and to even after every change other than an add: a swap, a
 *	replacing restore, a flush, a merge into it, the first add that sets
 *	the key kind, a destroy. Adds set bits in place without a bump
 *	(the mapping sees them). A reader reads @seq (acquire), tests bits,
 *	reads @seq again; a change means: map the descriptor again
 * @flags: BLOOM_MAP_F_STALE once the filter no longer holds these bits;
 *	they stay mapped (and frozen) until unmapped
 * @type: enum bloom_type, BLOOM_TYPE_STANDARD or BLOOM_TYPE_BLOCKED
 * @hashes: k
 * @keys: enum bloom_key_kind, kept current (an ipv4 or ipv6 filter's
 *	queries look netblocks up: see Netblocks)
 * @scheme: the hash and position scheme, a snapshot's scheme_id (see
 *	Hashing): a reader that does not know it must not test the bits
 * @hash: the keyed hash, enum bloom_hash, which @scheme implies (0,
 *	SipHash-2-4, from a module without BLOOM_FEATURE_HASH, which called
 *	it reserved)
 * @bits: m
 * @bits_offset: where the bits start in the mapping, in bytes (a page)
 * @bits_len: bytes of bits: whole 64-byte lines, native 64-bit words
 * @map_len: bytes of the whole mapping, header page included
 * @hash_key: the filter's SipHash key (BLOOM_HASH_KEY_LEN bytes)
 */
struct bloom_map_header {
	__u32 magic;
	__u32 header_size;
	__aligned_u64 seq;
	__u32 flags;
	__u32 type;
	__u32 hashes;
	__u32 keys;
	__u32 scheme;
	__u32 hash;
	__aligned_u64 bits;
	__aligned_u64 bits_offset;
	__aligned_u64 bits_len;
	__aligned_u64 map_len;
	__u8 hash_key[BLOOM_HASH_KEY_LEN];
};

#endif /* _UAPI_LINUX_BLOOM_H */
