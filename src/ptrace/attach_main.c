/* SPDX-License-Identifier: MIT */
/*
 * calltrace attach: trace a process that is already running, through
 * breakpoints, then leave it exactly as it was. Every thread is seized and
 * stopped before a byte changes; at the end (Ctrl-C, --duration, or the
 * process exiting) every thread is stopped again, those stopped on one of our
 * breakpoints are put back on the instruction it covers, those inside an
 * out-of-line copy are stepped out of it, the original bytes go back, our
 * scratch memory is unmapped, and the threads are let go with the signals
 * they had pending.
 */
#include <errno.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tracer.h"
#include "ptrace.h"
#include "../arch/ptrace_arch.h"
#include "../common/event.h"

static volatile sig_atomic_t ct_stop_asked;

static void ct_on_stop_signal(int sig)
{
	(void)sig;
	ct_stop_asked = 1;
}


/* ---- what the recorder tells of the process: how it ended, the CPU it used meanwhile ---- */

static int64_t ct_cpu_at_attach = -1; /* its threads' CPU time when we had them all stopped */

/* CPU time (user + system) of every thread of pid so far, in ns; -1 if unknown. */
static int64_t ct_process_cpu_ns(pid_t pid)
{
	char buf[1024];
	uint32_t n = ct_pt_proc_file(pid, "stat", buf, sizeof(buf) - 1);
	buf[n] = 0;
	const char *p = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
	unsigned long long utime = 0, stime = 0;
	/* after the name: state (field 3) ... utime (14), stime (15) */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
			 &stime) != 2)
		return -1;
	long hz = sysconf(_SC_CLK_TCK);
	unsigned long long tick_ns = 1000000000ull / (unsigned long long)(hz > 0 ? hz : 100);
	return (int64_t)((utime + stime) * tick_ns);
}

/* The CPU it used since the attach, as far as we can see now (it only grows). */
static void ct_note_cpu(struct ct_tracer *tr)
{
	int64_t now = ct_process_cpu_ns(tr->main_pid);
	if (now < 0 || ct_cpu_at_attach < 0)
		return;
	uint64_t used = now > ct_cpu_at_attach ? (uint64_t)(now - ct_cpu_at_attach) : 0;
	if (used >= tr->ctl->attach_cpu_ns)
		tr->ctl->attach_cpu_ns = used;
	atomic_fetch_or(&tr->ctl->attach_flags, CT_ATTACH_CPU);
}

/* A thread's exit stop, or the end waitpid told: the process ending is noted on the way. */
static void ct_note_end(struct ct_tracer *tr, pid_t pid, int st)
{
	if (WIFSTOPPED(st) && (st >> 16) == PTRACE_EVENT_EXIT) {
		struct ct_pt_thread *t = ct_pt_thread_get(tr, pid);
		if (t && t->proc->pid == tr->main_pid)
			ct_note_cpu(tr); /* the last moment its threads' times can be read */
	} else if (pid == tr->main_pid && (WIFEXITED(st) || WIFSIGNALED(st))) {
		tr->ctl->attach_status = st;
		atomic_fetch_or(&tr->ctl->attach_flags, CT_ATTACH_ENDED);
	}
}

/* Wait for tid's stop after PTRACE_INTERRUPT; other results of it are handled on the way. */
static int ct_wait_stopped(pid_t tid, int *status)
{
	if (ct_pt_wait_tid(NULL, tid, status, CT_PT_STOP_WAIT_MS, NULL, NULL) < 0 ||
	    !WIFSTOPPED(*status))
		return -1;
	return 0;
}

static size_t ct_running(const struct ct_tracer *tr)
{
	size_t running = 0;
	for (size_t i = 0; i < tr->threads.cap; i++) {
		struct ct_pt_thread *t = (void *)(uintptr_t)tr->threads.vals[i];
		running += tr->threads.keys[i] && t && !t->held;
	}
	return running;
}

/* Threads we wait for that will never stop: ended, or zombies (an exited leader). */
static void ct_forget_dead(struct ct_tracer *tr)
{
	for (size_t i = 0; i < tr->threads.cap; i++) {
		struct ct_pt_thread *t = (void *)(uintptr_t)tr->threads.vals[i];
		if (tr->threads.keys[i] && t && !t->held && ct_pt_thread_dead(t->tid))
			ct_pt_thread_gone(tr, t);
	}
}

