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
 * A profiling timer (gprof's ITIMER_PROF) outlives exec and kills the new
 * image with SIGPROF if it fires before that image installs its handler. Our
 * start-up must not widen that window: the timer is paused across exec and
 * our initialisation, and the new image gets the rest of it when our
 * constructors are done (CALLTRACE_ITIMER_PROF), so the program sees the
 * timer it would have had without us.
 *
 * posix_spawn, system: the parent says which child it started (no wrapper
 * of ours runs in that child before its exec): posix_spawn's pid and argv;
 * system() is run here through posix_spawn, for its child's pid (glibc's
 * calls an internal spawn no wrapper sees).
 *
 * _exit, quick_exit: what the destructor would have said (lost events,
 * modules loaded since) is said before the process goes.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../runtime.h"
#include "../hotpath/hotpath.h"
#include "process.h"
#include "../modes/modes.h"
#include "handoff.h"

typedef pid_t (*ct_fork_fn)(void);
typedef int (*ct_execve_fn)(const char *, char *const[], char *const[]);
typedef int (*ct_fexecve_fn)(int, char *const[], char *const[]);
typedef void (*ct_exit_fn)(int) __attribute__((noreturn));

extern char **environ;

/* "NAME=value" of the variables a traced image passes on, taken at start */
#define CT_ENV_MAX 4096
static char ct_env_pool[CT_ENV_MAX], ct_env_nofollow[64];

void ct_remember_env(void)
{
	const char *pool = ct_getenv("CALLTRACE_POOL");
	if (pool && strlen(pool) + 16 < CT_ENV_MAX)
		snprintf(ct_env_pool, sizeof(ct_env_pool), "CALLTRACE_POOL=%s", pool);
	const char *nf = ct_getenv("CALLTRACE_NO_FOLLOW");
	if (nf)
		snprintf(ct_env_nofollow, sizeof(ct_env_nofollow), "CALLTRACE_NO_FOLLOW=%s", nf);
}

/* What an exec wrapper keeps on its stack for the new image. */
struct ct_exec_ctx {
	char from[64];
	char timer[64];
	struct itimerval paused;
	struct ct_handoff h;
};

/* Room in the new environment beyond the program's own entries. */
#define CT_ENV_EXTRA (CT_HANDOFF_EXTRA + 3)

/*
 * envp with what the new image needs (handoff.c: the preload, the pool, the
 * list of what was added), CALLTRACE_FROM naming this image (instance:pid:
 * whether the process was counted as it started) and the paused profiling
 * timer, into out (room for n + CT_ENV_EXTRA pointers).
 */
static void ct_fix_env(char *const envp[], char **out, struct ct_exec_ctx *ctx)
{
	snprintf(ctx->from, sizeof(ctx->from), "CALLTRACE_FROM=%u:%d:%d", ct_instance,
		 (int)getpid(), ct_process_counted());
	char *kept[] = { ctx->from, ctx->timer };
	ct_handoff_env(envp, out, &ctx->h, ct_env_pool, ct_env_nofollow, kept, CT_ARRAY_LEN(kept));
}

static long long ct_tv_us(struct timeval tv)
{
	return (long long)tv.tv_sec * 1000000 + tv.tv_usec;
}

static struct timeval ct_us_tv(long long us)
{
	return (struct timeval){ .tv_sec = us / 1000000, .tv_usec = us % 1000000 };
}

/* Pause a running profiling timer and say in ctx->timer what is left of it. */
static void ct_pause_prof_timer(struct ct_exec_ctx *ctx)
{
	static const struct itimerval off;

	ctx->timer[0] = 0;
	if (!ct_runtime_preloaded() || getitimer(ITIMER_PROF, &ctx->paused) || !timerisset(&ctx->paused.it_value))
		return;
	snprintf(ctx->timer, sizeof(ctx->timer), "CALLTRACE_ITIMER_PROF=%lld:%lld",
		 ct_tv_us(ctx->paused.it_value), ct_tv_us(ctx->paused.it_interval));
	setitimer(ITIMER_PROF, &off, NULL);
}

