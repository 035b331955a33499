// SPDX-License-Identifier: GPL-2.0
/*
 * The verbs on whole filters: save, restore (one file or a directory),
 * merge and flush. Snapshot files are checked here with the kernel's own
 * parser before they are sent, so a bad file gets a precise reason.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bloomctl.h"
#include "snapfile.h"

#define SNAP_SUFFIX	".bloom"

/*
 * Parses the options the verbs here take: --all, --name, --replace and
 * save's --prune.
 */
struct snap_opts {
	int all;
	int replace;
	int prune;
	const char *name;
};

/* The options a verb of this file takes (parse_snap_opts()'s @takes). */
enum {
	SNAP_ALL = 1 << 0,
	SNAP_NAME = 1 << 1,
	SNAP_REPLACE = 1 << 2,
	SNAP_PRUNE = 1 << 3,
};

static int parse_snap_opts(const char *verb, int argc, char **argv,
			   struct snap_opts *o, unsigned int takes)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "name", required_argument, NULL, 'n' },
		{ "replace", no_argument, NULL, 'r' },
		{ "prune", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct { int c; unsigned int bit; const char *name; }
	option_bit[] = {
		{ 'a', SNAP_ALL, "--all" }, { 'n', SNAP_NAME, "--name" },
		{ 'r', SNAP_REPLACE, "--replace" }, { 'P', SNAP_PRUNE, "--prune" },
	};
	size_t i;
	int c;

	memset(o, 0, sizeof(*o));
	while ((c = getopt_long(argc, argv, ":an:h", opts, NULL)) != -1) {
		for (i = 0; i < sizeof(option_bit) / sizeof(option_bit[0]); i++)
			if (c == option_bit[i].c && !(takes & option_bit[i].bit))
				die_usage(verb, "%s takes no %s", verb,
					  option_bit[i].name);
		switch (c) {
		case 'a':
			o->all = 1;
			break;
		case 'n':
			o->name = optarg;
			break;
		case 'r':
			o->replace = 1;
			break;
		case 'P':
			o->prune = 1;
			break;
		case 'h':
			print_help(stdout, verb);
			exit(EXIT_OK);
		default:
			die_getopt(verb, c, argv);
		}
	}
	return optind;
}

/* "DIR/NAME.bloom" */
static void snap_path(char *buf, size_t len, const char *dir, const char *name)
{
	if ((size_t)snprintf(buf, len, "%s/%s" SNAP_SUFFIX, dir, name) >= len)
		die("path too long: %s/%s" SNAP_SUFFIX, dir, name);
}

static int save_one(int fd, const char *name, const char *path)
{
	void *buf;
	size_t len;
	int err;

	err = bloom_save_alloc(fd, name, &buf, &len);
	if (err) {
		char msg[512];

		fprintf(stderr, "bloomctl: %s\n",
			op_message(msg, sizeof(msg), BLOOM_OP_SAVE, name, err));
		return -1;
	}
	/* the header is the first part; snap_write takes two pieces */
	err = snap_write(path, buf, BLOOM_IMAGE_HEADER_SIZE,
			 (char *)buf + BLOOM_IMAGE_HEADER_SIZE,
			 len - BLOOM_IMAGE_HEADER_SIZE);
	memset(buf, 0, len);	/* it holds the hash key */
	free(buf);
	if (err) {
		fprintf(stderr, "bloomctl: cannot write snapshot of %s to '%s': %s\n",
			name, path, strerror(-err));
		return -1;
	}
	return 0;
}

static int has_suffix(const char *s)
{
	size_t n = strlen(s), k = strlen(SNAP_SUFFIX);

	return n > k && !strcmp(s + n - k, SNAP_SUFFIX);
}

/*
 * save --all --prune: removes DIR/X.bloom when X is no filter (of this
 * network namespace) any more, so that a destroyed filter does not come
 * back at the next restore --all. Only a regular file that is a valid
 * snapshot of a filter named X goes; anything else in DIR stays.
 */
