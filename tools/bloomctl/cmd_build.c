// SPDX-License-Identifier: GPL-2.0
/*
 * bloomctl build: a filter built from a key file in userspace, with the
 * kernel's own core (module/core) on every CPU, written as a snapshot that
 * "bloomctl restore" loads in one call. No module needed.
 *
 * Keys are read in chunks; the threads hash a chunk's keys (SipHash is most
 * of the work) and, for standard and blocked filters, set their bits right
 * away, one thread at a time (the core needs its writers serialised:
 * add_lock) while the others hash; the order of adds does not matter to a
 * bit array. A counting filter's saturated counters and a d-left table
 * depend on the order of inserts, so their adds run on one thread in file
 * order after the chunk is hashed. Either way the storage is byte for byte what the kernel
 * builds from the same keys in the same order under the same hash key.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sodium.h>
#include "bloomctl.h"
#include "feed.h"
#include "prefix.h"
#include "snapfile.h"

#define CHUNK_KEYS	(1U << 18)
#define CHUNK_BYTES	(32U << 20)
#define MAX_THREADS	256

/*
 * A scalable filter's stages (--scalable): the chain the core grows, and
 * each stage's storage, allocated as the stage before it fills, as the
 * module allocates it.
 */
struct build_chain {
	struct bloom_image_chain c;
	void *mem[BLOOM_CORE_STAGES_MAX];
};

struct chunk {
	struct bloom_core *f;
	struct build_chain *chain;	/* --scalable, else NULL */
	u8 *bytes;		/* the keys, packed */
	size_t *off;		/* key i is bytes[off[i] .. off[i + 1]) */
	u64 *hashes;
	size_t n;
	int add_here;		/* standard, blocked: threads add too */
	pthread_mutex_t add_lock;	/* serialises those adds */
	u64 new_keys;		/* keys that set a bit (per thread) */
	u64 *lines;		/* the line of the key file of each key */
	const char *path;	/* the key file, for messages */
};

struct slice {
	struct chunk *c;
	size_t from, to;
	u64 new_keys;
};

static void *hash_slice(void *arg)
{
	struct slice *s = arg;
	struct chunk *c = s->c;
	size_t i;

	for (i = s->from; i < s->to; i++)
		c->hashes[i] = bloom_core_hash(c->f, c->bytes + c->off[i],
					       c->off[i + 1] - c->off[i]);
	s->new_keys = 0;
	if (c->add_here && s->to > s->from) {
		u32 n = (u32)(s->to - s->from);

		pthread_mutex_lock(&c->add_lock);
		s->new_keys = n - (u32)bloom_core_add_batch(c->f,
							    c->hashes + s->from,
							    n, NULL);
		pthread_mutex_unlock(&c->add_lock);
	}
	return NULL;
}

/* Hashes (and maybe adds) the chunk on @nthreads threads. */
static void run_chunk(struct chunk *c, unsigned int nthreads)
{
	pthread_t tid[MAX_THREADS];
	struct slice sl[MAX_THREADS];
	unsigned int t, started = 0;
	size_t per = (c->n + nthreads - 1) / nthreads;

	for (t = 0; t < nthreads; t++) {
		sl[t].c = c;
		sl[t].from = t * per < c->n ? t * per : c->n;
		sl[t].to = (t + 1) * per < c->n ? (t + 1) * per : c->n;
	}
	/* thread 0's slice runs here */
	for (t = 1; t < nthreads; t++) {
		if (pthread_create(&tid[t], NULL, hash_slice, &sl[t]))
			break;
		started = t;
	}
	hash_slice(&sl[0]);
	/* slices whose thread could not start run here too */
	for (t = started + 1; t < nthreads; t++)
		hash_slice(&sl[t]);
	for (t = 1; t <= started; t++)
		pthread_join(tid[t], NULL);
	for (t = 0; t < nthreads; t++)
		c->new_keys += sl[t].new_keys;
}

