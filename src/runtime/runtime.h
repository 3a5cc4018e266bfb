/* SPDX-License-Identifier: MIT */
/*
 * Internals of libcalltrace.so, the part of calltrace that lives inside the
 * traced process: what every room of src/runtime/ shares. Each room has
 * its own header for the rest:
 *
 *   hotpath/  hotpath.h  the hooks, the chunks and the ring they write to
 *   methods/  methods.h  fentry, patching in memory, library calls
 *   process/  process.h  following the process: exec, fork, modules, signals
 *   modes/    modes.h    attach, standalone, the API
 *   args/     args.h     arguments and return values (record -a)
 *
 * Everything here is async-signal-safe: no malloc, no lock. The hot path
 * (hotpath/hooks.c) does no syscall either; the slow path (hotpath/thread.c)
 * runs once per chunk, with signals blocked.
 */
#ifndef CT_RUNTIME_H
#define CT_RUNTIME_H

#include <pthread.h>
#include <stdint.h>
#include <stddef.h>

#include "../common/event.h"
#include "../common/pool.h"
#include "../arch/arch.h"

#define CT_HIDDEN      __attribute__((visibility("hidden")))
#define CT_EXPORT      __attribute__((visibility("default")))
#define CT_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define ct_likely(x)   __builtin_expect(!!(x), 1)
#define ct_unlikely(x) __builtin_expect(!!(x), 0)

/* Added to ct_thread.nest while a full chunk waits for its interrupted writer. */
#define CT_NEST_PENDING (1L << 40)
#define CT_MAX_PENDING	8

/* Per-thread state, in initial-exec TLS so the hooks reach it in one load. */
struct ct_thread {
	uint64_t *pos; /* next free slot; reserved with one xadd */
	uint64_t *end; /* end of the owned chunk */
	long nest;     /* hooks in progress (a signal can interrupt a hook) */
	struct ct_shadow_frame *shadow; /* the open calls (shadow.h) */
	uint32_t sdepth;		/* how many: the ring keeps the innermost */
	uint32_t resume_from;		/* paused: calls from this depth on are unseen */
	uint8_t gate;			/* CT_GATE_*: 0 while tracing is on */
	uint8_t shadow_gone;		/* the thread ended: no shadow stack again */
	uint8_t unhooked;		/* fentry: an unwind has the real return addresses */
	uint32_t scap;			/* frames the shadow stack holds (fentry, patch) */
	uint64_t *start;
	int32_t chunk; /* owned chunk + 1: 0 for none (fresh TLS is zero) */
	int32_t tid;
	int32_t pid;
	uint32_t ring_count; /* flight recorder: chunks in this thread's ring */
	int32_t ring_head;   /* its oldest chunk + 1 (0: none) */
	int32_t ring_tail;   /* its newest chunk + 1 */
	uint64_t thread_seq;
	uint64_t lost;	   /* events dropped and not yet told, when no lost slot was free */
	int32_t lost_slot; /* lossy mode: this thread's slot + 1 (0: none yet, -1: none free) */
	uint8_t key_armed;
	uint8_t in_slow; /* the slow path called code that is itself traced */
	uint8_t in_ring;  /* the owned chunk is one of the ring's: it is kept, not published */
	uint8_t dropping; /* lossy mode: no chunk was free, events are counted, not written */
	uint8_t npending;
	uint8_t in_slowpath;   /* in ct_enter_slow..ct_leave_slow: maybe stopped in libc there */
	uint8_t reset_pending; /* attach's stop found us in_slowpath: the shadow stack goes later */
	int32_t pending[CT_MAX_PENDING]; /* full chunks an interrupted hook may still write to */
};

/*
 * The thread lets go of all it held in a pool: its chunks (owned, pending,
 * its ring), its lost-event slot and count, its chunk sequence (the next
 * pool counts from 0). Its identity, shadow stack, gate and hooks in
 * progress stay. For a live thread whose pool went: a fork's child (which
 * then forgets its ids too), attach's stop. A field added to struct
 * ct_thread is reset here or said to stay (tests/unit/test_thread_state.c).
 */
