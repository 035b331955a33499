// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Scalable filters: a chain of standard or blocked stages (core.h has the
 * scheme). The filter that callers hold is a struct bloom_core whose
 * operations are the chain's, so every query path (batches, single keys,
 * whoever calls the core) sees all the stages; only the add needs the
 * caller's help, to allocate a stage when the newest is full.
 */
#include "internal.h"
#include "timed.h"

#define BLOOM_PPM_ONE	1000000ULL

int bloom_scale_stage_params(const struct bloom_scale_params *p, u32 i,
			     u64 *capacity, u32 *fpp_ppb)
{
	u64 cap = p->capacity, q;
	u32 j;

	if (i >= BLOOM_CORE_STAGES_MAX)
		return -ENOSPC;
	for (j = 0; j < i; j++) {
		/* cap <= 2^32 here and growth <= 16: no overflow */
		cap *= p->growth;
		if (cap > BLOOM_CORE_CAPACITY_MAX)
			return -ENOSPC;
	}
	/*
	 * q = P * (1 - r) in ppb with 16 fraction bits, then times r (ppm) i
	 * times, each step rounded down: exact whenever the rate is a whole
	 * multiple of 2^-16 ppb. P * (1 - r) <= 2.5e8 ppb, so q < 2^44 and
	 * q * r ppm < 1.6e19 < 2^64.
	 */
	q = div64_u64((u64)p->fpp_ppb * (BLOOM_PPM_ONE - p->tightening_ppm) <<
		      16, BLOOM_PPM_ONE);
	for (j = 0; j < i; j++)
		q = div64_u64(q * p->tightening_ppm, BLOOM_PPM_ONE);
	q >>= 16;
	if (q < BLOOM_CORE_FPP_PPB_MIN)
		return -ENOSPC;
	*capacity = cap;
	*fpp_ppb = (u32)q;
	return 0;
}

int bloom_scale_stage_geometry(const struct bloom_scale_params *p, u32 i,
			       struct bloom_geometry *geo)
{
	u64 capacity;
	u32 fpp_ppb;
	int ret;

	ret = bloom_scale_stage_params(p, i, &capacity, &fpp_ppb);
	if (ret)
		return ret;
	return bloom_geometry_size(p->type, capacity, fpp_ppb, geo);
}

int bloom_scale_check(const struct bloom_scale_params *p)
{
	struct bloom_geometry geo;
	int ret;

	if (p->type != BLOOM_CORE_STANDARD && p->type != BLOOM_CORE_BLOCKED &&
	    p->type != BLOOM_CORE_TIMED)
		return -EOPNOTSUPP;
	if (p->growth < BLOOM_CORE_GROWTH_MIN ||
	    p->growth > BLOOM_CORE_GROWTH_MAX ||
	    p->tightening_ppm < BLOOM_CORE_TIGHTENING_MIN ||
	    p->tightening_ppm > BLOOM_CORE_TIGHTENING_MAX ||
	    !bloom_capacity_rate_valid(p->capacity, p->fpp_ppb))
		return -EINVAL;
	ret = bloom_scale_stage_geometry(p, 0, &geo);
	return ret == -ENOSPC ? -EINVAL : ret;
}

u32 bloom_scale_stages(const struct bloom_core *f)
{
	/* Pairs with smp_store_release() in bloom_scale_publish(). */
	return smp_load_acquire(&f->scale->nstages);
}

const struct bloom_scale_stage *bloom_scale_stage(const struct bloom_core *f,
						  u32 i)
{
	return f->scale->stage[i];
}

u32 bloom_scale_list(const struct bloom_core *f,
		     const struct bloom_scale_stage **st)
{
	const struct bloom_scale_stage *s, *last = NULL;
	u32 i = bloom_scale_stages(f), k = 0;

	/*
	 * An unlink moves the stages after the gone one down a place, in
	 * ascending order of place (bloom_scale_unlink()): read in
	 * descending order, a stage is found at its old place or, once that
	 * was overwritten, at its new one, which was written before. It may
	 * be found at both: one after the other is skipped here.
	 */
	while (i--) {
		/* Pairs with smp_store_release() in bloom_scale_unlink(). */
		s = smp_load_acquire(&f->scale->stage[i]);
		if (s != last)
			st[k++] = s;
		last = s;
	}
	return k;
}

