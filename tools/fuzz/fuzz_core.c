// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target for the filter core (module/core), built with ASan and
 * UBSan. The input is a little program: a filter geometry, then operations
 * (add, delete, query, batches, re-create) on keys from a small key space,
 * run against the core and against an exact reference multiset of the keys.
 *
 * Invariants checked after every operation:
 *  - no false negatives: every key the reference holds is reported present;
 *  - deleting a key that was never added and that the filter reports absent
 *    finds nothing and changes no byte of the storage;
 *  - a refused d-left insert (-ENOSPC) changes no byte of the storage;
 *  - deleting a key the reference holds always finds it;
 *  - batch results agree with the single-key answers.
 * A violated invariant aborts, which libFuzzer reports with the input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "fuzz.h"

#define NKEYS		64	/* the key space: small, so keys repeat */
#define MAX_OPS		400	/* per input, to keep executions fast */
#define MAX_CAPACITY	512
#define MAX_BITS	8192

struct state {
	struct bloom_core f;
	void *storage;
	u64 bytes;
	u64 hash[NKEYS];
	unsigned int refs[NKEYS];	/* the reference multiset */
	bool live;
};

/* Key i: 1..12 bytes, distinct for distinct i. */
static size_t key_bytes(unsigned int i, u8 *out)
{
	size_t len = 1 + i % 12, j;

	for (j = 0; j < len; j++)
		out[j] = (u8)(i * 37 + j * 101);
	out[0] = (u8)i;
	return len;
}

static void destroy(struct state *s)
{
	free(s->storage);
	s->storage = NULL;
	s->live = false;
}

/*
 * Creates a filter from the next bytes: a type, then either a sizing from
 * capacity and rate, or (not for d-left) an explicit geometry. Returns false
 * when the bytes describe a geometry the core refuses, which is fine.
 */
static bool create(struct state *s, struct input *in)
{
	static const u32 rates[] = {
		500000000, 250000000, 100000000, 10000000, 1000000, 1000, 1,
	};
	struct bloom_geometry geo;
	bloom_hash_key_t key;
	u8 kb[BLOOM_CORE_HASH_KEY_LEN];
	u32 type = 1 + take(in, 1) % 4;
	unsigned int i, mode = take(in, 1);
	int ret;

	destroy(s);
	memset(s->refs, 0, sizeof(s->refs));
	if (mode & 1 && type != BLOOM_CORE_DLEFT) {
		memset(&geo, 0, sizeof(geo));
		geo.type = type;
		geo.hashes = 1 + take(in, 1) % BLOOM_CORE_HASHES_MAX;
		geo.bits = 64 + take(in, 2) % MAX_BITS;
		if (type == BLOOM_CORE_BLOCKED)
			geo.bits = (geo.bits + 511) / 512 * 512;
		geo.capacity = 1 + take(in, 2) % MAX_CAPACITY;
		geo.fpp_ppb = rates[take(in, 1) % 7];
		ret = bloom_geometry_check(&geo);
		CHECK(ret == 0 || ret == -EINVAL || ret == -E2BIG,
		      "geometry_check returned %d", ret);
	} else {
		ret = bloom_geometry_size(type, 1 + take(in, 2) % MAX_CAPACITY,
					  rates[take(in, 1) % 7], &geo);
		/* Small capacities and valid rates always size. */
		CHECK(ret == 0, "geometry_size(type %u) returned %d", type,
		      ret);
	}
	if (ret)
		return false;
	s->bytes = bloom_core_storage_bytes(&geo);
	CHECK(s->bytes % BLOOM_CORE_ALIGN == 0 && s->bytes > 0,
	      "storage bytes %llu", (unsigned long long)s->bytes);
	CHECK(s->bytes <= (8ULL << 20), "storage bytes %llu for a tiny filter",
	      (unsigned long long)s->bytes);
	s->storage = aligned_alloc(BLOOM_CORE_ALIGN, s->bytes);
	CHECK(s->storage, "out of memory");
	memset(s->storage, 0, s->bytes);
	for (i = 0; i < sizeof(kb); i++)
		kb[i] = take(in, 1);
	bloom_hash_key_from_bytes(&key, kb);
	bloom_core_init(&s->f, &geo, &key, s->storage);
	for (i = 0; i < NKEYS; i++) {
		u8 k[16];
		size_t len = key_bytes(i, k);

		s->hash[i] = bloom_core_hash(&s->f, k, len);
	}
	s->live = true;
	return true;
}

static void check_no_false_negatives(const struct state *s, const char *after)
{
	unsigned int i;

	for (i = 0; i < NKEYS; i++)
		CHECK(!s->refs[i] || bloom_core_query_hash(&s->f, s->hash[i]),
		      "type %u: key %u added %u times reported absent after %s",
		      s->f.geo.type, i, s->refs[i], after);
}

static void op_add(struct state *s, unsigned int k)
{
	void *before = NULL;
	int ret;

	if (s->f.geo.type == BLOOM_CORE_DLEFT) {
		before = malloc(s->bytes);
		CHECK(before, "out of memory");
		memcpy(before, s->storage, s->bytes);
	}
	ret = bloom_core_add_hash(&s->f, s->hash[k]);
	if (ret == -ENOSPC) {
		CHECK(s->f.geo.type == BLOOM_CORE_DLEFT,
		      "ENOSPC from type %u", s->f.geo.type);
		CHECK(!memcmp(before, s->storage, s->bytes),
		      "a refused d-left insert changed the table");
	} else {
		CHECK(ret == 0 || ret == 1, "add returned %d", ret);
		s->refs[k]++;
	}
	free(before);
}

