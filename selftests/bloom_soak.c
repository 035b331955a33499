// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_soak: everything at once for a while, checking the promise all
 * along. Threads, each with its own descriptors:
 *   - a writer per type (standard, blocked, counting, d-left, and a
 *     scalable standard filter from 100 keys, which grows stage after
 *     stage): adds batches of new keys and, for counting and d-left,
 *     deletes the oldest ones, and queries what it holds;
 *   - readers that query the keys each writer reports added (every key
 *     whose ADD returned and that was not deleted must test present);
 *   - a replacer: two filters with the same keys swapped and restored
 *     over (BLOOM_RESTORE_F_REPLACE) while readers query those keys
 *     through descriptors bound to them;
 *   - a namespace churner: a network namespace with filters in it, made
 *     and dropped again and again (the filters go with it);
 *   - an expiring writer: a filter whose keys live 1 s, in 16 generations
 *     (a rotation every 67 ms): what it added last, and a batch it added
 *     between a quarter and half a timeout ago, must test present when
 *     the query ends within the timeout after the ADD began (a guest
 *     starved by a loaded host may take longer: such checks are counted
 *     and left out). It
 *     counts the rotations it sees (STAGES: the newest generation's birth,
 *     now - age_ms, moving on), which the watchdog below watches as it
 *     does every thread's progress;
 *   - a timed writer: a timed filter (keys with their own timeouts) that
 *     gets batches of keys with timeouts of 1 to 4 s, one per key, and
 *     deletes every third batch soon after its add: every key of a batch
 *     not deleted whose timeout has not passed when its query returns
 *     must test present;
 *   - a rule churner: in a network namespace of its own, its loopback up,
 *     an IPv4 filter holding 127.0.0.1 and an iptables rule on it in
 *     INPUT (xt_bloom, through IPT_SO_SET_REPLACE: bloom_ipt.h), inserted
 *     and removed again and again while a sender thread sends UDP to
 *     127.0.0.1 there: every packet the rule checked must hit (INFO's
 *     packets == packet_hits). Every 8 inserts the namespace is dropped
 *     with its filter and the rule in it, and a new one made. Needs
 *     xt_bloom.ko (XT_BLOOM_KO, else ./xt_bloom.ko; loaded if it is not,
 *     unloaded again) and iptables' filter table; without them it is
 *     left out and the run says so;
 *   - a mapped pair: two blocked filters that a writer adds the same keys
 *     to and then swaps, again and again, while a reader queries them one
 *     key at a time and in batches through libbloom's read-only mapping
 *     of a descriptor bound to one of them (and the standard writer's
 *     keys the same way): every key added before the query began must
 *     test present; the reader's mapped queries, retries (a change seen
 *     during a test), remaps (after a swap) and fallbacks are counted and
 *     printed, and the run fails if no query went through a mapping or no
 *     swap was ever seen there;
 *   - a netblock writer: a counting filter of IPv4 netblocks with the
 *     lengths 16 and 24, given /22s and /23s (expanded into /24s) and
 *     deleting each again 32 adds later: addresses spread over every
 *     block still added, its first and last included, must test present;
 *   - bloom-xdp: in a network namespace of its own with a veth pair, a
 *     filter made, bloom-xdp attached to it through libxdp's dispatcher
 *     (INFO's xdp_holds 1, destroy refused with EBUSY, its address
 *     present), detached (the hold gone within 4 s, destroy works), again
 *     and again. Needs bloom-xdp built beside this program (../bin), the
 *     kernel's and the module's BTF and the BPF filesystem (mounted if it
 *     is not); without them it is left out and the run says why;
 *   - CrowdSec's backend: crowdsec-bloom-stdin, fed decision lines as
 *     crowdsec-custom-bouncer writes them (IPv4 and IPv6 addresses and
 *     ranges with durations of 30 to 59 s, a delete of every third batch)
 *     into the growing filters it makes: each batch applied within 20 s,
 *     and then every decision not deleted whose duration has not passed
 *     must test present. Needs crowdsec-bloom-stdin and crowdsec-bloom
 *     built beside this program (../clients); without them it is left out.
 * A thread's result line fails when it did no work.
 * A watchdog sees that every thread makes progress. At the end every
 * filter is destroyed and memory_used and live_allocations must come back
 * to where they were. The kernel's own checkers (KASAN, lockdep, kmemleak,
 * the hung task detector) report in the kernel log, which run.sh scans.
 *
 * Usage: bloom_soak [SECONDS]  (default: $BLOOM_SOAK_SECONDS, else 5)
 * make soak runs it in the VM for $SOAK_SECONDS (default 60).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <sys/mount.h>

#include "bloom_soak.h"
#include "bloom_ipt.h"

