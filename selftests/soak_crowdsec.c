// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_soak's CrowdSec backend (bloom_soak.c): crowdsec-bloom-stdin, the
 * program crowdsec-custom-bouncer feeds on standard input, run as the
 * bouncer runs it (beside crowdsec-bloom, which makes its filters) and fed
 * decision lines as the bouncer writes them: batches of IPv4 and IPv6
 * addresses and an IPv4 range with host bits set, with durations of 30 to
 * 59 s, and a delete of every third batch a few batches later. The
 * filters are made by the program's first add and grow (crowdsec-bloom
 * makes them --scalable) and shed stages as the decisions expire.
 *
 * What must hold: a batch is applied within CS_APPLY_S (its keys test
 * present, queried here with the keys the program makes:
 * bloom_netblock_parse() with the host bits cleared), a delete within the
 * same time (at most one key in a hundred still present: a false positive
 * at the filters' 1e-6 would leave one in a million); from then on every
 * key of a batch not deleted whose duration has not passed since its line
 * was written must test present. The program must be alive all along and
 * exit 0 at the end of its input.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <libbloom.h>

#include "bloom_soak.h"

#define CS_V4		24	/* addresses of a batch, IPv4 */
#define CS_V6		8	/* IPv6 */
#define CS_KEYS		(CS_V4 + CS_V6 + 1)	/* and one range */
#define CS_RING		16
#define CS_DELETE_EVERY	3	/* every third batch is deleted ... */
#define CS_DELETE_AFTER	4	/* ... this many batches after its add */
/* above the program's hold (100 ms) by far, and below every duration */
#define CS_APPLY_S	20
#define CS_DURATION_MIN	30
#define CS_SET4		"soak-cs4"
#define CS_SET6		"soak-cs6"

_Atomic unsigned long cs_progress, cs_decisions, cs_deleted;

static char cs_dir[PATH_MAX];	/* the two programs and their settings */

struct cs_batch {
	__u64 first;		/* decision numbers [first, +CS_KEYS) */
	double t;		/* when its lines were written */
	bool deleted;
};

/* decision @j of its batch @i (0..CS_KEYS-1): its value, family, duration */
static void cs_value(__u64 j, unsigned int i, char *v, size_t len, int *af)
{
	if (i < CS_V4) {
		snprintf(v, len, "10.%u.%u.%u", (unsigned int)(j >> 16) & 255,
			 (unsigned int)(j >> 8) & 255, (unsigned int)j & 255);
		*af = AF_INET;
	} else if (i < CS_V4 + CS_V6) {
		snprintf(v, len, "2001:db8:%x::%x",
			 (unsigned int)(j >> 16) & 0xffff,
			 (unsigned int)j & 0xffff);
		*af = AF_INET6;
	} else {
		/* host bits set: held as 172.x.y.0/24 */
		snprintf(v, len, "172.%u.%u.9/24",
			 16 + (unsigned int)(j >> 8) % 16,
			 (unsigned int)j & 255);
		*af = AF_INET;
	}
}

static unsigned int cs_duration(__u64 j)
{
	return CS_DURATION_MIN + j % 30;
}

/* The lines of batch @b's adds (or deletes) to @out; 0, or -1. */
static int cs_write(int out, const struct cs_batch *b, const char *action)
{
	char line[512], v[64];
	unsigned int i;
	int af, n;

	for (i = 0; i < CS_KEYS; i++) {
		__u64 j = b->first + i;

		cs_value(j, i, v, sizeof(v), &af);
		n = snprintf(line, sizeof(line),
			     "{\"duration\":\"%us\",\"id\":%llu,\"origin\":\"cscli\",\"scenario\":\"soak\",\"scope\":\"%s\",\"type\":\"ban\",\"value\":\"%s\",\"action\":\"%s\"}\n",
			     cs_duration(j), (unsigned long long)j,
			     i < CS_V4 + CS_V6 ? "Ip" : "Range", v, action);
		if (write(out, line, n) != n)
			return -1;
	}
	return 0;
}

/*
 * Queries batch @b's keys in @fd4 and @fd6 (bound to the two filters):
 * how many of those whose duration had not passed at the query's end are
 * present in *@present, absent in *@absent; -1 on an error. A filter not
 * made yet holds nothing.
 */
static int cs_query(int fd4, int fd6, const struct cs_batch *b,
		    int *present, int *absent)
{
	struct bloom_key k4[CS_KEYS], k6[CS_KEYS];
	__u8 key[CS_KEYS][BLOOM_NETBLOCK_KEY_MAX], r4[CS_KEYS / 8 + 1],
		r6[CS_KEYS / 8 + 1];
	unsigned int i, n4 = 0, n6 = 0, at4[CS_KEYS], at6[CS_KEYS];
	char v[64];
	double end;
	int af, len;

	for (i = 0; i < CS_KEYS; i++) {
		cs_value(b->first + i, i, v, sizeof(v), &af);
		len = bloom_netblock_parse(v, af, BLOOM_NETBLOCK_F_MASK,
					   key[i]);
		if (len < 0)
			return -1;
		if (af == AF_INET) {
			at4[n4] = i;
			k4[n4++] = (struct bloom_key){ key[i], len };
		} else {
			at6[n6] = i;
			k6[n6++] = (struct bloom_key){ key[i], len };
		}
	}
	{
		BLOOM_BATCH_OPTS(o4, .results = r4);
		BLOOM_BATCH_OPTS(o6, .results = r6);

		memset(r4, 0, sizeof(r4));
		memset(r6, 0, sizeof(r6));
		if ((fd4 >= 0 && bloom_batch(fd4, BLOOM_OP_QUERY, k4, n4, &o4) < 0) ||
		    (fd6 >= 0 && bloom_batch(fd6, BLOOM_OP_QUERY, k6, n6, &o6) < 0))
			return -1;
	}
	end = now_sec();
	*present = *absent = 0;
	for (i = 0; i < n4 + n6; i++) {
		unsigned int at = i < n4 ? at4[i] : at6[i - n4];
		bool hit = i < n4 ? bit_at(r4, i) : bit_at(r6, i - n4);

		if (end >= b->t + cs_duration(b->first + at))
			continue;
		if (hit)
			(*present)++;
		else
			(*absent)++;
	}
	return 0;
}

/* A descriptor bound to filter @name, once the program has made it. */
static void cs_bind(int *fd, const char *name)
{
	if (*fd >= 0)
		return;
	*fd = bloom_open(NULL);
	if (*fd >= 0 && bloom_bind(*fd, name)) {
		close(*fd);
		*fd = -1;
	}
}

/* The last line the program wrote on standard error, in @msg. */
static void cs_last_words(char *msg, size_t len)
{
	char path[PATH_MAX + 8], buf[4096], *nl;
	ssize_t n;
	int fd;

	snprintf(msg, len, "(it said nothing)");
	snprintf(path, sizeof(path), "%s/err", cs_dir);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = 0;
	nl = strrchr(buf, '\n');
	snprintf(msg, len, "%.150s", nl ? nl + 1 : buf);
}

/* What cs_unusable() put in cs_dir, and the program's err: nothing else. */
static void cs_remove(void)
{
	static const char *const files[] = { "crowdsec-bloom-stdin",
		"crowdsec-bloom", "settings", "err" };
	char path[PATH_MAX + 32];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", cs_dir, files[i]);
		unlink(path);
	}
	if (rmdir(cs_dir))
		ksft_print_msg("could not remove %s: %s\n", cs_dir,
			       strerror(errno));
}

