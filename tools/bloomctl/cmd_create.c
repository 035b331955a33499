// SPDX-License-Identifier: GPL-2.0
/* The verbs that make and remove filters: create, destroy. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include "bloomctl.h"

int cmd_create(const char *dev, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "type", required_argument, NULL, 't' },
		{ "capacity", required_argument, NULL, 'c' },
		{ "fpp", required_argument, NULL, 'p' },
		{ "hash-key", required_argument, NULL, 'K' },
		{ "hash-key-file", required_argument, NULL, 'F' },
		{ "bits", required_argument, NULL, 'm' },
		{ "hashes", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	BLOOM_OPTS(bloom_create_opts, o, .type = BLOOM_TYPE_STANDARD);
	uint8_t key[BLOOM_HASH_KEY_LEN];
	int have_cap = 0, have_fpp = 0, c, fd, err;
	uint64_t v;
	uint32_t ppb;
	const char *name;

	while ((c = getopt_long(argc, argv, ":t:c:p:h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			o.type = bloom_type_from_name(optarg);
			if (!o.type)
				die_usage("create", "unknown filter type '%s': use standard, blocked, counting or dleft",
					  optarg);
			break;
		case 'c':
			if (parse_count(optarg, &o.capacity) || !o.capacity ||
			    o.capacity > BLOOM_CAPACITY_MAX)
				die_usage("create", "bad capacity '%s': give a number of keys from 1 to %llu; k/M/G/T (powers of 1000) and Ki/Mi/Gi/Ti (of 1024) suffixes allowed (e.g. 1M)",
					  optarg, BLOOM_CAPACITY_MAX);
			have_cap = 1;
			break;
		case 'p':
			if (parse_fpp(optarg, &o.fpp) ||
			    bloom_fpp_to_ppb(o.fpp, &ppb))
				die_usage("create", "bad false-positive rate '%s': give a probability from 1e-9 to 0.5, e.g. 0.01 or 1e-3",
					  optarg);
			/* The module counts in parts per billion. */
			if (fabs(ppb / 1e9 - o.fpp) > 1e-12 * o.fpp)
				fprintf(stderr, "bloomctl: false-positive rate %s is used as %.9g (the module counts rates in whole parts per billion, rounded down)\n",
					optarg, ppb / 1e9);
			have_fpp = 1;
			break;
		case 'K':
			if (o.hash_key)
				die_usage("create", "give one --hash-key or --hash-key-file");
			if (parse_hex_key(optarg, key))
				die_usage("create", "bad hash key '%s': give %d hexadecimal digits (128 bits)",
					  optarg, 2 * BLOOM_HASH_KEY_LEN);
			o.hash_key = key;
			break;
		case 'F':
			if (o.hash_key)
				die_usage("create", "give one --hash-key or --hash-key-file");
			err = read_hash_key_file(optarg, key);
			if (err == -EINVAL)
				die_usage("create", "hash key file '%s' holds neither 32 hexadecimal digits (and at most a newline) nor 16 bytes",
					  optarg);
			if (err)
				die("cannot read hash key file '%s': %s",
				    optarg, strerror(-err));
			o.hash_key = key;
			break;
		case 'm':
			if (parse_count(optarg, &v) || v < 64 || v > BLOOM_BITS_MAX)
				die_usage("create", "bad bit count '%s': give 64 to %llu bits",
					  optarg, BLOOM_BITS_MAX);
			o.bits = v;
			break;
		case 'k':
			if (parse_count(optarg, &v) || !v || v > BLOOM_HASHES_MAX)
				die_usage("create", "bad hash count '%s': give 1 to %d",
					  optarg, BLOOM_HASHES_MAX);
			o.hashes = v;
			break;
		case 'h':
			print_help(stdout, "create");
			return EXIT_OK;
		default:
			die_getopt("create", c, argv);
		}
	}
	if (optind >= argc)
		die_usage("create", "create needs a filter name");
	if (optind + 1 < argc)
		die_usage("create", "unexpected argument '%s'", argv[optind + 1]);
	name = argv[optind];
	check_name("create", name);
	if (!have_cap || !have_fpp)
		die_usage("create", "create needs --capacity N and --fpp P (e.g. --capacity 1M --fpp 0.01)");
	if (!o.bits != !o.hashes)
		die_usage("create", "--bits and --hashes go together: give both or neither");
	/* The module sizes a d-left table itself (EOPNOTSUPP): say so here. */
	if (o.type == BLOOM_TYPE_DLEFT && o.bits)
		die_usage("create", "a dleft filter sizes itself from --capacity and --fpp: --bits and --hashes do not apply");
	if (o.type == BLOOM_TYPE_BLOCKED && o.bits % 512)
		die_usage("create", "a blocked filter has a multiple of 512 bits: %" PRIu64 " is not",
			  o.bits);

	fd = open_device(dev);
	err = bloom_create_opts(fd, name, &o);
	if (err)
		die_op(BLOOM_OP_CREATE, name, err);
	bloom_close(fd);
	return EXIT_OK;
}

int cmd_destroy(const char *dev, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, fd, err;

	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (c == 'h') {
			print_help(stdout, "destroy");
			return EXIT_OK;
		}
		die_getopt("destroy", c, argv);
	}
	if (optind + 1 != argc)
		die_usage("destroy", optind >= argc ? "destroy needs a filter name" :
			  "destroy takes exactly one filter name");
	check_name("destroy", argv[optind]);
	fd = open_device(dev);
	err = bloom_destroy(fd, argv[optind]);
	if (err)
		die_op(BLOOM_OP_DESTROY, argv[optind], err);
	bloom_close(fd);
	return EXIT_OK;
}
