// SPDX-License-Identifier: GPL-2.0
/*
 * libxt_bloom: the iptables/ip6tables side of the "bloom" match
 * (xt_bloom.ko; uapi/linux/netfilter/xt_bloom.h).
 *
 *   iptables -A INPUT -m bloom [!] --bloom-set NAME [--bloom-dir src|dst]
 *
 * Names are checked with libbloom's rules (linked in statically), and the
 * filter is looked up in /dev/bloom before the rule goes to the kernel, so a
 * missing filter gets a sentence that says what to do instead of the
 * kernel's bare "No such file or directory".
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <xtables.h>
#include <linux/netfilter/xt_bloom.h>

#include "libbloom.h"

enum {
	O_BLOOM_SET = 0,
	O_BLOOM_DIR,
};

static void bloom_mt_help(void)
{
	printf(
"bloom match options:\n"
"[!] --bloom-set NAME        match packets whose address may be in the bloom\n"
"                            filter NAME (! : whose address is not in it);\n"
"                            the filter must exist in this network namespace\n"
"                            (bloomctl create NAME ...; bloomctl add NAME\n"
"                            --ipv4|--ipv6 ...)\n"
" --bloom-dir src|dst        look up the source (default) or the destination\n"
"                            address\n");
}

static const struct xt_option_entry bloom_mt_opts[] = {
	{.name = "bloom-set", .id = O_BLOOM_SET, .type = XTTYPE_STRING,
	 .flags = XTOPT_MAND | XTOPT_INVERT},
	{.name = "bloom-dir", .id = O_BLOOM_DIR, .type = XTTYPE_STRING},
	XTOPT_TABLEEND,
};

static void bloom_mt_init(struct xt_entry_match *match)
{
	struct xt_bloom_mtinfo *info = (void *)match->data;

	info->key[0] = XT_BLOOM_FIELD_SRC_ADDR;
}

static void bloom_parse_set(struct xt_option_call *cb)
{
	struct xt_bloom_mtinfo *info = cb->data;

	switch (bloom_name_check(cb->arg)) {
	case 0:
		break;
	case -ENAMETOOLONG:
		xtables_error(PARAMETER_PROBLEM,
			      "bloom: filter name \"%s\" is too long: at most %d characters",
			      cb->arg, XT_BLOOM_NAME_LEN - 1);
	default:
		xtables_error(PARAMETER_PROBLEM,
			      "bloom: invalid filter name \"%s\": use 1 to %d printable characters, no '/', spaces or control characters",
			      cb->arg, XT_BLOOM_NAME_LEN - 1);
	}
	memset(info->name, 0, sizeof(info->name));
	strcpy(info->name, cb->arg);
	if (cb->invert)
		info->flags |= XT_BLOOM_F_INVERT;
}

static void bloom_parse_dir(struct xt_option_call *cb)
{
	struct xt_bloom_mtinfo *info = cb->data;

	if (!strcmp(cb->arg, "src"))
		info->key[0] = XT_BLOOM_FIELD_SRC_ADDR;
	else if (!strcmp(cb->arg, "dst"))
		info->key[0] = XT_BLOOM_FIELD_DST_ADDR;
	else
		xtables_error(PARAMETER_PROBLEM,
			      "bloom: unknown --bloom-dir \"%s\": use src (the source address) or dst (the destination address)",
			      cb->arg);
}

static void bloom_mt_parse(struct xt_option_call *cb)
{
	xtables_option_parse(cb);
	switch (cb->entry->id) {
	case O_BLOOM_SET:
		bloom_parse_set(cb);
		break;
	case O_BLOOM_DIR:
		bloom_parse_dir(cb);
		break;
	}
}

/*
 * A rule of iptables matches IPv4 addresses, one of ip6tables IPv6: the
 * kernel refuses a filter of another key kind with a bare EPROTOTYPE
 * ("Protocol wrong type for socket"); say which kinds and what to do.
 */
static void bloom_check_kind(const char *name, uint32_t kind, uint32_t want)
{
	static const char *const kinds[] = BLOOM_KEYS_NAMES;
	const char *tool = want == BLOOM_KEYS_IPV6 ? "ip6tables" : "iptables";

	if (kind == BLOOM_KEYS_UNKNOWN || kind == want)
		return;
	xtables_error(PARAMETER_PROBLEM,
		      "bloom: filter \"%s\" holds %s keys, and an %s rule matches %s addresses: name a filter of %s keys (bloomctl create NAME --keys %s ...)%s",
		      name, kind < sizeof(kinds) / sizeof(kinds[0]) ?
		      kinds[kind] : "unknown", tool, kinds[want], kinds[want],
		      kinds[want], kind == BLOOM_KEYS_STRINGS ? "" :
		      want == BLOOM_KEYS_IPV6 ? ", or use iptables for it" :
						", or use ip6tables for it");
}

