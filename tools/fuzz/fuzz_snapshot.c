// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target for the snapshot parser (module/core/snapshot*.c), the
 * code bloom.ko runs on every RESTORE, built with ASan and UBSan.
 *
 * A random file almost never gets past the checksums, so the input is read
 * in one of two ways, chosen by its first byte:
 *  - raw (even): the rest is a snapshot file. Bit 1 of the first byte
 *    recomputes the header checksum, bit 2 the payload checksum, so the
 *    checks behind them are reached too;
 *  - built (odd): a small filter of a type and geometry taken from the
 *    input gets keys added and is serialised, then the rest of the input
 *    edits the file (byte changes, a truncation), again optionally
 *    resealing the checksums.
 * Either way the result goes through bloom_image_header_read() and
 * bloom_image_load(), after bloomctl's conversion of a timed filter's
 * four-subtable table (snapshot_upgrade.h) when it is one. Checked: nothing crashes or reads out of bounds; an
 * accepted snapshot is a working filter (adds, deletes and queries run on
 * it, and an added key is present); saving it again gives a snapshot that
 * loads to the same storage; an unchanged built snapshot always loads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "fuzz.h"
#include "snapshot.h"
#include "snapshot_upgrade.h"

#define MAX_PAYLOAD	(1U << 16)	/* bytes: keeps executions fast */
#define MAX_FILE	(BLOOM_IMAGE_HEADER_SIZE + MAX_PAYLOAD)

static void put64(u8 *p, u64 v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (u8)(v >> (8 * i));
}

/* Recomputes the checksums the mode bits ask for. */
static void reseal(u8 *buf, size_t len, unsigned int mode)
{
	u32 hs;

	if (bloom_image_header_size(buf, len, &hs) || len < hs)
		return;
	if ((mode & 4) && len >= BLOOM_IMAGE_HEADER_SIZE)
		put64(buf + 80, bloom_image_hash(buf + hs, len - hs));
	if (mode & 2)
		put64(buf + hs - 8, bloom_image_hash(buf, hs - 8));
}

/* Storage: aligned as the core needs it, a multiple of the alignment. */
static void *zalloc(size_t n)
{
	size_t r = (n + BLOOM_CORE_ALIGN) / BLOOM_CORE_ALIGN * BLOOM_CORE_ALIGN;
	void *p = aligned_alloc(BLOOM_CORE_ALIGN, r);

	CHECK(p, "out of memory");
	memset(p, 0, r);
	return p;
}

/* A file: exactly @n bytes, so ASan sees any read past its end. */
static u8 *falloc(size_t n)
{
	u8 *p = malloc(n ? n : 1);

	CHECK(p, "out of memory");
	memset(p, 0, n);
	return p;
}

static int try_load(const u8 *buf, size_t len);

/*
 * A timed filter's four-subtable table, as bloomctl reads it: made over
 * into a copy (the header, then the payload from the original's), which
 * is then loaded; a refusal must say why and leave the copy's bytes as
 * they were. 1 if accepted.
 */
static int try_upgrade(const u8 *buf, size_t len)
{
	struct bloom_image_header h;
	const char *why = NULL;
	u8 *copy = falloc(len);
	int ret;

	memcpy(copy, buf, len);
	ret = bloom_image_upgrade_header(copy, len, &h, &why);
	if (ret) {
		CHECK(why && !memcmp(copy, buf, len),
		      "header refused (%d) without a reason or changed", ret);
	} else if (h.payload_bytes <= MAX_PAYLOAD &&
		   len == h.header_size + h.payload_bytes) {
		ret = bloom_image_upgrade_payload(copy, &h,
						  buf + h.header_size, &why);
		CHECK(!ret || why, "payload refused (%d) without a reason",
		      ret);
		ret = !ret && try_load(copy, len);
	}
	free(copy);
	return ret > 0;
}