/*
 * Copies crowdsec-bloom-stdin and crowdsec-bloom from $2 (../clients)
 * into $1 with settings that name the soak's filters and add no rule:
 * crowdsec-bloom reads them from SYSCONFDIR's default/crowdsec-bloom,
 * here the directory's own (the script must name it, else the host's
 * settings could apply), and runs $3's bloomctl.
 */
static const char cs_setup[] =
	"cd \"$1\"\n"
	"cp \"$2/crowdsec-bloom-stdin\" .\n"
	"sed -e \"s|/etc/default/crowdsec-bloom|$1/settings|g\" \\\n"
	"    -e \"s|^BLOOMCTL=.*|BLOOMCTL=$3/bloomctl|\" \\\n"
	"    \"$2/crowdsec-bloom\" >crowdsec-bloom\n"
	"grep -q \"$1/settings\" crowdsec-bloom\n"
	"chmod 755 crowdsec-bloom\n"
	"echo 'BLOOM_CROWDSEC_SET=" CS_SET4 " BLOOM_CROWDSEC_SET6=" CS_SET6
	" BLOOM_CROWDSEC_CAPACITY=2000 BLOOM_CROWDSEC_RULE=0' >settings\n";

/*
 * Why the backend cannot run here, in @why (0 when it can): it needs
 * crowdsec-bloom-stdin and crowdsec-bloom built beside this program
 * (../clients) and bloomctl (../bin). Sets up their directory.
 */
