/* SPDX-License-Identifier: MIT */
/* calltrace flame: the calls merged by call stack, as one self-contained HTML page. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "../output/flame.h"
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
	"all\n"
	"      --weight=WHAT    what a frame's width is: wall (its time, the default),\n"
	"                       oncpu or offcpu (the part on or off the CPU: a trace\n"
	"                       recorded with --kernel)\n" CT_FILTER_HELP CT_READ_HELP;

enum { CT_OPT_TITLE = 1500, CT_OPT_PER_THREAD, CT_OPT_WEIGHT };

struct ct_flame_args {
	const char *path;
	struct ct_flame_opts fo;
};

static int ct_flame_opt(void *ctx, int c, const char *arg)
{
	struct ct_flame_args *a = ctx;

	switch (c) {
	case 'o':
		a->path = arg;
		return 0;
	case CT_OPT_TITLE:
		a->fo.title = arg;
		return 0;
	case CT_OPT_PER_THREAD:
		a->fo.per_thread = 1;
		return 0;
	case CT_OPT_WEIGHT:
		return ct_flame_weight_parse(arg, &a->fo.weight);
	default:
		return -1;
	}
}

static int ct_flame_check(void *ctx)
{
	const struct ct_flame_args *a = ctx;
	if (!*a->path) {
		ct_error("flame: --output needs a file name ('-' for stdout)");
		return -1;
	}
	return 0;
}

static int ct_flame_write_page(struct ct_reading *r, FILE *f, void *ctx, int *werr)
{
	int rc;
	struct ct_flame *fl = ct_flame_build(r->t, r->sym, r->w, ctx, &rc);
	errno = 0;
	if (ct_flame_write(fl, f) < 0)
		*werr = errno ? errno : EIO;
	ct_flame_free(fl);
	return rc;
}

int ct_cmd_flame(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "title", required_argument, NULL, CT_OPT_TITLE },
		{ "per-thread", no_argument, NULL, CT_OPT_PER_THREAD },
		{ "weight", required_argument, NULL, CT_OPT_WEIGHT },
		CT_FILTER_LONGOPTS,
		CT_READ_LONGOPTS,
		{ 0 }
	};
	struct ct_flame_args a = { .path = "flame.html" };
	struct ct_cli_filter cf;
	const struct ct_read_cmd cmd = { .name = "flame",
					 .help = ct_flame_help,
					 .shortopts = "o:i:h" CT_FILTER_SHORTOPTS,
					 .longopts = longopts,
					 .own = ct_flame_opt,
					 .ctx = &a,
					 .filter = &cf,
					 .check = ct_flame_check };
	struct ct_reading r;
	int status;

	if (!ct_read_begin(&cmd, argc, argv, &r, &status))
		return status;
	ct_walk_progress(r.w, "flame", 0);

	/*
	 * A file is written whole under a unique name beside its place and
	 * renamed there (src/util/outfile.c), so an unwritable output fails
	 * before the walk and a failed write leaves an earlier page alone; a
	 * link at the path is replaced, not followed. A device, a pipe or '-'
	 * (stdout) is written directly. A part of the trace that could not be
	 * read leaves the page of the rest (the reader said which).
	 */
	return ct_read_to_output(&r, a.path, ct_flame_write_page, &a.fo, 1);
}