static void op_delete(struct state *s, unsigned int k)
{
	void *before;
	bool found;

	if (!bloom_core_can_delete(&s->f))
		return;
	if (s->refs[k]) {
		int r = bloom_core_delete_hash(&s->f, s->hash[k]);

		CHECK(r == BLOOM_CORE_DEL_REMOVED || r == BLOOM_CORE_DEL_PINNED,
		      "type %u: delete of key %u (held %u times) returned %d",
		      s->f.geo.type, k, s->refs[k], r);
		/* pinned: a saturated counter keeps it present */
		CHECK(r != BLOOM_CORE_DEL_PINNED ||
		      bloom_core_query_hash(&s->f, s->hash[k]),
		      "type %u: key %u pinned but absent", s->f.geo.type, k);
		s->refs[k]--;
		return;
	}
	/*
	 * Never added. Deleting a false positive is the caller's error (it
	 * may remove what other keys set), so only a key the filter itself
	 * reports absent is deleted: that must find nothing, change nothing.
	 */
	if (bloom_core_query_hash(&s->f, s->hash[k]))
		return;
	before = malloc(s->bytes);
	CHECK(before, "out of memory");
	memcpy(before, s->storage, s->bytes);
	found = bloom_core_delete_hash(&s->f, s->hash[k]);
	CHECK(!found, "delete of an absent key %u found it", k);
	CHECK(!memcmp(before, s->storage, s->bytes),
	      "delete of an absent key %u changed the storage", k);
	free(before);
}

/* A batch of up to 16 keys: results must match the single-key answers. */
static void op_batch(struct state *s, struct input *in, unsigned int kind)
{
	u64 hashes[16];
	unsigned int keys[16], n = 1 + take(in, 1) % 16, i, set;
	u8 res[2] = { 0, 0 }, pin[2] = { 0, 0 };
	u32 npinned, done;

	for (i = 0; i < n; i++) {
		keys[i] = take(in, 1) % NKEYS;
		hashes[i] = s->hash[keys[i]];
	}
	switch (kind) {
	case 0:
		set = bloom_core_query_batch(&s->f, hashes, n, res);
		for (i = 0; i < n; i++)
			CHECK(!!(res[i / 8] & (1 << (i % 8))) ==
			      bloom_core_query_hash(&s->f, hashes[i]),
			      "query batch bit %u disagrees", i);
		CHECK(set <= n, "query batch returned %u of %u", set, n);
		break;
	case 1:
		set = bloom_core_add_batch_done(&s->f, hashes, n, res, &done);
		if (done < n)
			CHECK(s->f.geo.type == BLOOM_CORE_DLEFT,
			      "ENOSPC from type %u", s->f.geo.type);
		CHECK(done <= n && set <= done, "add batch %u of %u, %u set",
		      done, n, set);
		/* the keys before the one that did not fit stay added */
		for (i = 0; i < done; i++)
			s->refs[keys[i]]++;
		break;
	default:
		if (!bloom_core_can_delete(&s->f))
			break;
		/* Only keys the reference holds (enough copies of each). */
		for (i = 0; i < n; i++) {
			unsigned int j, need = 0;

			for (j = 0; j < n; j++)
				need += keys[j] == keys[i];
			if (s->refs[keys[i]] < need)
				return;
		}
		for (i = 0; i < n; i++)
			s->refs[keys[i]]--;
		set = bloom_core_delete_batch(&s->f, hashes, n, res, pin,
					      &npinned);
		CHECK(set + npinned == n,
		      "type %u: delete batch found %u + %u pinned of %u held keys",
		      s->f.geo.type, set, npinned, n);
		CHECK(!(res[0] & pin[0]) && !(res[1] & pin[1]),
		      "a key both removed and pinned");
		break;
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct input in = { data, size };
	struct state s;
	unsigned int ops, op, k;
	struct bloom_core_stats st;

	memset(&s, 0, sizeof(s));
	if (!create(&s, &in))
		return 0;
	for (ops = 0; in.left && ops < MAX_OPS; ops++) {
		op = take(&in, 1);
		k = (op >> 3) % NKEYS;
		switch (op & 7) {
		case 0:
		case 1:
		case 2:
			op_add(&s, k);
			break;
		case 3:
		case 4:
			op_delete(&s, k);
			break;
		case 5:
			bloom_core_query_hash(&s.f, s.hash[k]);
			break;
		case 6:
			op_batch(&s, &in, take(&in, 1) % 3);
			break;
		default:
			if (op & 0x80 && !create(&s, &in))
				goto out;
			break;
		}
		check_no_false_negatives(&s, "an operation");
	}
	/* The kept statistics agree with a scan of the storage. */
	bloom_core_stats(&s.f, &st);
	CHECK(bloom_core_bits_set(&s.f) == bloom_core_count_in_use(&s.f) &&
	      st.in_use == bloom_core_bits_set(&s.f),
	      "bits_set %llu, scan %llu",
	      (unsigned long long)bloom_core_bits_set(&s.f),
	      (unsigned long long)bloom_core_count_in_use(&s.f));
out:
	destroy(&s);
	return 0;
}
