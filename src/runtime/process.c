/* SPDX-License-Identifier: MIT */
/*
 * Following the program as it makes processes and replaces itself.
 *
 * fork: the child is a new process image (atfork, init.c); the parent says
 * which child it made, where it made it. vfork is a fork here: a vfork child
 * shares its parent's memory, our per-thread buffers included, until it execs,
 * and the traced calls it may make would land in its parent's stream.
 *
 * exec: before the image is replaced, its thread says so (path and argv) and
 * hands its chunk over, and the environment the new image gets keeps the
 * runtime preloaded, names the recording, and says which image it came from.
 * A failed exec is told too, and tracing goes on.
 *
 * _exit, quick_exit: what the destructor would have said (lost events,
 * modules loaded since) is said before the process goes.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime.h"

typedef pid_t (*ct_fork_fn)(void);
typedef int (*ct_execve_fn)(const char *, char *const[], char *const[]);
typedef int (*ct_fexecve_fn)(int, char *const[], char *const[]);
typedef void (*ct_exit_fn)(int) __attribute__((noreturn));

extern char **environ;

/* "NAME=value" of the variables a traced image passes on, taken at start */
#define CT_ENV_MAX 4096
static char ct_env_preload[CT_ENV_MAX], ct_env_pool[CT_ENV_MAX], ct_env_nofollow[64];

static void ct_keep_env(char *dst, const char *name)
{
	const char *v = getenv(name);
	size_t n = strlen(name), m = v ? strlen(v) : 0;
	if (!v || n + m + 2 > CT_ENV_MAX)
		return;
	memcpy(dst, name, n);
	dst[n] = '=';
	memcpy(dst + n + 1, v, m + 1);
}

void ct_remember_env(void)
{
	ct_keep_env(ct_env_preload, "LD_PRELOAD");
	ct_keep_env(ct_env_pool, "CALLTRACE_POOL");
	const char *nf = getenv("CALLTRACE_NO_FOLLOW");
	if (nf)
		snprintf(ct_env_nofollow, sizeof(ct_env_nofollow), "CALLTRACE_NO_FOLLOW=%s", nf);
}

static int ct_env_is(const char *entry, const char *kept)
{
	const char *eq = strchr(kept, '=');
	return eq && !strncmp(entry, kept, (size_t)(eq - kept + 1));
}

/*
 * envp with our variables put back (a program may pass a clean environment)
 * and CALLTRACE_FROM naming this image, into out (room for n + 5 pointers).
 */
static void ct_fix_env(char *const envp[], char **out, char *from)
{
	const char *kept[] = { ct_env_preload, ct_env_pool, ct_env_nofollow };
	size_t n = 0;

	for (size_t i = 0; envp && envp[i]; i++) {
		int ours = !strncmp(envp[i], "CALLTRACE_FROM=", 15);
		for (size_t k = 0; k < CT_ARRAY_LEN(kept) && !ours; k++)
			ours = kept[k][0] && ct_env_is(envp[i], kept[k]);
		if (!ours)
			out[n++] = envp[i];
	}
	for (size_t k = 0; k < CT_ARRAY_LEN(kept); k++)
		if (kept[k][0])
			out[n++] = (char *)kept[k];
	snprintf(from, 64, "CALLTRACE_FROM=%u:%d", ct_instance, (int)getpid());
	out[n++] = from;
	out[n] = NULL;
}

static size_t ct_count_env(char *const envp[])
{
	size_t n = 0;
	while (envp && envp[n])
		n++;
	return n;
}

/* The exec record: path, then argv, NUL-separated, cut to fit. */
static void ct_announce_exec(const char *path, char *const argv[])
{
	char buf[4096];
	size_t len = 0;

	if (atomic_load(&ct_state) != CT_RT_READY)
		return;
	for (long i = -1; i < 0 || (argv && argv[i]); i++) {
		const char *s = i < 0 ? path : argv[i];
		size_t n = strnlen(s ? s : "", sizeof(buf) - len - 1);
		memcpy(buf + len, s ? s : "", n);
		len += n;
		buf[len++] = 0;
		if (len >= sizeof(buf) - 1)
			break;
	}
	ct_before_image_change(CT_EXT_EXEC, buf, (uint32_t)len);
}