static void prune(int fd, const char *dir)
{
	char path[PATH_MAX], name[BLOOM_NAME_LEN];
	struct bloom_image_header h;
	struct bloom_info in;
	struct snap_file sf;
	const char *why;
	struct dirent *e;
	size_t len;
	int ours;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!has_suffix(e->d_name))
			continue;
		len = strlen(e->d_name) - strlen(SNAP_SUFFIX);
		if (len >= sizeof(name) ||
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir,
				     e->d_name) >= sizeof(path))
			continue;
		memcpy(name, e->d_name, len);
		name[len] = '\0';
		if (snap_read(path, SNAP_REGULAR, &sf, &why))
			continue;
		ours = !snap_check(&sf, &h, &why) && !strcmp(h.name, name);
		snap_free(&sf);
		/* asked now, not from the list: a filter made meanwhile stays */
		if (!ours || bloom_info(fd, name, &in) != -ENOENT)
			continue;
		if (unlink(path))
			fprintf(stderr, "bloomctl: cannot remove '%s': %s\n",
				path, strerror(errno));
		else
			printf("removed '%s': filter %s no longer exists\n",
			       path, name);
	}
	closedir(d);
}

int cmd_save(const char *dev, int argc, char **argv)
{
	char (*names)[BLOOM_NAME_LEN];
	char path[PATH_MAX];
	struct snap_opts o;
	size_t n, i;
	int ind, fd, err, failed = 0;

	ind = parse_snap_opts("save", argc, argv, &o, SNAP_ALL | SNAP_PRUNE);
	if (o.prune && !o.all)
		die_usage("save", "--prune goes with --all DIR");
	if (o.all) {
		if (argc - ind != 1)
			die_usage("save", "save --all takes one directory");
		if (mkdir(argv[ind], 0700) && errno != EEXIST)
			die("cannot create directory '%s': %s", argv[ind],
			    strerror(errno));
		fd = open_device(dev);
		err = bloom_list(fd, &names, &n);
		if (err)
			die_op(BLOOM_OP_LIST, NULL, err);
		for (i = 0; i < n; i++) {
			snap_path(path, sizeof(path), argv[ind], names[i]);
			failed |= save_one(fd, names[i], path);
		}
		/* only when every save worked: never lose a file for nothing */
		if (o.prune && !failed)
			prune(fd, argv[ind]);
		free(names);
		bloom_close(fd);
		return failed ? EXIT_FAIL : EXIT_OK;
	}
	if (argc - ind != 2)
		die_usage("save", "save needs a filter NAME and a FILE ('-': standard output)");
	check_name("save", argv[ind]);
	if (!strcmp(argv[ind + 1], "-") && isatty(STDOUT_FILENO))
		die_usage("save", "will not write a snapshot to a terminal: redirect standard output");
	fd = open_device(dev);
	failed = save_one(fd, argv[ind], argv[ind + 1]);
	bloom_close(fd);
	return failed ? EXIT_FAIL : EXIT_OK;
}

/*
 * What two filters (or a filter and a snapshot) are, as far as merge and
 * restore --replace care: the fields INFO and a snapshot header both give.
 */
struct shape {
	const char *name;
	uint32_t type;
	int scalable;
	uint32_t keys;		/* enum bloom_key_kind */
	uint64_t bits;
	uint32_t hashes;
	uint32_t hash;		/* enum bloom_hash */
	/* scalable: what the stages follow */
	uint64_t capacity;
	uint32_t fpp_ppb, growth, tightening_ppm;
};

static void shape_of_info(const struct bloom_info *in, struct shape *s)
{
	*s = (struct shape) { .name = in->name, .type = in->type,
			      .scalable = in->stages != 0, .keys = in->keys,
			      .bits = in->bits, .hashes = in->hashes,
			      .hash = in->hash, .capacity = in->capacity, .fpp_ppb = in->fpp_ppb,
			      .growth = in->growth,
			      .tightening_ppm = in->tightening_ppm };
}

/* Two scalable filters' stages line up: the same parameters. */
static int same_stages(const struct shape *a, const struct shape *b)
{
	return a->capacity == b->capacity && a->fpp_ppb == b->fpp_ppb &&
	       a->growth == b->growth && a->tightening_ppm == b->tightening_ppm;
}

static const char *keys_words(uint32_t kind)
{
	switch (kind) {
	case BLOOM_KEYS_STRINGS:
		return "strings";
	case BLOOM_KEYS_IPV4:
		return "IPv4 addresses";
	case BLOOM_KEYS_IPV6:
		return "IPv6 addresses";
	}
	return "keys of no kind yet";
}

