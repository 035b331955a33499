// SPDX-License-Identifier: GPL-2.0
/*
 * inspect: what a snapshot file holds, from its header alone (the module
 * is not needed and the payload is not read), or checked completely with
 * --check, as restore checks it.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "bloomctl.h"
#include "snapfile.h"

/* The snapshot's netblock lengths present, per family, as info has them. */
static void nb_words(const struct bloom_netblocks *nb, uint64_t w4[1],
		     uint64_t w6[2])
{
	unsigned int l;

	w4[0] = 0;
	w6[0] = w6[1] = 0;
	for (l = 0; l < 128; l++) {
		if (l < 32 && nb->present[0][l / BITS_PER_LONG] >>
			      (l % BITS_PER_LONG) & 1)
			w4[0] |= 1ULL << l;
		if (nb->present[1][l / BITS_PER_LONG] >> (l % BITS_PER_LONG) & 1)
			w6[l / 64] |= 1ULL << (l % 64);
	}
}

/* "the whole file", "truncated" or "trailing bytes": the size said. */
static const char *file_state(const struct bloom_image_header *h,
			      int64_t file_bytes)
{
	uint64_t total = h->header_size + h->payload_bytes;

	if (file_bytes < 0)
		return "not a regular file: its length is not known";
	if ((uint64_t)file_bytes < total)
		return "truncated: shorter than its header says";
	if ((uint64_t)file_bytes > total)
		return "trailing bytes: longer than its header says";
	return "complete";
}

static void print_text(const char *path, const u8 *hdr,
		       const struct bloom_image_header *h, int64_t file_bytes,
		       const struct bloom_netblocks *nb, int earlier)
{
	uint64_t w4, w6[2];
	char l4[512], l6[1024];
	u32 i;

	nb_words(nb, &w4, w6);
	prefix_list(l4, sizeof(l4), &w4, 32);
	prefix_list(l6, sizeof(l6), w6, 128);
	printf("file:            %s\n", strcmp(path, "-") ? path : "standard input");
	printf("format:          version %u, header %u bytes, payload %" PRIu64 " bytes\n",
	       h->version, h->header_size, (uint64_t)h->payload_bytes);
	if (file_bytes >= 0)
		printf("file size:       %" PRId64 " bytes (%s)\n", file_bytes,
		       file_state(h, file_bytes));
	if (earlier)
		printf("layout:          the four-subtable table of earlier versions, shown as restore converts it (a save writes today's)\n");
	printf("name:            %s\n", h->name);
	printf("type:            %s%s\n", type_name(h->geo.type),
	       h->nstages ? " (scalable)" : "");
	printf("hash:            %s\n", hash_name(h->hash));
	printf("keys:            %s\n", keys_kind_name(h->key_kind));
	if (l4[0])
		printf("ipv4 netblocks:  %s\n", l4);
	if (l6[0])
		printf("ipv6 netblocks:  %s\n", l6);
	if (h->nstages) {
		printf("capacity:        %" PRIu64 " keys (stage 0's; the filter grows)\n",
		       (uint64_t)h->scale.capacity);
		printf("fpp:             %.9g (%u ppb) over all stages\n",
		       h->scale.fpp_ppb / 1e9, h->scale.fpp_ppb);
		printf("scalable:        %u stages, growth %u, tightening %.6g\n",
		       h->nstages, h->scale.growth,
		       h->scale.tightening_ppm / 1e6);
		printf("stages:          %5s %12s %12s %14s %6s %12s\n", "STAGE",
		       "CAPACITY", "FPP", "BITS", "HASHES", "COUNT");
		for (i = 0; i < h->nstages; i++) {
			struct bloom_image_stage st;

			bloom_image_stage_read(hdr, i, &st);
			printf("                 %5u %12" PRIu64 " %12.6g %14" PRIu64 " %6u %12" PRIu64 "\n",
			       i, (uint64_t)st.capacity, st.fpp_ppb / 1e9,
			       (uint64_t)st.bits, st.hashes, (uint64_t)st.count);
		}
	} else {
		printf("capacity:        %" PRIu64 " keys\n",
		       (uint64_t)h->geo.capacity);
		printf("fpp:             %.9g (%u ppb)\n", h->geo.fpp_ppb / 1e9,
		       h->geo.fpp_ppb);
		printf("bits:            %" PRIu64 "\n", (uint64_t)h->geo.bits);
		printf("hashes:          %u%s\n", h->geo.hashes,
		       h->geo.type == BLOOM_TYPE_DLEFT ? " (subtables)" : "");
		if (h->geo.type == BLOOM_TYPE_DLEFT)
			printf("fingerprint:     %u bits\n",
			       h->geo.fingerprint_bits);
	}
	printf("count:           %" PRIu64 " keys (when saved)\n",
	       (uint64_t)h->stats.count);
	printf("adds:            %" PRIu64 "\n", (uint64_t)h->stats.adds);
	printf("queries:         %" PRIu64 " (%" PRIu64 " may be present)\n",
	       (uint64_t)h->stats.queries, (uint64_t)h->stats.hits);
	if (type_can_delete(h->geo.type))
		printf("deletes:         %" PRIu64 " (%" PRIu64 " not found)\n",
		       (uint64_t)h->stats.deletes,
		       (uint64_t)h->stats.delete_misses);
}

static void json_lengths(const char *key, const uint64_t *w, int nbits)
{
	int l, n = 0;

	printf("  \"%s\": [", key);
	for (l = nbits - 1; l >= 0; l--)
		if (w[l / 64] >> (l % 64) & 1)
			printf("%s%d", n++ ? ", " : "", l);
	fputs("],\n", stdout);
}

