// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A timed filter's snapshot of the four-subtable table made over into
 * today's two-subtable table (snapshot_upgrade.h). Userspace only: bloom.ko
 * does not build this file.
 *
 * Both tables give a key the same identity, x = (q, f): q the high bits of
 * its hash h scaled to the B buckets of a subtable, f the low r bits of h;
 * and the same tag, the top t bits of another mix of h. The old table held
 * x in subtable i as the Feistel pair of dleft.h (bloom_dl_cand_x()), so
 * each used cell gives its x back (bloom_dl_x_of_cell()) and goes to one
 * of x's two buckets in the new table (timed_table.h). That is exact when
 * B, r and t are the same in both: a table of 32-bit cells has 4 x 8 x B
 * cells in the old layout and 2 x 16 x B in the new, the same bits, the
 * same r and t = 21 - r. Cells of 21 bits hold fewer tag bits than a
 * 32-bit cell needs, and a table of 64-bit cells would need twice the
 * buckets, one more bit of q that the cells do not hold: those are
 * refused.
 */
#include "internal.h"
#include "dleft.h"
#include "timed_table.h"
#include "snapshot.h"
#include "snapshot_layout.h"
#include "snapshot_upgrade.h"

/* the only cell width whose tables convert exactly (see above) */
#define BLOOM_UPGRADE_CELL_BITS	32

static void bloom_upgrade_checksum(u8 *buf, u32 size)
{
	put64(buf + size - 8, bloom_image_hash(buf, size - 8));
}

bool bloom_image_is_timed4(const u8 *buf, u64 len)
{
	u32 size;

	return !bloom_image_header_size(buf, len, &size) && len >= size &&
	       get64(buf + size - 8) == bloom_image_hash(buf, size - 8) &&
	       get32(buf + OFF_TYPE) == BLOOM_CORE_TIMED &&
	       get32(buf + OFF_HASHES) == BLOOM_DLEFT_SUBTABLES;
}

int bloom_image_upgrade_header(u8 *buf, u64 len, struct bloom_image_header *h,
			       const char **why)
{
	u32 size;
	int ret;

	if (!bloom_image_is_timed4(buf, len))
		return bloom_image_header_read(buf, len, h, why);
	size = get32(buf + OFF_HDR_SIZE);
	if (get32(buf + OFF_CELL_BITS) != BLOOM_UPGRADE_CELL_BITS)
		return bloom_image_fail(why, -EPROTONOSUPPORT,
					"a timed filter of the earlier four-subtable layout with 21- or 64-bit cells, which today's table cannot hold exactly: create it anew and add its keys again");
	put32(buf + OFF_HASHES, BLOOM_TT_SUBTABLES);
	bloom_upgrade_checksum(buf, size);
	ret = bloom_image_header_read(buf, len, h, why);
	if (!ret && h->nstages)
		ret = bloom_image_fail(why, -EBADMSG,
				       "stages in a snapshot of the four-subtable layout, which had none");
	if (ret) {
		put32(buf + OFF_HASHES, BLOOM_DLEFT_SUBTABLES);
		bloom_upgrade_checksum(buf, size);
	}
	return ret;
}

/* Cells in use of bucket @b of @f; *@free gets its first empty cell's. */
static u32 bloom_upgrade_load(const struct bloom_core *f, u64 b, u32 *free)
{
	u64 cells[BLOOM_TT_CELLS_MAX];
	u32 n = bloom_tt_cells(f), used = 0, k;

	bloom_tt_bucket(f, b, cells);
	*free = n;
	for (k = n; k--;) {
		if (cells[k])
			used++;
		else
			*free = k;
	}
	return used;
}

int bloom_image_upgrade_payload(u8 *buf, const struct bloom_image_header *h,
				const u8 *old, const char **why)
{
	u32 r = h->geo.fingerprint_bits, w = BLOOM_UPGRADE_CELL_BITS;
	u32 sub, k, load[BLOOM_TT_SUBTABLES], at[BLOOM_TT_SUBTABLES];
	u64 i, n, cell, q, x, below = (1ULL << (w - r)) - 1;
	struct bloom_core was, now;
	struct bloom_tt_cand c;
	u8 *payload = buf + h->header_size;

	if (!bloom_image_native())
		return bloom_image_fail(why, -EOPNOTSUPP,
					"snapshots need a little-endian host");
	if (bloom_image_hash(old, h->payload_bytes) != h->payload_hash)
		return bloom_image_fail(why, -EBADMSG,
					"payload checksum mismatch (corrupt snapshot)");
	/* the Feistel pair reads buckets and r; the new table its key too */
	memset(&was, 0, sizeof(was));
	was.geo = h->geo;
	was.geo.hashes = BLOOM_DLEFT_SUBTABLES;
	memset(&now, 0, sizeof(now));
	now.geo = h->geo;
	now.key.placement = h->placement;
	now.words = (unsigned long *)payload;
	memset(payload, 0, h->payload_bytes);

	n = h->geo.buckets * BLOOM_DLEFT_SUBTABLES * BLOOM_DLEFT_CELLS;
	for (i = 0; i < n; i++) {
		cell = get32(old + i * (w / 8));
		if (!cell)
			continue;
		bloom_dl_x_of_cell(&was, i, cell >> (w - r), &q, &x, &sub);
		bloom_tt_cand_x(&now, q, x, &c);
		for (k = 0; k < BLOOM_TT_SUBTABLES; k++)
			load[k] = bloom_upgrade_load(&now, c.bucket[k], &at[k]);
		k = load[1] < load[0];
		if (at[k] == bloom_tt_cells(&now))
			return bloom_image_fail(why, -ENOSPC,
						"a key of this four-subtable table finds both its buckets of today's table full: create the filter anew and add its keys again");
		bloom_tt_put(&now, c.bucket[k] * bloom_tt_cells(&now) + at[k],
			     (cell & below) | c.fp[k] << (w - r));
	}
	put64(buf + OFF_PAYLOAD_H, bloom_image_hash(payload, h->payload_bytes));
	bloom_upgrade_checksum(buf, h->header_size);
	return 0;
}
