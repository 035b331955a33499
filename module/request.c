// SPDX-License-Identifier: GPL-2.0
/*
 * Decoding requests and filling replies (request.h). One create parser for
 * every way a filter can be asked for; INFO and STAGES filled from the
 * store published now, under RCU, into zeroed replies.
 */
#include <linux/err.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "alloc.h"
#include "filter.h"
#include "name.h"
#include "registry.h"
#include "request.h"

static_assert(ARRAY_SIZE(((struct bloom_info *)0)->subtable_used) ==
	      ARRAY_SIZE(((struct bloom_core_stats *)0)->subtable_used));

static bool bloom_zeroed(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

/* The sizing fields of a request that sizes from capacity and rate alone. */
static bool bloom_create_sizing_zero(const struct bloom_create *c)
{
	return !c->memory_bytes && !c->bits_per_key_milli;
}

/* BLOOM_CREATE_F_SIZE: any two of capacity, rate, bits per key, memory. */
static int bloom_create_sized(const struct bloom_create *c,
			      struct bloom_geometry *geo)
{
	struct bloom_core_size_req r = {
		.type = c->type,
		.hashes = c->hashes,
		.capacity = c->capacity,
		.fpp_ppb = c->fpp_ppb,
		.bpk_milli = c->bits_per_key_milli,
		.memory_bytes = c->memory_bytes,
	};

	/* a scalable filter's stages are sized from capacity and rate */
	if (c->flags & (BLOOM_CREATE_F_GEOMETRY | BLOOM_CREATE_F_SCALABLE) ||
	    c->bits)
		return -EINVAL;
	/* the core checks the rest: two of four, ranges, hashes */
	return bloom_core_size(&r, geo);
}

/* BLOOM_CREATE_F_GEOMETRY: m and k as given. */
static int bloom_create_explicit(const struct bloom_create *c,
				 struct bloom_geometry *geo)
{
	/* A d-left table's shape is the core's choice alone. */
	if (c->type == BLOOM_TYPE_DLEFT || c->type == BLOOM_TYPE_TIMED)
		return -EOPNOTSUPP;
	*geo = (struct bloom_geometry) {
		.type = c->type,
		.hashes = c->hashes,
		.bits = c->bits,
		.capacity = c->capacity,
		.fpp_ppb = c->fpp_ppb,
	};
	if (c->type == BLOOM_TYPE_COUNTING)
		geo->cell_bits = 4;
	return bloom_geometry_check(geo);
}

/*
 * The geometry of a plain filter, or of a scalable filter's stage 0, from
 * a request whose flags, type and name were checked.
 */
static int bloom_create_geometry(const struct bloom_create *c,
				 struct bloom_geometry *geo)
{
	if (c->flags & BLOOM_CREATE_F_SIZE)
		return bloom_create_sized(c, geo);
	if (!bloom_create_sizing_zero(c))
		return -EINVAL;
	if (c->capacity < 1 || c->capacity > BLOOM_CAPACITY_MAX ||
	    c->fpp_ppb < BLOOM_FPP_PPB_MIN || c->fpp_ppb > BLOOM_FPP_PPB_MAX)
		return -EINVAL;
	if (c->flags & BLOOM_CREATE_F_GEOMETRY) {
		if (c->flags & BLOOM_CREATE_F_SCALABLE)
			return -EINVAL;
		return bloom_create_explicit(c, geo);
	}
	if (c->bits || c->hashes)
		return -EINVAL;
	return bloom_geometry_size(c->type, c->capacity, c->fpp_ppb, geo);
}

/*
 * BLOOM_CREATE_F_TIMEOUT: a standard or blocked filter sized from capacity
 * and rate, nothing else (a generation's size follows from them).
 */
static struct bloom_store *bloom_create_expiring(struct bloom_account *acct,
						 const struct bloom_create *c,
						 const u8 *hash_key)
{
	struct bloom_expire_params xp = {
		.type = c->type,
		.generations = c->generations ?: BLOOM_GENERATIONS_DEFAULT,
		.capacity = c->capacity,
		.fpp_ppb = c->fpp_ppb,
		.timeout_ms = c->timeout_ms,
	};
	int ret;

	if (c->flags & (BLOOM_CREATE_F_GEOMETRY | BLOOM_CREATE_F_SIZE |
			BLOOM_CREATE_F_SCALABLE) ||
	    c->bits || c->hashes || !bloom_create_sizing_zero(c))
		return ERR_PTR(-EINVAL);
	/* the core refuses counting and d-left types and values out of range */
	ret = bloom_expire_check(&xp);
	if (ret)
		return ERR_PTR(ret);
	return bloom_store_new_expiring(acct, &xp, hash_key);
}

/*
 * A new store for a request that is not BLOOM_CREATE_F_LIKE, charged to
 * @acct.
 */
static struct bloom_store *bloom_create_store(struct bloom_account *acct,
					      const struct bloom_create *c)
{
	const u8 *hash_key = c->flags & BLOOM_CREATE_F_HASH_KEY ?
			     c->hash_key : NULL;
	struct bloom_scale_params sp;
	struct bloom_geometry geo;
	int ret;

	if (!(c->flags & BLOOM_CREATE_F_HASH_KEY) &&
	    !bloom_zeroed(c->hash_key, sizeof(c->hash_key)))
		return ERR_PTR(-EINVAL);
	if (!(c->flags & BLOOM_CREATE_F_SCALABLE) &&
	    (c->growth || c->tightening_ppm))
		return ERR_PTR(-EINVAL);
	switch (c->type) {
	case BLOOM_TYPE_STANDARD:
	case BLOOM_TYPE_BLOCKED:
	case BLOOM_TYPE_COUNTING:
	case BLOOM_TYPE_DLEFT:
	case BLOOM_TYPE_TIMED:
		break;
	default:
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (c->flags & BLOOM_CREATE_F_TIMEOUT)
		return bloom_create_expiring(acct, c, hash_key);
	ret = bloom_create_geometry(c, &geo);
	if (ret)
		return ERR_PTR(ret);
	if (!(c->flags & BLOOM_CREATE_F_SCALABLE))
		return bloom_store_new(acct, &geo, hash_key);
	sp = (struct bloom_scale_params) {
		.type = c->type,
		.capacity = c->capacity,
		.fpp_ppb = c->fpp_ppb,
		.growth = c->growth ?: BLOOM_GROWTH_DEFAULT,
		.tightening_ppm = c->tightening_ppm ?:
				  BLOOM_TIGHTENING_PPM_DEFAULT,
	};
	ret = bloom_scale_check(&sp);
	if (ret)
		return ERR_PTR(ret);
	return bloom_store_new_chain(acct, &sp, hash_key);
}

/*
 * BLOOM_CREATE_F_LIKE: the type, geometry and hash key of @net's filter
 * named @c->like, empty. Every sizing field must be 0: the model gives
 * them all.
 */
static struct bloom_store *bloom_create_like(struct net *net,
					     const struct bloom_create *c)
{
	u8 key[BLOOM_HASH_KEY_LEN];
	struct bloom_geometry geo;
	struct bloom_expire_params xp;
	struct bloom_scale_params sp;
	unsigned long plan[2][128 / BITS_PER_LONG] = {};
	struct bloom_filter *like;
	struct bloom_store *s;
	bool expiring = false, scalable = false;
	u32 kind = 0, tdef = 0, tmax = 0;
	int ret;

	if (c->flags & ~(BLOOM_CREATE_F_LIKE | BLOOM_CREATE_F_BIND) ||
	    c->type || c->hashes || c->capacity || c->bits || c->fpp_ppb ||
	    !bloom_create_sizing_zero(c) || c->growth || c->tightening_ppm ||
	    c->generations || c->timeout_ms || c->key_timeout_s ||
	    c->key_timeout_max_s ||
	    !bloom_zeroed(c->hash_key, sizeof(c->hash_key)))
		return ERR_PTR(-EINVAL);
	if (!bloom_name_valid(c->like))
		return ERR_PTR(-EINVAL);
	like = bloom_registry_lookup(net, c->like);
	if (IS_ERR(like))
		return ERR_CAST(like);
	rcu_read_lock();
	s = bloom_filter_store(like);
	ret = !s ? -ESTALE : 0;
	if (!ret) {
		geo = s->core.geo;
		/* a scalable model: its parameters; the new chain's first stage */
		scalable = bloom_core_is_scalable(&s->core);
		if (scalable)
			sp = s->core.scale->p;
		kind = READ_ONCE(s->nb.kind);
		/* the model's prefix lengths: never changed, read freely */
		memcpy(plan, s->nb.plan, sizeof(plan));
		/* a timed model: its keys' timeouts too */
		tdef = s->core.key_timeout_s;
		tmax = s->core.key_timeout_max_s;
		bloom_hash_key_to_bytes(&s->core.key, key);
		/* an expiring model: its generations and timeout too */
		expiring = s->clock;
		if (expiring)
			xp = s->clock->ring.p;
	}
	rcu_read_unlock();
	bloom_filter_put(like);
	if (ret)
		return ERR_PTR(ret);
	if (expiring)
		s = bloom_store_new_expiring(bloom_registry_account(net), &xp,
					     key);
	else if (scalable)
		s = bloom_store_new_chain(bloom_registry_account(net), &sp,
					  key);
	else
		s = bloom_store_new(bloom_registry_account(net), &geo, key);
	memzero_explicit(key, sizeof(key));
	if (IS_ERR(s))
		return s;
	s->nb.kind = kind;
	memcpy(s->nb.plan, plan, sizeof(plan));
	if (bloom_core_is_timed(&s->core))
		bloom_timed_set_timeouts(&s->core, tdef, tmax);
	return s;
}

/*
 * BLOOM_CREATE_F_PREFIXES: lengths 1 to one less than an address's, at
 * most BLOOM_PREFIX_LENGTHS_MAX per family, a filter that may hold
 * addresses; without the flag, none.
 */
static int bloom_create_prefixes_check(const struct bloom_create *c)
{
	const u64 *l6 = c->prefix_lengths6;

	if (c->reserved1)
		return -EINVAL;
	if (!(c->flags & BLOOM_CREATE_F_PREFIXES))
		return c->prefix_lengths4 || l6[0] || l6[1] ? -EINVAL : 0;
	if (c->flags & BLOOM_CREATE_F_LIKE || c->keys == BLOOM_KEYS_STRINGS ||
	    c->prefix_lengths4 & 1 || l6[0] & 1 ||
	    hweight32(c->prefix_lengths4) > BLOOM_PREFIX_LENGTHS_MAX ||
	    hweight64(l6[0]) + hweight64(l6[1]) > BLOOM_PREFIX_LENGTHS_MAX)
		return -EINVAL;
	return 0;
}

/* The lengths of @family in CREATE's or INFO's form, as a bitmap. */
static void bloom_prefixes_bits(u32 family, u32 l4, const u64 *l6,
				unsigned long *bits)
{
	u32 i;

	bitmap_zero(bits, 128);
	for (i = 0; i < 128; i++)
		if (family == BLOOM_NB_IPV4 ? i < 32 && l4 & BIT(i) :
		    l6[i / 64] & BIT_ULL(i % 64))
			__set_bit(i, bits);
}

static void bloom_create_prefixes(const struct bloom_create *c,
				  struct bloom_netblocks *nb)
{
	unsigned long bits[128 / BITS_PER_LONG];
	u32 fam;

	if (!(c->flags & BLOOM_CREATE_F_PREFIXES))
		return;
	for (fam = 0; fam < 2; fam++) {
		bloom_prefixes_bits(fam, c->prefix_lengths4,
				    c->prefix_lengths6, bits);
		/* checked: bloom_create_prefixes_check() */
		WARN_ON_ONCE(bloom_nb_set_plan(nb, fam, bits));
	}
}

/* BLOOM_TYPE_TIMED's timeouts: in range, the default within the largest. */
static int bloom_create_timeouts(const struct bloom_create *c)
{
	u32 max = c->key_timeout_max_s ?: BLOOM_KEY_TIMEOUT_MAX;

	if (!c->key_timeout_s && !c->key_timeout_max_s)
		return 0;
	if (c->type != BLOOM_TYPE_TIMED || c->flags & BLOOM_CREATE_F_LIKE ||
	    max > BLOOM_KEY_TIMEOUT_MAX || c->key_timeout_s > max)
		return -EINVAL;
	return 0;
}

int bloom_request_create(struct net *net, const struct bloom_create *c,
			 struct bloom_filter **out)
{
	struct bloom_store *s;

	if (c->flags & ~BLOOM_CREATE_F_ALL || c->reserved ||
	    c->keys > BLOOM_KEYS_IPV6 || !bloom_name_valid(c->name))
		return -EINVAL;
	if (!(c->flags & BLOOM_CREATE_F_TIMEOUT) &&
	    (c->generations || c->timeout_ms))
		return -EINVAL;
	if (bloom_create_timeouts(c) || bloom_create_prefixes_check(c))
		return -EINVAL;
	if (c->flags & BLOOM_CREATE_F_LIKE)
		s = bloom_create_like(net, c);
	else if (!bloom_zeroed(c->like, sizeof(c->like)))
		s = ERR_PTR(-EINVAL);
	else
		s = bloom_create_store(bloom_registry_account(net), c);
	if (IS_ERR(s))
		return PTR_ERR(s);
	if (c->keys)
		s->nb.kind = c->keys;
	bloom_create_prefixes(c, &s->nb);
	if (c->type == BLOOM_TYPE_TIMED)
		bloom_timed_set_timeouts(&s->core, c->key_timeout_s,
					 c->key_timeout_max_s);
	return bloom_filter_new(c->name, s, out);
}

/* The key kind, the netblock lengths and the rate an address meets. */
static void bloom_info_fill_keys(struct bloom_info *info,
				 const struct bloom_netblocks *nb)
{
	u32 l4 = bloom_nb_lookups(nb, BLOOM_NB_IPV4);
	u32 l6 = bloom_nb_lookups(nb, BLOOM_NB_IPV6);
	int i;

	info->keys = READ_ONCE(nb->kind);
	info->prefixes4 = (u32)READ_ONCE(nb->present[BLOOM_NB_IPV4][0]);
	for (i = 0; i < 128 / BITS_PER_LONG; i++)
		((unsigned long *)info->prefixes6)[i] =
			READ_ONCE(nb->present[BLOOM_NB_IPV6][i]);
	info->address_lookups = info->keys == BLOOM_KEYS_IPV4 ? l4 :
				info->keys == BLOOM_KEYS_IPV6 ? l6 : max(l4, l6);
	info->address_fpp_ppb = bloom_nb_rate(info->estimated_fpp_ppb,
					      info->address_lookups);
	for (i = 0; i < 128; i++) {
		if (i < 32 && test_bit(i, nb->plan[BLOOM_NB_IPV4]))
			info->prefix_lengths4 |= BIT(i);
		if (test_bit(i, nb->plan[BLOOM_NB_IPV6]))
			info->prefix_lengths6[i / 64] |= BIT_ULL(i % 64);
	}
}

/* Under RCU, with the store in hand. */
static void bloom_info_fill(struct bloom_info *info, struct bloom_filter *f,
			    const struct bloom_store *s)
{
	const struct bloom_geometry *geo = &s->core.geo;
	struct bloom_core_estimate est;
	struct bloom_core_stats core;
	struct bloom_stats_sum sum;
	int i;

	bloom_store_sum_stats(s, &sum);
	bloom_core_stats(&s->core, &core);
	bloom_core_estimate(&s->core, &est);
	memcpy(info->name, f->name, sizeof(info->name));
	info->type = geo->type;
	info->hashes = geo->hashes;
	info->bits = bloom_core_bits(&s->core);
	info->capacity = geo->capacity;
	info->fpp_ppb = geo->fpp_ppb;
	info->estimated_fpp_ppb = est.fpp_ppb;
	info->memory_bytes = bloom_filter_memory_bytes(s);
	info->count = core.keys;
	info->adds = sum.adds;
	info->queries = sum.queries;
	info->hits = sum.hits;
	info->bits_set = core.in_use;
	info->deletes = sum.deletes;
	info->delete_misses = sum.delete_misses;
	info->delete_pinned = sum.delete_pinned;
	info->saturated = core.saturated;
	info->insert_failures = core.insert_failures;
	info->fingerprint_bits = core.fingerprint_bits;
	info->subtables = core.subtables;
	info->subtable_cells = core.subtable_cells;
	for (i = 0; i < ARRAY_SIZE(info->subtable_used); i++)
		info->subtable_used[i] = core.subtable_used[i];
	info->estimated_keys = est.keys;
	if (bloom_core_is_scalable(&s->core)) {
		info->stages = bloom_scale_stages(&s->core);
		info->growth = s->scale.p.growth;
		info->tightening_ppm = s->scale.p.tightening_ppm;
	}
	if (s->clock) {
		info->generations = s->clock->ring.p.generations;
		info->timeout_ms = s->clock->ring.p.timeout_ms;
		info->next_rotation_ms = bloom_store_next_rotation_ms(s);
		info->late_rotations = bloom_store_late_rotations(s);
	}
	info->rules = atomic_read(&f->rules);
	info->xdp_holds = atomic_read(&f->xdp_holds);
	info->xdp_ifindex = READ_ONCE(f->xdp_ifindex);
	info->packets = sum.packets;
	info->packet_hits = sum.packet_hits;
	info->id = f->id;
	info->bpf_calls = sum.bpf_calls;
	info->bpf_hits = sum.bpf_hits;
	if (bloom_core_is_timed(&s->core)) {
		info->key_timeout_s = s->core.key_timeout_s;
		info->key_timeout_max_s = s->core.key_timeout_max_s;
		info->tag_bits = bloom_timed_tag_bits(&s->core);
		info->expired = READ_ONCE(s->core.reclaimed);
	}
	bloom_info_fill_keys(info, &s->nb);
}

int bloom_request_info(struct bloom_filter *f, struct bloom_info *info)
{
	u32 size = info->size;
	struct bloom_store *s;

	memset(info, 0, sizeof(*info));
	info->size = size;
	rcu_read_lock();
	s = bloom_filter_store(f);
	if (s)
		bloom_info_fill(info, f, s);
	rcu_read_unlock();
	return s ? 0 : -ESTALE;
}

/* A stage's estimated rate: the core's, as for a filter of its type. */
static u32 bloom_stage_est_fpp_ppb(const struct bloom_scale_stage *st)
{
	struct bloom_core_estimate e;

	bloom_core_estimate(&st->core, &e);
	return e.fpp_ppb;
}

/* Under RCU: the stages of @core into @out (zeroed), their number. */
static u32 bloom_stages_fill(const struct bloom_core *core,
			     struct bloom_stage *out)
{
	const struct bloom_scale_stage *st;
	u32 i, n = bloom_scale_stages(core);

	for (i = 0; i < n; i++) {
		st = bloom_scale_stage(core, i);
		out[i].capacity = st->core.geo.capacity;
		out[i].bits = st->core.geo.bits;
		out[i].count = READ_ONCE(st->count);
		out[i].bits_set = bloom_core_bits_set(&st->core);
		out[i].fpp_ppb = st->core.geo.fpp_ppb;
		out[i].hashes = st->core.geo.hashes;
		out[i].estimated_fpp_ppb = bloom_stage_est_fpp_ppb(st);
	}
	return n;
}

/* Under RCU: an expiring store's generations, oldest first, into @out. */
static u32 bloom_generations_fill(const struct bloom_store *s,
				  struct bloom_stage *out)
{
	u32 i, n = s->clock->ring.p.generations;
	u64 now = bloom_clock_now(), born;
	const struct bloom_expire_gen *g;
	struct bloom_core_estimate e;
	struct bloom_core_stats cs;

	for (i = 0; i < n; i++) {
		g = bloom_expire_gen(&s->core, i);
		bloom_core_stats(&g->core, &cs);
		bloom_core_estimate(&g->core, &e);
		born = READ_ONCE(g->born_ns);
		out[i].capacity = g->core.geo.capacity;
		out[i].bits = g->core.geo.bits;
		out[i].count = cs.keys;
		out[i].bits_set = cs.in_use;
		out[i].fpp_ppb = g->core.geo.fpp_ppb;
		out[i].hashes = g->core.geo.hashes;
		out[i].estimated_fpp_ppb = e.fpp_ppb;
		out[i].age_ms = now > born ?
			min_t(u64, div_u64(now - born, NSEC_PER_MSEC), U32_MAX) :
			0;
	}
	return n;
}

int bloom_request_stages(struct bloom_filter *f, struct bloom_stages *arg)
{
	struct bloom_stage __user *ust = u64_to_user_ptr(arg->stages);
	struct bloom_stage *out;
	struct bloom_store *s;
	u32 n = 0, copy;
	int ret = 0;

	arg->out_count = 0;
	/* filled under RCU, copied out after it */
	out = bloom_kzalloc(sizeof(*out) * BLOOM_SCALE_STAGES_MAX,
			    GFP_KERNEL_ACCOUNT);
	if (!out)
		return -ENOMEM;
	rcu_read_lock();
	s = bloom_filter_store(f);
	if (!s)
		ret = -ESTALE;
	else if (s->clock)
		n = bloom_generations_fill(s, out);
	else if (!bloom_core_is_scalable(&s->core))
		ret = -EOPNOTSUPP;
	else
		n = bloom_stages_fill(&s->core, out);
	rcu_read_unlock();
	if (ret)
		goto out;
	copy = min(n, arg->capacity);
	if (copy && copy_to_user(ust, out, sizeof(*out) * copy))
		ret = -EFAULT;
	arg->out_count = n;
out:
	bloom_kfree(out);
	return ret;
}
