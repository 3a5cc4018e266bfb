/* SPDX-License-Identifier: MIT */
/*
 * Threads and processes of the ptrace method: clone, fork and vfork give
 * the tracer a new thread or process (PTRACE_O_TRACE*); exec gives a process
 * a new image, a new instance in the trace and new breakpoints.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracer.h"
#include "../arch/ptrace_arch.h"
#include "../common/event.h"

struct ct_pt_thread *ct_pt_thread_get(struct ct_tracer *tr, pid_t tid)
{
	uint64_t *v = ct_map_find(&tr->threads, (uint64_t)tid);
	return v ? (struct ct_pt_thread *)(uintptr_t)*v : NULL;
}

struct ct_pt_thread *ct_pt_thread_add(struct ct_tracer *tr, pid_t tid, struct ct_pt_proc *p)
{
	struct ct_pt_thread *t = ct_calloc(1, sizeof(*t));
	t->tid = tid;
	t->proc = p;
	t->chunk = -1;
	int added;
	*ct_map_put(&tr->threads, (uint64_t)tid, &added) = (uint64_t)(uintptr_t)t;
	tr->nthreads++;
	p->nthreads++;
	for (size_t i = 0; i < tr->nearly; i++) {
		if (tr->early[i] == tid) { /* its first stop came already: let it go */
			tr->early[i] = tr->early[--tr->nearly];
			t->started = 1;
			ct_pt_resume(t, 0);
		}
	}
	return t;
}

void ct_pt_early_stop(struct ct_tracer *tr, pid_t tid, int status)
{
	(void)status;
	if (tr->nearly < CT_ARRAY_SIZE(tr->early))
		tr->early[tr->nearly++] = tid;
	else
		ptrace(PTRACE_CONT, tid, 0, 0);
}

struct ct_pt_proc *ct_pt_proc_add(struct ct_tracer *tr, pid_t pid, struct ct_pt_space *space)
{
	struct ct_pt_proc *p = ct_calloc(1, sizeof(*p));
	p->pid = pid;
	p->instance = atomic_fetch_add(&tr->ctl->next_instance, 1) + 1;
	p->space = space ? space : ct_pt_space_new(pid);
	return p;
}

void ct_pt_proc_unref(struct ct_pt_proc *p)
{
	if (--p->nthreads > 0)
		return;
	ct_pt_space_put(p->space);
	ct_buf_free(&p->modules);
	free(p);
}

/* The thread's last records: its chunk goes out marked as its last (ended: said so). */
static void ct_thread_close_as(struct ct_tracer *tr, struct ct_pt_thread *t, int ended)
{
	if (t->chunk >= 0) {
		uint64_t end = 0;
		if (ended)
			ct_pt_emit_ext(tr, t, CT_EXT_THREAD_END, &end, sizeof(end));
		ct_pt_publish(tr, t, CT_CHUNK_LAST);
	}
	t->thread_seq = 0;
	t->nframes = 0;
}

static void ct_thread_close(struct ct_tracer *tr, struct ct_pt_thread *t)
{
	ct_thread_close_as(tr, t, 1);
}

static void ct_thread_forget(struct ct_tracer *tr, struct ct_pt_thread *t, int ended)
{
	ct_thread_close_as(tr, t, ended);
	int added;
	*ct_map_put(&tr->threads, (uint64_t)t->tid, &added) = 0;
	tr->nthreads--;
	ct_pt_proc_unref(t->proc);
	free(t->frames);
	free(t);
}

void ct_pt_thread_gone(struct ct_tracer *tr, struct ct_pt_thread *t)
{
	ct_thread_forget(tr, t, 1);
}

void ct_pt_thread_detached(struct ct_tracer *tr, struct ct_pt_thread *t)
{
	ct_thread_forget(tr, t, 0);
}

/* Where the program starts (AT_ENTRY): by then the loader has mapped its libraries. */
static uint64_t ct_entry_point(pid_t pid)
{
	uint64_t entry = 0;
	return ct_pt_auxv(pid, AT_ENTRY, &entry) == 0 ? entry : 0;
}

void ct_pt_new_image(struct ct_tracer *tr, struct ct_pt_thread *t)
{
	ct_pt_arm_image(tr, t, CT_ARM_PROGRAM);
	uint64_t entry = ct_entry_point(t->proc->pid);
	if (entry)
		ct_pt_bp_set(tr, t, entry, CT_BP_START);
}

