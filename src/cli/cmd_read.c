/* SPDX-License-Identifier: MIT */
/* The commands that read a trace: replay, report, info. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "../util/util.h"

static const char ct_replay_help[] =
	"usage: calltrace replay [options]\n\n"
	"Show the recorded calls as a tree, one thread after another: a leaf call on one\n"
	"line with its duration, a call with children as 'f() {' ... '} /* f */' with the\n"
	"duration at the close. Calls abandoned by longjmp or an exception are marked\n"
	"'unwound', calls that never returned 'unfinished'.\n\n"
	"  -t, --timestamps     show when each line happened (seconds since the start)\n" CT_READ_HELP;

static const char ct_report_help[] =
	"usage: calltrace report [options]\n\n"
	"Per-function statistics: calls, total time (a recursive function's counted once),\n"
	"self time, and the average, minimum and maximum of single calls.\n\n"
	"  -s, --sort=KEY       total (default), self, calls, avg, max or name\n"
	"      --json           an array of objects: name, symbol, module, calls, total_ns,\n"
	"                       self_ns, avg_ns, min_ns, max_ns\n" CT_READ_HELP;

static const char ct_info_help[] =
	"usage: calltrace info [options]\n\n"
	"What a trace holds: the command, when and how long, the tracing method and\n"
	"clock, processes and threads, events, lost events, modules and build-ids.\n\n"
	"  -i, --input=PATH     the trace to read (default: calltrace.data)\n"
	"  -h, --help           this help\n";

static int ct_end(struct ct_trace *t, struct ct_symbols *sym, int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		ct_error("cannot write the output: %s", strerror(errno));
		rc = -1;
	}
	ct_symbols_close(sym);
	ct_trace_close(t);
	return rc < 0 ? CT_EXIT_USAGE : 0;
}

int ct_cmd_replay(int argc, char **argv)
{
	static const struct option longopts[] = { { "timestamps", no_argument, NULL, 't' },
						  CT_READ_LONGOPTS,
						  { 0 } };
	struct ct_read_opts ro;
	struct ct_replay_opts o = { 0 };
	int c;

	ct_read_opts_init(&ro);
	while ((c = ct_getopt("replay", argc, argv, "ti:h", longopts)) != -1) {
		int r = ct_read_opt("replay", &ro, c, optarg);
		if (r < 0 || c == -2)
			return CT_EXIT_USAGE;
		if (r)
			continue;
		if (c == 'h') {
			fputs(ct_replay_help, stdout);
			return 0;
		}
		if (c == 't')
			o.timestamps = 1;
	}
	if (optind < argc) {
		ct_error("replay: unexpected argument '%s' (see 'calltrace replay --help')", argv[optind]);
		return CT_EXIT_USAGE;
	}
	struct ct_trace *t = ct_cli_open(&ro);
	struct ct_symbols *sym = ct_symbols_open(t, ro.demangle);
	return ct_end(t, sym, ct_replay(t, sym, stdout, &o));
}

static int ct_sort_of(const char *s, enum ct_sort *out)
{
	static const char *const names[] = { "total", "self", "calls", "avg", "max", "name" };
	for (size_t i = 0; i < CT_ARRAY_SIZE(names); i++) {
		if (!strcmp(s, names[i])) {
			*out = (enum ct_sort)i;
			return 0;
		}
	}
	return -1;
}

int ct_cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = { { "sort", required_argument, NULL, 's' },
						  { "json", no_argument, NULL, 1200 },
						  CT_READ_LONGOPTS,
						  { 0 } };
	struct ct_read_opts ro;
	struct ct_report_opts o = { 0 };
	int c;

	ct_read_opts_init(&ro);
	while ((c = ct_getopt("report", argc, argv, "s:i:h", longopts)) != -1) {
		int r = ct_read_opt("report", &ro, c, optarg);
		if (r < 0 || c == -2)
			return CT_EXIT_USAGE;
		if (r)
			continue;
		if (c == 'h') {
			fputs(ct_report_help, stdout);
			return 0;
		}
		if (c == 's' && ct_sort_of(optarg, &o.sort) < 0) {
			ct_error("report: --sort takes total, self, calls, avg, max or name, not '%s'",
				 optarg);
			return CT_EXIT_USAGE;
		}
		if (c == 1200)
			o.json = 1;
	}
	if (optind < argc) {
		ct_error("report: unexpected argument '%s' (see 'calltrace report --help')", argv[optind]);
		return CT_EXIT_USAGE;
	}
	struct ct_trace *t = ct_cli_open(&ro);
	struct ct_symbols *sym = ct_symbols_open(t, ro.demangle);
	return ct_end(t, sym, ct_report(t, sym, stdout, &o));
}

int ct_cmd_info(int argc, char **argv)
{
	static const struct option longopts[] = { CT_READ_LONGOPTS, { 0 } };
	struct ct_read_opts ro;
	int c;

	ct_read_opts_init(&ro);
	while ((c = ct_getopt("info", argc, argv, "i:h", longopts)) != -1) {
		int r = ct_read_opt("info", &ro, c, optarg);
		if (r < 0 || c == -2)
			return CT_EXIT_USAGE;
		if (c == 'h') {
			fputs(ct_info_help, stdout);
			return 0;
		}
	}
	if (optind < argc) {
		ct_error("info: unexpected argument '%s' (see 'calltrace info --help')", argv[optind]);
		return CT_EXIT_USAGE;
	}
	struct ct_trace *t = ct_cli_open(&ro);
	return ct_end(t, NULL, ct_info(t, stdout));
}

static const char ct_dump_help[] =
	"usage: calltrace dump [options]\n\n"
	"Every record of the trace as it is stored, thread by thread: seconds since the\n"
	"start, thread, kind (enter, exit, jump, catch, lost ...), the caller's stack\n"
	"pointer, the function's address and name.\n\n" CT_READ_HELP;

int ct_cmd_dump(int argc, char **argv)
{
	static const struct option longopts[] = { CT_READ_LONGOPTS, { 0 } };
	struct ct_read_opts ro;
	int c;

	ct_read_opts_init(&ro);
	while ((c = ct_getopt("dump", argc, argv, "i:h", longopts)) != -1) {
		int r = ct_read_opt("dump", &ro, c, optarg);
		if (r < 0 || c == -2)
			return CT_EXIT_USAGE;
		if (c == 'h') {
			fputs(ct_dump_help, stdout);
			return 0;
		}
	}
	if (optind < argc) {
		ct_error("dump: unexpected argument '%s' (see 'calltrace dump --help')", argv[optind]);
		return CT_EXIT_USAGE;
	}
	struct ct_trace *t = ct_cli_open(&ro);
	struct ct_symbols *sym = ct_symbols_open(t, ro.demangle);
	return ct_end(t, sym, ct_dump(t, sym, stdout));
}
