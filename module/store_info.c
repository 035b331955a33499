// SPDX-License-Identifier: GPL-2.0
/*
 * What a store says of itself (store.h): INFO's and STAGES' replies, which
 * sysfs shows one value a file, filled from the store under RCU into
 * zeroed structs. Every figure is kept as keys come and go or summed from
 * per-CPU counters: a bounded number of steps whatever the store's size.
 */
#include <linux/minmax.h>
#include <linux/rcupdate.h>
#include <linux/string.h>

#include "store_internal.h"

static_assert(ARRAY_SIZE(((struct bloom_info *)0)->subtable_used) ==
	      ARRAY_SIZE(((struct bloom_core_stats *)0)->subtable_used));

/* The key kind, the netblock lengths and the rate an address meets. */
static void bloom_info_fill_keys(struct bloom_info *info,
				 const struct bloom_netblocks *nb)
{
	u32 l4 = bloom_nb_lookups(nb, BLOOM_NB_IPV4);
	u32 l6 = bloom_nb_lookups(nb, BLOOM_NB_IPV6);
	int i;

	info->keys = READ_ONCE(nb->kind);
	info->prefixes4 = (u32)READ_ONCE(nb->present[BLOOM_NB_IPV4][0]);
	for (i = 0; i < 128 / BITS_PER_LONG; i++)
		((unsigned long *)info->prefixes6)[i] =
			READ_ONCE(nb->present[BLOOM_NB_IPV6][i]);
	info->address_lookups = info->keys == BLOOM_KEYS_IPV4 ? l4 :
				info->keys == BLOOM_KEYS_IPV6 ? l6 : max(l4, l6);
	info->address_fpp_ppb = bloom_nb_rate(info->estimated_fpp_ppb,
					      info->address_lookups);
	for (i = 0; i < 128; i++) {
		if (i < 32 && test_bit(i, nb->plan[BLOOM_NB_IPV4]))
			info->prefix_lengths4 |= BIT(i);
		if (test_bit(i, nb->plan[BLOOM_NB_IPV6]))
			info->prefix_lengths6[i / 64] |= BIT_ULL(i % 64);
	}
}

/*
 * A timed store's expired cells emptied: its table's; a chain's, its
 * stages' and those of the stages it freed (kept in its own core's).
 */
static u64 bloom_store_expired(const struct bloom_store *s)
{
	const struct bloom_scale_stage *st[BLOOM_CORE_STAGES_MAX];
	u64 sum = READ_ONCE(s->core.reclaimed);
	u32 i, n;

	if (!bloom_core_is_scalable(&s->core))
		return sum;
	n = bloom_scale_list(&s->core, st);
	for (i = 0; i < n; i++)
		sum += READ_ONCE(st[i]->core.reclaimed);
	return sum;
}

/* The figures of the variants: a chain's, a ring's, a timed table's. */
static void bloom_info_fill_shape(struct bloom_info *info,
				  const struct bloom_store *s)
{
	if (bloom_core_is_scalable(&s->core)) {
		info->stages = bloom_scale_stages(&s->core);
		info->growth = s->scale.p.growth;
		info->tightening_ppm = s->scale.p.tightening_ppm;
	}
	if (bloom_core_is_expiring(&s->core)) {
		info->generations = s->work->ring->p.generations;
		info->timeout_ms = s->work->ring->p.timeout_ms;
		info->next_rotation_ms = bloom_work_next_rotation_ms(s->work);
		info->late_rotations = bloom_work_late(s->work);
	}
	if (bloom_core_is_timed(&s->core)) {
		info->key_timeout_s = s->core.key_timeout_s;
		info->key_timeout_max_s = s->core.key_timeout_max_s;
		info->tag_bits = bloom_timed_tag_bits(&s->core);
		info->expired = bloom_store_expired(s);
	}
}

