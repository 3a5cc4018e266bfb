/* SPDX-License-Identifier: MIT */
/*
 * The commands that read a trace: replay, report, info, dump; and what every
 * reading command (export, flame too) starts with: ct_read_start() and
 * ct_cli_walk().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "../util/outfile.h"
#include "../util/util.h"

static const char ct_replay_help[] =
	"usage: calltrace replay [options]\n\n"
	"Show the recorded calls as a tree, one thread after another: a leaf call on one\n"
	"line with its duration, a call with children as 'f() {' ... '} /* f */' with the\n"
	"duration at the close. Calls abandoned by longjmp or an exception are marked\n"
	"'unwound', calls that never returned 'unfinished'. Calls recorded with -a show\n"
	"their arguments and return value: 'parse(line=\"a=1\", len=3) = 0;'.\n\n"
	"  -T, --timestamps     show when each line happened (seconds since the start)\n"
	"      --srcline        where each function is defined (file:line, from DWARF) and,\n"
	"                       for calls recorded with --srcline or -a, where it was called\n"
	"                       from: '  /src/parse.c:88  <- main.c:41'\n" CT_FILTER_HELP
		CT_READ_HELP;

static const char ct_report_help[] =
	"usage: calltrace report [options]\n\n"
	"Per-function statistics: calls, total time (a recursive function's counted once),\n"
	"self time, and the average, minimum and maximum of single calls.\n\n"
	"  -s, --sort=KEY       total (default), self, calls, avg, max, name or offcpu\n"
	"      --json           an array of objects: name, symbol, module, calls, total_ns,\n"
	"                       self_ns, avg_ns, min_ns, max_ns (and with record --kernel:\n"
	"                       oncpu_ns, offcpu_ns, oncpu_self_ns, offcpu_self_ns)\n"
	"      --syscalls       with record --kernel: a row per system call too\n"
	"      --csv            the same columns, comma-separated, with a header line\n"
	"      --per-thread     one table per thread\n"
	"      --diff=OLD       compare with the trace OLD: calls and times side by side,\n"
	"                       the biggest changes first\n" CT_FILTER_HELP CT_READ_HELP;

static const char ct_info_help[] =
	"usage: calltrace info [options]\n\n"
	"What a trace holds: the command, when and how long, the tracing method and\n"
	"clock, processes and threads, events, lost events, modules and build-ids.\n\n"
	"  -i, --input=PATH     the trace to read (default: calltrace.data)\n"
	"      --skipped        the functions patching left alone, one per line with why\n"
	"  -h, --help           this help\n";

static const char ct_dump_help[] =
	"usage: calltrace dump [options]\n\n"
	"Every record of the trace as it is stored, thread by thread: seconds since the\n"
	"start, thread, kind (enter, exit, jump, catch, lost ...), the caller's stack\n"
	"pointer, the function's address and name.\n\n" CT_READ_HELP;

/* The end of a command that prints on stdout: its exit status. */
static int ct_end(struct ct_reading *r, int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		ct_error("cannot write the output: %s", strerror(errno));
		rc = -1;
	}
	ct_read_end(r);
	return rc < 0 ? CT_EXIT_USAGE : 0;
}

struct ct_trace *ct_read_start(const struct ct_read_cmd *cmd, int argc, char **argv,
			       struct ct_read_opts *ro, int *status)
{
	int c;

	ct_read_opts_init(ro);
	if (cmd->filter)
		ct_cli_filter_init(cmd->filter);
	*status = CT_EXIT_USAGE;
	while ((c = ct_getopt(cmd->name, argc, argv, cmd->shortopts, cmd->longopts)) != -1) {
		int r = c == -2 ? -1 : ct_read_opt(cmd->name, ro, c, optarg);
		if (!r && cmd->filter)
			r = ct_cli_filter_opt(cmd->name, cmd->filter, c, optarg);
		if (r < 0)
			return NULL;
		if (r)
			continue;
		if (c == 'h') {
			fputs(cmd->help, stdout);
			*status = 0;
			return NULL;
		}
		if (!cmd->own || cmd->own(cmd->ctx, c, optarg) < 0)
			return NULL;
	}
	if (optind < argc) {
		ct_error("%s: unexpected argument '%s' (see 'calltrace %s --help')", cmd->name,
			 argv[optind], cmd->name);
		return NULL;
	}
	if (cmd->check && cmd->check(cmd->ctx) < 0)
		return NULL;
	return ct_cli_open(ro);
}