/* waitpid(-1) while some thread is not held; 0 once none is left to wait for. */
static pid_t ct_wait_running(struct ct_tracer *tr, int *st)
{
	uint64_t next_check = ct_pt_now_ms() + 10;
	long sleep_us = 20;
	for (;;) {
		pid_t pid = waitpid(-1, st, __WALL | WNOHANG);
		if (pid != 0)
			return pid;
		if (ct_pt_now_ms() >= next_check) {
			next_check = ct_pt_now_ms() + 10;
			ct_forget_dead(tr);
			if (!ct_running(tr))
				return 0;
		}
		struct timespec ts = { 0, sleep_us * 1000 };
		nanosleep(&ts, NULL);
		sleep_us = sleep_us < 1000 ? sleep_us * 2 : 1000;
	}
}

/* Seize every thread of pid (new ones may appear meanwhile); 0, or an errno. */
static int ct_seize_all(struct ct_tracer *tr, struct ct_pt_proc *p)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)p->pid);
	long opts = PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT;
	if (tr->follow || tr->rt) /* a child of the runtime's carries its patches: undone at the end */
		opts |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;
	for (int fresh = 1; fresh;) {
		fresh = 0;
		DIR *d = opendir(path);
		if (!d)
			return ESRCH;
		struct dirent *e;
		while ((e = readdir(d))) {
			pid_t tid = atoi(e->d_name);
			if (tid <= 0 || ct_pt_thread_get(tr, tid))
				continue;
			if (ptrace(PTRACE_SEIZE, tid, 0, opts) < 0) {
				int err = errno;
				if ((err == ESRCH && tid != p->pid) || ct_pt_thread_dead(tid))
					continue; /* it ended meanwhile, or an exited leader */
				closedir(d);
				return err;
			}
			int st;
			ptrace(PTRACE_INTERRUPT, tid, 0, 0);
			if (ct_wait_stopped(tid, &st) < 0)
				continue;
			struct ct_pt_thread *t = ct_pt_thread_add(tr, tid, p);
			t->started = 1;
			fresh = 1;
		}
		closedir(d);
	}
	return 0;
}

/* Every thread not held yet is asked to stop (again: no harm). */
static void ct_interrupt_all(struct ct_tracer *tr)
{
	for (size_t i = 0; i < tr->threads.cap; i++) {
		struct ct_pt_thread *t = (void *)(uintptr_t)tr->threads.vals[i];
		if (tr->threads.keys[i] && t && !t->held)
			ptrace(PTRACE_INTERRUPT, t->tid, 0, 0);
	}
}

/* Every traced thread stopped; those on a breakpoint put back before it. */
static void ct_stop_all(struct ct_tracer *tr)
{
	ct_interrupt_all(tr);
	for (;;) {
		if (!ct_running(tr))
			return;
		int st;
		pid_t pid = ct_wait_running(tr, &st);
		if (pid == 0)
			return;
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		ct_note_end(tr, pid, st);
		struct ct_pt_thread *t = ct_pt_thread_get(tr, pid);
		if (!t) { /* a new one whose first stop came before its creator's event */
			if (WIFSTOPPED(st))
				ct_pt_early_stop(tr, pid, st);
			continue;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			ct_pt_thread_gone(tr, t);
			continue;
		}
		int sig = WSTOPSIG(st), event = st >> 16;
		if (event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK ||
		    event == PTRACE_EVENT_VFORK) {
			ct_pt_on_event(tr, t, event);
			ptrace(PTRACE_CONT, t->tid, 0, 0);
			ct_interrupt_all(tr); /* the new one too (let go if its stop came early) */
			continue;
		}
		t->held = 1;
		if (event == 0 && sig == SIGTRAP) {
			ct_regs r;
			int got = ct_regs_get(t->tid, &r) == 0;
			uint64_t at = ct_regs_pc(&r) - CT_ARCH_BREAK_PC;
			if (got && ct_pt_bp_find(t->proc->space, at)) { /* run it again, unbroken */
				ct_regs_set_pc(&r, at);
				ct_regs_set(t->tid, &r);
			} else {
				t->pending_sig = sig;
			}
		} else if (event == 0 && sig != SIGSTOP) {
			t->pending_sig = sig; /* the program's: it gets it after we leave */
		}
	}
}

