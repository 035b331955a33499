// SPDX-License-Identifier: GPL-2.0
/*
 * crowdsec-bloom-stdin: crowdsec-custom-bouncer's program when the bouncer
 * feeds decisions on standard input (feed_via_stdin: true). One process
 * for all of them: it reads what the bouncer has written, applies it to
 * the filters in one batch per filter (an ioctl for thousands of
 * decisions, where crowdsec-bloom runs a shell and bloomctl for each) and
 * reads again, so that a decision waits at most HOLD_MS.
 *
 * The filters are crowdsec-bloom's, made the way it makes them: the names
 * and settings come from "crowdsec-bloom names", and the first add of a
 * family runs "crowdsec-bloom setup ipv4|ipv6" (the filter with key
 * timeouts and its firewall rule), so that the two programs are one
 * backend in two forms and their settings live in one place. That program
 * is looked for beside this one.
 *
 * What a bad line, a decision bloom does not apply or a failed batch does
 * is said on standard error and to syslog (crowdsec-custom-bouncer 0.0.15
 * gives its program no standard error: it goes to /dev/null), and the next
 * line is read; only a device or backend that cannot be used at all ends
 * the program (exit 3), and end of input ends it (exit 0).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <libbloom.h>
#include "decision.h"

#define PROG		"crowdsec-bloom-stdin"
/* The longest a decision waits for others to share its batch. */
#define HOLD_MS		100
/* Decisions of one family held before they are applied, however fast they come. */
#define BATCH_MAX	16384
/* Bad lines named in a row; then one line says how many more there were. */
#define BAD_SHOWN	20
/*
 * How often, at most, an add runs crowdsec-bloom's setup again: the
 * per-decision program checks the filter and its rule at every add, so a
 * flushed firewall gets its rule back; here at the first add after this.
 */
#define SETUP_EVERY_S	60
/* What crowdsec-bloom may take to answer (iptables -w waits for its lock). */
#define BACKEND_TIMEOUT_S	60
#define BACKEND_OUT_MAX	4096

enum { EXIT_OK = 0, EXIT_USAGE = 2, EXIT_FAIL = 3 };

struct pending {
	uint8_t key[BLOOM_NETBLOCK_KEY_MAX];
	uint8_t klen;
	uint32_t timeout;	/* add: seconds, at most BLOOM_KEY_TIMEOUT_MAX */
};

struct family {
	int af;
	const char *kind;	/* "ipv4": crowdsec-bloom setup's word */
	char name[BLOOM_NAME_LEN];
	int fd;			/* bound to the filter, or -1 */
	uint32_t max_s;		/* the largest timeout the filter takes */
	double setup_at;	/* when setup ran last; 0: never */
	enum decision_op op;	/* of the pending decisions */
	struct pending *p;
	size_t n, cap;
	/* the batch: a key and a timeout for each pending decision */
	struct bloom_key *keys;
	uint32_t *timeouts;
};

struct state {
	char backend[PATH_MAX];
	int verbose;
	struct family fam[2];
	double first_pending;	/* when the oldest pending decision came */
	uint64_t lineno, added, deleted, expired, scoped, bad, failed;
	uint64_t batches;
	unsigned int bad_run;	/* bad lines named since the last batch */
	struct decision d;
};