void bloom_store_info(const struct bloom_store *s, struct bloom_info *info)
{
	const struct bloom_geometry *geo = &s->core.geo;
	struct bloom_core_estimate est;
	struct bloom_core_stats core;
	struct bloom_stats_sum sum;
	int i;

	bloom_store_sum_stats(s, &sum);
	bloom_core_stats(&s->core, &core);
	bloom_core_estimate(&s->core, &est);
	info->type = geo->type;
	info->hashes = geo->hashes;
	info->hash = s->core.key.hash;
	info->bits = bloom_core_bits(&s->core);
	info->capacity = geo->capacity;
	info->fpp_ppb = geo->fpp_ppb;
	info->estimated_fpp_ppb = est.fpp_ppb;
	info->memory_bytes = READ_ONCE(s->memory_bytes);
	info->count = core.keys;
	info->adds = sum.adds;
	info->queries = sum.queries;
	info->hits = sum.hits;
	info->bits_set = core.in_use;
	info->deletes = sum.deletes;
	info->delete_misses = sum.delete_misses;
	info->delete_pinned = sum.delete_pinned;
	info->saturated = core.saturated;
	info->insert_failures = core.insert_failures;
	info->fingerprint_bits = core.fingerprint_bits;
	info->subtables = core.subtables;
	info->subtable_cells = core.subtable_cells;
	for (i = 0; i < ARRAY_SIZE(info->subtable_used); i++)
		info->subtable_used[i] = core.subtable_used[i];
	info->estimated_keys = est.keys;
	info->packets = sum.packets;
	info->packet_hits = sum.packet_hits;
	info->bpf_calls = sum.bpf_calls;
	info->bpf_hits = sum.bpf_hits;
	bloom_info_fill_shape(info, s);
	bloom_info_fill_keys(info, &s->nb);
}

/* One table's entry: a chain's stage, a ring's generation. */
static void bloom_stage_fill(struct bloom_stage *out,
			     const struct bloom_core *core, u64 count)
{
	struct bloom_core_estimate e;

	bloom_core_estimate(core, &e);
	out->capacity = core->geo.capacity;
	out->bits = core->geo.bits;
	out->count = count;
	out->bits_set = bloom_core_bits_set(core);
	out->fpp_ppb = core->geo.fpp_ppb;
	out->hashes = core->geo.hashes;
	out->estimated_fpp_ppb = e.fpp_ppb;
}

/* A ring's generations, oldest first, with their ages. */
static u32 bloom_generations_fill(const struct bloom_store *s,
				  struct bloom_stage *out)
{
	u32 i, n = s->work->ring->p.generations;
	u64 now = bloom_work_now_ns(), born;
	const struct bloom_expire_gen *g;
	struct bloom_core_stats cs;

	for (i = 0; i < n; i++) {
		g = bloom_expire_gen(&s->core, i);
		bloom_core_stats(&g->core, &cs);
		bloom_stage_fill(&out[i], &g->core, cs.keys);
		born = READ_ONCE(g->born_ns);
		out[i].age_ms = now > born ?
			min_t(u64, div_u64(now - born, NSEC_PER_MSEC), U32_MAX) :
			0;
	}
	return n;
}

int bloom_store_stages(const struct bloom_store *s, struct bloom_stage *out)
{
	const struct bloom_scale_stage *st[BLOOM_CORE_STAGES_MAX];
	const struct bloom_core *c;
	u32 i, n;

	if (bloom_core_is_expiring(&s->core))
		return bloom_generations_fill(s, out);
	if (!bloom_core_is_scalable(&s->core))
		return -EOPNOTSUPP;
	/* newest first, as a timed chain's readers must list them */
	n = bloom_scale_list(&s->core, st);
	for (i = 0; i < n; i++) {
		c = &st[n - 1 - i]->core;
		/* a timed stage's keys are its cells in use */
		bloom_stage_fill(&out[i], c, bloom_core_is_timed(c) ?
				 bloom_timed_used(c) :
				 READ_ONCE(st[n - 1 - i]->count));
	}
	return n;
}

u64 bloom_store_netblocks(const struct bloom_store *s, bool ipv6, u32 len)
{
	u32 fam = ipv6 ? BLOOM_NB_IPV6 : BLOOM_NB_IPV4;

	return len <= bloom_nb_full(fam) ? bloom_nb_count(&s->nb, fam, len) : 0;
}
