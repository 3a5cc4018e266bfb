/* SPDX-License-Identifier: MIT */
/*
 * Standalone mode: the runtime was loaded without a recorder (the program is
 * linked with -lcalltrace, or run with LD_PRELOAD=libcalltrace.so), so it
 * starts one: `calltrace __serve`, which creates the pool, writes the trace to
 * CALLTRACE_OUTPUT (default calltrace.data in the working directory) and ends
 * when the last traced process does.
 *
 * The recorder is started with raw clones that run no atfork handler: a child
 * that sends no SIGCHLD (the program's wait() and SIGCHLD handler never see
 * it; we reap it ourselves) starts the recorder and ends, leaving it to be
 * adopted (an exec'd child would send SIGCHLD again). It runs in a
 * session of its own, so the terminal's ^C for the program does not cut the
 * trace short, and holds none of the program's files (a pipe the program's
 * reader waits on must close when the program ends).
 *
 * Processes count themselves in the pool: the one that started the recorder,
 * each fork, each process that joins without having been exec'd by a traced
 * one. The last to leave waits until the trace is written, so that a command
 * run right after the program reads it whole.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../runtime.h"
#include "modes.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1u << 2)
#endif

#define CT_SERVE_WAIT_MS  10000 /* for the recorder to say where its pool is */
#define CT_FINISH_WAIT_MS 60000 /* at exit, for the trace to be written */

extern char **environ;

static char ct_recorder[4096];
static char ct_pool_path[128];
static char *ct_serve_env[4096];
static int ct_left;   /* this image said goodbye already */
static int ct_origin; /* this image started the recorder (it counts us) */

/*
 * A setuid, setgid or file-capability program: whoever ran it chose the
 * environment, so no recorder is started (it would run with the program's
 * privileges) and no trace written. Said once, and only to someone who asked
 * for tracing with a CALLTRACE_ variable (glibc gives a secure process open
 * descriptors 0 to 2, so fd 2 is the caller's terminal or /dev/null).
 */
static void ct_refuse_secure(void)
{
	static const char msg[] = "calltrace: a setuid, setgid or file-capability program ignores "
				  "CALLTRACE_* variables; the program runs untraced (trace it "
				  "with calltrace record as root)\n";
	for (char **e = environ; e && *e; e++)
		if (!strncmp(*e, "CALLTRACE_", 10)) {
			ssize_t r = write(2, msg, sizeof(msg) - 1);
			(void)r; /* nothing better to do if it fails */
			return;
		}
}

/* Is the runtime meant to start a recorder? Not when one started us, or said no. */
int ct_standalone_wanted(void)
{
	const char *s = ct_getenv("CALLTRACE_STANDALONE");
	if (ct_attach_loaded())
		return 0; /* calltrace attach gives us its pool */
	if (ct_secure_exec()) {
		ct_refuse_secure();
		return 0;
	}
	return !ct_getenv("CALLTRACE_POOL") && !ct_getenv("CALLTRACE_NO_FOLLOW") && !(s && !strcmp(s, "0"));
}

static int ct_usable(const char *path)
{
	return access(path, X_OK) == 0;
}

/* CALLTRACE_RECORDER, else calltrace beside us (build tree) or in ../bin (installed). */
static int ct_find_recorder(void)
{
	const char *env = ct_getenv("CALLTRACE_RECORDER");
	if (env && *env) {
		snprintf(ct_recorder, sizeof(ct_recorder), "%s", env);
		return ct_usable(ct_recorder);
	}
	Dl_info info;
	if (!dladdr((void *)ct_find_recorder, &info) || !info.dli_fname)
		return 0;
	const char *slash = strrchr(info.dli_fname, '/');
	int dir = slash ? (int)(slash - info.dli_fname) : 1;
	const char *base = slash ? info.dli_fname : ".";
	snprintf(ct_recorder, sizeof(ct_recorder), "%.*s/calltrace", dir, base);
	if (ct_usable(ct_recorder))
		return 1;
	snprintf(ct_recorder, sizeof(ct_recorder), "%.*s/../bin/calltrace", dir, base);
	return ct_usable(ct_recorder);
}

/* The recorder's environment: ours without the preload (it is not to be traced). */
static void ct_build_env(void)
{
	size_t n = 0;
	for (char **e = environ; e && *e && n + 1 < CT_ARRAY_LEN(ct_serve_env); e++)
		if (strncmp(*e, "LD_PRELOAD=", 11))
			ct_serve_env[n++] = *e;
	ct_serve_env[n] = NULL;
}

