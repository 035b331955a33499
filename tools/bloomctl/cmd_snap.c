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

static int parse_snap_opts(const char *verb, int argc, char **argv,
			   struct snap_opts *o, int allow_name)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "name", required_argument, NULL, 'n' },
		{ "replace", no_argument, NULL, 'r' },
		{ "prune", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	while ((c = getopt_long(argc, argv, ":an:h", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			o->all = 1;
			break;
		case 'n':
			if (!allow_name)
				die_usage(verb, "%s takes no --name", verb);
			o->name = optarg;
			break;
		case 'r':
			if (!allow_name)
				die_usage(verb, "%s takes no --replace", verb);
			o->replace = 1;
			break;
		case 'P':
			if (strcmp(verb, "save"))
				die_usage(verb, "%s takes no --prune", verb);
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
	err = snap_write(path, buf, BLOOM_SNAP_HEADER_SIZE,
			 (char *)buf + BLOOM_SNAP_HEADER_SIZE,
			 len - BLOOM_SNAP_HEADER_SIZE);
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
	struct bloom_snap_header h;
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

	ind = parse_snap_opts("save", argc, argv, &o, 0);
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

/* For messages: the file, or "standard input". */
static const char *file_name(const char *path)
{
	return strcmp(path, "-") ? path : "standard input";
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
	struct bloom_snap_header h;
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

	ind = parse_snap_opts("restore", argc, argv, &o, 1);
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

int cmd_merge(const char *dev, int argc, char **argv)
{
	struct snap_opts o;
	int ind, fd, err;

	ind = parse_snap_opts("merge", argc, argv, &o, 0);
	if (o.all || argc - ind != 2)
		die_usage("merge", "merge needs a destination and a source filter: merge DST SRC");
	check_name("merge", argv[ind]);
	check_name("merge", argv[ind + 1]);
	fd = open_device(dev);
	err = bloom_merge(fd, argv[ind], argv[ind + 1]);
	if (err)
		die_op(BLOOM_OP_MERGE, argv[ind], err);
	bloom_close(fd);
	return EXIT_OK;
}

int cmd_swap(const char *dev, int argc, char **argv)
{
	struct snap_opts o;
	int ind, fd, err;

	ind = parse_snap_opts("swap", argc, argv, &o, 0);
	if (o.all || argc - ind != 2)
		die_usage("swap", "swap needs two filter names: swap NAME1 NAME2");
	check_name("swap", argv[ind]);
	check_name("swap", argv[ind + 1]);
	fd = open_device(dev);
	err = bloom_swap(fd, argv[ind], argv[ind + 1]);
	if (err)
		die_op(BLOOM_OP_SWAP, argv[ind], err);
	bloom_close(fd);
	return EXIT_OK;
}

int cmd_flush(const char *dev, int argc, char **argv)
{
	struct snap_opts o;
	int ind, fd, err;

	ind = parse_snap_opts("flush", argc, argv, &o, 0);
	if (o.all || argc - ind != 1)
		die_usage("flush", "flush takes exactly one filter name");
	check_name("flush", argv[ind]);
	fd = open_device(dev);
	err = bloom_flush(fd, argv[ind]);
	if (err)
		die_op(BLOOM_OP_FLUSH, argv[ind], err);
	bloom_close(fd);
	return EXIT_OK;
}