struct bloom_scale_stage *bloom_scale_unlink(struct bloom_core *f, u32 i)
{
	struct bloom_scale *s = f->scale;
	struct bloom_scale_stage *gone = s->stage[i];
	u32 n = s->nstages, j;

	for (j = i; j + 1 < n; j++) {
		/*
		 * Pairs with smp_load_acquire() in bloom_scale_list(), which
		 * needs the stages moved in ascending order of place.
		 */
		smp_store_release(&s->stage[j], s->stage[j + 1]);
	}
	/* Pairs with smp_load_acquire() in bloom_scale_stages(). */
	smp_store_release(&s->nstages, n - 1);
	return gone;
}

u32 bloom_scale_unlink_empty(struct bloom_core *f,
			     struct bloom_scale_stage **gone)
{
	u32 i, k = 0;

	if (!bloom_core_is_timed(f) || f->scale->nstages < 2)
		return 0;
	/* from the newest down: an unlink moves only the stages after it */
	for (i = f->scale->nstages - 1; i--;)
		if (!bloom_timed_used(&f->scale->stage[i]->core))
			gone[k++] = bloom_scale_unlink(f, i);
	return k;
}

static bool bloom_scale_stage_full(const struct bloom_scale_stage *st)
{
	if (bloom_core_is_timed(&st->core))
		return bloom_timed_used(&st->core) >= st->core.geo.capacity;
	return READ_ONCE(st->count) >= st->core.geo.capacity;
}

bool bloom_scale_full(const struct bloom_core *f)
{
	u32 n = bloom_scale_stages(f);

	return !n || READ_ONCE(f->scale->want_stage) ||
	       bloom_scale_stage_full(f->scale->stage[n - 1]);
}

/* The term of the next stage: the newest's + 1. Publishers serialised. */
static u32 bloom_scale_next_term(const struct bloom_scale *s)
{
	return s->nstages ? s->stage[s->nstages - 1]->term + 1 : 0;
}

int bloom_scale_next_geometry(const struct bloom_core *f,
			      struct bloom_geometry *geo)
{
	return bloom_scale_stage_geometry(&f->scale->p,
					  bloom_scale_next_term(f->scale), geo);
}

void bloom_scale_publish(struct bloom_core *f, struct bloom_scale_stage *st,
			 const struct bloom_geometry *geo, void *storage)
{
	struct bloom_scale *s = f->scale;
	u32 n = s->nstages;	/* publishers are serialised */

	bloom_core_init(&st->core, geo, &f->key, storage);
	if (bloom_core_is_timed(&st->core))
		bloom_timed_set_timeouts(&st->core, f->key_timeout_s,
					 f->key_timeout_max_s);
	st->count = 0;
	st->term = bloom_scale_next_term(s);
	WRITE_ONCE(s->stage[n], st);
	WRITE_ONCE(s->want_stage, false);
	/* Pairs with smp_load_acquire() in bloom_scale_stages(). */
	smp_store_release(&s->nstages, n + 1);
}

/* A slot for one new key in @st, unless it is full. */
static bool bloom_scale_reserve(struct bloom_scale_stage *st)
{
	u64 c = READ_ONCE(st->count), old;

	while (c < st->core.geo.capacity) {
		old = cmpxchg64(&st->count, c, c + 1);
		if (old == c)
			return true;
		c = old;
	}
	return false;
}

static void bloom_scale_unreserve(struct bloom_scale_stage *st)
{
	u64 c = READ_ONCE(st->count), old;

	while ((old = cmpxchg64(&st->count, c, c - 1)) != c)
		c = old;
}

/*
 * Is the key with hash @h in one of the stages? Newest first, each
 * stage's lone lookup (bits.c calls this directly for a packet).
 */
bool bloom_scale_lookup(const struct bloom_core *f, u64 h)
{
	const struct bloom_scale_stage *st[BLOOM_CORE_STAGES_MAX];
	u32 n = bloom_scale_list(f, st), i;

	for (i = 0; i < n; i++)
		if (bloom_core_lookup_hash(&st[i]->core, h))
			return true;
	return false;
}