/*
 * The kernel would refuse a rule naming a filter that does not exist with a
 * bare ENOENT; ask /dev/bloom first and say what to do. Only a definite "no
 * such filter" or "no module" stops the rule: anything else (an older module,
 * a descriptor refused) is left to the kernel's own check.
 */
static void bloom_mt_check(struct xt_fcheck_call *cb, uint32_t want)
{
	const struct xt_bloom_mtinfo *info = cb->data;
	struct bloom_info in;
	int fd, err;

	/* libxtables says what is missing after this returns. */
	if (!(cb->xflags & (1U << O_BLOOM_SET)))
		return;
	fd = bloom_open(NULL);
	if (fd == -ENOENT)
		xtables_error(PARAMETER_PROBLEM,
			      "bloom: %s not found: load the bloom module first (modprobe bloom)",
			      BLOOM_DEFAULT_DEVICE);
	if (fd < 0)
		return;
	err = bloom_info(fd, info->name, &in);
	bloom_close(fd);
	if (err == -ENOENT)
		xtables_error(PARAMETER_PROBLEM,
			      "bloom: no filter named \"%s\" in this network namespace: create it first (bloomctl create %s ...), see 'bloomctl list'",
			      info->name, info->name);
	if (!err)
		bloom_check_kind(info->name, in.keys, want);
}

/* One match per family: what a rule's addresses are decides the kind. */
static void bloom_mt4_check(struct xt_fcheck_call *cb)
{
	bloom_mt_check(cb, BLOOM_KEYS_IPV4);
}

static void bloom_mt6_check(struct xt_fcheck_call *cb)
{
	bloom_mt_check(cb, BLOOM_KEYS_IPV6);
}

static const char *bloom_dir_name(const struct xt_bloom_mtinfo *info)
{
	switch (info->key[0]) {
	case XT_BLOOM_FIELD_SRC_ADDR:
		return "src";
	case XT_BLOOM_FIELD_DST_ADDR:
		return "dst";
	}
	return "?";
}

static void bloom_mt_print(const void *ip, const struct xt_entry_match *match,
			   int numeric)
{
	const struct xt_bloom_mtinfo *info = (const void *)match->data;

	printf(" bloom%s set %s %s",
	       info->flags & XT_BLOOM_F_INVERT ? " !" : "",
	       info->name, bloom_dir_name(info));
}

static void bloom_mt_save(const void *ip, const struct xt_entry_match *match)
{
	const struct xt_bloom_mtinfo *info = (const void *)match->data;

	printf("%s --bloom-set", info->flags & XT_BLOOM_F_INVERT ? " !" : "");
	xtables_save_string(info->name);
	printf(" --bloom-dir %s", bloom_dir_name(info));
}

static struct xtables_match bloom_mt_reg[] = {
	{
		.version = XTABLES_VERSION,
		.name = "bloom",
		.revision = 0,
		.family = NFPROTO_IPV4,
		.size = XT_ALIGN(sizeof(struct xt_bloom_mtinfo)),
		.userspacesize = offsetof(struct xt_bloom_mtinfo, filter),
		.help = bloom_mt_help,
		.init = bloom_mt_init,
		.x6_parse = bloom_mt_parse,
		.x6_fcheck = bloom_mt4_check,
		.x6_options = bloom_mt_opts,
		.print = bloom_mt_print,
		.save = bloom_mt_save,
	},
	{
		.version = XTABLES_VERSION,
		.name = "bloom",
		.revision = 0,
		.family = NFPROTO_IPV6,
		.size = XT_ALIGN(sizeof(struct xt_bloom_mtinfo)),
		.userspacesize = offsetof(struct xt_bloom_mtinfo, filter),
		.help = bloom_mt_help,
		.init = bloom_mt_init,
		.x6_parse = bloom_mt_parse,
		.x6_fcheck = bloom_mt6_check,
		.x6_options = bloom_mt_opts,
		.print = bloom_mt_print,
		.save = bloom_mt_save,
	},
};

/* libxtables dlopen()s the extension; registering is its constructor. */
static void __attribute__((constructor)) bloom_mt_ldr(void)
{
	xtables_register_matches(bloom_mt_reg,
				 sizeof(bloom_mt_reg) / sizeof(bloom_mt_reg[0]));
}
