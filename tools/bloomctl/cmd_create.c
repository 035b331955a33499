// SPDX-License-Identifier: GPL-2.0
/* The verbs that make and remove filters: create, destroy. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bloomctl.h"

int cmd_create(const char *dev, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "type", required_argument, NULL, 't' },
		{ "capacity", required_argument, NULL, 'c' },
		{ "fpp", required_argument, NULL, 'p' },
		{ "bits-per-key", required_argument, NULL, 'b' },
		{ "memory", required_argument, NULL, 'M' },
		{ "hash-key", required_argument, NULL, 'K' },
		{ "hash-key-file", required_argument, NULL, 'F' },
		{ "bits", required_argument, NULL, 'm' },
		{ "hashes", required_argument, NULL, 'k' },
		{ "like", required_argument, NULL, 'L' },
		{ "scalable", no_argument, NULL, 'S' },
		{ "growth", required_argument, NULL, 'g' },
		{ "tightening", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	BLOOM_OPTS(bloom_create_opts, o, .type = BLOOM_TYPE_STANDARD);
	struct bloom_size_result r = { .sz = sizeof(r) };
	uint8_t key[BLOOM_HASH_KEY_LEN];
	struct scale_args sc = { 0 };
	struct size_args a;
	int have_type = 0, c, fd, err;
	uint64_t v;
	const char *name;

	memset(&a, 0, sizeof(a));
	a.o.sz = sizeof(a.o);
	while ((c = getopt_long(argc, argv, ":t:c:p:h", opts, NULL)) != -1) {
		if (size_opt("create", c, optarg, &a) ||
		    scale_opt("create", c, optarg, &sc))
			continue;
		switch (c) {
		case 't':
			o.type = bloom_type_from_name(optarg);
			if (!o.type)
				die_usage("create", "unknown filter type '%s': use standard, blocked, counting or dleft",
					  optarg);
			have_type = 1;
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
		case 'L':
			o.like = optarg;
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
	if (o.like) {
		check_name("create", o.like);
		if (size_given(&a) || a.o.hashes || have_type || o.bits ||
		    o.hash_key)
			die_usage("create", "--like takes type, size and hash key from the other filter: give no --type, --capacity, --fpp, --bits-per-key, --memory, --bits, --hashes or --hash-key");
		if (sc.scalable || sc.growth || sc.tightening != 0)
			die_usage("create", "--like makes a filter like OTHER, which is not scalable (a scalable filter cannot be copied with --like): drop --scalable, --growth and --tightening");
		o.type = 0;
		fd = open_device(dev);
		err = bloom_create_opts(fd, name, &o);
		if (err == -ENOENT)
			die_op(BLOOM_OP_CREATE, o.like, err);
		/* the module's answer for a scalable OTHER */
		if (err == -EOPNOTSUPP)
			die("filter %s is scalable, and --like cannot copy a scalable filter: create %s with --scalable and the --capacity and --fpp that 'bloomctl info %s' shows",
			    o.like, name, o.like);
		if (err)
			die_op(BLOOM_OP_CREATE, name, err);
		bloom_close(fd);
		return EXIT_OK;
	}
	o.capacity = a.o.capacity;
	o.fpp = a.o.fpp;
	o.hashes = a.o.hashes;
	scale_check("create", &sc, &a, o.type, !!o.bits);
	if (sc.scalable) {
		o.flags |= BLOOM_CREATE_F_SCALABLE;
		o.growth = sc.growth;
		o.tightening = sc.tightening;
	}
	if (o.bits) {
		/* explicit geometry: capacity and rate are recorded as given */
		if (!o.capacity || o.fpp == 0)
			die_usage("create", "--bits and --hashes need --capacity N and --fpp P too (they are recorded with the geometry)");
		if (a.o.bits_per_key != 0 || a.o.memory)
			die_usage("create", "--bits gives the geometry itself: --bits-per-key and --memory do not apply");
		if (!o.hashes)
			die_usage("create", "--bits and --hashes go together: give both or neither");
		/* The module sizes a d-left table itself (EOPNOTSUPP): say so. */
		if (o.type == BLOOM_TYPE_DLEFT)
			die_usage("create", "a dleft filter sizes itself: --bits does not apply; give two of --capacity, --fpp, --bits-per-key and --memory");
		if (o.type == BLOOM_TYPE_BLOCKED && o.bits % 512)
			die_usage("create", "a blocked filter has a multiple of 512 bits: %" PRIu64 " is not",
				  o.bits);
	} else {
		/* what the module will build: refuse here what it would */
		size_or_die("create", &a, o.type, &r);
		o.bits_per_key = a.o.bits_per_key;
		o.memory = a.o.memory;
	}

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
