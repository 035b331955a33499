/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * libbloom: a thin C library over the /dev/bloom ioctl ABI
 * (<linux/bloom.h>; what its commands mean is Documentation/userspace-api.rst
 * in bloom's source tree, whose sections are named below in quotes).
 *
 * Conventions, for every function below:
 *  - no global state: everything lives in the caller's descriptor and
 *    buffers, so threads may share the library (each with its own fd, or
 *    sharing one fd as the kernel allows);
 *  - a return value >= 0 is success, a negative value is -errno, exactly as
 *    the kernel or libc reported it (or -EINVAL for an argument the library
 *    itself rejects before any system call);
 *  - bloom_strerror() turns (operation, -errno) into a sentence for a human.
 *
 * The usual life of a daemon:
 *	int fd = bloom_open(NULL);
 *	bloom_create(fd, "spam", BLOOM_TYPE_STANDARD, 1000000, 0.01,
 *		     BLOOM_CREATE_F_BIND);      // or bloom_bind(fd, "spam")
 *	bloom_add(fd, "a@b.c", 5);
 *	if (bloom_query(fd, "x@y.z", 5) == 0) ... definitely absent ...
 *	bloom_delete(fd, "a@b.c", 5);           // counting and d-left only
 *	bloom_close(fd);
 */
#ifndef LIBBLOOM_H
#define LIBBLOOM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>	/* memset, for BLOOM_OPTS() */
#include <linux/bloom.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BLOOM_DEFAULT_DEVICE	"/dev/bloom"

/*
 * Option structs
 * --------------
 * A call with optional parameters takes a struct bloom_*_opts whose first
 * member, sz, holds the size of the struct the caller was compiled with
 * (the libbpf convention). Members are only ever appended, so:
 *  - a program built against an older libbloom.h passes a smaller sz, and
 *    the members it does not know read as zero (their defaults);
 *  - a program built against a newer header passes a larger sz: accepted
 *    when every byte the library does not know is zero, -E2BIG otherwise;
 *  - sz smaller than the first version of the struct is -EINVAL.
 * BLOOM_OPTS(TYPE, NAME, ...) declares struct TYPE NAME zeroed, with sz set
 * and the designated initialisers given. Booleans are bits in a flags member.
 */
#define BLOOM_OPTS(TYPE, NAME, ...)					\
	struct TYPE NAME = ({						\
		memset(&NAME, 0, sizeof(struct TYPE));			\
		(struct TYPE) {						\
			.sz = sizeof(struct TYPE),			\
			__VA_ARGS__					\
		};							\
	})

/*
 * The operations of the library, one for every command of the ABI and
 * BLOOM_OP_OPEN for opening the device: what bloom_batch() does, and what
 * was being done for bloom_strerror().
 */
enum bloom_op {
	BLOOM_OP_OPEN,
	BLOOM_OP_VERSION,
	BLOOM_OP_CREATE,
	BLOOM_OP_DESTROY,
	BLOOM_OP_BIND,
	BLOOM_OP_INFO,
	BLOOM_OP_LIST,
	BLOOM_OP_ADD,
	BLOOM_OP_QUERY,
	BLOOM_OP_DELETE,
	BLOOM_OP_SAVE,
	BLOOM_OP_RESTORE,
	BLOOM_OP_MERGE,
	BLOOM_OP_FLUSH,
	BLOOM_OP_SWAP,
	BLOOM_OP_STAGES,
};

/* The library's version, "MAJOR.MINOR.PATCH" (the file VERSION it was
 * built from; its SONAME is libbloom.so.MAJOR). */
const char *bloom_library_version(void);

/*
 * Filter type names, as sysfs's "type" file spells them ("standard",
 * "blocked", "counting", "dleft"): bloom_type_name() returns NULL for a
 * value that is no type; bloom_type_from_name() returns the type, also for
 * the spelling "d-left", or 0 for a name that is no type.
 */
const char *bloom_type_name(uint32_t type);
enum bloom_type bloom_type_from_name(const char *name);

/*
 * Opens the bloom device (NULL means BLOOM_DEFAULT_DEVICE) read-write and
 * close-on-exec. When that is refused with EACCES it retries read-only, so
 * users who may only query still get a descriptor; changing filters through
 * such a descriptor fails with -EBADF (and needs CAP_NET_ADMIN anyway).
 * Returns the descriptor.
 */
int bloom_open(const char *devpath);
int bloom_close(int fd);

/* BLOOM_IOC_VERSION: what the running module supports. */
int bloom_version(int fd, struct bloom_version *v);

/*
 * Checks a filter name against the ABI's rules (1..31 printable ASCII
 * characters other than space and '/', not "." or ".."): 0, -ENAMETOOLONG
 * or -EINVAL.
 */
int bloom_name_check(const char *name);

/*
 * Converts a false-positive rate p in [1e-9, 0.5] to parts per billion,
 * rounded down (the rate used is never worse than p; 1.5e-9 becomes 1 ppb).
 * -EINVAL for p outside [1e-9, 0.5] or NaN: a rate below one part per
 * billion cannot be honoured.
 */
int bloom_fpp_to_ppb(double p, uint32_t *ppb);

/*
 * Creates filter @name sized for @capacity keys at false-positive rate @fpp.
 * @flags may hold BLOOM_CREATE_F_BIND to bind @fd to the new filter.
 */
int bloom_create(int fd, const char *name, enum bloom_type type,
		 uint64_t capacity, double fpp, uint32_t flags);

/*
 * Everything BLOOM_IOC_CREATE can do. Declare it with BLOOM_OPTS(), which
 * zeroes it and sets sz:
 *
 *	BLOOM_OPTS(bloom_create_opts, o, .capacity = 1000000, .fpp = 0.01,
 *		   .type = BLOOM_TYPE_BLOCKED, .flags = BLOOM_CREATE_F_BIND);
 *	err = bloom_create_opts(fd, "spam", &o);
 *
 * @flags takes the BLOOM_CREATE_F_* bits of <linux/bloom.h>: the library
 * sets BLOOM_CREATE_F_HASH_KEY itself when @hash_key is given and
 * BLOOM_CREATE_F_GEOMETRY when @bits and @hashes are; passing one of those
 * two without its field is -EINVAL. Other bits go to the module as they are.
 */
struct bloom_create_opts {
	size_t sz;			/* sizeof(struct bloom_create_opts) */
	enum bloom_type type;		/* 0 means BLOOM_TYPE_STANDARD */
	uint32_t flags;			/* BLOOM_CREATE_F_* */
	uint64_t capacity;		/* keys expected */
	double fpp;			/* false-positive rate, (0, 0.5] */
	uint64_t bits;			/* with hashes: explicit geometry m */
	uint32_t hashes;		/* with bits: explicit geometry k */
	const uint8_t *hash_key;	/* BLOOM_HASH_KEY_LEN bytes, or NULL */
	/*
	 * Sizing by any two of capacity, fpp, bits_per_key and memory, with
	 * hashes a fixed k (bits 0): set bits_per_key or memory, or hashes
	 * without bits, and the module sizes as bloom_size() does
	 * (BLOOM_CREATE_F_SIZE; capacity or fpp may then be 0).
	 */
	double bits_per_key;		/* bits (counting: counters) per key */
	uint64_t memory;		/* bytes the filter's table may take */
	/*
	 * Non-NULL: an empty filter with the type, geometry and hash key of
	 * this filter, so that the two can be merged (bloom_merge()); type,
	 * capacity, fpp, bits, hashes, hash_key, bits_per_key, memory,
	 * growth and tightening must then be 0 and flags at most
	 * BLOOM_CREATE_F_BIND (the module refuses the rest: -EINVAL).
	 */
	const char *like;
	/*
	 * With BLOOM_CREATE_F_SCALABLE in @flags (standard and blocked only):
	 * the filter grows by stages; @capacity is stage 0's, @fpp the rate
	 * over all stages (bits_per_key, memory and hashes stay 0). Without the
	 * flag both must be 0.
	 */
	uint32_t growth;		/* s, 2..16; 0 means 2 */
	double tightening;		/* r, 0.5..0.95; 0 means 0.85 */
	/*
	 * What the keys are: BLOOM_KEYS_STRINGS, _IPV4, _IPV6, or 0 (not
	 * said: the first add of addresses sets it). See "Key kinds" in
	 * userspace-api.rst.
	 */
	enum bloom_key_kind keys;
	/*
	 * Keys that expire (standard and blocked only; see "Expiring
	 * filters" in userspace-api.rst): a key tests present for at least
	 * @timeout_ms after its last add, in @generations generations (0:
	 * BLOOM_GENERATIONS_DEFAULT). The library sets
	 * BLOOM_CREATE_F_TIMEOUT when @timeout_ms is given; @generations
	 * without it is -EINVAL. @capacity is then the keys per timeout.
	 */
	uint64_t timeout_ms;
	uint32_t generations;
	/*
	 * BLOOM_TYPE_TIMED: keys with their own timeouts (see "Keys with
	 * their own timeouts" in <linux/bloom.h>), in seconds: the timeout
	 * of keys added without one (0: none) and the largest a key may be
	 * given (0: BLOOM_KEY_TIMEOUT_MAX). Other types: -EINVAL.
	 */
	uint32_t key_timeout_s;
	uint32_t key_timeout_max_s;
	/*
	 * The netblock lengths the filter stores, per family (see "Prefix
	 * expansion" in userspace-api.rst): an ADD of another length is then
	 * refused (-EDOM); bloom_plan_expand() makes the keys to add
	 * instead. NULL, or no lengths: any length (each one a lookup
	 * more). The library sets BLOOM_CREATE_F_PREFIXES when one is given.
	 */
	const struct bloom_prefix_plan *prefixes4;
	const struct bloom_prefix_plan *prefixes6;
	/*
	 * The keyed hash (see "Hashing" in userspace-api.rst): with
	 * BLOOM_CREATE_F_HASH in @flags, BLOOM_HASH_SIPHASH_1_3 or
	 * BLOOM_HASH_SIPHASH_2_4; without it 0, and the filter hashes with
	 * SipHash-1-3 (SipHash-2-4 on a module without BLOOM_FEATURE_HASH,
	 * which refuses the flag: -EINVAL). With @like: 0, the model's.
	 */
	enum bloom_hash hash;
	/* new members go here, at the end (see "Option structs" above) */
	size_t :0;
};
int bloom_create_opts(int fd, const char *name,
		      const struct bloom_create_opts *opts);

/*
 * Sizing, without the module: any two of capacity, rate, bits per key and
 * memory (the others 0), and a fixed k or 0, as for BLOOM_CREATE_F_SIZE
 * (see "Sizing" in userspace-api.rst and "Choosing a size" in bloom.rst).
 * bloom_size() runs the filter core's own sizing code, the one bloom.ko
 * runs: bloom_create_opts() with the same numbers creates exactly this
 * filter. Returns 0, -EINVAL (not two of the four, rate with bits per key,
 * a value out of range, hashes for blocked or dleft), -ERANGE (the numbers
 * cannot make a filter: a rate over 0.5, not even one key), -E2BIG (over
 * BLOOM_BITS_MAX). @r is filled only on success.
 */
struct bloom_size_opts {
	size_t sz;		/* sizeof(struct bloom_size_opts) */
	enum bloom_type type;	/* 0 means BLOOM_TYPE_STANDARD */
	uint64_t capacity;	/* keys, or 0 */
	double fpp;		/* false-positive rate (0, 0.5], or 0 */
	double bits_per_key;	/* bits per key of capacity (counting: 4-bit
				 * counters), or 0 */
	uint64_t memory;	/* bytes the filter's table may take, or 0 */
	uint32_t hashes;	/* standard, counting: a fixed k; 0: the best */
	/* new members go here, at the end (see "Option structs" above) */
	size_t :0;
};

/* What bloom_size() computes; the caller sets sz, as for option structs. */
struct bloom_size_result {
	size_t sz;		/* sizeof(struct bloom_size_result) */
	enum bloom_type type;
	uint64_t capacity;	/* keys: as given, or the most that fit */
	uint32_t fpp_ppb;	/* rate as given, or what the size gives */
	uint64_t bits;		/* as info reports it (counting: counters) */
	uint32_t hashes;	/* k (dleft: subtables) */
	uint32_t fingerprint_bits;	/* dleft; else 0 */
	uint64_t memory_bytes;	/* the table: info --json's table_bytes */
	double bits_per_key;	/* bits / capacity, as info's bits_per_key */
	double expected_fpp;	/* the expected rate at capacity */
	size_t :0;
};
int bloom_size(const struct bloom_size_opts *opts, struct bloom_size_result *r);

int bloom_destroy(int fd, const char *name);
int bloom_bind(int fd, const char *name);

/* Parameters and statistics of @name, or of the bound filter if NULL. */
int bloom_info(int fd, const char *name, struct bloom_info *info);

/*
 * The stages of scalable filter @name (or of the bound filter if NULL),
 * or the generations of an expiring one, oldest first, into @stages (room
 * for @room; BLOOM_SCALE_STAGES_MAX is always enough). *@n gets the
 * number of stages, which may exceed @room. -EOPNOTSUPP for a filter that
 * is neither.
 */
int bloom_stages(int fd, const char *name, struct bloom_stage *stages,
		 size_t room, size_t *n);

/*
 * The names of all filters, sorted, in a malloc()ed array the caller frees
 * with free(); *n is their number (the array is NULL when there are none).
 */
int bloom_list(int fd, char (**names)[BLOOM_NAME_LEN], size_t *n);

/*
 * One key, through the bound filter. bloom_query() returns 1 "may be
 * present" or 0 "definitely absent"; bloom_add() returns 1 when every bit of
 * the key was set already ("probably present before") and 0 otherwise, or
 * -EOVERFLOW when the key would take the filter past the overfill bound
 * (see "Overfill" below; bloom_batch() with BLOOM_ADD_F_OVERFILL adds it
 * anyway).
 */
int bloom_add(int fd, const void *key, size_t len);
int bloom_query(int fd, const void *key, size_t len);

/*
 * Overfill. A standard, blocked or counting filter (not scalable, not
 * expiring: those grow or rotate) has a fixed size: keys past its capacity
 * raise its false-positive rate until it matches nearly every key it never
 * held, and a firewall rule that drops what it matches then drops nearly
 * everything. So every add of this library (bloom_add(), bloom_batch()'s
 * BLOOM_OP_ADD, bloom_builder_flush() of an ADD builder,
 * bloom_add_netblock()) first estimates the rate the filter would have
 * with the keys it holds and all @n keys of the call added, as distinct
 * new keys (bloom_add_estimate()), and refuses the call with -EOVERFLOW,
 * nothing added, when that rate is past the bound: BLOOM_OVERFILL_RATIO
 * times the rate the filter was created for, at most BLOOM_OVERFILL_MAX.
 * What to do: create a larger filter for the keys (bloom_size() sizes it)
 * and add them there, or, when a filter that full is what the caller wants,
 * add with BLOOM_ADD_F_OVERFILL (bloom_batch_opts' add_flags,
 * bloom_builder_add_flags()). d-left and timed filters refuse a key that
 * finds no room themselves (-ENOSPC).
 *
 * The estimate costs one BLOOM_IOC_INFO per call (a bounded number of
 * steps in the module, whatever the filter's size) before the keys are
 * sent: a system call more, which for a single key costs about as much
 * as the add itself; an add with BLOOM_ADD_F_OVERFILL skips it. A caller adding one key
 * at a time that wants to spare the call can check bloom_add_estimate()
 * now and then and add with the flag. An INFO that fails (an older module)
 * skips the check: the add itself then says what is wrong.
 *
 * The bound is best-effort against concurrent writers: the estimate is
 * read before the add, and keys other descriptors or threads add
 * between the two are not in it, so writers that each stay under the
 * bound can together pass it. One writer per filter (a feed, a daemon)
 * is held to it exactly, up to the estimate's own error.
 */
#define BLOOM_OVERFILL_RATIO	100
#define BLOOM_OVERFILL_MAX	0.5
/* add_flags: add even past the overfill bound (no estimate is made). */
#define BLOOM_ADD_F_OVERFILL	(1U << 0)

/*
 * What an add of @n more keys would do to filter @name (NULL: the bound
 * filter), from its INFO: the caller sets @e->sz (as for bloom_size()'s
 * result); the library fills what fits. Returns 1 when the add would pass
 * the overfill bound (the add calls refuse it with -EOVERFLOW), 0 when not
 * (also for a type the bound does not apply to: @bound is then 0), or a
 * negative errno of bloom_info(); -EINVAL for an @e that is NULL or too
 * small. @n counts as that many distinct new keys (the estimate cannot
 * know how many are in the filter already); it may be anything: a total
 * over 64 times the filter's bits (whose rate is 1 to double precision)
 * is taken as that many.
 */
struct bloom_add_estimate {
	size_t sz;		/* sizeof(struct bloom_add_estimate) */
	uint64_t capacity;	/* keys the filter was created for */
	/*
	 * Distinct keys the filter holds: INFO's estimated_keys or its count
	 * when larger, or, when every bit is set (no estimate), the keys
	 * passed to ADD (BLOOM_ESTIMATE_F_ADDED in @flags)
	 */
	uint64_t keys;
	uint32_t flags;
	double fpp;		/* the rate it was created for */
	double fpp_now;		/* the rate now, estimated (INFO's) */
	double fpp_after;	/* with @n more keys; 0 when @bound is 0 */
	double bound;		/* the add calls refuse past it; 0: none */
	/* new members go here, at the end (see "Option structs" above) */
	size_t :0;
};

/* bloom_add_estimate()'s @keys are the keys added, not an estimate */
#define BLOOM_ESTIMATE_F_ADDED	(1U << 0)
int bloom_add_estimate(int fd, const char *name, uint64_t n,
		       struct bloom_add_estimate *e);

/*
 * Mapped queries. bloom_query() and bloom_batch()'s BLOOM_OP_QUERY (without
 * BLOOM_BATCH_F_NET) read a standard or blocked filter's bits where the
 * module keeps them, through a read-only mapping of the descriptor
 * (struct bloom_map_header), with no system call per key, when the caller
 * may map it (CAP_NET_ADMIN, as for bloom_save()); else, and for other
 * types and address filters, through the ioctl. The answers are the same.
 * Each thread maps a descriptor the first time it queries it; a descriptor
 * the library opened, bound or queried must be closed with bloom_close(),
 * which drops the calling thread's mapping (another thread's goes at its
 * next query of that descriptor, or when it exits). Mapped queries are not
 * counted in the filter's queries and hits statistics.
 *
 * bloom_set_mapping(0) turns mapped queries off for the process (1: on,
 * the default unless the environment variable BLOOM_NO_MAP is set to
 * anything but "" or "0"); it returns the previous setting.
 * bloom_map_stats() fills @s with the calling thread's counts.
 */
struct bloom_map_stats {
	uint64_t queries;	/* keys answered through a mapping */
	uint64_t retries;	/* tests repeated: the filter changed meanwhile */
	uint64_t remaps;	/* mappings made again after such a change */
	uint64_t fallbacks;	/* calls the ioctl answered (in part) instead */
};
int bloom_set_mapping(int on);
void bloom_map_stats(struct bloom_map_stats *s);

/*
 * Counting and d-left filters only (-EOPNOTSUPP on the others): removes one
 * copy of the key. Returns BLOOM_DELETE_REMOVED (1) when it was found and
 * removed, BLOOM_DELETE_NOT_FOUND (0) when it was not found (nothing
 * changed; the module counts it in delete_misses), BLOOM_DELETE_PINNED (2)
 * when it was found but a saturated counter keeps it: it still tests
 * present and no delete can remove it for good (see "Deleting" in
 * userspace-api.rst). Deleting a key that was never added but happens to be
 * a false positive removes what other keys set: a later query of one of
 * them may then answer "absent". Delete only keys you added.
 */
enum bloom_delete_status {
	BLOOM_DELETE_NOT_FOUND = 0,
	BLOOM_DELETE_REMOVED = 1,
	BLOOM_DELETE_PINNED = 2,
};
int bloom_delete(int fd, const void *key, size_t len);

/*
 * A batch of @n keys through the bound filter: @op is BLOOM_OP_ADD,
 * BLOOM_OP_QUERY or BLOOM_OP_DELETE (any other: -EINVAL). The library
 * splits it into as many ioctls as BLOOM_BATCH_MAX_KEYS and
 * BLOOM_BATCH_MAX_BYTES require. Returns the number of keys whose result
 * bit is set: QUERY, may be present; ADD, present already; DELETE, found
 * and removed (a pinned key, see bloom_delete(), is not).
 *
 * @keys is an array of @n struct bloom_key (keys of any length), or, with
 * @opts->key_size, @n keys of key_size bytes packed one after the other.
 * @opts may be NULL: struct bloom_key keys, no outputs. Declare it with
 * BLOOM_BATCH_OPTS(), which zeroes it and sets sz:
 *
 *	uint8_t res[(N + 7) / 8];
 *	size_t done;
 *	BLOOM_BATCH_OPTS(o, .key_size = 4, .results = res, .done = &done);
 *	long hits = bloom_batch(fd, BLOOM_OP_QUERY, addrs, N, &o);
 *
 * @opts->sz as for every option struct (see "Option structs" above):
 * -EINVAL below the size of sz itself, -E2BIG for a larger struct with a
 * non-zero byte this library does not know.
 *
 * On an error, the keys of the ioctls that succeeded before it stay added
 * (or deleted): *@opts->done tells how many keys that is. An ADD that
 * fails with -ENOSPC (a full d-left filter, a scalable filter that cannot
 * grow) or, for a scalable filter, -EDQUOT or -ENOMEM keeps the keys before
 * the first that did not fit, and *@opts->done counts them too. An ADD
 * whose @n keys would take the filter past the overfill bound fails with
 * -EOVERFLOW before any is sent (see "Overfill" above).
 */
struct bloom_key {
	const void *data;
	size_t len;
};

struct bloom_batch_opts {
	size_t sz;		/* sizeof(struct bloom_batch_opts) */
	/* 0: @keys is struct bloom_key[n]; else the size of every key */
	size_t key_size;
	/*
	 * (n + 7) / 8 bytes, or NULL: bit (i % 8) of byte (i / 8) receives
	 * key i's result (see "Results" in userspace-api.rst)
	 */
	uint8_t *results;
	/*
	 * DELETE only (the module refuses it on ADD and QUERY: -EINVAL):
	 * (n + 7) / 8 bytes, or NULL, bit i set when key i was pinned. A key
	 * is removed (its results bit), pinned (its pinned bit) or not found
	 * (neither).
	 */
	uint8_t *pinned;
	size_t *npinned;	/* out, or NULL: DELETE: the pinned keys */
	size_t *done;		/* out, or NULL: keys done, also on an error */
	/*
	 * BLOOM_BATCH_F_NET: the keys are addresses and netblocks of one
	 * family (bloom_netblock_key()); QUERY looks addresses up over the
	 * netblock lengths the filter holds. BLOOM_BATCH_F_TIMEOUT (ADD to
	 * a timed filter): the keys' timeouts are @timeouts[i], or
	 * @timeout_s for all when @timeouts is NULL. Other bits: -EINVAL.
	 */
	uint32_t flags;
	uint32_t timeout_s;
	const uint32_t *timeouts;
	/*
	 * ADD only (else -EINVAL): BLOOM_ADD_F_OVERFILL adds past the
	 * overfill bound (see "Overfill" above); 0: a call that would pass
	 * it fails with -EOVERFLOW and adds nothing. Other bits: -EINVAL.
	 */
	uint32_t add_flags;
	/* new members go here, at the end (see "Option structs" above) */
	size_t :0;
};
#define BLOOM_BATCH_OPTS(NAME, ...) \
	BLOOM_OPTS(bloom_batch_opts, NAME, __VA_ARGS__)

long bloom_batch(int fd, enum bloom_op op, const void *keys, size_t n,
		 const struct bloom_batch_opts *opts);

/*
 * Netblocks ("Netblocks" in userspace-api.rst). The key of @addr/@plen of
 * @family (AF_INET: 4 bytes of @addr, @plen 0..32; AF_INET6: 16, 0..128)
 * into @key (BLOOM_NETBLOCK_KEY_MAX bytes): the address itself for a /32
 * or /128, else the address with its host bits cleared and the length
 * byte. Returns the key's length (4, 5, 16 or 17) or -EINVAL.
 */
#define BLOOM_NETBLOCK_KEY_MAX	17
int bloom_netblock_key(int family, const void *addr, unsigned int plen,
		       void *key);

/* bloom_netblock_parse(): clear host bits instead of refusing them. */
#define BLOOM_NETBLOCK_F_MASK	(1U << 0)

/*
 * Text to key: "203.0.113.0/24", "2001:db8::/32" or an address, of
 * @family (AF_INET, AF_INET6, or AF_UNSPEC for either), into @key
 * (BLOOM_NETBLOCK_KEY_MAX bytes). Returns the key's length; -EINVAL for
 * text that is no address or netblock of @family, -EDOM for host bits
 * set under the mask (203.0.113.9/24) without BLOOM_NETBLOCK_F_MASK in
 * @flags, as "ip route" refuses them.
 */
int bloom_netblock_parse(const char *text, int family, unsigned int flags,
			 void *key);

/*
 * Prefix expansion ("Prefix expansion" in userspace-api.rst). A plan is
 * the few netblock lengths, shorter than an address, a filter stores for
 * one family; a netblock of another length is stored as the netblocks of
 * the next planned length (or the addresses, past the last), so that a
 * lookup of an address tests at most 1 + @nlens lengths whatever the feed.
 * @hist below counts a feed's netblocks by length: 33 entries for AF_INET
 * (index 32: addresses), 129 for AF_INET6.
 */
struct bloom_prefix_plan {
	unsigned int nlens;
	unsigned char lens[BLOOM_PREFIX_LENGTHS_MAX];	/* ascending */
};
/* A netblock is stored as at most 2^16 keys (a /8 as /24s, not as /32s). */
#define BLOOM_PLAN_SHIFT_MAX	16
/* bloom_plan_auto()'s budget: memory for the same per-address rate. */
#define BLOOM_PLAN_MEMORY_RATIO	2.0

/*
 * A plan is checked before it is used: more than BLOOM_PREFIX_LENGTHS_MAX
 * lengths, a length of 0 or of a whole address or more, or lengths out of
 * ascending order make bloom_plan_keys() UINT64_MAX, bloom_plan_expand()
 * -EINVAL and bloom_plan_target() @plen.
 */
/* The length a netblock of @plen is stored at under @p (NULL: @plen). */
unsigned int bloom_plan_target(const struct bloom_prefix_plan *p, int family,
			       unsigned int plen);
/*
 * Keys @hist's netblocks take under @p (NULL: one each); UINT64_MAX when
 * one would take more than 2^BLOOM_PLAN_SHIFT_MAX.
 */
uint64_t bloom_plan_keys(const struct bloom_prefix_plan *p, int family,
			 const uint64_t *hist);
/*
 * The plan of at most @lookups - 1 lengths (a lookup then tests at most
 * @lookups: 2..BLOOM_PREFIX_LENGTHS_MAX + 1) that stores @hist in the
 * fewest keys (a dynamic program over the lengths): 0; -ERANGE when every
 * such plan expands a netblock into more than 2^BLOOM_PLAN_SHIFT_MAX keys
 * (allow more lookups); -EINVAL.
 */
int bloom_plan_choose(int family, const uint64_t *hist, unsigned int lookups,
		      struct bloom_prefix_plan *p);
/*
 * The plan of the fewest lookups (2..@max_lookups) whose filter, at a rate
 * per address of @fpp, takes at most BLOOM_PLAN_MEMORY_RATIO times the
 * memory @hist takes stored as it is (one lookup per length); none within
 * it: the fewest keys in @max_lookups (0 as well). -ERANGE, -EINVAL as
 * bloom_plan_choose().
 */
int bloom_plan_auto(int family, const uint64_t *hist, double fpp,
		    unsigned int max_lookups, struct bloom_prefix_plan *p);
/*
 * The keys that store the address or netblock @key (@klen bytes, of
 * @family) under @p, packed into @out (room for @room keys of up to
 * BLOOM_NETBLOCK_KEY_MAX bytes), each *@out_klen bytes: how many
 * (1 when its length is planned), -ENOSPC (too little room), -ERANGE
 * (more than 2^BLOOM_PLAN_SHIFT_MAX), -EINVAL (a bad plan, a @klen that is
 * neither an address nor a netblock of @family, a netblock's length byte
 * over the family's address length).
 */
long bloom_plan_expand(const struct bloom_prefix_plan *p, int family,
		       const void *key, int klen, void *out, size_t room,
		       int *out_klen);
/* @p as CREATE's and INFO's bitmaps: ORed into *@l4 or @l6[2]. */
void bloom_plan_bits(const struct bloom_prefix_plan *p, int family,
		     __u32 *l4, __u64 *l6);
/* The plan of @family a filter has (bloom_info()); nlens 0: none. */
void bloom_plan_of(const struct bloom_info *info, int family,
		   struct bloom_prefix_plan *p);

/*
 * Adds the address or netblock @text (bloom_netblock_parse(), host bits
 * refused) to the filter bound to @fd: 1 when it was present already, 0
 * when not, or -errno (EPROTOTYPE: the filter's keys are of another kind;
 * EOVERFLOW: past the overfill bound, see "Overfill" above).
 */
int bloom_add_netblock(int fd, const char *text);

/*
 * Snapshots (Documentation/snapshot.rst). A snapshot holds the filter's
 * secret hash key: keep it as private as the key (files mode 0600).
 *
 * bloom_save() writes a snapshot of filter @name (NULL: the bound filter)
 * into @buf (@len bytes) and its size into *@out_len (may be NULL). With
 * @buf NULL and @len 0 it only reports the size. -EOVERFLOW when @len is
 * too small (*@out_len then says how much is needed). Needs CAP_NET_ADMIN.
 * For counting and d-left filters the snapshot is one point in time: every
 * add and delete that returned before is in it, none in part; a standard
 * or blocked filter's add that runs during the save may be in it in part.
 *
 * bloom_save_alloc() does both steps and returns the snapshot in a
 * malloc()ed buffer the caller frees.
 */
int bloom_save(int fd, const char *name, void *buf, size_t len,
	       size_t *out_len);
int bloom_save_alloc(int fd, const char *name, void **buf, size_t *len);

/*
 * Creates a filter from the snapshot at @buf (@len bytes: the whole file),
 * named @name, or as the snapshot names it when @name is NULL. The module
 * checks everything before the filter appears; on any error nothing is
 * created and nothing changes. Errors beyond create's (-EEXIST, -EDQUOT,
 * -ENOMEM, -EPERM): -EBADMSG (not a snapshot, or damaged),
 * -EPROTONOSUPPORT (written by a bloom with another format version or
 * hash/position scheme, or a timed filter's of the earlier four-subtable
 * table, which "bloomctl restore" converts where it can), -E2BIG (over the
 * module's size limit).
 * @flags 0 or BLOOM_RESTORE_F_REPLACE: replace the contents of the existing
 * filter of that name instead (-ENOENT if there is none, -EINVAL if it is
 * of another type); queries running meanwhile see the old contents or the
 * new, never neither, and descriptors bound to it stay bound.
 */
int bloom_restore(int fd, const void *buf, size_t len, const char *name,
		  uint32_t flags);

/*
 * Filter @dst becomes the union of @dst and @src, which must have the same
 * type, geometry and hash key (create @src with opts.like = @dst, or both
 * from one snapshot): -EINVAL otherwise or when @dst is @src, -EOPNOTSUPP
 * for d-left filters and for a scalable filter with one that is not.
 * Counting counters add up and stay at 15 once there. Two scalable filters
 * of the same parameters and hash key merge stage by stage, @dst first
 * getting the stages it lacks (-EDQUOT or -ENOMEM when one does not fit).
 */
int bloom_merge(int fd, const char *dst, const char *src);

/*
 * Removes every key of @name, keeping its geometry and hash key; its
 * statistics restart from zero. A scalable filter goes back to its first
 * stage, empty, and the memory of the others is given back; the new first
 * stage is made before the old stages go, so this may fail with -EDQUOT
 * or -ENOMEM (nothing changed then).
 */
int bloom_flush(int fd, const char *name);

/*
 * Exchanges the contents (geometry, hash key, keys, statistics) of filters
 * @a and @b, which must be of one type (-EINVAL otherwise), in one step,
 * as ipset's swap: names, sysfs directories and bound descriptors stay.
 * The way to replace a live filter without a gap: fill a new one (or
 * restore a snapshot under a temporary name), swap, destroy the old.
 */
int bloom_swap(int fd, const char *a, const char *b);

/* Bit i of a results bitmap: 1 or 0. */
static inline int bloom_result(const uint8_t *results, size_t i)
{
	return (results[i / 8] >> (i % 8)) & 1;
}

/*
 * Batch builder: accumulates keys (copied) into one ioctl-sized batch for
 * streams of unknown length, such as a file read line by line.
 *
 *	bloom_builder_new(&b, fd, BLOOM_IOC_QUERY, 0);
 *	for each key:
 *		if (!bloom_builder_room(b, len)) {
 *			bloom_builder_flush(b);
 *			... bloom_builder_result(b, i) for the flushed keys ...
 *		}
 *		bloom_builder_push(b, key, len);
 *	bloom_builder_flush(b); ... results of the last batch ...
 *	bloom_builder_free(b);
 *
 * After a flush, the flushed keys and their results stay readable until the
 * next push, which starts a new batch.
 */
struct bloom_builder;

/*
 * @cmd is BLOOM_IOC_ADD, BLOOM_IOC_QUERY or BLOOM_IOC_DELETE; @key_size 0 =
 * variable keys.
 */
int bloom_builder_new(struct bloom_builder **out, int fd, unsigned long cmd,
		      size_t key_size);
void bloom_builder_free(struct bloom_builder *b);
/* 1 if a key of @len bytes fits before a flush, 0 if not, -EINVAL if @len
 * can never be a key (0, over BLOOM_KEY_MAX, or not the fixed key size). */
int bloom_builder_room(const struct bloom_builder *b, size_t len);
/*
 * ADD builders of a timed filter: the keys pushed from now on get
 * @timeout_s (0: none) instead of the filter's default timeout.
 */
int bloom_builder_timeout(struct bloom_builder *b, uint32_t timeout_s);
/*
 * ADD builders: the add_flags of the flushes from now on (see "Overfill"
 * above: BLOOM_ADD_F_OVERFILL, or 0, the default); -EINVAL for another
 * builder or an unknown bit.
 */
int bloom_builder_add_flags(struct bloom_builder *b, uint32_t add_flags);
/* Copies the key in; -ENOSPC when there is no room (flush first). */
int bloom_builder_push(struct bloom_builder *b, const void *key, size_t len);
/*
 * Sends the pending keys; returns how many of them have their bit set, or a
 * negative errno. A failed ADD may have added some of them (a full d-left
 * or scalable filter keeps the keys before the first that did not fit):
 * bloom_builder_done() says how many. An ADD of keys that would take the
 * filter past the overfill bound fails with -EOVERFLOW, none of them sent
 * (see "Overfill" above); they stay pending.
 */
long bloom_builder_flush(struct bloom_builder *b);
/*
 * Keys of the last flush that were done: all of them after a success; after
 * an error, those before the first key not done (0 for most errors).
 */
size_t bloom_builder_done(const struct bloom_builder *b);
/* Keys in the current batch (pending, or just flushed). */
size_t bloom_builder_count(const struct bloom_builder *b);
/* Result of key @i of the batch just flushed: 1 or 0. */
int bloom_builder_result(const struct bloom_builder *b, size_t i);
/*
 * DELETE builders: 1 when key @i of the batch just flushed was pinned (its
 * result is 0), else 0; and how many of that batch's keys were.
 */
int bloom_builder_pinned(const struct bloom_builder *b, size_t i);
size_t bloom_builder_npinned(const struct bloom_builder *b);
/* Key @i of the current batch. */
void bloom_builder_key(const struct bloom_builder *b, size_t i,
		       const void **key, size_t *len);

/*
 * Writes into @buf a sentence that says what went wrong and what to do,
 * e.g. "/dev/bloom not found: is the bloom module loaded? (modprobe bloom)".
 * @subject is the device path for BLOOM_OP_OPEN and the filter name for the
 * others (NULL if unknown), printed with every byte outside printable ASCII
 * as \xHH. @err is the negative errno a function returned. An @op outside
 * enum bloom_op gets a generic message. Writes at most @len bytes, always
 * NUL-terminated (nothing when @len is 0). Returns @buf.
 */
const char *bloom_strerror(char *buf, size_t len, enum bloom_op op,
			   const char *subject, int err);

#ifdef __cplusplus
}
#endif

#endif /* LIBBLOOM_H */
