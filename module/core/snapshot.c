// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The snapshot header: serializer, parser and checks (snapshot.h,
 * Documentation/snapshot.rst). Every field is read and written byte by
 * byte as little-endian, so the header means the same on every host.
 */
#include "internal.h"
#include "snapshot.h"

/* Field offsets in the header (Documentation/snapshot.rst). */
#define OFF_MAGIC	0
#define OFF_VERSION	8
#define OFF_HDR_SIZE	12
#define OFF_INCOMPAT	16
#define OFF_COMPAT	20
#define OFF_SCHEME	24
#define OFF_TYPE	28
#define OFF_HASHES	32
#define OFF_FPP		36
#define OFF_BITS	40
#define OFF_CAPACITY	48
#define OFF_FP_BITS	56
#define OFF_CELL_BITS	60
#define OFF_BUCKETS	64
#define OFF_PAYLOAD	72
#define OFF_PAYLOAD_H	80
#define OFF_NAME	88
#define OFF_KEY		120
#define OFF_STATS	136	/* 7 x u64, in struct bloom_snap_stats order */
#define OFF_RESERVED	192	/* up to the checksum: zero when written */
/* With BLOOM_SNAP_F_STAGES, in the reserved area: */
#define OFF_GROWTH	192
#define OFF_TIGHTEN	196
#define OFF_NSTAGES	200
#define OFF_KIND	204	/* with BLOOM_SNAP_C_KEYS */
/* With BLOOM_SNAP_F_GENERATIONS, in the reserved area: */
#define OFF_NGENS	208
#define OFF_TIMEOUT	216
#define OFF_SAVED	224
#define OFF_STAGES	248	/* the stage table, the netblock table, the checksum */
/* A stage table entry (BLOOM_SNAP_STAGE_SIZE bytes). */
#define ST_CAPACITY	0
#define ST_BITS		8
#define ST_COUNT	16
#define ST_KEYS		24
#define ST_HASHES	32
#define ST_FPP		36
/* A generation table entry (BLOOM_SNAP_STAGE_SIZE bytes; the rest 0). */
#define GEN_KEYS	0
#define GEN_AGE		8
#define GEN_KEEP	16
/* The header's checksum is its last 8 bytes, over all bytes before them. */

#define BLOOM_SNAP_NSTATS	7