/*
 * A call we made a thread run has not come back for a while: it may wait for
 * a lock a stopped thread holds (the loader's, an allocator's). The other
 * threads of its process run until it is back, then are stopped again.
 */
static void ct_let_others_run(struct ct_tracer *tr, struct ct_pt_thread *by)
{
	for (size_t i = 0; i < tr->threads.cap; i++) {
		struct ct_pt_thread *t = (void *)(uintptr_t)tr->threads.vals[i];
		if (!tr->threads.keys[i] || !t || t == by || t->proc != by->proc || t->released)
			continue;
		if (ptrace(PTRACE_CONT, t->tid, 0, (void *)(long)t->pending_sig) == 0) {
			t->pending_sig = 0;
			t->released = 1;
			tr->nreleased++;
		}
	}
	fprintf(stderr,
		"calltrace: attach: process %d: a call of ours is slow (a lock held by a stopped "
		"thread?); its other threads run meanwhile\n",
		(int)by->proc->pid);
}

void ct_pt_stop_released(struct ct_tracer *tr)
{
	for (size_t i = 0; i < tr->threads.cap; i++) {
		struct ct_pt_thread *t = (void *)(uintptr_t)tr->threads.vals[i];
		if (!tr->threads.keys[i] || !t || !t->released)
			continue;
		t->released = 0;
		tr->nreleased--;
		ptrace(PTRACE_INTERRUPT, t->tid, 0, 0);
		for (;;) {
			int st;
			if (ct_wait_stopped(t->tid, &st) < 0) {
				ct_pt_thread_gone(tr, t);
				break;
			}
			int event = st >> 16, sig = WSTOPSIG(st);
			if (event == PTRACE_EVENT_STOP)
				break;
			if (event) { /* a thread or process it made meanwhile is stopped too */
				ct_pt_on_event(tr, t, event);
				ptrace(PTRACE_CONT, t->tid, 0, 0);
				continue;
			}
			t->pending_sig = sig; /* its own: delivered when we let it go */
			ptrace(PTRACE_CONT, t->tid, 0, 0); /* on to the interrupt's stop */
		}
	}
}

/* Is a SIGTRAP pending for the thread (it hit a breakpoint as we stopped it)? */
static int ct_trap_pending(pid_t tid)
{
	unsigned long long pending = 0;
	return ct_pt_status(tid, "SigPnd", &pending) == 0 && (pending >> (SIGTRAP - 1) & 1);
}

/*
 * A thread stopped just past one of our int3s (on one of our brks) with its
 * SIGTRAP still queued: let it take the signal (we keep it), and put it back
 * on the instruction.
 */
static void ct_take_trap(struct ct_pt_thread *t)
{
	ct_regs r;
	if (ct_regs_get(t->tid, &r) < 0)
		return;
	uint64_t at = ct_regs_pc(&r) - CT_ARCH_BREAK_PC;
	if (!ct_pt_bp_find(t->proc->space, at) || !ct_trap_pending(t->tid))
		return;
	for (int i = 0; i < 16; i++) {
		int st;
		if (ptrace(PTRACE_CONT, t->tid, 0, 0) < 0 || ct_wait_stopped(t->tid, &st) < 0)
			return;
		if ((st >> 16) == 0 && WSTOPSIG(st) == SIGTRAP)
			break;
		if ((st >> 16) == 0 && WSTOPSIG(st) != SIGSTOP)
			t->pending_sig = WSTOPSIG(st);
	}
	if (ct_regs_get(t->tid, &r) == 0 && ct_regs_pc(&r) == at + CT_ARCH_BREAK_PC) {
		ct_regs_set_pc(&r, at);
		ct_regs_set(t->tid, &r);
	}
}

static int ct_in_scratch(const struct ct_pt_space *s, uint64_t pc)
{
	for (size_t i = 0; i < s->nscratch; i++)
		if (pc >= s->scratch[i].base && pc < s->scratch[i].base + s->scratch[i].size)
			return 1;
	return 0;
}

