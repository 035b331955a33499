// SPDX-License-Identifier: GPL-2.0
/*
 * The warning after an add that left a filter over its capacity: the keys
 * are in (the exit status stays 0), but the false-positive rate is no
 * longer the one asked for. An expiring filter's capacity is keys per
 * timeout, taken evenly: each of its G generations takes capacity / (G - 1)
 * keys in its period, so a burst overfills one generation long before the
 * filter holds its capacity; the warning names that generation, its share
 * and the capacity that would take the burst.
 *
 * The refusal of an add that would take a filter whose size is fixed
 * (standard, blocked, counting) to a rate at which it matches nearly
 * everything (a DROP rule on such a filter drops every address, its
 * owner's included) is libbloom's (libbloom.h, "Overfill"): its add calls
 * refuse such a call with EOVERFLOW; bloomctl says so with the figures of
 * bloom_add_estimate(), and checks a whole input it can count up front.
 */
#include <errno.h>
#include <inttypes.h>
#include "bloomctl.h"

/* Oldest first, as BLOOM_IOC_STAGES gives them: the fullest over its share. */
static int fullest_generation(const struct bloom_stage *st, size_t n)
{
	int best = -1;
	size_t i;

	for (i = 0; i < n; i++)
		if (st[i].count > st[i].capacity &&
		    (best < 0 || st[i].count * st[best].capacity >
				 st[best].count * st[i].capacity))
			best = (int)i;
	return best;
}

static void warn_expiring(int fd, const struct bloom_info *in)
{
	struct bloom_stage st[BLOOM_SCALE_STAGES_MAX];
	size_t n = get_stages(fd, in, st);
	uint64_t period = expire_period_ms(in->timeout_ms, in->generations);
	int g = fullest_generation(st, n);
	char a[64], b[64], c[64];

	if (g < 0) {
		fprintf(stderr, "bloomctl: warning: %s took more than its capacity of %" PRIu64 " keys in one timeout (%s): its false-positive rate is now about %.3g, not the %.3g it was created for, until the generations that hold them rotate out; create a filter with a larger --capacity\n",
			in->name, (uint64_t)in->capacity,
			duration_text(in->timeout_ms, a, sizeof(a)),
			in->estimated_fpp_ppb / 1e9, in->fpp_ppb / 1e9);
		return;
	}
	fprintf(stderr, "bloomctl: warning: %s: generation %d of %u (oldest first) holds about %" PRIu64 " keys, more than its share of %" PRIu64 ": a capacity of %" PRIu64 " keys per timeout (%s) is taken evenly, capacity / (G - 1) = %" PRIu64 " keys in each period of %s, and a burst overfills one generation; its false-positive rate is now about %.3g, not the %.3g it was created for, until that generation is cleared (in %s at most). For bursts of %" PRIu64 " keys, create the filter with --capacity %" PRIu64 " or more\n",
		in->name, g, in->generations, (uint64_t)st[g].count,
		(uint64_t)st[g].capacity, (uint64_t)in->capacity,
		duration_text(in->timeout_ms, a, sizeof(a)),
		(uint64_t)st[g].capacity,
		duration_text(period, b, sizeof(b)),
		in->estimated_fpp_ppb / 1e9, in->fpp_ppb / 1e9,
		duration_text(in->next_rotation_ms + (uint64_t)g * period, c,
			      sizeof(c)),
		(uint64_t)st[g].count,
		(uint64_t)st[g].count * (in->generations - 1));
}

void warn_over_capacity(int fd, const char *name)
{
	struct info_derived d;
	struct bloom_info in;

	/* a failing INFO (an old module) says nothing */
	if (bloom_info(fd, NULL, &in))
		return;
	info_derive(&in, &d);
	if (!d.over_capacity)
		return;
	if (in.generations) {
		warn_expiring(fd, &in);
		return;
	}
	fprintf(stderr, "bloomctl: warning: %s holds about %.0f keys, more than its capacity of %" PRIu64 " (keys %s): its false-positive rate is now about %.3g, not the %.3g it was created for; create a larger filter and add the keys again\n",
		name, d.keys, (uint64_t)in.capacity,
		d.keys_added ? "added" : "estimated", in.estimated_fpp_ppb / 1e9,
		in.fpp_ppb / 1e9);
}

/*
 * The refusal's sentence, with libbloom's estimate (the bound is the
 * library's: bloom_add_estimate()); when the filter changed since the add
 * was refused and is no longer past it, the library's sentence.
 */
static void __attribute__((noreturn))
die_overfill(const char *name, uint64_t more, const char *done,
	     const struct bloom_add_estimate *e)
{
	char msg[768];

	if (!e)
		die("%s; %s", op_message(msg, sizeof(msg), BLOOM_OP_ADD, name,
					 -EOVERFLOW), done);
	die("%s: %" PRIu64 " more key%s on the about %.0f it holds (capacity %" PRIu64 ") would take its false-positive rate to about %.3g, past %.3g (%d times the %.3g it was created for, at most %g): a rule on it would match %s; %s. Create a filter for the keys (bloomctl calc --capacity N --fpp P shows its size), or give --allow-overfill to add them anyway",
	    name, more, more == 1 ? "" : "s", (double)e->keys, e->capacity,
	    e->fpp_after, e->bound, BLOOM_OVERFILL_RATIO, e->fpp,
	    BLOOM_OVERFILL_MAX,
	    e->fpp_after > 0.5 ? "most addresses it never held" :
				 "many addresses it never held", done);
}

void check_overfill(int fd, const char *name, uint64_t more, int allow,
		    const char *done)
{
	struct bloom_add_estimate e = { .sz = sizeof(e) };

	/* a failing INFO (an old module) says nothing; the add will */
	if (allow || !more || bloom_add_estimate(fd, NULL, more, &e) != 1)
		return;
	die_overfill(name, more, done, &e);
}

void die_overfilled(int fd, const char *name, uint64_t more, const char *done)
{
	struct bloom_add_estimate e = { .sz = sizeof(e) };

	die_overfill(name, more, done,
		     bloom_add_estimate(fd, NULL, more, &e) == 1 ? &e : NULL);
}

const char *full_message(char *msg, size_t len, int fd, const char *name)
{
	struct bloom_info in;

	if (bloom_info(fd, NULL, &in))
		return NULL;
	if (in.stages) {
		snprintf(msg, len, "scalable filter %s cannot grow: it has its last possible stage (%u of at most %d; a stage's capacity, size and rate have limits): create a filter with a larger --capacity or --growth",
			 name, in.stages, BLOOM_SCALE_STAGES_MAX);
		return msg;
	}
	if (in.type == BLOOM_TYPE_TIMED) {
		snprintf(msg, len, "filter %s is full: it was created for %" PRIu64 " keys with timeouts of their own and a new key found no room among the places it may take (keys go when their timeouts pass, or by del); create it with a larger --capacity",
			 name, (uint64_t)in.capacity);
		return msg;
	}
	return NULL;
}
