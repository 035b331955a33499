/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The only header the filter core includes: maps what the core needs to the
 * kernel's helpers in bloom.ko and to libc in userspace.
 *
 * Both sides provide: u8/u32/u64, bool, size_t, errno values, the SipHash
 * round and constants (SIPHASH_PERMUTATION(), SIPHASH_CONST_0..3, from the
 * kernel's <linux/siphash.h>), rol64(), get_unaligned_le32()/_le64(),
 * the statement attribute that marks a switch case falling through,
 * set_bit(), test_bit() and clear_bit() (atomic),
 * BIT_WORD/BIT_MASK/BITS_PER_LONG, hweight_long(), __ffs64() (the lowest
 * set bit's index, of a non-zero word), prefetch()/prefetchw(),
 * READ_ONCE()/WRITE_ONCE(), mul_u64_u64_shr() (64x64->128 multiply,
 * shifted), mul_u64_u64_div_u64() (the same, divided), div64_u64() (the
 * kernel has no plain 64-bit division on 32-bit machines),
 * smp_load_acquire()/smp_store_release() and cmpxchg64() (returns the old
 * value; fully ordered in the kernel, relaxed is all the core relies on),
 * xxh64 for the snapshot checksums: bloom_xxh64_state, bloom_xxh64_reset()
 * (seed 0), bloom_xxh64_update(), bloom_xxh64_digest() (the kernel's
 * lib/xxhash.c; in userspace libxxhash's header, inlined, so nothing extra
 * is linked), bloom_cond_resched() for long scans (a no-op in
 * userspace), a 64-bit atomic counter, bloom_atomic64_t with
 * bloom_atomic64_add()/_read()/_set() (relaxed: statistics only, nothing is
 * ordered by them).
 */
#ifndef BLOOM_CORE_SHIM_H
#define BLOOM_CORE_SHIM_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/errno.h>
#include <linux/siphash.h>
#include <linux/bitops.h>
#include <asm/unaligned.h>
#include <linux/math64.h>
#include <linux/prefetch.h>
#include <linux/compiler.h>
#include <linux/atomic.h>
#include <linux/xxhash.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>

#define bloom_xxh64_state	struct xxh64_state
#define bloom_xxh64_reset(s)	xxh64_reset((s), 0)
#define bloom_xxh64_update(s, p, n)	xxh64_update((s), (p), (n))
#define bloom_xxh64_digest(s)	xxh64_digest(s)

/* Long scans (snapshot checks) yield now and then. */
#define bloom_cond_resched()	cond_resched()

/*
 * Seconds debugfs' "slept" says the machine slept beyond what it did
 * (module/debug.c): a test's suspend, which CLOCK_BOOTTIME counts and
 * jiffies do not. 0 but in tests.
 */
extern u64 bloom_clock_slept_s;

/* Whole seconds of CLOCK_BOOTTIME (coarse: no clock read per packet). */
static inline u64 bloom_clock_s(void)
{
	return (u64)ktime_get_boottime_seconds() +
	       READ_ONCE(bloom_clock_slept_s);
}

#define bloom_atomic64_t	atomic64_t

static inline void bloom_atomic64_add(s64 v, atomic64_t *a)
{
	atomic64_add(v, a);
}

static inline u64 bloom_atomic64_read(const atomic64_t *a)
{
	return (u64)atomic64_read(a);
}

static inline void bloom_atomic64_set(atomic64_t *a, u64 v)
{
	atomic64_set(a, (s64)v);
}

#else /* userspace */

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <errno.h>
#include <string.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

typedef __UINT8_TYPE__ u8;
typedef __UINT16_TYPE__ u16;
typedef __UINT32_TYPE__ u32;
typedef __UINT64_TYPE__ u64;
typedef __INT64_TYPE__ s64;

#define BITS_PER_LONG	(__SIZEOF_LONG__ * 8)
#define BIT_WORD(nr)	((nr) / BITS_PER_LONG)
#define BIT_MASK(nr)	(1UL << ((nr) % BITS_PER_LONG))

/* the kernel's opt-out of CONFIG_INIT_STACK_ALL_ZERO; userspace zeroes nothing */
#define __uninitialized

#define READ_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)
/* one untorn store, like the kernel's for naturally aligned words */
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* the kernel's acquire load, for reading a published pointer */
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
/* the kernel's release store, for publishing a pointer */
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)

static inline u64 cmpxchg64(u64 *p, u64 old, u64 new)
{
	__atomic_compare_exchange_n(p, &old, new, false, __ATOMIC_SEQ_CST,
				    __ATOMIC_SEQ_CST);
	return old;
}

static inline void set_bit(u64 nr, unsigned long *addr)
{
	__atomic_fetch_or(&addr[BIT_WORD(nr)], BIT_MASK(nr), __ATOMIC_RELAXED);
}

#define unlikely(x)	__builtin_expect(!!(x), 0)

static inline bool test_bit(u64 nr, const unsigned long *addr)
{
	return (__atomic_load_n(&addr[BIT_WORD(nr)], __ATOMIC_RELAXED) >>
		(nr % BITS_PER_LONG)) & 1;
}

static inline void clear_bit(u64 nr, unsigned long *addr)
{
	__atomic_fetch_and(&addr[BIT_WORD(nr)], ~BIT_MASK(nr), __ATOMIC_RELAXED);
}

/* The kernel's atomic64_t, as far as the core uses it. */
struct bloom_atomic64 {
	u64 counter;
};

#define bloom_atomic64_t	struct bloom_atomic64

static inline void bloom_atomic64_add(s64 v, bloom_atomic64_t *a)
{
	__atomic_fetch_add(&a->counter, (u64)v, __ATOMIC_RELAXED);
}

static inline u64 bloom_atomic64_read(const bloom_atomic64_t *a)
{
	return __atomic_load_n(&a->counter, __ATOMIC_RELAXED);
}

static inline void bloom_atomic64_set(bloom_atomic64_t *a, u64 v)
{
	__atomic_store_n(&a->counter, v, __ATOMIC_RELAXED);
}

static inline unsigned long __ffs64(u64 w)
{
	return (unsigned long)__builtin_ctzll(w);
}

/*
 * Without -mpopcnt, __builtin_popcountl() is a call into libgcc. The
 * kernel's hweight_long() is the popcnt instruction wherever the CPU has it
 * (patched in at boot), so on x86 this does the same, asking the CPU once.
 */
#ifdef __x86_64__
static inline unsigned int hweight_long(unsigned long w)
{
	unsigned long r;

	if (!__builtin_cpu_supports("popcnt"))
		return (unsigned int)__builtin_popcountl(w);
	__asm__("popcntq %1, %0" : "=r" (r) : "rm" (w));
	return (unsigned int)r;
}
#else
static inline unsigned int hweight_long(unsigned long w)
{
	return (unsigned int)__builtin_popcountl(w);
}
#endif

/*
 * On x86 a read prefetch is asm, as in the kernel: GCC 12 at -O2 deletes
 * some __builtin_prefetch() calls (stage one of the standard batched query
 * vanished entirely), and an asm volatile statement is never deleted.
 */
#ifdef __x86_64__
static inline void prefetch(const void *x)
{
	__asm__ volatile("prefetcht0 %0" : : "m" (*(const char *)x));
}
#else
#define prefetch(x)	__builtin_prefetch((x), 0)
#endif
#define prefetchw(x)	__builtin_prefetch((x), 1)

static inline u64 mul_u64_u64_shr(u64 a, u64 b, unsigned int shift)
{
	return (u64)(((__uint128_t)a * b) >> shift);
}

static inline u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 c)
{
	return (u64)(((__uint128_t)a * b) / c);
}

