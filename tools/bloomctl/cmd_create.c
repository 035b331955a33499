// SPDX-License-Identifier: GPL-2.0
/* The verbs that make and remove filters: create, destroy. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bloomctl.h"
#include "prefix.h"

/* What the command line asks for. */
struct create_args {
	struct bloom_create_opts o;
	struct size_args a;		/* the sizing options */
	struct scale_args sc;
	struct expire_args x;
	struct prefix_args pa;		/* --prefix-lengths, --prefix-feed */
	struct prefix_report pr;	/* o.prefixes4 or 6 points into it */
	uint8_t key[BLOOM_HASH_KEY_LEN];	/* o.hash_key points here */
	int have_type;
	int key_timeouts;		/* --key-timeouts */
	int exist;			/* --exist: the same filter may exist */
	const char *timeout;		/* --timeout, read once the rest is */
	const char *name;
};

/*
 * --timeout is a key's default with --key-timeouts (0: none), else the
 * timeout of an expiring filter. --key-timeouts makes a timed filter.
 */
static void create_timeouts(struct create_args *ca)
{
	struct bloom_create_opts *o = &ca->o;

	/* --type timed says --key-timeouts */
	if (ca->have_type && o->type == BLOOM_TYPE_TIMED)
		ca->key_timeouts = 1;
	if (!ca->key_timeouts) {
		if (o->key_timeout_max_s)
			die_usage("create", "--max-timeout goes with --key-timeouts");
		if (ca->timeout)
			expire_opt("create", 'T', ca->timeout, &ca->x);
		return;
	}
	if (ca->have_type && o->type != BLOOM_TYPE_TIMED &&
	    o->type != BLOOM_TYPE_DLEFT)
		die_usage("create", "--key-timeouts makes a filter of d-left cells that hold each key's expiry (type timed): a %s filter cannot; drop --type",
			  bloom_type_name(o->type));
	if (ca->x.generations)
		die_usage("create", "--generations belongs to expiring filters, whose keys expire together; with --key-timeouts each key expires by itself: drop --generations");
	o->type = BLOOM_TYPE_TIMED;
	if (ca->timeout)
		o->key_timeout_s = parse_key_timeout("create", ca->timeout);
	if (o->key_timeout_max_s && o->key_timeout_s > o->key_timeout_max_s)
		die_usage("create", "the default --timeout %us is over --max-timeout %us",
			  o->key_timeout_s, o->key_timeout_max_s);
}

