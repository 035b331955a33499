/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The snapshot format's constants and structs, and what the header's
 * tables (snapshot_tables.c) and the payload (snapshot_payload.c) do with
 * them; the header's writer and reader are snapshot.h's (snapshot.c),
 * which calls these. Documentation/snapshot.rst is the specification.
 */
#ifndef BLOOM_CORE_SNAPSHOT_FORMAT_H
#define BLOOM_CORE_SNAPSHOT_FORMAT_H

#include "core.h"
#include "expire.h"
#include "scale.h"
#include "netblock.h"

#define BLOOM_IMAGE_MAGIC	"\211BLOOM\r\n"	/* 0x89, "BLOOM", CR, LF */
#define BLOOM_IMAGE_MAGIC_LEN	8
#define BLOOM_IMAGE_VERSION	1
#define BLOOM_IMAGE_HEADER_SIZE	256	/* what this code writes */
#define BLOOM_IMAGE_HEADER_MAX	4096	/* the largest header it reads */
#define BLOOM_IMAGE_PREFIX	16	/* bytes that tell the header's size */
#define BLOOM_IMAGE_NAME_LEN	32
/* Incompatible feature: a scalable filter, with its stage table. */
#define BLOOM_IMAGE_F_STAGES		1U	/* bit 0 */
/*
 * Incompatible feature: the filter holds netblocks; the header carries the
 * count of each prefix length (a reader that ignored it would miss them).
 */
#define BLOOM_IMAGE_F_NETBLOCKS		2U	/* bit 1 */
/*
 * Incompatible feature: an expiring filter, with its generation table (a
 * reader that ignored it would keep keys forever, or lose them).
 */
#define BLOOM_IMAGE_F_GENERATIONS	4U	/* bit 2 */
/* Feature flags this code knows. */
/*
 * Incompatible feature: a timed filter (keys with their own timeouts): the
 * header carries the keys' timeouts and the save's two clocks, which the
 * cells' expiries are taken against.
 */
#define BLOOM_IMAGE_F_KEY_TIMEOUTS	8U	/* bit 3 */
/*
 * Incompatible feature, with the two above: a timed filter that grows,
 * whose stage table holds timed tables, each sized for its term, terms
 * that increase along the table and may skip the terms of stages freed
 * (module/core/scale.h).
 */
#define BLOOM_IMAGE_F_TIMED_STAGES	16U	/* bit 4 */
#define BLOOM_IMAGE_INCOMPAT_KNOWN	(BLOOM_IMAGE_F_STAGES | BLOOM_IMAGE_F_NETBLOCKS | \
					 BLOOM_IMAGE_F_GENERATIONS | \
					 BLOOM_IMAGE_F_KEY_TIMEOUTS | \
					 BLOOM_IMAGE_F_TIMED_STAGES)
/* Compatible feature: the filter's key kind, at offset 204. */
#define BLOOM_IMAGE_C_KEYS		1U	/* bit 0 */
/*
 * Compatible feature: the filter's prefix lengths (prefix expansion), a
 * list per family at offsets 232 (IPv4) and 240 (IPv6). A reader that
 * ignores it answers every lookup right (the netblock table has the
 * lengths held); its filter just no longer refuses other lengths.
 */
#define BLOOM_IMAGE_C_PREFIXES		2U	/* bit 1 */
#define BLOOM_IMAGE_COMPAT_KNOWN	(BLOOM_IMAGE_C_KEYS | BLOOM_IMAGE_C_PREFIXES)
/* Bytes of a family's prefix length list: ascending, 0 after the last. */
#define BLOOM_IMAGE_PREFIXES_LEN	8
/* The netblock table: a u64 count per length, IPv4 0..32, IPv6 0..128. */
#define BLOOM_IMAGE_NB_SIZE		(8 * BLOOM_NB_LENS)
#define BLOOM_IMAGE_STAGE_SIZE		40	/* bytes per stage table entry */
/* The header of a snapshot of @n stages (0: not scalable). */
#define BLOOM_IMAGE_HEADER_BYTES(n)	(BLOOM_IMAGE_HEADER_SIZE + \
					 BLOOM_IMAGE_STAGE_SIZE * (n))

/* Statistics carried for information; what the storage shows is recounted. */
struct bloom_image_stats {
	u64 count;
	u64 adds;
	u64 queries;
	u64 hits;
	u64 deletes;
	u64 delete_misses;
	u64 insert_failures;
};

/**
 * struct bloom_image_stage - one entry of a scalable filter's stage table
 * @capacity: the stage's capacity, N * s^i
 * @bits: its m
 * @count: new keys added to it (at most @capacity)
 * @keys: its key estimate's counter (the core's keys), carried
 * @hashes: its k
 * @fpp_ppb: its rate, floor(P * (1 - r) * r^i)
 */
