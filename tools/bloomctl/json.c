// SPDX-License-Identifier: GPL-2.0
/*
 * JSON output for info and list, and the figures derived from a filter's
 * statistics (fill ratio, current false-positive rate), computed in one
 * place so the human and the JSON output agree.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include "bloomctl.h"
#include "core.h"

void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

int type_can_delete(uint32_t type)
{
	return type == BLOOM_TYPE_COUNTING || type_has_cells(type);
}

int type_has_cells(uint32_t type)
{
	return type == BLOOM_TYPE_DLEFT || type == BLOOM_TYPE_TIMED;
}

/*
 * The estimates come from the module (estimated_keys, estimated_fpp_ppb:
 * the core computes them, one copy for sysfs, INFO and this); only the
 * fill ratios are derived here.
 */
void info_derive(const struct bloom_info *in, struct info_derived *d)
{
	uint64_t cells = (uint64_t)in->subtables * in->subtable_cells;
	unsigned int i;

	memset(d, 0, sizeof(*d));
	d->est_fpp = in->estimated_fpp_ppb / 1e9;
	d->est_keys = in->estimated_keys == ~(__u64)0 ? INFINITY :
		      (double)in->estimated_keys;
	d->capacity = in->capacity;
	for (i = 1; i < in->stages; i++) {
		/* stage i holds capacity * growth^i keys, as the module sizes it */
		double c = (double)in->capacity * pow(in->growth, i);

		d->capacity += c < BLOOM_CAPACITY_MAX ? (uint64_t)c :
						       BLOOM_CAPACITY_MAX;
	}
	d->keys = isfinite(d->est_keys) ? fmax(d->est_keys, in->count) :
					  fmax(in->adds, in->count);
	d->keys_added = !isfinite(d->est_keys);
	/* a scalable filter grows: it is over only when it cannot grow */
	d->over_capacity = !in->stages && (in->count > in->capacity ||
					   (d->keys_added &&
					    in->adds > in->capacity));
	/*
	 * An expiring filter's generations hold capacity / (G - 1) keys
	 * each, G of them: it is over when more than capacity keys came in
	 * a timeout, which shows as a rate above the one asked for.
	 */
	if (in->generations) {
		d->capacity = in->capacity +
			      in->capacity / (in->generations - 1);
		d->over_capacity = in->estimated_fpp_ppb > in->fpp_ppb;
	}
	if (type_has_cells(in->type)) {
		d->fill = cells ? (double)in->bits_set / cells : 0;
		for (i = 0; i < 4 && i < in->subtables; i++)
			d->load[i] = in->subtable_cells ?
				(double)in->subtable_used[i] / in->subtable_cells : 0;
		return;
	}
	/* Counting: a non-zero counter plays the part of a set bit. */
	d->fill = in->bits ? (double)in->bits_set / in->bits : 0;
}

static void u64_array(FILE *f, const __u64 *v, unsigned int n)
{
	unsigned int i;

	fputc('[', f);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%" PRIu64, i ? ", " : "", (uint64_t)v[i]);
	fputc(']', f);
}

/*
 * The filter's table (bits, counters or cells) in bytes, as the core
 * allocates it: what --memory budgets and 'calc' reports as memory_bytes.
 * info's memory_bytes adds the filter's fixed overhead in the kernel.
 */
uint64_t info_table_bytes(const struct bloom_info *in)
{
	struct bloom_geometry g = { .type = in->type, .bits = in->bits };

	return bloom_core_storage_bytes(&g);
}

/* The key kind, the netblock lengths (longest first), the address rate. */
static void print_keys_json(FILE *f, const struct bloom_info *in,
			    const char *ind)
{
	uint64_t p4 = in->prefixes4, s4 = in->prefix_lengths4;
	int fam, l, n;

	fprintf(f, "%s  \"key_kind\": \"%s\",\n", ind,
		keys_kind_name(in->keys));
	/* the lengths held, then the lengths the filter stores at (none: any) */
	for (fam = 0; fam < 4; fam++) {
		static const char *const names[] = { "prefixes4", "prefixes6",
			"prefix_lengths4", "prefix_lengths6" };
		const uint64_t *w = fam == 0 ? &p4 : fam == 2 ? &s4 :
				    fam == 1 ? (const uint64_t *)in->prefixes6 :
				    (const uint64_t *)in->prefix_lengths6;

		fprintf(f, "%s  \"%s\": [", ind, names[fam]);
		for (l = fam % 2 ? 127 : 31, n = 0; l >= 0; l--)
			if (w[l / 64] >> (l % 64) & 1)
				fprintf(f, "%s%d", n++ ? ", " : "", l);
		fputs("],\n", f);
	}
	fprintf(f, "%s  \"address_lookups\": %u,\n", ind, in->address_lookups);
	fprintf(f, "%s  \"address_fpp\": %.9g,\n", ind,
		in->address_fpp_ppb / 1e9);
}

