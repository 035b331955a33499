// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_bpf_run: drives bloom_test.bpf.c for test_bpf.sh.
 *
 *   bloom_bpf_run run xdp|tc query|addr ID KEY [SIZE] [REPEAT]
 *	loads the lookup program with filter ID, KEY and SIZE (default:
 *	KEY's length), runs it once (or REPEAT times) with
 *	BPF_PROG_TEST_RUN on a small IPv4 frame in this network namespace
 *	and prints the kfunc's result; with REPEAT also the kernel's
 *	nanoseconds per run. KEY: an IPv4 or IPv6 address (4 or 16 bytes),
 *	hex:HEXDIGITS, or any other string as its bytes.
 *   bloom_bpf_run tc-attach DEV ID
 *	attaches the dropping tc program to DEV's ingress (it stays after
 *	exit, as a tc filter does)
 *   bloom_bpf_run tc-detach DEV
 *	removes DEV's clsact qdisc, and the program with it
 *   bloom_bpf_run bad
 *	loads the program that passes 8 bytes of a 4-byte key: exits 0 when
 *	the verifier refuses it (its log's last lines on stdout), 1 if not
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bloom_test.skel.h"

static char vlog[1 << 16];

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fputs("bloom_bpf_run: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* KEY as bytes into @out (@max bytes): its length. */
static size_t parse_key(const char *s, unsigned char *out, size_t max)
{
	size_t n;
	int hi, lo;

	if (inet_pton(AF_INET, s, out) == 1)
		return 4;
	if (inet_pton(AF_INET6, s, out) == 1)
		return 16;
	if (!strncmp(s, "hex:", 4)) {
		for (s += 4, n = 0; s[0] && n < max; s += 2, n++) {
			hi = hexval(s[0]);
			lo = s[1] ? hexval(s[1]) : -1;
			if (hi < 0 || lo < 0)
				die("bad hex key");
			out[n] = hi << 4 | lo;
		}
		return n;
	}
	n = strlen(s);
	if (n > max)
		die("key too long");
	memcpy(out, s, n);
	return n;
}

static int cmd_run(int argc, char **argv)
{
	/* an Ethernet frame with an IPv4 header: XDP and tc both take it */
	unsigned char frame[ETH_HLEN + sizeof(struct iphdr)] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, topts, .data_in = frame,
		    .data_size_in = sizeof(frame));
	struct bloom_test *skel;
	struct bpf_program *p;
	size_t len;
	int tc, err;

	if (argc < 5 || argc > 7)
		die("usage: run xdp|tc query|addr ID KEY [SIZE] [REPEAT]");
	tc = !strcmp(argv[1], "tc");
	frame[12] = 0x08;	/* ETH_P_IP */
	frame[ETH_HLEN] = 0x45;
	skel = bloom_test__open();
	if (!skel)
		die("open: %s", strerror(errno));
	skel->rodata->filter_id = strtoul(argv[3], NULL, 0);
	skel->rodata->addr_op = !strcmp(argv[2], "addr");
	len = parse_key(argv[4], skel->bss->key, sizeof(skel->bss->key));
	skel->rodata->key_size = argc > 5 ? strtoul(argv[5], NULL, 0) : len;
	if (argc > 6)
		topts.repeat = strtoul(argv[6], NULL, 0);
	/* only the program asked for is loaded */
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, false);
	p = tc ? skel->progs.tc_lookup : skel->progs.xdp_lookup;
	bpf_program__set_autoload(p, true);
	err = bloom_test__load(skel);
	if (err)
		die("load: %s", strerror(-err));
	err = bpf_prog_test_run_opts(bpf_program__fd(p), &topts);
	if (err)
		die("test run: %s", strerror(errno));
	if (argc > 6)
		printf("%d %u\n", skel->bss->result, topts.duration);
	else
		printf("%d\n", skel->bss->result);
	bloom_test__destroy(skel);
	return 0;
}

static int cmd_tc_attach(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .attach_point = BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = 1, .priority = 1);
	struct bloom_test *skel;
	int err;

	if (argc != 3)
		die("usage: tc-attach DEV ID");
	hook.ifindex = if_nametoindex(argv[1]);
	if (!hook.ifindex)
		die("no device %s", argv[1]);
	skel = bloom_test__open();
	if (!skel)
		die("open: %s", strerror(errno));
	skel->rodata->filter_id = strtoul(argv[2], NULL, 0);
	bpf_program__set_autoload(skel->progs.xdp_lookup, false);
	bpf_program__set_autoload(skel->progs.tc_lookup, false);
	err = bloom_test__load(skel);
	if (err)
		die("load: %s", strerror(-err));
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST)
		die("clsact on %s: %s", argv[1], strerror(-err));
	opts.prog_fd = bpf_program__fd(skel->progs.tc_drop);
	err = bpf_tc_attach(&hook, &opts);
	if (err)
		die("attach: %s", strerror(-err));
	bloom_test__destroy(skel);
	return 0;
}

static int cmd_tc_detach(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_tc_hook, hook,
		    .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);
	int err;

	if (argc != 2)
		die("usage: tc-detach DEV");
	hook.ifindex = if_nametoindex(argv[1]);
	if (!hook.ifindex)
		die("no device %s", argv[1]);
	err = bpf_tc_hook_destroy(&hook);
	if (err)
		die("detach: %s", strerror(-err));
	return 0;
}

static int cmd_bad(void)
{
	struct bloom_test *skel = bloom_test__open();
	struct bpf_program *p;
	const char *tail;
	int err;

	if (!skel)
		die("open: %s", strerror(errno));
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, false);
	p = skel->progs.xdp_bad_size;
	bpf_program__set_autoload(p, true);
	bpf_program__set_log_buf(p, vlog, sizeof(vlog));
	bpf_program__set_log_level(p, 1);
	err = bloom_test__load(skel);
	tail = strlen(vlog) > 400 ? vlog + strlen(vlog) - 400 : vlog;
	fputs(tail, stdout);
	bloom_test__destroy(skel);
	return err ? 0 : 1;
}

int main(int argc, char **argv)
{
	libbpf_set_print(quiet);
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "tc-attach"))
		return cmd_tc_attach(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "tc-detach"))
		return cmd_tc_detach(argc - 1, argv + 1);
	if (argc == 2 && !strcmp(argv[1], "bad"))
		return cmd_bad();
	die("usage: run|tc-attach|tc-detach|bad ...");
}
