// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * Error messages for people: the errno values of <linux/bloom.h> mean
 * different things depending on the operation, and a bare "File exists" or
 * "Disk quota exceeded" does not say what to do about it.
 */
#include <stdio.h>
#include <string.h>
#include "internal.h"

#define LB_STR_(x)	#x
#define LB_STR(x)	LB_STR_(x)

static const char *const op_names[] = {
	[BLOOM_OP_OPEN] = "open",
	[BLOOM_OP_VERSION] = "version",
	[BLOOM_OP_CREATE] = "create",
	[BLOOM_OP_DESTROY] = "destroy",
	[BLOOM_OP_BIND] = "bind",
	[BLOOM_OP_INFO] = "info",
	[BLOOM_OP_LIST] = "list",
	[BLOOM_OP_ADD] = "add",
	[BLOOM_OP_QUERY] = "query",
	[BLOOM_OP_DELETE] = "delete",
	[BLOOM_OP_SAVE] = "save",
	[BLOOM_OP_RESTORE] = "restore",
	[BLOOM_OP_MERGE] = "merge",
	[BLOOM_OP_FLUSH] = "flush",
	[BLOOM_OP_SWAP] = "swap",
	[BLOOM_OP_STAGES] = "stages",
};

static const char *open_error(int err)
{
	switch (err) {
	case ENOENT:
		return "%s not found: is the bloom module loaded? (modprobe bloom)";
	case EACCES:
	case EPERM:
		return "permission denied on %s: run as root, or get read-write access to the device";
	case ENXIO:
	case ENODEV:
		return "%s has no driver behind it: load the bloom module again (modprobe -r bloom; modprobe bloom)";
	case ENOTDIR:
		return "%s is not a valid device path: a path component is not a directory";
	}
	return NULL;
}

