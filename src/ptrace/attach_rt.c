/* SPDX-License-Identifier: MIT */
/*
 * calltrace attach with the runtime: with every thread stopped, one of them
 * is made to dlopen libcalltrace.so (by its attach name) and to call
 * calltrace_attach_start, which patches the selected functions in memory;
 * from then on the process traces itself at the patch method's cost, into
 * the recorder's pool, and the tracer only watches: new threads and
 * processes (a forked child carries the patched code and the runtime), exec
 * (the new image has neither), signals (passed on untouched), the end.
 *
 * To leave, every thread is stopped again and stepped out of the runtime's
 * code, and in each process that carries the runtime one thread calls
 * calltrace_attach_stop with every thread's thread pointer: the code and
 * GOT slots go back as they were, the pool is unmapped, the hooks are inert.
 * The library stays loaded (a return address it replaced may still be on a
 * stack); a later attach starts it again.
 */
#include <errno.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracer.h"
#include "ptrace.h"
#include "../common/attach_abi.h"
#include "../common/event.h"
#include "../arch/ptrace_arch.h"
#include "../arch/patch.h"
#include "../arch/relocate.h"

#define CT_RT_BUF	(64u << 10) /* our memory in the process: the path, then conf */
#define CT_RT_CONF_AT	4096u
#define CT_RT_MAX_STEPS 100000 /* out of the runtime: a hook is a few hundred instructions */

extern char **environ;

/* Variables of ours that are not the runtime's settings, or that we set. */
static int ct_rt_ours(const char *e)
{
	static const char *const skip[] = { "CALLTRACE_POOL=",	    "CALLTRACE_METHOD=",
					    "CALLTRACE_NO_FOLLOW=", "CALLTRACE_RUNTIME=",
					    "CALLTRACE_RECORDER=",  "CALLTRACE_FROM=",
					    "CALLTRACE_STANDALONE=" };
	for (size_t i = 0; i < CT_ARRAY_SIZE(skip); i++)
		if (!strncmp(e, skip[i], strlen(skip[i])))
			return 1;
	return 0;
}

static int ct_rt_add(char *buf, size_t size, size_t *n, const char *s)
{
	size_t len = strlen(s) + 1;
	if (*n + len + 1 > size)
		return -1;
	memcpy(buf + *n, s, len);
	*n += len;
	return 0;
}

/* The runtime's settings, as record puts them in the environment: their length, or 0. */
static size_t ct_rt_conf(char *buf, size_t size, const struct ct_attach_opts *o)
{
	char line[4200];
	size_t n = 0;
	int bad = 0;
	snprintf(line, sizeof(line), "CALLTRACE_POOL=%s", o->pool_path);
	bad |= ct_rt_add(buf, size, &n, line);
	bad |= ct_rt_add(buf, size, &n, "CALLTRACE_METHOD=patch");
	if (!o->follow) {
		snprintf(line, sizeof(line), "CALLTRACE_NO_FOLLOW=%d", (int)o->pid);
		bad |= ct_rt_add(buf, size, &n, line);
	}
	for (char **e = environ; *e; e++)
		if (!strncmp(*e, "CALLTRACE_", 10) && !ct_rt_ours(*e))
			bad |= ct_rt_add(buf, size, &n, *e);
	buf[n++] = 0;
	return bad ? 0 : n;
}

/* A libc function in the process; 0 if none. */
static uint64_t ct_rt_libc(struct ct_tracer *tr, struct ct_pt_thread *t, const char *name)
{
	struct ct_pt_symbol sym;
	return ct_pt_find_function(tr, t, "libc.so", name, &sym) == 0 ? sym.addr : 0;
}

/* What dlerror says in the process, into err. */
static void ct_rt_dlerror(struct ct_tracer *tr, struct ct_pt_thread *t, char *err, size_t len)
{
	uint64_t fn = ct_rt_libc(tr, t, "dlerror");
	int ok = 0;
	long msg = fn ? ct_pt_inject_call(tr, t, fn, NULL, 0, &ok) : 0;
	snprintf(err, len, "dlopen failed");
	if (ok && msg && ct_pt_read(t->proc->space, (uint64_t)msg, err, len - 1) == 0)
		err[len - 1] = 0;
}

static long ct_rt_mmap(struct ct_tracer *tr, struct ct_pt_thread *t, size_t len)
{
	long args[6] = { 0, (long)len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0 };
	long r = ct_pt_inject_syscall(tr, t, SYS_mmap, args, 6);
	return r < 0 && r > -4096 ? 0 : r;
}

