/* SPDX-License-Identifier: MIT */
/*
 * An output written whole (an export, a flame page): a new file, 0600, made
 * under a unique temporary name beside its place and renamed there when
 * complete. What was at the path is replaced, never written into, and a
 * symbolic link there is replaced, not followed. Devices and pipes (-o
 * /dev/null, /dev/stdout) are written directly.
 */
#ifndef CT_UTIL_OUTFILE_H
#define CT_UTIL_OUTFILE_H

#include <stdio.h>

struct ct_outfile {
	int fd;	    /* where to write; the caller closes it (or the FILE made from it) */
	char *path; /* the place */
	char *tmp;  /* the temporary file; NULL when written directly */
};

/* 0, or -1 with errno (EISDIR for a directory). */
int ct_outfile_open(struct ct_outfile *o, const char *path);
/* After the fd is closed: ok, rename into place (-1 with errno if that fails); else remove. */
int ct_outfile_finish(struct ct_outfile *o, int ok);

/*
 * The output a command writes (-o PATH; "-" is standard output) as a FILE:
 * a file through ct_outfile, whose temporary file a SIGINT, SIGTERM or SIGHUP
 * removes before it ends us (one output at a time: the handlers are the
 * process's). Standard output is written as it is, flushed, never closed.
 */
struct ct_output {
	const char *name; /* for messages: the path, or "standard output" */
	FILE *f;
	struct ct_outfile file;
};

/* 0, or -1 with errno. */
int ct_output_open(struct ct_output *o, const char *path);
/* Close it; ok: the file goes in place, else it is removed. 0, or -1 with errno (the first). */
int ct_output_close(struct ct_output *o, int ok);

#endif
