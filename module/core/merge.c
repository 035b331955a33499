// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Whole-filter operations: merge (union) and clear.
 *
 * Merge is a writer of the destination: its caller serialises it with the
 * destination's other writers (core.h). Merge of standard and blocked
 * filters ORs the source's words into the destination, each word written
 * once with WRITE_ONCE, so a query never sees a bit go away. Counting
 * filters add counter to counter, saturating at 15 (a counter at 15 stays
 * there: it may count more keys than it can hold); each word is written
 * once with WRITE_ONCE and counters only grow, so a lockless query never
 * misses a key. d-left cells cannot be
 * added: a merge would have to re-insert each cell's value and could find
 * its buckets full half way through. Scalable filters keep their storage in
 * stages (scale.c), which merge and clear do not handle yet: -EOPNOTSUPP.
 */
#include "internal.h"

#define BLOOM_CTR_NIBBLES	(BITS_PER_LONG / 4)

bool bloom_core_compatible(const struct bloom_core *a,
			   const struct bloom_core *b)
{
	/* stages or generations of their own: bloom_expire_merge() */
	if (a->scale || b->scale || a->expire || b->expire)
		return false;
	return a->geo.type == b->geo.type && a->geo.hashes == b->geo.hashes &&
	       a->geo.bits == b->geo.bits &&
	       a->geo.cell_bits == b->geo.cell_bits &&
	       a->geo.fingerprint_bits == b->geo.fingerprint_bits &&
	       a->geo.buckets == b->geo.buckets &&
	       a->key.key[0] == b->key.key[0] && a->key.key[1] == b->key.key[1] &&
	       a->key.hash == b->key.hash &&
	       a->key.placement == b->key.placement;
}

/*
 * Counter-wise a + b, saturating at 15; *@sat += counters newly at 15,
 * *@used += counters newly non-zero.
 */
static unsigned long bloom_ctr_add(unsigned long a, unsigned long b, u64 *sat,
				   u64 *used)
{
	unsigned long r = 0, x, y, z;
	unsigned int i;

	for (i = 0; i < BLOOM_CTR_NIBBLES; i++) {
		x = (a >> (4 * i)) & 15;
		y = (b >> (4 * i)) & 15;
		z = x + y > 15 ? 15 : x + y;
		*sat += x != 15 && z == 15;
		*used += !x && z;
		r |= z << (4 * i);
	}
	return r;
}

int bloom_core_merge(struct bloom_core *dst, const struct bloom_core *src)
{
	u64 i, n = bloom_core_storage_bytes(&dst->geo) / sizeof(unsigned long);
	unsigned long s, d;
	u64 sat = 0, used = 0;
	s64 keys;

	if (dst->scale || src->scale || dst->expire || src->expire ||
	    dst->geo.type == BLOOM_CORE_DLEFT ||
	    dst->geo.type == BLOOM_CORE_TIMED)
		return -EOPNOTSUPP;
	if (!bloom_core_compatible(dst, src))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!(i & 0xffff))
			bloom_cond_resched();
		s = READ_ONCE(src->words[i]);
		if (!s)
			continue;
		d = READ_ONCE(dst->words[i]);
		if (dst->geo.type != BLOOM_CORE_COUNTING) {
			/* count only the bits this OR turned on */
			if (s & ~d) {
				WRITE_ONCE(dst->words[i], d | s);
				used += hweight_long(s & ~d);
			}
			continue;
		}
		WRITE_ONCE(dst->words[i], bloom_ctr_add(d, s, &sat, &used));
	}
	if (sat)
		WRITE_ONCE(dst->saturated, dst->saturated + sat);
	bloom_atomic64_add((s64)used, &dst->in_use);
	/*
	 * keys: the source's are added (a key in both counts twice: the
	 * figure is "as far as the filter can tell", see bloom_core_stats)
	 */
	keys = (s64)bloom_atomic64_read(&src->keys);
	if (keys > 0)
		bloom_atomic64_add(keys, &dst->keys);
	return 0;
}

int bloom_core_clear(struct bloom_core *f)
{
	u64 i, n = bloom_core_storage_bytes(&f->geo) / sizeof(unsigned long);

	if (f->scale)
		return -EOPNOTSUPP;
	if (f->expire) {
		for (i = 0; i < f->expire->p.generations; i++)
			bloom_core_clear(&f->expire->gen[i].core);
		return 0;
	}
	for (i = 0; i < n; i++) {
		if (!(i & 0xffff))
			bloom_cond_resched();
		WRITE_ONCE(f->words[i], 0);
	}
	WRITE_ONCE(f->saturated, 0);
	WRITE_ONCE(f->insert_failures, 0);
	bloom_atomic64_set(&f->in_use, 0);
	bloom_atomic64_set(&f->keys, 0);
	for (i = 0; i < BLOOM_DLEFT_SUBTABLES; i++)
		WRITE_ONCE(f->subtable_used[i], 0);
	return 0;
}