/* dlopen the runtime in t's process; 0, or -1 with err. */
static int ct_rt_dlopen(struct ct_tracer *tr, struct ct_pt_thread *t, const char *lib, char *err,
			size_t errlen)
{
	struct ct_pt_proc *p = t->proc;
	uint64_t dlopen_fn = ct_rt_libc(tr, t, "dlopen");
	if (!dlopen_fn) /* before glibc 2.34 dlopen is libdl's; this one takes the same arguments */
		dlopen_fn = ct_rt_libc(tr, t, "__libc_dlopen_mode");
	if (!dlopen_fn) {
		snprintf(err, errlen, "it has no dlopen to load the runtime with (a static program?)");
		return -1;
	}
	if (!ct_pt_scratch_alloc(tr, t, dlopen_fn, 16) || !(p->rt_buf = (uint64_t)ct_rt_mmap(tr, t, CT_RT_BUF))) {
		snprintf(err, errlen, "cannot map memory in it");
		return -1;
	}
	p->rt_len = CT_RT_BUF;
	int ok;
	uint64_t args[2] = { p->rt_buf, RTLD_NOW | RTLD_LOCAL };
	long handle = ct_pt_write(p->space, p->rt_buf, lib, strlen(lib) + 1) == 0 ?
			      ct_pt_inject_call(tr, t, dlopen_fn, args, 2, &ok) :
			      0;
	if (!handle) {
		char why[512];
		ct_rt_dlerror(tr, t, why, sizeof(why));
		snprintf(err, errlen, "cannot load the runtime: %s", why);
		return -1;
	}
	return 0;
}

static int ct_rt_start(struct ct_tracer *tr, struct ct_pt_thread *t, const struct ct_attach_opts *o,
		       char *err, size_t errlen);
static long ct_rt_adopt(struct ct_tracer *tr, struct ct_pt_thread *by, uint64_t adopt);

/*
 * The thread's errno: dlopen and the runtime's start make system calls that
 * may fail and set it, and the thread may be stopped between a failed call
 * of its own and its look at errno. Read before our calls, put back after.
 */
struct ct_rt_errno {
	uint64_t at; /* 0: unknown, left alone */
	int value;
};

static void ct_rt_errno_save(struct ct_tracer *tr, struct ct_pt_thread *t, struct ct_rt_errno *e)
{
	uint64_t fn = ct_rt_libc(tr, t, "__errno_location");
	int ok = 0;
	if (fn && !t->proc->space->stub) /* the first call of ours: it needs the stub */
		ct_pt_scratch_alloc(tr, t, fn, 16);
	e->at = fn ? (uint64_t)ct_pt_inject_call(tr, t, fn, NULL, 0, &ok) : 0;
	if (!ok || !e->at || ct_pt_read(t->proc->space, e->at, &e->value, sizeof(e->value)) < 0)
		e->at = 0;
}

static void ct_rt_errno_restore(struct ct_pt_thread *t, const struct ct_rt_errno *e)
{
	if (e->at)
		ct_pt_write(t->proc->space, e->at, &e->value, sizeof(e->value));
}

int ct_pt_rt_load(struct ct_tracer *tr, struct ct_pt_thread *t, const struct ct_attach_opts *o,
		  char *err, size_t errlen)
{
	struct ct_pt_proc *p = t->proc;
	struct ct_rt_errno e;
	ct_rt_errno_save(tr, t, &e);
	int r = ct_rt_start(tr, t, o, err, errlen);
	if (r < 0 && p->rt_buf) { /* the library may stay, inert; our memory goes */
		long args[2] = { (long)p->rt_buf, (long)p->rt_len };
		ct_pt_inject_syscall(tr, t, SYS_munmap, args, 2);
		p->rt_buf = 0;
	}
	ct_rt_errno_restore(t, &e);
	return r;
}

#define CT_RT_ENTRY_STEPS 8 /* a prologue's instructions before the patch's jump ends */

/*
 * One instruction of t: 0 once it stopped after it (a signal that came
 * meanwhile kept for its resumption). A step that does not come back (a
 * system call that waits) leaves t running, marked released: the caller
 * stops it again (ct_pt_stop_released).
 */
static int ct_rt_step(struct ct_tracer *tr, struct ct_pt_thread *t)
{
	int st;
	if (ptrace(PTRACE_SINGLESTEP, t->tid, 0, 0) < 0)
		return -1;
	if (ct_pt_wait_tid(NULL, t->tid, &st, CT_PT_STOP_WAIT_MS, NULL, NULL) < 0) {
		if (errno == ETIMEDOUT) {
			t->released = 1;
			tr->nreleased++;
		}
		return -1;
	}
	if (!WIFSTOPPED(st))
		return -1;
	if ((st >> 16) == 0 && WSTOPSIG(st) != SIGTRAP && WSTOPSIG(st) != SIGSTOP)
		t->pending_sig = WSTOPSIG(st);
	return 0;
}

