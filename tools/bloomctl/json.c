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
	return type == BLOOM_TYPE_COUNTING || type == BLOOM_TYPE_DLEFT;
}

void info_derive(const struct bloom_info *in, struct info_derived *d)
{
	uint64_t cells = (uint64_t)in->subtables * in->subtable_cells;
	unsigned int i;

	memset(d, 0, sizeof(*d));
	if (in->type == BLOOM_TYPE_DLEFT) {
		/*
		 * A query compares its fingerprint with the used cells of one
		 * bucket (8 cells) per subtable: on average used * 8 /
		 * subtable_cells of them, each equal by chance with
		 * probability 2^-f. bits_set counts the cells in use; a cell
		 * holds one fingerprint, usually one distinct key.
		 */
		double cmp = in->subtable_cells ?
			8.0 * in->bits_set / in->subtable_cells : 0;

		d->fill = cells ? (double)in->bits_set / cells : 0;
		d->est_fpp = in->fingerprint_bits ?
			-expm1(cmp * log1p(-ldexp(1, -(int)in->fingerprint_bits))) :
			0;
		d->est_keys = in->bits_set;
		for (i = 0; i < 4 && i < in->subtables; i++)
			d->load[i] = in->subtable_cells ?
				(double)in->subtable_used[i] / in->subtable_cells : 0;
		return;
	}
	/* Counting: a non-zero counter plays the part of a set bit. */
	d->fill = in->bits ? (double)in->bits_set / in->bits : 0;
	/*
	 * A query for an absent key hits only if all k bits are set: fill^k.
	 * For a blocked filter this underestimates a little (blocks fill
	 * unevenly); it is the estimate both types share.
	 */
	d->est_fpp = pow(d->fill, in->hashes);
	/* Swamidass & Baldi: distinct keys from the number of set bits. */
	d->est_keys = d->fill < 1 && in->hashes ?
		-(double)in->bits / in->hashes * log1p(-d->fill) : INFINITY;
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

void print_info_json(FILE *f, const struct bloom_info *in, const char *ind)
{
	unsigned int nsub = in->subtables < 4 ? in->subtables : 4, i;
	struct info_derived d;

	info_derive(in, &d);
	fprintf(f, "%s{\n", ind);
	fprintf(f, "%s  \"name\": ", ind);
	json_string(f, in->name);
	fprintf(f, ",\n%s  \"type\": \"%s\",\n", ind, type_name(in->type));
	fprintf(f, "%s  \"capacity\": %" PRIu64 ",\n", ind, (uint64_t)in->capacity);
	fprintf(f, "%s  \"fpp\": %.9g,\n", ind, in->fpp_ppb / 1e9);
	fprintf(f, "%s  \"fpp_ppb\": %u,\n", ind, in->fpp_ppb);
	fprintf(f, "%s  \"bits\": %" PRIu64 ",\n", ind, (uint64_t)in->bits);
	fprintf(f, "%s  \"hashes\": %u,\n", ind, in->hashes);
	fprintf(f, "%s  \"count\": %" PRIu64 ",\n", ind, (uint64_t)in->count);
	fprintf(f, "%s  \"adds\": %" PRIu64 ",\n", ind, (uint64_t)in->adds);
	fprintf(f, "%s  \"queries\": %" PRIu64 ",\n", ind, (uint64_t)in->queries);
	fprintf(f, "%s  \"hits\": %" PRIu64 ",\n", ind, (uint64_t)in->hits);
	fprintf(f, "%s  \"bits_set\": %" PRIu64 ",\n", ind, (uint64_t)in->bits_set);
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
	if (in->type == BLOOM_TYPE_DLEFT) {
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
	fprintf(f, "%s  \"estimated_fpp\": %.6g,\n", ind, d.est_fpp);
	/* JSON has no infinity: a full filter's key count is unknowable. */
	if (isfinite(d.est_keys))
		fprintf(f, "%s  \"estimated_keys\": %.0f\n", ind, d.est_keys);
	else
		fprintf(f, "%s  \"estimated_keys\": null\n", ind);
	fprintf(f, "%s}", ind);
}