/* @f's stages' cores, newest first, into @cores; their number. */
static u32 bloom_scale_cores(const struct bloom_core *f,
			     const struct bloom_core **cores)
{
	const struct bloom_scale_stage *st[BLOOM_CORE_STAGES_MAX];
	u32 n = bloom_scale_list(f, st), i;

	for (i = 0; i < n; i++)
		cores[i] = &st[i]->core;
	return n;
}

/* Keys a scalable batch looks up together: one bit each in a u32. */
#define BLOOM_SCALE_CHUNK	BLOOM_CORES_CHUNK

/* Which of the @c keys at @hashes are in one of the stages. */
static u32 bloom_scale_find(const struct bloom_core *f, const u64 *hashes,
			    u32 c)
{
	const struct bloom_core *cores[BLOOM_CORE_STAGES_MAX];

	/* newest first: it holds the most keys */
	return bloom_cores_find(cores, bloom_scale_cores(f, cores), hashes, c);
}

/*
 * Adds the key with hash @h, which was not found in any stage, to the
 * newest. 0: added; 1: another adder set the same key meanwhile (not new
 * here); -ENOSPC: the newest stage is full (or there is none), nothing
 * changed.
 */
static int bloom_scale_add_new(struct bloom_scale *s, u64 h)
{
	/* Pairs with smp_store_release() in bloom_scale_publish(). */
	u32 n = smp_load_acquire(&s->nstages);
	struct bloom_scale_stage *st;
	int r;

	if (!n)
		return -ENOSPC;
	st = s->stage[n - 1];
	if (!bloom_scale_reserve(st))
		return -ENOSPC;
	r = bloom_core_add_hash(&st->core, h);
	if (r == 1)
		bloom_scale_unreserve(st);
	return r;
}

/* 1: present already; else as bloom_scale_add_new(). */
static int bloom_scale_add_one(struct bloom_core *f, u64 h)
{
	if (bloom_scale_lookup(f, h))
		return 1;
	return bloom_scale_add_new(f->scale, h);
}

int bloom_scale_add_batch(struct bloom_core *f, const u64 *hashes, u32 n,
			  u8 *results, u32 *pos)
{
	struct bloom_scale *s = f->scale;
	u32 i, j, c, found;
	int r, hits = 0;

	for (i = *pos; i < n; i += c) {
		c = n - i < BLOOM_SCALE_CHUNK ? n - i : BLOOM_SCALE_CHUNK;
		found = bloom_scale_find(f, hashes + i, c);
		for (j = 0; j < c; j++) {
			r = 1;
			if (!(found & (1U << j))) {
				r = bloom_scale_add_new(s, hashes[i + j]);
				if (r < 0) {
					*pos = i + j;
					return hits;
				}
			}
			hits += r;
			bloom_result(results, i + j, r);
		}
	}
	*pos = n;
	return hits;
}

bool bloom_scale_compatible(const struct bloom_core *a,
			    const struct bloom_core *b)
{
	const struct bloom_scale_params *p, *q;

	if (!a->scale || !b->scale)
		return false;
	p = &a->scale->p;
	q = &b->scale->p;
	return p->type == q->type && p->capacity == q->capacity &&
	       p->fpp_ppb == q->fpp_ppb && p->growth == q->growth &&
	       p->tightening_ppm == q->tightening_ppm &&
	       a->key.key[0] == b->key.key[0] && a->key.key[1] == b->key.key[1] &&
	       a->key.hash == b->key.hash &&
	       a->key.placement == b->key.placement;
}

/* @st's count of new keys raised by @n, up to its capacity. */
static void bloom_scale_count_add(struct bloom_scale_stage *st, u64 n)
{
	u64 c = READ_ONCE(st->count), want, old;

	for (;;) {
		want = c + n < st->core.geo.capacity ? c + n :
		       st->core.geo.capacity;
		if (want <= c)
			return;
		old = cmpxchg64(&st->count, c, want);
		if (old == c)
			return;
		c = old;
	}
}