/* The exec failed: this image goes on, with its timer where it was. */
static void ct_exec_failed(struct ct_exec_ctx *ctx, int err)
{
	uint64_t e = (uint64_t)err;
	ct_handoff_exec_failed(&ctx->h);
	if (ctx->timer[0])
		setitimer(ITIMER_PROF, &ctx->paused, NULL);
	ct_emit_ext(CT_EXT_EXEC_FAILED, &e, sizeof(e), 1);
	errno = err;
}

/* Our constructors are done: the profiling timer the old image left runs on. */
__attribute__((constructor(103))) static void ct_resume_prof_timer(void)
{
	const char *v = ct_getenv("CALLTRACE_ITIMER_PROF");
	long long value, interval;

	if (!v || sscanf(v, "%lld:%lld", &value, &interval) != 2)
		return;
	unsetenv("CALLTRACE_ITIMER_PROF");
	struct itimerval t = { .it_interval = ct_us_tv(interval), .it_value = ct_us_tv(value) };
	setitimer(ITIMER_PROF, &t, NULL);
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

static void *ct_next(const char *name)
{
	return ct_next_symbol(name);
}

CT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	ct_execve_fn real = (ct_execve_fn)ct_next("execve");
	char *env[ct_count_env(envp) + CT_ENV_EXTRA];
	struct ct_exec_ctx ctx;

	ct_handoff_before_exec(path, &ctx.h);
	ct_announce_exec(path, argv);
	ct_pause_prof_timer(&ctx);
	ct_fix_env(envp, env, &ctx);
	int r = real(path, argv, env);
	ct_exec_failed(&ctx, errno);
	return r;
}

CT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	ct_execve_fn real = (ct_execve_fn)ct_next("execvpe");
	char *env[ct_count_env(envp) + CT_ENV_EXTRA];
	struct ct_exec_ctx ctx;

	ct_handoff_before_exec(file, &ctx.h);
	ct_announce_exec(file, argv);
	ct_pause_prof_timer(&ctx);
	ct_fix_env(envp, env, &ctx);
	int r = real(file, argv, env);
	ct_exec_failed(&ctx, errno);
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
	char *env[ct_count_env(envp) + CT_ENV_EXTRA];
	struct ct_exec_ctx ctx;
	char path[32];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ct_handoff_before_exec(path, &ctx.h);
	ct_announce_exec(path, argv);
	ct_pause_prof_timer(&ctx);
	ct_fix_env(envp, env, &ctx);
	int r = real(fd, argv, env);
	ct_exec_failed(&ctx, errno);
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

/* A spawn mark: struct ct_ext_fork, then what was started (NUL-separated words). */
static void ct_mark_spawn(pid_t pid, uint32_t how, const char *const *words)
{
	uint64_t buf[512];
	struct ct_ext_fork f = { .child_pid = pid, .how = how };
	size_t n = sizeof(f);
	memcpy(buf, &f, sizeof(f));
	for (size_t i = 0; words[i]; i++) {
		size_t l = strlen(words[i]) + 1;
		if (n + l > sizeof(buf))
			break;
		memcpy((char *)buf + n, words[i], l);
		n += l;
	}
	int err = errno;
	ct_emit_ext(CT_EXT_FORK, buf, (uint32_t)n, 1);
	errno = err;
}

typedef int (*ct_spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			   const posix_spawnattr_t *, char *const[], char *const[]);

static int ct_spawn_as(const char *name, pid_t *pid, const char *file,
		       const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
		       char *const argv[], char *const envp[])
{
	pid_t child = 0;
	int r = ((ct_spawn_fn)ct_next(name))(&child, file, fa, attr, argv, envp);
	if (pid)
		*pid = child;
	if (r == 0 && child > 0) { /* its argv, as an exec mark shows it; else its file */
		const char *words[] = { file, NULL };
		ct_mark_spawn(child, CT_FORK_SPAWN,
			      argv && argv[0] ? (const char *const *)argv : words);
	}
	return r;
}

