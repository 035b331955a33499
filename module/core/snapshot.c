// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The snapshot header: its size, serializer, parser and checks (snapshot.h,
 * Documentation/snapshot.rst; the byte layout in snapshot_layout.h). The
 * tables the header ends with are snapshot_tables.c's, the payload
 * snapshot_payload.c's.
 */
#include "internal.h"
#include "snapshot.h"
#include "snapshot_layout.h"

static u64 *bloom_image_stat(struct bloom_image_stats *s, int i)
{
	u64 *v[BLOOM_IMAGE_NSTATS] = {
		&s->count, &s->adds, &s->queries, &s->hits, &s->deletes,
		&s->delete_misses, &s->insert_failures,
	};

	return v[i];
}

u32 bloom_image_header_bytes(const struct bloom_core *f)
{
	return BLOOM_IMAGE_HEADER_BYTES(f->scale ? bloom_scale_stages(f) :
					f->expire ? f->expire->p.generations : 0);
}

void bloom_image_header_init(struct bloom_image_header *h,
			     const struct bloom_core *f)
{
	const struct bloom_scale_stage *st;
	u32 i;

	memset(h, 0, sizeof(*h));
	h->version = BLOOM_IMAGE_VERSION;
	h->header_size = BLOOM_IMAGE_HEADER_SIZE;
	h->scheme = bloom_scheme_of_core(f);
	h->hash = f->key.hash;
	h->geo = f->geo;
	h->payload_bytes = bloom_core_storage_bytes(&f->geo);
	bloom_hash_key_to_bytes(&f->key, h->hash_key);
	if (bloom_core_is_timed(f)) {
		h->incompat |= BLOOM_IMAGE_F_KEY_TIMEOUTS;
		h->key_timeout_s = f->key_timeout_s;
		h->key_timeout_max_s = f->key_timeout_max_s;
		if (!f->scale)
			return;
		h->incompat |= BLOOM_IMAGE_F_TIMED_STAGES;
	}
	if (f->expire) {
		h->incompat |= BLOOM_IMAGE_F_GENERATIONS;
		h->expire = f->expire->p;
		h->ngens = h->expire.generations;
		h->header_size = BLOOM_IMAGE_HEADER_BYTES(h->ngens);
		h->payload_bytes *= h->ngens;
		return;
	}
	if (!f->scale)
		return;
	h->incompat |= BLOOM_IMAGE_F_STAGES;
	h->scale = f->scale->p;
	h->nstages = bloom_scale_stages(f);
	h->header_size = BLOOM_IMAGE_HEADER_BYTES(h->nstages);
	h->payload_bytes = 0;
	for (i = 0; i < h->nstages; i++) {
		st = bloom_scale_stage(f, i);
		h->payload_bytes += bloom_core_storage_bytes(&st->core.geo);
		/*
		 * the header's bits and k: stage 0's, as it was made (a timed
		 * chain's: its term 0's, f's, whatever stage is first now)
		 */
		if (!i && !bloom_core_is_timed(f)) {
			h->geo.bits = st->core.geo.bits;
			h->geo.hashes = st->core.geo.hashes;
		}
	}
}

