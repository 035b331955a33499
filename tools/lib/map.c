// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * Queries through a mapping of the bound filter (struct bloom_map_header in
 * <linux/bloom.h>): bloom_query() (here) and bloom_batch()'s QUERY hash
 * with the filter core, the very code bloom.ko runs, and test the bits in
 * place, no system call per key. The ioctl answers whenever the mapping cannot: the
 * module or the caller cannot map (another type, no CAP_NET_ADMIN), an
 * address filter (its queries look netblocks up), a change under way, or
 * mapping is off (bloom_set_mapping(), BLOOM_NO_MAP).
 *
 * A reader follows the header's sequence number: it reads it (acquire),
 * tests the key, reads it again after a read fence; a change in between
 * asks again. A number that differs from the one the mapping was made
 * under means the filter changed in a way an add does not (a swap, a
 * replacing restore, a flush, a merge, its key kind, a destroy): the
 * mapping is made again, of what the filter holds now. An add sets bits
 * in place and changes no number, so a key whose add returned before a
 * query began is found.
 *
 * A daemon's one key at a time is bloom_query()'s fast path: a few loads
 * of the thread's own slot (state, key kind and generation were settled
 * when the mapping was made), the two reads of the number and the core's
 * lone lookup, which stops at the first clear bit; everything else
 * (making a mapping, a change, the ioctl) is lb_map_query_slow()'s.
 *
 * Mappings are per thread: a thread makes its own the first time it
 * queries a descriptor and unmaps it when it makes a new one, so no thread
 * ever unmaps what another is reading, and no query takes a lock or an
 * atomic read-modify-write. A descriptor number's generation (fdgen.c)
 * says when the library opened, bound or closed it since: a mapping of
 * what the number meant before is dropped.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core.h"
#include "internal.h"

enum lb_map_state {
	LB_MAP_NONE,	/* not tried for this generation */
	LB_MAP_ON,
	LB_MAP_OFF,	/* refused for this generation: the ioctl answers */
};

struct lb_map {
	uint32_t gen;
	enum lb_map_state state;
	const struct bloom_map_header *hdr;
	size_t len;
	uint64_t seq;		/* the header's when mapped: even */
	bool plain;		/* keys not addresses (under @seq): mapped queries */
	struct bloom_core core;	/* geometry and key; words in the mapping */
};

struct lb_thread {
	struct lb_map *maps;	/* indexed by descriptor */
	int n;
	struct bloom_map_stats stats;
};

/* Keys hashed, then tested as one batch of the core, per round. */
#define LB_MAP_CHUNK	64
/* Changes in a row one query waits out before it asks the ioctl. */
#define LB_MAP_TRIES	4

static __thread struct lb_thread *lb_self
	__attribute__((tls_model("initial-exec")));
static pthread_key_t lb_key;
static pthread_once_t lb_once = PTHREAD_ONCE_INIT;
/* -1: not decided yet (BLOOM_NO_MAP decides at the first query) */
static _Atomic int lb_enabled = -1;

static void lb_unmap(struct lb_map *m)
{
	if (m->hdr)
		munmap((void *)m->hdr, m->len);
	m->hdr = NULL;
	m->state = LB_MAP_NONE;
}

static void lb_thread_free(void *p)
{
	struct lb_thread *t = p;
	int i;

	for (i = 0; i < t->n; i++)
		lb_unmap(&t->maps[i]);
	free(t->maps);
	free(t);
	lb_self = NULL;
}

static void lb_key_init(void)
{
	if (pthread_key_create(&lb_key, lb_thread_free))
		lb_enabled = 0;
}

int bloom_set_mapping(int on)
{
	int was = lb_enabled;

	lb_enabled = !!on;
	return was < 0 ? 1 : was;
}

static bool lb_mapping_on(void)
{
	int on = lb_enabled;

	if (on < 0) {
		const char *no = getenv("BLOOM_NO_MAP");

		on = !(no && *no && strcmp(no, "0"));
		lb_enabled = on;
	}
	return on;
}

void bloom_map_stats(struct bloom_map_stats *s)
{
	if (lb_self)
		*s = lb_self->stats;
	else
		memset(s, 0, sizeof(*s));
}

/* The calling thread's slot for @fd, grown as needed; NULL without memory. */
static struct lb_map *lb_slot(int fd)
{
	struct lb_thread *t = lb_self;
	struct lb_map *maps;
	int n;

	if (!t) {
		pthread_once(&lb_once, lb_key_init);
		t = calloc(1, sizeof(*t));
		if (!t)
			return NULL;
		if (pthread_setspecific(lb_key, t)) {
			free(t);
			return NULL;
		}
		lb_self = t;
	}
	if (fd >= t->n) {
		n = fd + 16 < LB_FD_GEN_MAX ? fd + 16 : LB_FD_GEN_MAX;
		maps = realloc(t->maps, (size_t)n * sizeof(*maps));
		if (!maps)
			return NULL;
		memset(maps + t->n, 0, (size_t)(n - t->n) * sizeof(*maps));
		t->maps = maps;
		t->n = n;
	}
	return &t->maps[fd];
}