static void ct_exec_failed(int err)
{
	uint64_t e = (uint64_t)err;
	ct_emit_ext(CT_EXT_EXEC_FAILED, &e, sizeof(e), 1);
	errno = err;
}

static void *ct_next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

CT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	ct_execve_fn real = (ct_execve_fn)ct_next("execve");
	char *env[ct_count_env(envp) + 5];
	char from[64];

	ct_fix_env(envp, env, from);
	ct_announce_exec(path, argv);
	int r = real(path, argv, env);
	ct_exec_failed(errno);
	return r;
}

CT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	ct_execve_fn real = (ct_execve_fn)ct_next("execvpe");
	char *env[ct_count_env(envp) + 5];
	char from[64];

	ct_fix_env(envp, env, from);
	ct_announce_exec(file, argv);
	int r = real(file, argv, env);
	ct_exec_failed(errno);
	return r;
}

CT_EXPORT int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

CT_EXPORT int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

CT_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	ct_fexecve_fn real = (ct_fexecve_fn)ct_next("fexecve");
	char *env[ct_count_env(envp) + 5];
	char from[64], path[32];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ct_fix_env(envp, env, from);
	ct_announce_exec(path, argv);
	int r = real(fd, argv, env);
	ct_exec_failed(errno);
	return r;
}

/* The list variants: argv gathered on the stack, as the C library does. */
#define CT_GATHER_ARGS(arg0, ap, argv, envp_out)                                 \
	size_t n_ = 1;                                                           \
	va_start(ap, arg0);                                                      \
	while (va_arg(ap, char *))                                               \
		n_++;                                                            \
	va_end(ap);                                                              \
	char *argv[n_ + 1];                                                      \
	argv[0] = (char *)arg0;                                                  \
	va_start(ap, arg0);                                                      \
	for (size_t i_ = 1; i_ <= n_; i_++)                                      \
		argv[i_] = va_arg(ap, char *);                                   \
	envp_out = va_arg(ap, char **);                                          \
	va_end(ap)

CT_EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	char **unused;
	CT_GATHER_ARGS(arg, ap, argv, unused);
	(void)unused;
	return execve(path, argv, environ);
}

CT_EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	char **unused;
	CT_GATHER_ARGS(arg, ap, argv, unused);
	(void)unused;
	return execvpe(file, argv, environ);
}

CT_EXPORT int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	char **envp;
	CT_GATHER_ARGS(arg, ap, argv, envp);
	return execve(path, argv, envp);
}

static pid_t ct_fork_as(uint32_t how)
{
	ct_fork_fn real = (ct_fork_fn)ct_next("fork");
	ct_standalone_fork(1);
	pid_t pid = real();
	if (pid < 0)
		ct_standalone_fork(-1);
	if (pid > 0) {
		int err = errno;
		struct ct_ext_fork f = { .child_pid = pid, .how = how };
		ct_emit_ext(CT_EXT_FORK, &f, sizeof(f), 1);
		errno = err;
	}
	return pid;
}

CT_EXPORT pid_t fork(void)
{
	return ct_fork_as(CT_FORK_FORK);
}

CT_EXPORT pid_t vfork(void)
{
	return ct_fork_as(CT_FORK_VFORK);
}

CT_EXPORT void _exit(int status)
{
	ct_before_exit();
	((ct_exit_fn)ct_next("_exit"))(status);
}

CT_EXPORT void _Exit(int status)
{
	ct_before_exit();
	((ct_exit_fn)ct_next("_Exit"))(status);
}

CT_EXPORT void quick_exit(int status)
{
	ct_before_exit();
	((ct_exit_fn)ct_next("quick_exit"))(status);
}
