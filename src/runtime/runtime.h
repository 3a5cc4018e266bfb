/* SPDX-License-Identifier: MIT */
/*
 * Internals of libcalltrace.so, the part of calltrace that lives inside the
 * traced process. Everything here is async-signal-safe: no malloc, no lock.
 * The hot path (hooks.c) does no syscall either; the slow path (thread.c) runs
 * once per chunk, with signals blocked.
 */
#ifndef CT_RUNTIME_H
#define CT_RUNTIME_H

#include <pthread.h>
#include <stdint.h>
#include <stddef.h>

#include "../common/event.h"
#include "../common/pool.h"
#include "../arch/x86_64/arch.h"

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

extern __thread struct ct_thread ct_self __attribute__((tls_model("initial-exec"))) CT_HIDDEN;
extern struct ct_pool_ctl *ct_ctl CT_HIDDEN;

/*
 * The pool's geometry, read once when the pool is mapped and checked against
 * the file's size. The program can write the pool, so the runtime takes every
 * address in it from this copy, never from the control area again.
 */
extern struct ct_pool_geo ct_geo CT_HIDDEN;

static inline uint64_t *ct_rt_chunk(uint32_t idx)
{
	return ct_geo_chunk(ct_ctl, &ct_geo, idx);
}

static inline struct ct_lost_slot *ct_rt_lost_slots(void)
{
	return ct_geo_lost_slots(ct_ctl, &ct_geo);
}

/* thread.c: pop a free chunk; -1 if none, or if the free stack is damaged (tracing stops) */
int64_t ct_rt_pop_free(struct ct_pool_ctl *ctl) CT_HIDDEN;
extern int ct_clock_tsc CT_HIDDEN;
extern _Atomic int ct_state CT_HIDDEN;
extern uint32_t ct_instance CT_HIDDEN;
extern pthread_key_t ct_key CT_HIDDEN;
extern int ct_paused_all CT_HIDDEN; /* calltrace_disable_all() */

/* thread.c */
void ct_slow_record(struct ct_thread *t, uint64_t w1, uintptr_t sp) CT_HIDDEN;
/* The same for an event followed by an extended record: nwords in all, rec[0..1] the event. */
void ct_slow_record_words(struct ct_thread *t, const uint64_t *rec, uint32_t nwords) CT_HIDDEN;

/* hooks.c: a call's entry or exit, from another method's hooks (fentry) */
void ct_emit_event(uint64_t kind, uintptr_t fn, uintptr_t sp) CT_HIDDEN;
/* fentry.c: C++ unwinding reads return addresses from the stack */
void ct_fentry_unhook(struct ct_thread *t) CT_HIDDEN;
void ct_fentry_rehook(struct ct_thread *t) CT_HIDDEN;

/* hooks.c: a mark (CT_EXT_JUMP, CT_EXT_CATCH) at stack pointer sp, as cheap as a call */
void ct_mark(uint32_t type, uintptr_t sp) CT_HIDDEN;
/* the same even while tracing is off for the thread */
void ct_mark_always(uint32_t type, uintptr_t sp) CT_HIDDEN;
/* the same with a small argument (a signal number) */
void ct_mark_arg(uint32_t type, uint32_t arg, uintptr_t sp) CT_HIDDEN;

/* thread.c: hooks a signal handler interrupted will not finish (it longjmps out) */
void ct_abandon_hooks(struct ct_thread *t) CT_HIDDEN;

/* thread.c: ct_thread_end() will run at the thread's end */
void ct_arm_thread_end(struct ct_thread *t) CT_HIDDEN;
/* thread.c: ct_init() from anywhere (a hook's cold path, the API): 0 if tracing */
int ct_init_outside(void) CT_HIDDEN;

/* thread.c: learn the thread's tid and pid */
void ct_identify(struct ct_thread *t) CT_HIDDEN;

/* thread.c: make chunk idx the thread's current one (signals blocked) */
void ct_make_current(struct ct_thread *t, uint32_t idx, int in_ring) CT_HIDDEN;

/* api.c: tracing is off for this thread or process: 0 to leave the event out */
int ct_gate_open(struct ct_thread *t) CT_HIDDEN;

/* True if tracing is off here: the event is left out. */
static inline __attribute__((always_inline)) int ct_gated(struct ct_thread *t)
{
	return ct_unlikely(t->gate | __atomic_load_n(&ct_paused_all, __ATOMIC_RELAXED)) &&
	       !ct_gate_open(t);
}

/* An event left out reached depth: calls from there on are unseen. */
static inline void ct_paused_at(struct ct_thread *t, uint32_t depth)
{
	if (depth < t->resume_from)
		t->resume_from = depth;
}

/* ring.c: the flight recorder */
int ct_ring_next(struct ct_thread *t) CT_HIDDEN;
void ct_install_snapshot_signal(void) CT_HIDDEN;

/* thread.c: an extended record from outside the hooks (signals blocked inside) */
void ct_emit_ext(uint32_t type, const void *payload, uint32_t len, int must) CT_HIDDEN;

/* lost.c: lossy mode's count of dropped events, in shared memory */
void ct_drop(struct ct_thread *t, uint64_t n) CT_HIDDEN;
uint64_t ct_untold(struct ct_thread *t) CT_HIDDEN;
void ct_told(struct ct_thread *t, uint64_t n) CT_HIDDEN;

