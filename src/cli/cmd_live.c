/* SPDX-License-Identifier: MIT */
/* calltrace live: record and show the tree at once. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "../output/live.h"
#include "../record/kside.h"
#include "../record/record.h"

static const char ct_live_help[] =
	"usage: calltrace live [options] [--] PROG [ARGS...]\n\n"
	"Run PROG like 'calltrace record' and print its call tree as it runs, a tenth of\n"
	"a second behind at most; the lines of its threads interleave as they come, each\n"
	"with its thread id. Exits with PROG's exit status.\n\n"
	"  -o, --output=FILE    print the tree to FILE instead of the terminal\n"
	"      --data=PATH      keep the trace in PATH (default: a temporary file, removed)\n"
	"  -b, --buffer-size=SIZE, --chunk-size=SIZE, --lossy, --no-follow, --kernel\n"
	"                       as for record\n"
	"      --method=METHOD, -P, --libcalls, -a, -A, -R, -s, --srcline      as for record\n"
	"  -T, --timestamps     show when each line happened (seconds since the start)\n" CT_FILTER_HELP
	"      --no-demangle    show C++ names as they are in the binary\n"
	"      --color=WHEN     auto (on a terminal, unless NO_COLOR is set), always, never\n"
	"  -h, --help           this help\n";

static const struct option ct_live_longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "data", required_argument, NULL, 1400 },
	{ "buffer-size", required_argument, NULL, 'b' },
	{ "chunk-size", required_argument, NULL, 1100 },
	{ "lossy", no_argument, NULL, 1101 },
	{ "no-follow", no_argument, NULL, 1103 },
	{ "kernel", no_argument, NULL, 1105 },
	CT_TRACE_LONGOPTS,
	{ "timestamps", no_argument, NULL, 'T' },
	{ "no-demangle", no_argument, NULL, 1000 },
	{ "color", required_argument, NULL, 1001 },
	{ "colour", required_argument, NULL, 1001 },
	{ "help", no_argument, NULL, 'h' },
	CT_FILTER_LONGOPTS,
	{ 0 },
};

struct ct_live_args {
	struct ct_record_opts rec;
	struct ct_replay_opts replay;
	struct ct_cli_filter filter;
	struct ct_read_opts read; /* demangle, color */
	const char *out_path;
	const char *data;
};

/* 1 to go on, 0 to exit with *status */
static int ct_live_parse(int argc, char **argv, struct ct_live_args *a, int *status)
{
	int c;
	uint64_t size;

	*status = CT_EXIT_USAGE;
	while ((c = ct_getopt("live", argc, argv, "+o:b:Th" CT_FILTER_SHORTOPTS CT_TRACE_SHORTOPTS,
			      ct_live_longopts)) != -1) {
		int r = c == -2 ? -1 : ct_read_opt("live", &a->read, c, optarg);
		if (!r)
			r = ct_cli_filter_opt("live", &a->filter, c, optarg);
		if (!r) {
			int t = ct_trace_opt("live", c, optarg); /* 0: taken, 1: not its own */
			r = t == 0 ? 1 : t < 0 ? -1 : 0;
			if (c == 1452)
				a->replay.srcline = 1; /* recorded and shown */
		}
		if (r < 0)
			return 0;
		if (r)
			continue;
		switch (c) {
		case 'o':
			a->out_path = optarg;
			break;
		case 1400:
			a->data = optarg;
			break;
		case 'b':
		case 1100:
			if (ct_parse_size(optarg, &size) < 0 || size < 4096) {
				ct_error("live: %s takes a size like 64M, not '%s'",
					 c == 'b' ? "--buffer-size" : "--chunk-size", optarg);
				return 0;
			}
			if (c == 'b')
				a->rec.buffer_size = size;
			else
				a->rec.chunk_size = (uint32_t)(size & ~(uint64_t)4095);
			break;
		case 1101:
			a->rec.lossy = 1;
			break;
		case 1103:
			a->rec.no_follow = 1;
			break;
		case 1105:
			a->rec.kernel = 1;
			break;
		case 'T':
			a->replay.timestamps = 1;
			break;
		case 'h':
			fputs(ct_live_help, stdout);
			*status = 0;
			return 0;
		default:
			return 0;
		}
	}
	if (optind >= argc) {
		ct_error("live: no program to run (usage: calltrace live [options] PROG [ARGS...])");
		return 0;
	}
	if (a->rec.buffer_size / a->rec.chunk_size < 4) {
		ct_error("live: the buffer must hold at least 4 chunks of %u bytes", a->rec.chunk_size);
		return 0;
	}
	a->rec.argv = argv + optind;
	char *real = NULL; /* a libtool wrapper: the program it would run, run directly, as record does */
	if (!getenv("CALLTRACE_NO_LIBTOOL") && ct_libtool_resolve(a->rec.argv[0], &real))
		a->rec.argv[0] = real;
	a->rec.ptrace = ct_trace_ptrace();
	if (ct_trace_check("live", a->rec.argv[0]) < 0)
		return 0;
	return 1;
}

/* live --kernel: how far the recorder's kernel side is written, for one thread */
static uint64_t ct_live_kernel_complete(void *arg, int32_t tid)
{
	struct ct_kernel *const *k = arg;
	return ct_kside_complete(*k, tid);
}

int ct_cmd_live(int argc, char **argv)
{
	struct ct_kernel *kernel = NULL;
	struct ct_live_args a = { .rec = { .buffer_size = CT_DEFAULT_BUFFER,
					   .chunk_size = CT_DEFAULT_CHUNK,
					   .level = CT_DEFAULT_ZSTD_LEVEL,
					   .keep_quiet = 1 } };
	int status;

	ct_read_opts_init(&a.read);
	ct_cli_filter_init(&a.filter);
	if (!ct_live_parse(argc, argv, &a, &status))
		return status;

	FILE *out = stdout;
	if (a.out_path && !(out = fopen(a.out_path, "w"))) {
		ct_error("cannot write %s: %s", a.out_path, strerror(errno));
		return CT_EXIT_USAGE;
	}
	if (a.data) {
		a.rec.output = a.data;
	} else {
		const char *dir = getenv("TMPDIR");
		char *path = ct_printf("%s/calltrace-live-XXXXXX", dir && *dir ? dir : "/tmp");
		int fd = mkstemp(path);
		if (fd < 0) {
			ct_error("cannot create a temporary trace in %s: %s", dir ? dir : "/tmp",
				 strerror(errno));
			free(path);
			return 1;
		}
		close(fd);
		a.rec.output = path;
	}
	ct_set_colors(ct_use_color(a.read.color, out));

	struct ct_live *live = ct_live_new(a.rec.output, out, &a.filter.f, &a.replay, a.read.demangle);
	a.rec.tick = (void (*)(void *))ct_live_tick;
	a.rec.tick_arg = live;
	if (a.rec.kernel) {
		a.rec.kernel_at = &kernel;
		ct_live_kernel(live, ct_live_kernel_complete, &kernel);
	}
	status = ct_record(&a.rec);
	if (ct_live_end(live) < 0 && out != stdout)
		ct_error("cannot write %s", a.out_path);
	if (out != stdout)
		fclose(out);
	if (!a.data) {
		unlink(a.rec.output);
		free((char *)a.rec.output);
	}
	return status;
}