/* What the command line asks for. */
struct build_args {
	enum bloom_type type;
	const char *name, *keys, *out;
	struct size_args sz;	/* any two of capacity, fpp, bpk, memory */
	struct scale_args sc;	/* --scalable, --growth, --tightening */
	uint64_t capacity;	/* what the sizing gave */
	double fpp;
	u8 key[BLOOM_HASH_KEY_LEN];
	enum bloom_hash hash;	/* --hash; SipHash-1-3 as create's */
	int have_key, family, skip_empty, verbose;
	unsigned int feed_flags;	/* FEED_F_SHORT: --allow-short-prefixes */
	long nthreads;
	/* --ipv4/--ipv6: the kind and the netblock lengths, as add counts */
	struct bloom_netblocks nb;
	/*
	 * --prefix-lengths, --prefix-feed: the lengths netblocks are stored
	 * at (a plan), as create gives them; each entry of the feed is then
	 * the keys of its expansion, as add stores it: the pending ones in
	 * @xkeys (@xn of @xlen bytes, the next at @xi)
	 */
	struct prefix_args pa;
	struct prefix_report pr;
	int planned;
	uint8_t *xkeys;
	/* --ipv4/--ipv6 --skip-invalid: the bad lines skipped */
	struct feed_bad_lines bad;
	uint64_t lines;
	/* a range line (A-B, tor-geoipdb's) being stored as its netblocks */
	struct feed_range range;
	int in_range;
	long xn, xi;
	int xlen;
};

/* The options and the FILE; 1 if --help was asked (and printed). */
static int build_parse_args(int argc, char **argv, struct build_args *a)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "type", required_argument, NULL, 't' },
		{ "capacity", required_argument, NULL, 'c' },
		{ "fpp", required_argument, NULL, 'p' },
		{ "bits-per-key", required_argument, NULL, 'b' },
		{ "memory", required_argument, NULL, 'M' },
		{ "hashes", required_argument, NULL, 'k' },
		{ "scalable", no_argument, NULL, 'S' },
		{ "growth", required_argument, NULL, 'g' },
		{ "tightening", required_argument, NULL, 'r' },
		{ "file", required_argument, NULL, 'f' },
		{ "hash-key", required_argument, NULL, 'K' },
		{ "hash-key-file", required_argument, NULL, 'F' },
		{ "hash", required_argument, NULL, 'H' },
		{ "threads", required_argument, NULL, 'T' },
		{ "ipv4", no_argument, NULL, '4' },
		{ "ipv6", no_argument, NULL, '6' },
		{ "skip-empty", no_argument, NULL, 'e' },
		{ "allow-short-prefixes", no_argument, NULL, 'P' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		PREFIX_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c, err;

	memset(a, 0, sizeof(*a));
	a->type = BLOOM_TYPE_STANDARD;
	a->hash = BLOOM_HASH_SIPHASH_1_3;
	a->sz.o.sz = sizeof(a->sz.o);
	a->nthreads = sysconf(_SC_NPROCESSORS_ONLN);
	while ((c = getopt_long(argc, argv, ":n:t:c:p:f:vh", opts, NULL)) != -1) {
		if (size_opt("build", c, optarg, &a->sz) ||
		    scale_opt("build", c, optarg, &a->sc) ||
		    prefix_opt("build", c, optarg, &a->pa))
			continue;
		switch (c) {
		case 'n':
			a->name = optarg;
			break;
		case 't':
			a->type = type_opt("build", optarg);
			break;
		case 'f':
			a->keys = optarg;
			break;
		case 'K':
			if (parse_hex_key(optarg, a->key))
				die_usage("build", "bad hash key '%s': give %d hexadecimal digits (128 bits)",
					  optarg, 2 * BLOOM_HASH_KEY_LEN);
			a->have_key = 1;
			break;
		case 'F':
			err = read_hash_key_file(optarg, a->key);
			if (err == -EINVAL)
				die_usage("build", "hash key file '%s' holds neither 32 hexadecimal digits nor 16 bytes",
					  optarg);
			if (err)
				die("cannot read hash key file '%s': %s",
				    optarg, strerror(-err));
			a->have_key = 1;
			break;
		case 'H':
			a->hash = hash_opt("build", optarg);
			break;
		case 'T':
			if (parse_count(optarg, &v) || !v || v > MAX_THREADS)
				die_usage("build", "bad thread count '%s': give 1 to %d",
					  optarg, MAX_THREADS);
			a->nthreads = (long)v;
			break;
		case '4':
		case '6':
			if (a->family)
				die_usage("build", "give --ipv4 or --ipv6, not both");
			a->family = c == '4' ? AF_INET : AF_INET6;
			/* the filter's key kind, as the first add sets it */
			a->nb.kind = c == '4' ? BLOOM_CORE_KIND_IPV4 :
						BLOOM_CORE_KIND_IPV6;
			break;
		case 'e':
			a->skip_empty = 1;
			break;
		case 'P':
			a->feed_flags |= FEED_F_SHORT;
			break;
		case 'v':
			a->verbose = 1;
			break;
		case 'h':
			print_help(stdout, "build");
			return 1;
		default:
			die_getopt("build", c, argv);
		}
	}
	if (optind >= argc)
		die_usage("build", "build needs an output FILE ('-': standard output)");
	if (optind + 1 < argc)
		die_usage("build", "unexpected argument '%s'", argv[optind + 1]);
	a->out = argv[optind];
	if (!a->name)
		die_usage("build", "build needs --name NAME (the name the filter gets when restored)");
	check_name("build", a->name);
	if (a->feed_flags && !a->family)
		die_usage("build", "--allow-short-prefixes goes with --ipv4 or --ipv6");
	if ((a->pa.lengths || a->pa.feed || a->pa.lookups) && !a->family)
		die_usage("build", "netblock lengths are of one family: give --ipv4 or --ipv6");
	if (!a->keys)
		die_usage("build", "build needs -f KEYS, a file of keys, one per line ('-': standard input)");
	/* what create refuses of --scalable, refused alike */
	scale_check("build", &a->sc, &a->sz, a->type, 0);
	if (a->sc.scalable && a->type == BLOOM_TYPE_TIMED)
		die_usage("build", "a timed filter that grows is built by the module: bloomctl create it with --key-timeouts --scalable and add the keys");
	if (a->nthreads < 1)
		a->nthreads = 1;
	if (a->nthreads > MAX_THREADS)
		a->nthreads = MAX_THREADS;
	return 0;
}

