/* SPDX-License-Identifier: MIT */
/* calltrace export: write the calls for Perfetto, Chrome's viewers or flame graphs. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "../output/export.h"
#include "../util/outfile.h"
#include "../util/util.h"

static const char ct_export_help[] =
	"usage: calltrace export --format FORMAT [-o FILE] [options]\n\n"
	"Write the recorded calls for other tools, streaming (memory does not grow with\n"
	"the trace):\n"
	"  perfetto  Perfetto's protobuf trace: a track per thread, a slice per call\n"
	"            (open it in ui.perfetto.dev or query it with trace_processor)\n"
	"  chrome    Chrome's trace event JSON: a complete event per call (chrome://tracing,\n"
	"            Perfetto's UI, speedscope)\n"
	"  folded    folded stacks, one line per distinct stack with its self time in ns\n"
	"            (flamegraph.pl, inferno, speedscope)\n\n"
	"  -f, --format=FORMAT  perfetto, chrome or folded (default: from the -o file's\n"
	"                       extension: .pftrace .perfetto-trace .json .folded)\n"
	"  -o, --output=FILE    where to write ('-': standard output); default\n"
	"                       calltrace.pftrace, calltrace.json or calltrace.folded\n"
	"      --weight=WHAT    folded: 'time' (self time in ns, the default) or "
	"'calls'\n" CT_FILTER_HELP CT_READ_HELP;

static const struct {
	const char *name, *file, *ext[2];
} ct_formats[] = {
	[CT_EXPORT_PERFETTO] = { "perfetto",
				 "calltrace.pftrace",
				 { ".pftrace", ".perfetto-trace" } },
	[CT_EXPORT_CHROME] = { "chrome", "calltrace.json", { ".json", NULL } },
	[CT_EXPORT_FOLDED] = { "folded", "calltrace.folded", { ".folded", NULL } },
};

/* The temporary file, removed if we are interrupted. */
static char *ct_tmp_path;

static void ct_export_on_signal(int sig)
{
	if (ct_tmp_path)
		unlink(ct_tmp_path);
	signal(sig, SIG_DFL);
	raise(sig);
}

static int ct_format_from_name(const char *s)
{
	for (size_t i = 0; i < CT_ARRAY_SIZE(ct_formats); i++)
		if (!strcmp(s, ct_formats[i].name))
			return (int)i;
	return -1;
}

static int ct_format_from_path(const char *path)
{
	size_t n = strlen(path);
	for (size_t i = 0; i < CT_ARRAY_SIZE(ct_formats); i++) {
		for (int j = 0; j < 2; j++) {
			const char *e = ct_formats[i].ext[j];
			if (e && n > strlen(e) && !strcmp(path + n - strlen(e), e))
				return (int)i;
		}
	}
	return -1;
}