/* A thread in the middle of an out-of-line copy finishes it (a few steps). */
static void ct_step_out(struct ct_pt_thread *t)
{
	for (int i = 0; i < 64; i++) {
		ct_regs r;
		int st;
		if (ct_regs_get(t->tid, &r) < 0 || !ct_in_scratch(t->proc->space, ct_regs_pc(&r)))
			return;
		if (ptrace(PTRACE_SINGLESTEP, t->tid, 0, 0) < 0 || ct_wait_stopped(t->tid, &st) < 0)
			return;
		if ((st >> 16) == 0 && WSTOPSIG(st) != SIGTRAP && WSTOPSIG(st) != SIGSTOP)
			t->pending_sig = WSTOPSIG(st);
	}
}

/*
 * A thread to run a call of ours: one outside any system call if there is
 * one, else one inside (its call is not restarted meanwhile: ct_regs_syscall
 * and ct_regs_call say so; it is when its registers are put back).
 */
static struct ct_pt_thread *ct_injectable(struct ct_tracer *tr, struct ct_pt_proc *p)
{
	struct ct_pt_thread *any = NULL, *t;
	ct_regs r;
	for (size_t pos = 0; (t = ct_pt_next_with_regs(tr, p, &pos, &r));) {
		if (!ct_pt_in_syscall(t, &r))
			return t;
		any = any ? any : t;
	}
	return any;
}

/* Breakpoints out and scratch unmapped in the space of t, then every thread let go. */
static void ct_leave(struct ct_tracer *tr)
{
	if (tr->rt)
		ct_pt_rt_leave(tr);
	for (size_t i = 0; i < tr->threads.cap; i++) {
		struct ct_pt_thread *t = (void *)(uintptr_t)tr->threads.vals[i];
		if (tr->threads.keys[i] && t) {
			ct_take_trap(t);
			ct_step_out(t);
		}
	}
	for (size_t i = 0; i < tr->threads.cap; i++) {
		struct ct_pt_thread *t = (void *)(uintptr_t)tr->threads.vals[i];
		struct ct_pt_space *s = t && tr->threads.keys[i] ? t->proc->space : NULL;
		if (!s || s->left)
			continue;
		s->left = 1;
		ct_pt_bp_clear_all(s);
		s->stub = 0; /* the stub goes with its region: unmap through the code at the pc */
		struct ct_pt_thread *by = ct_injectable(tr, t->proc);
		for (size_t k = 0; by && k < s->nscratch; k++) {
			long args[2] = { (long)s->scratch[k].base, (long)s->scratch[k].size };
			ct_pt_inject_syscall(tr, by, SYS_munmap, args, 2);
		}
		s->nscratch = 0; /* else it stays mapped, unused: every thread is in a call */
	}
	for (size_t i = 0; i < tr->threads.cap; i++) {
		struct ct_pt_thread *t = (void *)(uintptr_t)tr->threads.vals[i];
		if (!tr->threads.keys[i] || !t)
			continue;
		ptrace(PTRACE_DETACH, t->tid, 0, (void *)(long)t->pending_sig);
		ct_pt_thread_detached(tr, t);
	}
}

static int ct_attach_loop(struct ct_tracer *tr)
{
	while (tr->nthreads) {
		if (ct_stop_asked) {
			ct_stop_all(tr);
			ct_note_cpu(tr);
			if (ct_pt_thread_get(tr, tr->main_pid) || !ct_pt_thread_dead(tr->main_pid))
				atomic_fetch_or(&tr->ctl->attach_flags, CT_ATTACH_DETACHED);
			ct_leave(tr);
			return 0;
		}
		int st;
		pid_t pid = waitpid(-1, &st, __WALL);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		ct_note_end(tr, pid, st);
		struct ct_pt_thread *t = ct_pt_thread_get(tr, pid);
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (t)
				ct_pt_thread_gone(tr, t);
			continue;
		}
		if (!t) {
			ct_pt_early_stop(tr, pid, st);
			continue;
		}
		if ((st >> 16) == PTRACE_EVENT_STOP) {
			if (WSTOPSIG(st) == SIGTRAP) /* a new thread's first stop */
				ptrace(PTRACE_CONT, pid, 0, 0);
			else /* a group stop: it stays stopped as the program wants */
				ptrace(PTRACE_LISTEN, pid, 0, 0);
			t->started = 1;
			continue;
		}
		int sig = tr->rt ? ct_pt_rt_on_stop(tr, t, st) : ct_pt_on_stop(tr, t, st);
		if (sig >= 0)
			ct_pt_resume(t, sig);
	}
	return 0;
}

