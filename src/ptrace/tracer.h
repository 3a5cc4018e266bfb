/* SPDX-License-Identifier: MIT */
/*
 * The ptrace method: calltrace as the program's debugger. A breakpoint
 * (int3, or brk: src/arch/<arch>/ptrace_arch.h) at the entry of every
 * selected function and at every return address seen; each hit is one
 * stop, where the tracer writes the call or return into the same pool
 * chunks the in-process runtime would fill and sends the thread on through
 * an out-of-line copy of the instruction the breakpoint covers, so the
 * breakpoint never has to be lifted (other threads may run through it
 * meanwhile). Nothing on the program's stack changes: unwinders, debuggers
 * and a detach see the program as it is.
 *
 * The tracer is one process (a fork of the recorder, or of attach), the
 * only one that issues ptrace calls; it exits with the traced program's
 * status.
 */
#ifndef CT_PTRACE_TRACER_H
#define CT_PTRACE_TRACER_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "../common/pool.h"
#include "../util/util.h"

/* A breakpoint: an int3 over the first byte of an instruction, a brk over the whole of one. */
#define CT_PT_BREAK_MAX 4
struct ct_pt_bp {
	uint64_t addr;
	uint64_t ool; /* its out-of-line copy, 0: cannot run elsewhere (step over) */
	uint8_t orig[CT_PT_BREAK_MAX]; /* the bytes the breakpoint covers (CT_ARCH_BREAK_SIZE) */
	uint8_t flags;		       /* CT_BP_* */
	uint8_t len;		       /* length of the instruction */
};

#define CT_BP_ENTRY  1u /* a selected function starts here */
#define CT_BP_RETURN 2u /* some traced call returns here */
#define CT_BP_JUMP   4u /* longjmp and friends: frames below the target are gone */
#define CT_BP_CATCH  8u /* __cxa_begin_catch: frames below its caller are gone */
#define CT_BP_START  16u /* the program's entry point: its libraries are loaded */
#define CT_BP_LOADER 32u /* the loader's _dl_debug_state: a library came or went */
#define CT_BP_SIGRET 64u /* a signal handler returns here (its restorer) */
#define CT_BP_IMAGE  128u /* exec: the new image's first instruction, where it is armed */

/* Memory of ours in the tracee: out-of-line copies, the syscall stub. */
struct ct_pt_scratch {
	uint64_t base, used, size;
};

/* An address space: what threads, and vfork children, share. */
struct ct_pt_space {
	int refs;
	int memfd; /* /proc/PID/mem */
	pid_t pid; /* a process in it, for /proc/PID/maps */
	struct ct_pt_bp *bps;
	size_t nbps, capbps;
	struct ct_map bp_at; /* address -> index + 1 */
	struct ct_pt_scratch *scratch;
	size_t nscratch;
	uint64_t stub; /* "syscall; int3" (the arch's), for injected system calls; 0 until mapped */
	int left;      /* attach: breakpoints out, scratch unmapped */
	int no_inject; /* no thread may run a call of ours: breakpoints are stepped over */
	struct ct_map armed;  /* load bias + 1 of the modules given their breakpoints */
};

/* A call the tracer saw enter and not yet return. */
struct ct_pt_frame {
	uint64_t fn, slot, ret; /* the function, where its return address is, what it is */
};

struct ct_pt_proc;

/* A traced thread and its writer state: one chunk of the pool at a time. */
struct ct_pt_thread {
	pid_t tid;
	struct ct_pt_proc *proc;
	int32_t chunk; /* index, -1: none */
	uint64_t *pos, *end, *start;
	uint64_t thread_seq;
	struct ct_pt_frame *frames;
	size_t nframes, capframes;
	int pending_sig; /* a signal that arrived while we injected a call */
	int entering;	 /* a handler for this signal is about to run: step into it */
	uint8_t step;	 /* resume with a single step */
	uint8_t started; /* seen its first stop */
	uint8_t held;	 /* attach: stopped for good, to be let go */
	uint8_t released; /* attach: let run while a call of ours waited; to be stopped again */
	uint64_t dropped;  /* events dropped while the pool was starved, not yet told */
	int32_t lost_slot; /* their count in the pool: 1 + slot, 0 none yet, -1 none free */
};