int ct_cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = { { "format", required_argument, NULL, 'f' },
						  { "output", required_argument, NULL, 'o' },
						  { "weight", required_argument, NULL, 1400 },
						  CT_FILTER_LONGOPTS,
						  CT_READ_LONGOPTS,
						  { 0 } };
	struct ct_export_opts o = { .progress = 1 };
	struct ct_read_opts ro;
	struct ct_cli_filter cf;
	const char *output = NULL, *weight = NULL;
	int format = -1, c;

	ct_read_opts_init(&ro);
	ct_cli_filter_init(&cf);
	while ((c = ct_getopt("export", argc, argv, "f:o:i:h" CT_FILTER_SHORTOPTS, longopts)) !=
	       -1) {
		if (c == -2)
			return CT_EXIT_USAGE;
		int r = ct_read_opt("export", &ro, c, optarg);
		if (!r)
			r = ct_cli_filter_opt("export", &cf, c, optarg);
		if (r < 0)
			return CT_EXIT_USAGE;
		if (r)
			continue;
		switch (c) {
		case 'h':
			fputs(ct_export_help, stdout);
			return 0;
		case 'f':
			format = ct_format_from_name(optarg);
			if (format < 0) {
				ct_error("export: --format takes perfetto, chrome or folded, not "
					 "'%s'",
					 optarg);
				return CT_EXIT_USAGE;
			}
			break;
		case 'o':
			output = optarg;
			break;
		case 1400:
			weight = optarg;
			if (strcmp(weight, "time") && strcmp(weight, "calls")) {
				ct_error("export: --weight takes time or calls, not '%s'", weight);
				return CT_EXIT_USAGE;
			}
			break;
		default:
			return CT_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		ct_error("export: unexpected argument '%s' (see 'calltrace export --help')",
			 argv[optind]);
		return CT_EXIT_USAGE;
	}
	if (format < 0 && output && strcmp(output, "-"))
		format = ct_format_from_path(output);
	if (format < 0) {
		ct_error("export: say which format: --format perfetto, chrome or folded");
		return CT_EXIT_USAGE;
	}
	if (weight && format != CT_EXPORT_FOLDED) {
		ct_error("export: --weight is for --format folded");
		return CT_EXIT_USAGE;
	}
	o.format = (enum ct_export_format)format;
	o.weight = weight && !strcmp(weight, "calls") ? CT_FOLD_CALLS : CT_FOLD_TIME;
	if (!output)
		output = ct_formats[format].file;
	int to_stdout = !strcmp(output, "-");
	if (to_stdout && o.format == CT_EXPORT_PERFETTO && isatty(STDOUT_FILENO)) {
		ct_error("export: a Perfetto trace is binary: not writing it to a terminal (-o "
			 "FILE)");
		return CT_EXIT_USAGE;
	}

	struct ct_trace *t = ct_cli_open(&ro);
	struct ct_symbols *sym = ct_symbols_open(t, ro.demangle);
	char err[1024];
	struct ct_walk *w = ct_walk_new(t, sym, &cf.f, err, sizeof(err));
	if (!w) {
		ct_error("export: %s", err);
		ct_symbols_close(sym);
		ct_trace_close(t);
		return CT_EXIT_USAGE;
	}

	/*
	 * A file is written whole under a unique name beside its place and
	 * renamed there (src/util/outfile.c), so a failed export leaves nothing
	 * behind; a device or a pipe (-o /dev/null) is written directly, as
	 * standard output is.
	 */
	FILE *f = stdout;
	struct ct_outfile out = { .fd = -1 };
	signal(SIGPIPE, SIG_IGN); /* a closed pipe is a write error, reported */
	signal(SIGXFSZ, SIG_IGN); /* and so is the file size limit */
	if (!to_stdout) {
		signal(SIGINT, ct_export_on_signal);
		signal(SIGTERM, ct_export_on_signal);
		signal(SIGHUP, ct_export_on_signal);
		if (ct_outfile_open(&out, output) < 0)
			goto cannot_write;
		ct_tmp_path = out.tmp;
		if (!(f = fdopen(out.fd, "w"))) {
			int e = errno;
			close(out.fd);
			ct_tmp_path = NULL;
			ct_outfile_finish(&out, 0);
			errno = e;
			goto cannot_write;
		}
	}

	int werr = 0;
	int rc = ct_export(t, sym, w, f, &o, &werr);
	if (!to_stdout && fclose(f) != 0 && !werr)
		werr = errno;
	if (!to_stdout) {
		ct_tmp_path = NULL; /* before it is freed: the signal handler reads it */
		if (ct_outfile_finish(&out, !werr && rc == 0) < 0)
			werr = errno;
	}
	ct_walk_free(w);
	ct_symbols_close(sym);
	ct_trace_close(t);
	if (werr) {
		errno = werr;
		if (to_stdout)
			ct_error("cannot write standard output: %s", strerror(werr));
		else
			ct_error("cannot write %s: %s", output, strerror(werr));
		return CT_EXIT_USAGE;
	}
	return rc < 0 ? CT_EXIT_USAGE : 0;

cannot_write:
	ct_error("cannot write %s: %s", output, strerror(errno));
	ct_walk_free(w);
	ct_symbols_close(sym);
	ct_trace_close(t);
	return CT_EXIT_USAGE;
}