#define STALL_S		60	/* a thread without progress this long: hung */
/*
 * A step of bloom-xdp's round is a process that loads BPF programs: on a
 * debug kernel on a loaded host one took close to STALL_S.
 */
#define XDP_STALL_S	300
/*
 * writers, readers, replacer, namespaces, expiring adds and rotations,
 * timed adds, netblocks, the mapped pair's writer and reader, rules,
 * traffic, XDP, CrowdSec's backend
 */
#define WATCHED		(NTYPES + NREADERS + 12)

atomic_bool stop;
_Atomic unsigned long false_negatives, errors;
static char first_error[256];
static pthread_mutex_t error_lock = PTHREAD_MUTEX_INITIALIZER;

void report_error(const char *fmt, ...)
{
	va_list ap;

	atomic_fetch_add(&errors, 1);
	pthread_mutex_lock(&error_lock);
	if (!first_error[0]) {
		va_start(ap, fmt);
		vsnprintf(first_error, sizeof(first_error), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&error_lock);
}

/* One batch of @n keys from @first through @cmd; out_hits, or -1. */
long long keys16(int fd, unsigned long cmd, __u64 first, __u32 n)
{
	__u8 keys[BATCH * 16], res[BATCH / 8];

	return run_keys16(fd, cmd, keys, res, BATCH, first, n, NULL);
}

/*
 * A namespace the host's root made is owed its guarantee from its creation
 * until the kernel's cleanup of it has run (module/account.c), which under
 * TCG may be many namespaces behind the threads that make them (the
 * namespace churner and the rules thread): a create then fails with
 * EDQUOT, the documented answer while the pool is owed to namespaces that
 * are going. Wait for them, well inside the watchdog's STALL_S; a create
 * that still meets EDQUOT skips its round (ns_quota_skips counts them: a
 * leaked guarantee would make every round skip, which the watchdog sees as
 * a thread that makes no progress, and memory_used's return to 0 checks
 * the bytes).
 */
#define NETNS_QUOTA_WAIT_MS	((STALL_S - 15) * 1000)

/*
 * Creates waiting out EDQUOT now. The namespace churner makes no new
 * namespace while one waits (ns_churn_pause()): each it makes is owed a
 * guarantee at once, and when the kernel's cleanup lags behind the
 * churner, an hour of churn owes the pool to namespaces that are going
 * and starves the rules thread's (the pool grants in order of first
 * reservation, account.h).
 */
static atomic_int ns_waiting;
_Atomic unsigned long ns_quota_skips;

int ns_create_req(int fd, struct bloom_create *c)
{
	int waited = 0, ret = 0;

	while (ioctl(fd, BLOOM_IOC_CREATE, c)) {
		if (errno != EDQUOT || waited >= NETNS_QUOTA_WAIT_MS ||
		    atomic_load(&stop)) {
			ret = -1;
			break;
		}
		if (!waited)
			atomic_fetch_add(&ns_waiting, 1);
		usleep(100 * 1000);
		waited += 100;
	}
	if (waited)
		atomic_fetch_sub(&ns_waiting, 1);
	if (ret && errno == EDQUOT)
		atomic_fetch_add(&ns_quota_skips, 1);
	return ret;
}

int ns_create(int fd, const char *name, __u32 type, __u64 capacity,
	      __u32 flags)
{
	struct bloom_create c = bt_typed_req(name, type, capacity, 10000000,
					     flags);

	return ns_create_req(fd, &c);
}

void ns_churn_pause(void)
{
	while (atomic_load(&ns_waiting) && !atomic_load(&stop))
		usleep(100 * 1000);
}

int main(int argc, char **argv)
{
	const char *env = getenv("BLOOM_SOAK_SECONDS");
	unsigned int seconds = argc > 1 ? atoi(argv[1]) : env ? atoi(env) : 5;
	/* what the watchdog watches: see the loop below */
	unsigned long last[WATCHED], now_p[WATCHED];
	const char *what[WATCHED];
	pthread_t wt[NTYPES], rt[NREADERS], rp, nt, et, tmt, rlt, tt, mw, mr,
		nbt, xdt, cst;
	long long mem0, live0, mem, live;
	static const char xdp_what[] = "bloom-xdp's attach and detach";
	unsigned int t, stall, stalled_s[WATCHED] = { 0 };
	bool hung = false, bpffs_mounted;
	char why[160] = "", xdp_why[200] = "", cs_why[200] = "";
	int i, k, fd, xt, xdp, cs;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	ksft_set_plan(8);
	fd = bt_open();
	if (fd < 0)
		ksft_exit_fail_msg("open %s: %s\n", BLOOM_DEV, strerror(errno));
	bt_destroy_all();
	xt = bt_xt_load(why, sizeof(why));
	if (xt >= 0) {
		int sock = bt_ipt_socket();

		if (sock < 0 || bt_ipt_entries(sock) < 0) {
			snprintf(why, sizeof(why), "no iptables filter table: %s",
				 strerror(errno));
			xt = -1;
		}
		if (sock >= 0)
			close(sock);
	}
	if (xt < 0)
		ksft_print_msg("rules under traffic left out: %s\n", why);
	xdp = xdp_unusable(xdp_why, sizeof(xdp_why), &bpffs_mounted) ? -1 : 0;
	if (xdp < 0)
		ksft_print_msg("bloom-xdp attached and detached left out: %s\n",
			       xdp_why);
	cs = cs_unusable(cs_why, sizeof(cs_why)) ? -1 : 0;
	if (cs < 0)
		ksft_print_msg("CrowdSec's backend left out: %s\n", cs_why);
	mem0 = wait_memory_used(0, BT_FREE_WAIT_MS);
	live0 = wait_live_allocations(1, BT_FREE_WAIT_MS);
	for (i = 0; i < NTYPES; i++) {
		writers[i].fd = -1;
		writers[i].base = (__u64)(i + 1) << 32;
		if (writer_create(&writers[i]))
			ksft_exit_fail_msg("create %s: %s\n", writers[i].name,
					   strerror(errno));
	}
	if (mapped_pair_create(fd))
		ksft_exit_fail_msg("create the mapped pair: %s\n",
				   strerror(errno));
	for (i = 0; i < NTYPES; i++)
		pthread_create(&wt[i], NULL, writer_thread, &writers[i]);
	for (i = 0; i < NREADERS; i++)
		pthread_create(&rt[i], NULL, reader_thread, (void *)(long)i);
	pthread_create(&rp, NULL, replacer_thread, NULL);
	pthread_create(&nt, NULL, netns_thread, NULL);
	pthread_create(&et, NULL, expire_thread, NULL);
	pthread_create(&tmt, NULL, timed_thread, NULL);
	pthread_create(&mw, NULL, mapped_writer_thread, NULL);
	pthread_create(&mr, NULL, mapped_reader_thread, NULL);
	pthread_create(&nbt, NULL, net_thread, NULL);
	if (xt >= 0) {
		pthread_create(&rlt, NULL, rule_thread, NULL);
		pthread_create(&tt, NULL, traffic_thread, NULL);
	}
	if (xdp >= 0)
		pthread_create(&xdt, NULL, xdp_thread, NULL);
	if (cs >= 0)
		pthread_create(&cst, NULL, cs_thread, NULL);

	memset(last, 0, sizeof(last));
	for (t = 0; t < seconds && !atomic_load(&errors); t++) {
		sleep(1);
		for (k = 0; k < NTYPES; k++) {
			now_p[k] = atomic_load(&writers[k].progress);
			what[k] = writers[k].name;
		}
		for (i = 0; i < NREADERS; i++) {
			what[k] = "a reader";
			now_p[k++] = atomic_load(&reader_progress[i]);
		}
		what[k] = "the replacer";
		now_p[k++] = atomic_load(&replacer_progress);
		what[k] = "the namespace churner";
		now_p[k++] = atomic_load(&netns_progress);
		what[k] = "the expiring writer";
		now_p[k++] = atomic_load(&expire_progress);
		what[k] = "the expiring filter's rotation";
		now_p[k++] = atomic_load(&expire_rotations);
		what[k] = "the timed writer";
		now_p[k++] = atomic_load(&timed_progress);
		what[k] = "the mapped pair's writer";
		now_p[k++] = atomic_load(&mapped_swaps);
		what[k] = "the mapped reader";
		now_p[k++] = atomic_load(&mapped_reads);
		what[k] = "the netblock writer";
		now_p[k++] = atomic_load(&net_progress);
		if (xt >= 0) {
			what[k] = "the rule churner";
			now_p[k++] = atomic_load(&rule_progress);
			what[k] = "the sender";
			now_p[k++] = atomic_load(&traffic_progress);
		}
		if (xdp >= 0) {
			what[k] = xdp_what;
			now_p[k++] = atomic_load(&xdp_steps);
		}
		if (cs >= 0) {
			what[k] = "CrowdSec's backend";
			now_p[k++] = atomic_load(&cs_progress);
		}
		for (i = 0; i < k; i++) {
			stall = what[i] == xdp_what ? XDP_STALL_S : STALL_S;
			stalled_s[i] = now_p[i] == last[i] ? stalled_s[i] + 1 : 0;
			if (stalled_s[i] >= stall && !hung) {
				hung = true;
				report_error("%s made no progress for %u s",
					     what[i], stall);
			}
			last[i] = now_p[i];
		}
	}
	atomic_store(&stop, true);
	for (i = 0; i < NTYPES; i++)
		pthread_join(wt[i], NULL);
	for (i = 0; i < NREADERS; i++)
		pthread_join(rt[i], NULL);
	pthread_join(rp, NULL);
	pthread_join(nt, NULL);
	pthread_join(et, NULL);
	pthread_join(tmt, NULL);
	pthread_join(mw, NULL);
	pthread_join(mr, NULL);
	pthread_join(nbt, NULL);
	if (xt >= 0) {
		pthread_join(rlt, NULL);
		pthread_join(tt, NULL);
	}
	if (xdp >= 0)
		pthread_join(xdt, NULL);
	if (cs >= 0)
		pthread_join(cst, NULL);
	if (bpffs_mounted && umount("/sys/fs/bpf"))
		ksft_print_msg("umount /sys/fs/bpf: %s\n", strerror(errno));

	ksft_print_msg("%u s: adds+queries per writer:", t);
	for (i = 0; i < NTYPES; i++)
		printf(" %s %lu", writers[i].name,
		       atomic_load(&writers[i].progress));
	printf("; swaps+restores %lu, namespaces %lu (rounds skipped on EDQUOT: %lu); expiring adds %lu, rotations seen %lu (timeout %d ms, %d generations: a rotation every %d ms; checks left out as the query ended a timeout after the add: %lu)",
	       atomic_load(&replacer_progress), atomic_load(&netns_progress),
	       atomic_load(&ns_quota_skips),
	       atomic_load(&expire_progress), atomic_load(&expire_rotations),
	       EXPIRE_MS, EXPIRE_GENS, EXPIRE_PERIOD_MS,
	       atomic_load(&expire_late));
	printf("; timed batches %lu, keys deleted %lu",
	       atomic_load(&timed_progress), atomic_load(&timed_deleted));
	if (xt >= 0)
		printf("; rules inserted %lu in %lu namespaces, %lu packets checked, %lu send rounds",
		       atomic_load(&rule_progress),
		       atomic_load(&rule_namespaces),
		       atomic_load(&rule_packets),
		       atomic_load(&traffic_progress));
	printf("\n");
	ksft_test_result(!atomic_load(&false_negatives),
			 "no key known present ever tested absent (%lu misses)\n",
			 atomic_load(&false_negatives));
	ksft_test_result(!atomic_load(&errors) || atomic_load(&false_negatives),
			 "every call worked, every thread progressed%s%s\n",
			 first_error[0] ? ": " : "", first_error);
	ksft_test_result(atomic_load(&mapped_queries) &&
			 atomic_load(&mapped_remaps),
			 "mapped reader: %llu keys through the mapping, %llu retries, %llu remaps over %lu swaps, %llu calls fell back to the ioctl\n",
			 (unsigned long long)atomic_load(&mapped_queries),
			 (unsigned long long)atomic_load(&mapped_retries),
			 (unsigned long long)atomic_load(&mapped_remaps),
			 atomic_load(&mapped_swaps),
			 (unsigned long long)atomic_load(&mapped_fallbacks));
	ksft_test_result(atomic_load(&net_progress) > 0,
			 "netblocks: %lu rounds of a /22 or /23 added as /24s, %d live blocks' addresses tested, %lu blocks deleted\n",
			 atomic_load(&net_progress), NET_LIVE,
			 atomic_load(&net_deleted));
	if (xdp < 0)
		ksft_test_result_skip("bloom-xdp attached and detached: %s\n",
				      xdp_why);
	else
		ksft_test_result(atomic_load(&xdp_progress) > 0,
				 "bloom-xdp attached (held: destroy refused), detached (hold gone: destroy works) %lu times\n",
				 atomic_load(&xdp_progress));
	if (cs < 0)
		ksft_test_result_skip("CrowdSec's backend: %s\n", cs_why);
	else
		ksft_test_result(atomic_load(&cs_progress) > 0,
				 "CrowdSec's backend: %lu decisions applied in %lu rounds, %lu deleted\n",
				 atomic_load(&cs_decisions),
				 atomic_load(&cs_progress),
				 atomic_load(&cs_deleted));

	for (i = 0; i < NTYPES; i++) {
		bt_destroy(writers[i].fd, writers[i].name);
		close(writers[i].fd);
	}
	bt_destroy_all();
	mem = wait_memory_used(mem0, 3 * BT_FREE_WAIT_MS);
	ksft_test_result(mem == mem0, "memory_used back to %lld (%lld)\n",
			 mem0, mem);
	live = wait_live_allocations(live0, 3 * BT_FREE_WAIT_MS);
	ksft_test_result(live == live0,
			 "live_allocations back to %lld (%lld)\n", live0, live);
	close(fd);
	if (xt == 1 && bt_unload_module("xt_bloom"))
		ksft_print_msg("rmmod xt_bloom: %s\n", strerror(errno));
	ksft_finished();
}