struct ct_pt_proc {
	pid_t pid;
	uint32_t instance;
	struct ct_pt_space *space;
	/* announced in the PROCESS record */
	pid_t ppid, parent_tid;
	uint32_t parent_instance, exec_instance, flags;
	uint64_t fork_clock;
	int nthreads;	   /* traced threads alive in it */
	struct ct_buf modules; /* struct ct_ext_unload of the modules described */
	uint8_t described; /* PROCESS written */
	/* attach with the runtime (attach_rt.c): it runs in this process */
	uint8_t rt;
	uint64_t rt_stop;	 /* calltrace_attach_stop */
	uint64_t rt_lo, rt_hi;	 /* the runtime's code */
	uint64_t rt_buf, rt_len; /* our memory for arguments */
};

struct ct_tracer {
	struct ct_pool_ctl *ctl;
	struct ct_pool_geo geo; /* taken at the start, before the program could change the pool */
	int tsc;
	pid_t main_pid;	 /* the program (its status is ours) */
	int main_status; /* its wait status, once it ended */
	int main_done;
	struct ct_map threads; /* tid -> struct ct_pt_thread * */
	size_t nthreads;       /* alive */
	pid_t early[64];       /* threads whose first stop came before their creator's event */
	size_t nearly;
	int follow;   /* trace children too */
	int attached; /* attach: the process was running before us */
	int rt;	      /* attach: the runtime traces, we only watch (attach_rt.c) */
	/* a call we injected into t runs for long: attach lets the other threads run */
	void (*on_slow_call)(struct ct_tracer *tr, struct ct_pt_thread *t);
	size_t nreleased; /* threads it let run */
	uint64_t stops;
	volatile sig_atomic_t *stop_asked; /* attach: Ctrl-C, --duration, the recorder gone */
};

/* wait.c: waiting for one thread, bounded (a zombie or dead thread never reports) */
#define CT_PT_STOP_WAIT_MS 5000 /* for a stop we asked for (PTRACE_INTERRUPT, a single step) */
uint64_t ct_pt_now_ms(void);
/* 1 if tid has ended or is a zombie: it will report nothing more that we can wait for. */
int ct_pt_thread_dead(pid_t tid);
int ct_pt_stop_asked(const struct ct_tracer *tr);
/*
 * waitpid(tid, st, __WALL) that returns -1 with errno ESRCH once the thread is
 * dead or a zombie, ETIMEDOUT after timeout_ms, or EINTR when on_wait (called
 * every few milliseconds with the time waited so far) returns -1.
 */
pid_t ct_pt_wait_tid(struct ct_tracer *tr, pid_t tid, int *st, unsigned timeout_ms,
		     int (*on_wait)(struct ct_tracer *tr, pid_t tid, uint64_t waited_ms, void *arg),
		     void *arg);

/* emit.c: records into the pool, as the runtime writes them */
uint64_t ct_pt_clock(const struct ct_tracer *tr);
int ct_pt_emit_call(struct ct_tracer *tr, struct ct_pt_thread *t, unsigned kind, uint64_t fn,
		    uint64_t sp, uint64_t clock);
int ct_pt_emit_ext(struct ct_tracer *tr, struct ct_pt_thread *t, uint32_t type,
		   const void *payload, uint32_t len);
/* A mark (event.h): a stack pointer and maybe a small argument (a signal number). */
int ct_pt_emit_mark(struct ct_tracer *tr, struct ct_pt_thread *t, uint32_t type, uint32_t arg,
		    uint64_t sp);
void ct_pt_publish(struct ct_tracer *tr, struct ct_pt_thread *t, uint32_t flags);
void ct_pt_describe_process(struct ct_tracer *tr, struct ct_pt_thread *t);
void ct_pt_describe_modules(struct ct_tracer *tr, struct ct_pt_thread *t);