static const char *filter_error(enum bloom_op op, int err)
{
	switch (err) {
	case ENOTTY:
		return "the bloom module does not know this command: it is older than this program (or the device is not /dev/bloom); update the module";
	case EEXIST:
		return "a filter named %s exists already: pick another name or destroy it first";
	case EMFILE:
		return "%s: too many filters in this network namespace (module parameter max_filters_per_netns): destroy filters you no longer need";
	case ENOENT:
		return "no filter named %s (bloom_list() gives the names there are)";
	case ESTALE:
		return "filter %s was destroyed while this program used it: create it again and retry";
	case EPERM:
		return "%s: this needs CAP_NET_ADMIN: run as root (querying and info do not)";
	case EBADF:
		return "%s: changing filters needs write access to the bloom device, and this user may only read it: run as root (with CAP_NET_ADMIN)";
	case EDQUOT:
		if (op == BLOOM_OP_ADD)
			return "scalable filter %s cannot grow: its next stage would take the bloom module over its memory limit (the keys added before stay): destroy filters you no longer need or raise the limit (echo BYTES > /sys/module/bloom/parameters/max_memory)";
		if (op == BLOOM_OP_FLUSH)
			return "%s: a flush of a scalable filter makes its first stage anew before the old stages are freed, and that stage would take the bloom module over its memory limit (nothing was changed): destroy filters you no longer need or raise the limit (echo BYTES > /sys/module/bloom/parameters/max_memory)";
		if (op == BLOOM_OP_SAVE)
			return "%s: a save copies the filter into kernel memory first, and the copy would take the bloom module over its memory limit: destroy filters you no longer need or raise the limit (echo BYTES > /sys/module/bloom/parameters/max_memory)";
		return "%s: the filter would take the bloom module over its memory limit: destroy filters you no longer need or raise the limit (echo BYTES > /sys/module/bloom/parameters/max_memory)";
	case ENOMEM:
		if (op == BLOOM_OP_ADD)
			return "%s: the kernel could not allocate memory for the batch or for a scalable filter's next stage (keys added before stay): free memory or raise the memory cgroup limit";
		return "%s: the kernel could not allocate the memory: free memory, lower the capacity, or raise the memory cgroup limit";
	case EOPNOTSUPP:
		if (op == BLOOM_OP_CREATE)
			return "%s: the bloom module does not implement this filter type or option (a d-left filter takes no explicit geometry; only standard and blocked filters can be scalable): bloom_version() tells what it supports";
		/* Only counting and d-left filters keep what a delete needs. */
		if (op == BLOOM_OP_DELETE)
			return "filter %s is a standard or blocked filter, which cannot delete keys: only counting and dleft filters can";
		if (op == BLOOM_OP_MERGE)
			return "%s: d-left filters cannot be merged (their cells cannot be added up), nor a scalable filter with one that is not (and an older module merges no scalable filters): add the other filter's keys instead";
		if (op == BLOOM_OP_SAVE || op == BLOOM_OP_RESTORE)
			return "%s: snapshots need a little-endian machine";
		if (op == BLOOM_OP_FLUSH)
			return "%s: this bloom module is older and cannot flush a scalable filter: update the module, or destroy the filter and create it again";
		if (op == BLOOM_OP_STAGES)
			return "filter %s is not scalable: only scalable filters have stages";
		return "%s: this filter's type cannot do this operation";
	case ENOSPC:
		/*
		 * A d-left insert found its 4 candidate buckets full; the
		 * keys before that one stay added.
		 */
		if (op == BLOOM_OP_ADD)
			return "filter %s is full: a key found every d-left bucket it may use full, and the keys from it on were not added; create a larger filter (or delete keys) and add them again";
		return NULL;
	case E2BIG:
		return op == BLOOM_OP_CREATE ?
		       "%s: the filter would be too large (over 2^40 bits): lower the capacity or raise the false-positive rate" :
		       "%s: the request is larger than the module accepts (an older module?): update the module";
	case ENAMETOOLONG:
		return "filter name '%s' is too long: use at most 31 characters";
	case EBADMSG:
		return "%s: not a bloom snapshot, or a damaged one (checksum, length or contents): nothing was created";
	case EPROTONOSUPPORT:
		return "%s: the snapshot was written by another version of bloom (format, feature or hash scheme this module does not read): rebuild it from the keys";
	case EOVERFLOW:
		if (op == BLOOM_OP_ADD)
			return "%s: the keys would take the filter's false-positive rate past " LB_STR(BLOOM_OVERFILL_RATIO) " times the one it was created for (at most " LB_STR(BLOOM_OVERFILL_MAX) "), where it matches most keys it never held; nothing was added: create a larger filter for them (bloom_size() sizes it), or add with BLOOM_ADD_F_OVERFILL to add them anyway";
		return "%s: the filter grew while it was being saved: try again";
	case EINVAL:
		if (op == BLOOM_OP_MERGE)
			return "%s: the filters differ in type, geometry (scalable: the parameters of their stages) or hash key, or are the same filter: merge only filters made with 'create --like' or from one snapshot";
		if (op == BLOOM_OP_SWAP)
			return "%s: only filters of the same type, both scalable or neither, can be swapped";
		if (op == BLOOM_OP_RESTORE)
			return "%s: the snapshot is of another filter type than the filter it would replace (or one of them is scalable and the other not): destroy that filter first, or restore under another name";
		if (op == BLOOM_OP_CREATE)
			return "the module rejected the parameters of filter %s: name, capacity, false-positive rate or geometry out of range (the limits are in <linux/bloom.h>), or, for a filter like another, a type, size, hash key or flag other than BLOOM_CREATE_F_BIND given with it";
		if (op == BLOOM_OP_ADD || op == BLOOM_OP_QUERY ||
		    op == BLOOM_OP_DELETE)
			return "%s: the module rejected a key (empty or over 4096 bytes; with BLOOM_BATCH_F_NET: not an address or netblock, host bits set, or both families in one batch)";
		return "invalid filter name '%s': use 1 to 31 printable ASCII characters other than space and '/', and not '.' or '..'";
	case EPROTOTYPE:
		if (op == BLOOM_OP_SWAP || op == BLOOM_OP_MERGE ||
		    op == BLOOM_OP_RESTORE)
			return "%s: the two filters hold keys of different kinds (strings, ipv4, ipv6; bloomctl info shows them)";
		return "%s: the keys are not of the filter's kind (bloomctl info shows it): a filter of IPv4 or IPv6 keys takes addresses and netblocks of its family only (bloomctl --ipv4 or --ipv6; BLOOM_BATCH_F_NET), a filter of strings no addresses";
	case EBADFD:
		return "%s: the descriptor is not bound to a filter (a bug in the caller: bind first)";
	case EBUSY:
		if (op == BLOOM_OP_DESTROY)
			return "filter %s is in use by firewall rules (iptables -m bloom --bloom-set %s): delete those rules first (they are listed by iptables -S and ip6tables -S, or iptables-legacy -S and ip6tables-legacy -S for the legacy backend), then destroy it";
		return "%s: the descriptor is bound to a filter already (a bug in the caller: open another one)";
	case EINTR:
		return "%s: interrupted: try again";
	case EAGAIN:
		if (op == BLOOM_OP_ADD || op == BLOOM_OP_QUERY ||
		    op == BLOOM_OP_DELETE)
			return "%s: the filter's contents were replaced (swap, replacing restore, flush) over and over during the call: nothing was added or deleted; try again";
		break;
	case EFAULT:
		return "%s: the module could not access the caller's memory (a bug in the caller)";
	}
	return NULL;
}