/* The options and the NAME; 1 if --help was asked (and printed). */
static int create_parse_args(int argc, char **argv, struct create_args *ca)
{
	static const struct option opts[] = {
		{ "type", required_argument, NULL, 't' },
		{ "capacity", required_argument, NULL, 'c' },
		{ "fpp", required_argument, NULL, 'p' },
		{ "bits-per-key", required_argument, NULL, 'b' },
		{ "memory", required_argument, NULL, 'M' },
		{ "hash-key", required_argument, NULL, 'K' },
		{ "hash-key-file", required_argument, NULL, 'F' },
		{ "hash", required_argument, NULL, 'H' },
		{ "bits", required_argument, NULL, 'm' },
		{ "hashes", required_argument, NULL, 'k' },
		{ "like", required_argument, NULL, 'L' },
		{ "scalable", no_argument, NULL, 'S' },
		{ "growth", required_argument, NULL, 'g' },
		{ "tightening", required_argument, NULL, 'r' },
		{ "keys", required_argument, NULL, 'Y' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "generations", required_argument, NULL, 'G' },
		{ "key-timeouts", no_argument, NULL, 'W' },
		{ "max-timeout", required_argument, NULL, 'X' },
		{ "exist", no_argument, NULL, 'e' },
		PREFIX_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bloom_create_opts *o = &ca->o;
	int c, err;
	uint64_t v;

	memset(ca, 0, sizeof(*ca));
	o->sz = sizeof(*o);
	o->type = BLOOM_TYPE_STANDARD;
	ca->a.o.sz = sizeof(ca->a.o);
	exist_spelling(argc, argv);
	while ((c = getopt_long(argc, argv, ":t:c:p:h", opts, NULL)) != -1) {
		/* a key's default or a generation's: --key-timeouts says */
		if (c == 'T') {
			ca->timeout = optarg;
			continue;
		}
		if (size_opt("create", c, optarg, &ca->a) ||
		    prefix_opt("create", c, optarg, &ca->pa) ||
		    scale_opt("create", c, optarg, &ca->sc) ||
		    expire_opt("create", c, optarg, &ca->x))
			continue;
		switch (c) {
		case 't':
			o->type = type_opt("create", optarg);
			ca->have_type = 1;
			break;
		case 'Y':
			o->keys = keys_kind_opt("create", optarg);
			break;
		case 'K':
			if (o->hash_key)
				die_usage("create", "give one --hash-key or --hash-key-file");
			if (parse_hex_key(optarg, ca->key))
				die_usage("create", "bad hash key '%s': give %d hexadecimal digits (128 bits)",
					  optarg, 2 * BLOOM_HASH_KEY_LEN);
			o->hash_key = ca->key;
			break;
		case 'F':
			if (o->hash_key)
				die_usage("create", "give one --hash-key or --hash-key-file");
			err = read_hash_key_file(optarg, ca->key);
			if (err == -EINVAL)
				die_usage("create", "hash key file '%s' holds neither 32 hexadecimal digits (and at most a newline) nor 16 bytes",
					  optarg);
			if (err)
				die("cannot read hash key file '%s': %s",
				    optarg, strerror(-err));
			o->hash_key = ca->key;
			break;
		case 'm':
			if (parse_count(optarg, &v) || v < 64 || v > BLOOM_BITS_MAX)
				die_usage("create", "bad bit count '%s': give 64 to %llu bits",
					  optarg, BLOOM_BITS_MAX);
			o->bits = v;
			break;
		case 'H':
			o->hash = hash_opt("create", optarg);
			o->flags |= BLOOM_CREATE_F_HASH;
			break;
		case 'L':
			o->like = optarg;
			break;
		case 'W':
			ca->key_timeouts = 1;
			break;
		case 'X':
			o->key_timeout_max_s = parse_key_timeout("create", optarg);
			if (!o->key_timeout_max_s)
				die_usage("create", "--max-timeout 0 means nothing: give the largest timeout a key may have, or leave it out (%us)",
					  BLOOM_KEY_TIMEOUT_MAX);
			break;
		case 'e':
			ca->exist = 1;
			break;
		case 'h':
			print_help(stdout, "create");
			return 1;
		default:
			die_getopt("create", c, argv);
		}
	}
	if (optind >= argc)
		die_usage("create", "create needs a filter name");
	if (optind + 1 < argc)
		die_usage("create", "unexpected argument '%s'", argv[optind + 1]);
	ca->name = argv[optind];
	check_name("create", ca->name);
	create_timeouts(ca);
	return 0;
}

/*
 * --prefix-lengths or --prefix-feed: the filter's netblock lengths, for
 * the family of --keys; a feed without --capacity gives the capacity, the
 * keys it stores.
 */
static void create_prefixes(struct create_args *ca)
{
	struct bloom_create_opts *o = &ca->o;
	int family = o->keys == BLOOM_KEYS_IPV4 ? AF_INET :
		     o->keys == BLOOM_KEYS_IPV6 ? AF_INET6 : 0;

	if (!ca->pa.lengths && !ca->pa.feed && !ca->pa.lookups)
		return;
	if (o->like)
		die_usage("create", "--like takes the netblock lengths from the other filter: drop --prefix-lengths and --prefix-feed");
	if (!family)
		die_usage("create", "netblock lengths are of one family: give --keys ipv4 or --keys ipv6");
	prefix_plan("create", &ca->pa, family, ca->a.o.fpp, &ca->pr);
	prefix_to_opts(&ca->pr, o);
	if (ca->pr.have_feed && !ca->a.o.capacity && size_given(&ca->a) < 2) {
		ca->a.o.capacity = ca->pr.stored ? ca->pr.stored : 1;
		fprintf(stderr, "bloomctl: note: %s: capacity %" PRIu64 ", the keys %s stores under these lengths (%" PRIu64 " netblocks given)\n",
			ca->name, ca->a.o.capacity, ca->pa.feed, ca->pr.given);
	}
}

/*
 * A filter of netblock lengths answers an address at up to its lookups
 * times the rate it was created for: --fpp is each stored key's rate, so
 * say what an address gets and how to ask for that instead.
 */
static void create_address_note(const struct create_args *ca)
{
	unsigned int lookups = 1 + ca->pr.plan.nlens;
	double p = ca->o.fpp;

	if (!ca->pr.plan.nlens || !(p > 0))
		return;
	fprintf(stderr, "bloomctl: note: %s: an address is tested up to %u times (itself and %u netblock length%s), so one never listed is taken for listed at up to %.3g, not the --fpp %.3g each stored key has (sysfs address_fpp_ppb has the rate once it is fed); for an address rate of %.3g, create it with --fpp %.3g\n",
		ca->name, lookups, lookups - 1, lookups == 2 ? "" : "s",
		1 - pow(1 - p, lookups), p, p, p / lookups);
}

/* --like OTHER: it gives type, size and hash key; nothing else may. */
static void create_check_like(struct create_args *ca)
{
	const struct size_args *a = &ca->a;
	const struct bloom_create_opts *o = &ca->o;

	check_name("create", o->like);
	if (size_given(a) || a->o.hashes || ca->have_type || o->bits ||
	    o->hash_key)
		die_usage("create", "--like takes type, size and hash key from the other filter: give no --type, --capacity, --fpp, --bits-per-key, --memory, --bits, --hashes or --hash-key");
	if (o->flags & BLOOM_CREATE_F_HASH)
		die_usage("create", "--like takes the hash from the other filter too: drop --hash");
	if (ca->sc.scalable || ca->sc.growth || ca->sc.tightening != 0)
		die_usage("create", "--like takes scalability, growth and tightening from the other filter too: drop --scalable, --growth and --tightening");
	if (ca->x.timeout_ms || ca->x.generations)
		die_usage("create", "--like takes the timeout and generations from the other filter too: drop --timeout and --generations");
	ca->o.type = 0;
}

/* --bits and --hashes: the geometry itself, as far as it can be checked. */
static void create_check_geometry(const struct create_args *ca)
{
	const struct bloom_create_opts *o = &ca->o;

	/* explicit geometry: capacity and rate are recorded as given */
	if (!o->capacity || o->fpp == 0)
		die_usage("create", "--bits and --hashes need --capacity N and --fpp P too (they are recorded with the geometry)");
	if (ca->a.o.bits_per_key != 0 || ca->a.o.memory)
		die_usage("create", "--bits gives the geometry itself: --bits-per-key and --memory do not apply");
	if (!o->hashes)
		die_usage("create", "--bits and --hashes go together: give both or neither");
	/* The module sizes a d-left table itself (EOPNOTSUPP): say so. */
	if (o->type == BLOOM_TYPE_DLEFT)
		die_usage("create", "a dleft filter sizes itself: --bits does not apply; give two of --capacity, --fpp, --bits-per-key and --memory");
	if (o->type == BLOOM_TYPE_BLOCKED && o->bits % 512)
		die_usage("create", "a blocked filter has a multiple of 512 bits: %" PRIu64 " is not",
			  o->bits);
}

/*
 * The sizing options into the create options, refusing here (exit 2) what
 * the module would refuse.
 */
static void create_size(struct create_args *ca)
{
	struct bloom_size_result r = { .sz = sizeof(r) };
	struct bloom_create_opts *o = &ca->o;

	o->capacity = ca->a.o.capacity;
	o->fpp = ca->a.o.fpp;
	o->hashes = ca->a.o.hashes;
	scale_check("create", &ca->sc, &ca->a, o->type, !!o->bits);
	expire_check("create", &ca->x, &ca->a, o->type, ca->sc.scalable,
		     !!o->bits);
	o->timeout_ms = ca->x.timeout_ms;
	o->generations = ca->x.generations;
	if (ca->sc.scalable) {
		o->flags |= BLOOM_CREATE_F_SCALABLE;
		o->growth = ca->sc.growth;
		o->tightening = ca->sc.tightening;
	}
	if (o->bits) {
		create_check_geometry(ca);
	} else {
		/* what the module will build: refuse here what it would */
		size_or_die("create", &ca->a, o->type, &r);
		o->bits_per_key = ca->a.o.bits_per_key;
		o->memory = ca->a.o.memory;
	}
}

/*
 * --exist: a filter of that name with what was asked for is success, as
 * ipset -exist create is (fail2ban runs it at every start).
 */
static int exists_alike(int fd, const char *name,
			const struct bloom_create_opts *o)
{
	struct bloom_info in;
	char why[128];

	if (o->like || bloom_info(fd, name, &in))
		return 0;
	if (same_filter(&in, o, why, sizeof(why))) {
		if (prefix_same(&in, o))
			return 1;
		snprintf(why, sizeof(why),
			 "its netblock lengths are not those asked for (bloomctl info %s shows them)",
			 name);
	}
	die("a filter named %s exists, but %s: not what was asked for; destroy it first or give another name",
	    name, why);
}

/* The create call itself; a missing OTHER of --like is named as such. */
static void create_filter(const char *dev, const char *name,
			  const struct bloom_create_opts *o, int exist)
{
	int fd = open_device(dev);
	int err = bloom_create_opts(fd, name, o);

	if (err == -EEXIST && exist && exists_alike(fd, name, o))
		err = 0;
	if (err == -ENOENT && o->like)
		die_op(BLOOM_OP_CREATE, o->like, err);
	if (err)
		die_op(BLOOM_OP_CREATE, name, err);
	bloom_close(fd);
}

int cmd_create(const char *dev, int argc, char **argv)
{
	struct create_args ca;

	if (create_parse_args(argc, argv, &ca))
		return EXIT_OK;
	create_prefixes(&ca);
	if (ca.o.like)
		create_check_like(&ca);
	else
		create_size(&ca);
	create_filter(dev, ca.name, &ca.o, ca.exist);
	create_address_note(&ca);
	return EXIT_OK;
}

/*
 * DESTROY said EBUSY: an XDP program that holds the filter is named by its
 * device (bloom-xdp holds the filters it uses); else firewall rules do.
 */
static void __attribute__((noreturn)) die_held(int fd, const char *name)
{
	struct bloom_info in;
	char dev[IF_NAMESIZE] = "";

	if (bloom_info(fd, name, &in) || !in.xdp_holds)
		die_op(BLOOM_OP_DESTROY, name, -EBUSY);
	if (!in.xdp_ifindex || !if_indextoname(in.xdp_ifindex, dev))
		snprintf(dev, sizeof(dev), "#%u", in.xdp_ifindex);
	if (in.xdp_holds == 1)
		die("filter %s is in use by an XDP program on %s%s (detach it first: bloom-xdp detach %s), then destroy it",
		    name, dev, in.rules ? " and by firewall rules" : "", dev);
	die("filter %s is in use by %u XDP programs, the latest on %s%s (detach them first: bloom-xdp detach %s, and the others), then destroy it",
	    name, in.xdp_holds, dev, in.rules ? ", and by firewall rules" : "",
	    dev);
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
	/* the module waits a moment for rules iptables-nft is releasing */
	err = bloom_destroy(fd, argv[optind]);
	if (err == -EBUSY)
		die_held(fd, argv[optind]);
	if (err)
		die_op(BLOOM_OP_DESTROY, argv[optind], err);
	bloom_close(fd);
	return EXIT_OK;
}