static u32 get32(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

static u64 get64(const u8 *p)
{
	return (u64)get32(p) | (u64)get32(p + 4) << 32;
}

static void put32(u8 *p, u32 v)
{
	p[0] = (u8)v;
	p[1] = (u8)(v >> 8);
	p[2] = (u8)(v >> 16);
	p[3] = (u8)(v >> 24);
}

static void put64(u8 *p, u64 v)
{
	put32(p, (u32)v);
	put32(p + 4, (u32)(v >> 32));
}

u64 bloom_snap_hash(const void *p, u64 len)
{
	bloom_xxh64_state s;

	bloom_xxh64_reset(&s);
	bloom_xxh64_update(&s, p, len);
	return bloom_xxh64_digest(&s);
}

static u64 *bloom_snap_stat(struct bloom_snap_stats *s, int i)
{
	u64 *v[BLOOM_SNAP_NSTATS] = {
		&s->count, &s->adds, &s->queries, &s->hits, &s->deletes,
		&s->delete_misses, &s->insert_failures,
	};

	return v[i];
}

void bloom_snap_stage_get(const struct bloom_core *f, u32 i,
			  struct bloom_snap_stage *st)
{
	const struct bloom_scale_stage *s = bloom_scale_stage(f, i);

	st->capacity = s->core.geo.capacity;
	st->bits = s->core.geo.bits;
	st->count = READ_ONCE(s->count);
	st->keys = (u64)bloom_atomic64_read(&s->core.keys);
	st->hashes = s->core.geo.hashes;
	st->fpp_ppb = s->core.geo.fpp_ppb;
}

void bloom_snap_stage_geometry(u32 type, const struct bloom_snap_stage *st,
			       struct bloom_geometry *geo)
{
	memset(geo, 0, sizeof(*geo));
	geo->type = type;
	geo->hashes = st->hashes;
	geo->fpp_ppb = st->fpp_ppb;
	geo->bits = st->bits;
	geo->capacity = st->capacity;
}

u32 bloom_snap_header_bytes(const struct bloom_core *f)
{
	return BLOOM_SNAP_HEADER_BYTES(f->scale ? bloom_scale_stages(f) :
				       f->expire ? f->expire->p.generations : 0);
}

/* Entries in the header's table: stages or generations. */
static u32 bloom_snap_entries(const struct bloom_snap_header *h)
{
	return h->nstages + h->ngens;
}

void bloom_snap_header_init(struct bloom_snap_header *h,
			    const struct bloom_core *f)
{
	const struct bloom_scale_stage *st;
	u32 i;

	memset(h, 0, sizeof(*h));
	h->version = BLOOM_SNAP_VERSION;
	h->header_size = BLOOM_SNAP_HEADER_SIZE;
	h->scheme = BLOOM_SCHEME_ID;
	h->geo = f->geo;
	h->payload_bytes = bloom_core_storage_bytes(&f->geo);
	bloom_hash_key_to_bytes(&f->key, h->hash_key);
	if (f->expire) {
		h->incompat |= BLOOM_SNAP_F_GENERATIONS;
		h->expire = f->expire->p;
		h->ngens = h->expire.generations;
		h->header_size = BLOOM_SNAP_HEADER_BYTES(h->ngens);
		h->payload_bytes *= h->ngens;
		return;
	}
	if (!f->scale)
		return;
	h->incompat |= BLOOM_SNAP_F_STAGES;
	h->scale = f->scale->p;
	h->nstages = bloom_scale_stages(f);
	h->header_size = BLOOM_SNAP_HEADER_BYTES(h->nstages);
	h->payload_bytes = 0;
	for (i = 0; i < h->nstages; i++) {
		st = bloom_scale_stage(f, i);
		h->payload_bytes += bloom_core_storage_bytes(&st->core.geo);
		/* the header's bits and k: stage 0's, as it was made */
		if (!i) {
			h->geo.bits = st->core.geo.bits;
			h->geo.hashes = st->core.geo.hashes;
		}
	}
}

void bloom_snap_header_netblocks(struct bloom_snap_header *h,
				 const struct bloom_netblocks *nb)
{
	h->nb = nb;
	h->key_kind = READ_ONCE(nb->kind);
	if (h->key_kind)
		h->compat |= BLOOM_SNAP_C_KEYS;
	if (!bloom_nb_any(nb))
		return;
	h->incompat |= BLOOM_SNAP_F_NETBLOCKS;
	h->nb_offset = OFF_STAGES + BLOOM_SNAP_STAGE_SIZE * bloom_snap_entries(h);
	h->header_size += BLOOM_SNAP_NB_SIZE;
}

void bloom_snap_netblocks_load(const u8 *buf, const struct bloom_snap_header *h,
			       struct bloom_netblocks *nb)
{
	u32 i, fam, l;
	u64 c;

	bloom_nb_clear(nb);
	nb->kind = h->key_kind;
	for (i = 0; h->nb_offset && i < BLOOM_NB_LENS; i++) {
		c = get64(buf + h->nb_offset + 8 * i);
		fam = i < BLOOM_NB_LENS4 ? BLOOM_NB_IPV4 : BLOOM_NB_IPV6;
		l = fam == BLOOM_NB_IPV4 ? i : i - BLOOM_NB_LENS4;
		if (c)
			bloom_nb_account(nb, fam, l, (s64)c);
	}
}

u64 bloom_snap_payload_hash(const struct bloom_core *f)
{
	const struct bloom_scale_stage *st;
	bloom_xxh64_state s;
	u32 i, n;

	if (f->expire) {
		bloom_xxh64_reset(&s);
		for (i = 0; i < f->expire->p.generations; i++)
			bloom_xxh64_update(&s, bloom_expire_gen(f, i)->core.words,
					   bloom_core_storage_bytes(&f->geo));
		return bloom_xxh64_digest(&s);
	}
	if (!f->scale)
		return bloom_snap_hash(f->words,
				       bloom_core_storage_bytes(&f->geo));
	bloom_xxh64_reset(&s);
	n = bloom_scale_stages(f);
	for (i = 0; i < n; i++) {
		st = bloom_scale_stage(f, i);
		bloom_xxh64_update(&s, st->core.words,
				   bloom_core_storage_bytes(&st->core.geo));
	}
	return bloom_xxh64_digest(&s);
}

/* Milliseconds from @from to @to, rounded up; 0 when @to is not later. */
static u64 bloom_snap_ms_until(u64 from, u64 to)
{
	return to > from ? div64_u64(to - from + 999999, 1000000) : 0;
}

/* Generation @i of @f as a table entry, its times against @saved. */
static void bloom_snap_gen_get(const struct bloom_core *f, u32 i, u64 saved,
			       struct bloom_snap_gen *g)
{
	const struct bloom_expire_gen *e = bloom_expire_gen(f, i);
	u64 expires = READ_ONCE(e->expires_ns), born = READ_ONCE(e->born_ns);

	g->keys = (u64)bloom_atomic64_read(&e->core.keys);
	g->age_ms = born < saved ? div64_u64(saved - born, 1000000) : 0;
	g->keep_ms = expires == BLOOM_EXPIRE_NEVER ? BLOOM_SNAP_KEEP_ADDING :
		     bloom_snap_ms_until(saved, expires);
}

/* The generation table and its fields, at @buf (the whole header). */
static void bloom_snap_gens_write(u8 *buf, const struct bloom_snap_header *h,
				  const struct bloom_core *f)
{
	struct bloom_snap_gen g;
	u8 *p;
	u32 i;

	put32(buf + OFF_NGENS, h->ngens);
	put64(buf + OFF_TIMEOUT, h->expire.timeout_ms);
	put64(buf + OFF_SAVED, h->saved_wall_ns);
	for (i = 0; i < h->ngens; i++) {
		bloom_snap_gen_get(f, i, h->saved_ns, &g);
		p = buf + OFF_STAGES + BLOOM_SNAP_STAGE_SIZE * i;
		put64(p + GEN_KEYS, g.keys);
		put64(p + GEN_AGE, g.age_ms);
		put64(p + GEN_KEEP, g.keep_ms);
	}
}

void bloom_snap_gen_read(const u8 *buf, const struct bloom_snap_header *h,
			 u32 i, struct bloom_snap_gen *g)
{
	const u8 *p = buf + OFF_STAGES + BLOOM_SNAP_STAGE_SIZE * i;

	(void)h;
	g->keys = get64(p + GEN_KEYS);
	g->age_ms = get64(p + GEN_AGE);
	g->keep_ms = get64(p + GEN_KEEP);
}

u32 bloom_snap_gens_apply(struct bloom_core *f, const u8 *buf,
			  const struct bloom_snap_header *h, u64 now_ns,
			  u64 now_wall_ns)
{
	u64 elapsed = now_wall_ns > h->saved_wall_ns ?
		      now_wall_ns - h->saved_wall_ns : 0;
	/* the save on this clock; before it started: as early as it goes */
	u64 saved = now_ns > elapsed ? now_ns - elapsed : 0, ns;
	struct bloom_expire_gen *e;
	struct bloom_snap_gen g;
	u32 i;

	for (i = 0; i < h->ngens; i++) {
		bloom_snap_gen_read(buf, h, i, &g);
		e = bloom_expire_gen(f, i);
		bloom_atomic64_set(&e->core.keys, g.keys);
		ns = g.age_ms > saved / 1000000 ? saved : g.age_ms * 1000000;
		e->born_ns = saved - ns;
		/*
		 * A generation that still took adds took none after the
		 * save: its timeout runs from then (the newest's too, which
		 * bloom_expire_resume() decides about).
		 */
		if (g.keep_ms == BLOOM_SNAP_KEEP_ADDING)
			e->expires_ns = i == h->ngens - 1 ? BLOOM_EXPIRE_NEVER :
					saved + h->expire.timeout_ms * 1000000;
		else
			e->expires_ns = g.keep_ms ? saved + g.keep_ms * 1000000 :
					0;
	}
	return bloom_expire_resume(f, saved, now_ns);
}

void bloom_snap_header_write(u8 *buf, const struct bloom_snap_header *h,
			     const struct bloom_core *f)
{
	struct bloom_snap_stats st = h->stats;
	struct bloom_snap_stage e;
	u8 *p;
	u32 i;

	memset(buf, 0, h->header_size);
	memcpy(buf + OFF_MAGIC, BLOOM_SNAP_MAGIC, BLOOM_SNAP_MAGIC_LEN);
	put32(buf + OFF_VERSION, BLOOM_SNAP_VERSION);
	put32(buf + OFF_HDR_SIZE, h->header_size);
	put32(buf + OFF_INCOMPAT, h->incompat);
	put32(buf + OFF_COMPAT, h->compat);
	put32(buf + OFF_SCHEME, h->scheme);
	put32(buf + OFF_TYPE, h->geo.type);
	put32(buf + OFF_HASHES, h->geo.hashes);
	put32(buf + OFF_FPP, h->geo.fpp_ppb);
	put64(buf + OFF_BITS, h->geo.bits);
	put64(buf + OFF_CAPACITY, h->geo.capacity);
	put32(buf + OFF_FP_BITS, h->geo.fingerprint_bits);
	put32(buf + OFF_CELL_BITS, h->geo.cell_bits);
	put64(buf + OFF_BUCKETS, h->geo.buckets);
	put64(buf + OFF_PAYLOAD, h->payload_bytes);
	put64(buf + OFF_PAYLOAD_H, h->payload_hash);
	memcpy(buf + OFF_NAME, h->name, BLOOM_SNAP_NAME_LEN);
	memcpy(buf + OFF_KEY, h->hash_key, BLOOM_CORE_HASH_KEY_LEN);
	for (i = 0; i < BLOOM_SNAP_NSTATS; i++)
		put64(buf + OFF_STATS + 8 * i, *bloom_snap_stat(&st, i));
	if (h->incompat & BLOOM_SNAP_F_STAGES) {
		put32(buf + OFF_GROWTH, h->scale.growth);
		put32(buf + OFF_TIGHTEN, h->scale.tightening_ppm);
		put32(buf + OFF_NSTAGES, h->nstages);
		for (i = 0; i < h->nstages; i++) {
			bloom_snap_stage_get(f, i, &e);
			p = buf + OFF_STAGES + BLOOM_SNAP_STAGE_SIZE * i;
			put64(p + ST_CAPACITY, e.capacity);
			put64(p + ST_BITS, e.bits);
			put64(p + ST_COUNT, e.count);
			put64(p + ST_KEYS, e.keys);
			put32(p + ST_HASHES, e.hashes);
			put32(p + ST_FPP, e.fpp_ppb);
		}
	}
	if (h->incompat & BLOOM_SNAP_F_GENERATIONS)
		bloom_snap_gens_write(buf, h, f);
	if (h->compat & BLOOM_SNAP_C_KEYS)
		put32(buf + OFF_KIND, h->key_kind);
	if (h->incompat & BLOOM_SNAP_F_NETBLOCKS)
		for (i = 0; i < BLOOM_NB_LENS; i++)
			put64(buf + h->nb_offset + 8 * i,
			      bloom_atomic64_read(&h->nb->count[i]));
	put64(buf + h->header_size - 8,
	      bloom_snap_hash(buf, h->header_size - 8));
}

void bloom_snap_stage_read(const u8 *buf, u32 i, struct bloom_snap_stage *st)
{
	const u8 *p = buf + OFF_STAGES + BLOOM_SNAP_STAGE_SIZE * i;

	st->capacity = get64(p + ST_CAPACITY);
	st->bits = get64(p + ST_BITS);
	st->count = get64(p + ST_COUNT);
	st->keys = get64(p + ST_KEYS);
	st->hashes = get32(p + ST_HASHES);
	st->fpp_ppb = get32(p + ST_FPP);
}

int bloom_snap_header_size(const u8 *buf, u64 len, u32 *size)
{
	u32 v;

	if (len < BLOOM_SNAP_PREFIX ||
	    memcmp(buf + OFF_MAGIC, BLOOM_SNAP_MAGIC, BLOOM_SNAP_MAGIC_LEN))
		return -EBADMSG;
	v = get32(buf + OFF_VERSION);
	if (v != BLOOM_SNAP_VERSION)
		return -EPROTONOSUPPORT;
	v = get32(buf + OFF_HDR_SIZE);
	if (v < BLOOM_SNAP_HEADER_SIZE || v > BLOOM_SNAP_HEADER_MAX || v % 8)
		return -EBADMSG;
	*size = v;
	return 0;
}

int bloom_snap_geometry_check(const struct bloom_geometry *geo)
{
	if (geo->type == BLOOM_CORE_DLEFT)
		return bloom_dl_geometry_check(geo);
	if (geo->type == BLOOM_CORE_COUNTING && geo->cell_bits != 4)
		return -EINVAL;
	if (geo->type != BLOOM_CORE_COUNTING && geo->cell_bits)
		return -EINVAL;
	if (geo->fingerprint_bits || geo->buckets)
		return -EINVAL;
	return bloom_geometry_check(geo);
}

/* Refuses: @err, with the reason in *@why when the caller asked. */
static int bloom_snap_fail(const char **why, int err, const char *text)
{
	if (why)
		*why = text;
	return err;
}

/*
 * A scalable filter's part of the header (h->header_size bytes at @buf,
 * checksum checked, @h's fixed fields decoded and checked): the parameters
 * as create checks them, the stage count against the header's size, and
 * each stage: the capacity and rate its index gives, a valid geometry of
 * the filter's type (stage 0's that of the header), a count within its
 * capacity; the payload the sum of their storage.
 */
static int bloom_snap_stages_check(const u8 *buf,
				   struct bloom_snap_header *h,
				   const char **why)
{
	struct bloom_snap_stage st;
	struct bloom_geometry geo;
	u64 payload = 0, cap;
	u32 i, ppb;
	int ret;

	if (h->geo.type != BLOOM_CORE_STANDARD &&
	    h->geo.type != BLOOM_CORE_BLOCKED)
		return bloom_snap_fail(why, -EBADMSG,
				       "stages in a snapshot of a type that cannot have them");
	h->scale.type = h->geo.type;
	h->scale.growth = get32(buf + OFF_GROWTH);
	h->scale.tightening_ppm = get32(buf + OFF_TIGHTEN);
	h->scale.capacity = h->geo.capacity;
	h->scale.fpp_ppb = h->geo.fpp_ppb;
	if (bloom_scale_check(&h->scale))
		return bloom_snap_fail(why, -EBADMSG,
				       "growth or tightening out of range");
	h->nstages = get32(buf + OFF_NSTAGES);
	if (h->nstages < 1 || h->nstages > BLOOM_CORE_STAGES_MAX ||
	    h->header_size != BLOOM_SNAP_HEADER_BYTES(h->nstages) +
	    (h->incompat & BLOOM_SNAP_F_NETBLOCKS ? BLOOM_SNAP_NB_SIZE : 0))
		return bloom_snap_fail(why, -EBADMSG,
				       "stage count out of range or not what the header's size says");
	for (i = 0; i < h->nstages; i++) {
		bloom_snap_stage_read(buf, i, &st);
		if (bloom_scale_stage_params(&h->scale, i, &cap, &ppb) ||
		    st.capacity != cap || st.fpp_ppb != ppb)
			return bloom_snap_fail(why, -EBADMSG,
					       "a stage's capacity or rate is not the one its index gives");
		bloom_snap_stage_geometry(h->geo.type, &st, &geo);
		ret = bloom_snap_geometry_check(&geo);
		if (ret)
			return bloom_snap_fail(why, ret, ret == -E2BIG ?
					       "stage larger than bloom's limit" :
					       "stage geometry not valid for its type");
		if (!i && (st.bits != h->geo.bits ||
			   st.hashes != h->geo.hashes))
			return bloom_snap_fail(why, -EBADMSG,
					       "stage 0's geometry is not the header's");
		if (st.count > st.capacity)
			return bloom_snap_fail(why, -EBADMSG,
					       "a stage holds more keys than its capacity");
		payload += bloom_core_storage_bytes(&geo);
	}
	if (h->payload_bytes != payload)
		return bloom_snap_fail(why, -EBADMSG,
				       "payload size does not match the stages");
	return 0;
}

/*
 * An expiring filter's part of the header: the parameters as create
 * checks them, the header's geometry a generation's, the table's size,
 * its entries' unused bytes zero, and the payload G generations.
 */
static int bloom_snap_gens_check(const u8 *buf, struct bloom_snap_header *h,
				 const char **why)
{
	struct bloom_geometry geo;
	u32 i, j;

	if (h->incompat & BLOOM_SNAP_F_STAGES)
		return bloom_snap_fail(why, -EBADMSG,
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
		return bloom_snap_fail(why, -EBADMSG,
				       "timeout, generations, type, capacity or rate out of range");
	if (geo.bits != h->geo.bits || geo.hashes != h->geo.hashes)
		return bloom_snap_fail(why, -EBADMSG,
				       "the geometry is not a generation's");
	h->ngens = h->expire.generations;
	if (h->header_size != BLOOM_SNAP_HEADER_BYTES(h->ngens) +
	    (h->incompat & BLOOM_SNAP_F_NETBLOCKS ? BLOOM_SNAP_NB_SIZE : 0))
		return bloom_snap_fail(why, -EBADMSG,
				       "generation count not what the header's size says");
	for (i = 0; i < h->ngens; i++)
		for (j = GEN_KEEP + 8; j < BLOOM_SNAP_STAGE_SIZE; j++)
			if (buf[OFF_STAGES + BLOOM_SNAP_STAGE_SIZE * i + j])
				return bloom_snap_fail(why, -EBADMSG,
						       "reserved bytes of a generation are not zero");
	if (h->payload_bytes != bloom_core_storage_bytes(&geo) * h->ngens)
		return bloom_snap_fail(why, -EBADMSG,
				       "payload size does not match the generations");
	return 0;
}

/*
 * The key kind (compat KEYS) and the netblock table (incompat NETBLOCKS):
 * the table where the stage table ends, inside the header; a count of a
 * family the kind excludes is refused.
 */
static int bloom_snap_keys_check(const u8 *buf, struct bloom_snap_header *h,
				 const char **why)
{
	u32 i, fam;

	if (h->compat & BLOOM_SNAP_C_KEYS) {
		h->key_kind = get32(buf + OFF_KIND);
		if (h->key_kind > BLOOM_CORE_KIND_MAX)
			h->key_kind = BLOOM_CORE_KIND_UNKNOWN;
	}
	if (!(h->incompat & BLOOM_SNAP_F_NETBLOCKS))
		return 0;
	h->nb_offset = OFF_STAGES + BLOOM_SNAP_STAGE_SIZE * bloom_snap_entries(h);
	if ((u64)h->nb_offset + BLOOM_SNAP_NB_SIZE + 8 > h->header_size)
		return bloom_snap_fail(why, -EBADMSG,
				       "netblock table past the header's end");
	for (i = 0; i < BLOOM_NB_LENS; i++) {
		fam = i < BLOOM_NB_LENS4 ? BLOOM_NB_IPV4 : BLOOM_NB_IPV6;
		if (get64(buf + h->nb_offset + 8 * i) &&
		    h->key_kind != BLOOM_CORE_KIND_UNKNOWN &&
		    h->key_kind != bloom_nb_kind(fam))
			return bloom_snap_fail(why, -EBADMSG,
					       "netblocks of a family the key kind excludes");
	}
	return 0;
}

int bloom_snap_header_read(const u8 *buf, u64 len,
			   struct bloom_snap_header *h, const char **why)
{
	u32 size, i;
	int ret;

	ret = bloom_snap_header_size(buf, len, &size);
	if (ret == -EPROTONOSUPPORT)
		return bloom_snap_fail(why, ret, "format version unknown to this version of bloom");
	if (ret)
		return bloom_snap_fail(why, ret, len < BLOOM_SNAP_PREFIX ||
				       memcmp(buf, BLOOM_SNAP_MAGIC,
					      BLOOM_SNAP_MAGIC_LEN) ?
				       "not a bloom snapshot (bad magic bytes)" :
				       "header size out of range");
	if (len < size)
		return bloom_snap_fail(why, -EBADMSG, "truncated header");
	if (get64(buf + size - 8) != bloom_snap_hash(buf, size - 8))
		return bloom_snap_fail(why, -EBADMSG,
				       "header checksum mismatch (corrupt snapshot)");

	memset(h, 0, sizeof(*h));
	h->version = BLOOM_SNAP_VERSION;
	h->header_size = size;
	h->incompat = get32(buf + OFF_INCOMPAT);
	h->compat = get32(buf + OFF_COMPAT);
	h->scheme = get32(buf + OFF_SCHEME);
	h->geo.type = get32(buf + OFF_TYPE);
	h->geo.hashes = get32(buf + OFF_HASHES);
	h->geo.fpp_ppb = get32(buf + OFF_FPP);
	h->geo.bits = get64(buf + OFF_BITS);
	h->geo.capacity = get64(buf + OFF_CAPACITY);
	h->geo.fingerprint_bits = get32(buf + OFF_FP_BITS);
	h->geo.cell_bits = get32(buf + OFF_CELL_BITS);
	h->geo.buckets = get64(buf + OFF_BUCKETS);
	h->payload_bytes = get64(buf + OFF_PAYLOAD);
	h->payload_hash = get64(buf + OFF_PAYLOAD_H);
	memcpy(h->name, buf + OFF_NAME, BLOOM_SNAP_NAME_LEN);
	memcpy(h->hash_key, buf + OFF_KEY, BLOOM_CORE_HASH_KEY_LEN);
	for (i = 0; i < BLOOM_SNAP_NSTATS; i++)
		*bloom_snap_stat(&h->stats, i) = get64(buf + OFF_STATS + 8 * i);

	if (h->incompat & ~BLOOM_SNAP_INCOMPAT_KNOWN)
		return bloom_snap_fail(why, -EPROTONOSUPPORT,
				       "needs a feature unknown to this version of bloom");
	if (h->scheme != BLOOM_SCHEME_ID)
		return bloom_snap_fail(why, -EPROTONOSUPPORT,
				       "another hash or position scheme: rebuild it from the keys");
	if (h->geo.type < BLOOM_CORE_STANDARD ||
	    h->geo.type > BLOOM_CORE_DLEFT)
		return bloom_snap_fail(why, -EOPNOTSUPP, "unknown filter type");
	ret = bloom_snap_geometry_check(&h->geo);
	if (ret)
		return bloom_snap_fail(why, ret, ret == -E2BIG ?
				       "filter larger than bloom's limit" :
				       "geometry not valid for its type");
	if (h->incompat & BLOOM_SNAP_F_GENERATIONS) {
		ret = bloom_snap_gens_check(buf, h, why);
		if (ret)
			return ret;
	} else if (h->incompat & BLOOM_SNAP_F_STAGES) {
		ret = bloom_snap_stages_check(buf, h, why);
		if (ret)
			return ret;
	} else if (h->payload_bytes != bloom_core_storage_bytes(&h->geo)) {
		return bloom_snap_fail(why, -EBADMSG, "payload size does not match the geometry");
	}
	ret = bloom_snap_keys_check(buf, h, why);
	if (ret)
		return ret;
	/* the name: NUL-terminated, zero after the NUL, not empty */
	for (i = 0; i < BLOOM_SNAP_NAME_LEN && h->name[i]; i++)
		;
	if (!i || i == BLOOM_SNAP_NAME_LEN)
		return bloom_snap_fail(why, -EBADMSG, "bad filter name");
	for (; i < BLOOM_SNAP_NAME_LEN; i++)
		if (h->name[i])
			return bloom_snap_fail(why, -EBADMSG, "bad filter name");
	return 0;
}

/* Bits (or bytes' bits) from @from to the end of the storage are all 0. */
static bool bloom_snap_tail_zero(const struct bloom_core *f, u64 from_bit)
{
	const u8 *p = (const u8 *)f->words;
	u64 bytes = bloom_core_storage_bytes(&f->geo), i = from_bit / 8;

	if (from_bit % 8 && i < bytes && (p[i] >> (from_bit % 8)))
		return false;
	for (i = (from_bit + 7) / 8; i < bytes; i++) {
		if (!(i & 0xffffff))
			bloom_cond_resched();
		if (p[i])
			return false;
	}
	return true;
}

/* Counting: counters at 15 (the image is little-endian: byte c/2). */
static u64 bloom_snap_cnt_saturated(const struct bloom_core *f)
{
	const u8 *p = (const u8 *)f->words;
	u64 i, n = f->geo.bits, sat = 0;

	for (i = 0; i < n; i++) {
		if (!(i & 0xfffff))
			bloom_cond_resched();
		sat += ((p[i / 2] >> (4 * (i % 2))) & 15) == 15;
	}
	return sat;
}

/*
 * Also sets the statistics the core keeps as keys come and go from the
 * image: bits set / counters in use by one scan (d-left's cells in use come
 * from its own check). keys is left to the caller (bloom_snap_load() takes
 * the header's count).
 */
int bloom_snap_payload_check(struct bloom_core *f)
{
	u32 i;

	f->saturated = 0;
	f->insert_failures = 0;
	for (i = 0; i < BLOOM_DLEFT_SUBTABLES; i++)
		f->subtable_used[i] = 0;
	bloom_atomic64_set(&f->in_use, 0);
	switch (f->geo.type) {
	case BLOOM_CORE_STANDARD:
	case BLOOM_CORE_BLOCKED:
		if (!bloom_snap_tail_zero(f, f->geo.bits))
			return -EBADMSG;
		bloom_atomic64_set(&f->in_use, bloom_core_count_in_use(f));
		return 0;
	case BLOOM_CORE_COUNTING:
		if (!bloom_snap_tail_zero(f, f->geo.bits * 4))
			return -EBADMSG;
		f->saturated = bloom_snap_cnt_saturated(f);
		bloom_atomic64_set(&f->in_use, bloom_core_count_in_use(f));
		return 0;
	case BLOOM_CORE_DLEFT:
		if (!bloom_snap_tail_zero(f, f->geo.bits))
			return -EBADMSG;
		return bloom_dl_snap_check(f);
	}
	return -EBADMSG;
}

/* Binds @f to the stages of @h in @storage (loaded), each checked. */
static int bloom_snap_load_stages(struct bloom_core *f,
				  const struct bloom_snap_header *h,
				  const u8 *buf, u8 *storage,
				  struct bloom_snap_chain *chain,
				  const bloom_hash_key_t *key)
{
	struct bloom_scale_stage *st;
	struct bloom_snap_stage e;
	struct bloom_geometry geo;
	u64 off = 0;
	u32 i;

	bloom_scale_init(f, &chain->scale, &h->scale, key);
	/* stage 0 as it was made, whatever the sizing now */
	f->geo.bits = h->geo.bits;
	f->geo.hashes = h->geo.hashes;
	for (i = 0; i < h->nstages; i++) {
		bloom_snap_stage_read(buf, i, &e);
		bloom_snap_stage_geometry(h->geo.type, &e, &geo);
		st = &chain->stage[i];
		bloom_scale_publish(f, st, &geo, storage + off);
		if (bloom_snap_payload_check(&st->core))
			return -EBADMSG;
		st->count = e.count;
		bloom_atomic64_set(&st->core.keys, e.keys);
		off += bloom_core_storage_bytes(&geo);
	}
	return 0;
}

/*
 * Binds @f to the generations of @h in @storage (loaded), each checked;
 * their times are the caller's (bloom_snap_gens_apply()).
 */
static int bloom_snap_load_gens(struct bloom_core *f,
				const struct bloom_snap_header *h,
				u8 *storage, struct bloom_snap_chain *chain,
				const bloom_hash_key_t *key)
{
	u32 i;

	bloom_expire_init(f, &chain->ring, &h->expire, key, storage, 0);
	for (i = 0; i < h->ngens; i++)
		if (bloom_snap_payload_check(&bloom_expire_gen(f, i)->core))
			return -EBADMSG;
	return 0;
}

int bloom_snap_load(struct bloom_core *f, const struct bloom_snap_header *h,
		    const u8 *buf, u64 len, void *storage,
		    struct bloom_snap_chain *chain, const char **why)
{
	bloom_hash_key_t key;

	if (!bloom_snap_native())
		return bloom_snap_fail(why, -EOPNOTSUPP, "snapshots need a little-endian host");
	if (len < h->header_size ||
	    len - h->header_size < h->payload_bytes)
		return bloom_snap_fail(why, -EBADMSG, "truncated snapshot");
	if (len - h->header_size > h->payload_bytes)
		return bloom_snap_fail(why, -EBADMSG, "trailing bytes after the payload");
	buf += h->header_size;
	if (bloom_snap_hash(buf, h->payload_bytes) != h->payload_hash)
		return bloom_snap_fail(why, -EBADMSG,
				       "payload checksum mismatch (corrupt snapshot)");
	if ((h->nstages || h->ngens) && !chain)
		return bloom_snap_fail(why, -EOPNOTSUPP,
				       "a scalable or expiring filter's snapshot, and no room for its stages or generations");
	memcpy(storage, buf, h->payload_bytes);
	bloom_hash_key_from_bytes(&key, h->hash_key);
	if (h->nstages) {
		if (bloom_snap_load_stages(f, h, buf - h->header_size,
					   storage, chain, &key))
			return bloom_snap_fail(why, -EBADMSG,
					       "payload holds values its filter type cannot hold");
		return 0;
	}
	if (h->ngens) {
		if (bloom_snap_load_gens(f, h, storage, chain, &key))
			return bloom_snap_fail(why, -EBADMSG,
					       "payload holds values its filter type cannot hold");
		return 0;
	}
	bloom_core_init(f, &h->geo, &key, storage);
	if (bloom_snap_payload_check(f))
		return bloom_snap_fail(why, -EBADMSG,
				       "payload holds values its filter type cannot hold");
	f->insert_failures = h->stats.insert_failures;
	bloom_atomic64_set(&f->keys, h->stats.count);
	return 0;
}

void bloom_snap_header_make(u8 *buf, const struct bloom_core *f,
			    const char *name,
			    const struct bloom_snap_stats *stats)
{
	struct bloom_snap_header h;
	u32 i;

	bloom_snap_header_init(&h, f);
	for (i = 0; i < BLOOM_SNAP_NAME_LEN - 1 && name[i]; i++)
		h.name[i] = name[i];
	if (stats)
		h.stats = *stats;
	h.payload_hash = bloom_snap_payload_hash(f);
	bloom_snap_header_write(buf, &h, f);
}