/*
 * The next stage of the chain, zeroed, published: 0, or -ENOSPC when the
 * chain has its last possible stage (the module's ENOSPC).
 */
static int build_grow(struct chunk *ch)
{
	u32 i = bloom_scale_stages(ch->f);
	struct bloom_geometry geo;
	u64 bytes;

	if (bloom_scale_next_geometry(ch->f, &geo))
		return -ENOSPC;
	bytes = bloom_core_storage_bytes(&geo);
	ch->chain->mem[i] = aligned_alloc(BLOOM_CORE_ALIGN, bytes);
	if (!ch->chain->mem[i])
		die("out of memory: stage %u of the scalable filter needs %" PRIu64 " bytes",
		    i, bytes);
	memset(ch->chain->mem[i], 0, bytes);
	bloom_scale_publish(ch->f, &ch->chain->c.stage[i], &geo,
			    ch->chain->mem[i]);
	return 0;
}

/*
 * --scalable: the chain create --scalable makes (its parameters checked
 * with the module's bloom_scale_check()), with its first stage. Adds run
 * on one thread in file order, as the module's stages fill in the order
 * keys come.
 */
static void build_make_chain(struct build_args *a, struct bloom_core *f,
			     const bloom_hash_key_t *hk, struct chunk *ch)
{
	struct bloom_scale_params p = {
		.type = a->type, .capacity = a->sz.o.capacity,
		.fpp_ppb = a->sz.ppb,
		.growth = scale_growth(&a->sc, a->type),
		.tightening_ppm = a->sc.tightening != 0 ?
			(u32)lround(a->sc.tightening * 1e6) :
			BLOOM_TIGHTENING_PPM_DEFAULT,
	};

	if (bloom_scale_check(&p))
		die_usage("build", "these numbers do not make a scalable %s filter ('bloomctl calc --scalable' with them says why)",
			  type_name(a->type));
	ch->chain = calloc(1, sizeof(*ch->chain));
	if (!ch->chain)
		die("out of memory");
	bloom_scale_init(f, &ch->chain->c.scale, &p, hk);
	ch->f = f;
	ch->add_here = 0;
	if (build_grow(ch))
		die("cannot make the first stage of a scalable %s filter",
		    type_name(a->type));
}