/*
 * Maps @fd's filter into @m: 0, -EAGAIN (a change under way: the ioctl
 * answers this time, the next query tries again) or why it cannot be.
 */
static int lb_map_open(int fd, struct lb_map *m)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	const struct bloom_map_header *h;
	struct bloom_geometry geo;
	bloom_hash_key_t key;
	size_t len;
	uint64_t seq;
	int hash;

	h = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		return -errno;
	len = h->map_len;
	munmap((void *)h, page);
	h = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		return errno == EINVAL ? -EAGAIN : -errno;
	m->hdr = h;
	m->len = len;
	seq = __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE);
	if (h->map_len != len || (seq & 1))
		goto again;
	/* the scheme names the hash: a module older than @hash says 0 there */
	hash = bloom_hash_of_scheme(h->scheme);
	if (h->magic != BLOOM_MAP_MAGIC ||
	    h->header_size < lb_offsetofend(struct bloom_map_header, hash_key) ||
	    hash < 0 || h->hash != (uint32_t)hash ||
	    (h->type != BLOOM_TYPE_STANDARD && h->type != BLOOM_TYPE_BLOCKED))
		goto refuse;
	memset(&geo, 0, sizeof(geo));
	geo.type = h->type;
	geo.hashes = h->hashes;
	geo.bits = h->bits;
	geo.capacity = 1;	/* not the reader's business: any valid one */
	geo.fpp_ppb = 1;
	if (bloom_geometry_check(&geo) ||
	    bloom_core_storage_bytes(&geo) != h->bits_len ||
	    h->bits_offset < page || h->bits_offset > len ||
	    h->bits_len > len - h->bits_offset)
		goto refuse;
	bloom_hash_key_init(&key, h->hash_key, (uint32_t)hash);
	bloom_core_init(&m->core, &geo, &key,
			(unsigned long *)((uintptr_t)h + h->bits_offset));
	memset(&key, 0, sizeof(key));
	/* an address filter's queries look netblocks up: the ioctl's to do */
	m->plain = h->keys != BLOOM_KEYS_IPV4 && h->keys != BLOOM_KEYS_IPV6;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&h->seq, __ATOMIC_RELAXED) != seq)
		goto again;
	m->seq = seq;
	return 0;

again:
	lb_unmap(m);
	return -EAGAIN;
refuse:
	lb_unmap(m);
	return -EPROTO;
}

/* The calling thread's mapping of @fd's filter, made if need be; or NULL. */
static struct lb_map *lb_map_for(int fd)
{
	struct lb_map *m;
	uint32_t gen;
	int err;

	if (fd < 0 || fd >= LB_FD_GEN_MAX || !lb_mapping_on())
		return NULL;
	m = lb_slot(fd);
	if (!m)
		return NULL;
	gen = lb_fd_gen(fd);
	if (m->state != LB_MAP_NONE && m->gen != gen)
		lb_unmap(m);
	m->gen = gen;
	if (m->state == LB_MAP_NONE) {
		err = lb_map_open(fd, m);
		if (err == -EAGAIN)
			return NULL;
		m->state = err ? LB_MAP_OFF : LB_MAP_ON;
	}
	return m->state == LB_MAP_ON ? m : NULL;
}

void lb_map_forget(int fd)
{
	if (lb_self && fd >= 0 && fd < lb_self->n)
		lb_unmap(&lb_self->maps[fd]);
}

/*
 * The seqcount's read side: the number, even and the mapping's, before
 * the bits are read; NULL-safe callers check lb_map_still() after.
 */
static bool lb_map_begin(struct lb_map *m, uint64_t *seq)
{
	*seq = __atomic_load_n(&m->hdr->seq, __ATOMIC_ACQUIRE);
	if (*seq == m->seq)
		return true;
	m->state = LB_MAP_NONE;	/* made again by the next lb_map_for() */
	lb_unmap(m);
	lb_self->stats.remaps++;
	return false;
}

static bool lb_map_still(struct lb_map *m, uint64_t seq)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&m->hdr->seq, __ATOMIC_RELAXED) == seq)
		return true;
	lb_self->stats.retries++;
	return false;
}

/*
 * Every case bloom_query() leaves to it: a mapping to make, a change, a
 * refusal, mapping off: the mapping's answer, or the ioctl's.
 */