static inline u64 div64_u64(u64 a, u64 b)
{
	return a / b;
}

#define fallthrough	__attribute__((__fallthrough__))

static inline u64 rol64(u64 word, unsigned int shift)
{
	return (word << (shift & 63)) | (word >> ((-shift) & 63));
}

/*
 * The kernel's SipHash round (include/linux/siphash.h), the same steps on
 * the four state words; a function, so that each argument is named once.
 */
static inline void bloom_sip_permute(u64 *a, u64 *b, u64 *c, u64 *d)
{
	*a += *b;
	*b = rol64(*b, 13);
	*b ^= *a;
	*a = rol64(*a, 32);
	*c += *d;
	*d = rol64(*d, 16);
	*d ^= *c;
	*a += *d;
	*d = rol64(*d, 21);
	*d ^= *a;
	*c += *b;
	*b = rol64(*b, 17);
	*b ^= *c;
	*c = rol64(*c, 32);
}

#define SIPHASH_PERMUTATION(a, b, c, d)	bloom_sip_permute(&(a), &(b), &(c), &(d))

#define SIPHASH_CONST_0	0x736f6d6570736575ULL
#define SIPHASH_CONST_1	0x646f72616e646f6dULL
#define SIPHASH_CONST_2	0x6c7967656e657261ULL
#define SIPHASH_CONST_3	0x7465646279746573ULL

/* Little-endian loads from any address, as the kernel's. */
static inline u32 get_unaligned_le32(const void *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}

static inline u64 get_unaligned_le64(const void *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

/* The kernel's xxh64 streaming API, from libxxhash (same function). */
#define bloom_xxh64_state	XXH64_state_t
#define bloom_xxh64_reset(s)	((void)XXH64_reset((s), 0))
#define bloom_xxh64_update(s, p, n)	((void)XXH64_update((s), (p), (n)))
#define bloom_xxh64_digest(s)	((u64)XXH64_digest(s))

#define bloom_cond_resched()	do { } while (0)

#include <time.h>

/*
 * The clock the timed type reads: CLOCK_BOOTTIME in whole seconds, as the
 * module's, or the time tests and benchmarks set with bloom_clock_set_s()
 * (0 gives the real clock back), so that they move time as the module's
 * clock would move and a lookup reads no clock, as the module's coarse
 * one costs none. Not for threads that disagree on the time.
 */
extern u64 bloom_clock_fixed_s;
/*
 * When set (and no time is), the clock read instead of CLOCK_BOOTTIME: a
 * benchmark's model of what another clock costs (bench-bans-native's of
 * the module's coarse one).
 */
extern u64 (*bloom_clock_source)(void);

static inline void bloom_clock_set_s(u64 s)
{
	bloom_clock_fixed_s = s;
}

static inline u64 bloom_clock_s(void)
{
	struct timespec ts;

	if (bloom_clock_fixed_s)
		return bloom_clock_fixed_s;
	if (bloom_clock_source)
		return bloom_clock_source();
	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (u64)ts.tv_sec;
}

#endif /* __KERNEL__ */

#endif /* BLOOM_CORE_SHIM_H */
