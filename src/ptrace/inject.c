/* SPDX-License-Identifier: MIT */
/*
 * Making a stopped thread run a system call of ours (mmap for scratch
 * memory): its registers saved, set for the call at our stub ("syscall;
 * int3", "svc #0; brk #0"), run to its breakpoint, and put back as they
 * were. Until the process has a stub, the stub is written over the code at
 * the thread's pc for the moment: only done while no other thread can run
 * there (just after exec, or with every thread stopped by attach).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>

#include "tracer.h"
#include "../arch/ptrace_arch.h"

#define CT_SLOW_CALL_MS 1000  /* then tr->on_slow_call: a lock a stopped thread holds? */
#define CT_CALL_MAX_MS	60000 /* no call of ours takes this long: the thread is stuck */
#define CT_GIVE_UP_MS	3000  /* how long a call may go on once we were asked to stop */

struct ct_call_wait {
	struct ct_pt_thread *t;
	int told;	   /* on_slow_call was called */
	uint64_t asked_at; /* when we first saw a stop asked */
};

/* While a call of ours runs: others let run when it is slow; given up when asked to stop. */
static int ct_call_waiting(struct ct_tracer *tr, pid_t tid, uint64_t waited_ms, void *arg)
{
	struct ct_call_wait *w = arg;
	(void)tid;
	if (waited_ms >= CT_SLOW_CALL_MS && tr->on_slow_call && !w->told) {
		w->told = 1;
		tr->on_slow_call(tr, w->t);
	}
	if (ct_pt_stop_asked(tr)) {
		uint64_t now = ct_pt_now_ms();
		if (!w->asked_at)
			w->asked_at = now;
		else if (now - w->asked_at >= CT_GIVE_UP_MS)
			return -1;
	}
	return 0;
}

/*
 * A call of ours that does not come back (stuck, or we must leave): the
 * thread is stopped where it is, so that its registers can be put back. What
 * the call was doing is abandoned, which is why this is the last resort.
 */
static int ct_abandon_call(struct ct_tracer *tr, struct ct_pt_thread *t)
{
	int st;
	if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) < 0 ||
	    ct_pt_wait_tid(tr, t->tid, &st, CT_PT_STOP_WAIT_MS, NULL, NULL) < 0 || !WIFSTOPPED(st))
		return -1;
	fprintf(stderr,
		"calltrace: attach: thread %d did not finish a call of ours in time; it goes on "
		"from where it was\n",
		(int)t->tid);
	return 0;
}

/*
 * A fault in our call (the kernel's SIGSEGV, SIGBUS, SIGILL or SIGFPE, not
 * one sent): continuing would fault again, forever. The call is given up,
 * the thread goes back to where it was, and the signal is dropped.
 */
static int ct_call_crashed(struct ct_pt_thread *t, int sig)
{
	siginfo_t si;
	if ((sig != SIGSEGV && sig != SIGBUS && sig != SIGILL && sig != SIGFPE) ||
	    ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) < 0 || si.si_code <= 0)
		return 0;
	fprintf(stderr, "calltrace: attach: a call of ours failed in thread %d (%s, address %p); "
			"the thread goes on from where it was\n",
		(int)t->tid, strsignal(sig), si.si_addr);
	return 1;
}

/*
 * Run the thread until it stops at pc (our breakpoint after the call); -1 if it died,
 * -2 if the call crashed or was given up (the thread is stopped: its registers can go back).
 */
static int ct_run_to(struct ct_tracer *tr, struct ct_pt_thread *t, uint64_t pc, ct_regs *out)
{
	struct ct_call_wait w = { .t = t };
	for (;;) {
		int st;
		if (ptrace(PTRACE_CONT, t->tid, 0, 0) < 0)
			return -1;
		pid_t r = ct_pt_wait_tid(tr, t->tid, &st, CT_CALL_MAX_MS, ct_call_waiting, &w);
		if (r < 0 && errno != ESRCH)
			return ct_abandon_call(tr, t) == 0 ? -2 : -1;
		if (r < 0 || !WIFSTOPPED(st))
			return -1;
		int sig = WSTOPSIG(st);
		if (sig == SIGTRAP && (st >> 16) == 0) {
			if (ct_regs_get(t->tid, out) < 0)
				return -1;
			if (ct_regs_pc(out) == pc)
				return 0;
		} else if ((st >> 16) == 0 && ct_call_crashed(t, sig)) {
			return -2;
		} else if ((st >> 16) == 0 && sig != SIGSTOP) {
			t->pending_sig = sig; /* the program's: delivered once we are done */
		}
	}
}

long ct_pt_inject_syscall(struct ct_tracer *tr, struct ct_pt_thread *t, long nr, const long *args,
			  int nargs)
{
	struct ct_pt_space *s = t->proc->space;
	ct_regs saved, regs;
	uint8_t code[CT_ARCH_STUB_LEN], stub[CT_ARCH_STUB_LEN];

	if (ct_regs_get(t->tid, &saved) < 0)
		return -ESRCH;
	uint64_t pc = s->stub;
	if (!pc) {
		pc = ct_regs_pc(&saved);
		ct_arch_syscall_stub(stub);
		if (ct_pt_read(s, pc, code, sizeof(code)) < 0 ||
		    ct_pt_write(s, pc, stub, sizeof(stub)) < 0)
			return -EFAULT;
	}
	regs = saved;
	ct_regs_syscall(&regs, pc, nr, args, nargs);
	long ret = -ESRCH;
	if (ct_regs_set(t->tid, &regs) == 0 &&
	    ct_run_to(tr, t, pc + CT_ARCH_STUB_BREAK + CT_ARCH_BREAK_PC, &regs) == 0)
		ret = ct_regs_retval(&regs);
	if (!s->stub)
		ct_pt_write(s, pc, code, sizeof(code));
	ct_regs_set(t->tid, &saved);
	return ret;
}

long ct_pt_inject_call(struct ct_tracer *tr, struct ct_pt_thread *t, uint64_t fn,
		       const uint64_t *args, int nargs, int *ok)
{
	struct ct_pt_space *s = t->proc->space;
	ct_regs saved, regs;
	static struct ct_fpstate fp; /* 16 KiB: not on the stack; one call at a time */
	uint64_t back = s->stub + CT_ARCH_STUB_BREAK; /* its breakpoint */

	*ok = 0;
	if (!s->stub || ct_regs_get(t->tid, &saved) < 0 || ct_fpstate_get(t->tid, &fp) < 0)
		return -ESRCH;
	regs = saved;
	uint64_t sp = ct_regs_call(&regs, fn, back, args, nargs); /* 0: back is in a register */
	long ret = -ESRCH;
	if ((!sp || ct_pt_write(s, sp, &back, sizeof(back)) == 0) &&
	    ct_regs_set(t->tid, &regs) == 0) {
		int r = ct_run_to(tr, t, back + CT_ARCH_BREAK_PC, &regs);
		ret = r == 0 ? ct_regs_retval(&regs) : r == -2 ? -EFAULT : -ESRCH;
		*ok = r == 0;
	}
	ct_regs_set(t->tid, &saved);
	ct_fpstate_set(t->tid, &fp);
	if (tr->nreleased)
		ct_pt_stop_released(tr);
	return ret;
}

uint64_t ct_pt_inject_mmap(struct ct_tracer *tr, struct ct_pt_thread *t, uint64_t hint,
			   size_t len, int prot)
{
	long args[6] = { (long)hint, (long)len, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			 -1, 0 };
	long r = ct_pt_inject_syscall(tr, t, SYS_mmap, args, 6);
	return r < 0 && r > -4096 ? 0 : (uint64_t)r;
}