struct bloom_image_stage {
	u64 capacity;
	u64 bits;
	u64 count;
	u64 keys;
	u32 hashes;
	u32 fpp_ppb;
};

/*
 * What bloom_image_load() builds a scalable or expiring filter in
 * (userspace: the kernel builds its stores itself): the chain and room
 * for every stage, or the ring of generations.
 */
struct bloom_image_chain {
	struct bloom_scale scale;
	struct bloom_scale_stage stage[BLOOM_CORE_STAGES_MAX];
	struct bloom_expire ring;
};

/* A generation table entry's keep_ms: the generation still took adds. */
#define BLOOM_IMAGE_KEEP_ADDING	(~0ULL)

/**
 * struct bloom_image_gen - one entry of an expiring filter's generation
 *	table, oldest first
 * @keys: its key estimate's counter (the core's keys), carried
 * @age_ms: milliseconds from its birth (by the schedule) to the save
 * @keep_ms: milliseconds from the save until it may be cleared (its seal
 *	+ the timeout), 0 when it may be cleared already,
 *	BLOOM_IMAGE_KEEP_ADDING when it still took adds (not sealed)
 */
struct bloom_image_gen {
	u64 keys;
	u64 age_ms;
	u64 keep_ms;
};

/**
 * struct bloom_image_header - a snapshot's header, decoded
 * @version: format version (BLOOM_IMAGE_VERSION when written here)
 * @header_size: bytes of header before the payload
 * @incompat: feature flags a reader must know (else it refuses)
 * @compat: feature flags a reader may ignore
 * @scheme: hash and position scheme id (bloom_scheme_of_hash() of the
 *	writer's keyed hash)
 * @hash: the keyed hash @scheme names, enum bloom_core_hash_id
 * @placement: a timed filter's placement @scheme names, enum
 *	bloom_core_placement (BLOOM_CORE_PLACE_FP for other types)
 * @geo: type and geometry (a scalable filter's: stage 0's bits and
 *	hashes, the capacity N and rate P it was created with)
 * @payload_bytes: bytes of payload, bloom_core_storage_bytes(@geo) (with
 *	stages: the sum over them)
 * @payload_hash: xxh64 (seed 0) of the payload
 * @name: the filter's name, NUL-terminated, zero-padded
 * @hash_key: the filter's SipHash key
 * @stats: statistics at the time of the save
 * @nstages: with BLOOM_IMAGE_F_STAGES in @incompat: the stages (1 to
 *	BLOOM_CORE_STAGES_MAX); else 0
 * @scale: with @nstages: the parameters (type, growth, capacity, fpp_ppb,
 *	tightening_ppm) the stages follow
 * @term: reading, with @nstages: each stage's term, the i its capacity and
 *	rate are of (a timed chain's skip those of stages freed; else i)
 * @key_kind: with BLOOM_IMAGE_C_KEYS in @compat: BLOOM_KEYS_* (an unknown
 *	value reads as BLOOM_CORE_KIND_UNKNOWN); else 0
 * @nb_offset: with BLOOM_IMAGE_F_NETBLOCKS in @incompat: where the
 *	netblock table starts in the header, after the stage table; else 0
 * @nb: writing: the lengths to write (bloom_image_header_netblocks())
 * @prefixes: with BLOOM_IMAGE_C_PREFIXES in @compat: per family, the
 *	prefix lengths, ascending, 0 after the last; else all 0
 * @ngens: with BLOOM_IMAGE_F_GENERATIONS in @incompat: G (the generation
 *	table's entries); else 0
 * @expire: with @ngens: the parameters (type, generations, capacity,
 *	fpp_ppb, timeout_ms)
 * @saved_wall_ns: with @ngens: the save's time, CLOCK_REALTIME ns (what
 *	a restore after a reboot can still compare with)
 * @saved_ns: writing, with @ngens: the save's time on the filter's own
 *	clock, which the generation table's times are taken against
 * @key_timeout_s: with BLOOM_IMAGE_F_KEY_TIMEOUTS: the keys' default
 *	timeout
 * @key_timeout_max_s: with it: the largest (no expiry lies further than
 *	it, and three of the key's units, after the save)
 * @saved_s: with it: the save's time in whole seconds of the filter's
 *	clock (bloom_clock_s()), which the cells' ticks are taken against;
 *	@saved_wall_ns is the save's wall-clock time
 */
