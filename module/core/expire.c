// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Expiring filters: a ring of G generations (core.h has the scheme and the
 * rotation's steps). The filter that callers hold is a struct bloom_core
 * whose operations are the ring's: adds go to the newest generation,
 * queries test every generation that is not being cleared. The policy
 * (when a rotation may run, what a restore keeps) takes the time as an
 * argument, so the unit tests drive it with a clock of their own.
 *
 * Every generation has the same geometry and hash key, so a key's
 * positions are the same in each: a query hashes once, prefetches its
 * lines in every generation, then tests them.
 */
#include "internal.h"

int bloom_expire_gen_geometry(const struct bloom_expire_params *p,
			      struct bloom_geometry *geo)
{
	u64 cap = div64_u64(p->capacity + p->generations - 2,
			    p->generations - 1);

	return bloom_geometry_size(p->type, cap, p->fpp_ppb / p->generations,
				   geo);
}

int bloom_expire_check(const struct bloom_expire_params *p)
{
	struct bloom_geometry geo;
	int ret;

	if ((p->type != BLOOM_CORE_STANDARD && p->type != BLOOM_CORE_BLOCKED) ||
	    p->generations < BLOOM_CORE_GENERATIONS_MIN ||
	    p->generations > BLOOM_CORE_GENERATIONS_MAX ||
	    p->timeout_ms < BLOOM_CORE_TIMEOUT_MS_MIN ||
	    p->timeout_ms > BLOOM_CORE_TIMEOUT_MS_MAX ||
	    !bloom_capacity_rate_valid(p->capacity, p->fpp_ppb) ||
	    p->fpp_ppb / p->generations < BLOOM_CORE_FPP_PPB_MIN)
		return -EINVAL;
	ret = bloom_expire_gen_geometry(p, &geo);
	if (ret)
		return ret;
	/* G <= 16 and bits <= 2^40: no overflow */
	if (geo.bits * p->generations > BLOOM_CORE_BITS_MAX)
		return -E2BIG;
	return 0;
}

u64 bloom_expire_period_ns(const struct bloom_expire_params *p)
{
	/* T <= 2.2e15 ns: no overflow */
	return div64_u64(p->timeout_ms * 1000000 + p->generations - 2,
			 p->generations - 1);
}

bool bloom_core_is_expiring(const struct bloom_core *f)
{
	return f->expire;
}

static u32 bloom_expire_order(const struct bloom_core *f)
{
	/* Pairs with smp_store_release() in the rotation's steps. */
	return smp_load_acquire(&f->expire->order);
}

u32 bloom_expire_newest(const struct bloom_core *f)
{
	return bloom_expire_order(f) & BLOOM_EXPIRE_NEWEST;
}

/* The index in @gen of generation @i counted from the oldest. */
static u32 bloom_expire_index(const struct bloom_expire *e, u32 newest, u32 i)
{
	u32 g = newest + 1 + i;

	return g >= e->p.generations ? g - e->p.generations : g;
}

struct bloom_expire_gen *bloom_expire_gen(const struct bloom_core *f, u32 i)
{
	struct bloom_expire *e = f->expire;

	return &e->gen[bloom_expire_index(e, bloom_expire_newest(f), i)];
}

u64 bloom_expire_due(const struct bloom_core *f)
{
	/* the rotation's own view, or a racy one for INFO and sysfs */
	const struct bloom_expire *e = f->expire;
	u32 newest = READ_ONCE(e->order) & BLOOM_EXPIRE_NEWEST;
	u64 due = READ_ONCE(e->gen[newest].born_ns) + e->period_ns;
	u64 keep = READ_ONCE(e->gen[bloom_expire_index(e, newest, 0)].expires_ns);

	return keep > due ? keep : due;
}

u32 bloom_expire_unlink_oldest(struct bloom_core *f)
{
	struct bloom_expire *e = f->expire;
	u32 newest = e->order & BLOOM_EXPIRE_NEWEST;

	/* Pairs with smp_load_acquire() in bloom_expire_order(). */
	smp_store_release(&e->order, newest | BLOOM_EXPIRE_CLEARING);
	return bloom_expire_index(e, newest, 0);
}

u32 bloom_expire_make_newest(struct bloom_core *f, u32 g, u64 now)
{
	struct bloom_expire *e = f->expire;
	u32 old = e->order & BLOOM_EXPIRE_NEWEST;
	u64 born = e->gen[old].born_ns + e->period_ns;

	/*
	 * Born on the schedule, a period after the last, not when the
	 * rotation got to run: a late timer or the grace period before a
	 * seal would otherwise stretch every period and overfill every
	 * generation. More than a period late (a stall, a suspend): the
	 * schedule starts again from now.
	 */
	if (born > now || now - born >= e->period_ns)
		born = now;
	WRITE_ONCE(e->gen[g].born_ns, born);
	WRITE_ONCE(e->gen[g].expires_ns, BLOOM_EXPIRE_NEVER);
	/*
	 * The cleared words before the new order: an add that finds @g the
	 * newest sets its bits after the clear (pairs with the acquire).
	 */
	smp_store_release(&e->order, g);
	e->rotations++;
	return old;
}

