/* SPDX-License-Identifier: MIT */
/* Starting the traced program with the runtime preloaded. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

static void ct_child(char **argv, const char *runtime, const char *pool_path, int errfd,
		     int no_follow)
{
	const char *old = getenv("LD_PRELOAD");
	char *preload = old && *old ? ct_printf("%s:%s", runtime, old) : ct_strdup(runtime);

	setenv("LD_PRELOAD", preload, 1);
	setenv("CALLTRACE_POOL", pool_path, 1);
	unsetenv("CALLTRACE_FROM");
	if (no_follow) { /* the runtime traces this process only (exec keeps the pid) */
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
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		ct_error("cannot create a pipe: %s", strerror(errno));
		*status = 1;
		return -1;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		ct_error("cannot fork: %s", strerror(errno));
		*status = 1;
		return -1;
	}
	if (pid == 0) {
		close(pfd[0]);
		ct_child(argv, runtime, pool_path, pfd[1], no_follow);
	}
	close(pfd[1]);

	int err = 0;
	ssize_t r;
	do
		r = read(pfd[0], &err, sizeof(err));
	while (r < 0 && errno == EINTR);
	close(pfd[0]);
	if (r != (ssize_t)sizeof(err))
		return pid;

	waitpid(pid, NULL, 0);
	if (err == ENOENT && !strchr(argv[0], '/')) {
		ct_error("%s: command not found", argv[0]);
		*status = CT_EXIT_NOTFOUND;
	} else {
		ct_error("cannot execute %s: %s", argv[0], strerror(err));
		*status = err == ENOENT ? CT_EXIT_NOTFOUND : CT_EXIT_NOEXEC;
	}
	return -1;
}