static void print_stages_json(FILE *f, const struct bloom_stage *st,
			      size_t n, const char *ind)
{
	size_t i;

	fprintf(f, "%s  \"stages\": [", ind);
	for (i = 0; i < n; i++)
		fprintf(f, "%s\n%s    { \"capacity\": %" PRIu64
			", \"fpp\": %.9g, \"fpp_ppb\": %u, \"bits\": %" PRIu64
			", \"hashes\": %u, \"count\": %" PRIu64
			", \"bits_set\": %" PRIu64 ", \"fill_ratio\": %.6f"
			", \"estimated_fpp\": %.6g }",
			i ? "," : "", ind, (uint64_t)st[i].capacity,
			st[i].fpp_ppb / 1e9, st[i].fpp_ppb,
			(uint64_t)st[i].bits, st[i].hashes,
			(uint64_t)st[i].count, (uint64_t)st[i].bits_set,
			st[i].bits ? (double)st[i].bits_set / st[i].bits : 0.0,
			st[i].estimated_fpp_ppb / 1e9);
	if (n)
		fprintf(f, "\n%s  ],\n", ind);
	else
		fputs("],\n", f);
}

/* An expiring filter's generations, oldest first, with their ages. */
static void print_generations_json(FILE *f, const struct bloom_stage *st,
				   size_t n, const char *ind)
{
	size_t i;

	fprintf(f, "%s  \"generations\": [", ind);
	for (i = 0; i < n; i++)
		fprintf(f, "%s\n%s    { \"age_ms\": %u, \"capacity\": %" PRIu64
			", \"count\": %" PRIu64 ", \"bits\": %" PRIu64
			", \"bits_set\": %" PRIu64 ", \"fpp_ppb\": %u"
			", \"estimated_fpp\": %.6g }",
			i ? "," : "", ind, st[i].age_ms,
			(uint64_t)st[i].capacity, (uint64_t)st[i].count,
			(uint64_t)st[i].bits, (uint64_t)st[i].bits_set,
			st[i].fpp_ppb, st[i].estimated_fpp_ppb / 1e9);
	fputs(n ? "\n" : "", f);
	fprintf(f, "%s%s],\n", n ? ind : "", n ? "  " : "");
}