static void __attribute__((format(printf, 2, 3)))
say(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, PROG ": ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	va_start(ap, fmt);
	vsyslog(prio, fmt, ap);
	va_end(ap);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *grow(void *p, size_t n, size_t size)
{
	p = reallocarray(p, n, size);
	if (!p) {
		say(LOG_ERR, "out of memory");
		exit(EXIT_FAIL);
	}
	return p;
}

/*
 * Reads each of the @npf pipes of @pf into its buffer of @bufs (NUL-
 * terminated; what does not fit is read and dropped) until all have
 * ended: 0, or -1 at @deadline (the pipes not ended are left open).
 */
static int drain(struct pollfd *pf, int npf, char bufs[][BACKEND_OUT_MAX],
		 double deadline)
{
	size_t used[2] = { 0, 0 };
	int open = npf, i;

	while (open) {
		int ms = (int)((deadline - now()) * 1000);

		if (ms <= 0)
			return -1;
		if (poll(pf, npf, ms) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		for (i = 0; i < npf; i++) {
			char scratch[512], *to = scratch;
			size_t room = sizeof(scratch);
			ssize_t r;

			if (pf[i].fd < 0 || !pf[i].revents)
				continue;
			if (used[i] + 1 < BACKEND_OUT_MAX) {
				to = bufs[i] + used[i];
				room = BACKEND_OUT_MAX - 1 - used[i];
			}
			r = read(pf[i].fd, to, room);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				close(pf[i].fd);
				pf[i].fd = -1;
				open--;
				continue;
			}
			if (to != scratch)
				used[i] += r;
			bufs[i][used[i]] = '\0';
		}
	}
	return 0;
}

/* Each line of @text (crowdsec-bloom's and bloomctl's, prefixed), said. */
static void say_lines(int prio, char *text)
{
	char *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		say(prio, "%s", line);
}

/*
 * Runs crowdsec-bloom @arg1 [@arg2]: 0 and its standard output in @out,
 * or -1 (said). What it says on standard error is said here too, for
 * the same reason as everything else (the bouncer drops it).
 */
static int backend(const struct state *s, const char *arg1, const char *arg2,
		   char out[BACKEND_OUT_MAX])
{
	char bufs[2][BACKEND_OUT_MAX] = { "", "" };
	int po[2], pe[2], status, late;
	struct pollfd pf[2];
	pid_t pid;

	if (pipe2(po, O_CLOEXEC))
		goto nopipe;
	if (pipe2(pe, O_CLOEXEC)) {
		close(po[0]);
		close(po[1]);
		goto nopipe;
	}
	pid = fork();
	if (pid == 0) {
		/* a group of its own: a hung setup goes with one kill */
		setpgid(0, 0);
		dup2(po[1], STDOUT_FILENO);
		dup2(pe[1], STDERR_FILENO);
		/* its standard input is not the decisions' */
		close(STDIN_FILENO);
		open("/dev/null", O_RDONLY);
		execl(s->backend, s->backend, arg1, arg2, (char *)NULL);
		dprintf(pe[1], "cannot run %s: %s\n", s->backend,
			strerror(errno));
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	if (pid < 0) {
		close(po[0]);
		close(pe[0]);
		say(LOG_ERR, "cannot run %s: %s", s->backend, strerror(errno));
		return -1;
	}
	pf[0] = (struct pollfd){ .fd = po[0], .events = POLLIN };
	pf[1] = (struct pollfd){ .fd = pe[0], .events = POLLIN };
	late = drain(pf, 2, bufs, now() + BACKEND_TIMEOUT_S);
	if (late) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		if (pf[0].fd >= 0)
			close(pf[0].fd);
		if (pf[1].fd >= 0)
			close(pf[1].fd);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	say_lines(late || !WIFEXITED(status) || WEXITSTATUS(status) ?
		  LOG_ERR : LOG_NOTICE, bufs[1]);
	if (late) {
		say(LOG_ERR, "%s %s%s%s gave no answer in %d s: stopped",
		    s->backend, arg1, arg2 ? " " : "", arg2 ? arg2 : "",
		    BACKEND_TIMEOUT_S);
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		say(LOG_ERR, "%s %s%s%s failed (%s %d)", s->backend, arg1,
		    arg2 ? " " : "", arg2 ? arg2 : "",
		    WIFEXITED(status) ? "exit status" : "signal",
		    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		return -1;
	}
	memcpy(out, bufs[0], BACKEND_OUT_MAX);
	return 0;
nopipe:
	say(LOG_ERR, "cannot run %s: %s", s->backend, strerror(errno));
	return -1;
}

/* Line @i (0, 1) of @text into @name, checked as a filter name. */
static int name_line(char *text, int i, char name[BLOOM_NAME_LEN])
{
	char *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line && i--;
	     line = strtok_r(NULL, "\n", &save))
		;
	if (!line || bloom_name_check(line))
		return -1;
	strcpy(name, line);
	return 0;
}

/*
 * Binds @f to its filter, after crowdsec-bloom's setup when @setup (which
 * creates it, and its rule, when missing). 0; -ENOENT when there is no
 * such filter (and no setup); another -errno, said, when it cannot be
 * used: then EXIT_FAIL for a device this program cannot use at all.
 */
static int bind_family(struct state *s, struct family *f, int setup)
{
	char out[BACKEND_OUT_MAX], msg[512];
	struct bloom_info in;
	int err;

	if (setup) {
		f->setup_at = now();
		if (backend(s, "setup", f->kind, out))
			return -EIO;
		if (name_line(out, 0, f->name)) {
			say(LOG_ERR, "%s setup %s printed no filter name", s->backend,
			    f->kind);
			return -EIO;
		}
	}
	if (f->fd >= 0)
		bloom_close(f->fd);
	f->fd = bloom_open(NULL);
	if (f->fd < 0) {
		say(LOG_ERR, "%s", bloom_strerror(msg, sizeof(msg), BLOOM_OP_OPEN,
						  NULL, f->fd));
		exit(EXIT_FAIL);
	}
	err = bloom_bind(f->fd, f->name);
	if (!err)
		err = bloom_info(f->fd, NULL, &in);
	if (err == -ENOENT && !setup)
		goto unbound;
	if (err) {
		say(LOG_ERR, "%s", bloom_strerror(msg, sizeof(msg), BLOOM_OP_BIND,
						  f->name, err));
		goto unbound;
	}
	if (in.type != BLOOM_TYPE_TIMED) {
		say(LOG_ERR, "filter %s is a %s filter, not one of keys with their own timeouts (crowdsec-bloom setup makes that): destroy it, or name another in BLOOM_CROWDSEC_SET%s",
		    f->name, bloom_type_name(in.type) ? bloom_type_name(in.type) : "?",
		    f->af == AF_INET6 ? "6" : "");
		err = -EMEDIUMTYPE;
		goto unbound;
	}
	if (in.keys != 0 && in.keys != (f->af == AF_INET ? BLOOM_KEYS_IPV4 :
					 BLOOM_KEYS_IPV6)) {
		say(LOG_ERR, "filter %s does not hold %s addresses: destroy it, or name another in BLOOM_CROWDSEC_SET%s",
		    f->name, f->af == AF_INET ? "IPv4" : "IPv6",
		    f->af == AF_INET6 ? "6" : "");
		err = -EPROTOTYPE;
		goto unbound;
	}
	f->max_s = in.key_timeout_max_s ? in.key_timeout_max_s :
		   BLOOM_KEY_TIMEOUT_MAX;
	return 0;
unbound:
	bloom_close(f->fd);
	f->fd = -1;
	if (err == -EPERM || err == -EACCES || err == -EBADF)
		exit(EXIT_FAIL);
	return err;
}

/*
 * @f's pending decisions as the keys of one batch. Every key is stored as
 * it came: crowdsec-bloom's filters have no netblock lengths of their own
 * (setup refuses a filter that has: create --exist compares them).
 */
static void batch_keys(struct family *f)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		f->keys[i] = (struct bloom_key){ .data = f->p[i].key,
						 .len = f->p[i].klen };
		f->timeouts[i] = f->p[i].timeout < f->max_s ? f->p[i].timeout :
							   f->max_s;
	}
}

