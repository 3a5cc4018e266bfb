/* SPDX-License-Identifier: MIT */
#include <stdlib.h>

#include "cli.h"
#include "../record/record.h"

static const char ct_record_help[] =
	"usage: calltrace record [options] [--] PROG [ARGS...]\n\n"
	"Run PROG with the calltrace runtime preloaded and record every function call and\n"
	"return, in every thread and every child process. PROG may be built with nothing\n"
	"special (its functions are patched in memory) or with -finstrument-functions,\n"
	"-pg [-mfentry] or -fpatchable-function-entry=5 (e.g. by calltrace-cc). Exits with\n"
	"PROG's exit status (128+N if a signal N killed it).\n\n"
	"  -o, --output=PATH      write the trace to PATH (default: calltrace.data)\n"
	"  -b, --buffer-size=SIZE the most memory the buffer shared with the recorder may\n"
	"                         use (default 256M; at least 4 chunks): it grows as\n"
	"                         threads need it; past it, a thread that would wait for\n"
	"                         ever drops events, counted and reported\n"
	"      --chunk-size=SIZE  unit a thread fills before handing it over (default 64K)\n"
	"      --lossy            drop events instead of waiting when the buffer is full\n"
	"                         (lost events are counted and reported)\n"
	"      --ring=SIZE        flight recorder: each thread keeps only its newest SIZE\n"
	"                         of events (at least 2 chunks); they are written when the\n"
	"                         program ends or crashes, and on each snapshot: SIGUSR2 sent\n"
	"                         to the program, or 'calltrace snapshot PID'\n"
	"      --no-follow        do not trace the processes PROG makes (fork, spawn);\n"
	"                         an exec of PROG itself is still followed\n"
	"      --disabled         start with tracing off, for PROG to turn it on with\n"
	"                         calltrace_enable_all() (include/calltrace.h)\n"
	"      --kernel           also record each thread's system calls and the times it\n"
	"                         was off the CPU, and why (root or CAP_PERFMON)\n"
	"  -j, --jobs=N           threads that encode the chunks threads fill: 1, the\n"
	"                         recorder's own; N > 1, N workers (default: the CPUs\n"
	"                         beyond one for the program, at least 1)\n" CT_TRACE_HELP
	"  -h, --help             this help\n";

static const struct option ct_record_longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "buffer-size", required_argument, NULL, 'b' },
	{ "chunk-size", required_argument, NULL, 1100 },
	{ "lossy", no_argument, NULL, 1101 },
	{ "ring", required_argument, NULL, 1102 },
	{ "no-follow", no_argument, NULL, 1103 },
	{ "disabled", no_argument, NULL, 1104 },
	{ "kernel", no_argument, NULL, 1105 },
	{ "jobs", required_argument, NULL, 'j' },
	CT_TRACE_LONGOPTS,
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static int ct_size_opt(const char *name, const char *arg, uint64_t min, uint64_t max, uint64_t *out)
{
	if (ct_parse_size(arg, out) < 0 || *out < min || *out > max) {
		ct_error("record: %s takes a size from %lluK to %lluM (like 64M), not '%s'", name,
			 (unsigned long long)(min >> 10), (unsigned long long)(max >> 20), arg);
		return -1;
	}
	return 0;
}

int ct_cmd_record(int argc, char **argv)
{
	struct ct_record_opts o = {
		.output = CT_DEFAULT_OUTPUT,
		.buffer_size = CT_DEFAULT_BUFFER,
		.chunk_size = CT_DEFAULT_CHUNK,
		.level = CT_DEFAULT_ZSTD_LEVEL,
	};
	uint64_t chunk = CT_DEFAULT_CHUNK;
	int buffer_given = 0, ring_set_buffer = 0;
	int c;

	while ((c = ct_getopt("record", argc, argv, "+o:b:j:h" CT_TRACE_SHORTOPTS,
				ct_record_longopts)) != -1) {
		int r = ct_trace_opt("record", c, optarg);
		if (r <= 0) {
			if (r < 0)
				return CT_EXIT_USAGE;
			continue;
		}
		switch (c) {
		case 'o':
			o.output = optarg;
			break;
		case 'b':
			if (ct_size_opt("--buffer-size", optarg, 256 << 10, 64ull << 30,
					&o.buffer_size))
				return CT_EXIT_USAGE;
			break;
		case 1100:
			if (ct_size_opt("--chunk-size", optarg, 4 << 10, 16 << 20, &chunk))
				return CT_EXIT_USAGE;
			o.chunk_size = (uint32_t)(chunk & ~(uint64_t)4095);
			break;
		case 1101:
			o.lossy = 1;
			break;
		case 1102:
			if (ct_size_opt("--ring", optarg, 8 << 10, 4ull << 30, &o.ring_size))
				return CT_EXIT_USAGE;
			ring_set_buffer = !buffer_given;
			break;
		case 1103:
			o.no_follow = 1;
			break;
		case 1104: /* the runtime reads it (and so do the programs PROG runs) */
			setenv("CALLTRACE_DISABLED", "1", 1);
			break;
		case 1105:
			o.kernel = 1;
			break;
		case 'j': {
			char *end;
			unsigned long n = strtoul(optarg, &end, 10);
			if (*optarg < '1' || *optarg > '9' || *end || n > 256) {
				ct_error("record: --jobs takes a number from 1 to 256, not '%s'",
					 optarg);
				return CT_EXIT_USAGE;
			}
			o.jobs = (uint32_t)n;
			break;
		}
		case 'h':
			fputs(ct_record_help, stdout);
			return 0;
		default:
			return CT_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		ct_error("record: no program to run (usage: calltrace record [options] PROG "
			 "[ARGS...])");
		return CT_EXIT_USAGE;
	}
	if (o.ring_size && o.lossy) {
		ct_error("record: --ring and --lossy do not go together: a flight recorder never waits");
		return CT_EXIT_USAGE;
	}
	if (o.ring_size && o.kernel) { /* the kernel's side would be written whole, unbounded */
		ct_error("record: --ring and --kernel do not go together yet: the kernel's side "
			 "has no ring");
		return CT_EXIT_USAGE;
	}
	if (ring_set_buffer) /* room for 16 threads' rings by default */
		o.buffer_size = ct_max(o.buffer_size, 16 * ct_max(o.ring_size, 2ull * o.chunk_size) + 8ull * o.chunk_size);
	if (o.buffer_size / o.chunk_size < 4) {
		ct_error("record: the buffer must hold at least 4 chunks of %u bytes",
			 o.chunk_size);
		return CT_EXIT_USAGE;
	}
	o.argv = argv + optind;
	char *real = NULL; /* a libtool wrapper: the program it would run, run directly */
	if (!getenv("CALLTRACE_NO_LIBTOOL") && ct_libtool_resolve(o.argv[0], &real))
		o.argv[0] = real;
	if (ct_trace_check("record", o.argv[0]) < 0)
		return CT_EXIT_USAGE;
	o.ptrace = ct_trace_ptrace();
	if (o.ptrace && (o.ring_size || o.lossy)) {
		ct_error("record: --method=ptrace is lossless: no --ring or --lossy");
		return CT_EXIT_USAGE;
	}
	size_t crashes = 0;
	o.crashes = &crashes;
	int status = ct_record(&o);
	if (crashes)
		ct_print_crashes(o.output, stderr);
	return status;
}