/* space.c: memory, breakpoints and scratch of an address space */
struct ct_pt_space *ct_pt_space_new(pid_t pid);
struct ct_pt_space *ct_pt_space_copy(const struct ct_pt_space *s, pid_t pid);
void ct_pt_space_put(struct ct_pt_space *s);
int ct_pt_read(struct ct_pt_space *s, uint64_t addr, void *buf, size_t len);
int ct_pt_write(struct ct_pt_space *s, uint64_t addr, const void *buf, size_t len);
struct ct_pt_bp *ct_pt_bp_find(struct ct_pt_space *s, uint64_t addr);
/* Set a breakpoint (or add flags to one there); NULL if the code cannot take one. */
struct ct_pt_bp *ct_pt_bp_set(struct ct_tracer *tr, struct ct_pt_thread *t, uint64_t addr,
			      uint8_t flags);
/*
 * A breakpoint with no out-of-line copy, set without a call of ours (none can
 * run yet): one the tracer removes at its first stop. NULL if there is one there.
 */
struct ct_pt_bp *ct_pt_bp_set_bare(struct ct_pt_space *s, uint64_t addr, uint8_t flags);
/* The original bytes back, the breakpoint forgotten. */
void ct_pt_bp_remove(struct ct_pt_space *s, struct ct_pt_bp *bp);
/* Forget breakpoints whose code is gone (dlclose), so a module mapped there later gets its own. */
void ct_pt_bp_forget_unmapped(struct ct_pt_space *s);
/* Take every breakpoint out (detach); 0 on success. */
int ct_pt_bp_clear_all(struct ct_pt_space *s);
/* Where an out-of-line copy of n bytes near addr can go; 0 if nowhere. */
uint64_t ct_pt_scratch_alloc(struct ct_tracer *tr, struct ct_pt_thread *t, uint64_t addr, size_t n);
/*
 * The return address of a function stopped at its first instruction, or of a
 * leaf that leaves it in place, from its registers (a ct_regs): in x30 on
 * aarch64, at the stack pointer on x86-64. 0, or -1 if unreadable.
 */
int ct_pt_return_address(struct ct_pt_space *s, const void *regs, uint64_t *ret);

/* inject.c: make a stopped thread run a system call of ours */
long ct_pt_inject_syscall(struct ct_tracer *tr, struct ct_pt_thread *t, long nr, const long *args,
			  int nargs);
/* A call of fn(args) in the thread, back at our breakpoint; *ok = 0 if it never came back. */
long ct_pt_inject_call(struct ct_tracer *tr, struct ct_pt_thread *t, uint64_t fn,
		       const uint64_t *args, int nargs, int *ok);
uint64_t ct_pt_inject_mmap(struct ct_tracer *tr, struct ct_pt_thread *t, uint64_t hint,
			   size_t len, int prot);

/* image.c: the modules of a process and their entry breakpoints */
#define CT_ARM_PROGRAM	 1 /* the executable */
#define CT_ARM_LIBRARIES 2 /* the libraries loaded so far */
int ct_pt_arm_image(struct ct_tracer *tr, struct ct_pt_thread *t, int what);
/* After dlopen or dlclose: modules gone said unloaded and their breakpoints forgotten. */
void ct_pt_forget_unloaded(struct ct_tracer *tr, struct ct_pt_thread *t);

/* A function of the module whose file's name starts with prefix; 0, or -1 if none. */
struct ct_pt_symbol {
	uint64_t addr;	       /* where it is in the process */
	uint64_t lo, hi, base; /* its module's mappings, load bias */
	char path[4096];
};
int ct_pt_find_function(struct ct_tracer *tr, struct ct_pt_thread *t, const char *prefix,
			const char *name, struct ct_pt_symbol *out);

/* proc.c: what /proc says */
int ct_pt_proc_open(pid_t pid, const char *name, int flags);
/* /proc/PID/NAME (or "task/TID/comm" ...) into buf; the bytes read. */
uint32_t ct_pt_proc_file(pid_t pid, const char *name, char *buf, uint32_t size);
/* The process's executable into buf, NUL-terminated (empty if unknown); its length. */
uint32_t ct_pt_exe(pid_t pid, char *buf, uint32_t size);
/* A field of /proc/TID/status ("TracerPid", "Tgid", "SigCgt" ...); 0, or -1 if absent. */
int ct_pt_status(pid_t tid, const char *field, unsigned long long *out);
/* The value of an auxiliary vector entry of the process (AT_ENTRY, AT_RANDOM ...); 0, or -1. */
int ct_pt_auxv(pid_t pid, uint64_t type, uint64_t *out);

