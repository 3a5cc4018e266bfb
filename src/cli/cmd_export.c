/* SPDX-License-Identifier: MIT */
/* calltrace export: write the calls for Perfetto, Chrome's viewers or flame graphs. */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "../output/export.h"
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

/* What the options say, before they are checked together. */
struct ct_export_args {
	int format; /* -1: not said */
	const char *output, *weight;
	struct ct_export_opts o;
};

static int ct_export_opt(void *ctx, int c, const char *arg)
{
	struct ct_export_args *a = ctx;

	switch (c) {
	case 'f':
		a->format = ct_format_from_name(arg);
		if (a->format < 0) {
			ct_error("export: --format takes perfetto, chrome or folded, not '%s'",
				 arg);
			return -1;
		}
		return 0;
	case 'o':
		a->output = arg;
		return 0;
	case 1400:
		a->weight = arg;
		if (strcmp(arg, "time") && strcmp(arg, "calls")) {
			ct_error("export: --weight takes time or calls, not '%s'", arg);
			return -1;
		}
		return 0;
	default:
		return -1;
	}
}

static int ct_export_check(void *ctx)
{
	struct ct_export_args *a = ctx;

	if (a->format < 0 && a->output && strcmp(a->output, "-"))
		a->format = ct_format_from_path(a->output);
	if (a->format < 0) {
		ct_error("export: say which format: --format perfetto, chrome or folded");
		return -1;
	}
	if (a->weight && a->format != CT_EXPORT_FOLDED) {
		ct_error("export: --weight is for --format folded");
		return -1;
	}
	a->o.format = (enum ct_export_format)a->format;
	a->o.weight = a->weight && !strcmp(a->weight, "calls") ? CT_FOLD_CALLS : CT_FOLD_TIME;
	if (!a->output)
		a->output = ct_formats[a->format].file;
	if (!strcmp(a->output, "-") && a->o.format == CT_EXPORT_PERFETTO && isatty(STDOUT_FILENO)) {
		ct_error("export: a Perfetto trace is binary: not writing it to a terminal (-o "
			 "FILE)");
		return -1;
	}
	return 0;
}

static int ct_export_write(struct ct_reading *r, FILE *f, void *ctx, int *werr)
{
	return ct_export(r->t, r->sym, r->w, f, ctx, werr);
}

int ct_cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = { { "format", required_argument, NULL, 'f' },
						  { "output", required_argument, NULL, 'o' },
						  { "weight", required_argument, NULL, 1400 },
						  CT_FILTER_LONGOPTS,
						  CT_READ_LONGOPTS,
						  { 0 } };
	struct ct_export_args a = { .format = -1, .o = { .progress = 1 } };
	struct ct_cli_filter cf;
	const struct ct_read_cmd cmd = { .name = "export",
					 .help = ct_export_help,
					 .shortopts = "f:o:i:h" CT_FILTER_SHORTOPTS,
					 .longopts = longopts,
					 .own = ct_export_opt,
					 .ctx = &a,
					 .filter = &cf,
					 .check = ct_export_check };
	struct ct_reading r;
	int status;

	if (!ct_read_begin(&cmd, argc, argv, &r, &status))
		return status;

	/*
	 * A file is written whole under a unique name beside its place and
	 * renamed there (src/util/outfile.c), so a failed export leaves nothing
	 * behind; a device or a pipe (-o /dev/null) is written directly, as
	 * standard output is.
	 */
	signal(SIGPIPE, SIG_IGN); /* a closed pipe is a write error, reported */
	signal(SIGXFSZ, SIG_IGN); /* and so is the file size limit */
	return ct_read_to_output(&r, a.output, ct_export_write, &a.o, 0);
}