static inline void ct_thread_leave_pool(struct ct_thread *t)
{
	t->pos = t->end = t->start = NULL;
	t->chunk = 0;
	t->in_ring = 0;
	t->ring_head = t->ring_tail = 0;
	t->ring_count = 0;
	t->nest &= CT_NEST_PENDING - 1; /* the pending chunks were the old pool's */
	t->npending = 0;
	t->thread_seq = 0;
	t->lost = 0;
	t->lost_slot = 0;
	t->dropping = 0;
}

/* ct_thread.gate */
#define CT_GATE_OFF    1 /* calltrace_disable() */
#define CT_GATE_PAUSED 2 /* events were left out: say where tracing resumes */

/* Runtime states (ct_state). */
enum { CT_RT_NEW, CT_RT_STARTING, CT_RT_READY, CT_RT_OFF };

/* hotpath/hooks.c: this thread's state */
extern __thread struct ct_thread ct_self __attribute__((tls_model("initial-exec"))) CT_HIDDEN;

/* init.c: the runtime's state, set up once per process image */
extern struct ct_pool_ctl *ct_ctl CT_HIDDEN;

/*
 * The pool's geometry, read once when the pool is mapped and checked against
 * the file's size. The program can write the pool, so the runtime takes every
 * address in it from this copy, never from the control area again.
 */
extern struct ct_pool_geo ct_geo CT_HIDDEN;
extern _Atomic int ct_state CT_HIDDEN;
extern uint32_t ct_instance CT_HIDDEN;
extern pthread_key_t ct_key CT_HIDDEN;
extern int ct_paused_all CT_HIDDEN; /* calltrace_disable_all() (modes/api.c) */

/* init.c: start: 0 if tracing */
int ct_init(void) CT_HIDDEN;
/* hotpath/thread.c: ct_init() from anywhere (a hook's cold path, the API): 0 if tracing */
int ct_init_outside(void) CT_HIDDEN;
/* init.c: attach again after a stop: the process is announced anew, to a new pool */
void ct_init_again(void) CT_HIDDEN;
/* init.c: the process record; 1 if written */
int ct_announce_process(struct ct_thread *t) CT_HIDDEN;
/* init.c: the process is not announced yet, or the loader added modules */
int ct_needs_describing(void) CT_HIDDEN;
/* init.c: what the destructor says, said before _exit or quick_exit */
void ct_before_exit(void) CT_HIDDEN;

/* init.c: the clock events carry: the TSC where it can be trusted */
extern int ct_clock_tsc CT_HIDDEN;
uint64_t ct_clock_slow(void) CT_HIDDEN;

static inline uint64_t ct_clock(void)
{
	if (ct_likely(ct_clock_tsc))
		return ct_arch_clock();
	return ct_clock_slow();
}

/* hotpath/thread.c: an extended record from anywhere outside the hooks (signals blocked inside) */
void ct_emit_ext(uint32_t type, const void *payload, uint32_t len, int must) CT_HIDDEN;

/* settings.c: loaded by calltrace attach (as libcalltrace-attach.so) */
extern int ct_attached CT_HIDDEN; /* calltrace_attach_start ran */
int ct_attach_loaded(void) CT_HIDDEN;
/* attach's settings replace the environment's: 0, or -EINVAL if they do not fit */
int ct_attach_settings(const char *conf, long len) CT_HIDDEN;
/* Our configuration: the environment, or what attach gave us. */
const char *ct_getenv(const char *name) CT_HIDDEN;
/* The real function we stand in front of. */
void *ct_next_symbol(const char *name) CT_HIDDEN;
/*
 * The program's executable: /proc/self/exe, or through this thread once the main
 * thread has exited (self/exe is gone then). qemu-user answers self/exe with
 * the guest program, thread-self/exe with itself.
 */
const char *ct_self_exe(void) CT_HIDDEN;
/*
 * setuid, setgid, or file capabilities that lift the user who ran it: the
 * environment is that user's choice, so the runtime obeys none of it.
 */
int ct_secure_exec(void) CT_HIDDEN;

#endif
