// SPDX-License-Identifier: GPL-2.0
/*
 * The line reader for "-f FILE": read(2) into one fixed buffer (few system
 * calls, which cost microseconds each in an emulated guest), line numbers
 * for error messages, "\n" or "\r\n" stripped. Memory stays bounded whatever
 * the input: a line that cannot be a key (over BLOOM_KEY_MAX bytes) is
 * reported as soon as that many bytes came without a newline, and a read
 * error is reported as one, never taken for the end of the input.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bloomctl.h"

#define LR_BUFSIZE	(1 << 20)
/* The longest line that may still be a key: BLOOM_KEY_MAX bytes and '\r'. */
#define LR_LINE_MAX	(BLOOM_KEY_MAX + 1)

_Static_assert(LR_BUFSIZE > 2 * (LR_LINE_MAX + 1),
	       "a whole line fits the buffer after compaction");

int lr_open(struct line_reader *lr, const char *path)
{
	memset(lr, 0, sizeof(*lr));
	lr->fd = -1;
	if (strcmp(path, "-")) {
		lr->path = path;
		lr->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (lr->fd < 0)
			return -errno;
	} else {
		lr->path = "standard input";
		lr->fd = STDIN_FILENO;
	}
	lr->buf = malloc(LR_BUFSIZE);
	if (!lr->buf) {
		lr_close(lr);
		return -ENOMEM;
	}
	return 0;
}

/* Reads more after what is unread; 0, or -errno. */
static int fill(struct line_reader *lr)
{
	ssize_t n;

	if (lr->start) {
		memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
		lr->end -= lr->start;
		lr->start = 0;
	}
	do {
		/* one byte kept for the NUL after a last line without "\n" */
		n = read(lr->fd, lr->buf + lr->end, LR_BUFSIZE - 1 - lr->end);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		lr->eof = 1;
	lr->end += n;
	return 0;
}

long lr_next(struct line_reader *lr, char **line)
{
	char *s, *nl;
	size_t len;
	int err;

	for (;;) {
		s = lr->buf + lr->start;
		nl = memchr(s, '\n', lr->end - lr->start);
		if (nl) {
			len = nl - s;
			lr->start += len + 1;
			break;
		}
		len = lr->end - lr->start;
		if (len > LR_LINE_MAX) {
			lr->lineno++;
			return LR_TOO_LONG;
		}
		if (lr->eof) {
			if (!len)
				return LR_END;
			lr->start = lr->end;	/* a last line without "\n" */
			break;
		}
		err = fill(lr);
		if (err) {
			errno = -err;
			return LR_ERROR;
		}
	}
	lr->lineno++;
	if (len > 0 && s[len - 1] == '\r')
		len--;
	s[len] = '\0';
	*line = s;
	return len;
}

void lr_close(struct line_reader *lr)
{
	if (lr->fd > STDIN_FILENO)
		close(lr->fd);
	free(lr->buf);
	lr->fd = -1;
	lr->buf = NULL;
}

const char *file_line(const char *path, uint64_t line)
{
	static char buf[4][PATH_MAX + 24];
	static unsigned int next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof(buf[0]), "%s:%" PRIu64, path, line);
	return b;
}