/*
 * Appends to @buf ("; " between parts) what differs between @a and @b:
 * type, scalable or not, key kind (two known kinds) and, with @geometry,
 * bits and hashes (two scalable filters: the parameters their stages
 * follow) and the keyed hash. Returns how many of them differ.
 */
static int shape_differences(char *buf, size_t len, const struct shape *a,
			     const struct shape *b, int geometry)
{
	size_t o = strlen(buf);
	int n = 0;

#define PART(...)							\
	do {								\
		if (o < len)						\
			o += snprintf(buf + o, len - o, "%s", n++ ? "; " : ""); \
		if (o < len)						\
			o += snprintf(buf + o, len - o, __VA_ARGS__);	\
	} while (0)
	if (a->type != b->type)
		PART("their types differ: %s is %s, %s %s", a->name,
		     type_name(a->type), b->name, type_name(b->type));
	if (a->scalable != b->scalable)
		PART("%s is scalable and %s is not",
		     a->scalable ? a->name : b->name,
		     a->scalable ? b->name : a->name);
	if (a->keys && b->keys && a->keys != b->keys)
		PART("their key kinds differ: %s holds %s, %s %s", a->name,
		     keys_words(a->keys), b->name, keys_words(b->keys));
	/* scalable: the stages line up, however many each has */
	if (geometry && a->type == b->type && a->scalable && b->scalable &&
	    !same_stages(a, b))
		PART("their stages differ: %s grows from %" PRIu64 " keys at %.9g by %u (tightening %.6g), %s from %" PRIu64 " keys at %.9g by %u (tightening %.6g)",
		     a->name, a->capacity, a->fpp_ppb / 1e9, a->growth,
		     a->tightening_ppm / 1e6, b->name, b->capacity,
		     b->fpp_ppb / 1e9, b->growth, b->tightening_ppm / 1e6);
	if (geometry && a->type == b->type && !a->scalable && !b->scalable &&
	    (a->bits != b->bits || a->hashes != b->hashes))
		PART("their geometries differ: %s has %" PRIu64 " bits and %u hashes, %s %" PRIu64 " bits and %u hashes",
		     a->name, a->bits, a->hashes, b->name, b->bits, b->hashes);
	if (geometry && a->hash != b->hash)
		PART("their hashes differ: %s hashes keys with %s, %s with %s, so the same key sets other bits in each",
		     a->name, hash_name(a->hash), b->name, hash_name(b->hash));
#undef PART
	return n;
}

/* For messages: the file, or "standard input". */
static const char *file_name(const char *path)
{
	return strcmp(path, "-") ? path : "standard input";
}

/*
 * restore --replace refused: says which of type, scalable or not and key
 * kind differs between the snapshot (its header @h) and filter @name; 1
 * when it said so, 0 when they are alike in all three.
 */
static int replace_refused(int fd, const char *path, const char *name,
			   const struct bloom_image_header *h)
{
	char why[1024] = "", snap[PATH_MAX + 32];
	struct bloom_info in;
	struct shape a, b;

	if (bloom_info(fd, name, &in))
		return 0;
	shape_of_info(&in, &a);
	snprintf(snap, sizeof(snap), "the snapshot %s", file_name(path));
	b = (struct shape) { .name = snap, .type = h->geo.type,
			     .scalable = h->nstages != 0,
			     .keys = h->key_kind };
	if (!shape_differences(why, sizeof(why), &a, &b, 0))
		return 0;
	fprintf(stderr, "bloomctl: %s cannot replace the contents of filter %s: %s; destroy the filter first, or restore under another name (--name)\n",
		file_name(path), name, why);
	return 1;
}

/*
 * Checks and restores one file; 0, or -1 after printing why. The file is
 * read and checked before *@fd, the device, is opened (if it is not yet),
 * so a bad file is refused even without the module. With @from_dir (restore
 * --all) anything but a regular file is skipped, and a filter that exists
 * already is kept and that is no failure (restore --all run again, e.g. by
 * a restarted bloom-persistent.service).
 */
