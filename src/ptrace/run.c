/* SPDX-License-Identifier: MIT */
/*
 * record --method=ptrace: the recorder forks the tracer, which starts the
 * program under PTRACE_TRACEME, follows it and its children, and exits with
 * its status (a death by signal mirrored as one), so the recorder sees the
 * tracer as it would have seen the program.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracer.h"
#include "ptrace.h"
#include "../arch/ptrace_arch.h"
#include "../common/event.h"
#include "../util/util.h"

static volatile sig_atomic_t ct_pass_sig;

static void ct_on_term(int sig)
{
	ct_pass_sig = sig;
}

static void ct_tracer_signals(void)
{
	struct sigaction sa = { .sa_handler = ct_on_term }; /* no SA_RESTART: wake waitpid */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGINT, SIG_IGN); /* the terminal's ^C reaches the program itself */
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
}

/* Die as the program died, so our parent reads the same status. */
static void __attribute__((noreturn)) ct_exit_like(int st)
{
	if (WIFSIGNALED(st)) {
		int sig = WTERMSIG(st);
		struct rlimit no_core = { 0, 0 };
		setrlimit(RLIMIT_CORE, &no_core);
		signal(sig, SIG_DFL);
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		kill(getpid(), sig);
		_exit(128 + sig);
	}
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
}

/* Close every thread's stream (the recording is over for them). */
static void ct_close_all(struct ct_tracer *tr)
{
	for (size_t i = 0; i < tr->threads.cap; i++) {
		struct ct_pt_thread *t = (void *)(uintptr_t)tr->threads.vals[i];
		if (tr->threads.keys[i] && t)
			ct_pt_thread_gone(tr, t);
	}
}

/* One waitpid result. */
static void ct_dispatch(struct ct_tracer *tr, pid_t pid, int st)
{
	struct ct_pt_thread *t = ct_pt_thread_get(tr, pid);
	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		if (pid == tr->main_pid) {
			tr->main_status = st;
			tr->main_done = 1;
		}
		if (t)
			ct_pt_thread_gone(tr, t);
		return;
	}
	if (!WIFSTOPPED(st))
		return;
	if (!t) {
		ct_pt_early_stop(tr, pid, st);
		return;
	}
	int sig = ct_pt_on_stop(tr, t, st);
	if (sig >= 0)
		ct_pt_resume(t, sig);
}

static int ct_tracer_loop(struct ct_tracer *tr)
{
	for (;;) {
		if (ct_pass_sig) {
			if (!tr->main_done)
				kill(tr->main_pid, ct_pass_sig);
			ct_pass_sig = 0;
		}
		int st;
		pid_t pid = waitpid(-1, &st, __WALL);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break; /* ECHILD: nobody is left */
		}
		ct_dispatch(tr, pid, st);
	}
	ct_close_all(tr);
	return tr->main_status;
}

static void __attribute__((noreturn)) ct_program(char **argv, int errfd)
{
	static const char *const ours[] = { "CALLTRACE_METHOD", "CALLTRACE_PATTERNS",
					    "CALLTRACE_LIBCALLS", "CALLTRACE_POOL" };
	for (size_t i = 0; i < CT_ARRAY_SIZE(ours); i++)
		unsetenv(ours[i]);
	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (ptrace(PTRACE_TRACEME, 0, 0, 0) == 0)
		execvp(argv[0], argv);
	int err = errno;
	ssize_t r = write(errfd, &err, sizeof(err));
	(void)r;
	_exit(CT_EXIT_NOTFOUND);
}

static void ct_program_child(void *argv, int errfd)
{
	ct_program(argv, errfd);
}

/* Start the program stopped after its exec; its errno if it could not run. */
static int ct_start_program(char **argv, pid_t *out)
{
	int err, st;
	pid_t pid = ct_fork_reporting(ct_program_child, argv, &err);
	if (pid < 0)
		return err > 0 ? err : ECHILD;
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
		return ECHILD;
	*out = pid;
	return 0;
}

struct ct_launch_args {
	char **argv;
	struct ct_pool_ctl *ctl;
	int follow;
};

static void __attribute__((noreturn)) ct_tracer_main(void *arg, int report)
{
	const struct ct_launch_args *a = arg;
	struct ct_pool_ctl *ctl = a->ctl;
	int follow = a->follow;
	char **argv = a->argv;
	struct ct_tracer tr = { .ctl = ctl, .geo = ct_pool_geo_of(ctl), .tsc = ctl->clock == CT_CLOCK_TSC, .follow = follow };
	pid_t pid = -1;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	ct_tracer_signals();
	int err = ct_start_program(argv, &pid);
	ssize_t r = write(report, &err, sizeof(err));
	(void)r;
	close(report);
	if (err)
		_exit(1);
	long opts = PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL;
	if (follow)
		opts |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;
	ptrace(PTRACE_SETOPTIONS, pid, 0, opts);
	atomic_fetch_or(&ctl->methods, CT_METHOD_PTRACE);

	ct_map_init(&tr.threads, 64);
	tr.main_pid = pid;
	struct ct_pt_proc *p = ct_pt_proc_add(&tr, pid, NULL);
	p->ppid = getpid();
	struct ct_pt_thread *t = ct_pt_thread_add(&tr, pid, p);
	t->started = 1;
	ct_pt_new_image(&tr, t);
	ct_pt_resume(t, 0);
	ct_exit_like(ct_tracer_loop(&tr));
}

pid_t ct_ptrace_launch(char **argv, struct ct_pool_ctl *ctl, int follow, int *status)
{
	struct ct_launch_args a = { argv, ctl, follow };
	int err;
	*status = 1;
#ifdef CT_ARCH_PTRACE_UNTESTED
	ct_warn("the ptrace method is not tested on %s yet", CT_ARCH_NAME);
#endif
	pid_t tracer = ct_fork_reporting(ct_tracer_main, &a, &err);
	if (tracer > 0 || err < 0)
		return tracer;
	if (err == EPERM)
		ct_error("cannot trace %s: ptrace is not permitted here (%s)", argv[0],
			 strerror(err));
	else if (err == ENOSYS) /* qemu-user, for one */
		ct_error("cannot trace %s: this system has no ptrace (%s)", argv[0],
			 strerror(err));
	else
		*status = ct_exec_error(argv[0], err);
	return -1;
}