/* Applies @f's pending decisions, in one batch (more after an error). */
static void apply_family(struct state *s, struct family *f)
{
	int add = f->op == DECISION_ADD, tries = 0, rebound = 0, err;
	size_t n = f->n, done = 0;
	long r;
	char msg[512];

	if (!n)
		return;
	if (add && (f->fd < 0 || now() - f->setup_at >= SETUP_EVERY_S))
		err = bind_family(s, f, 1);
	else if (f->fd < 0)
		err = bind_family(s, f, 0);
	else
		err = 0;
	if (err == -ENOENT && !add) {
		/* a filter never made holds nothing to delete */
		s->deleted += f->n;
		f->n = 0;
		return;
	}
	if (err) {
		say(LOG_ERR, "%zu decision%s for filter %s not applied", f->n,
		    f->n == 1 ? "" : "s", f->name);
		s->failed += f->n;
		f->n = 0;
		return;
	}
	batch_keys(f);
	for (;;) {
		BLOOM_BATCH_OPTS(bo, .done = &done,
				 .flags = BLOOM_BATCH_F_NET |
					  (add ? BLOOM_BATCH_F_TIMEOUT : 0),
				 .timeouts = add ? f->timeouts : NULL);

		done = 0;
		r = bloom_batch(f->fd, add ? BLOOM_OP_ADD : BLOOM_OP_DELETE,
				f->keys, n, &bo);
		if (r >= 0)
			break;
		if ((r == -EINTR || r == -EAGAIN) && ++tries < 5)
			continue;
		/* destroyed meanwhile (an administrator's bloomctl destroy) */
		if ((r == -ESTALE || r == -EBADFD) && !rebound++) {
			err = bind_family(s, f, add);
			if (!err)
				continue;
			if (err == -ENOENT) {
				s->deleted += f->n;
				f->n = 0;
				return;
			}
		}
		say(LOG_ERR, "%s; %zu of %zu decision%s %s, not the others",
		    bloom_strerror(msg, sizeof(msg), add ? BLOOM_OP_ADD :
				   BLOOM_OP_DELETE, f->name, (int)r),
		    done, n, n == 1 ? "" : "s", add ? "applied" : "deleted");
		if (r == -EPERM || r == -EACCES || r == -EBADF)
			exit(EXIT_FAIL);
		s->failed += f->n;
		f->n = 0;
		return;
	}
	s->batches++;
	if (s->verbose)
		say(LOG_INFO, "%s: %s %zu key%s in one batch", f->name,
		    add ? "added" : "deleted", n, n == 1 ? "" : "s");
	if (add)
		s->added += f->n;
	else
		s->deleted += f->n;
	f->n = 0;
}

