// SPDX-License-Identifier: GPL-2.0
/*
 * The line reader for "-f FILE": stdio with a large buffer (few read()
 * calls, which cost microseconds each in an emulated guest), line numbers
 * for error messages, and "\n" or "\r\n" stripped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include "bloomctl.h"

#define LR_BUFSIZE	(1 << 20)

int lr_open(struct line_reader *lr, const char *path)
{
	memset(lr, 0, sizeof(*lr));
	lr->path = strcmp(path, "-") ? path : "standard input";
	lr->f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!lr->f)
		return -errno;
	/* Best effort: without it, reading only makes more system calls. */
	setvbuf(lr->f, NULL, _IOFBF, LR_BUFSIZE);
	return 0;
}

long lr_next(struct line_reader *lr, char **line)
{
	ssize_t len;

	errno = 0;
	len = getline(&lr->buf, &lr->cap, lr->f);
	if (len < 0)
		return ferror(lr->f) ? -2 : -1;
	lr->lineno++;
	if (len > 0 && lr->buf[len - 1] == '\n') {
		len--;
		if (len > 0 && lr->buf[len - 1] == '\r')
			len--;
	}
	lr->buf[len] = '\0';
	*line = lr->buf;
	return len;
}

void lr_close(struct line_reader *lr)
{
	if (lr->f && lr->f != stdin)
		fclose(lr->f);
	free(lr->buf);
	lr->f = NULL;
	lr->buf = NULL;
}
