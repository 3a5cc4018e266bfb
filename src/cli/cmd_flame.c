/* SPDX-License-Identifier: MIT */
/* calltrace flame: the calls merged by call stack, as one self-contained HTML page. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "../output/flame.h"
#include "../util/outfile.h"
#include "../util/util.h"

static const char ct_flame_help[] =
	"usage: calltrace flame [options]\n\n"
	"Write the calls as a flame graph: one self-contained HTML page (no network, no\n"
	"server) that draws the call stacks of every selected thread, merged, each as wide\n"
	"as the time spent in it. Click a frame to zoom into it, click the root or press\n"
	"Escape to zoom out; search highlights matching frames and says what share of the\n"
	"time they take; hover for calls, total and self time.\n\n"
	"  -o, --output=FILE    the page to write (default: flame.html; '-': stdout)\n"
	"      --title=TEXT     the page's title (default: the recorded command)\n"
	"      --per-thread     one tree per thread under the root instead of one for "
	"all\n" CT_FILTER_HELP CT_READ_HELP;

enum { CT_OPT_TITLE = 1500, CT_OPT_PER_THREAD };

static int ct_flame_fail(const char *path, int err)
{
	ct_error("cannot write %s: %s", path, strerror(err));
	return CT_EXIT_USAGE;
}

/*
 * The output: a file is written whole under a unique name beside its place
 * and renamed there (src/util/outfile.c), so an unwritable output fails
 * before the walk and a failed write leaves an earlier page alone; a link at
 * the path is replaced, not followed. A device, a pipe or '-' (stdout) is
 * written directly.
 */
struct ct_flame_out {
	const char *path; /* as given, for messages */
	struct ct_outfile file;
	FILE *f;
};

static int ct_flame_open(struct ct_flame_out *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	o->path = path;
	if (!strcmp(path, "-")) {
		o->path = "stdout";
		o->f = stdout;
		return 0;
	}
	if (ct_outfile_open(&o->file, path) < 0)
		return ct_flame_fail(path, errno);
	if (!(o->f = fdopen(o->file.fd, "w"))) {
		int err = errno;
		close(o->file.fd);
		ct_outfile_finish(&o->file, 0);
		return ct_flame_fail(path, err);
	}
	return 0;
}

/* Close (rename into place, or remove the unfinished file); the exit status. */
static int ct_flame_close(struct ct_flame_out *o, int status)
{
	if (o->f && o->f != stdout && fclose(o->f) != 0 && !status)
		status = ct_flame_fail(o->path, errno);
	if (o->f != stdout && ct_outfile_finish(&o->file, !status) < 0 && !status)
		status = ct_flame_fail(o->path, errno);
	return status;
}

int ct_cmd_flame(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "title", required_argument, NULL, CT_OPT_TITLE },
		{ "per-thread", no_argument, NULL, CT_OPT_PER_THREAD },
		CT_FILTER_LONGOPTS,
		CT_READ_LONGOPTS,
		{ 0 }
	};
	struct ct_read_opts ro;
	struct ct_cli_filter cf;
	struct ct_flame_opts fo = { 0 };
	const char *path = "flame.html";
	int c;

	ct_read_opts_init(&ro);
	ct_cli_filter_init(&cf);
	while ((c = ct_getopt("flame", argc, argv, "o:i:h" CT_FILTER_SHORTOPTS, longopts)) != -1) {
		int r;
		if (c == -2)
			return CT_EXIT_USAGE;
		if ((r = ct_read_opt("flame", &ro, c, optarg)) ||
		    (r = ct_cli_filter_opt("flame", &cf, c, optarg))) {
			if (r < 0)
				return CT_EXIT_USAGE;
			continue;
		}
		switch (c) {
		case 'h':
			fputs(ct_flame_help, stdout);
			return 0;
		case 'o':
			path = optarg;
			break;
		case CT_OPT_TITLE:
			fo.title = optarg;
			break;
		case CT_OPT_PER_THREAD:
			fo.per_thread = 1;
			break;
		default:
			return CT_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		ct_error("flame: unexpected argument '%s' (see 'calltrace flame --help')",
			 argv[optind]);
		return CT_EXIT_USAGE;
	}
	if (!*path) {
		ct_error("flame: --output needs a file name ('-' for stdout)");
		return CT_EXIT_USAGE;
	}

	struct ct_trace *t = ct_cli_open(&ro);
	struct ct_symbols *sym = ct_symbols_open(t, ro.demangle);
	char err[512];
	struct ct_walk *w = ct_walk_new(t, sym, &cf.f, err, sizeof(err));
	if (!w) {
		ct_error("flame: %s", err);
		ct_symbols_close(sym);
		ct_trace_close(t);
		return CT_EXIT_USAGE;
	}

	ct_walk_progress(w, "flame", 0);
	struct ct_flame_out o;
	int status = ct_flame_open(&o, path);
	if (!status) {
		int rc;
		struct ct_flame *fl = ct_flame_build(t, sym, w, &fo, &rc);
		errno = 0;
		if (ct_flame_write(fl, o.f) < 0)
			status = ct_flame_fail(o.path, errno ? errno : EIO);
		ct_flame_free(fl);
		status = ct_flame_close(&o, status);
		if (!status && rc < 0)
			status = CT_EXIT_USAGE; /* the reader said which block */
	}
	ct_walk_free(w);
	ct_symbols_close(sym);
	ct_trace_close(t);
	return status;
}