/*
 * --prefix-lengths or --prefix-feed, as create takes them: the plan in the
 * filter's netblocks (the snapshot keeps it, restore gives it the
 * filter), and a feed without --capacity gives the capacity, the keys it
 * stores.
 */
static void build_plan(struct build_args *a)
{
	u32 fam = a->family == AF_INET ? BLOOM_NB_IPV4 : BLOOM_NB_IPV6;
	unsigned long bits[128 / BITS_PER_LONG] = { 0 };
	__u64 l6[2] = { 0, 0 };
	__u32 l4 = 0;
	unsigned int i;

	if (!a->family || !prefix_plan("build", &a->pa, a->family,
				       a->sz.o.fpp, &a->pr))
		return;
	bloom_plan_bits(&a->pr.plan, a->family, &l4, l6);
	for (i = 0; i < 128; i++)
		if (fam == BLOOM_NB_IPV4 ? i < 32 && (l4 >> i & 1) :
		    l6[i / 64] >> (i % 64) & 1)
			bits[i / BITS_PER_LONG] |= 1UL << (i % BITS_PER_LONG);
	if (bloom_nb_set_plan(&a->nb, fam, bits))
		die_usage("build", "these netblock lengths cannot be a filter's");
	a->planned = 1;
	a->xkeys = malloc(((size_t)1 << BLOOM_PLAN_SHIFT_MAX) * FEED_KEY_MAX);
	if (!a->xkeys)
		die("out of memory");
	if (a->pr.have_feed && !a->sz.o.capacity && size_given(&a->sz) < 2) {
		a->sz.o.capacity = a->pr.stored ? a->pr.stored : 1;
		fprintf(stderr, "bloomctl: note: %s: capacity %" PRIu64 ", the keys %s stores under these lengths (%" PRIu64 " netblocks given)\n",
			a->name, a->sz.o.capacity, a->pa.feed, a->pr.given);
	}
}

/*
 * Sizes the filter as the module would for create with the same options
 * (any two of --capacity, --fpp, --bits-per-key and --memory: the core's
 * bloom_core_size(), which BLOOM_CREATE_F_SIZE runs), zeroes its storage
 * (@storage, @bytes) under the hash key given or a random one, and
 * allocates the chunk buffers.
 */
static void build_make_filter(struct build_args *a, struct bloom_core *f,
			      void **storage, u64 *bytes, struct chunk *ch)
{
	struct bloom_size_result r = { .sz = sizeof(r) };
	struct bloom_core_size_req req;
	struct bloom_geometry geo;
	bloom_hash_key_t hk;
	int err;

	build_plan(a);
	/* the numbers refused with the words create and calc use */
	size_or_die("build", &a->sz, a->type, &r);
	req = (struct bloom_core_size_req) {
		.type = a->type, .hashes = a->sz.o.hashes,
		.capacity = a->sz.o.capacity,
		.fpp_ppb = a->sz.o.fpp != 0 ? a->sz.ppb : 0,
		.bpk_milli = (u32)lround(a->sz.o.bits_per_key * 1000),
		.memory_bytes = a->sz.o.memory,
	};
	err = bloom_core_size(&req, &geo);
	if (err)
		die("cannot size a %s filter from these numbers: %s",
		    type_name(a->type), strerror(-err));
	a->capacity = geo.capacity;
	a->fpp = geo.fpp_ppb / 1e9;
	if (sodium_init() < 0)
		die("libsodium failed to initialise");
	if (!a->have_key)
		randombytes_buf(a->key, sizeof(a->key));
	bloom_hash_key_init(&hk, a->key, a->hash);
	sodium_memzero(a->key, sizeof(a->key));
	ch->bytes = malloc(CHUNK_BYTES + BLOOM_KEY_MAX);
	ch->off = malloc((CHUNK_KEYS + 1) * sizeof(*ch->off));
	ch->hashes = malloc(CHUNK_KEYS * sizeof(*ch->hashes));
	ch->lines = malloc(CHUNK_KEYS * sizeof(*ch->lines));
	if (!ch->bytes || !ch->off || !ch->hashes || !ch->lines)
		die("out of memory");
	if (a->sc.scalable) {
		build_make_chain(a, f, &hk, ch);
		sodium_memzero(&hk, sizeof(hk));
		*storage = NULL;
		*bytes = 0;
		return;
	}
	*bytes = bloom_core_storage_bytes(&geo);
	*storage = aligned_alloc(BLOOM_CORE_ALIGN, *bytes);
	if (!*storage)
		die("out of memory: the %s filter needs %" PRIu64 " bytes",
		    type_name(a->type), *bytes);
	memset(*storage, 0, *bytes);
	bloom_core_init(f, &geo, &hk, *storage);
	sodium_memzero(&hk, sizeof(hk));
	ch->f = f;
	ch->add_here = a->type == BLOOM_TYPE_STANDARD ||
		       a->type == BLOOM_TYPE_BLOCKED;
}