void bloom_image_header_write(u8 *buf, const struct bloom_image_header *h,
			      const struct bloom_core *f)
{
	struct bloom_image_stats st = h->stats;
	u32 i;

	memset(buf, 0, h->header_size);
	memcpy(buf + OFF_MAGIC, BLOOM_IMAGE_MAGIC, BLOOM_IMAGE_MAGIC_LEN);
	put32(buf + OFF_VERSION, BLOOM_IMAGE_VERSION);
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
	memcpy(buf + OFF_NAME, h->name, BLOOM_IMAGE_NAME_LEN);
	memcpy(buf + OFF_KEY, h->hash_key, BLOOM_CORE_HASH_KEY_LEN);
	for (i = 0; i < BLOOM_IMAGE_NSTATS; i++)
		put64(buf + OFF_STATS + 8 * i, *bloom_image_stat(&st, i));
	if (h->incompat & BLOOM_IMAGE_F_STAGES)
		bloom_image_stages_write(buf, h, f);
	if (h->incompat & BLOOM_IMAGE_F_GENERATIONS)
		bloom_image_gens_write(buf, h, f);
	if (h->incompat & BLOOM_IMAGE_F_KEY_TIMEOUTS) {
		put32(buf + OFF_KEY_TIMEOUT, h->key_timeout_s);
		put32(buf + OFF_KEY_TMAX, h->key_timeout_max_s);
		put64(buf + OFF_TM_WALL, h->saved_wall_ns);
		put64(buf + OFF_TM_SAVED, h->saved_s);
	}
	if (h->compat & BLOOM_IMAGE_C_KEYS)
		put32(buf + OFF_KIND, h->key_kind);
	if (h->compat & BLOOM_IMAGE_C_PREFIXES) {
		memcpy(buf + OFF_PREFIXES4, h->prefixes[BLOOM_NB_IPV4],
		       BLOOM_IMAGE_PREFIXES_LEN);
		memcpy(buf + OFF_PREFIXES6, h->prefixes[BLOOM_NB_IPV6],
		       BLOOM_IMAGE_PREFIXES_LEN);
	}
	if (h->incompat & BLOOM_IMAGE_F_NETBLOCKS)
		bloom_image_netblocks_write(buf, h);
	put64(buf + h->header_size - 8,
	      bloom_image_hash(buf, h->header_size - 8));
}

int bloom_image_header_size(const u8 *buf, u64 len, u32 *size)
{
	u32 v;

	if (len < BLOOM_IMAGE_PREFIX ||
	    memcmp(buf + OFF_MAGIC, BLOOM_IMAGE_MAGIC, BLOOM_IMAGE_MAGIC_LEN))
		return -EBADMSG;
	v = get32(buf + OFF_VERSION);
	if (v != BLOOM_IMAGE_VERSION)
		return -EPROTONOSUPPORT;
	v = get32(buf + OFF_HDR_SIZE);
	if (v < BLOOM_IMAGE_HEADER_SIZE || v > BLOOM_IMAGE_HEADER_MAX || v % 8)
		return -EBADMSG;
	*size = v;
	return 0;
}

/*
 * A timed filter's part of the header: the feature exactly with the type,
 * alone, and timeouts a create could have given.
 */
static int bloom_image_timeouts_check(const u8 *buf,
				      struct bloom_image_header *h,
				      const char **why)
{
	bool timed = h->geo.type == BLOOM_CORE_TIMED;
	bool stages = h->incompat & BLOOM_IMAGE_F_STAGES;
	bool timed_stages = h->incompat & BLOOM_IMAGE_F_TIMED_STAGES;

	/* a timed chain's stages say so twice: stages, and timed stages */
	if (!timed != !(h->incompat & BLOOM_IMAGE_F_KEY_TIMEOUTS) ||
	    (timed && h->incompat & BLOOM_IMAGE_F_GENERATIONS) ||
	    timed_stages != (timed && stages))
		return bloom_image_fail(why, -EBADMSG,
					"key timeouts without a timed filter, or the other way round");
	if (!timed)
		return 0;
	h->key_timeout_s = get32(buf + OFF_KEY_TIMEOUT);
	h->key_timeout_max_s = get32(buf + OFF_KEY_TMAX);
	h->saved_wall_ns = get64(buf + OFF_TM_WALL);
	h->saved_s = get64(buf + OFF_TM_SAVED);
	if (!h->key_timeout_max_s ||
	    h->key_timeout_max_s > BLOOM_CORE_KEY_TIMEOUT_MAX ||
	    h->key_timeout_s > h->key_timeout_max_s)
		return bloom_image_fail(why, -EBADMSG,
					"key timeouts out of range");
	return 0;
}

int bloom_image_header_read(const u8 *buf, u64 len,
			    struct bloom_image_header *h, const char **why)
{
	u32 size, i;
	int ret;

	ret = bloom_image_header_size(buf, len, &size);
	if (ret == -EPROTONOSUPPORT)
		return bloom_image_fail(why, ret,
					"format version unknown to this version of bloom");
	if (ret)
		return bloom_image_fail(why, ret, len < BLOOM_IMAGE_PREFIX ||
					memcmp(buf, BLOOM_IMAGE_MAGIC,
					       BLOOM_IMAGE_MAGIC_LEN) ?
					"not a bloom snapshot (bad magic bytes)" :
					"header size out of range");
	if (len < size)
		return bloom_image_fail(why, -EBADMSG, "truncated header");
	if (get64(buf + size - 8) != bloom_image_hash(buf, size - 8))
		return bloom_image_fail(why, -EBADMSG,
					"header checksum mismatch (corrupt snapshot)");

