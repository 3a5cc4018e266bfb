/* SPDX-License-Identifier: MIT */
/*
 * One stop of a traced thread: a breakpoint (a call or a return), a new
 * thread or process, an exec, or a signal of the program's, which goes on
 * to it untouched (and is written down first if it kills the process).
 */
#include <elf.h>
#include <errno.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracer.h"
#include "../common/event.h"
#include "../arch/ptrace_arch.h"

void ct_pt_resume(struct ct_pt_thread *t, int sig)
{
	ptrace(t->step ? PTRACE_SINGLESTEP : PTRACE_CONT, t->tid, 0, (void *)(long)sig);
	t->step = 0;
}

void ct_pt_push_frame(struct ct_pt_thread *t, uint64_t fn, uint64_t slot, uint64_t ret)
{
	if (t->nframes == t->capframes) {
		t->capframes = t->capframes ? 2 * t->capframes : 64;
		t->frames = ct_realloc(t->frames, t->capframes * sizeof(*t->frames));
	}
	t->frames[t->nframes++] = (struct ct_pt_frame){ fn, slot, ret };
}

/* Frames whose return-address slot is below sp are gone (a jump, an unwind). */
static void ct_drop_below(struct ct_pt_thread *t, uint64_t sp)
{
	while (t->nframes && t->frames[t->nframes - 1].slot < sp)
		t->nframes--;
}

/*
 * Entered fn: its call's key (slot) is just below the caller's stack pointer
 * (where x86-64's call put the return address; aarch64: ptrace_arch.h).
 */
static void ct_on_entry(struct ct_tracer *tr, struct ct_pt_thread *t, uint64_t fn, const ct_regs *r)
{
	uint64_t ret, sp = ct_regs_entry_cfa(r) - CT_ARCH_SLOT_BELOW_CFA;
	if (ct_pt_return_address(t->proc->space, r, &ret) < 0)
		return;
	ct_drop_below(t, sp);
	/* a frame at this very slot lives on only if this is its tail call */
	if (t->nframes && t->frames[t->nframes - 1].slot == sp &&
	    t->frames[t->nframes - 1].ret != ret)
		t->nframes--;
	struct ct_pt_bp *rb = ct_pt_bp_set(tr, t, ret, CT_BP_RETURN);
	if (!rb)
		return; /* its return could not be seen: leave the call out */
	ct_pt_push_frame(t, fn, sp, ret);
	ct_pt_emit_call(tr, t, CT_EV_ENTER, fn, sp, ct_pt_clock(tr));
}

/* 1 if this is the return of the innermost calls (a tail call ends with its caller). */
static int ct_on_return(struct ct_tracer *tr, struct ct_pt_thread *t, uint64_t pc, uint64_t sp)
{
	uint64_t slot = sp - CT_ARCH_SLOT_BELOW_CFA; /* back at the caller's stack pointer */
	ct_drop_below(t, slot);
	if (!t->nframes || t->frames[t->nframes - 1].slot != slot ||
	    t->frames[t->nframes - 1].ret != pc)
		return 0;
	uint64_t clock = ct_pt_clock(tr);
	while (t->nframes && t->frames[t->nframes - 1].slot == slot) {
		t->nframes--;
		ct_pt_emit_call(tr, t, CT_EV_EXIT, t->frames[t->nframes].fn, slot, clock);
	}
	return 1;
}

/* longjmp(env, ...): frames below the stack pointer env restores are gone. */
static void ct_on_jump(struct ct_tracer *tr, struct ct_pt_thread *t, const ct_regs *r)
{
	uint64_t v, guard, at_random = 0;
	struct ct_pt_space *s = t->proc->space;
	if (CT_ARCH_GUARD_FROM_AUXV && ct_pt_auxv(t->proc->pid, AT_RANDOM, &at_random) < 0)
		return;
	if (ct_pt_read(s, ct_regs_arg0(r) + CT_ARCH_JMPBUF_SP_OFF, &v, 8) < 0 ||
	    ct_pt_read(s, ct_regs_guard_addr(r, at_random), &guard, 8) < 0)
		return;
	uint64_t target = ct_arch_demangle(v, guard);
	if (target < ct_regs_sp(r) || target - ct_regs_sp(r) > (UINT64_C(1) << 32))
		target = 0; /* not on this stack: not ours to judge */
	ct_drop_below(t, target);
	ct_pt_emit_mark(tr, t, CT_EXT_JUMP, 0, target);
}

