// SPDX-License-Identifier: GPL-2.0
/*
 * JSON output for info and list, and the figures derived from a filter's
 * statistics (fill ratio, current false-positive rate), computed in one
 * place so the human and the JSON output agree.
 */
#include <inttypes.h>
#include <math.h>
#include "bloomctl.h"

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

void print_info_json(FILE *f, const struct bloom_info *in, const char *ind)
{
	double fill = in->bits ? (double)in->bits_set / in->bits : 0;
	/*
	 * A query for an absent key hits only if all k bits are set: fill^k.
	 * For a blocked filter this underestimates a little (blocks fill
	 * unevenly); it is the estimate both types share.
	 */
	double est_fpp = pow(fill, in->hashes);
	/* Swamidass & Baldi: distinct keys from the number of set bits. */
	double est_keys = fill < 1 && in->hashes ?
		-(double)in->bits / in->hashes * log1p(-fill) : INFINITY;

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
	fprintf(f, "%s  \"memory_bytes\": %" PRIu64 ",\n", ind,
		(uint64_t)in->memory_bytes);
	fprintf(f, "%s  \"bits_per_key\": %.4f,\n", ind,
		in->capacity ? (double)in->bits / in->capacity : 0.0);
	fprintf(f, "%s  \"fill_ratio\": %.6f,\n", ind, fill);
	fprintf(f, "%s  \"estimated_fpp\": %.6g,\n", ind, est_fpp);
	/* JSON has no infinity: a full filter's key count is unknowable. */
	if (isfinite(est_keys))
		fprintf(f, "%s  \"estimated_keys\": %.0f\n", ind, est_keys);
	else
		fprintf(f, "%s  \"estimated_keys\": null\n", ind);
	fprintf(f, "%s}", ind);
}
