// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The tables a snapshot header ends with (snapshot.h,
 * Documentation/snapshot.rst): a scalable filter's stages, an expiring
 * filter's generations and the netblock counts, each written, read and
 * checked here; snapshot.c calls them from the header's writer and reader.
 */
#include "internal.h"
#include "snapshot_layout.h"

int bloom_image_geometry_check(const struct bloom_geometry *geo)
{
	if (geo->type == BLOOM_CORE_DLEFT)
		return bloom_dl_geometry_check(geo);
	if (geo->type == BLOOM_CORE_TIMED)
		return bloom_tm_geometry_check(geo);
	if (geo->type == BLOOM_CORE_COUNTING && geo->cell_bits != 4)
		return -EINVAL;
	if (geo->type != BLOOM_CORE_COUNTING && geo->cell_bits)
		return -EINVAL;
	if (geo->fingerprint_bits || geo->buckets)
		return -EINVAL;
	return bloom_geometry_check(geo);
}

void bloom_image_stage_get(const struct bloom_core *f, u32 i,
			   struct bloom_image_stage *st)
{
	const struct bloom_scale_stage *s = bloom_scale_stage(f, i);

	st->capacity = s->core.geo.capacity;
	st->bits = s->core.geo.bits;
	/* a timed stage's keys are its cells in use */
	st->count = bloom_core_is_timed(&s->core) ?
		    bloom_timed_used(&s->core) : READ_ONCE(s->count);
	st->keys = (u64)bloom_atomic64_read(&s->core.keys);
	st->hashes = s->core.geo.hashes;
	st->fpp_ppb = s->core.geo.fpp_ppb;
}

void bloom_image_stage_geometry(u32 type, const struct bloom_image_stage *st,
				struct bloom_geometry *geo)
{
	/* checked by bloom_image_stages_check(): cannot fail */
	if (type == BLOOM_CORE_TIMED &&
	    !bloom_geometry_size(type, st->capacity, st->fpp_ppb, geo))
		return;
	memset(geo, 0, sizeof(*geo));
	geo->type = type;
	geo->hashes = st->hashes;
	geo->fpp_ppb = st->fpp_ppb;
	geo->bits = st->bits;
	geo->capacity = st->capacity;
}

void bloom_image_stage_read(const u8 *buf, u32 i, struct bloom_image_stage *st)
{
	const u8 *p = buf + OFF_STAGES + BLOOM_IMAGE_STAGE_SIZE * i;

	st->capacity = get64(p + ST_CAPACITY);
	st->bits = get64(p + ST_BITS);
	st->count = get64(p + ST_COUNT);
	st->keys = get64(p + ST_KEYS);
	st->hashes = get32(p + ST_HASHES);
	st->fpp_ppb = get32(p + ST_FPP);
}

/* The scalable filter's fields and stage table, at @buf (the whole header). */
void bloom_image_stages_write(u8 *buf, const struct bloom_image_header *h,
			      const struct bloom_core *f)
{
	struct bloom_image_stage e;
	u8 *p;
	u32 i;

	put32(buf + OFF_GROWTH, h->scale.growth);
	put32(buf + OFF_TIGHTEN, h->scale.tightening_ppm);
	put32(buf + OFF_NSTAGES, h->nstages);
	for (i = 0; i < h->nstages; i++) {
		bloom_image_stage_get(f, i, &e);
		p = buf + OFF_STAGES + BLOOM_IMAGE_STAGE_SIZE * i;
		put64(p + ST_CAPACITY, e.capacity);
		put64(p + ST_BITS, e.bits);
		put64(p + ST_COUNT, e.count);
		put64(p + ST_KEYS, e.keys);
		put32(p + ST_HASHES, e.hashes);
		put32(p + ST_FPP, e.fpp_ppb);
	}
}

/*
 * A scalable filter's part of the header (h->header_size bytes at @buf,
 * checksum checked, @h's fixed fields decoded and checked): the parameters
 * as create checks them, the stage count against the header's size, and
 * each stage: the capacity and rate its index gives, a valid geometry of
 * the filter's type (stage 0's that of the header), a count within its
 * capacity; the payload the sum of their storage.
 */