/* __cxa_begin_catch: the frames below its caller's were unwound. */
static void ct_on_catch(struct ct_tracer *tr, struct ct_pt_thread *t, const ct_regs *r)
{
	uint64_t caller_sp = ct_regs_entry_cfa(r);
	ct_drop_below(t, caller_sp);
	ct_pt_emit_mark(tr, t, CT_EXT_CATCH, 0, caller_sp);
}

/* Run the instruction a breakpoint covers in place, one step, when it cannot run elsewhere. */
static void ct_step_over(struct ct_pt_thread *t, struct ct_pt_bp *bp, ct_regs *r)
{
	struct ct_pt_space *s = t->proc->space;
	uint8_t brk[CT_ARCH_BREAK_SIZE];
	ct_arch_break_bytes(brk);
	ct_regs_set_pc(r, bp->addr);
	ct_regs_set(t->tid, r);
	ct_pt_write(s, bp->addr, bp->orig, CT_ARCH_BREAK_SIZE);
	for (;;) {
		int st;
		if (ptrace(PTRACE_SINGLESTEP, t->tid, 0, 0) < 0)
			break;
		pid_t w;
		do
			w = waitpid(t->tid, &st, __WALL);
		while (w < 0 && errno == EINTR);
		if (w < 0 || !WIFSTOPPED(st))
			break;
		if (WSTOPSIG(st) == SIGTRAP)
			break;
		if ((st >> 16) == 0 && WSTOPSIG(st) != SIGSTOP)
			t->pending_sig = WSTOPSIG(st);
	}
	ct_pt_write(s, bp->addr, brk, sizeof(brk));
}

/* Our breakpoint at pc: a call, a return, or both; then on past it. A handler may
 * add breakpoints, which moves s->bps: ours is read through its index. */
static void ct_on_break(struct ct_tracer *tr, struct ct_pt_thread *t, struct ct_pt_bp *bp,
			ct_regs *r)
{
	uint64_t pc = bp->addr, sp = ct_regs_sp(r);
	struct ct_pt_space *s = t->proc->space;
	size_t at = (size_t)(bp - s->bps);
	tr->stops++;
	int returned = (bp->flags & CT_BP_RETURN) && ct_on_return(tr, t, pc, sp);
	if (!returned) {
		if (s->bps[at].flags & CT_BP_JUMP)
			ct_on_jump(tr, t, r);
		if (s->bps[at].flags & CT_BP_CATCH)
			ct_on_catch(tr, t, r);
		if (s->bps[at].flags & CT_BP_ENTRY)
			ct_on_entry(tr, t, pc, r);
		/* the entry point (libraries loaded), or the loader saying dlopen brought some */
		if (s->bps[at].flags & (CT_BP_START | CT_BP_LOADER)) {
			s->bps[at].flags &= (uint8_t)~CT_BP_START;
			if (s->bps[at].flags & CT_BP_LOADER)
				ct_pt_forget_unloaded(tr, t);
			ct_pt_arm_image(tr, t, CT_ARM_LIBRARIES);
			ct_pt_describe_modules(tr, t);
		}
	}
	bp = &s->bps[at];
	if (bp->flags & CT_BP_SIGRET) /* after the handler's own return, if it is traced */
		ct_pt_emit_mark(tr, t, CT_EXT_SIGNAL_END, 0, sp);
	if (!bp->ool) {
		atomic_fetch_add(&tr->ctl->pt_stepped, 1);
		ct_step_over(t, bp, r);
		return;
	}
	ct_regs_set_pc(r, bp->ool);
	ct_regs_set(t->tid, r);
}

/*
 * An exec's new image at its first instruction (procs.c), out of execve: its
 * breakpoints go in now, and the thread goes on from that instruction.
 */
static void ct_on_image(struct ct_tracer *tr, struct ct_pt_thread *t, struct ct_pt_bp *bp,
			ct_regs *r)
{
	uint64_t pc = bp->addr;
	ct_pt_bp_remove(t->proc->space, bp);
	ct_regs_set_pc(r, pc);
	ct_regs_set(t->tid, r);
	ct_pt_new_image(tr, t);
}

static const int ct_fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGTRAP };

/* What the process does with sig: 'c' caught by a handler, 'i' ignored, 'd' default. */
static int ct_disposition(pid_t pid, int sig)
{
	unsigned long long caught = 0, ignored = 0;
	if (ct_pt_status(pid, "SigCgt", &caught) < 0 || ct_pt_status(pid, "SigIgn", &ignored) < 0)
		return 0;
	return (caught >> (sig - 1) & 1) ? 'c' : (ignored >> (sig - 1) & 1) ? 'i' : 'd';
}

