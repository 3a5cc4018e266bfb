// SPDX-License-Identifier: MIT
/*
 * calltrace-cc, calltrace-c++: `calltrace-cc [WRAPPER-OPTIONS] ARGS...` execs
 * the real compiler with ARGS and, when ARGS compile something, the flags of
 * the chosen instrumentation method. exec, not fork: the compiler's output,
 * exit status and signals reach the build system untouched.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wrapper.h"

const char *ct_prog = "calltrace-cc";

/* calltrace-c++, or any name ending in "++" (a symlink g++ -> calltrace-cc). */
static bool run_as_cxx(const char *argv0)
{
	size_t len = strlen(argv0);

	return len >= 2 && !strcmp(argv0 + len - 2, "++");
}

static void cannot_run(const char *compiler, int err)
{
	fprintf(stderr, "%s: cannot run '%s': %s\n", ct_prog, compiler, strerror(err));
	exit(127);
}

int main(int argc, char **argv)
{
	struct wopts o;
	struct cmdline cl;
	struct strv cmd = { 0 };
	const char *compiler;
	char *path;
	int err;
	bool masked;
	bool cxx = argc > 0 && run_as_cxx(argv[0]);

	ct_prog = cxx ? "calltrace-c++" : "calltrace-cc";
	parse_options(argc, argv, &o);
	o.cxx = cxx;
	compiler = compiler_name(cxx);
	path = find_program(compiler, &err, &masked);
	if (!path)
		cannot_run(compiler, err);
	/* gcc finds its own files from argv[0] looked up in PATH, where we are first */
	if (masked)
		compiler = path;
	if (is_self(path)) {
		fprintf(stderr, "%s: cannot run '%s': it is %s itself (set %s)\n", ct_prog,
			compiler, ct_prog, cxx ? "CALLTRACE_CXX" : "CALLTRACE_CC");
		exit(127);
	}
	classify(&o.cc_args, &cl);
	strv_push(&cmd, compiler);
	if (cl.kind == CMD_COMPILE || cl.kind == CMD_COMPILE_LINK)
		add_flags(&cmd, &o, &cl, path, compiler);
	strv_append(&cmd, &o.cc_args);
	if (o.verbose)
		strv_print(&cmd, xasprintf("%s: ", ct_prog));
	execv(path, cmd.v);
	cannot_run(compiler, errno);
	return 127;
}