int cs_unusable(char *why, size_t len)
{
	char self[PATH_MAX], clients[PATH_MAX + 16], bin[PATH_MAX + 16],
		prog[PATH_MAX + 48], *dir;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int status = -1;
	pid_t pid;

	if (n <= 0)
		return snprintf(why, len, "/proc/self/exe: %s", strerror(errno));
	self[n] = 0;
	dir = dirname(self);
	snprintf(clients, sizeof(clients), "%s/../clients", dir);
	snprintf(bin, sizeof(bin), "%s/../bin", dir);
	snprintf(prog, sizeof(prog), "%s/crowdsec-bloom-stdin", clients);
	if (access(prog, X_OK))
		return snprintf(why, len, "no crowdsec-bloom-stdin beside this program (make)");
	snprintf(cs_dir, sizeof(cs_dir), "/tmp/bloom-soak-cs.XXXXXX");
	if (!mkdtemp(cs_dir))
		return snprintf(why, len, "mkdtemp: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-ec", cs_setup, "sh", cs_dir, clients,
		      bin, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status) {
		cs_remove();
		return snprintf(why, len, "could not set up crowdsec-bloom in a directory of /tmp (status %d)",
				status);
	}
	/*
	 * A program that ended makes the next write to its pipe fail with
	 * EPIPE, which is reported, instead of killing the soak.
	 */
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* The program, reading @in; its pid, or -1. */
static pid_t cs_start(int in)
{
	char prog[PATH_MAX + 32], err[PATH_MAX + 8];
	char *const argv[] = { prog, NULL };
	char *const envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };
	pid_t pid;
	int efd;

	snprintf(prog, sizeof(prog), "%s/crowdsec-bloom-stdin", cs_dir);
	snprintf(err, sizeof(err), "%s/err", cs_dir);
	efd = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (efd < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(in, 0);
		dup2(efd, 1);
		dup2(efd, 2);
		/* nothing of the soak's: its descriptors are bound to filters */
		close_range(3, ~0U, 0);
		signal(SIGPIPE, SIG_DFL);
		execve(prog, argv, envp);
		_exit(127);
	}
	close(efd);
	return pid;
}

/*
 * Waits until batch @b is applied: all its live keys present (@deleted:
 * at most one in a hundred), up to CS_APPLY_S, and, unless it is the
 * @first, no longer than the soak runs. 0, or -1 with the error reported.
 */
static int cs_wait(int *fd4, int *fd6, const struct cs_batch *b,
		   bool deleted, bool first)
{
	double until = now_sec() + CS_APPLY_S;
	int present = 0, absent = 0;

	while (now_sec() < until && (first || !atomic_load(&stop))) {
		cs_bind(fd4, CS_SET4);
		cs_bind(fd6, CS_SET6);
		if (cs_query(*fd4, *fd6, b, &present, &absent)) {
			report_error("crowdsec: QUERY: %s", strerror(errno));
			return -1;
		}
		if (deleted ? present * 100 <= present + absent : !absent)
			return 0;
		usleep(20 * 1000);
	}
	if (!first && atomic_load(&stop))
		return -1;
	report_error("crowdsec: %s of a batch not applied within %d s: %d of %d keys %s",
		     deleted ? "the delete" : "the add", CS_APPLY_S,
		     deleted ? present : absent, present + absent,
		     deleted ? "still present" : "absent");
	return -1;
}

