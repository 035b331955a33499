/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The snapshot's byte layout (Documentation/snapshot.rst), shared by the
 * format's files and by nothing else: the header (snapshot.c), the stage,
 * generation and netblock tables (snapshot_tables.c) and the payload
 * (snapshot_payload.c). Every field is read and written byte by byte as
 * little-endian, so the header means the same on every host.
 */
#ifndef BLOOM_CORE_SNAPSHOT_LAYOUT_H
#define BLOOM_CORE_SNAPSHOT_LAYOUT_H

#include "snapshot_format.h"

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
#define OFF_STATS	136	/* 7 x u64, in struct bloom_image_stats order */
#define OFF_RESERVED	192	/* up to the checksum: zero when written */
/* With BLOOM_IMAGE_F_STAGES, in the reserved area: */
#define OFF_GROWTH	192
#define OFF_TIGHTEN	196
#define OFF_NSTAGES	200
#define OFF_KIND	204	/* with BLOOM_IMAGE_C_KEYS */
/* With BLOOM_IMAGE_F_GENERATIONS, in the reserved area: */
#define OFF_NGENS	208
#define OFF_TIMEOUT	216
#define OFF_SAVED	224
/* With BLOOM_IMAGE_F_KEY_TIMEOUTS (no stages, no generations): */
#define OFF_KEY_TIMEOUT	208
#define OFF_KEY_TMAX	212
#define OFF_TM_WALL	216
#define OFF_TM_SAVED	224
/* With BLOOM_IMAGE_C_PREFIXES, in the reserved area (any filter type): */
#define OFF_PREFIXES4	232
#define OFF_PREFIXES6	240
#define OFF_STAGES	248	/* the stage table, the netblock table, the checksum */
/* A stage table entry (BLOOM_IMAGE_STAGE_SIZE bytes). */
#define ST_CAPACITY	0
#define ST_BITS		8
#define ST_COUNT	16
#define ST_KEYS		24
#define ST_HASHES	32
#define ST_FPP		36
/* A generation table entry (BLOOM_IMAGE_STAGE_SIZE bytes; the rest 0). */
#define GEN_KEYS	0
#define GEN_AGE		8
#define GEN_KEEP	16
/* The header's checksum is its last 8 bytes, over all bytes before them. */

#define BLOOM_IMAGE_NSTATS	7

static inline u32 get32(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

static inline u64 get64(const u8 *p)
{
	return (u64)get32(p) | (u64)get32(p + 4) << 32;
}

static inline void put32(u8 *p, u32 v)
{
	p[0] = (u8)v;
	p[1] = (u8)(v >> 8);
	p[2] = (u8)(v >> 16);
	p[3] = (u8)(v >> 24);
}

static inline void put64(u8 *p, u64 v)
{
	put32(p, (u32)v);
	put32(p + 4, (u32)(v >> 32));
}

/* Refuses: @err, with the reason in *@why when the caller asked. */
static inline int bloom_image_fail(const char **why, int err, const char *text)
{
	if (why)
		*why = text;
	return err;
}

/* Entries in the header's table: stages or generations. */
static inline u32 bloom_image_entries(const struct bloom_image_header *h)
{
	return h->nstages + h->ngens;
}

/*
 * The tables (snapshot_tables.c) as the header's writer and reader call
 * them. Writing, into the whole header at @buf: the scalable filter's
 * fields and stage table from @f, the expiring filter's fields and
 * generation table from @f, the netblock table from h->nb.
 */
void bloom_image_stages_write(u8 *buf, const struct bloom_image_header *h,
			      const struct bloom_core *f);
void bloom_image_gens_write(u8 *buf, const struct bloom_image_header *h,
			    const struct bloom_core *f);
void bloom_image_netblocks_write(u8 *buf, const struct bloom_image_header *h);

/*
 * Reading, from the header at @buf whose checksum and fixed fields
 * bloom_image_header_read() checked into @h: the scalable filter's part,
 * the expiring filter's part, the key kind and netblock table; each fills
 * its fields of @h. 0 or a refusal (bloom_image_fail()).
 */
int bloom_image_stages_check(const u8 *buf, struct bloom_image_header *h,
			     const char **why);
int bloom_image_gens_check(const u8 *buf, struct bloom_image_header *h,
			   const char **why);
int bloom_image_keys_check(const u8 *buf, struct bloom_image_header *h,
			   const char **why);

#endif /* BLOOM_CORE_SNAPSHOT_LAYOUT_H */
