/* SPDX-License-Identifier: MIT */
/* What the marks of a tree say (crash, lost events, exec, fork), for every output. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "../analysis/builder.h"

static void ct_crash_text(struct ct_symbols *sym, uint32_t instance, const struct ct_event *ev,
			  char *buf, size_t len)
{
	struct ct_ext_crash c;
	char where[512], line[256] = "", addr[64] = "";

	memcpy(&c, ev->ext, sizeof(c));
	ct_symbols_describe(sym, instance, c.pc, ev->clock, where, sizeof(where));
	if (ct_symbols_srcline(sym, instance, c.pc, ev->clock, line + 2, sizeof(line) - 3)) {
		memcpy(line, " (", 2);
		strcat(line, ")");
	}
	if (c.signo == SIGSEGV || c.signo == SIGBUS)
		snprintf(addr, sizeof(addr), ", address 0x%llx", (unsigned long long)c.addr);
	snprintf(buf, len, "%s at %s%s%s", ct_signal_name(c.signo), where, line, addr);
}

/* "exec PATH ARGS...": argv[0] is left out when it is the path. */
static void ct_exec_text(const struct ct_event *ev, char *buf, size_t len)
{
	const char *p = (const char *)ev->ext, *end = p + ev->ext_len;
	char *words = ct_malloc(ev->ext_len + 1);
	uint32_t n = 0;
	const char *path = p;
	for (int i = 0; p < end && *p; i++) {
		size_t l = strnlen(p, (size_t)(end - p));
		if (i != 1 || strcmp(p, path)) { /* argv[0] is shown when it differs */
			memcpy(words + n, p, l);
			n += (uint32_t)l;
			words[n++] = 0;
		}
		p += l + 1;
	}
	char line[CT_CMDLINE_SHOWN + 64];
	ct_cmdline_text(words, n, line, sizeof(line));
	snprintf(buf, len, "exec %s", line);
	free(words);
}

/* A spawn's program or system()'s command, after struct ct_ext_fork, shortened. */
static void ct_spawn_text(const struct ct_event *ev, const struct ct_ext_fork *f, char *buf,
			  size_t len)
{
	const char *what = f->how == CT_FORK_SYSTEM ? "system" : "spawn";
	uint32_t cmd_len = ev->ext_len > sizeof(*f) ? ev->ext_len - (uint32_t)sizeof(*f) : 0;
	char line[CT_CMDLINE_SHOWN + 64] = "";
	ct_cmdline_text((const char *)ev->ext + sizeof(*f), cmd_len, line, sizeof(line));
	if (f->child_pid > 0)
		snprintf(buf, len, "%s: process %d (%s)", what, f->child_pid, line);
	else
		snprintf(buf, len, "%s: %s", what, line);
}

const char *ct_untraced_why(uint32_t reason, int32_t err, char *buf, size_t len)
{
	switch (reason) {
	case CT_UNTRACED_STATIC:
		return "statically linked (no runtime can be preloaded)";
	case CT_UNTRACED_SECURE:
		return "setuid or setgid (the loader ignores LD_PRELOAD)";
	case CT_UNTRACED_FOREIGN:
		return "built for another architecture (no runtime for it)";
	case CT_UNTRACED_NO_POOL:
		snprintf(buf, len, "%s (the recording's shared memory could not be handed on)",
			 err > 0 ? strerror(err) : "no access");
		if (buf[0] >= 'A' && buf[0] <= 'Z')
			buf[0] = (char)(buf[0] - 'A' + 'a');
		return buf;
	case CT_UNTRACED_UNMAPPED:
		return "the program unmapped calltrace's shared memory";
	case CT_UNTRACED_PROTECTED:
		return "the program write-protected calltrace's shared memory";
	case CT_UNTRACED_REMAPPED:
		return "the program mapped over calltrace's shared memory";
	default:
		snprintf(buf, len, "reason %u", reason);
		return buf;
	}
}

void ct_untraced_line(const struct ct_untraced_info *u, char *buf, size_t len)
{
	char why[256];
	int stopped = u->rec.reason >= CT_UNTRACED_UNMAPPED;
	snprintf(buf, len, "process %d (%s) %s: %s", u->rec.pid, u->path,
		 stopped ? "stopped being traced" : "ran untraced",
		 ct_untraced_why(u->rec.reason, u->rec.err, why, sizeof(why)));
}

/* Tracing stopped in this process: why, from the record's payload. */
static void ct_untraced_text(const struct ct_event *ev, char *buf, size_t len)
{
	struct ct_ext_exec_note n = { 0 };
	char why[256];
	ct_event_payload(ev, &n, sizeof(n));
	snprintf(buf, len, "tracing stopped: %s", ct_untraced_why(n.reason, n.err, why, sizeof(why)));
}

enum ct_mark_kind ct_mark_text(struct ct_symbols *sym, uint32_t instance,
			       const struct ct_event *ev, char *buf, size_t len)
{
	uint64_t v;
	struct ct_ext_fork f;

	ct_event_payload(ev, &v, sizeof(v));
	ct_event_payload(ev, &f, sizeof(f));
	switch (ev->ext_type) {
	case CT_EXT_LOST:
		snprintf(buf, len, "lost %llu events", (unsigned long long)v);
		return CT_MARK_LOST;
	case CT_EXT_CRASH:
		if (ev->ext_len < sizeof(struct ct_ext_crash))
			return CT_MARK_NONE;
		ct_crash_text(sym, instance, ev, buf, len);
		return CT_MARK_CRASH;
	case CT_EXT_EXEC:
		ct_exec_text(ev, buf, len);
		return CT_MARK_EXEC;
	case CT_EXT_EXEC_FAILED:
		snprintf(buf, len, "exec failed: %s", strerror((int)v));
		return CT_MARK_EXEC;
	case CT_EXT_FORK:
		if (f.how == CT_FORK_SPAWN || f.how == CT_FORK_SYSTEM)
			ct_spawn_text(ev, &f, buf, len);
		else
			snprintf(buf, len, "%s: process %d",
				 f.how == CT_FORK_VFORK ? "vfork" : "fork", f.child_pid);
		return CT_MARK_PROCESS;
	case CT_EXT_FORKED_FROM:
		snprintf(buf, len, "forked from process %d", f.child_pid);
		return CT_MARK_PROCESS;
	case CT_EXT_UNTRACED:
		ct_untraced_text(ev, buf, len);
		return CT_MARK_PROCESS;
	case CT_EXT_PAUSE:
		snprintf(buf, len, "tracing off");
		return CT_MARK_NOTE;
	case CT_EXT_RESUME:
		snprintf(buf, len, "tracing on");
		return CT_MARK_NOTE;
	case CT_EXT_USER_MARK:
		if (ev->ext_len <= 8)
			return CT_MARK_NONE;
		snprintf(buf, len, "%.*s", (int)strnlen((const char *)ev->ext + 8, ev->ext_len - 8),
			 (const char *)ev->ext + 8);
		return CT_MARK_USER;
	default:
		return CT_MARK_NONE;
	}
}