void *cs_thread(void *arg)
{
	struct cs_batch ring[CS_RING];
	int fds[2], fd4 = -1, fd6 = -1, present, absent, status;
	__u64 next = 0;
	unsigned int n = 0, i;
	char msg[200];
	pid_t pid;

	(void)arg;
	if (pipe2(fds, O_CLOEXEC)) {
		report_error("crowdsec: pipe: %s", strerror(errno));
		cs_remove();
		return NULL;
	}
	pid = cs_start(fds[0]);
	close(fds[0]);
	if (pid < 0) {
		report_error("crowdsec: cannot start crowdsec-bloom-stdin: %s",
			     strerror(errno));
		close(fds[1]);
		cs_remove();
		return NULL;
	}
	/*
	 * One round at least: the program's start and its filters' setup
	 * can take longer than a soak of a few seconds on a debug kernel.
	 */
	while (!n || !atomic_load(&stop)) {
		struct cs_batch *b = &ring[n % CS_RING];

		if (waitpid(pid, &status, WNOHANG) == pid) {
			pid = -1;
			cs_last_words(msg, sizeof(msg));
			report_error("crowdsec: crowdsec-bloom-stdin ended (status %d): %s",
				     status, msg);
			break;
		}
		b->first = next;
		b->t = now_sec();
		b->deleted = false;
		next += CS_KEYS;
		if (cs_write(fds[1], b, "add")) {
			report_error("crowdsec: write: %s", strerror(errno));
			break;
		}
		atomic_fetch_add(&cs_decisions, CS_KEYS);
		if (cs_wait(&fd4, &fd6, b, false, !n))
			break;
		n++;
		if (n > CS_DELETE_AFTER &&
		    (n - CS_DELETE_AFTER) % CS_DELETE_EVERY == 0) {
			struct cs_batch *d =
				&ring[(n - 1 - CS_DELETE_AFTER) % CS_RING];

			d->deleted = true;
			if (cs_write(fds[1], d, "del")) {
				report_error("crowdsec: write: %s",
					     strerror(errno));
				break;
			}
			if (cs_wait(&fd4, &fd6, d, true, false))
				break;
			atomic_fetch_add(&cs_deleted, CS_KEYS);
		}
		/* every batch of the ring not deleted, applied before */
		for (i = n > CS_RING ? n - CS_RING : 0; i < n; i++) {
			struct cs_batch *c = &ring[i % CS_RING];

			if (c->deleted)
				continue;
			if (cs_query(fd4, fd6, c, &present, &absent)) {
				report_error("crowdsec: QUERY: %s",
					     strerror(errno));
				goto out;
			}
			if (absent) {
				atomic_fetch_add(&false_negatives, 1);
				report_error("crowdsec: %d decisions absent before their duration passed, %.0f ms after their lines",
					     absent, (now_sec() - c->t) * 1000);
			}
		}
		atomic_fetch_add(&cs_progress, 1);
		usleep(20 * 1000);
	}
out:
	close(fds[1]);	/* end of input: the program exits 0 */
	if (pid > 0) {
		if (waitpid(pid, &status, 0) != pid) {
			report_error("crowdsec: waitpid: %s", strerror(errno));
		} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			cs_last_words(msg, sizeof(msg));
			report_error("crowdsec: crowdsec-bloom-stdin ended with status %d at the end of its input: %s",
				     status, msg);
		}
	}
	for (i = 0; i < 2; i++) {
		int *fd = i ? &fd6 : &fd4;
		struct bloom_info info;

		if (*fd < 0)
			continue;
		if (!bloom_info(*fd, i ? CS_SET6 : CS_SET4, &info))
			printf("# crowdsec: %s has %u stages at the end, %llu bytes\n",
			       i ? CS_SET6 : CS_SET4, info.stages,
			       (unsigned long long)info.memory_bytes);
		bloom_destroy(*fd, i ? CS_SET6 : CS_SET4);
		close(*fd);
	}
	cs_remove();
	return NULL;
}
