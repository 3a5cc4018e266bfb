/* SPDX-License-Identifier: MIT */
/* calltrace attach -p PID: trace a process that is already running, then let it go. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "../record/record.h"

static const char ct_attach_help[] =
	"usage: calltrace attach -p PID [options]\n\n"
	"Trace the running process PID (every thread, and the processes it makes) until\n"
	"Ctrl-C, --duration, or its end; then undo every change and let it run on as\n"
	"before. By default calltrace's runtime is loaded into the process (through\n"
	"ptrace: the process calls dlopen) and patches its functions in memory, so\n"
	"tracing costs what record --method=patch costs; if it cannot be loaded (a\n"
	"static program, say), breakpoints are used. The runtime stays loaded, inert,\n"
	"after the detach. The calls under way at the attach (main, a server's loop)\n"
	"are found by unwinding every thread: the window's calls nest in them. One line\n"
	"on stderr says what was patched, one at the end what the trace holds.\n\n"
	"  -p, --pid=PID          the process to trace\n"
	"  -o, --output=PATH      write the trace to PATH (default: calltrace.data)\n"
	"      --duration=TIME    stop after TIME (like 5s, 500ms, 2m)\n"
	"      --method=METHOD    auto (the default: runtime, else ptrace), runtime (the\n"
	"                         runtime or an error), ptrace (breakpoints only: no\n"
	"                         byte of the process's code or data is left changed)\n"
	"  -P, --patch=PATTERN    trace only functions matching the glob (as for record;\n"
	"                         'lib.so:GLOB' takes a library's functions)\n"
	"      --no-follow        do not trace the processes it makes\n"
	"      --kernel           also record its threads' system calls and times off the\n"
	"                         CPU, from the attach on (as record --kernel)\n"
	"  -b, --buffer-size=SIZE the most memory the shared buffer may use (256M)\n"
	"  -q, --quiet            no line on stderr at the attach and at the detach\n"
	"  -h, --help             this help\n";

static const struct option ct_attach_longopts[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "output", required_argument, NULL, 'o' },
	{ "duration", required_argument, NULL, 1200 },
	{ "method", required_argument, NULL, 1201 },
	{ "patch", required_argument, NULL, 'P' },
	{ "no-follow", no_argument, NULL, 1202 },
	{ "kernel", no_argument, NULL, 1203 },
	{ "buffer-size", required_argument, NULL, 'b' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

/* "5s", "500ms", "2m", "1.5" (seconds) -> milliseconds; 0 if not a duration. */
static uint64_t ct_duration_ms(const char *s)
{
	char *end;
	double v = strtod(s, &end), ns;
	if (end != s && !*end)
		ns = v * 1e9;
	else if (end != s && (!strcmp(end, "m") || !strcmp(end, "min")))
		ns = v * 60e9;
	else
		ns = ct_parse_duration(s); /* 10ms, 2s ... */
	return ns > 0 && ns < 1e16 ? (uint64_t)(ns / 1e6 + 0.999) : 0;
}

/* The process's command line, for info: NUL-separated in /proc/PID/cmdline. */
static char **ct_cmdline_of(pid_t pid)
{
	static char buf[4096];
	static char *argv[64];
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	FILE *f = fopen(path, "re");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = 0;
	size_t k = 0;
	for (size_t at = 0; at < n && k < 63; at += strlen(buf + at) + 1)
		argv[k++] = buf + at;
	if (!k)
		argv[k++] = "?";
	argv[k] = NULL;
	return argv;
}

int ct_cmd_attach(int argc, char **argv)
{
	struct ct_record_opts o = {
		.output = CT_DEFAULT_OUTPUT,
		.buffer_size = CT_DEFAULT_BUFFER,
		.chunk_size = CT_DEFAULT_CHUNK,
		.level = CT_DEFAULT_ZSTD_LEVEL,
		.attach_fallback = 1,
		.keep_quiet = 1,
	};
	int c;
	while ((c = ct_getopt("attach", argc, argv, "+p:o:b:P:qh", ct_attach_longopts)) != -1) {
		switch (c) {
		case 'p': {
			char *end;
			long pid = strtol(optarg, &end, 10);
			if (*end || pid <= 0 || pid > INT32_MAX) {
				ct_error("attach: -p takes a process id, not '%s'", optarg);
				return CT_EXIT_USAGE;
			}
			o.attach_pid = (pid_t)pid;
			break;
		}
		case 'o':
			o.output = optarg;
			break;
		case 'b':
			if (ct_parse_size(optarg, &o.buffer_size) < 0 || o.buffer_size < (256 << 10)) {
				ct_error("attach: --buffer-size takes a size like 64M, not '%s'", optarg);
				return CT_EXIT_USAGE;
			}
			break;
		case 1200:
			o.duration_ms = ct_duration_ms(optarg);
			if (!o.duration_ms) {
				ct_error("attach: --duration takes a time like 5s or 500ms, not '%s'",
					 optarg);
				return CT_EXIT_USAGE;
			}
			break;
		case 1201:
			if (strcmp(optarg, "ptrace") && strcmp(optarg, "auto") &&
			    strcmp(optarg, "runtime")) {
				ct_error("attach: --method takes auto, runtime or ptrace, not '%s'",
					 optarg);
				return CT_EXIT_USAGE;
			}
			o.ptrace = !strcmp(optarg, "ptrace");
			o.attach_fallback = !strcmp(optarg, "auto");
			break;
		case 'P':
			if (ct_trace_opt("attach", 'P', optarg) < 0)
				return CT_EXIT_USAGE;
			break;
		case 1202:
			o.no_follow = 1;
			break;
		case 1203:
			o.kernel = 1;
			break;
		case 'q':
			o.quiet = 1;
			break;
		case 'h':
			fputs(ct_attach_help, stdout);
			return 0;
		default:
			return CT_EXIT_USAGE;
		}
	}
	if (!o.attach_pid) {
		ct_error("attach: which process? (usage: calltrace attach -p PID [options])");
		return CT_EXIT_USAGE;
	}
	if (optind < argc) {
		ct_error("attach: unexpected argument '%s' (the process is given by -p PID)",
			 argv[optind]);
		return CT_EXIT_USAGE;
	}
	if (kill(o.attach_pid, 0) < 0 && errno == ESRCH) {
		ct_error("attach: no process %d", (int)o.attach_pid);
		return CT_EXIT_USAGE;
	}
	/* not ours to signal: not ours to trace */
	if (kill(o.attach_pid, 0) < 0 && errno == EPERM) {
		ct_error("attach: not permitted to trace process %d (owned by another user; see "
			 "/proc/sys/kernel/yama/ptrace_scope)",
			 (int)o.attach_pid);
		return 1; /* as for every refusal to trace (man calltrace-attach) */
	}
	if (o.buffer_size / o.chunk_size < 4)
		o.buffer_size = 4ull * o.chunk_size;
	o.argv = ct_cmdline_of(o.attach_pid);
	return ct_record(&o);
}
