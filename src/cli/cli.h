/* SPDX-License-Identifier: MIT */
/* The command line: one file per command, parsing and wiring only. */
#ifndef CT_CLI_H
#define CT_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "../format/reader.h"
#include "../output/output.h"
#include "../symbols/symbols.h"
#include "../analysis/walk.h"

int ct_cmd_record(int argc, char **argv);
int ct_cmd_replay(int argc, char **argv);
int ct_cmd_report(int argc, char **argv);
int ct_cmd_info(int argc, char **argv);
int ct_cmd_dump(int argc, char **argv);
int ct_cmd_snapshot(int argc, char **argv);
int ct_cmd_attach(int argc, char **argv);
int ct_cmd_live(int argc, char **argv);
int ct_cmd_flame(int argc, char **argv);
int ct_cmd_export(int argc, char **argv);
/* standalone mode's recorder, started by libcalltrace.so */
int ct_cmd_serve(int argc, char **argv);

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

/*
 * The filter options every command that walks calls shares (replay, report,
 * export, flame, live): -F -N -D -t --tid --pid --since --until --no-std
 * --regex, and --jobs (how many threads read). Long-only option values are
 * 1300..1399.
 */
struct ct_cli_filter {
	struct ct_filter f;
	const char *only[64], *hide[64];
	int nonly, nhide;
	int32_t tids[64], pids[64];
	int ntids, npids;
};

/*
 * How record and live trace the program (trace_opts.c): --method, -P,
 * --libcalls, and what calls capture: -a, -A, -R, -s, --srcline.
 */
#define CT_TRACE_SHORTOPTS "P:aA:R:s:"
/* clang-format off */
#define CT_TRACE_LONGOPTS                                                                          \
	{ "method", required_argument, NULL, 1450 },                                               \
	{ "libcalls", no_argument, NULL, 1451 },                                                   \
	{ "patch", required_argument, NULL, 'P' },                                                 \
	{ "args", no_argument, NULL, 'a' },                                                        \
	{ "argument", required_argument, NULL, 'A' },                                              \
	{ "retval", required_argument, NULL, 'R' },                                                \
	{ "string-size", required_argument, NULL, 's' },                                           \
	{ "srcline", no_argument, NULL, 1452 },                                                   \
	{ "no-cache", no_argument, NULL, 1453 }
/* clang-format on */
#define CT_TRACE_HELP                                                                              \
	"      --method=METHOD    how calls are seen: auto (default: the best the program\n"        \
	"                         offers), finstrument, fentry (-pg [-mfentry]), patchable\n"       \
	"                         (-fpatchable-function-entry), patch (functions of an\n"           \
	"                         unmodified program patched in memory), or ptrace\n"              \
	"                         (breakpoints, no runtime in the program: static binaries)\n"     \
	"  -P, --patch=PATTERN    patch only functions matching the glob (repeatable);\n"           \
	"                         'lib.so:GLOB' patches a shared library's functions too,\n"        \
	"                         '!GLOB' leaves functions out; 'GLOB@LIB' takes calls\n"         \
	"                         into shared libraries ('malloc@*', '*@libz.so*')\n"             \
	"      --no-cache         read symbols and plan the patching anew, without\n"          \
	"                         ~/.cache/calltrace\n"                                        \
	"      --libcalls         trace every call into shared libraries, shown as\n"             \
	"                         name@library (printf@libc.so.6); '!GLOB@*' leaves some out\n"  \
	"  -a, --args             arguments and return values of every traced function,\n"       \
	"                         typed and named from DWARF (with --libcalls: common C\n"       \
	"                         library functions too); not with -finstrument-functions\n"     \
	"  -A, --argument=GLOB@ARGS  arguments of matching functions without DWARF:\n"           \
	"                         'parse*@arg1/s,arg2/d32,fparg1' (FMT: d i u x s c b p f)\n"   \
	"  -R, --retval=GLOB@retval[/FMT]  their return value: 'parse*@retval/x'\n"             \
	"  -s, --string-size=N    bytes of a string argument kept (default 64, at most 1024)\n"  \
	"      --srcline          keep every call's call site, for replay --srcline\n"
/* 0 if taken, 1 if c is not one of these options, -1 after an error. */
int ct_trace_opt(const char *cmd, int c, const char *arg);
/* argspec.c: -A (kind 'A') or -R ('R'); -1 after an error. */
int ct_argspec_add(const char *cmd, char kind, const char *spec);
/* --method=ptrace: the program runs under a tracer process, not with the runtime. */
int ct_trace_ptrace(void);
/* Does the program fit the method? -1 after an error. */
/*
 * libtool.c: if prog is a libtool wrapper script, the program it runs
 * (*real, to free) and 1, LD_LIBRARY_PATH set as the script sets it.
 */
int ct_libtool_resolve(const char *prog, char **real);
int ct_trace_check(const char *cmd, const char *prog);
/* privilege.c: a setuid/setgid/file-capability PATH this user cannot trace: said, -1 */
int ct_privilege_check(const char *cmd, const char *path, int ptrace);

