// SPDX-License-Identifier: GPL-2.0
/*
 * stats --prometheus: every filter of the network namespace, and the
 * module's memory, in Prometheus' text exposition format (version 0.0.4),
 * for node-exporter's textfile collector or any scraper. The figures are
 * info's (the same bloom_info and the same derived keys, capacity and
 * estimated rate), so the two never disagree.
 *
 * Names follow Prometheus' conventions: the "bloom_" prefix, base units
 * (_bytes), _total for counters, _ratio for the rates; each family has its
 * HELP and TYPE lines and then one sample per filter, labelled with the
 * filter's name and type. A family none of the filters has (deletes of a
 * namespace without deletable filters) is left out.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include "bloomctl.h"

struct stats_filter {
	struct bloom_info in;
	struct info_derived d;
};

/* Which filters have a metric: the types that count it. */
enum metric_has {
	HAS_ALL,
	HAS_DELETES,		/* counting, dleft, timed */
	HAS_EXPIRED,		/* timed: keys with their own timeouts */
	HAS_STAGES,		/* scalable */
	HAS_GENERATIONS,	/* expiring */
};

struct metric {
	const char *name;
	const char *type;	/* "counter" or "gauge" */
	const char *help;
	enum metric_has has;
	/* a __u64 of struct bloom_info, or (when value is set) a figure */
	size_t field;
	double (*value)(const struct stats_filter *f);
};

static double keys_held(const struct stats_filter *f)
{
	return f->d.keys;
}

static double capacity(const struct stats_filter *f)
{
	return (double)f->d.capacity;
}

static double fpp_estimated(const struct stats_filter *f)
{
	return f->d.est_fpp;
}

static double fpp_asked(const struct stats_filter *f)
{
	return f->in.fpp_ppb / 1e9;
}

static double stages(const struct stats_filter *f)
{
	return f->in.stages;
}

static double generations(const struct stats_filter *f)
{
	return f->in.generations;
}

#define INFO_FIELD(m)	offsetof(struct bloom_info, m)

static const struct metric metrics[] = {
	{ "bloom_filter_keys", "gauge",
	  "Keys the filter holds: estimated from its fill, or the keys added when every bit is set (bloomctl info: load).",
	  HAS_ALL, 0, keys_held },
	{ "bloom_filter_capacity", "gauge",
	  "Keys the filter was sized for (a scalable filter: its stages so far; an expiring one: per timeout).",
	  HAS_ALL, 0, capacity },
	{ "bloom_filter_memory_bytes", "gauge",
	  "Kernel memory the filter takes.",
	  HAS_ALL, INFO_FIELD(memory_bytes), NULL },
	{ "bloom_filter_false_positive_ratio", "gauge",
	  "False-positive rate expected now, estimated from the filter's fill.",
	  HAS_ALL, 0, fpp_estimated },
	{ "bloom_filter_false_positive_target_ratio", "gauge",
	  "False-positive rate the filter was created for.",
	  HAS_ALL, 0, fpp_asked },
	{ "bloom_filter_adds_total", "counter",
	  "Keys added.",
	  HAS_ALL, INFO_FIELD(adds), NULL },
	{ "bloom_filter_queries_total", "counter",
	  "Keys queried through /dev/bloom.",
	  HAS_ALL, INFO_FIELD(queries), NULL },
	{ "bloom_filter_query_hits_total", "counter",
	  "Queried keys the filter reported as possibly present.",
	  HAS_ALL, INFO_FIELD(hits), NULL },
	{ "bloom_filter_packets_total", "counter",
	  "Packets firewall rules (iptables -m bloom) looked up.",
	  HAS_ALL, INFO_FIELD(packets), NULL },
	{ "bloom_filter_packet_hits_total", "counter",
	  "Packets whose address the filter reported as possibly present.",
	  HAS_ALL, INFO_FIELD(packet_hits), NULL },
	{ "bloom_filter_bpf_lookups_total", "counter",
	  "Lookups by XDP and tc programs through the module's kfuncs.",
	  HAS_ALL, INFO_FIELD(bpf_calls), NULL },
	{ "bloom_filter_bpf_hits_total", "counter",
	  "BPF lookups the filter answered as possibly present.",
	  HAS_ALL, INFO_FIELD(bpf_hits), NULL },
	{ "bloom_filter_deletes_total", "counter",
	  "Keys deleted (counting, dleft and timed filters).",
	  HAS_DELETES, INFO_FIELD(deletes), NULL },
	{ "bloom_filter_delete_misses_total", "counter",
	  "Keys to delete that were not found.",
	  HAS_DELETES, INFO_FIELD(delete_misses), NULL },
	{ "bloom_filter_expired_keys_total", "counter",
	  "Keys whose own timeout expired, their cells reclaimed (timed filters).",
	  HAS_EXPIRED, INFO_FIELD(expired), NULL },
	{ "bloom_filter_stages", "gauge",
	  "Stages of a scalable filter so far.",
	  HAS_STAGES, 0, stages },
	{ "bloom_filter_generations", "gauge",
	  "Generations of an expiring filter.",
	  HAS_GENERATIONS, 0, generations },
};

