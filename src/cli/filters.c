/* SPDX-License-Identifier: MIT */
/* The filter options shared by every command that walks calls. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "../util/util.h"

void ct_cli_filter_init(struct ct_cli_filter *cf)
{
	memset(cf, 0, sizeof(*cf));
	cf->f.only = cf->only;
	cf->f.hide = cf->hide;
	cf->f.tids = cf->tids;
	cf->f.pids = cf->pids;
}

double ct_parse_duration(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || v < 0 || !isfinite(v))
		return -1;
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "", 1 }, { "ns", 1 }, { "us", 1e3 }, { "µs", 1e3 }, { "ms", 1e6 },
		      { "s", 1e9 } };
	for (size_t i = 0; i < CT_ARRAY_SIZE(units); i++)
		if (!strcmp(end, units[i].unit))
			return v * units[i].ns;
	return -1;
}

/* --since/--until: seconds by default, or with a unit */
static double ct_parse_time(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (end != s && !*end && v >= 0)
		return v * 1e9;
	return ct_parse_duration(s);
}

static int ct_add_pattern(const char *cmd, const char **list, int *n, const char *arg)
{
	if (*n >= 63) {
		ct_error("%s: too many patterns (63 at most)", cmd);
		return -1;
	}
	list[(*n)++] = arg;
	list[*n] = NULL;
	return 1;
}

static int ct_add_id(const char *cmd, const char *what, int32_t *list, int *n, const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 10);
	if (*end || v <= 0 || v > INT32_MAX) {
		ct_error("%s: --%s takes a number, not '%s'", cmd, what, arg);
		return -1;
	}
	if (*n >= 63) {
		ct_error("%s: too many --%s (63 at most)", cmd, what);
		return -1;
	}
	list[(*n)++] = (int32_t)v;
	list[*n] = 0;
	return 1;
}

int ct_cli_filter_opt(const char *cmd, struct ct_cli_filter *cf, int c, const char *arg)
{
	char *end;
	double v;

	switch (c) {
	case 'F':
		return ct_add_pattern(cmd, cf->only, &cf->nonly, arg);
	case 'N':
		return ct_add_pattern(cmd, cf->hide, &cf->nhide, arg);
	case 'D': {
		long d = strtol(arg, &end, 10);
		if (*end || d <= 0 || d > 1000000) {
			ct_error("%s: --depth takes a number of levels, not '%s'", cmd, arg);
			return -1;
		}
		cf->f.max_depth = (uint32_t)d;
		return 1;
	}
	case 't':
		if ((v = ct_parse_duration(arg)) < 0) {
			ct_error("%s: --time-filter takes a duration like 10us, 1.5ms or 2s, not '%s'",
				 cmd, arg);
			return -1;
		}
		cf->f.min_ns = (uint64_t)v;
		return 1;
	case 1300:
		return ct_add_id(cmd, "tid", cf->tids, &cf->ntids, arg);
	case 1301:
		return ct_add_id(cmd, "pid", cf->pids, &cf->npids, arg);
	case 1302:
	case 1303:
		if ((v = ct_parse_time(arg)) < 0) {
			ct_error("%s: --%s takes a time from the start, like 1.5 (seconds) or 250ms, "
				 "not '%s'",
				 cmd, c == 1302 ? "since" : "until", arg);
			return -1;
		}
		if (c == 1302)
			cf->f.since_ns = v;
		else
			cf->f.until_ns = v;
		return 1;
	case 1304:
		cf->f.no_std = 1;
		return 1;
	case 1305:
		cf->f.regex = 1;
		return 1;
	case 1307:
		cf->f.no_kernel = 1;
		return 1;
	case 1306: {
		long n = strtol(arg, &end, 10);
		if (*end || end == arg || n < 1 || n > 256) {
			ct_error("%s: --jobs takes a number of threads from 1 to 256, not '%s'", cmd,
				 arg);
			return -1;
		}
		cf->f.jobs = (unsigned)n;
		return 1;
	}
	default:
		return 0;
	}
}