static int restore_one(const char *dev, int *fd, const char *path,
		       const char *name, int from_dir, int replace)
{
	struct bloom_image_header h;
	struct snap_file sf;
	const char *why;
	char msg[512];
	int err;

	err = snap_read(path, from_dir ? SNAP_REGULAR : 0, &sf, &why);
	if (err == SNAP_SKIPPED) {
		fprintf(stderr, "bloomctl: '%s' is %s, not a regular file: skipped; remove it or rename it so that it does not end in " SNAP_SUFFIX "\n",
			path, why);
		return 0;
	}
	if (err && !why) {
		fprintf(stderr, "bloomctl: cannot read '%s': %s\n", path,
			strerror(-err));
		return -1;
	}
	if (!err)
		err = snap_check(&sf, &h, &why);
	if (err) {
		fprintf(stderr, "bloomctl: %s: %s; nothing was restored\n",
			file_name(path), why);
		snap_free(&sf);
		return -1;
	}
	if (!name && bloom_name_check(h.name)) {
		fprintf(stderr, "bloomctl: %s: the snapshot's filter name is not valid here: give one with --name NEW; nothing was restored\n",
			file_name(path));
		snap_free(&sf);
		return -1;
	}
	if (*fd < 0)
		*fd = open_device(dev);
	/* --replace: the filter of that name if it exists, else a new one */
	err = -ENOENT;
	if (replace)
		err = bloom_restore(*fd, sf.buf, sf.len, name,
				    BLOOM_RESTORE_F_REPLACE);
	if (err == -ENOENT)
		err = bloom_restore(*fd, sf.buf, sf.len, name, 0);
	snap_free(&sf);
	if (err == -EEXIST && from_dir) {
		fprintf(stderr, "bloomctl: filter %s exists already: kept as it is, '%s' not restored\n",
			h.name, path);
		return 0;
	}
	if (err && replace && (err == -EINVAL || err == -EPROTOTYPE) &&
	    replace_refused(*fd, path, name ? name : h.name, &h))
		return -1;
	if (err) {
		fprintf(stderr, "bloomctl: %s\n",
			op_message(msg, sizeof(msg), BLOOM_OP_RESTORE,
				   name ? name : h.name, err));
		return -1;
	}
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_snapshot(const struct dirent *e)
{
	return has_suffix(e->d_name);
}

int cmd_restore(const char *dev, int argc, char **argv)
{
	struct dirent **list;
	char path[PATH_MAX];
	struct snap_opts o;
	int ind, fd = -1, n, i, failed = 0;

	ind = parse_snap_opts("restore", argc, argv, &o,
			      SNAP_ALL | SNAP_NAME | SNAP_REPLACE);
	if (o.all) {
		if (argc - ind != 1)
			die_usage("restore", "restore --all takes one directory");
		if (o.name)
			die_usage("restore", "restore --all takes no --name: each file names its filter");
		n = scandir(argv[ind], &list, is_snapshot, by_name);
		if (n < 0)
			die("cannot read directory '%s': %s", argv[ind],
			    strerror(errno));
		for (i = 0; i < n; i++) {
			if ((size_t)snprintf(path, sizeof(path), "%s/%s",
					     argv[ind], list[i]->d_name) <
			    sizeof(path))
				failed |= restore_one(dev, &fd, path, NULL, 1,
						      o.replace);
			free(list[i]);
		}
		free(list);
		if (fd >= 0)
			bloom_close(fd);
		return failed ? EXIT_FAIL : EXIT_OK;
	}
	if (argc - ind != 1)
		die_usage("restore", "restore needs one FILE ('-': standard input)");
	if (o.name)
		check_name("restore", o.name);
	failed = restore_one(dev, &fd, argv[ind], o.name, 0, o.replace);
	if (fd >= 0)
		bloom_close(fd);
	return failed ? EXIT_FAIL : EXIT_OK;
}

/*
 * merge refused (EINVAL, EOPNOTSUPP, EPROTOTYPE): says which of type,
 * scalable or not, key kind, geometry, hash or hash key differs, from both
 * filters' INFO; the hash key (which INFO does not show) when all the
 * rest is alike. Exits.
 */
static void __attribute__((noreturn))
merge_refused(int fd, const char *dst, const char *src, int err)
{
	struct bloom_info ia, ib;
	struct shape a, b;
	char why[1024] = "";

	if ((err != -EINVAL && err != -EOPNOTSUPP && err != -EPROTOTYPE) ||
	    bloom_info(fd, dst, &ia) || bloom_info(fd, src, &ib))
		die_op(BLOOM_OP_MERGE, dst, err);
	shape_of_info(&ia, &a);
	shape_of_info(&ib, &b);
	if (shape_differences(why, sizeof(why), &a, &b, 1))
		die("cannot merge %s into %s: %s; merge only filters made with 'bloomctl create %s --like %s' or restored from one snapshot",
		    src, dst, why, src, dst);
	if (a.type == BLOOM_TYPE_DLEFT)
		die("cannot merge %s into %s: dleft filters cannot be merged (their cells cannot be added up): add the keys of %s to %s instead",
		    src, dst, src, dst);
	if (err == -EOPNOTSUPP)
		die_op(BLOOM_OP_MERGE, dst, err);
	if (a.scalable)
		die("cannot merge %s into %s: their type and the parameters of their stages are alike, so their hash keys differ; merge only scalable filters created with one --hash-key or restored from one snapshot",
		    src, dst);
	die("cannot merge %s into %s: their type and geometry are alike, so their hash keys differ; merge only filters made with 'bloomctl create %s --like %s' or restored from one snapshot",
	    src, dst, src, dst);
}

/* swap refused: which of type, scalable or not and key kind differs. */
static void __attribute__((noreturn))
swap_refused(int fd, const char *a_name, const char *b_name, int err)
{
	struct bloom_info ia, ib;
	struct shape a, b;
	char why[1024] = "";

	if ((err != -EINVAL && err != -EPROTOTYPE) ||
	    bloom_info(fd, a_name, &ia) || bloom_info(fd, b_name, &ib))
		die_op(BLOOM_OP_SWAP, a_name, err);
	shape_of_info(&ia, &a);
	shape_of_info(&ib, &b);
	if (!shape_differences(why, sizeof(why), &a, &b, 0))
		die_op(BLOOM_OP_SWAP, a_name, err);
	die("cannot swap %s and %s: %s; only filters of one type, both scalable or neither, holding keys of one kind, can be swapped",
	    a_name, b_name, why);
}

/*
 * merge and swap take two different filters: merging a filter into itself
 * changes nothing, and neither does swapping it with itself, so the same
 * name twice is taken for a mistake (exit 2), for both verbs alike.
 */
static void check_pair(const char *verb, const char *a, const char *b)
{
	check_name(verb, a);
	check_name(verb, b);
	if (!strcmp(a, b))
		die_usage(verb, "%s names filter %s twice: %s takes two different filters",
			  verb, a, verb);
}

int cmd_merge(const char *dev, int argc, char **argv)
{
	struct snap_opts o;
	int ind, fd, err;

	ind = parse_snap_opts("merge", argc, argv, &o, 0);
	if (argc - ind != 2)
		die_usage("merge", "merge needs a destination and a source filter: merge DST SRC");
	check_pair("merge", argv[ind], argv[ind + 1]);
	fd = open_device(dev);
	err = bloom_merge(fd, argv[ind], argv[ind + 1]);
	if (err)
		merge_refused(fd, argv[ind], argv[ind + 1], err);
	bloom_close(fd);
	return EXIT_OK;
}

int cmd_swap(const char *dev, int argc, char **argv)
{
	struct snap_opts o;
	int ind, fd, err;

	ind = parse_snap_opts("swap", argc, argv, &o, 0);
	if (argc - ind != 2)
		die_usage("swap", "swap needs two filter names: swap NAME1 NAME2");
	check_pair("swap", argv[ind], argv[ind + 1]);
	fd = open_device(dev);
	err = bloom_swap(fd, argv[ind], argv[ind + 1]);
	if (err)
		swap_refused(fd, argv[ind], argv[ind + 1], err);
	bloom_close(fd);
	return EXIT_OK;
}

int cmd_flush(const char *dev, int argc, char **argv)
{
	struct snap_opts o;
	int ind, fd, err;

	ind = parse_snap_opts("flush", argc, argv, &o, 0);
	if (argc - ind != 1)
		die_usage("flush", "flush takes exactly one filter name");
	check_name("flush", argv[ind]);
	fd = open_device(dev);
	err = bloom_flush(fd, argv[ind]);
	if (err)
		die_op(BLOOM_OP_FLUSH, argv[ind], err);
	bloom_close(fd);
	return EXIT_OK;
}