void bloom_expire_seal(struct bloom_core *f, u32 g, u64 now)
{
	struct bloom_expire *e = f->expire;

	WRITE_ONCE(e->gen[g].expires_ns, now + e->p.timeout_ms * 1000000);
}

int bloom_expire_merge(struct bloom_core *dst, const struct bloom_core *src,
		       u64 now)
{
	struct bloom_expire *d = dst->expire;
	const struct bloom_expire *s = src->expire;
	struct bloom_expire_gen *dg, *sg;
	u64 exp;
	u32 i;

	if (!d || !s || d == s || d->p.generations != s->p.generations ||
	    d->p.timeout_ms != s->p.timeout_ms ||
	    !bloom_core_compatible(&d->gen[0].core, &s->gen[0].core))
		return -EINVAL;
	/* generation by generation, the same age with the same age */
	for (i = 0; i < d->p.generations; i++) {
		dg = bloom_expire_gen(dst, i);
		sg = bloom_expire_gen(src, i);
		bloom_core_merge(&dg->core, &sg->core);
		/* the later expiry keeps every key's lower bound */
		exp = READ_ONCE(sg->expires_ns);
		if (exp == BLOOM_EXPIRE_NEVER && i != d->p.generations - 1)
			exp = now + s->p.timeout_ms * 1000000;
		if (dg->expires_ns != BLOOM_EXPIRE_NEVER && exp > dg->expires_ns)
			WRITE_ONCE(dg->expires_ns, exp);
	}
	return 0;
}

u32 bloom_expire_resume(struct bloom_core *f, u64 saved, u64 now)
{
	struct bloom_expire *e = f->expire;
	u32 G = e->p.generations, newest = e->order & BLOOM_EXPIRE_NEWEST;
	struct bloom_expire_gen *gen, *oldest;
	u32 r;

	/* the newest took its last add at @saved (or not at all) */
	if (e->gen[newest].expires_ns == BLOOM_EXPIRE_NEVER)
		e->gen[newest].expires_ns = saved + e->p.timeout_ms * 1000000;
	/* the expired prefix, oldest first: what the rotations would clear */
	for (r = 0; r < G; r++) {
		gen = &e->gen[bloom_expire_index(e, newest, r)];
		if (gen->expires_ns > now)
			break;
		bloom_core_clear(&gen->core);
		gen->expires_ns = 0;
		gen->born_ns = now;
	}
	if (!r) {
		/* nothing expired: the newest goes on taking adds */
		e->gen[newest].expires_ns = BLOOM_EXPIRE_NEVER;
		return 0;
	}
	newest = bloom_expire_index(e, newest, r - 1);
	e->gen[newest].expires_ns = BLOOM_EXPIRE_NEVER;
	/*
	 * Born so that the next rotation is due when the oldest that is
	 * left expires (not a period after now, which would keep it longer
	 * than its keys' bound), at the latest now.
	 */
	oldest = &e->gen[bloom_expire_index(e, newest, 0)];
	if (r < G && oldest->expires_ns < now + e->period_ns)
		e->gen[newest].born_ns = oldest->expires_ns > e->period_ns ?
					 oldest->expires_ns - e->period_ns : 0;
	e->rotations += r;
	e->order = newest;
	return r;
}

/* ---- the operations of the filter callers hold ---- */

u32 bloom_expire_live(const struct bloom_core *f,
		      const struct bloom_core **cores)
{
	const struct bloom_expire *e = f->expire;
	u32 order = bloom_expire_order(f), G = e->p.generations;
	u32 newest = order & BLOOM_EXPIRE_NEWEST, n = 0, i;
	u32 skip = order & BLOOM_EXPIRE_CLEARING ? 1 : 0;

	for (i = G; i-- > skip;)
		cores[n++] = &e->gen[bloom_expire_index(e, newest, i)].core;
	return n;
}

static struct bloom_core *bloom_expire_newest_core(struct bloom_core *f)
{
	return &f->expire->gen[bloom_expire_newest(f)].core;
}

static int bloom_expire_add(struct bloom_core *f, u64 h)
{
	return bloom_core_add_hash(bloom_expire_newest_core(f), h);
}