static __attribute__((noinline)) int lb_map_query_slow(int fd, const void *key,
							size_t len)
{
	struct lb_map *m;
	uint64_t seq;
	int i, r;

	if (len == 0 || len > BLOOM_KEY_MAX)
		return -EINVAL;
	for (i = 0; i < LB_MAP_TRIES; i++) {
		m = lb_map_for(fd);
		if (!m)
			break;
		if (!lb_map_begin(m, &seq))
			continue;
		if (!m->plain)
			break;
		r = bloom_core_lookup_hash(&m->core,
					   bloom_core_hash(&m->core, key, len));
		if (lb_map_still(m, seq)) {
			lb_self->stats.queries++;
			return r;
		}
	}
	if (lb_self)
		lb_self->stats.fallbacks++;
	return lb_one_key(fd, BLOOM_IOC_QUERY, key, len);
}

/*
 * One key as most calls go: this thread's mapping of @fd, made for what
 * @fd means now, of a filter whose keys are not addresses, and a header
 * number that is the mapping's before the test and after it. The checks
 * are loads of this thread's own slot, the key kind was read when the
 * mapping was made (it changes only with the number); every other case
 * goes the slow way, which makes mappings, counts and retries.
 */
int bloom_query(int fd, const void *key, size_t len)
{
	struct lb_thread *t = lb_self;
	const struct lb_map *m;
	uint64_t seq;
	bool r;
	int on;

	if (!t || (unsigned int)fd >= (unsigned int)t->n)
		return lb_map_query_slow(fd, key, len);
	m = &t->maps[fd];
	/*
	 * One branch for the lot: the conditions are loads the CPU has in
	 * cache, cheaper combined than each mispredicted on its own.
	 */
	on = atomic_load_explicit(&lb_enabled, memory_order_relaxed);
	if ((m->state != LB_MAP_ON) | !m->plain | (m->gen != lb_fd_gen(fd)) |
	    (on != 1) | (len - 1 >= BLOOM_KEY_MAX))
		return lb_map_query_slow(fd, key, len);
	seq = __atomic_load_n(&m->hdr->seq, __ATOMIC_ACQUIRE);
	if (seq != m->seq)
		return lb_map_query_slow(fd, key, len);
	r = bloom_core_lookup_hash(&m->core, bloom_core_hash(&m->core, key,
							     len));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&m->hdr->seq, __ATOMIC_RELAXED) != seq) {
		t->stats.retries++;
		return lb_map_query_slow(fd, key, len);
	}
	t->stats.queries++;
	return r;
}

static const void *lb_key_at(const void *keys, size_t key_size, size_t i,
			     size_t *len)
{
	const struct bloom_key *k;

	if (key_size) {
		*len = key_size;
		return (const uint8_t *)keys + i * key_size;
	}
	k = (const struct bloom_key *)keys + i;
	*len = k->len;
	return k->data;
}

/* Keys @start..@start + @cnt through @m: their hits, or -1 after a change. */
static long lb_map_chunk(struct lb_map *m, const void *keys, size_t key_size,
			 size_t start, size_t cnt, uint8_t *results)
{
	uint8_t res[LB_MAP_CHUNK / 8];
	uint64_t hashes[LB_MAP_CHUNK];
	const void *key;
	uint64_t seq;
	size_t i, len;
	long hits;

	if (!lb_map_begin(m, &seq))
		return -1;
	for (i = 0; i < cnt; i++) {
		key = lb_key_at(keys, key_size, start + i, &len);
		hashes[i] = bloom_core_hash(&m->core, key, len);
	}
	hits = bloom_core_query_batch(&m->core, hashes, (u32)cnt,
				      results ? res : NULL);
	if (!lb_map_still(m, seq))
		return -1;
	if (results)
		memcpy(results + start / 8, res, (cnt + 7) / 8);
	return hits;
}

long lb_map_batch(int fd, const void *keys, size_t n, size_t key_size,
		  uint8_t *results, size_t *done)
{
	size_t i, len, start = 0, cnt;
	struct lb_map *m;
	long hits = 0, got;
	int tries;

	*done = 0;
	if (key_size > BLOOM_KEY_MAX)
		return 0;
	/* a key the ioctl refuses: let it say so, before any is answered */
	for (i = 0; !key_size && i < n; i++) {
		lb_key_at(keys, 0, i, &len);
		if (len == 0 || len > BLOOM_KEY_MAX)
			return 0;
	}
	while (start < n) {
		cnt = n - start < LB_MAP_CHUNK ? n - start : LB_MAP_CHUNK;
		got = -1;
		for (tries = 0; got < 0 && tries < LB_MAP_TRIES; tries++) {
			m = lb_map_for(fd);
			if (!m || !m->plain)
				break;
			got = lb_map_chunk(m, keys, key_size, start, cnt,
					   results);
		}
		if (got < 0)
			break;
		lb_self->stats.queries += cnt;
		hits += got;
		start += cnt;
	}
	if (start < n && lb_self)
		lb_self->stats.fallbacks++;
	*done = start;
	return hits;
}
