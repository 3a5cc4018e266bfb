/* SPDX-License-Identifier: MIT */
/*
 * Opening a file whose path came from somewhere we do not trust (a trace names
 * its modules): only a regular file is read. O_NONBLOCK so that a FIFO or a
 * device planted at that path cannot make the open wait for ever; it changes
 * nothing for a regular file.
 */
#ifndef CT_COMMON_REGFILE_H
#define CT_COMMON_REGFILE_H

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* A read-only descriptor of the regular file at path, or -1 with errno set. */
static inline int ct_open_regular(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

#endif