/*
 * A key in any live generation, newest first, each generation's line on its
 * way before the first test: one key's query, and a packet's (bits.c).
 */
bool bloom_expire_lookup(const struct bloom_core *f, u64 h)
{
	const struct bloom_core *cores[BLOOM_CORE_GENERATIONS_MAX];
	u32 n = bloom_expire_live(f, cores), i;

	for (i = 0; i < n; i++)
		bloom_core_lookup_prefetch(cores[i], h);
	for (i = 0; i < n; i++)
		if (bloom_core_lookup_hash(cores[i], h))
			return true;
	return false;
}

static void bloom_expire_prefetch(const struct bloom_core *f, u64 h,
				  bool write)
{
	const struct bloom_core *cores[BLOOM_CORE_GENERATIONS_MAX];
	u32 n, i;

	if (write) {
		n = bloom_expire_newest(f);
		f->expire->gen[n].core.ops->prefetch_hash(&f->expire->gen[n].core,
							  h, true);
		return;
	}
	n = bloom_expire_live(f, cores);
	for (i = 0; i < n; i++)
		cores[i]->ops->prefetch_hash(cores[i], h, false);
}

static u32 bloom_expire_add_batch(struct bloom_core *f, const u64 *hashes,
				  u32 n, u8 *results, u32 *done)
{
	return bloom_core_add_batch_done(bloom_expire_newest_core(f), hashes,
					 n, results, done);
}

static u32 bloom_expire_query_batch(const struct bloom_core *f,
				    const u64 *hashes, u32 n, u8 *results)
{
	const struct bloom_core *cores[BLOOM_CORE_GENERATIONS_MAX];
	u32 nc = bloom_expire_live(f, cores);

	return bloom_cores_query_batch(cores, nc, hashes, n, results);
}

static u64 bloom_expire_in_use(const struct bloom_core *f)
{
	const struct bloom_core *cores[BLOOM_CORE_GENERATIONS_MAX];
	u32 n = bloom_expire_live(f, cores), i;
	u64 sum = 0;

	for (i = 0; i < n; i++)
		sum += bloom_core_bits_set(cores[i]);
	return sum;
}

static u64 bloom_expire_scan(const struct bloom_core *f)
{
	u32 i;
	u64 sum = 0;

	for (i = 0; i < f->expire->p.generations; i++)
		sum += bloom_core_count_in_use(&f->expire->gen[i].core);
	return sum;
}

static u64 bloom_expire_keys(const struct bloom_core *f)
{
	const struct bloom_core *cores[BLOOM_CORE_GENERATIONS_MAX];
	u32 n = bloom_expire_live(f, cores), i;
	struct bloom_core_stats st;
	u64 sum = 0;

	for (i = 0; i < n; i++) {
		bloom_core_stats(cores[i], &st);
		sum += st.keys;
	}
	return sum;
}

static u64 bloom_expire_bits(const struct bloom_core *f)
{
	return f->geo.bits * f->expire->p.generations;
}

const struct bloom_core_ops bloom_expire_ops = {
	.add = bloom_expire_add,
	.query = bloom_expire_lookup,
	.prefetch_hash = bloom_expire_prefetch,
	.add_batch = bloom_expire_add_batch,
	.query_batch = bloom_expire_query_batch,
	.in_use = bloom_expire_in_use,
	.scan_in_use = bloom_expire_scan,
	.keys = bloom_expire_keys,
	.total_bits = bloom_expire_bits,
};

void bloom_expire_init(struct bloom_core *f, struct bloom_expire *e,
		       const struct bloom_expire_params *p,
		       const bloom_hash_key_t *key, void *storage, u64 now)
{
	struct bloom_geometry geo;
	u64 bytes;
	u32 i;

	/* checked by bloom_expire_check(): cannot fail */
	bloom_expire_gen_geometry(p, &geo);
	bytes = bloom_core_storage_bytes(&geo);
	for (i = 0; i < BLOOM_CORE_GENERATIONS_MAX; i++) {
		if (i < p->generations)
			bloom_core_init(&e->gen[i].core, &geo, key,
					(u8 *)storage + bytes * i);
		/* nothing to keep: the first rotations may clear them */
		e->gen[i].born_ns = now;
		e->gen[i].expires_ns = 0;
	}
	e->p = *p;
	e->period_ns = bloom_expire_period_ns(p);
	e->rotations = 0;
	e->order = p->generations - 1;
	e->gen[e->order].expires_ns = BLOOM_EXPIRE_NEVER;
	geo.capacity = p->capacity;
	geo.fpp_ppb = p->fpp_ppb;
	bloom_core_init(f, &geo, key, NULL);
	f->ops = &bloom_expire_ops;
	f->expire = e;
}
