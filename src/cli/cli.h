/* SPDX-License-Identifier: MIT */
/* The command line: one file per command, parsing and wiring only. */
#ifndef CT_CLI_H
#define CT_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "../format/reader.h"
#include "../output/output.h"
#include "../symbols/symbols.h"

int ct_cmd_record(int argc, char **argv);
int ct_cmd_replay(int argc, char **argv);
int ct_cmd_report(int argc, char **argv);
int ct_cmd_info(int argc, char **argv);
int ct_cmd_dump(int argc, char **argv);
int ct_cmd_snapshot(int argc, char **argv);

/* getopt_long with our one-line errors; returns -2 after printing a usage error. */
int ct_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
	      const struct option *longopts);

/* Options every reading command takes. */
struct ct_read_opts {
	const char *input;
	int demangle;
	enum ct_color_mode color;
};

/* clang-format off */
#define CT_READ_LONGOPTS                                                                           \
	{ "input", required_argument, NULL, 'i' },                                                 \
	{ "no-demangle", no_argument, NULL, 1000 },                                                \
	{ "color", required_argument, NULL, 1001 },                                                \
	{ "colour", required_argument, NULL, 1001 },                                               \
	{ "help", no_argument, NULL, 'h' }
/* clang-format on */

#define CT_READ_HELP                                                                               \
	"  -i, --input=PATH     the trace to read (default: calltrace.data)\n"                     \
	"      --no-demangle    show C++ names as they are in the binary\n"                        \
	"      --color=WHEN     auto (on a terminal, unless NO_COLOR is set), always, never\n"     \
	"  -h, --help           this help\n"

void ct_read_opts_init(struct ct_read_opts *o);
/* Handle a common option; 1 if it was one, -1 on a bad value (message printed). */
int ct_read_opt(const char *cmd, struct ct_read_opts *o, int c, const char *arg);
/* Open the trace or exit with status 2 and one line on stderr. */
struct ct_trace *ct_cli_open(const struct ct_read_opts *o);

#endif