int bloom_image_stages_check(const u8 *buf, struct bloom_image_header *h,
			     const char **why)
{
	struct bloom_image_stage st;
	struct bloom_geometry geo;
	u64 payload = 0, cap;
	u32 i, ppb;
	int ret;

	bool timed = h->geo.type == BLOOM_CORE_TIMED;
	u32 term = 0;

	if (h->geo.type != BLOOM_CORE_STANDARD &&
	    h->geo.type != BLOOM_CORE_BLOCKED && !timed)
		return bloom_image_fail(why, -EBADMSG,
					"stages in a snapshot of a type that cannot have them");
	h->scale.type = h->geo.type;
	h->scale.growth = get32(buf + OFF_GROWTH);
	h->scale.tightening_ppm = get32(buf + OFF_TIGHTEN);
	h->scale.capacity = h->geo.capacity;
	h->scale.fpp_ppb = h->geo.fpp_ppb;
	if (bloom_scale_check(&h->scale))
		return bloom_image_fail(why, -EBADMSG,
					"growth or tightening out of range");
	h->nstages = get32(buf + OFF_NSTAGES);
	if (h->nstages < 1 || h->nstages > BLOOM_CORE_STAGES_MAX ||
	    h->header_size != BLOOM_IMAGE_HEADER_BYTES(h->nstages) +
	    (h->incompat & BLOOM_IMAGE_F_NETBLOCKS ? BLOOM_IMAGE_NB_SIZE : 0))
		return bloom_image_fail(why, -EBADMSG,
					"stage count out of range or not what the header's size says");
	for (i = 0; i < h->nstages; i++, term++) {
		bloom_image_stage_read(buf, i, &st);
		/*
		 * Stage i is of term i; a timed chain's of the first term
		 * after the last stage's whose capacity is the stage's (the
		 * capacity grows with the term: one at most).
		 */
		while (timed && term < BLOOM_CORE_STAGES_MAX &&
		       !bloom_scale_stage_params(&h->scale, term, &cap, &ppb) &&
		       cap < st.capacity)
			term++;
		if (term >= BLOOM_CORE_STAGES_MAX ||
		    bloom_scale_stage_params(&h->scale, term, &cap, &ppb) ||
		    st.capacity != cap || st.fpp_ppb != ppb)
			return bloom_image_fail(why, -EBADMSG,
						"a stage's capacity or rate is not the one its place gives");
		h->term[i] = term;
		bloom_image_stage_geometry(h->geo.type, &st, &geo);
		ret = bloom_image_geometry_check(&geo);
		if (ret)
			return bloom_image_fail(why, ret, ret == -E2BIG ?
						"stage larger than bloom's limit" :
						"stage geometry not valid for its type");
		if (timed && (st.bits != geo.bits || st.hashes != geo.hashes))
			return bloom_image_fail(why, -EBADMSG,
						"a timed stage's geometry is not the one its capacity and rate give");
		/* a timed chain's header is of term 0, its first stage may not be */
		if (!i && !timed && (st.bits != h->geo.bits ||
				     st.hashes != h->geo.hashes))
			return bloom_image_fail(why, -EBADMSG,
						"stage 0's geometry is not the header's");
		if (st.count > st.capacity)
			return bloom_image_fail(why, -EBADMSG,
						"a stage holds more keys than its capacity");
		payload += bloom_core_storage_bytes(&geo);
	}
	if (h->payload_bytes != payload)
		return bloom_image_fail(why, -EBADMSG,
					"payload size does not match the stages");
	return 0;
}

/* Milliseconds from @from to @to, rounded up; 0 when @to is not later. */
static u64 bloom_image_ms_until(u64 from, u64 to)
{
	return to > from ? div64_u64(to - from + 999999, 1000000) : 0;
}

/* Generation @i of @f as a table entry, its times against @saved. */
static void bloom_image_gen_get(const struct bloom_core *f, u32 i, u64 saved,
				struct bloom_image_gen *g)
{
	const struct bloom_expire_gen *e = bloom_expire_gen(f, i);
	u64 expires = READ_ONCE(e->expires_ns), born = READ_ONCE(e->born_ns);

	g->keys = (u64)bloom_atomic64_read(&e->core.keys);
	g->age_ms = born < saved ? div64_u64(saved - born, 1000000) : 0;
	g->keep_ms = expires == BLOOM_EXPIRE_NEVER ? BLOOM_IMAGE_KEEP_ADDING :
		     bloom_image_ms_until(saved, expires);
}

