/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "../util/util.h"

int ct_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
	      const struct option *longopts)
{
	char spec[128];
	int plus = shortopts[0] == '+';

	/* a leading ':' makes getopt tell a missing value from an unknown option */
	snprintf(spec, sizeof(spec), "%s:%s", plus ? "+" : "", shortopts + plus);
	opterr = 0;
	int c = getopt_long(argc, argv, spec, longopts, NULL);
	if (c != '?' && c != ':')
		return c;
	const char *arg = argv[optind - 1];
	if (c == ':')
		ct_error("%s: option '%s' needs a value (see 'calltrace %s --help')", cmd, arg,
			 cmd);
	else if (optopt)
		ct_error("%s: unknown option '-%c' (see 'calltrace %s --help')", cmd, optopt, cmd);
	else
		ct_error("%s: unknown option '%s' (see 'calltrace %s --help')", cmd, arg, cmd);
	return -2;
}

void ct_read_opts_init(struct ct_read_opts *o)
{
	o->input = "calltrace.data";
	o->demangle = 1;
	o->color = CT_COLOR_AUTO;
}

int ct_read_opt(const char *cmd, struct ct_read_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'i':
		o->input = arg;
		return 1;
	case 1000:
		o->demangle = 0;
		return 1;
	case 1001:
		if (!strcmp(arg, "auto"))
			o->color = CT_COLOR_AUTO;
		else if (!strcmp(arg, "always"))
			o->color = CT_COLOR_ALWAYS;
		else if (!strcmp(arg, "never"))
			o->color = CT_COLOR_NEVER;
		else {
			ct_error("%s: --color takes auto, always or never, not '%s'", cmd, arg);
			return -1;
		}
		return 1;
	default:
		return 0;
	}
}

struct ct_trace *ct_cli_open(const struct ct_read_opts *o)
{
	char err[1024];
	struct ct_trace *t = ct_trace_open(o->input, err, sizeof(err));
	if (!t) {
		ct_error("%s", err);
		exit(CT_EXIT_USAGE);
	}
	if (t->torn_bytes)
		ct_warn("%s: the last %llu bytes are an incomplete block (the recorder was "
			"stopped); "
			"reading what comes before",
			o->input, (unsigned long long)t->torn_bytes);
	else if (!t->has_end)
		ct_warn("%s: the recording did not finish; reading what was written", o->input);
	ct_set_colors(ct_use_color(o->color, stdout));
	return t;
}