/*
 * @subject as text that stays on one line: a byte outside printable ASCII
 * becomes \xHH (a name or path can hold a newline).
 */
static void escape(char *dst, size_t len, const char *src)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	for (; *src && o + 5 < len; src++) {
		unsigned char c = *src;

		if (c >= 0x20 && c < 0x7f) {
			dst[o++] = c;
		} else {
			dst[o++] = '\\';
			dst[o++] = 'x';
			dst[o++] = hex[c >> 4];
			dst[o++] = hex[c & 15];
		}
	}
	if (*src && o + 4 <= len) {	/* cut short: say so */
		memcpy(dst + o, "...", 3);
		o += 3;
	}
	dst[o] = '\0';
}

/* Fills in @subject once or twice: every format above has at most two %s. */
const char *bloom_strerror(char *buf, size_t len, enum bloom_op op,
			   const char *subject, int err)
{
	const char *fmt, *what;
	char sys[128], subj[4 * 64 + 8];

	if (!buf || !len)
		return buf;
	if (err < 0)
		err = -err;
	/* An op this library does not know (a caller's bug, or a newer
	 * header): the generic message, never an out-of-bounds read. */
	if ((unsigned int)op < sizeof(op_names) / sizeof(op_names[0]) &&
	    op_names[op]) {
		what = op_names[op];
		fmt = op == BLOOM_OP_OPEN ? open_error(err) : filter_error(op, err);
	} else {
		what = "operation";
		fmt = NULL;
	}
	if (!subject)
		subject = op == BLOOM_OP_OPEN ? BLOOM_DEFAULT_DEVICE :
		      fmt ? "(unnamed)" : "";
	escape(subj, sizeof(subj), subject);
	if (fmt) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		snprintf(buf, len, fmt, subj, subj);
#pragma GCC diagnostic pop
		return buf;
	}
	/* strerror_r is the GNU variant under _GNU_SOURCE; both write here. */
	snprintf(sys, sizeof(sys), "error %d", err);
#if defined(_GNU_SOURCE)
	snprintf(buf, len, "%s %s%sfailed: %s", what, subj,
		 *subj ? " " : "", strerror_r(err, sys, sizeof(sys)));
#else
	strerror_r(err, sys, sizeof(sys));
	snprintf(buf, len, "%s %s%sfailed: %s", what, subj,
		 *subj ? " " : "", sys);
#endif
	return buf;
}