/* crash.c: record fatal signals the program leaves at their default action */
struct sigaction;
void ct_install_crash_handlers(void) CT_HIDDEN;
/* Fill sa with our crash handler if sig is fatal and we record crashes; 1 if so. */
int ct_crash_action(int sig, struct sigaction *sa) CT_HIDDEN;
int ct_is_crash_handler(const struct sigaction *sa) CT_HIDDEN;

/* signal.c: the C library's sigaction, past our own */
int ct_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old) CT_HIDDEN;

/* interpose.c */
void ct_resolve_interposed(void) CT_HIDDEN;
void ct_after_nested(struct ct_thread *t) CT_HIDDEN;
int ct_write_ext(struct ct_thread *t, uint32_t type, const void *payload, uint32_t len,
		 int must) CT_HIDDEN;
void ct_thread_end(struct ct_thread *t) CT_HIDDEN;
/* attach (thread.c): another thread's chunks, every thread stopped outside our code */
void ct_attach_publish(struct ct_thread *t) CT_HIDDEN;
int ct_attach_write_for(struct ct_thread *t, int32_t tid, uint32_t type, const void *payload,
			uint32_t len) CT_HIDDEN;
void ct_attach_describe(void) CT_HIDDEN;
void ct_flush_lost(struct ct_thread *t) CT_HIDDEN;

/* init.c */
int ct_init(void) CT_HIDDEN;
/* attach again after a stop: the process is announced anew, to a new pool */
void ct_init_again(void) CT_HIDDEN;
/* Both return 1 if they wrote records. */
int ct_announce_process(struct ct_thread *t) CT_HIDDEN;
int ct_check_modules(struct ct_thread *t, int force) CT_HIDDEN;
/* init.c: the process is not announced yet, or the loader added modules */
int ct_needs_describing(void) CT_HIDDEN;
/* init.c: what the destructor says, said before _exit or quick_exit */
void ct_before_exit(void) CT_HIDDEN;
/* modules.c: the runtime range of a module's executable segments; 0 if it has none */
struct dl_phdr_info;
int ct_module_range(const struct dl_phdr_info *info, uint64_t *lo, uint64_t *hi) CT_HIDDEN;

/* patch.c: patchable entries of the modules not looked at yet become calls */
void ct_patch_modules(int may_allocate) CT_HIDDEN;
void ct_patch_forget(void) CT_HIDDEN; /* after dlclose: look at every module again */
/* modules.c */
int ct_modules_changed(void) CT_HIDDEN;
void ct_modules_forget(void) CT_HIDDEN;
/* thread.c: describe modules the loader added, now (not in a signal handler) */
void ct_describe_modules(void) CT_HIDDEN;
/* thread.c: a record, then the chunk handed over: the image is about to be replaced */
void ct_before_image_change(uint32_t type, const void *payload, uint32_t len) CT_HIDDEN;
/* standalone.c: no recorder started us; start one */
int ct_standalone_wanted(void) CT_HIDDEN;
const char *ct_standalone_start(void) CT_HIDDEN; /* the pool's path, or NULL */
void ct_standalone_join(int execed) CT_HIDDEN;
void ct_standalone_fork(int delta) CT_HIDDEN;
void ct_standalone_after_fork(void) CT_HIDDEN;
void ct_standalone_leave(void) CT_HIDDEN;
/* process.c: keep the variables an exec'd image needs, at start */
void ct_remember_env(void) CT_HIDDEN;
/* names.c: this thread can be found by its pthread_t */
void ct_register_thread(int32_t tid) CT_HIDDEN;
void ct_unregister_thread(void) CT_HIDDEN;
/* names.c: every thread we know lets go of its chunk (the pool is about to go) */
void ct_forget_chunks_of_all_threads(void) CT_HIDDEN;
uint64_t ct_clock_slow(void) CT_HIDDEN;

static inline uint64_t ct_clock(void)
{
	if (ct_likely(ct_clock_tsc))
		return ct_arch_clock();
	return ct_clock_slow();
}

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
 * setuid, setgid, or file capabilities that lift the user who ran it: the
 * environment is that user's choice, so the runtime obeys none of it.
 */
int ct_secure_exec(void) CT_HIDDEN;

/* attach.c: Attached: remember the len bytes at addr before we change them (data: a GOT slot). */
void ct_undo_save(uintptr_t addr, size_t len, int data) CT_HIDDEN;
/* Attached: memory of ours for code, to unmap once tracing stopped. */
void ct_attach_note_area(void *addr, size_t len) CT_HIDDEN;
/* patch.c: every module is looked at again (attach again: the code is as it was) */
void ct_patch_forget_all(void) CT_HIDDEN;

/* capture.c: field n (1-based, as proc(5) numbers them) of /proc/self/stat; 0 if unreadable */
uint64_t ct_self_stat_field(int n);

/* modules.c: the module's GNU build-id note in memory (len bytes), or NULL */
struct dl_phdr_info;
const uint8_t *ct_module_build_id_note(const struct dl_phdr_info *info, uint32_t *len);

#endif