int bloom_scale_merge(struct bloom_core *dst, const struct bloom_core *src)
{
	u32 n = bloom_scale_stages(src), i;
	int ret;

	if (!bloom_scale_compatible(dst, src) || bloom_scale_stages(dst) < n)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		struct bloom_scale_stage *d = dst->scale->stage[i];
		const struct bloom_scale_stage *s = src->scale->stage[i];

		/* the same geometry and key by construction: cannot fail */
		ret = bloom_core_merge(&d->core, &s->core);
		if (ret)
			return ret;
		bloom_scale_count_add(d, READ_ONCE(s->count));
	}
	return 0;
}

/* ---- the operations of the filter callers hold ---- */

static int bloom_scale_add(struct bloom_core *f, u64 h)
{
	return bloom_scale_add_one(f, h);
}

static void bloom_scale_prefetch(const struct bloom_core *f, u64 h,
				 bool write)
{
	const struct bloom_core *cores[BLOOM_CORE_STAGES_MAX];

	if (bloom_scale_cores(f, cores))
		cores[0]->ops->prefetch_hash(cores[0], h, write);
}

static u32 bloom_scale_ops_add_batch(struct bloom_core *f, const u64 *hashes,
				     u32 n, u8 *results, u32 *done)
{
	*done = 0;
	return bloom_scale_add_batch(f, hashes, n, results, done);
}

/* Chunk by chunk, stage by stage: bloom_cores_query_batch(). */
static u32 bloom_scale_query_batch(const struct bloom_core *f,
				   const u64 *hashes, u32 n, u8 *results)
{
	const struct bloom_core *cores[BLOOM_CORE_STAGES_MAX];
	u32 ns = bloom_scale_cores(f, cores);

	return bloom_cores_query_batch(cores, ns, hashes, n, results);
}

static u64 bloom_scale_in_use(const struct bloom_core *f)
{
	const struct bloom_core *cores[BLOOM_CORE_STAGES_MAX];
	u32 n = bloom_scale_cores(f, cores), i;
	u64 sum = 0;

	for (i = 0; i < n; i++)
		sum += bloom_core_bits_set(cores[i]);
	return sum;
}

static u64 bloom_scale_scan(const struct bloom_core *f)
{
	const struct bloom_core *cores[BLOOM_CORE_STAGES_MAX];
	u32 n = bloom_scale_cores(f, cores), i;
	u64 sum = 0;

	for (i = 0; i < n; i++)
		sum += bloom_core_count_in_use(cores[i]);
	return sum;
}

static u64 bloom_scale_keys(const struct bloom_core *f)
{
	const struct bloom_core *cores[BLOOM_CORE_STAGES_MAX];
	u32 n = bloom_scale_cores(f, cores), i;
	struct bloom_core_stats st;
	u64 sum = 0;

	for (i = 0; i < n; i++) {
		bloom_core_stats(cores[i], &st);
		sum += st.keys;
	}
	return sum;
}

static u64 bloom_scale_bits(const struct bloom_core *f)
{
	const struct bloom_core *cores[BLOOM_CORE_STAGES_MAX];
	u32 n = bloom_scale_cores(f, cores), i;
	u64 sum = 0;

	for (i = 0; i < n; i++)
		sum += cores[i]->geo.bits;
	return sum;
}

/* ---- a timed chain's writes (writers serialised, no unlink meanwhile) ---- */

/*
 * The key with hash @h and timeout @timeout_s: refreshed in the stage
 * that holds it, else a new cell in the newest. 1, 0 or -ENOSPC (the
 * newest had no room: @want_stage set, nothing changed).
 */
static int bloom_scale_timed_put(struct bloom_scale *s, u64 h, u32 timeout_s)
{
	struct bloom_scale_stage *newest;
	u32 n = s->nstages, i;
	int r;

	if (!n)
		return -ENOSPC;
	/* the older stages only refresh: a new key goes to the newest */
	for (i = n - 1; i--;)
		if (bloom_timed_put(&s->stage[i]->core, h, timeout_s,
				    false) == 1)
			return 1;
	newest = s->stage[n - 1];
	r = bloom_timed_put(&newest->core, h, timeout_s,
			    !bloom_scale_stage_full(newest));
	if (r < 0) {
		WRITE_ONCE(s->want_stage, true);
		return -ENOSPC;
	}
	return r;
}

