/* SPDX-License-Identifier: MIT */
/*
 * Signal handlers in the tree. The program's handlers are installed behind a
 * trampoline of ours that leaves a mark when the handler begins (with the
 * signal's number and the stack pointer of the trampoline's frame) and when
 * it returns (at the same stack pointer). The reader opens a "[signal SIGx]"
 * frame between the two, so the handler's calls nest under it, right where
 * the signal arrived. A handler that longjmps out leaves no end mark: the
 * jump's mark closes the frame, as it closes every frame it abandons.
 *
 * What the program asks sigaction about comes back as it set it: its own
 * handler and flags, and SIG_DFL where our crash handler stands in.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "../runtime.h"
#include "../hotpath/hotpath.h"
#include "process.h"
#include "../hotpath/shadow.h"

typedef int (*ct_sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef void (*ct_info_handler)(int, siginfo_t *, void *);
typedef void (*ct_plain_handler)(int);

static ct_sigaction_fn ct_real_sigaction_fn;

struct ct_user_handler {
	_Atomic(uintptr_t) fn;
	_Atomic int siginfo;
};

static struct ct_user_handler ct_user[_NSIG];

int ct_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!ct_real_sigaction_fn)
		ct_real_sigaction_fn = (ct_sigaction_fn)ct_next_symbol("sigaction");
	if (!ct_real_sigaction_fn) {
		errno = ENOSYS;
		return -1;
	}
	return ct_real_sigaction_fn(sig, act, old);
}

static void ct_signal_trampoline(int sig, siginfo_t *si, void *uc)
{
	uintptr_t sp = CT_ARCH_CALLER_SP();
	uintptr_t fn = atomic_load_explicit(&ct_user[sig].fn, memory_order_acquire);
	int traced = atomic_load_explicit(&ct_state, memory_order_relaxed) == CT_RT_READY;
	int err = errno;
	uint32_t depth = ct_shadow_signal(&ct_self, sig, sp);

	if (traced)
		ct_mark_arg(CT_EXT_SIGNAL, (uint32_t)sig, sp);
	errno = err;
	if (atomic_load_explicit(&ct_user[sig].siginfo, memory_order_relaxed))
		((ct_info_handler)fn)(sig, si, uc);
	else
		((ct_plain_handler)fn)(sig);
	err = errno;
	if (traced)
		ct_mark(CT_EXT_SIGNAL_END, sp);
	ct_shadow_restore(&ct_self, depth);
	errno = err;
}

static int ct_is_handler(const struct sigaction *sa)
{
	return sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN;
}

/* What the program would have seen without us. */
static void ct_translate_old(int sig, struct sigaction *old, uintptr_t prev_fn, int prev_siginfo)
{
	if (old->sa_sigaction == ct_signal_trampoline) {
		old->sa_sigaction = (ct_info_handler)prev_fn;
		if (!prev_siginfo)
			old->sa_flags &= ~SA_SIGINFO;
	} else if (ct_is_crash_handler(old)) {
		memset(old, 0, sizeof(*old));
		old->sa_handler = SIG_DFL;
	}
	(void)sig;
}

CT_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction mine, prev;
	const struct sigaction *use = act;
	int ours = sig > 0 && sig < _NSIG && sig != SIGKILL && sig != SIGSTOP;
	uintptr_t prev_fn = ours ? atomic_load(&ct_user[sig].fn) : 0;
	int prev_siginfo = ours ? atomic_load(&ct_user[sig].siginfo) : 0;

	if (ours && act && ct_is_handler(act)) {
		mine = *act;
		mine.sa_sigaction = ct_signal_trampoline;
		mine.sa_flags |= SA_SIGINFO;
		use = &mine;
		/* in place before the trampoline is: a signal may come at once */
		atomic_store(&ct_user[sig].siginfo, !!(act->sa_flags & SA_SIGINFO));
		atomic_store(&ct_user[sig].fn, (uintptr_t)act->sa_sigaction);
	} else if (ours && act && act->sa_handler == SIG_DFL && ct_crash_action(sig, &mine)) {
		use = &mine; /* the default for a fatal signal: ours records the crash first */
	}
	int r = ct_real_sigaction(sig, use, old ? &prev : NULL);
	if (r < 0 && use == &mine && ct_is_handler(act)) {
		atomic_store(&ct_user[sig].fn, prev_fn);
		atomic_store(&ct_user[sig].siginfo, prev_siginfo);
	}
	if (r == 0 && old) {
		*old = prev;
		ct_translate_old(sig, old, prev_fn, prev_siginfo);
	}
	return r;
}

/* glibc's signal(): BSD semantics, the handler stays and system calls restart. */
CT_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction act, old;

	memset(&act, 0, sizeof(act));
	act.sa_handler = handler;
	act.sa_flags = SA_RESTART;
	sigemptyset(&act.sa_mask);
	if (sig > 0 && sig < _NSIG)
		sigaddset(&act.sa_mask, sig);
	if (sigaction(sig, &act, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}
