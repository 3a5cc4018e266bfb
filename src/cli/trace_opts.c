/* SPDX-License-Identifier: MIT */
/*
 * How record and live trace a program: --method, -P patterns, --libcalls.
 * They reach the runtime through the environment (src/runtime/select.c);
 * the method is checked against the program here, before it starts, so a
 * wrong choice is one clear line rather than an empty trace.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "../record/syshdr.h"
#include "../symbols/symbols.h"

static const char *const ct_methods[] = { "auto",	 "finstrument", "fentry",
					   "patchable", "patch",       "ptrace" };
static const char *ct_method = "auto";

static int ct_add_pattern_env(const char *cmd, const char *pat)
{
	const char *old = getenv("CALLTRACE_PATTERNS");
	if (!*pat || strchr(pat, '\n')) {
		ct_error("%s: -P takes a glob like 'parse_*', 'libfoo.so:*' or 'malloc@*', not '%s'",
			 cmd, pat);
		return -1;
	}
	char *all = ct_malloc((old ? strlen(old) : 0) + strlen(pat) + 2);
	sprintf(all, "%s%s%s", old ? old : "", old && *old ? "\n" : "", pat);
	setenv("CALLTRACE_PATTERNS", all, 1);
	free(all);
	return 0;
}

int ct_trace_opt(const char *cmd, int c, const char *arg)
{
	switch (c) {
	case 'P':
		return ct_add_pattern_env(cmd, arg);
	case 1451:
		setenv("CALLTRACE_LIBCALLS", "1", 1);
		return 0;
	case 'a':
		setenv("CALLTRACE_ARGS", "1", 1);
		return 0;
	case 'A':
	case 'R':
		return ct_argspec_add(cmd, (char)c, arg);
	case 's': {
		char *end;
		long n = strtol(arg, &end, 10);
		if (*end || n < 1 || n > 1024) {
			ct_error("%s: -s takes a number of bytes from 1 to 1024, not '%s'", cmd, arg);
			return -1;
		}
		setenv("CALLTRACE_STRLEN", arg, 1);
		return 0;
	}
	case 1452:
		setenv("CALLTRACE_CALLSITES", "1", 1);
		return 0;
	case 1453: /* the runtime's plan cache (src/runtime/methods/plancache.c) */
		setenv("CALLTRACE_NO_CACHE", "1", 1);
		return 0;
	case 1450:
		for (size_t i = 0; i < CT_ARRAY_SIZE(ct_methods); i++) {
			if (!strcmp(arg, ct_methods[i])) {
				ct_method = ct_methods[i];
				setenv("CALLTRACE_METHOD", arg, 1);
				return 0;
			}
		}
		ct_error("%s: --method takes auto, finstrument, fentry, patchable, patch or ptrace, "
			 "not '%s'",
			 cmd, arg);
		return -1;
	default:
		return 1;
	}
}

/* The file execvp would run; NULL if there is none (launching will say so). */
static char *ct_which(const char *prog)
{
	if (strchr(prog, '/'))
		return ct_strdup(prog);
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = path; *p;) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char *cand = ct_malloc(n + strlen(prog) + 2);
		sprintf(cand, "%.*s/%s", (int)n, n ? p : ".", prog);
		if (!access(cand, X_OK))
			return cand;
		free(cand);
		p += n + (end != NULL);
	}
	return NULL;
}

static int ct_method_fits(const char *cmd, const char *prog, const struct ct_elf_probe *e)
{
	int hooks = e->finstrument || e->fentry || e->mcount;
	if (!strcmp(ct_method, "finstrument") && !e->finstrument)
		ct_error("%s: %s was not built with -finstrument-functions (--method=patch traces it "
			 "as it is)", cmd, prog);
	else if (!strcmp(ct_method, "fentry") && !e->fentry && !e->mcount)
		ct_error("%s: %s was not built with -pg [-mfentry] (--method=patch traces it as it is)",
			 cmd, prog);
	else if (!strcmp(ct_method, "patchable") && !e->patchable)
		ct_error("%s: %s was not built with -fpatchable-function-entry=5 (--method=patch "
			 "traces it as it is)", cmd, prog);
	else if (!strcmp(ct_method, "patch") && hooks)
		ct_error("%s: %s calls tracing hooks of its own (built with %s): patching it too "
			 "would count every call twice; use --method=auto", cmd, prog,
			 e->finstrument ? "-finstrument-functions" : "-pg");
	else
		return 0;
	return -1;
}

int ct_trace_ptrace(void)
{
	return !strcmp(ct_method, "ptrace");
}

int ct_trace_check(const char *cmd, const char *prog)
{
	struct ct_elf_probe e;
	char *path = ct_which(prog);
	int rc = 0;

	if (!path || ct_elf_probe(path, &e) < 0) {
		free(path);
		return 0; /* not found or not ELF (a script): the launch says what is wrong */
	}
	if (ct_privilege_check(cmd, path, ct_trace_ptrace()) < 0) {
		rc = -1;
	} else if (ct_trace_ptrace()) {
		if (getenv("CALLTRACE_ARGS") || getenv("CALLTRACE_ARGSPEC") ||
		    getenv("CALLTRACE_LIBCALLS")) {
			ct_error("%s: --method=ptrace records calls and returns only (no -a/-A/-R, "
				 "no --libcalls)", cmd);
			rc = -1;
		}
	} else if (e.is_static) {
		ct_error("%s: %s is statically linked: the calltrace runtime cannot be loaded into it "
			 "(--method=ptrace traces it)", cmd, prog);
		rc = -1;
	} else if (ct_method_fits(cmd, prog, &e) < 0) {
		rc = -1;
	} else if (e.patchable && (!strcmp(ct_method, "auto") || !strcmp(ct_method, "patchable"))) {
		ct_syshdr_offer(path); /* its entries from system headers stay unpatched */
	}
	free(path);
	return rc;
}