u32 bloom_scale_timed_add_batch(struct bloom_core *f, const u64 *hashes,
				u32 n, const u32 *timeouts, u32 timeout_s,
				u8 *results, u32 *pos)
{
	u32 i, hits = 0;
	int r;

	for (i = *pos; i < n; i++) {
		r = bloom_scale_timed_put(f->scale, hashes[i],
					  timeouts ? timeouts[i] : timeout_s);
		if (r < 0)
			break;
		hits += r;
		bloom_result(results, i, r);
	}
	*pos = i;
	return hits;
}

/* The key's cell emptied in whichever stage holds it, newest first. */
static enum bloom_del bloom_scale_timed_remove(struct bloom_scale *s, u64 h)
{
	u32 i = s->nstages;

	while (i--)
		if (bloom_timed_remove(&s->stage[i]->core, h))
			return BLOOM_DEL_GONE;
	return BLOOM_DEL_ABSENT;
}

static int bloom_scale_timed_add(struct bloom_core *f, u64 h)
{
	return bloom_scale_timed_put(f->scale, h, f->key_timeout_s);
}

static u32 bloom_scale_timed_ops_add_batch(struct bloom_core *f,
					   const u64 *hashes, u32 n,
					   u8 *results, u32 *done)
{
	*done = 0;
	return bloom_scale_timed_add_batch(f, hashes, n, NULL,
					   f->key_timeout_s, results, done);
}

static int bloom_scale_timed_delete(struct bloom_core *f, u64 h)
{
	return bloom_del_status(bloom_scale_timed_remove(f->scale, h));
}

static u32 bloom_scale_timed_delete_batch(struct bloom_core *f,
					  const u64 *hashes, u32 n,
					  u8 *results, u8 *pinned,
					  u32 *npinned)
{
	u32 i, removed = 0;

	for (i = 0; i < n; i++)
		removed += bloom_del_result(results, pinned, npinned, i,
					    bloom_scale_timed_remove(f->scale,
								     hashes[i]));
	return removed;
}

const struct bloom_core_ops bloom_scale_ops = {
	.add = bloom_scale_add,
	.query = bloom_scale_lookup,
	.prefetch_hash = bloom_scale_prefetch,
	.add_batch = bloom_scale_ops_add_batch,
	.query_batch = bloom_scale_query_batch,
	.in_use = bloom_scale_in_use,
	.scan_in_use = bloom_scale_scan,
	.keys = bloom_scale_keys,
	.total_bits = bloom_scale_bits,
};

/* A timed chain: its own adds and deletes, the chain's queries. */
const struct bloom_core_ops bloom_scale_timed_ops = {
	.add = bloom_scale_timed_add,
	.delete = bloom_scale_timed_delete,
	.query = bloom_scale_lookup,
	.prefetch_hash = bloom_scale_prefetch,
	.add_batch = bloom_scale_timed_ops_add_batch,
	.delete_batch = bloom_scale_timed_delete_batch,
	.query_batch = bloom_scale_query_batch,
	.in_use = bloom_scale_in_use,
	.scan_in_use = bloom_scale_scan,
	.keys = bloom_scale_keys,
	.total_bits = bloom_scale_bits,
};

void bloom_scale_init(struct bloom_core *f, struct bloom_scale *s,
		      const struct bloom_scale_params *p,
		      const bloom_hash_key_t *key)
{
	struct bloom_geometry geo;
	u32 i;

	/* checked by bloom_scale_check(): cannot fail */
	bloom_scale_stage_geometry(p, 0, &geo);
	geo.capacity = p->capacity;
	geo.fpp_ppb = p->fpp_ppb;
	bloom_core_init(f, &geo, key, NULL);
	f->ops = p->type == BLOOM_CORE_TIMED ? &bloom_scale_timed_ops :
					       &bloom_scale_ops;
	f->scale = s;
	s->p = *p;
	s->nstages = 0;
	s->want_stage = false;
	for (i = 0; i < BLOOM_CORE_STAGES_MAX; i++)
		s->stage[i] = NULL;
}
