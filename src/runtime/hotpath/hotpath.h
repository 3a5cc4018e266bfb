/* SPDX-License-Identifier: MIT */
/*
 * The hot path: the hooks (hooks.c) write a thread's events into the chunk
 * it owns; when the chunk is full, the slow path (thread.c) publishes it and
 * takes another, from the free stack or the thread's ring (ring.c), or
 * counts what it must drop (lost.c).
 */
#ifndef CT_RUNTIME_HOTPATH_H
#define CT_RUNTIME_HOTPATH_H

#include "../runtime.h"

static inline uint64_t *ct_rt_chunk(uint32_t idx)
{
	return ct_geo_chunk(ct_ctl, &ct_geo, idx);
}

static inline struct ct_lost_slot *ct_rt_lost_slots(void)
{
	return ct_geo_lost_slots(ct_ctl, &ct_geo);
}

/* hooks.c: a call's entry or exit, from another method's hooks (fentry) */
void ct_emit_event(uint64_t kind, uintptr_t fn, uintptr_t sp) CT_HIDDEN;
/* hooks.c: a mark (CT_EXT_JUMP, CT_EXT_CATCH) at stack pointer sp, as cheap as a call */
void ct_mark(uint32_t type, uintptr_t sp) CT_HIDDEN;
/* the same even while tracing is off for the thread */
void ct_mark_always(uint32_t type, uintptr_t sp) CT_HIDDEN;
/* the same with a small argument (a signal number) */
void ct_mark_arg(uint32_t type, uint32_t arg, uintptr_t sp) CT_HIDDEN;

/* ../modes/api.c: tracing is off for this thread or process: 0 to leave the event out */
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

/* thread.c: the hooks' other half: the chunk is full, or there is none yet */
void ct_slow_record(struct ct_thread *t, uint64_t w1, uintptr_t sp) CT_HIDDEN;
/* The same for an event followed by an extended record: nwords in all, rec[0..1] the event. */
void ct_slow_record_words(struct ct_thread *t, const uint64_t *rec, uint32_t nwords) CT_HIDDEN;
/* thread.c: the outermost hook finished: publish the chunks held back for it */
void ct_after_nested(struct ct_thread *t) CT_HIDDEN;
/* thread.c: hooks a signal handler interrupted will not finish (it longjmps out) */
void ct_abandon_hooks(struct ct_thread *t) CT_HIDDEN;
/* thread.c: an extended record (signals blocked by the caller); must: wait for a chunk */
int ct_write_ext(struct ct_thread *t, uint32_t type, const void *payload, uint32_t len,
		 int must) CT_HIDDEN;
/* thread.c: say what was dropped, now (signals blocked by the caller) */
void ct_flush_lost(struct ct_thread *t) CT_HIDDEN;

/* thread.c: pop a free chunk; -1 if none, or if the free stack is damaged (tracing stops) */
int64_t ct_rt_pop_free(struct ct_pool_ctl *ctl) CT_HIDDEN;
/* thread.c: learn the thread's tid and pid */
void ct_identify(struct ct_thread *t) CT_HIDDEN;
/* thread.c: make chunk idx the thread's current one (signals blocked) */
void ct_make_current(struct ct_thread *t, uint32_t idx, int in_ring) CT_HIDDEN;
/* thread.c: ct_thread_end() will run at the thread's end */
void ct_arm_thread_end(struct ct_thread *t) CT_HIDDEN;
void ct_thread_end(struct ct_thread *t) CT_HIDDEN;

/* thread.c: describe modules the loader added, now (not in a signal handler) */
void ct_describe_modules(void) CT_HIDDEN;
/* thread.c: a record, then the chunk handed over: the image is about to be replaced */
void ct_before_image_change(uint32_t type, const void *payload, uint32_t len) CT_HIDDEN;

/* thread.c, for attach: another thread's chunks, every thread stopped outside our code */
void ct_attach_publish(struct ct_thread *t) CT_HIDDEN;
int ct_attach_write_for(struct ct_thread *t, int32_t tid, uint32_t type, const void *payload,
			uint32_t len) CT_HIDDEN;
void ct_attach_describe(void) CT_HIDDEN;

/* ring.c: the flight recorder */
int ct_ring_next(struct ct_thread *t) CT_HIDDEN;
void ct_install_snapshot_signal(void) CT_HIDDEN;

/* lost.c: lossy mode's count of dropped events, in shared memory */
void ct_drop(struct ct_thread *t, uint64_t n) CT_HIDDEN;
uint64_t ct_untold(struct ct_thread *t) CT_HIDDEN;
void ct_told(struct ct_thread *t, uint64_t n) CT_HIDDEN;

#endif