/*
 * An address or netblock key of @n bytes, counted as add counts it (its
 * length), copied to @addr and given as the next key (@k, @klen).
 */
static void build_key_of(struct build_args *a, const uint8_t *key, int n,
			 uint8_t addr[FEED_KEY_MAX], const void **k,
			 size_t *klen)
{
	if (key != addr)
		memcpy(addr, key, n);
	bloom_nb_account(&a->nb, a->family == AF_INET ? BLOOM_NB_IPV4 :
			 BLOOM_NB_IPV6,
			 n == 4 ? 32 : n == 16 ? 128 : addr[n - 1], 1);
	*k = addr;
	*klen = n;
}

/*
 * The next key of the file into @k, @klen (an address or netblock: its
 * key in @addr; under a plan, each key of its expansion in turn): 1, or
 * 0 at the end of the file. Exits on a line that is
 * not a key, unless it is empty and --skip-empty was given (a feed of
 * addresses skips blank and comment lines, as add reads it).
 */
/*
 * An entry of the feed (@n bytes at @addr): the key itself (1, in *@k), or
 * under a plan the keys of its expansion, taken from the queue next (0).
 */
static int build_entry(struct build_args *a, const struct line_reader *lr,
		       uint8_t addr[FEED_KEY_MAX], int n, const void **k,
		       size_t *klen)
{
	if (!a->planned) {
		build_key_of(a, addr, n, addr, k, klen);
		return 1;
	}
	a->xn = bloom_plan_expand(&a->pr.plan, a->family, addr, n, a->xkeys,
				  (size_t)1 << BLOOM_PLAN_SHIFT_MAX, &a->xlen);
	a->xi = 0;
	if (a->xn < 0)
		die("%s: the netblock would be more than 2^%d keys at these netblock lengths; nothing was written",
		    file_line(lr->path, lr->lineno), BLOOM_PLAN_SHIFT_MAX);
	return 0;
}