static void apply_all(struct state *s)
{
	apply_family(s, &s->fam[0]);
	apply_family(s, &s->fam[1]);
	s->bad_run = 0;
}

static void __attribute__((format(printf, 3, 4)))
bad_line(struct state *s, int prio, const char *fmt, ...)
{
	char text[512];
	va_list ap;

	if (++s->bad_run > BAD_SHOWN) {
		if (s->bad_run == BAD_SHOWN + 1)
			say(prio, "line %" PRIu64 " and on: more lines not applied; the count comes at the end",
			    s->lineno);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	say(prio, "line %" PRIu64 ": %s", s->lineno, text);
}

/* One line of the bouncer's: a decision to hold for the next batch. */
static void take_line(struct state *s, const char *line, size_t len)
{
	struct decision *d = &s->d;
	struct family *f;
	struct pending *p;
	uint8_t key[BLOOM_NETBLOCK_KEY_MAX];
	const char *why = NULL;
	int64_t t = 0;
	int family, klen;

	if (len && line[len - 1] == '\r')
		len--;
	if (!len)
		return;
	if (decision_parse(line, len, d, &why)) {
		s->bad++;
		bad_line(s, LOG_ERR, "%s; not applied", why);
		return;
	}
	switch (decision_key(d, &family, key, &klen, &why)) {
	case DECISION_SCOPE:
		s->scoped++;
		bad_line(s, LOG_WARNING, "decision of scope '%.32s' for '%.64s' not applied: bloom applies scopes ip and range only",
			 decision_printable(d->scope) ? d->scope : "?",
			 decision_printable(d->value) ? d->value : "?");
		return;
	case DECISION_BAD:
		s->bad++;
		bad_line(s, LOG_ERR, "'%.64s': %s; not applied",
			 decision_printable(d->value) ? d->value : "(not printable)",
			 why);
		return;
	case DECISION_KEY:
		break;
	}
	if (d->op == DECISION_ADD) {
		if (!d->duration ||
		    decision_seconds(d->duration, BLOOM_KEY_TIMEOUT_MAX, &t)) {
			s->bad++;
			bad_line(s, LOG_ERR, "'%.64s': %s; not applied", d->value,
				 d->duration ? "a duration that is none (Go's 4h0m0s, or seconds)" :
					       "an add without a \"duration\"");
			return;
		}
		/* an expired decision has nothing left to do */
		if (t <= 0) {
			s->expired++;
			return;
		}
	}
	f = &s->fam[family == AF_INET6];
	/* an add and a delete of one key apply in the order they came */
	if (f->n && f->op != d->op)
		apply_family(s, f);
	if (!f->n && !s->fam[!(family == AF_INET6)].n)
		s->first_pending = now();
	f->op = d->op;
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 256;
		f->p = grow(f->p, f->cap, sizeof(*f->p));
		f->keys = grow(f->keys, f->cap, sizeof(*f->keys));
		f->timeouts = grow(f->timeouts, f->cap, sizeof(*f->timeouts));
	}
	p = &f->p[f->n++];
	memcpy(p->key, key, klen);
	p->klen = (uint8_t)klen;
	p->timeout = (uint32_t)t;
	if (f->n >= BATCH_MAX)
		apply_family(s, f);
}

static int pending(const struct state *s)
{
	return s->fam[0].n || s->fam[1].n;
}

/* Is there input to read right now? */
static int input_ready(void)
{
	struct pollfd pf = { .fd = STDIN_FILENO, .events = POLLIN };

	return poll(&pf, 1, 0) > 0;
}

static void summary(const struct state *s)
{
	say(LOG_INFO, "end of input after %" PRIu64 " lines: %" PRIu64 " added, %" PRIu64 " deleted, %" PRIu64 " expired already, %" PRIu64 " of other scopes, %" PRIu64 " bad, %" PRIu64 " not applied; %" PRIu64 " batches",
	    s->lineno, s->added, s->deleted, s->expired, s->scoped, s->bad,
	    s->failed, s->batches);
}

/*
 * Reads lines, DECISION_LINE_MAX bytes at most (a longer one is said and
 * passed over to its end), and applies what came whenever input pauses,
 * HOLD_MS passed or a batch is full.
 */
