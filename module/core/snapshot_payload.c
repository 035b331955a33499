// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A snapshot's payload (snapshot.h, Documentation/snapshot.rst): its hash,
 * the checks of a loaded storage image, and loading a whole snapshot into a
 * filter (stages and generations included).
 */
#include "internal.h"
#include "snapshot_layout.h"

u64 bloom_image_hash(const void *p, u64 len)
{
	bloom_xxh64_state s;

	bloom_xxh64_reset(&s);
	bloom_xxh64_update(&s, p, len);
	return bloom_xxh64_digest(&s);
}

u64 bloom_image_payload_hash(const struct bloom_core *f)
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
		return bloom_image_hash(f->words,
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

/* Bits (or bytes' bits) from @from to the end of the storage are all 0. */
static bool bloom_image_tail_zero(const struct bloom_core *f, u64 from_bit)
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
static u64 bloom_image_cnt_saturated(const struct bloom_core *f)
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
 * from its own check). keys is left to the caller (bloom_image_load() takes
 * the header's count).
 */
int bloom_image_payload_check(struct bloom_core *f)
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
		if (!bloom_image_tail_zero(f, f->geo.bits))
			return -EBADMSG;
		bloom_atomic64_set(&f->in_use, bloom_core_count_in_use(f));
		return 0;
	case BLOOM_CORE_COUNTING:
		if (!bloom_image_tail_zero(f, f->geo.bits * 4))
			return -EBADMSG;
		f->saturated = bloom_image_cnt_saturated(f);
		bloom_atomic64_set(&f->in_use, bloom_core_count_in_use(f));
		return 0;
	case BLOOM_CORE_DLEFT:
		if (!bloom_image_tail_zero(f, f->geo.bits))
			return -EBADMSG;
		return bloom_dl_image_check(f);
	case BLOOM_CORE_TIMED:
		if (!bloom_image_tail_zero(f, f->geo.bits))
			return -EBADMSG;
		return bloom_tm_image_check(f);
	}
	return -EBADMSG;
}

/* Binds @f to the stages of @h in @storage (loaded), each checked. */
static int bloom_image_load_stages(struct bloom_core *f,
				   const struct bloom_image_header *h,
				   const u8 *buf, u8 *storage,
				   struct bloom_image_chain *chain,
				   const bloom_hash_key_t *key)
{
	struct bloom_scale_stage *st;
	struct bloom_image_stage e;
	struct bloom_geometry geo;
	u64 off = 0;
	u32 i;

	bloom_scale_init(f, &chain->scale, &h->scale, key);
	/* stage 0 as it was made, whatever the sizing now */
	f->geo.bits = h->geo.bits;
	f->geo.hashes = h->geo.hashes;
	for (i = 0; i < h->nstages; i++) {
		bloom_image_stage_read(buf, i, &e);
		bloom_image_stage_geometry(h->geo.type, &e, &geo);
		st = &chain->stage[i];
		bloom_scale_publish(f, st, &geo, storage + off);
		st->term = h->term[i];
		if (bloom_image_payload_check(&st->core))
			return -EBADMSG;
		st->count = e.count;
		bloom_atomic64_set(&st->core.keys, e.keys);
		off += bloom_core_storage_bytes(&geo);
	}
	return 0;
}

/*
 * Binds @f to the generations of @h in @storage (loaded), each checked;
 * their times are the caller's (bloom_image_gens_apply()).
 */
static int bloom_image_load_gens(struct bloom_core *f,
				 const struct bloom_image_header *h,
				 u8 *storage, struct bloom_image_chain *chain,
				 const bloom_hash_key_t *key)
{
	u32 i;

	bloom_expire_init(f, &chain->ring, &h->expire, key, storage, 0);
	for (i = 0; i < h->ngens; i++)
		if (bloom_image_payload_check(&bloom_expire_gen(f, i)->core))
			return -EBADMSG;
	return 0;
}

int bloom_image_load(struct bloom_core *f, const struct bloom_image_header *h,
		     const u8 *buf, u64 len, void *storage,
		     struct bloom_image_chain *chain, const char **why)
{
	bloom_hash_key_t key;

	if (!bloom_image_native())
		return bloom_image_fail(why, -EOPNOTSUPP, "snapshots need a little-endian host");
	if (len < h->header_size ||
	    len - h->header_size < h->payload_bytes)
		return bloom_image_fail(why, -EBADMSG, "truncated snapshot");
	if (len - h->header_size > h->payload_bytes)
		return bloom_image_fail(why, -EBADMSG, "trailing bytes after the payload");
	buf += h->header_size;
	if (bloom_image_hash(buf, h->payload_bytes) != h->payload_hash)
		return bloom_image_fail(why, -EBADMSG,
					"payload checksum mismatch (corrupt snapshot)");
	if ((h->nstages || h->ngens) && !chain)
		return bloom_image_fail(why, -EOPNOTSUPP,
					"a scalable or expiring filter's snapshot, and no room for its stages or generations");
	memcpy(storage, buf, h->payload_bytes);
	bloom_hash_key_init(&key, h->hash_key, h->hash);
	key.placement = h->placement;
	if (h->nstages) {
		if (bloom_image_load_stages(f, h, buf - h->header_size,
					    storage, chain, &key))
			return bloom_image_fail(why, -EBADMSG,
						"payload holds values its filter type cannot hold");
		return 0;
	}
	if (h->ngens) {
		if (bloom_image_load_gens(f, h, storage, chain, &key))
			return bloom_image_fail(why, -EBADMSG,
						"payload holds values its filter type cannot hold");
		return 0;
	}
	bloom_core_init(f, &h->geo, &key, storage);
	if (bloom_image_payload_check(f))
		return bloom_image_fail(why, -EBADMSG,
					"payload holds values its filter type cannot hold");
	f->insert_failures = h->stats.insert_failures;
	bloom_atomic64_set(&f->keys, h->stats.count);
	return 0;
}