/* Parses and loads; on success exercises the filter. 1 if accepted. */
static int try_load(const u8 *buf, size_t len)
{
	static struct bloom_image_chain cf, cg;
	struct bloom_image_header h;
	struct bloom_core f, g;
	const char *why = NULL;
	/* any header this code writes: stages or generations, netblocks */
	u8 hdr[BLOOM_IMAGE_HEADER_MAX];
	u32 hs;
	void *storage, *again;
	u64 hsh;
	int ret;

	if (bloom_image_is_timed4(buf, len))
		return try_upgrade(buf, len);
	if (bloom_image_header_read(buf, len, &h, &why))
		return 0;
	CHECK(why == NULL, "why set on success");
	if (h.payload_bytes > MAX_PAYLOAD)
		return 0;
	storage = zalloc(h.payload_bytes);
	ret = bloom_image_load(&f, &h, buf, len, storage, &cf, &why);
	if (ret) {
		CHECK(why != NULL, "no reason for %d", ret);
		free(storage);
		return 0;
	}
	/* a working filter */
	hsh = bloom_core_hash(&f, "fuzz", 4);
	if (bloom_core_add_hash(&f, hsh) >= 0)
		CHECK(bloom_core_query_hash(&f, hsh), "added key absent");
	if (bloom_core_can_delete(&f))
		bloom_core_delete_hash(&f, hsh);
	(void)bloom_core_bits_set(&f);

	/* saved again, it loads to the same storage */
	bloom_image_header_make(hdr, &f, h.name, &h.stats);
	hs = bloom_image_header_bytes(&f);
	{
		u8 *file = falloc(hs + h.payload_bytes);
		struct bloom_image_header h2;

		memcpy(file, hdr, hs);
		/* a scalable filter's stages are slices of storage, in order */
		memcpy(file + hs, storage, h.payload_bytes);
		CHECK(!bloom_image_header_read(file, hs + h.payload_bytes, &h2,
					       &why),
		      "re-saved header refused: %s", why);
		again = zalloc(h.payload_bytes);
		CHECK(!bloom_image_load(&g, &h2, file, hs + h.payload_bytes,
					again, &cg, &why),
		      "re-saved snapshot refused: %s", why);
		CHECK(!memcmp(again, storage, h.payload_bytes),
		      "re-saved storage differs");
		free(again);
		free(file);
	}
	free(storage);
	return 1;
}

static void built(struct input *in, unsigned int mode)
{
	static const u32 types[] = { BLOOM_CORE_STANDARD, BLOOM_CORE_BLOCKED,
				     BLOOM_CORE_COUNTING, BLOOM_CORE_DLEFT };
	struct bloom_geometry geo;
	struct bloom_core f;
	bloom_hash_key_t key = { .key = { 1, 2 } };
	u8 *file;
	void *storage;
	u32 type = types[take(in, 1) % 4], i, nkeys, nedits;
	u64 cap = 1 + take(in, 2) % 2000, len;
	u32 ppb = 1000 + (u32)(take(in, 4) % 300000000);

	if (bloom_geometry_size(type, cap, ppb, &geo))
		return;
	len = bloom_core_storage_bytes(&geo);
	if (len > MAX_PAYLOAD)
		return;
	storage = zalloc(len);
	bloom_core_init(&f, &geo, &key, storage);
	nkeys = (u32)take(in, 2) % 3000;
	for (i = 0; i < nkeys; i++) {
		u32 k = i * 2654435761U;

		bloom_core_add_hash(&f, bloom_core_hash(&f, &k, sizeof(k)));
	}
	file = falloc(BLOOM_IMAGE_HEADER_SIZE + len);
	bloom_image_header_make(file, &f, "fuzz", NULL);
	memcpy(file + BLOOM_IMAGE_HEADER_SIZE, storage, len);
	len += BLOOM_IMAGE_HEADER_SIZE;

	nedits = (u32)take(in, 1) % 8;
	if (!nedits && !in->left)
		CHECK(try_load(file, len), "an untouched snapshot was refused");
	for (i = 0; i < nedits && in->left; i++) {
		u64 off = take(in, 4) % len;

		file[off] ^= (u8)take(in, 1);
	}
	if (take(in, 1) & 1)
		len = take(in, 4) % (len + 1);
	reseal(file, len, mode);
	try_load(file, len);
	free(file);
	free(storage);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct input in = { data, size };
	unsigned int mode;
	u8 *copy;

	if (!size)
		return 0;
	mode = (unsigned int)take(&in, 1);
	if (mode & 1) {
		built(&in, mode);
		return 0;
	}
	if (in.left > MAX_FILE)
		return 0;
	copy = falloc(in.left);
	memcpy(copy, in.p, in.left);
	reseal(copy, in.left, mode);
	try_load(copy, in.left);
	free(copy);
	return 0;
}