/*
 * A thread stopped a few bytes into a function, inside what the patch's
 * jump will cover (on x86-64 the first CT_PATCH_JUMP_LEN bytes: a push, an
 * endbr64 behind it), would go on in the middle of that jump once the
 * runtime writes it. Such a thread is stepped past those bytes first. A
 * thread in a system call is not stepped (it is not in a prologue). One in
 * 300 attaches to tests/ptrace/worker crashed so, a thread stopped after
 * step()'s two pushes.
 */
static void ct_rt_step_past_entries(struct ct_tracer *tr, struct ct_pt_proc *p)
{
	size_t cap = 64, n;
	struct ct_pt_thread **ts = ct_malloc(cap * sizeof(*ts));
	uint64_t *pc = ct_malloc(cap * sizeof(*pc)), *off = ct_malloc(cap * sizeof(*off));
	for (int round = 0; round < CT_RT_ENTRY_STEPS; round++) {
		struct ct_pt_thread *t;
		ct_regs r;
		n = 0;
		for (size_t pos = 0; (t = ct_pt_next_with_regs(tr, p, &pos, &r));) {
			if (ct_pt_in_syscall(t, &r))
				continue;
			if (n == cap) {
				cap *= 2;
				ts = ct_realloc(ts, cap * sizeof(*ts));
				pc = ct_realloc(pc, cap * sizeof(*pc));
				off = ct_realloc(off, cap * sizeof(*off));
			}
			ts[n] = t;
			pc[n++] = ct_regs_pc(&r);
		}
		if (!n || ct_pt_function_offsets(p, pc, n, off) < 0)
			break;
		int stepped = 0;
		for (size_t i = 0; i < n; i++)
			if (off[i] && off[i] < CT_PATCH_JUMP_LEN && ct_rt_step(tr, ts[i]) == 0)
				stepped = 1;
		if (!stepped)
			break;
	}
	ct_pt_stop_released(tr);
	free(ts);
	free(pc);
	free(off);
}

static int ct_rt_start(struct ct_tracer *tr, struct ct_pt_thread *t, const struct ct_attach_opts *o,
		       char *err, size_t errlen)
{
	struct ct_pt_proc *p = t->proc;
	char lib[PATH_MAX], conf[16384];
	size_t conflen = ct_rt_conf(conf, sizeof(conf), o);
	const char *slash = strrchr(o->runtime, '/');
	snprintf(lib, sizeof(lib), "%.*s/%s", slash ? (int)(slash - o->runtime) : 1,
		 slash ? o->runtime : ".", CT_ATTACH_LIB);
	if (!conflen) {
		snprintf(err, errlen, "too many CALLTRACE_ settings");
		return -1;
	}
	if (ct_rt_dlopen(tr, t, lib, err, errlen) < 0)
		return -1;

	struct ct_pt_symbol start, stop, adopt;
	if (ct_pt_find_function(tr, t, "libcalltrace.so", CT_ATTACH_START, &start) < 0 ||
	    ct_pt_find_function(tr, t, "libcalltrace.so", CT_ATTACH_STOP, &stop) < 0 ||
	    ct_pt_find_function(tr, t, "libcalltrace.so", CT_ATTACH_ADOPT, &adopt) < 0) {
		snprintf(err, errlen, "%s was loaded, but its entry points are not there", lib);
		return -1;
	}
	int ok;
	uint64_t args[2] = { p->rt_buf + CT_RT_CONF_AT, conflen };
	ct_rt_step_past_entries(tr, p);
	long r = ct_pt_write(p->space, args[0], conf, conflen) == 0 ?
			 ct_pt_inject_call(tr, t, start.addr, args, 2, &ok) :
			 -EFAULT;
	if (r < 0) {
		snprintf(err, errlen, "the runtime did not start in it: %s",
			 r == -EBUSY ? "it is traced by calltrace already" : strerror((int)-r));
		return -1;
	}
	p->rt = 1;
	p->rt_stop = stop.addr;
	p->rt_lo = start.lo;
	p->rt_hi = start.hi;
	ct_rt_adopt(tr, t, adopt.addr); /* else those calls' returns are not shown: no harm */
	return 0;
}

/* ---- calls under way at the attach ------------------------------------------------------- */

