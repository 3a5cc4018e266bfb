// SPDX-License-Identifier: MIT
/*
 * The ptrace method and calltrace attach on an architecture whose tracer is
 * not written yet (aarch64: its register access, brk breakpoints and
 * out-of-line stepping are to be done against PTRACE_GETREGSET; qemu-user,
 * where this port is tested, implements no ptrace for its guests). Built
 * there instead of the other files of this directory; x86-64 never builds it.
 */
#if !defined(__x86_64__)
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