static int has(const struct stats_filter *f, enum metric_has h)
{
	switch (h) {
	case HAS_DELETES:
		return type_can_delete(f->in.type);
	case HAS_EXPIRED:
		return f->in.type == BLOOM_TYPE_TIMED;
	case HAS_STAGES:
		return f->in.stages > 0;
	case HAS_GENERATIONS:
		return f->in.generations > 0;
	default:
		return 1;
	}
}

/* A label value: backslash, double quote and newline escaped. */
static void label_value(const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			printf("\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", stdout);
		else
			putchar(*s);
	}
}

/* Go's float syntax, which Prometheus parses: NaN and +Inf spelled so. */
static void sample_value(double v)
{
	if (isnan(v))
		fputs("NaN", stdout);
	else if (isinf(v))
		fputs(v > 0 ? "+Inf" : "-Inf", stdout);
	else
		printf("%.17g", v);
}

static void family(const char *name, const char *type, const char *help)
{
	printf("# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void print_metric(const struct metric *m, const struct stats_filter *fs,
			 size_t n)
{
	size_t i, shown = 0;

	for (i = 0; i < n; i++) {
		const struct stats_filter *f = &fs[i];

		if (!has(f, m->has))
			continue;
		if (!shown++)
			family(m->name, m->type, m->help);
		printf("%s{filter=\"", m->name);
		label_value(f->in.name);
		printf("\",type=\"%s\"} ", type_name(f->in.type));
		if (m->value)
			sample_value(m->value(f));
		else
			printf("%" PRIu64, *(const uint64_t *)
			       ((const char *)&f->in + m->field));
		putchar('\n');
	}
}

/* The filters there are now; one destroyed since the list was taken is left out. */
static size_t read_filters(int fd, struct stats_filter **out)
{
	char (*names)[BLOOM_NAME_LEN];
	struct stats_filter *fs;
	size_t n, i, kept = 0;
	int err;

	err = bloom_list(fd, &names, &n);
	if (err)
		die_op(BLOOM_OP_LIST, NULL, err);
	fs = calloc(n ? n : 1, sizeof(*fs));
	if (!fs)
		die("out of memory for the statistics of %zu filters", n);
	for (i = 0; i < n; i++) {
		err = bloom_info(fd, names[i], &fs[kept].in);
		if (err == -ENOENT)
			continue;
		if (err)
			die_op(BLOOM_OP_INFO, names[i], err);
		info_derive(&fs[kept].in, &fs[kept].d);
		kept++;
	}
	free(names);
	*out = fs;
	return kept;
}

int cmd_stats(const char *dev, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "prometheus", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct stats_filter *fs;
	struct bloom_version v;
	int prometheus = 0, fd, err, c;
	size_t n, i;

	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'P':
			prometheus = 1;
			break;
		case 'h':
			print_help(stdout, "stats");
			exit(EXIT_OK);
		default:
			die_getopt("stats", c, argv);
		}
	}
	if (optind < argc)
		die_usage("stats", "unexpected argument '%s'", argv[optind]);
	if (!prometheus)
		die_usage("stats", "stats prints Prometheus' text format only: give --prometheus ('bloomctl list' and 'bloomctl info NAME' are for people)");
	fd = open_device(dev);
	err = bloom_version(fd, &v);
	if (err)
		die_op(BLOOM_OP_VERSION, NULL, err);
	n = read_filters(fd, &fs);
	bloom_close(fd);

	for (i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++)
		print_metric(&metrics[i], fs, n);
	family("bloom_module_memory_used_bytes", "gauge",
	       "Memory filters take: in the initial network namespace all filters, in another that namespace's.");
	printf("bloom_module_memory_used_bytes %" PRIu64 "\n",
	       (uint64_t)v.memory_used);
	family("bloom_module_memory_limit_bytes", "gauge",
	       "The most bloom_module_memory_used_bytes can reach now (max_memory, or the namespace's share of it).");
	printf("bloom_module_memory_limit_bytes %" PRIu64 "\n",
	       (uint64_t)v.memory_limit);
	free(fs);
	return EXIT_OK;
}