	memset(h, 0, sizeof(*h));
	h->version = BLOOM_IMAGE_VERSION;
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
	memcpy(h->name, buf + OFF_NAME, BLOOM_IMAGE_NAME_LEN);
	memcpy(h->hash_key, buf + OFF_KEY, BLOOM_CORE_HASH_KEY_LEN);
	for (i = 0; i < BLOOM_IMAGE_NSTATS; i++)
		*bloom_image_stat(&h->stats, i) = get64(buf + OFF_STATS + 8 * i);

	if (h->incompat & ~BLOOM_IMAGE_INCOMPAT_KNOWN)
		return bloom_image_fail(why, -EPROTONOSUPPORT,
					"needs a feature unknown to this version of bloom");
	ret = bloom_hash_of_scheme(h->scheme);
	if (ret < 0)
		return bloom_image_fail(why, ret,
					"another hash or position scheme: rebuild it from the keys");
	h->hash = (u32)ret;
	if (h->geo.type < BLOOM_CORE_STANDARD ||
	    h->geo.type > BLOOM_CORE_TIMED)
		return bloom_image_fail(why, -EOPNOTSUPP, "unknown filter type");
	/* other types place keys alike under every scheme */
	h->placement = BLOOM_CORE_PLACE_FP;
	if (h->geo.type == BLOOM_CORE_TIMED)
		h->placement = (u32)bloom_placement_of_scheme(h->scheme);
	ret = bloom_image_timeouts_check(buf, h, why);
	if (ret)
		return ret;
	/* made over in userspace first (snapshot_upgrade.h), or refused */
	if (h->geo.type == BLOOM_CORE_TIMED &&
	    h->geo.hashes == BLOOM_DLEFT_SUBTABLES)
		return bloom_image_fail(why, -EPROTONOSUPPORT,
					"a timed filter of the earlier four-subtable layout: restore it with bloomctl, which converts it, or create it anew and add its keys again");
	ret = bloom_image_geometry_check(&h->geo);
	if (ret)
		return bloom_image_fail(why, ret, ret == -E2BIG ?
					"filter larger than bloom's limit" :
					"geometry not valid for its type");
	if (h->incompat & BLOOM_IMAGE_F_GENERATIONS) {
		ret = bloom_image_gens_check(buf, h, why);
		if (ret)
			return ret;
	} else if (h->incompat & BLOOM_IMAGE_F_STAGES) {
		ret = bloom_image_stages_check(buf, h, why);
		if (ret)
			return ret;
	} else if (h->payload_bytes != bloom_core_storage_bytes(&h->geo)) {
		return bloom_image_fail(why, -EBADMSG, "payload size does not match the geometry");
	}
	ret = bloom_image_keys_check(buf, h, why);
	if (ret)
		return ret;
	/* the name: NUL-terminated, zero after the NUL, not empty */
	for (i = 0; i < BLOOM_IMAGE_NAME_LEN && h->name[i]; i++)
		;
	if (!i || i == BLOOM_IMAGE_NAME_LEN)
		return bloom_image_fail(why, -EBADMSG, "bad filter name");
	for (; i < BLOOM_IMAGE_NAME_LEN; i++)
		if (h->name[i])
			return bloom_image_fail(why, -EBADMSG, "bad filter name");
	return 0;
}

void bloom_image_header_make(u8 *buf, const struct bloom_core *f,
			     const char *name,
			     const struct bloom_image_stats *stats)
{
	struct bloom_image_header h;
	u32 i;

	bloom_image_header_init(&h, f);
	for (i = 0; i < BLOOM_IMAGE_NAME_LEN - 1 && name[i]; i++)
		h.name[i] = name[i];
	if (stats)
		h.stats = *stats;
	h.payload_hash = bloom_image_payload_hash(f);
	bloom_image_header_write(buf, &h, f);
}