/* unwind.c: the calls under way in each thread of p (stopped), outermost first */
typedef void (*ct_open_calls_fn)(struct ct_tracer *tr, struct ct_pt_thread *t,
				 const struct ct_pt_frame *frames, size_t n, void *arg);
int ct_pt_open_calls(struct ct_tracer *tr, struct ct_pt_proc *p, ct_open_calls_fn fn, void *arg);
/* How far into its function (by p's symbols) each pc is: UINT64_MAX if in none; -1 on failure. */
int ct_pt_function_offsets(struct ct_pt_proc *p, const uint64_t *pc, size_t n, uint64_t *off);

/* stops.c: one stop of a thread */
/* A call the tracer follows from now on (entered, or under way at the attach). */
void ct_pt_push_frame(struct ct_pt_thread *t, uint64_t fn, uint64_t slot, uint64_t ret);
/* Handle the stop waitpid reported; the signal to resume the thread with, -1: leave it stopped. */
int ct_pt_on_stop(struct ct_tracer *tr, struct ct_pt_thread *t, int status);
void ct_pt_resume(struct ct_pt_thread *t, int sig);

/* procs.c: threads and processes coming and going */
struct ct_pt_thread *ct_pt_thread_get(struct ct_tracer *tr, pid_t tid);
struct ct_pt_thread *ct_pt_thread_add(struct ct_tracer *tr, pid_t tid, struct ct_pt_proc *p);
struct ct_pt_proc *ct_pt_proc_add(struct ct_tracer *tr, pid_t pid, struct ct_pt_space *space);
/* One thread fewer in p: freed with the last. */
void ct_pt_proc_unref(struct ct_pt_proc *p);
/* A thread ended (waitpid said so): its last chunk goes to the recorder. */
void ct_pt_thread_gone(struct ct_tracer *tr, struct ct_pt_thread *t);
/* attach: a thread let go, still running: its chunk goes to the recorder, no end said. */
void ct_pt_thread_detached(struct ct_tracer *tr, struct ct_pt_thread *t);
/* A ptrace event (fork, vfork, clone, exec); the signal to resume with, -1: leave it stopped. */
int ct_pt_on_event(struct ct_tracer *tr, struct ct_pt_thread *t, int event);
/* A new image in t's process (exec, or the program's start): breakpoints in. */
void ct_pt_new_image(struct ct_tracer *tr, struct ct_pt_thread *t);
/* A thread stopped before we knew it (its creator's event comes later). */
void ct_pt_early_stop(struct ct_tracer *tr, pid_t tid, int status);

/* attach_main.c: the threads a slow call let run are stopped again */
void ct_pt_stop_released(struct ct_tracer *tr);

/* attach_rt.c: attach with the runtime */
struct ct_attach_opts;
/* Load and start the runtime in t's process (every thread stopped); 0, or -1 with err. */
int ct_pt_rt_load(struct ct_tracer *tr, struct ct_pt_thread *t, const struct ct_attach_opts *o,
		  char *err, size_t errlen);
int ct_pt_rt_on_event(struct ct_tracer *tr, struct ct_pt_thread *t, int event);
/* A stop while the runtime traces: the signal to resume with. */
int ct_pt_rt_on_stop(struct ct_tracer *tr, struct ct_pt_thread *t, int status);
/* Every thread stopped: the runtime of every process stopped, its changes undone. */
void ct_pt_rt_leave(struct ct_tracer *tr);
/*
 * The next thread of p from *pos on whose registers (a ct_regs, arch/ptrace_arch.h)
 * could be read into *regs; NULL when there is none left.
 */
struct ct_pt_thread *ct_pt_next_with_regs(struct ct_tracer *tr, struct ct_pt_proc *p, size_t *pos,
					  void *regs);
/* Is t, whose registers are regs (a ct_regs), stopped in a system call? */
int ct_pt_in_syscall(struct ct_pt_thread *t, const void *regs);

#endif