struct ct_adopt {
	uint64_t *buf;
	size_t room, w;
	long nthreads;
};

/* One thread's calls under way as calltrace_attach_adopt reads them. */
static void ct_rt_add_thread(struct ct_tracer *tr, struct ct_pt_thread *t,
			     const struct ct_pt_frame *f, size_t n, void *arg)
{
	struct ct_adopt *a = arg;
	ct_regs r;
	uint64_t tp;
	(void)tr;
	if (ct_regs_get(t->tid, &r) < 0 || ct_thread_pointer(t->tid, &r, &tp) < 0 ||
	    a->w + 3 + 3 * n > a->room)
		return;
	a->buf[a->w++] = tp;
	a->buf[a->w++] = (uint64_t)t->tid;
	a->buf[a->w++] = n;
	for (size_t i = 0; i < n; i++) {
		a->buf[a->w++] = f[i].fn;
		a->buf[a->w++] = f[i].slot;
		a->buf[a->w++] = f[i].ret;
	}
	a->nthreads++;
}

/* Calls under way in p's threads get their returns seen; the number hooked. */
static long ct_rt_adopt(struct ct_tracer *tr, struct ct_pt_thread *by, uint64_t adopt)
{
	struct ct_pt_proc *p = by->proc;
	struct ct_adopt a = { .room = (p->rt_len - CT_RT_CONF_AT) / 8 };
	a.buf = ct_malloc(a.room * 8);
	long hooked = -1;
	int ok;
	uint64_t args[2] = { p->rt_buf + CT_RT_CONF_AT, 0 };
	if (ct_pt_open_calls(tr, p, ct_rt_add_thread, &a) == 0 && a.nthreads &&
	    ct_pt_write(p->space, args[0], a.buf, a.w * 8) == 0) {
		args[1] = (uint64_t)a.nthreads;
		hooked = ct_pt_inject_call(tr, by, adopt, args, 2, &ok);
	}
	free(a.buf);
	return hooked;
}

/* ---- watching: threads and processes come and go ------------------------------------------- */

static int ct_rt_is_thread_of(pid_t tid, pid_t pid)
{
	unsigned long long tgid;
	return ct_pt_status(tid, "Tgid", &tgid) < 0 || tgid == (unsigned long long)pid;
}

/* A forked child: a copy of its parent's memory, runtime and patches included. */
static void ct_rt_new_process(struct ct_tracer *tr, struct ct_pt_thread *t, pid_t pid, int vfork)
{
	struct ct_pt_proc *parent = t->proc;
	struct ct_pt_space *space = vfork ? parent->space : ct_pt_space_copy(parent->space, pid);
	if (vfork)
		space->refs++;
	struct ct_pt_proc *p = ct_pt_proc_add(tr, pid, space);
	p->ppid = parent->pid;
	p->rt = parent->rt && !vfork; /* a vfork child's memory is its parent's: undone there */
	p->rt_stop = parent->rt_stop;
	p->rt_lo = parent->rt_lo;
	p->rt_hi = parent->rt_hi;
	p->rt_buf = parent->rt_buf;
	p->rt_len = parent->rt_len;
	ct_pt_thread_add(tr, pid, p);
}

/* exec: a new image, without the runtime; the old image's other threads are gone. */
static void ct_rt_exec(struct ct_tracer *tr, struct ct_pt_thread *t, pid_t former)
{
	struct ct_pt_proc *old = t->proc;
	for (size_t i = 0; i < tr->threads.cap; i++) {
		struct ct_pt_thread *o = (void *)(uintptr_t)tr->threads.vals[i];
		if (tr->threads.keys[i] && o && o != t && (o->proc == old || o->tid == former))
			ct_pt_thread_gone(tr, o);
	}
	struct ct_pt_proc *p = ct_pt_proc_add(tr, old->pid, NULL);
	p->ppid = old->ppid;
	p->nthreads = 1;
	t->proc = p;
	ct_pt_proc_unref(old);
}

int ct_pt_rt_on_event(struct ct_tracer *tr, struct ct_pt_thread *t, int event)
{
	unsigned long msg = 0;
	ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &msg);
	pid_t child = (pid_t)msg;
	switch (event) {
	case PTRACE_EVENT_CLONE:
		if (ct_rt_is_thread_of(child, t->proc->pid)) {
			ct_pt_thread_add(tr, child, t->proc);
			break;
		}
		__attribute__((fallthrough));
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		ct_rt_new_process(tr, t, child, event == PTRACE_EVENT_VFORK);
		break;
	case PTRACE_EVENT_EXEC:
		ct_rt_exec(tr, t, child);
		break;
	default:
		break;
	}
	return 0;
}