static int build_next_key(struct build_args *a, struct line_reader *lr,
			  uint8_t addr[FEED_KEY_MAX], const void **k,
			  size_t *klen)
{
	char *line;
	long len;

	for (;;) {
		enum feed_result ret;
		const char *why = NULL;
		int n;

		if (a->xi < a->xn) {
			/* the next key of an entry's expansion */
			build_key_of(a, a->xkeys + a->xi++ * a->xlen, a->xlen,
				     addr, k, klen);
			return 1;
		}
		/* the next netblock of a range */
		if (a->in_range) {
			n = feed_range_next(&a->range, addr);
			if (n) {
				if (build_entry(a, lr, addr, n, k, klen))
					return 1;
				continue;
			}
			a->in_range = 0;
		}
		len = lr_next(lr, &line);
		if (len == LR_ERROR)
			die("cannot read '%s': %s", lr->path, strerror(errno));
		if (len == LR_TOO_LONG)
			die("%s: key longer than %d bytes; nothing was written",
			    file_line(lr->path, lr->lineno), BLOOM_KEY_MAX);
		if (len == LR_END)
			return 0;
		if (a->family) {
			/* a feed, as add --ipv4/--ipv6 reads it */
			a->lines++;
			ret = feed_parse_range(line, len, a->family,
					       a->feed_flags, a->pa.country,
					       &a->range, &why);
			if (ret == FEED_KEY) {
				a->in_range = 1;
				continue;
			}
			if (ret == FEED_NOT_RANGE)
				ret = feed_parse_line(line, len, a->family,
						      a->feed_flags, addr, &n,
						      &why);
			switch (ret) {
			case FEED_SKIP:
			case FEED_NOT_RANGE:
				continue;
			case FEED_BAD:
				if (!a->pa.skip_invalid)
					die("%s: %s; nothing was written (--skip-invalid skips the bad lines, naming them)",
					    file_line(lr->path, lr->lineno),
					    why);
				feed_bad_note(&a->bad, lr->path, lr->lineno,
					      why);
				continue;
			case FEED_KEY:
				break;
			}
			if (build_entry(a, lr, addr, n, k, klen))
				return 1;
			continue;
		}
		if (len == 0) {
			if (!a->skip_empty)
				die("%s: empty line: keys are 1 to %d bytes (--skip-empty skips empty lines); nothing was written",
				    file_line(lr->path, lr->lineno), BLOOM_KEY_MAX);
			continue;
		}
		if (len > BLOOM_KEY_MAX)
			die("%s: key longer than %d bytes; nothing was written",
			    file_line(lr->path, lr->lineno), BLOOM_KEY_MAX);
		*k = line;
		*klen = len;
		return 1;
	}
}

/* Hashes and adds the chunk's @used bytes of keys; counts them in @st. */
static void build_add_chunk(struct chunk *ch, size_t used,
			    unsigned int nthreads, struct bloom_image_stats *st)
{
	ch->off[ch->n] = used;
	run_chunk(ch, nthreads);
	if (!ch->add_here) {
		u32 from = 0, done, hits = 0;

		for (;;) {
			hits += bloom_core_add_batch_done(ch->f,
							  ch->hashes + from,
							  (u32)ch->n - from,
							  NULL, &done);
			from += done;
			if (from == ch->n)
				break;
			/* a scalable filter's newest stage is full: grow */
			if (ch->chain && !build_grow(ch))
				continue;
			if (ch->chain)
				die("%s: the scalable filter cannot grow: it has its last possible stage (%u), after the %" PRIu64 " key%s before it; build with a larger --capacity or --growth; nothing was written",
				    file_line(ch->path, ch->lines[from]),
				    bloom_scale_stages(ch->f), st->adds + from,
				    st->adds + from == 1 ? "" : "s");
			die("%s: the dleft filter is full: this key found every bucket it may use full, after the %" PRIu64 " key%s before it; build with a larger --capacity; nothing was written",
			    file_line(ch->path, ch->lines[from]),
			    st->adds + from, st->adds + from == 1 ? "" : "s");
		}
		ch->new_keys += ch->n - hits;
	}
	st->adds += ch->n;
	st->count += ch->new_keys;
	ch->new_keys = 0;
	ch->n = 0;
}

/* Every key of the key file into the filter, a chunk at a time. */
static void build_add_keys(struct build_args *a, struct chunk *ch,
			   struct bloom_image_stats *st)
{
	struct line_reader lr;
	size_t used = 0;
	int err;

	err = lr_open(&lr, a->keys);
	if (err)
		die("cannot open key file '%s': %s", a->keys, strerror(-err));
	ch->path = lr.path;
	for (;;) {
		uint8_t addr[FEED_KEY_MAX];
		const void *k = NULL;
		size_t klen = 0;
		int eof = !build_next_key(a, &lr, addr, &k, &klen);

		if (eof || ch->n == CHUNK_KEYS || used + klen > CHUNK_BYTES) {
			build_add_chunk(ch, used, (unsigned int)a->nthreads, st);
			used = 0;
		}
		if (eof)
			break;
		ch->lines[ch->n] = lr.lineno;
		ch->off[ch->n++] = used;
		memcpy(ch->bytes + used, k, klen);
		used += klen;
	}
	feed_bad_verdict(&a->bad, a->keys, a->lines, 1, NULL, NULL,
			 "writing the good entries");
	lr_close(&lr);
}