/* The generation table and its fields, at @buf (the whole header). */
void bloom_image_gens_write(u8 *buf, const struct bloom_image_header *h,
			    const struct bloom_core *f)
{
	struct bloom_image_gen g;
	u8 *p;
	u32 i;

	put32(buf + OFF_NGENS, h->ngens);
	put64(buf + OFF_TIMEOUT, h->expire.timeout_ms);
	put64(buf + OFF_SAVED, h->saved_wall_ns);
	for (i = 0; i < h->ngens; i++) {
		bloom_image_gen_get(f, i, h->saved_ns, &g);
		p = buf + OFF_STAGES + BLOOM_IMAGE_STAGE_SIZE * i;
		put64(p + GEN_KEYS, g.keys);
		put64(p + GEN_AGE, g.age_ms);
		put64(p + GEN_KEEP, g.keep_ms);
	}
}

void bloom_image_gen_read(const u8 *buf, const struct bloom_image_header *h,
			  u32 i, struct bloom_image_gen *g)
{
	const u8 *p = buf + OFF_STAGES + BLOOM_IMAGE_STAGE_SIZE * i;

	(void)h;
	g->keys = get64(p + GEN_KEYS);
	g->age_ms = get64(p + GEN_AGE);
	g->keep_ms = get64(p + GEN_KEEP);
}

/*
 * @ms after a save @elapsed ns ago, on the clock that reads @now: 0 when
 * that is past. Counted from now, not from the save's time on this clock,
 * which a clock younger than the snapshot (a restore at boot) cannot
 * express: taken as its start, it kept keys up to @ms past that start.
 */
static u64 bloom_image_after_save(u64 ms, u64 elapsed, u64 now)
{
	u64 ns = ms * 1000000;

	return ns > elapsed ? now + (ns - elapsed) : 0;
}

u32 bloom_image_gens_apply(struct bloom_core *f, const u8 *buf,
			   const struct bloom_image_header *h, u64 now_ns,
			   u64 now_wall_ns)
{
	u64 elapsed = now_wall_ns > h->saved_wall_ns ?
		      now_wall_ns - h->saved_wall_ns : 0;
	/*
	 * the save on this clock, for the generations' ages only; before
	 * the clock started: as early as it goes, which only delays the
	 * next rotation
	 */
	u64 saved = now_ns > elapsed ? now_ns - elapsed : 0, ns;
	struct bloom_expire_gen *e;
	struct bloom_image_gen g;
	u32 i;

	for (i = 0; i < h->ngens; i++) {
		bloom_image_gen_read(buf, h, i, &g);
		e = bloom_expire_gen(f, i);
		bloom_atomic64_set(&e->core.keys, g.keys);
		ns = g.age_ms > saved / 1000000 ? saved : g.age_ms * 1000000;
		e->born_ns = saved - ns;
		/*
		 * A generation that still took adds took none after the
		 * save: its timeout runs from then, the newest's too
		 * (bloom_expire_resume() makes the newest left take adds).
		 */
		if (g.keep_ms == BLOOM_IMAGE_KEEP_ADDING)
			e->expires_ns = bloom_image_after_save(h->expire.timeout_ms,
							       elapsed, now_ns);
		else
			e->expires_ns = g.keep_ms ?
					bloom_image_after_save(g.keep_ms, elapsed,
							       now_ns) : 0;
	}
	return bloom_expire_resume(f, saved, now_ns);
}

/*
 * An expiring filter's part of the header: the parameters as create
 * checks them, the header's geometry a generation's, the table's size,
 * its entries' unused bytes zero, and the payload G generations.
 */