static void ct_say(const char *what, int err)
{
	char line[512];
	int n = snprintf(line, sizeof(line), "calltrace: %s%s%s; the program runs untraced\n", what,
			 err ? ": " : "", err ? strerror(err) : "");
	if (n > (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 1;
	if (n > 0 && write(2, line, (size_t)n) < 0)
		return;
}

/* In the child of the raw clone: only system calls until execve. */
static __attribute__((noreturn)) void ct_exec_recorder(int fd, char *const argv[])
{
	int null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
	}
	syscall(SYS_close_range, 3, ~0u, CLOSE_RANGE_CLOEXEC);
	fcntl(fd, F_SETFD, 0);
	setsid();
	syscall(SYS_execve, ct_recorder, argv, ct_serve_env);
	char msg[16];
	int n = snprintf(msg, sizeof(msg), "E%d\n", errno);
	if (write(fd, msg, (size_t)n) < 0)
		_exit(127);
	syscall(SYS_exit, 127);
	__builtin_unreachable();
}

/* Read the recorder's answer: "P<pool path>" or "E<errno>"; EOF if it gave up. */
static int ct_read_answer(int fd, char *buf, size_t len)
{
	size_t n = 0;
	while (n + 1 < len) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, CT_SERVE_WAIT_MS);
		if (r == 0)
			return -1;
		if (r < 0 && errno == EINTR)
			continue;
		ssize_t k = r < 0 ? -1 : read(fd, buf + n, len - 1 - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
		if (memchr(buf, '\n', n))
			break;
	}
	buf[n] = 0;
	char *nl = strchr(buf, '\n');
	if (nl)
		*nl = 0;
	return (int)n;
}

/* Start the recorder; the pool's path, or NULL (said why, if it was not the recorder). */
const char *ct_standalone_start(void)
{
	if (!ct_find_recorder()) {
		const char *env = ct_getenv("CALLTRACE_RECORDER");
		char what[4200];
		snprintf(what, sizeof(what), "CALLTRACE_RECORDER=%s cannot be run", env ? env : "");
		ct_say(env && *env ? what :
				     "cannot find the calltrace program beside libcalltrace.so "
				     "(set CALLTRACE_RECORDER)",
		       0);
		return NULL;
	}
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0) {
		ct_say("cannot start the recorder", errno);
		return NULL;
	}
	char pid[16], fd[16];
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	snprintf(fd, sizeof(fd), "%d", p[1]);
	char *argv[] = { ct_recorder, "__serve", pid, fd, NULL };
	ct_build_env();

	long child = syscall(SYS_clone, 0L, NULL, NULL, NULL, 0L); /* no SIGCHLD, no atfork */
	if (child == 0) {
		if (syscall(SYS_clone, 0L, NULL, NULL, NULL, 0L) == 0)
			ct_exec_recorder(p[1], argv);
		syscall(SYS_exit, 0);
	}
	close(p[1]);
	if (child > 0)
		while (waitpid((pid_t)child, NULL, __WCLONE) < 0 && errno == EINTR)
			;
	char answer[sizeof(ct_pool_path)] = "";
	int n = child < 0 ? -1 : ct_read_answer(p[0], answer, sizeof(answer));
	int err = errno;
	close(p[0]);
	if (child < 0 || n < 0) {
		ct_say(child < 0 ? "cannot start the recorder" : "the recorder did not start",
		       child < 0 ? err : 0);
		return NULL;
	}
	if (answer[0] == 'E') {
		char what[4200];
		snprintf(what, sizeof(what), "cannot run %s", ct_recorder);
		ct_say(what, atoi(answer + 1));
		return NULL;
	}
	if (answer[0] != 'P')
		return NULL; /* the recorder said why on stderr */
	memcpy(ct_pool_path, answer + 1, strlen(answer)); /* with its NUL */
	ct_origin = 1;
	/* processes the program starts without our exec wrappers join this recording */
	setenv("CALLTRACE_POOL", ct_pool_path, 1);
	return ct_pool_path;
}

static int ct_standalone(void)
{
	return atomic_load(&ct_state) == CT_RT_READY && (ct_ctl->flags & CT_POOL_STANDALONE);
}

/* A process joins the recording (one that exec'd into us was counted already). */
void ct_standalone_join(int execed)
{
	if (!execed && (ct_ctl->flags & CT_POOL_STANDALONE) && !ct_origin)
		atomic_fetch_add(&ct_ctl->live_procs, 1);
}

/* fork: counted before, so that a parent ending at once does not end the recording. */
void ct_standalone_fork(int delta)
{
	if (ct_standalone())
		atomic_fetch_add(&ct_ctl->live_procs, delta);
}

void ct_standalone_after_fork(void)
{
	ct_left = 0;
}

static int ct_recorder_gone(void)
{
	return kill(ct_ctl->recorder_pid, 0) == -1 && errno == ESRCH;
}

/* The process ends: the last one waits for the trace to be written. */
void ct_standalone_leave(void)
{
	if (!ct_standalone() || ct_left)
		return;
	ct_left = 1;
	struct ct_pool_ctl *ctl = ct_ctl;
	if (atomic_fetch_sub(&ctl->live_procs, 1) != 1)
		return;
	ct_pool_wake_recorder(ctl);
	for (int waited = 0; waited < CT_FINISH_WAIT_MS && !atomic_load(&ctl->finished);
	     waited += 100) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		syscall(SYS_futex, &ctl->finished, FUTEX_WAIT, 0, &ts, NULL, 0);
		if (ct_recorder_gone())
			break;
	}
}