/* The snapshot of the filter to the output FILE. */
static void build_write(const struct build_args *a, const struct bloom_core *f,
			const struct bloom_image_stats *st, const void *storage,
			u64 bytes)
{
	u8 hdr[BLOOM_IMAGE_HEADER_MAX];
	struct bloom_image_header h;
	int err;

	/* bloom_image_header_make(), with the key kind and netblocks */
	bloom_image_header_init(&h, f);
	snprintf(h.name, sizeof(h.name), "%s", a->name);
	h.stats = *st;
	bloom_image_header_netblocks(&h, &a->nb);
	h.payload_hash = bloom_image_payload_hash(f);
	bloom_image_header_write(hdr, &h, f);
	err = snap_write(a->out, hdr, h.header_size, storage, bytes);
	if (err)
		die("cannot write snapshot '%s': %s", a->out, strerror(-err));
}

/*
 * A scalable filter's payload: a copy of its stages' storage, oldest
 * first, which the stages leave as they are (the header hashes them).
 */
static void *chain_payload(const struct chunk *ch, u64 *bytes)
{
	u32 n = bloom_scale_stages(ch->f), i;
	u64 off = 0;
	u8 *buf;

	*bytes = 0;
	for (i = 0; i < n; i++)
		*bytes += bloom_core_storage_bytes(&ch->chain->c.stage[i].core.geo);
	buf = malloc(*bytes);
	if (!buf)
		die("out of memory: the snapshot's payload needs %" PRIu64 " bytes",
		    *bytes);
	for (i = 0; i < n; i++) {
		u64 b = bloom_core_storage_bytes(&ch->chain->c.stage[i].core.geo);

		memcpy(buf + off, ch->chain->mem[i], b);
		off += b;
	}
	return buf;
}

static void chain_free(struct chunk *ch)
{
	u32 n = bloom_scale_stages(ch->f), i;

	for (i = 0; i < n; i++) {
		sodium_memzero(ch->chain->mem[i],
			       bloom_core_storage_bytes(&ch->chain->c.stage[i].core.geo));
		free(ch->chain->mem[i]);
	}
	free(ch->chain);
	ch->chain = NULL;
}

int cmd_build(const char *dev, int argc, char **argv)
{
	struct build_args a;
	struct bloom_image_stats st = { 0 };
	struct bloom_core f;
	struct chunk ch = { .add_lock = PTHREAD_MUTEX_INITIALIZER };
	void *storage;
	u64 bytes;
	double t0;

	(void)dev;
	if (build_parse_args(argc, argv, &a))
		return EXIT_OK;
	build_make_filter(&a, &f, &storage, &bytes, &ch);
	t0 = now_seconds();
	build_add_keys(&a, &ch, &st);
	if (ch.chain)
		storage = chain_payload(&ch, &bytes);
	build_write(&a, &f, &st, storage, bytes);
	if (ch.chain)
		chain_free(&ch);
	/* as add warns: the snapshot is written, the exit status stays 0 */
	if (!a.sc.scalable && st.count > a.capacity)
		fprintf(stderr, "bloomctl: warning: %s holds more keys than its capacity of %" PRIu64 " (%" PRIu64 " keys added, %" PRIu64 " of them set a new %s): its false-positive rate is above the %.3g it was built for; build with a larger --capacity\n",
			a.name, a.capacity, st.adds, st.count,
			a.type == BLOOM_TYPE_DLEFT ? "cell" :
			a.type == BLOOM_TYPE_COUNTING ? "counter" : "bit",
			a.fpp);
	if (a.verbose) {
		double secs = now_seconds() - t0;

		fprintf(stderr, "%s: %" PRIu64 " keys (%" PRIu64 " new) into a %s filter of %" PRIu64 " bytes in %.3f s (%.0f keys/s, %ld threads)\n",
			a.name, st.adds, st.count, type_name(a.type), bytes,
			secs, secs > 0 ? st.adds / secs : 0.0, a.nthreads);
	}
	sodium_memzero(storage, bytes);
	free(storage);
	free(ch.bytes);
	free(ch.off);
	free(ch.hashes);
	free(ch.lines);
	free(a.xkeys);
	return EXIT_OK;
}