struct ct_walk *ct_cli_walk(const struct ct_read_cmd *cmd, struct ct_trace *t,
			    struct ct_symbols *sym)
{
	char err[512];
	struct ct_walk *w = ct_walk_new(t, sym, &cmd->filter->f, err, sizeof(err));
	if (!w) {
		ct_error("%s: %s", cmd->name, err);
		exit(CT_EXIT_USAGE);
	}
	return w;
}

int ct_read_begin(const struct ct_read_cmd *cmd, int argc, char **argv, struct ct_reading *r,
		  int *status)
{
	memset(r, 0, sizeof(*r));
	r->t = ct_read_start(cmd, argc, argv, &r->ro, status);
	if (!r->t)
		return 0;
	r->sym = ct_symbols_open(r->t, r->ro.demangle);
	if (cmd->filter)
		r->w = ct_cli_walk(cmd, r->t, r->sym);
	return 1;
}

void ct_read_end(struct ct_reading *r)
{
	if (r->w)
		ct_walk_free(r->w);
	if (r->sym)
		ct_symbols_close(r->sym);
	if (r->t)
		ct_trace_close(r->t);
	memset(r, 0, sizeof(*r));
}

int ct_read_to_output(struct ct_reading *r, const char *path,
		      int (*write)(struct ct_reading *r, FILE *f, void *ctx, int *werr), void *ctx,
		      int keep_partial)
{
	struct ct_output out;
	int werr = 0, rc = -1;

	if (ct_output_open(&out, path) < 0) {
		werr = errno;
	} else {
		rc = write(r, out.f, ctx, &werr);
		if (ct_output_close(&out, !werr && (rc == 0 || keep_partial)) < 0 && !werr)
			werr = errno;
	}
	ct_read_end(r);
	if (werr) {
		ct_error("cannot write %s: %s", out.name, strerror(werr));
		return CT_EXIT_USAGE;
	}
	return rc < 0 ? CT_EXIT_USAGE : 0;
}

static int ct_replay_opt(void *ctx, int c, const char *arg)
{
	struct ct_replay_opts *o = ctx;
	(void)arg;
	if (c == 'T')
		o->timestamps = 1;
	if (c == 1452)
		o->srcline = 1;
	return 0;
}

int ct_cmd_replay(int argc, char **argv)
{
	static const struct option longopts[] = { { "timestamps", no_argument, NULL, 'T' },
						  { "srcline", no_argument, NULL, 1452 },
						  CT_FILTER_LONGOPTS, CT_READ_LONGOPTS, { 0 } };
	struct ct_replay_opts o = { 0 };
	struct ct_cli_filter cf;
	const struct ct_read_cmd cmd = { .name = "replay",
					 .help = ct_replay_help,
					 .shortopts = "Ti:h" CT_FILTER_SHORTOPTS,
					 .longopts = longopts,
					 .own = ct_replay_opt,
					 .ctx = &o,
					 .filter = &cf };
	struct ct_reading r;
	int status;

	if (!ct_read_begin(&cmd, argc, argv, &r, &status))
		return status;
	ct_walk_progress(r.w, "replay", 1);
	return ct_end(&r, ct_replay(r.t, r.sym, r.w, stdout, &o));
}

static int ct_report_opt(void *ctx, int c, const char *arg)
{
	static const char *const keys[] = { "total", "self", "calls", "avg", "max", "name",
					    "offcpu" };
	struct ct_report_opts *o = ctx;

	switch (c) {
	case 1200:
		o->json = 1;
		return 0;
	case 1201:
		o->csv = 1;
		return 0;
	case 1202:
		o->per_thread = 1;
		return 0;
	case 1203:
		o->diff = arg;
		return 0;
	case 1204:
		o->syscalls = 1;
		return 0;
	default:
		break;
	}
	for (size_t i = 0; i < CT_ARRAY_SIZE(keys); i++) {
		if (!strcmp(arg, keys[i])) {
			o->sort = (enum ct_sort)i;
			return 0;
		}
	}
	ct_error("report: --sort takes total, self, calls, avg, max, name or offcpu, not '%s'",
		 arg);
	return -1;
}