static void run(struct state *s)
{
	static char buf[DECISION_LINE_MAX + 65536];
	size_t have = 0, start;
	int skipping = 0;

	for (;;) {
		int ms = -1;
		ssize_t r;
		char *nl;
		struct pollfd pf = { .fd = STDIN_FILENO, .events = POLLIN };

		if (pending(s)) {
			ms = (int)((s->first_pending + HOLD_MS / 1000.0 - now()) * 1000);
			if (ms <= 0) {
				apply_all(s);
				continue;
			}
		}
		if (poll(&pf, 1, ms) < 0 && errno != EINTR) {
			say(LOG_ERR, "cannot wait for standard input: %s", strerror(errno));
			apply_all(s);
			exit(EXIT_FAIL);
		}
		if (!pf.revents)
			continue;
		r = read(STDIN_FILENO, buf + have, sizeof(buf) - have);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0) {
			say(LOG_ERR, "cannot read standard input: %s", strerror(errno));
			apply_all(s);
			exit(EXIT_FAIL);
		}
		if (r == 0) {
			/* a last line without its newline is still a line */
			if (have && !skipping) {
				s->lineno++;
				take_line(s, buf, have);
			}
			apply_all(s);
			return;
		}
		have += r;
		start = 0;
		while ((nl = memchr(buf + start, '\n', have - start))) {
			size_t len = nl - (buf + start);

			if (skipping) {
				skipping = 0;
			} else {
				s->lineno++;
				take_line(s, buf + start, len);
			}
			start += len + 1;
		}
		memmove(buf, buf + start, have - start);
		have -= start;
		if (have > DECISION_LINE_MAX) {
			if (!skipping) {
				s->lineno++;
				s->bad++;
				bad_line(s, LOG_ERR, "a line over %d bytes: not a decision of the bouncer's; passed over to its end",
					 DECISION_LINE_MAX);
			}
			skipping = 1;
			have = 0;
		}
		if (pending(s) && !input_ready())
			apply_all(s);
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [--verbose]\n"
		"\n"
		"crowdsec-custom-bouncer's program with feed_via_stdin: true: reads the\n"
		"bouncer's decisions, a JSON object a line ({\"action\":\"add\"|\"del\",\n"
		"\"scope\":\"Ip\"|\"Range\", \"value\":ADDRESS|CIDR, \"duration\":\"4h0m0s\", ...}),\n"
		"from standard input and applies them to crowdsec-bloom's filters in\n"
		"batches, each add with its duration as the key's timeout.\n"
		"Settings and the filters' setup are crowdsec-bloom's (beside this\n"
		"program); messages go to standard error and syslog.\n"
		"\n"
		"  -v, --verbose   say what each batch applied\n"
		"  -h, --help      this text\n"
		"\n"
		"Exits 0 at the end of input, 2 on a bad command line, 3 when the\n"
		"device or crowdsec-bloom cannot be used. See bloom-clients(7).\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct state s;
	char self[PATH_MAX], out[BACKEND_OUT_MAX], msg[512];
	ssize_t len;
	int c, i, fd;

	while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (c) {
		case 'v':
			s.verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	openlog(PROG, LOG_PID, LOG_DAEMON);
	/* crowdsec-bloom, beside this program */
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len < 0) {
		say(LOG_ERR, "cannot find this program's directory (/proc/self/exe): %s",
		    strerror(errno));
		return EXIT_FAIL;
	}
	self[len] = '\0';
	snprintf(s.backend, sizeof(s.backend), "%s/crowdsec-bloom", dirname(self));
	/* the device first: without it nothing can be done */
	fd = bloom_open(NULL);
	if (fd < 0) {
		say(LOG_ERR, "%s", bloom_strerror(msg, sizeof(msg), BLOOM_OP_OPEN,
						  NULL, fd));
		return EXIT_FAIL;
	}
	bloom_close(fd);
	if (backend(&s, "names", NULL, out))
		return EXIT_FAIL;
	for (i = 0; i < 2; i++) {
		char copy[BACKEND_OUT_MAX];
		struct family *f = &s.fam[i];

		f->af = i ? AF_INET6 : AF_INET;
		f->kind = i ? "ipv6" : "ipv4";
		f->fd = -1;
		memcpy(copy, out, sizeof(copy));
		if (name_line(copy, i, f->name)) {
			say(LOG_ERR, "%s names printed no %s filter name", s.backend,
			    i ? "IPv6" : "IPv4");
			return EXIT_FAIL;
		}
		/* one that exists takes deletes at once; adds set it up */
		bind_family(&s, f, 0);
	}
	run(&s);
	summary(&s);
	return EXIT_OK;
}