int bloom_image_gens_check(const u8 *buf, struct bloom_image_header *h,
			   const char **why)
{
	struct bloom_geometry geo;
	u32 i, j;
	u64 keep;

	if (h->incompat & BLOOM_IMAGE_F_STAGES)
		return bloom_image_fail(why, -EBADMSG,
					"both stages and generations");
	h->expire = (struct bloom_expire_params) {
		.type = h->geo.type,
		.generations = get32(buf + OFF_NGENS),
		.capacity = h->geo.capacity,
		.fpp_ppb = h->geo.fpp_ppb,
		.timeout_ms = get64(buf + OFF_TIMEOUT),
	};
	h->saved_wall_ns = get64(buf + OFF_SAVED);
	if (bloom_expire_check(&h->expire) ||
	    bloom_expire_gen_geometry(&h->expire, &geo))
		return bloom_image_fail(why, -EBADMSG,
					"timeout, generations, type, capacity or rate out of range");
	if (geo.bits != h->geo.bits || geo.hashes != h->geo.hashes)
		return bloom_image_fail(why, -EBADMSG,
					"the geometry is not a generation's");
	h->ngens = h->expire.generations;
	if (h->header_size != BLOOM_IMAGE_HEADER_BYTES(h->ngens) +
	    (h->incompat & BLOOM_IMAGE_F_NETBLOCKS ? BLOOM_IMAGE_NB_SIZE : 0))
		return bloom_image_fail(why, -EBADMSG,
					"generation count not what the header's size says");
	for (i = 0; i < h->ngens; i++) {
		for (j = GEN_KEEP + 8; j < BLOOM_IMAGE_STAGE_SIZE; j++)
			if (buf[OFF_STAGES + BLOOM_IMAGE_STAGE_SIZE * i + j])
				return bloom_image_fail(why, -EBADMSG,
							"reserved bytes of a generation are not zero");
		/*
		 * What a filter can hold: a sealed generation may be cleared
		 * at most a timeout after the save (sealed at or before it);
		 * only the newest two may still take adds (the previous
		 * newest until its rotation seals it). More would keep keys
		 * past their timeout, in the restored filter and in any it
		 * is merged into.
		 */
		keep = get64(buf + OFF_STAGES + BLOOM_IMAGE_STAGE_SIZE * i +
			     GEN_KEEP);
		if (keep == BLOOM_IMAGE_KEEP_ADDING ? i + 2 < h->ngens :
		    keep > h->expire.timeout_ms)
			return bloom_image_fail(why, -EBADMSG,
						"a generation kept longer than the timeout allows");
	}
	if (h->payload_bytes != bloom_core_storage_bytes(&geo) * h->ngens)
		return bloom_image_fail(why, -EBADMSG,
					"payload size does not match the generations");
	return 0;
}

/* The plan of @family in @nb as the header's list. */
static void bloom_image_plan_list(const struct bloom_netblocks *nb,
				  u32 family, u8 *list)
{
	u32 l, n = 0;

	for (l = 1; l < bloom_nb_full(family); l++)
		if (test_bit(l, nb->plan[family]) &&
		    n < BLOOM_IMAGE_PREFIXES_LEN - 1)
			list[n++] = (u8)l;
}

void bloom_image_header_netblocks(struct bloom_image_header *h,
				  const struct bloom_netblocks *nb)
{
	u32 fam;

	h->nb = nb;
	h->key_kind = READ_ONCE(nb->kind);
	if (h->key_kind)
		h->compat |= BLOOM_IMAGE_C_KEYS;
	for (fam = 0; fam < 2; fam++) {
		if (!bloom_nb_planned(nb, fam))
			continue;
		h->compat |= BLOOM_IMAGE_C_PREFIXES;
		bloom_image_plan_list(nb, fam, h->prefixes[fam]);
	}
	if (!bloom_nb_any(nb))
		return;
	h->incompat |= BLOOM_IMAGE_F_NETBLOCKS;
	h->nb_offset = OFF_STAGES + BLOOM_IMAGE_STAGE_SIZE * bloom_image_entries(h);
	h->header_size += BLOOM_IMAGE_NB_SIZE;
}

void bloom_image_netblocks_load(const u8 *buf, const struct bloom_image_header *h,
				struct bloom_netblocks *nb)
{
	unsigned long bits[128 / BITS_PER_LONG];
	u32 i, fam, l;
	u64 c;

	bloom_nb_clear(nb);
	nb->kind = h->key_kind;
	for (fam = 0; fam < 2; fam++) {
		memset(bits, 0, sizeof(bits));
		for (i = 0; i < BLOOM_IMAGE_PREFIXES_LEN && h->prefixes[fam][i]; i++)
			set_bit(h->prefixes[fam][i], bits);
		/* checked by bloom_image_keys_check() */
		bloom_nb_set_plan(nb, fam, bits);
	}
	for (i = 0; h->nb_offset && i < BLOOM_NB_LENS; i++) {
		c = get64(buf + h->nb_offset + 8 * i);
		fam = i < BLOOM_NB_LENS4 ? BLOOM_NB_IPV4 : BLOOM_NB_IPV6;
		l = fam == BLOOM_NB_IPV4 ? i : i - BLOOM_NB_LENS4;
		if (c)
			bloom_nb_account(nb, fam, l, (s64)c);
	}
}

