// SPDX-License-Identifier: MIT
/*
 * The ptrace method and calltrace attach on an architecture whose tracer is
 * not written yet (it has no src/arch/<arch>/ptrace_arch.h). Built there
 * instead of the other files of this directory; x86-64 and aarch64 have
 * the tracer, and compile this file to nothing.
 */
#if !defined(__x86_64__) && !defined(__aarch64__)
#include <stdio.h>
#include <sys/utsname.h>

#include "ptrace.h"

static pid_t ct_ptrace_unsupported(int *status)
{
	struct utsname u;
	fprintf(stderr,
		"calltrace: the ptrace method and attach are not available on %s yet "
		"(use record's other methods)\n",
		uname(&u) == 0 ? u.machine : "this architecture");
	*status = 2;
	return -1;
}

pid_t ct_ptrace_launch(char **argv, struct ct_pool_ctl *ctl, int follow, int *status)
{
	(void)argv;
	(void)ctl;
	(void)follow;
	return ct_ptrace_unsupported(status);
}

pid_t ct_ptrace_attach(const struct ct_attach_opts *o, int *status)
{
	(void)o;
	return ct_ptrace_unsupported(status);
}
#endif
