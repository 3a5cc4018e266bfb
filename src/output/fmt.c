/* SPDX-License-Identifier: MIT */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "output.h"

const char *ct_c_reset = "", *ct_c_dim = "", *ct_c_bold = "", *ct_c_red = "", *ct_c_yellow = "",
	   *ct_c_magenta = "", *ct_c_green = "";

int ct_use_color(enum ct_color_mode mode, FILE *out)
{
	if (mode == CT_COLOR_NEVER)
		return 0;
	const char *no = getenv("NO_COLOR");
	if (no && *no)
		return 0;
	if (mode == CT_COLOR_ALWAYS)
		return 1;
	const char *term = getenv("TERM");
	return isatty(fileno(out)) && !(term && !strcmp(term, "dumb"));
}

void ct_set_colors(int on)
{
	ct_c_reset = on ? "\033[0m" : "";
	ct_c_dim = on ? "\033[2m" : "";
	ct_c_bold = on ? "\033[1m" : "";
	ct_c_red = on ? "\033[31m" : "";
	ct_c_yellow = on ? "\033[33m" : "";
	ct_c_magenta = on ? "\033[35m" : "";
	ct_c_green = on ? "\033[32m" : "";
}

void ct_fmt_duration(char *buf, size_t len, double ns)
{
	if (ns < 1e6)
		snprintf(buf, len, "%7.3f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%7.3f ms", ns / 1e6);
	else if (ns < 1e12)
		snprintf(buf, len, "%7.3f  s", ns / 1e9);
	else
		snprintf(buf, len, "%7.0f  s", ns / 1e9);
}

void ct_fmt_size(char *buf, size_t len, uint64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = 0;
	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%.1f %s", v, units[u]);
}

void ct_cmdline_text(const char *args, uint32_t len, char *buf, size_t size)
{
	size_t n = 0;
	while (len && !args[len - 1])
		len--;
	for (uint32_t i = 0; i < len && i < CT_CMDLINE_SHOWN && n + 1 < size; i++)
		buf[n++] = args[i] ? args[i] : ' ';
	buf[n] = 0;
	if (len > CT_CMDLINE_SHOWN) {
		char count[32];
		ct_fmt_count(count, sizeof(count), len);
		snprintf(buf + n, size - n, "\xe2\x80\xa6 (%s characters)", count);
	}
}