int ct_pt_rt_on_stop(struct ct_tracer *tr, struct ct_pt_thread *t, int status)
{
	int event = status >> 16;
	if (event)
		return ct_pt_rt_on_event(tr, t, event);
	return WSTOPSIG(status); /* the program's signal, passed on as it came */
}

/* ---- leaving -------------------------------------------------------------------------------- */

/*
 * In a leaf function the runtime called, such as libc's syscall() for the
 * futex or rt_sigprocmask of a hook's slow path: its return address, on top
 * of the stack (in x30 on aarch64), is in the runtime's code. A hook is under way there, and a
 * return hook may have popped only half a tail call's frames: the detach
 * must not reset its shadow stack under it.
 */
static int ct_rt_called_leaf(const struct ct_pt_thread *t, const ct_regs *r)
{
	uint64_t ret;
	if (ct_pt_return_address(t->proc->space, r, &ret) < 0)
		return 0;
	return ret >= t->proc->rt_lo && ret < t->proc->rt_hi;
}

/*
 * In the runtime's code (or a leaf it called), or in a trampoline of
 * dynamic patching where a return address is half moved (the arch's
 * relocate.h): the detach would leave the frame's return nowhere to go.
 */
static int ct_rt_in_code(const struct ct_pt_thread *t)
{
	ct_regs r;
	uint8_t before[CT_TRAMP_PEEK_BEFORE], at[CT_THUNK_LEN];
	if (ct_regs_get(t->tid, &r) < 0)
		return 0;
	uint64_t pc = ct_regs_pc(&r), lo = t->proc->rt_lo, hi = t->proc->rt_hi;
	if ((pc >= lo && pc < hi) || ct_rt_called_leaf(t, &r))
		return 1;
	if (ct_pt_read(t->proc->space, pc, at, sizeof(at)) < 0)
		return 0;
	int readable = ct_pt_read(t->proc->space, pc - sizeof(before), before, sizeof(before)) == 0;
	return ct_arch_tramp_unsettled(readable ? before : NULL, at, lo, hi);
}

/* A thread in the middle of a hook finishes it: none may touch the pool once it is gone. */
static void ct_rt_step_out(struct ct_tracer *tr, struct ct_pt_thread *t)
{
	for (int i = 0; i < CT_RT_MAX_STEPS && ct_rt_in_code(t); i++)
		if (ct_rt_step(tr, t) < 0)
			return;
}

/* The runtime of p stopped: every thread's writer state reset, the code as it was. */
static void ct_rt_stop_process(struct ct_tracer *tr, struct ct_pt_proc *p)
{
	uint64_t tps[4096];
	long n = 0;
	struct ct_pt_thread *by = NULL, *t;
	ct_regs r;
	for (size_t pos = 0; (t = ct_pt_next_with_regs(tr, p, &pos, &r));) {
		uint64_t tp;
		if (n < (long)CT_ARRAY_SIZE(tps) && (n + 1) * 8 <= (long)p->rt_len &&
		    ct_thread_pointer(t->tid, &r, &tp) == 0)
			tps[n++] = tp;
		if (!by || !ct_pt_in_syscall(t, &r))
			by = t; /* one out of any system call if there is one */
	}
	int ok;
	uint64_t args[2] = { p->rt_buf, (uint64_t)n };
	long margs[2] = { (long)p->rt_buf, (long)p->rt_len };
	if (by) {
		struct ct_rt_errno e;
		ct_rt_errno_save(tr, by, &e);
		if (ct_pt_write(p->space, p->rt_buf, tps, (size_t)n * sizeof(*tps)) == 0)
			ct_pt_inject_call(tr, by, p->rt_stop, args, 2, &ok);
		ct_pt_inject_syscall(tr, by, SYS_munmap, margs, 2);
		ct_rt_errno_restore(by, &e);
	}
	p->rt = 0;
}

void ct_pt_rt_leave(struct ct_tracer *tr)
{
	for (size_t i = 0; i < tr->threads.cap; i++) {
		struct ct_pt_thread *t = (void *)(uintptr_t)tr->threads.vals[i];
		if (tr->threads.keys[i] && t && t->proc->rt)
			ct_rt_step_out(tr, t);
	}
	ct_pt_stop_released(tr);
	for (size_t i = 0; i < tr->threads.cap; i++) {
		struct ct_pt_thread *t = (void *)(uintptr_t)tr->threads.vals[i];
		if (tr->threads.keys[i] && t && t->proc->rt)
			ct_rt_stop_process(tr, t->proc);
	}
}
