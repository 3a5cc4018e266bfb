/* SPDX-License-Identifier: MIT */
/* Starting the traced program with the runtime preloaded. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record.h"

/*
 * CALLTRACE_RUNTIME if set; else libcalltrace.so beside the calltrace binary (the
 * build tree), or once installed in PREFIX/lib (make install), PREFIX/lib64 or
 * PREFIX/lib/calltrace, PREFIX being the directory above the binary's.
 */
char *ct_find_runtime(void)
{
	const char *env = getenv("CALLTRACE_RUNTIME");
	if (env && *env)
		return access(env, R_OK) == 0 ? realpath(env, NULL) : NULL;

	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return NULL;
	self[n] = 0;
	char *slash = strrchr(self, '/');
	if (!slash)
		return NULL;
	*slash = 0;
	const char *candidates[] = { "%s/libcalltrace.so", "%s/../lib/libcalltrace.so",
				     "%s/../lib64/libcalltrace.so",
				     "%s/../lib/calltrace/libcalltrace.so" };
	for (size_t i = 0; i < CT_ARRAY_SIZE(candidates); i++) {
		char *p = ct_printf(candidates[i], self);
		char *real = realpath(p, NULL);
		free(p);
		if (real && access(real, R_OK) == 0)
			return real;
		free(real);
	}
	return NULL;
}

struct ct_child_args {
	char **argv;
	const char *runtime, *pool_path;
	int no_follow;
};

static void ct_child(void *arg, int errfd)
{
	const struct ct_child_args *a = arg;
	char **argv = a->argv;
	const char *old = getenv("LD_PRELOAD");
	char *preload = old && *old ? ct_printf("%s:%s", a->runtime, old) : ct_strdup(a->runtime);

	setenv("LD_PRELOAD", preload, 1);
	setenv("CALLTRACE_POOL", a->pool_path, 1);
	unsetenv("CALLTRACE_FROM");
	if (a->no_follow) { /* the runtime traces this process only (exec keeps the pid) */
		char pid[16];
		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		setenv("CALLTRACE_NO_FOLLOW", pid, 1);
	} else {
		unsetenv("CALLTRACE_NO_FOLLOW");
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	execvp(argv[0], argv);

	int err = errno;
	ssize_t r = write(errfd, &err, sizeof(err));
	(void)r;
	_exit(CT_EXIT_NOTFOUND);
}

/*
 * Fork and exec; the child reports a failed exec through a close-on-exec pipe,
 * so the error is ours to print, in one line, with the shell's exit statuses.
 */
pid_t ct_launch(char **argv, const char *runtime, const char *pool_path, int no_follow,
		int *status)
{
	struct ct_child_args a = { argv, runtime, pool_path, no_follow };
	int err;
	pid_t pid = ct_fork_reporting(ct_child, &a, &err);
	if (pid < 0)
		*status = err > 0 ? ct_exec_error(argv[0], err) : 1;
	return pid;
}