CT_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
			  const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return ct_spawn_as("posix_spawn", pid, path, fa, attr, argv, envp);
}

CT_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			   const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return ct_spawn_as("posix_spawnp", pid, file, fa, attr, argv, envp);
}

/*
 * system() run here: the C library's starts its shell through an internal
 * spawn no wrapper of ours sees, so its child could only be guessed (an
 * image noted with us as its parent, maybe another thread's child of the
 * same moment). A traced image therefore runs the shell itself, as system()
 * is specified to: SIGINT and SIGQUIT ignored (counted, for threads that run
 * it at once) and SIGCHLD blocked in the caller while it waits; the child
 * with the caller's mask, those two at their defaults unless they were
 * ignored; /bin/sh -c; 127 as the status if the shell could not be started.
 * The child's pid is the spawn's own.
 */
static pthread_mutex_t ct_system_lock = PTHREAD_MUTEX_INITIALIZER;
static int ct_system_users;
static struct sigaction ct_system_intr, ct_system_quit;

static void ct_system_ignore_signals(sigset_t *reset)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigemptyset(&ign.sa_mask);
	pthread_mutex_lock(&ct_system_lock);
	if (ct_system_users++ == 0) {
		ct_real_sigaction(SIGINT, &ign, &ct_system_intr);
		ct_real_sigaction(SIGQUIT, &ign, &ct_system_quit);
	}
	sigemptyset(reset);
	if (ct_system_intr.sa_handler != SIG_IGN)
		sigaddset(reset, SIGINT);
	if (ct_system_quit.sa_handler != SIG_IGN)
		sigaddset(reset, SIGQUIT);
	pthread_mutex_unlock(&ct_system_lock);
}

static void ct_system_restore_signals(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&ct_system_lock);
	if (--ct_system_users == 0) {
		ct_real_sigaction(SIGINT, &ct_system_intr, NULL);
		ct_real_sigaction(SIGQUIT, &ct_system_quit, NULL);
	}
	pthread_mutex_unlock(&ct_system_lock);
}

/* Start /bin/sh -c command (*child its pid), wait for it: its wait status. */
static int ct_run_shell(const char *command, pid_t *child)
{
	char *argv[] = { "sh", "-c", "--", (char *)command, NULL };
	sigset_t chld, mask, reset;
	posix_spawnattr_t attr;
	int status = -1, err;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	ct_system_ignore_signals(&reset);
	pthread_sigmask(SIG_BLOCK, &chld, &mask);
	pthread_cleanup_push(ct_system_restore_signals, NULL);
	err = posix_spawnattr_init(&attr);
	if (!err) {
		posix_spawnattr_setsigmask(&attr, &mask);
		posix_spawnattr_setsigdefault(&attr, &reset);
		posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
		err = ((ct_spawn_fn)ct_next("posix_spawn"))(child, "/bin/sh", NULL, &attr, argv,
							    environ);
		posix_spawnattr_destroy(&attr);
	}
	if (err) {
		*child = 0;
		status = 127 << 8; /* as if the shell had exited 127 */
	} else {
		while (waitpid(*child, &status, 0) < 0)
			if (errno != EINTR) {
				status = -1;
				break;
			}
	}
	pthread_cleanup_pop(1);
	pthread_sigmask(SIG_SETMASK, &mask, NULL);
	if (err)
		errno = err;
	return status;
}

typedef int (*ct_system_fn)(const char *);

CT_EXPORT int system(const char *command)
{
	if (!command || ct_init() != 0 || atomic_load(&ct_state) != CT_RT_READY)
		return ((ct_system_fn)ct_next("system"))(command);
	pid_t child = 0;
	int status = ct_run_shell(command, &child);
	if (child > 0) { /* ct_mark_spawn keeps errno */
		const char *words[] = { "sh", "-c", command, NULL };
		ct_mark_spawn(child, CT_FORK_SYSTEM, words);
	}
	return status;
}
