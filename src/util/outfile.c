/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "util.h"

/*
 * Is path something to write into directly rather than replace: a device, a
 * pipe or a socket, or a link to one that we or root made (/dev/stdout)?
 * A link someone else planted is never followed.
 */
static int ct_write_in_place(const char *path, const struct stat *l)
{
	struct stat t;
	if (!S_ISLNK(l->st_mode))
		return !S_ISREG(l->st_mode);
	if (l->st_uid != geteuid() && l->st_uid != 0)
		return 0;
	return stat(path, &t) == 0 && !S_ISREG(t.st_mode) && !S_ISDIR(t.st_mode);
}

/*
 * Open what ct_write_in_place() chose. It may have been swapped for a regular
 * file since the lstat: no O_TRUNC (that would empty the file before we can
 * look), not through a link unless one was there, and a regular file found
 * by fstat is closed again: -2, to be replaced like any file. -1 with errno.
 */
static int ct_open_in_place(const char *path, const struct stat *l)
{
	struct stat st;
	int fd = open(path, O_WRONLY | O_CLOEXEC | (S_ISLNK(l->st_mode) ? 0 : O_NOFOLLOW));
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode))
		return fd;
	close(fd);
	return -2;
}

int ct_outfile_open(struct ct_outfile *o, const char *path)
{
	struct stat l, t;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (lstat(path, &l) == 0) {
		if (S_ISDIR(l.st_mode) ||
		    (S_ISLNK(l.st_mode) && stat(path, &t) == 0 && S_ISDIR(t.st_mode))) {
			errno = EISDIR;
			return -1;
		}
		if (ct_write_in_place(path, &l)) {
			int fd = ct_open_in_place(path, &l);
			if (fd != -2) {
				o->fd = fd;
				return fd < 0 ? -1 : 0;
			}
		}
	}
	o->path = ct_strdup(path);
	o->tmp = ct_printf("%s.XXXXXX", path);
	o->fd = mkostemp(o->tmp, O_CLOEXEC); /* 0600, a name nobody else has */
	if (o->fd < 0) {
		int err = errno;
		free(o->tmp);
		free(o->path);
		o->tmp = o->path = NULL;
		errno = err;
		return -1;
	}
	return 0;
}

int ct_outfile_finish(struct ct_outfile *o, int ok)
{
	int r = 0, err = 0;
	if (o->tmp) {
		if (ok && rename(o->tmp, o->path) < 0) { /* replaces a link, never follows it */
			err = errno;
			r = -1;
		}
		if (!ok || r)
			unlink(o->tmp);
	}
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	errno = err;
	return r;
}

/* The temporary file being written, removed if a signal ends us. */
static char *volatile ct_output_tmp;

static void ct_output_on_signal(int sig)
{
	if (ct_output_tmp)
		unlink(ct_output_tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

int ct_output_open(struct ct_output *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	o->file.fd = -1;
	if (!strcmp(path, "-")) {
		o->name = "standard output";
		o->f = stdout;
		return 0;
	}
	o->name = path;
	signal(SIGINT, ct_output_on_signal);
	signal(SIGTERM, ct_output_on_signal);
	signal(SIGHUP, ct_output_on_signal);
	if (ct_outfile_open(&o->file, path) < 0)
		return -1;
	ct_output_tmp = o->file.tmp;
	if (!(o->f = fdopen(o->file.fd, "w"))) {
		int err = errno;
		close(o->file.fd);
		ct_output_close(o, 0);
		errno = err;
		return -1;
	}
	return 0;
}

int ct_output_close(struct ct_output *o, int ok)
{
	int err = 0;
	if (o->f == stdout) {
		if (fflush(stdout) != 0)
			err = errno;
	} else {
		if (o->f && fclose(o->f) != 0)
			err = errno;
		ct_output_tmp = NULL; /* before it is freed: the signal handler reads it */
		if (ct_outfile_finish(&o->file, ok && !err) < 0 && !err)
			err = errno;
	}
	o->f = NULL;
	errno = err;
	return err ? -1 : 0;
}