static int ct_report_check(void *ctx)
{
	const struct ct_report_opts *o = ctx;
	if (o->json && o->csv) {
		ct_error("report: --json or --csv, not both");
		return -1;
	}
	return 0;
}

int ct_cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = { { "sort", required_argument, NULL, 's' },
						  { "json", no_argument, NULL, 1200 },
						  { "csv", no_argument, NULL, 1201 },
						  { "per-thread", no_argument, NULL, 1202 },
						  { "diff", required_argument, NULL, 1203 },
						  { "syscalls", no_argument, NULL, 1204 },
						  CT_FILTER_LONGOPTS,
						  CT_READ_LONGOPTS,
						  { 0 } };
	struct ct_report_opts o = { 0 };
	struct ct_cli_filter cf;
	const struct ct_read_cmd cmd = { .name = "report",
					 .help = ct_report_help,
					 .shortopts = "s:i:h" CT_FILTER_SHORTOPTS,
					 .longopts = longopts,
					 .own = ct_report_opt,
					 .ctx = &o,
					 .filter = &cf,
					 .check = ct_report_check };
	struct ct_reading r;
	int status, rc;

	if (!ct_read_begin(&cmd, argc, argv, &r, &status))
		return status;
	if (o.diff) {
		struct ct_reading old = { .ro = r.ro };
		old.ro.input = o.diff;
		old.t = ct_cli_open(&old.ro);
		old.sym = ct_symbols_open(old.t, old.ro.demangle);
		old.w = ct_cli_walk(&cmd, old.t, old.sym);
		ct_walk_progress(old.w, "report", 0);
		ct_walk_progress(r.w, "report", 0);
		rc = ct_report_diff(old.t, old.sym, old.w, r.t, r.sym, r.w, stdout, &o);
		ct_read_end(&old);
	} else {
		ct_walk_progress(r.w, "report", o.per_thread); /* a table per thread as it goes */
		rc = ct_report(r.t, r.sym, r.w, stdout, &o);
	}
	return ct_end(&r, rc);
}

static int ct_info_opt(void *data, int c, const char *arg)
{
	(void)arg;
	(void)c; /* --skipped, the only option of its own */
	*(int *)data = 1;
	return 0;
}

int ct_cmd_info(int argc, char **argv)
{
	static const struct option longopts[] = { { "skipped", no_argument, NULL, 1300 },
						  CT_READ_LONGOPTS,
						  { 0 } };
	int skipped = 0;
	const struct ct_read_cmd cmd = { .name = "info",
					 .help = ct_info_help,
					 .shortopts = "i:h",
					 .longopts = longopts,
					 .own = ct_info_opt,
					 .ctx = &skipped };
	struct ct_reading r = { 0 };
	int status;

	r.t = ct_read_start(&cmd, argc, argv, &r.ro, &status);
	if (!r.t)
		return status;
	if (skipped) { /* needs no symbols */
		int rc = ct_info_skipped(r.t, stdout);
		ct_read_end(&r);
		return rc;
	}
	r.sym = ct_symbols_open(r.t, r.ro.demangle);
	return ct_end(&r, ct_info(r.t, r.sym, stdout));
}

int ct_cmd_dump(int argc, char **argv)
{
	static const struct option longopts[] = { CT_READ_LONGOPTS, { 0 } };
	const struct ct_read_cmd cmd = {
		.name = "dump", .help = ct_dump_help, .shortopts = "i:h", .longopts = longopts
	};
	struct ct_reading r;
	int status;

	if (!ct_read_begin(&cmd, argc, argv, &r, &status))
		return status;
	return ct_end(&r, ct_dump(r.t, r.sym, stdout));
}