#define CT_ATTACHED_MAX 512 /* calls under way told per thread */

/* The calls followed in t since the attach, first in its stream: the window's calls nest there. */
static void ct_tell_open_calls(struct ct_tracer *tr, struct ct_pt_thread *t)
{
	static struct {
		uint64_t n;
		struct ct_ext_frame f[CT_ATTACHED_MAX];
	} rec;
	rec.n = 0;
	for (size_t i = 0; i < t->nframes && rec.n < CT_ATTACHED_MAX; i++) {
		rec.f[rec.n].fn = t->frames[i].fn;
		rec.f[rec.n++].sp = ct_ev_sp_units(t->frames[i].slot);
	}
	if (rec.n)
		ct_pt_emit_ext(tr, t, CT_EXT_ATTACHED, &rec,
			       (uint32_t)(sizeof(rec.n) + rec.n * sizeof(rec.f[0])));
}

/* A thread's traced calls under way: a breakpoint at each return address, as if seen entered. */
static void ct_follow_open_calls(struct ct_tracer *tr, struct ct_pt_thread *t,
				 const struct ct_pt_frame *f, size_t n, void *arg)
{
	struct ct_pt_thread *by = arg;
	for (size_t i = 0; i < n; i++) {
		struct ct_pt_bp *entry = ct_pt_bp_find(t->proc->space, f[i].fn);
		uint64_t ret = f[i].ret;
		/* where the slot holds the return address (x86-64), it must still be there */
		if (!entry || !(entry->flags & CT_BP_ENTRY) ||
		    (CT_ARCH_RET_AT_SLOT &&
		     ct_pt_read(t->proc->space, f[i].slot, &ret, sizeof(ret)) < 0) ||
		    ret != f[i].ret || !ct_pt_bp_set(tr, by, f[i].ret, CT_BP_RETURN))
			continue;
		ct_pt_push_frame(t, f[i].fn, f[i].slot, f[i].ret);
	}
	ct_tell_open_calls(tr, t);
}

/* Through breakpoints: the process described, its functions armed. */
static void ct_arm_breakpoints(struct ct_tracer *tr, struct ct_pt_proc *p, struct ct_pt_thread *by)
{
	struct ct_pt_thread *t = ct_pt_thread_get(tr, p->pid);
	if (!t) /* the leader exited: the process lives on in its other threads */
		t = by ? by : ct_injectable(tr, p);
	atomic_fetch_or(&tr->ctl->methods, CT_METHOD_PTRACE);
	p->ppid = getppid();
	if (t) {
		ct_pt_describe_process(tr, t);
		p->space->no_inject = !by; /* then breakpoints are stepped over */
		ct_pt_arm_image(tr, by ? by : t, CT_ARM_PROGRAM | CT_ARM_LIBRARIES);
		ct_pt_open_calls(tr, p, ct_follow_open_calls, by ? by : t);
	}
}

/* With the runtime, or through breakpoints if it cannot be loaded and that may be; 0, or -1. */
static int ct_start_tracing(struct ct_tracer *tr, struct ct_pt_proc *p, const struct ct_attach_opts *o)
{
	struct ct_pt_thread *by = ct_injectable(tr, p);
	char why[700];
	if (tr->rt) {
		if (by && ct_pt_rt_load(tr, by, o, why, sizeof(why)) == 0)
			return 0;
		if (!by)
			snprintf(why, sizeof(why), "no thread of it can run our calls");
		if (!o->fallback) {
			ct_error("attach: process %d: %s", (int)o->pid, why);
			return -1;
		}
		fprintf(stderr, "calltrace: attach: process %d: %s; tracing through breakpoints\n",
			(int)o->pid, why);
		tr->rt = 0;
	}
	ct_arm_breakpoints(tr, p, by);
	return 0;
}