/* Does the process leave sig to its default action (it then dies of it)? */
static int ct_dies_of(pid_t pid, int sig)
{
	int fatal = 0;
	for (size_t i = 0; i < CT_ARRAY_SIZE(ct_fatal); i++)
		fatal |= ct_fatal[i] == sig;
	return fatal && ct_disposition(pid, sig) == 'd';
}

/* Stepped into a signal handler: its frame begins here, and its restorer ends it. */
static void ct_on_handler(struct ct_tracer *tr, struct ct_pt_thread *t)
{
	ct_regs r;
	uint64_t restorer;
	int sig = t->entering;
	t->entering = 0;
	if (ct_regs_get(t->tid, &r) < 0)
		return;
	uint64_t sp = ct_regs_entry_cfa(&r); /* where the handler returns to its restorer */
	if (ct_pt_return_address(t->proc->space, &r, &restorer) == 0)
		ct_pt_bp_set(tr, t, restorer, CT_BP_SIGRET);
	ct_pt_emit_mark(tr, t, CT_EXT_SIGNAL, (uint32_t)sig, sp);
}

/* The thread is about to end (PTRACE_EVENT_EXIT): a name of its own is kept. */
static void ct_on_exit(struct ct_tracer *tr, struct ct_pt_thread *t)
{
	char name[48], comm[32], exe[4096];
	snprintf(name, sizeof(name), "task/%d/comm", (int)t->tid);
	comm[ct_pt_proc_file(t->proc->pid, name, comm, sizeof(comm) - 1)] = 0;
	comm[strcspn(comm, "\n")] = 0;
	ct_pt_exe(t->proc->pid, exe, sizeof(exe));
	if (!comm[0] || !strncmp(comm, ct_basename(exe), 15))
		return; /* the name every thread starts with */
	struct ct_ext_thread_name tn = { .tid = t->tid };
	snprintf(tn.name, sizeof(tn.name), "%.19s", comm);
	ct_pt_emit_ext(tr, t, CT_EXT_THREAD_NAME, &tn, sizeof(tn));
}

static void ct_note_crash(struct ct_tracer *tr, struct ct_pt_thread *t, int sig)
{
	siginfo_t si;
	ct_regs r;
	if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) < 0 || ct_regs_get(t->tid, &r) < 0)
		return;
	struct ct_ext_crash c = {
		.signo = sig,
		.code = si.si_code,
		.pid = t->proc->pid,
		.tid = t->tid,
		.addr = (sig == SIGSEGV || sig == SIGBUS) ? (uint64_t)si.si_addr : 0,
		.pc = ct_regs_pc(&r),
		.sp = ct_regs_sp(&r),
	};
	ct_pt_emit_ext(tr, t, CT_EXT_CRASH, &c, sizeof(c));
}

int ct_pt_on_stop(struct ct_tracer *tr, struct ct_pt_thread *t, int status)
{
	int sig = WSTOPSIG(status), event = status >> 16;

	if (event == PTRACE_EVENT_EXIT) {
		ct_on_exit(tr, t);
		return 0;
	}
	if (event)
		return ct_pt_on_event(tr, t, event);
	if (sig == SIGTRAP && t->entering) {
		ct_on_handler(tr, t);
		return 0;
	}
	if (sig == SIGSTOP && !t->started) {
		t->started = 1; /* a new thread's first stop */
		return 0;
	}
	t->started = 1;
	if (sig == SIGTRAP) {
		ct_regs r;
		if (ct_regs_get(t->tid, &r) < 0)
			return -1;
		struct ct_pt_bp *bp =
			ct_pt_bp_find(t->proc->space, ct_regs_pc(&r) - CT_ARCH_BREAK_PC);
		if (bp) {
			if (bp->flags & CT_BP_IMAGE)
				ct_on_image(tr, t, bp, &r);
			else
				ct_on_break(tr, t, bp, &r);
			sig = t->pending_sig;
			t->pending_sig = 0;
			return sig;
		}
	}
	if (ct_dies_of(t->proc->pid, sig)) {
		ct_note_crash(tr, t, sig);
	} else if (sig != SIGSTOP && sig != SIGKILL && ct_disposition(t->proc->pid, sig) == 'c') {
		t->entering = sig; /* the kernel stops the step at the handler's first instruction */
		t->step = 1;
	}
	return sig;
}