void bloom_image_netblocks_write(u8 *buf, const struct bloom_image_header *h)
{
	u32 i;

	for (i = 0; i < BLOOM_NB_LENS; i++)
		put64(buf + h->nb_offset + 8 * i,
		      bloom_atomic64_read(&h->nb->count[i]));
}

/*
 * The prefix length lists (compat PREFIXES): each ascending, from 1 to one
 * less than the family's full length, at most BLOOM_EXPAND_LENS_MAX, 0
 * after the last. Into @h->prefixes; false when a list is none of that.
 */
static bool bloom_image_prefixes_read(const u8 *buf,
				      struct bloom_image_header *h)
{
	u32 fam, i, prev;
	const u8 *p;

	for (fam = 0; fam < 2; fam++) {
		p = buf + (fam == BLOOM_NB_IPV4 ? OFF_PREFIXES4 : OFF_PREFIXES6);
		if (p[BLOOM_IMAGE_PREFIXES_LEN - 1])
			return false;
		for (i = 0, prev = 0; i < BLOOM_IMAGE_PREFIXES_LEN; i++) {
			if (!p[i]) {
				/* the rest is 0 too */
				for (; i < BLOOM_IMAGE_PREFIXES_LEN; i++)
					if (p[i])
						return false;
				break;
			}
			if (p[i] <= prev || p[i] >= bloom_nb_full(fam))
				return false;
			prev = p[i];
		}
		memcpy(h->prefixes[fam], p, BLOOM_IMAGE_PREFIXES_LEN);
	}
	return true;
}

/* Is (@family, @l) a length @h's prefix lengths hold (or has it none)? */
static bool bloom_image_plan_allows(const struct bloom_image_header *h,
				    u32 family, u32 l)
{
	u32 i;

	if (l >= bloom_nb_full(family) || !h->prefixes[family][0])
		return true;
	for (i = 0; i < BLOOM_IMAGE_PREFIXES_LEN; i++)
		if (h->prefixes[family][i] == l)
			return true;
	return false;
}

/*
 * The key kind (compat KEYS), the prefix lengths (compat PREFIXES) and the
 * netblock table (incompat NETBLOCKS): the table where the stage table
 * ends, inside the header; a count of a family the kind excludes, of a
 * length the prefix lengths do not hold or over BLOOM_NB_COUNT_MAX is
 * refused.
 */
int bloom_image_keys_check(const u8 *buf, struct bloom_image_header *h,
			   const char **why)
{
	u32 i, fam, l;
	u64 c;

	if (h->compat & BLOOM_IMAGE_C_KEYS) {
		h->key_kind = get32(buf + OFF_KIND);
		if (h->key_kind > BLOOM_CORE_KIND_MAX)
			h->key_kind = BLOOM_CORE_KIND_UNKNOWN;
	}
	if (h->compat & BLOOM_IMAGE_C_PREFIXES &&
	    !bloom_image_prefixes_read(buf, h))
		return bloom_image_fail(why, -EBADMSG,
					"prefix lengths not ascending, out of range or too many");
	if (!(h->incompat & BLOOM_IMAGE_F_NETBLOCKS))
		return 0;
	h->nb_offset = OFF_STAGES + BLOOM_IMAGE_STAGE_SIZE * bloom_image_entries(h);
	if ((u64)h->nb_offset + BLOOM_IMAGE_NB_SIZE + 8 > h->header_size)
		return bloom_image_fail(why, -EBADMSG,
					"netblock table past the header's end");
	for (i = 0; i < BLOOM_NB_LENS; i++) {
		fam = i < BLOOM_NB_LENS4 ? BLOOM_NB_IPV4 : BLOOM_NB_IPV6;
		l = fam == BLOOM_NB_IPV4 ? i : i - BLOOM_NB_LENS4;
		c = get64(buf + h->nb_offset + 8 * i);
		if (!c)
			continue;
		if (h->key_kind != BLOOM_CORE_KIND_UNKNOWN &&
		    h->key_kind != bloom_nb_kind(fam))
			return bloom_image_fail(why, -EBADMSG,
						"netblocks of a family the key kind excludes");
		/* a larger count, merged, could wrap and skip its length */
		if (c > BLOOM_NB_COUNT_MAX)
			return bloom_image_fail(why, -EBADMSG,
						"a netblock count over 2^62");
		if (!bloom_image_plan_allows(h, fam, l))
			return bloom_image_fail(why, -EBADMSG,
						"netblocks of a length the prefix lengths do not hold");
	}
	return 0;
}