static void __attribute__((noreturn)) ct_attach_main(void *arg, int report)
{
	const struct ct_attach_opts *a = arg;
	pid_t pid = a->pid;
	struct ct_pool_ctl *ctl = a->ctl;
	struct ct_tracer tr = { .ctl = ctl, .geo = ct_pool_geo_of(ctl), .tsc = ctl->clock == CT_CLOCK_TSC, .follow = a->follow,
				.rt = a->runtime != NULL };
	struct sigaction sa = { .sa_handler = ct_on_stop_signal }; /* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* the recorder killed: detach as on Ctrl-C, leaving the process as it was */
	pid_t recorder = getppid();
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != recorder)
		ct_stop_asked = 1;

	/* from now: --duration holds in every phase, the runtime's load included */
	if (a->duration_ms) {
		struct itimerval it = { .it_value = { (time_t)(a->duration_ms / 1000),
						      (suseconds_t)(a->duration_ms % 1000) * 1000 } };
		setitimer(ITIMER_REAL, &it, NULL);
	}
	ct_map_init(&tr.threads, 64);
	tr.stop_asked = &ct_stop_asked;
	tr.on_slow_call = ct_let_others_run;
	tr.main_pid = pid;
	tr.attached = 1;
	struct ct_pt_proc *p = ct_pt_proc_add(&tr, pid, NULL);
	int err = p->space->memfd < 0 ? errno : ct_seize_all(&tr, p);
	if (!err && !tr.nthreads)
		err = ESRCH; /* every thread had ended */
	if (!err)
		ct_cpu_at_attach = ct_process_cpu_ns(pid);
	if (!err && ct_start_tracing(&tr, p, a) < 0) {
		err = -1; /* said */
		ct_leave(&tr);
	}
	if (!err) { /* for the recorder's first line */
		ctl->attach_functions = atomic_load(&ctl->patched);
		ctl->attach_modules = atomic_load(&ctl->patched_modules);
		atomic_fetch_or(&ctl->attach_flags,
				CT_ATTACH_TRACING | (tr.rt ? 0 : CT_ATTACH_BREAKPOINTS));
	}
	ssize_t w = write(report, &err, sizeof(err));
	(void)w;
	close(report);
	if (err)
		_exit(1);
	for (size_t i = 0; i < tr.threads.cap; i++) {
		struct ct_pt_thread *o = (void *)(uintptr_t)tr.threads.vals[i];
		if (tr.threads.keys[i] && o) { /* with a signal that came while we held it */
			ct_pt_resume(o, o->pending_sig);
			o->pending_sig = 0;
		}
	}
	ct_attach_loop(&tr);
	_exit(0);
}

pid_t ct_ptrace_attach(const struct ct_attach_opts *o, int *status)
{
	pid_t pid = o->pid;
	int err;
	*status = 1;
#ifdef CT_ARCH_PTRACE_UNTESTED
	ct_warn("attach is not tested on %s yet", CT_ARCH_NAME);
#endif
	pid_t tracer = ct_fork_reporting(ct_attach_main, (void *)o, &err);
	if (tracer > 0 || err < 0)
		return tracer;
	unsigned long long other = 0, owner = 0;
	if (err == ENOSYS) /* qemu-user, for one */
		ct_error("attach: this system has no ptrace (%s)", strerror(err));
	else if (err == ESRCH || (kill(pid, 0) < 0 && errno == ESRCH))
		ct_error("attach: no process %d", (int)pid);
	else if (ct_pt_status(pid, "TracerPid", &other) == 0 && other)
		ct_error("attach: process %d is already traced by process %llu", (int)pid, other);
	else if ((err == EPERM || err == EACCES) && ct_pt_status(pid, "Uid", &owner) == 0 &&
		 owner != getuid())
		ct_error("attach: not permitted to trace process %d (owned by another user; see "
			 "/proc/sys/kernel/yama/ptrace_scope)",
			 (int)pid);
	else if (err == EPERM || err == EACCES)
		ct_error("attach: not permitted to trace process %d (%s; see "
			 "/proc/sys/kernel/yama/ptrace_scope)",
			 (int)pid, strerror(err));
	else
		ct_error("attach: cannot trace process %d: %s", (int)pid, strerror(err));
	return -1;
}