/* clang-format off */
#define CT_FILTER_SHORTOPTS "F:N:D:t:"
#define CT_FILTER_LONGOPTS                                                                         \
	{ "filter", required_argument, NULL, 'F' },                                                \
	{ "notrace", required_argument, NULL, 'N' },                                               \
	{ "depth", required_argument, NULL, 'D' },                                                 \
	{ "time-filter", required_argument, NULL, 't' },                                           \
	{ "tid", required_argument, NULL, 1300 },                                                  \
	{ "pid", required_argument, NULL, 1301 },                                                  \
	{ "since", required_argument, NULL, 1302 },                                                \
	{ "until", required_argument, NULL, 1303 },                                                \
	{ "no-std", no_argument, NULL, 1304 },                                                     \
	{ "regex", no_argument, NULL, 1305 },                                                     \
	{ "jobs", required_argument, NULL, 1306 },                                                \
	{ "no-kernel", no_argument, NULL, 1307 }
/* clang-format on */

#define CT_FILTER_HELP                                                                             \
	"  -F, --filter=PATTERN only calls under a matching function (repeatable)\n"               \
	"  -N, --notrace=PATTERN hide matching functions and what they call (repeatable)\n"        \
	"  -D, --depth=N        at most N levels deep (under -F: below the match)\n"               \
	"  -t, --time-filter=DUR hide calls shorter than DUR (10us, 1.5ms, 2s)\n"                  \
	"      --tid=TID        only this thread (repeatable)\n"                                    \
	"      --pid=PID        only this process (repeatable)\n"                                   \
	"      --since=T, --until=T only calls that start in this window (seconds from the\n"      \
	"                       start, or with a unit: 250ms)\n"                                    \
	"      --no-std         hide the C++ standard library and functions declared in system\n"  \
	"                       headers, showing what they call in their place\n"                  \
	"      --regex          PATTERNs are extended regular expressions (default: globs)\n"     \
	"      --jobs=N         read on N threads (default: the online cores; the output is\n"    \
	"                       the same)\n"                                                    \
	"      --no-kernel      without the system calls and off-CPU times of record --kernel\n"

void ct_cli_filter_init(struct ct_cli_filter *cf);
/* A filter option; 1 if it was one, -1 on a bad value (message printed). */
int ct_cli_filter_opt(const char *cmd, struct ct_cli_filter *cf, int c, const char *arg);
/* "10us" "1.5ms" "2s" "250" (ns) -> ns; -1 if it is not a duration */
double ct_parse_duration(const char *s);

void ct_read_opts_init(struct ct_read_opts *o);
/* Handle a common option; 1 if it was one, -1 on a bad value (message printed). */
int ct_read_opt(const char *cmd, struct ct_read_opts *o, int c, const char *arg);
/* Open the trace or exit with status 2 and one line on stderr. */
struct ct_trace *ct_cli_open(const struct ct_read_opts *o);

/*
 * A command that reads a trace (replay, report, info, dump, export, flame;
 * cmd_read.c): what tells one from another. Its options are parsed by
 * ct_read_start(), the common ones (CT_READ_LONGOPTS, and the filters if it
 * takes them) there, its own by own().
 */
struct ct_read_cmd {
	const char *name;
	const char *help;
	const char *shortopts;
	const struct option *longopts;
	/* the command's own options: 0 if taken, -1 after printing an error */
	int (*own)(void *ctx, int c, const char *arg);
	void *ctx;
	struct ct_cli_filter *filter; /* NULL: the command takes no filters */
	/* once all options are read, before the trace opens: 0, or -1 after printing an error */
	int (*check)(void *ctx);
};

/* What a reading command reads with. */
struct ct_reading {
	struct ct_read_opts ro;
	struct ct_trace *t;
	struct ct_symbols *sym;
	struct ct_walk *w; /* the walker of its filters; NULL if it takes none */
};

/*
 * Parse the options, open the trace, its symbols and the walker: 1, or 0
 * with *status set when the command is done (its help printed, an error).
 */
int ct_read_begin(const struct ct_read_cmd *cmd, int argc, char **argv, struct ct_reading *r,
		  int *status);
/* Close what is open in r. */
void ct_read_end(struct ct_reading *r);

/*
 * Write what a command makes of r into path (-o: a file through ct_output,
 * '-' standard output), then close r: the exit status, a failed write said.
 * write() returns -1 if the trace could not all be read (the reader said
 * where) and sets *werr to the errno of a failed write. A file goes in place
 * if nothing failed, or, with keep_partial, if only reading did.
 */
int ct_read_to_output(struct ct_reading *r, const char *path,
		      int (*write)(struct ct_reading *r, FILE *f, void *ctx, int *werr), void *ctx,
		      int keep_partial);

/* ct_read_begin's parts. Parse the options and open the trace; NULL with *status set. */
struct ct_trace *ct_read_start(const struct ct_read_cmd *cmd, int argc, char **argv,
			       struct ct_read_opts *ro, int *status);
/* The walker of cmd's filters (cmd takes filters), or exit 2 with "NAME: why". */
struct ct_walk *ct_cli_walk(const struct ct_read_cmd *cmd, struct ct_trace *t,
			    struct ct_symbols *sym);

#endif