void print_info_json(FILE *f, const struct bloom_info *in,
		     const struct bloom_stage *st, size_t nst, const char *ind)
{
	unsigned int nsub = in->subtables < 4 ? in->subtables : 4, i;
	struct info_derived d;

	info_derive(in, &d);
	fprintf(f, "%s{\n", ind);
	fprintf(f, "%s  \"name\": ", ind);
	json_string(f, in->name);
	fprintf(f, ",\n%s  \"id\": %u,\n", ind, in->id);
	fprintf(f, "%s  \"type\": \"%s\",\n", ind, type_name(in->type));
	fprintf(f, "%s  \"hash\": \"%s\",\n", ind, hash_name(in->hash));
	fprintf(f, "%s  \"capacity\": %" PRIu64 ",\n", ind, (uint64_t)in->capacity);
	fprintf(f, "%s  \"fpp\": %.9g,\n", ind, in->fpp_ppb / 1e9);
	fprintf(f, "%s  \"fpp_ppb\": %u,\n", ind, in->fpp_ppb);
	fprintf(f, "%s  \"bits\": %" PRIu64 ",\n", ind, (uint64_t)in->bits);
	fprintf(f, "%s  \"hashes\": %u,\n", ind, in->hashes);
	fprintf(f, "%s  \"count\": %" PRIu64 ",\n", ind, (uint64_t)in->count);
	/* info's "load": the estimate, or the adds with no estimate */
	fprintf(f, "%s  \"keys\": %.0f,\n", ind, d.keys);
	fprintf(f, "%s  \"keys_estimated\": %s,\n", ind,
		d.keys_added ? "false" : "true");
	fprintf(f, "%s  \"total_capacity\": %" PRIu64 ",\n", ind, d.capacity);
	fprintf(f, "%s  \"adds\": %" PRIu64 ",\n", ind, (uint64_t)in->adds);
	fprintf(f, "%s  \"queries\": %" PRIu64 ",\n", ind, (uint64_t)in->queries);
	fprintf(f, "%s  \"hits\": %" PRIu64 ",\n", ind, (uint64_t)in->hits);
	fprintf(f, "%s  \"bits_set\": %" PRIu64 ",\n", ind, (uint64_t)in->bits_set);
	/* Only scalable filters have these. */
	if (in->stages) {
		fprintf(f, "%s  \"scalable\": true,\n", ind);
		fprintf(f, "%s  \"growth\": %u,\n", ind, in->growth);
		fprintf(f, "%s  \"tightening\": %.6g,\n", ind,
			in->tightening_ppm / 1e6);
		fprintf(f, "%s  \"stage_count\": %u,\n", ind, in->stages);
		print_stages_json(f, st, nst, ind);
	}
	if (in->generations) {
		fprintf(f, "%s  \"timeout_ms\": %" PRIu64 ",\n", ind,
			(uint64_t)in->timeout_ms);
		fprintf(f, "%s  \"generation_count\": %u,\n", ind,
			in->generations);
		fprintf(f, "%s  \"next_rotation_ms\": %" PRIu64 ",\n", ind,
			(uint64_t)in->next_rotation_ms);
		fprintf(f, "%s  \"late_rotations\": %" PRIu64 ",\n", ind,
			(uint64_t)in->late_rotations);
		print_generations_json(f, st, nst, ind);
	}
	fprintf(f, "%s  \"rules\": %u,\n", ind, in->rules);
	print_keys_json(f, in, ind);
	fprintf(f, "%s  \"packets\": %" PRIu64 ",\n", ind, (uint64_t)in->packets);
	fprintf(f, "%s  \"packet_hits\": %" PRIu64 ",\n", ind,
		(uint64_t)in->packet_hits);
	fprintf(f, "%s  \"bpf_calls\": %" PRIu64 ",\n", ind,
		(uint64_t)in->bpf_calls);
	fprintf(f, "%s  \"bpf_hits\": %" PRIu64 ",\n", ind,
		(uint64_t)in->bpf_hits);
	/* Only the types that can delete have these: absent, not 0. */
	if (type_can_delete(in->type)) {
		fprintf(f, "%s  \"deletes\": %" PRIu64 ",\n", ind,
			(uint64_t)in->deletes);
		fprintf(f, "%s  \"delete_misses\": %" PRIu64 ",\n", ind,
			(uint64_t)in->delete_misses);
		fprintf(f, "%s  \"delete_pinned\": %" PRIu64 ",\n", ind,
			(uint64_t)in->delete_pinned);
		fprintf(f, "%s  \"saturated\": %" PRIu64 ",\n", ind,
			(uint64_t)in->saturated);
	}
	if (in->type == BLOOM_TYPE_TIMED) {
		fprintf(f, "%s  \"key_timeout_s\": %u,\n", ind, in->key_timeout_s);
		fprintf(f, "%s  \"key_timeout_max_s\": %u,\n", ind,
			in->key_timeout_max_s);
		fprintf(f, "%s  \"tag_bits\": %u,\n", ind, in->tag_bits);
		fprintf(f, "%s  \"expired\": %" PRIu64 ",\n", ind,
			(uint64_t)in->expired);
	}
	if (type_has_cells(in->type)) {
		fprintf(f, "%s  \"insert_failures\": %" PRIu64 ",\n", ind,
			(uint64_t)in->insert_failures);
		fprintf(f, "%s  \"fingerprint_bits\": %u,\n", ind,
			in->fingerprint_bits);
		fprintf(f, "%s  \"subtables\": %u,\n", ind, in->subtables);
		fprintf(f, "%s  \"subtable_cells\": %" PRIu64 ",\n", ind,
			(uint64_t)in->subtable_cells);
		fprintf(f, "%s  \"subtable_used\": ", ind);
		u64_array(f, in->subtable_used, nsub);
		fprintf(f, ",\n%s  \"subtable_load\": [", ind);
		for (i = 0; i < nsub; i++)
			fprintf(f, "%s%.6f", i ? ", " : "", d.load[i]);
		fputs("],\n", f);
	}
	fprintf(f, "%s  \"memory_bytes\": %" PRIu64 ",\n", ind,
		(uint64_t)in->memory_bytes);
	fprintf(f, "%s  \"table_bytes\": %" PRIu64 ",\n", ind,
		info_table_bytes(in));
	fprintf(f, "%s  \"bits_per_key\": %.4f,\n", ind,
		in->capacity ? (double)in->bits / in->capacity : 0.0);
	/* What a key really costs, counters, cells and overhead included. */
	fprintf(f, "%s  \"memory_bits_per_key\": %.4f,\n", ind,
		in->capacity ? 8.0 * in->memory_bytes / in->capacity : 0.0);
	fprintf(f, "%s  \"fill_ratio\": %.6f,\n", ind, d.fill);
	fprintf(f, "%s  \"estimated_fpp\": %.9g,\n", ind, d.est_fpp);
	fprintf(f, "%s  \"estimated_fpp_ppb\": %u,\n", ind,
		in->estimated_fpp_ppb);
	fprintf(f, "%s  \"over_capacity\": %s,\n", ind,
		d.over_capacity ? "true" : "false");
	/* JSON has no infinity: a full filter's key count is unknowable. */
	if (isfinite(d.est_keys))
		fprintf(f, "%s  \"estimated_keys\": %.0f\n", ind, d.est_keys);
	else
		fprintf(f, "%s  \"estimated_keys\": null\n", ind);
	fprintf(f, "%s}", ind);
}
