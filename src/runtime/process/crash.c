/* SPDX-License-Identifier: MIT */
/*
 * Crashes: which thread died of which signal, and where. For each fatal signal
 * the program leaves at its default action, a handler records the signal, the
 * faulting address, the program counter and the stack pointer, puts the
 * default action back, and lets the signal do what it would have done: a
 * fault the CPU raised happens again when the handler returns; a signal that
 * was sent (abort, kill) is raised again. Exit status and core dumps are the
 * same as without calltrace. A handler the program installs replaces ours.
 */
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../runtime.h"
#include "process.h"
#include "../modes/modes.h"

static const int ct_fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS };

static void ct_on_fatal(int sig, siginfo_t *si, void *uc)
{
	struct ct_ext_crash c = {
		.signo = sig,
		.code = si->si_code,
		.pid = (int32_t)getpid(),
		.tid = (int32_t)syscall(SYS_gettid),
		.addr = (uint64_t)(uintptr_t)si->si_addr,
		.pc = ct_arch_uc_pc(uc),
		.sp = ct_arch_uc_sp(uc),
	};
	ct_emit_ext(CT_EXT_CRASH, &c, sizeof(c), 1); /* even in lossy mode */
	ct_standalone_leave();
	/* SA_RESETHAND has put the default action back */
	if (si->si_code <= 0)
		raise(sig); /* sent: pending until we return, then fatal */
}

static int ct_crash_handlers_on;

static int ct_is_fatal(int sig)
{
	for (size_t i = 0; i < sizeof(ct_fatal_signals) / sizeof(ct_fatal_signals[0]); i++)
		if (ct_fatal_signals[i] == sig)
			return 1;
	return 0;
}

int ct_crash_action(int sig, struct sigaction *sa)
{
	if (!ct_crash_handlers_on || !ct_is_fatal(sig))
		return 0;
	memset(sa, 0, sizeof(*sa));
	sa->sa_sigaction = ct_on_fatal;
	sa->sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK;
	sigemptyset(&sa->sa_mask);
	return 1;
}

int ct_is_crash_handler(const struct sigaction *sa)
{
	return (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == ct_on_fatal;
}

void ct_install_crash_handlers(void)
{
	struct sigaction sa;

	ct_crash_handlers_on = 1;
	for (size_t i = 0; i < sizeof(ct_fatal_signals) / sizeof(ct_fatal_signals[0]); i++) {
		struct sigaction old;
		if (ct_real_sigaction(ct_fatal_signals[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO) &&
		    ct_crash_action(ct_fatal_signals[i], &sa))
			ct_real_sigaction(ct_fatal_signals[i], &sa, NULL);
	}
}