/* fork, vfork, or a clone that is not a thread: a new traced process. */
static void ct_new_process(struct ct_tracer *tr, struct ct_pt_thread *t, pid_t pid, int vfork)
{
	struct ct_pt_space *space;
	if (vfork) { /* it runs in its parent's memory until it execs */
		space = t->proc->space;
		space->refs++;
	} else {
		space = ct_pt_space_copy(t->proc->space, pid);
	}
	struct ct_pt_proc *p = ct_pt_proc_add(tr, pid, space);
	p->ppid = t->proc->pid;
	p->parent_instance = t->proc->instance;
	p->parent_tid = t->tid;
	p->flags = CT_PROC_FORKED;
	p->fork_clock = ct_pt_clock(tr);
	struct ct_pt_thread *c = ct_pt_thread_add(tr, pid, p);
	/* its stack is a copy of the forking thread's: so are its open calls */
	c->frames = ct_malloc(ct_max(t->nframes, 1) * sizeof(*c->frames));
	memcpy(c->frames, t->frames, t->nframes * sizeof(*c->frames));
	c->capframes = ct_max(t->nframes, 1);
	c->nframes = t->nframes;
	struct ct_ext_fork f = { .child_pid = pid, .how = vfork ? CT_FORK_VFORK : CT_FORK_FORK };
	ct_pt_emit_ext(tr, t, CT_EXT_FORK, &f, sizeof(f));
	ct_pt_describe_process(tr, c); /* now, while its memory is its parent's image */
}

static int ct_is_thread_of(pid_t tid, pid_t pid)
{
	unsigned long long tgid;
	return ct_pt_status(tid, "Tgid", &tgid) < 0 || tgid == (unsigned long long)pid;
}

/*
 * The exec's stop is inside execve: the kernel finishes that call when the
 * thread goes on, and writes its result over the register that holds a
 * system call's number (rax; x0 on aarch64, the first argument), so a call
 * of ours made from here would run as another. The new image is armed from
 * its first instruction instead, where a breakpoint of ours stops the thread
 * out of any call (a process that just exec'd has no other thread to run
 * through it).
 */
static void ct_arm_when_out(struct ct_tracer *tr, struct ct_pt_thread *t)
{
	ct_regs r;
	if (ct_regs_get(t->tid, &r) < 0 ||
	    !ct_pt_bp_set_bare(t->proc->space, ct_regs_pc(&r), CT_BP_IMAGE))
		ct_pt_new_image(tr, t); /* then from here, as well as it goes */
}

/* exec: the old image's threads are gone, the process starts anew. */
static void ct_on_exec(struct ct_tracer *tr, struct ct_pt_thread *t)
{
	struct ct_pt_proc *old = t->proc;
	char buf[4096];
	uint32_t n = ct_pt_exe(old->pid, buf, sizeof(buf) / 2) + 1;
	n += ct_pt_proc_file(old->pid, "cmdline", buf + n, (uint32_t)sizeof(buf) - n);
	ct_pt_emit_ext(tr, t, CT_EXT_EXEC, buf, n);

	/* every other thread of the old image ended without a word */
	for (size_t i = 0; i < tr->threads.cap; i++) {
		struct ct_pt_thread *o = (void *)(uintptr_t)tr->threads.vals[i];
		if (tr->threads.keys[i] && o && o != t && o->proc == old)
			ct_pt_thread_gone(tr, o);
	}
	ct_thread_close(tr, t);
	struct ct_pt_proc *p = ct_pt_proc_add(tr, old->pid, NULL);
	p->ppid = old->ppid;
	p->exec_instance = old->instance;
	p->flags = CT_PROC_EXECED;
	t->proc = p;
	p->nthreads = 1;
	ct_pt_proc_unref(old);
	ct_arm_when_out(tr, t);
}

int ct_pt_on_event(struct ct_tracer *tr, struct ct_pt_thread *t, int event)
{
	if (tr->rt)
		return ct_pt_rt_on_event(tr, t, event);
	unsigned long msg = 0;
	ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &msg);
	pid_t child = (pid_t)msg;

	switch (event) {
	case PTRACE_EVENT_CLONE:
		if (ct_is_thread_of(child, t->proc->pid)) {
			ct_pt_thread_add(tr, child, t->proc);
			break;
		}
		/* a process made by clone */
		__attribute__((fallthrough));
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		ct_new_process(tr, t, child, event == PTRACE_EVENT_VFORK);
		break;
	case PTRACE_EVENT_EXEC:
		if (child != t->tid) { /* a thread other than the leader exec'd: it took the pid */
			struct ct_pt_thread *o = ct_pt_thread_get(tr, child);
			if (o)
				ct_pt_thread_gone(tr, o);
		}
		ct_on_exec(tr, t);
		break;
	default:
		break;
	}
	return 0;
}

struct ct_pt_thread *ct_pt_next_with_regs(struct ct_tracer *tr, struct ct_pt_proc *p, size_t *pos,
					  void *regs)
{
	while (*pos < tr->threads.cap) {
		size_t i = (*pos)++;
		struct ct_pt_thread *t = (void *)(uintptr_t)tr->threads.vals[i];
		if (tr->threads.keys[i] && t && t->proc == p && ct_regs_get(t->tid, regs) == 0)
			return t;
	}
	return NULL;
}

int ct_pt_in_syscall(struct ct_pt_thread *t, const void *regs)
{
	uint32_t insn = 0; /* aarch64 tells by the instruction at the pc */
	ct_pt_read(t->proc->space, ct_regs_pc(regs), &insn, sizeof(insn));
	return ct_regs_in_syscall(regs, insn);
}