static void print_json(const char *path, const u8 *hdr,
		       const struct bloom_image_header *h, int64_t file_bytes,
		       const struct bloom_netblocks *nb, int checked,
		       int earlier)
{
	uint64_t w4, w6[2];
	u32 i;

	nb_words(nb, &w4, w6);
	fputs("{\n  \"file\": ", stdout);
	json_string(stdout, path);
	printf(",\n  \"format_version\": %u,\n  \"header_bytes\": %u,\n"
	       "  \"payload_bytes\": %" PRIu64 ",\n", h->version,
	       h->header_size, (uint64_t)h->payload_bytes);
	if (file_bytes >= 0)
		printf("  \"file_bytes\": %" PRId64 ",\n  \"complete\": %s,\n",
		       file_bytes,
		       (uint64_t)file_bytes == h->header_size + h->payload_bytes ?
		       "true" : "false");
	if (earlier)
		fputs("  \"earlier_layout\": true,\n", stdout);
	printf("  \"checked\": %s,\n  \"name\": ", checked ? "true" : "false");
	json_string(stdout, h->name);
	printf(",\n  \"type\": \"%s\",\n  \"hash\": \"%s\",\n  \"key_kind\": \"%s\",\n",
	       type_name(h->geo.type), hash_name(h->hash),
	       keys_kind_name(h->key_kind));
	json_lengths("prefixes4", &w4, 32);
	json_lengths("prefixes6", w6, 128);
	if (h->nstages) {
		printf("  \"scalable\": true,\n  \"capacity\": %" PRIu64 ",\n"
		       "  \"fpp\": %.9g,\n  \"fpp_ppb\": %u,\n"
		       "  \"growth\": %u,\n  \"tightening\": %.6g,\n"
		       "  \"stage_count\": %u,\n  \"stages\": [",
		       (uint64_t)h->scale.capacity, h->scale.fpp_ppb / 1e9,
		       h->scale.fpp_ppb, h->scale.growth,
		       h->scale.tightening_ppm / 1e6, h->nstages);
		for (i = 0; i < h->nstages; i++) {
			struct bloom_image_stage st;

			bloom_image_stage_read(hdr, i, &st);
			printf("%s\n    { \"capacity\": %" PRIu64 ", \"fpp_ppb\": %u, \"bits\": %" PRIu64 ", \"hashes\": %u, \"count\": %" PRIu64 " }",
			       i ? "," : "", (uint64_t)st.capacity, st.fpp_ppb,
			       (uint64_t)st.bits, st.hashes,
			       (uint64_t)st.count);
		}
		fputs("\n  ],\n", stdout);
	} else {
		printf("  \"capacity\": %" PRIu64 ",\n  \"fpp\": %.9g,\n"
		       "  \"fpp_ppb\": %u,\n  \"bits\": %" PRIu64 ",\n"
		       "  \"hashes\": %u,\n", (uint64_t)h->geo.capacity,
		       h->geo.fpp_ppb / 1e9, h->geo.fpp_ppb,
		       (uint64_t)h->geo.bits, h->geo.hashes);
		if (h->geo.type == BLOOM_TYPE_DLEFT)
			printf("  \"fingerprint_bits\": %u,\n",
			       h->geo.fingerprint_bits);
	}
	printf("  \"count\": %" PRIu64 ",\n  \"adds\": %" PRIu64 ",\n"
	       "  \"queries\": %" PRIu64 ",\n  \"hits\": %" PRIu64 ",\n"
	       "  \"deletes\": %" PRIu64 ",\n  \"delete_misses\": %" PRIu64 "\n}\n",
	       (uint64_t)h->stats.count, (uint64_t)h->stats.adds,
	       (uint64_t)h->stats.queries, (uint64_t)h->stats.hits,
	       (uint64_t)h->stats.deletes, (uint64_t)h->stats.delete_misses);
}

int cmd_inspect(const char *dev, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "check", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	u8 hdr[BLOOM_IMAGE_HEADER_MAX];
	struct bloom_image_header h;
	struct bloom_netblocks nb;
	int json = 0, check = 0, earlier = 0, c, err;
	const char *path, *why;
	int64_t file_bytes;

	(void)dev;
	while ((c = getopt_long(argc, argv, ":jch", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'c':
			check = 1;
			break;
		case 'h':
			print_help(stdout, "inspect");
			exit(EXIT_OK);
		default:
			die_getopt("inspect", c, argv);
		}
	}
	if (argc - optind != 1)
		die_usage("inspect", "inspect needs one snapshot FILE ('-': standard input)");
	path = argv[optind];
	if (check) {
		/* the whole file, as restore reads and checks it */
		struct snap_file sf;

		err = snap_read(path, 0, &sf, &why);
		if (!err)
			err = snap_check(&sf, &h, &why);
		if (!err) {
			memcpy(hdr, sf.buf, h.header_size);
			file_bytes = sf.len;
			earlier = sf.earlier;
		}
		snap_free(&sf);
	} else {
		err = snap_read_header(path, hdr, &h, &file_bytes, &earlier,
				       &why);
	}
	if (err && why)
		die("%s: %s", strcmp(path, "-") ? path : "standard input", why);
	if (err)
		die("cannot read '%s': %s", path, strerror(-err));
	bloom_image_netblocks_load(hdr, &h, &nb);
	if (json) {
		print_json(path, hdr, &h, file_bytes, &nb, check, earlier);
	} else {
		print_text(path, hdr, &h, file_bytes, &nb, earlier);
		printf("checked:         %s\n", check ?
		       "the whole file, as restore checks it: valid" :
		       "the header only (--check reads and checks the payload too)");
	}
	return EXIT_OK;
}
