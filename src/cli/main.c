/* SPDX-License-Identifier: MIT */
/* calltrace: the entry point and its subcommands, like git and perf. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "../util/util.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} ct_commands[] = {
	{ "record", ct_cmd_record, "run a program and record its function calls" },
	{ "live", ct_cmd_live, "run a program and print its call tree as it runs" },
	{ "replay", ct_cmd_replay, "show the recorded calls as a tree, per thread" },
	{ "report", ct_cmd_report,
	  "per-function statistics: calls, total, self, average, min, max" },
	{ "info", ct_cmd_info, "what a trace holds: command, processes, threads, events, modules" },
	{ "dump", ct_cmd_dump,
	  "every record as stored: time, thread, kind, stack pointer, function" },
	{ "flame", ct_cmd_flame, "the calls merged by call stack, as an HTML flame graph" },
	{ "export", ct_cmd_export, "the calls as a Perfetto trace, Chrome JSON or folded stacks" },
	{ "attach", ct_cmd_attach, "trace a running process until Ctrl-C, then let it go" },
	{ "snapshot", ct_cmd_snapshot,
	  "write a flight recorder's newest events now (record --ring)" },
};

static void ct_usage(FILE *out)
{
	fprintf(out, "usage: calltrace [--version] [--help] <command> [<args>]\n\n"
		     "A function-call tracer for C and C++ programs.\n\n"
		     "Commands:\n");
	for (size_t i = 0; i < CT_ARRAY_SIZE(ct_commands); i++)
		fprintf(out, "  %-9s %s\n", ct_commands[i].name, ct_commands[i].summary);
	fprintf(out, "\nRun 'calltrace <command> --help' for a command's options.\n"
		     "Quick start:\n"
		     "  gcc -g -finstrument-functions prog.c -o prog\n"
		     "  calltrace record ./prog\n"
		     "  calltrace replay\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		ct_usage(stderr);
		return CT_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		ct_usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		printf("calltrace %s\n", CT_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "help")) {
		if (argc < 3) {
			ct_usage(stdout);
			return 0;
		}
		char *help[] = { argv[2], "--help", NULL };
		for (size_t i = 0; i < CT_ARRAY_SIZE(ct_commands); i++)
			if (!strcmp(argv[2], ct_commands[i].name))
				return ct_commands[i].run(2, help);
		cmd = argv[2];
	}
	for (size_t i = 0; i < CT_ARRAY_SIZE(ct_commands); i++)
		if (!strcmp(cmd, ct_commands[i].name))
			return ct_commands[i].run(argc - 1, argv + 1);
	if (!strcmp(cmd, "__serve")) /* not a command for people: see cmd_serve.c */
		return ct_cmd_serve(argc - 1, argv + 1);
	ct_error("'%s' is not a calltrace command (see 'calltrace --help')", cmd);
	return CT_EXIT_USAGE;
}