struct bloom_image_header {
	u32 version;
	u32 header_size;
	u32 incompat;
	u32 compat;
	u32 scheme;
	u32 hash;
	u32 placement;
	struct bloom_geometry geo;
	u64 payload_bytes;
	u64 payload_hash;
	char name[BLOOM_IMAGE_NAME_LEN];
	u8 hash_key[BLOOM_CORE_HASH_KEY_LEN];
	struct bloom_image_stats stats;
	u32 nstages;
	struct bloom_scale_params scale;
	u8 term[BLOOM_CORE_STAGES_MAX];
	u32 key_kind;
	u32 nb_offset;
	const struct bloom_netblocks *nb;
	u8 prefixes[2][BLOOM_IMAGE_PREFIXES_LEN];
	u32 ngens;
	struct bloom_expire_params expire;
	u64 saved_wall_ns;
	u64 saved_ns;
	u32 key_timeout_s;
	u32 key_timeout_max_s;
	u64 saved_s;
};

/*
 * Entry @i (under h->ngens) of the generation table of the header at @buf,
 * which bloom_image_header_read() accepted into @h.
 */
void bloom_image_gen_read(const u8 *buf, const struct bloom_image_header *h,
			  u32 i, struct bloom_image_gen *g);

/*
 * An expiring filter @f loaded from the snapshot whose header @buf was
 * read into @h (its generations' storage in order, checked): each
 * generation's keys and times from the table, on @f's clock, where it is
 * @now_ns and the wall clock says @now_wall_ns; then what expired since
 * the save is cleared (bloom_expire_resume()). Returns the number of
 * generations cleared.
 */
u32 bloom_image_gens_apply(struct bloom_core *f, const u8 *buf,
			   const struct bloom_image_header *h, u64 now_ns,
			   u64 now_wall_ns);

/*
 * After bloom_image_header_init(): the kind of @nb (compat KEYS, when
 * known) and, when it counts any key, its table (incompat NETBLOCKS; the
 * header grows by BLOOM_IMAGE_NB_SIZE). @nb must not change until the
 * header is written.
 */
void bloom_image_header_netblocks(struct bloom_image_header *h,
				  const struct bloom_netblocks *nb);

/*
 * The key kind and the netblock table of the header at @buf that
 * bloom_image_header_read() accepted into @h, into @nb (not yet published):
 * every count zero without a table.
 */
void bloom_image_netblocks_load(const u8 *buf, const struct bloom_image_header *h,
				struct bloom_netblocks *nb);

/* Stage @i of @f as a stage table entry. */
void bloom_image_stage_get(const struct bloom_core *f, u32 i,
			   struct bloom_image_stage *st);

/*
 * Entry @i (under h->nstages) of the stage table of the header at @buf,
 * which bloom_image_header_read() accepted into h.
 */
void bloom_image_stage_read(const u8 *buf, u32 i, struct bloom_image_stage *st);

/*
 * Stage entry @st of a snapshot of type @type as a geometry (a timed
 * stage's sized from its capacity and rate, as the module sized it).
 */
void bloom_image_stage_geometry(u32 type, const struct bloom_image_stage *st,
				struct bloom_geometry *geo);

/* xxh64 of @f's storage (of all its stages, one after the other). */
u64 bloom_image_payload_hash(const struct bloom_core *f);

/*
 * The geometry a snapshot may carry: bloom_geometry_check(), and for d-left
 * the table shape the core works on.
 */
int bloom_image_geometry_check(const struct bloom_geometry *geo);

/*
 * After the payload was loaded into @f's storage (bloom_core_init() on it
 * first): checks every bit, counter and cell is valid for the geometry
 * (padding zero, empty d-left cells zero, no duplicate fingerprint among a
 * key's candidates) and recounts the statistics the storage determines
 * (saturated counters, cells in use). 0 or -EBADMSG.
 */
int bloom_image_payload_check(struct bloom_core *f);

/*
 * A whole snapshot in memory (@len bytes at @buf), whose header
 * bloom_image_header_read() decoded into @h: checks the length and the
 * payload checksum, copies the payload into @storage (h->payload_bytes,
 * BLOOM_CORE_ALIGN-aligned), binds @f to it (bloom_core_init()) and checks
 * it (bloom_image_payload_check()). With stages @f becomes a scalable filter
 * in @chain (which must live as long as @f) whose stages are slices of
 * @storage, each checked; without @chain such a snapshot is -EOPNOTSUPP.
 * 0, -EBADMSG or -EOPNOTSUPP (a big-endian host), with *@why as for
 * bloom_image_header_read().
 */
int bloom_image_load(struct bloom_core *f, const struct bloom_image_header *h,
		     const u8 *buf, u64 len, void *storage,
		     struct bloom_image_chain *chain, const char **why);

/* xxh64 (seed 0) of @len bytes, as the header's checksums use it. */
u64 bloom_image_hash(const void *p, u64 len);

/* Is the storage image the memory itself (a little-endian host)? */
static inline bool bloom_image_native(void)
{
	return __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
}

#endif /* BLOOM_CORE_SNAPSHOT_FORMAT_H */
