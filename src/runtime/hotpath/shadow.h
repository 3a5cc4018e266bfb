/* SPDX-License-Identifier: MIT */
/*
 * The shadow stack: each thread's open calls, function and stack pointer,
 * kept by the hooks themselves. calltrace_backtrace() reads it (no unwinding,
 * so it works in a signal handler and with every method), and when tracing
 * comes back on after calltrace_disable() it says which calls were entered
 * meanwhile.
 *
 * It holds CT_SHADOW_CAP frames, in memory mapped once per thread and
 * touched only as deep as calls go; deeper calls are counted, not kept (so a
 * deep recursion leaves the outer frames intact). The stack pointers keep it
 * right when calls end without their exit hook (longjmp, clang's exceptions,
 * a tail-called exit hook): a frame below the stack pointer of a new call has
 * ended. A signal handler's frames sit above a barrier frame (a pseudo
 * address) that such pruning never crosses, for a handler on an alternate
 * stack may have its stack pointer above the interrupted calls'.
 */
#ifndef CT_RUNTIME_SHADOW_H
#define CT_RUNTIME_SHADOW_H

#include "../runtime.h"

#define CT_SHADOW_CAP 65536u
#define CT_SHADOW_LATE 16u /* after the thread's end (shadow.c) */

struct ct_shadow_frame {
	uintptr_t fn;
	uintptr_t sp;
	uintptr_t ret; /* fentry: the real return address we replaced (0: none) */
	uintptr_t ci;  /* fentry: its capture index (args.h), for its return value */
};

/* shadow.c */
/* method: CT_METHOD_* of the hook that calls (the pool says which were used) */
struct ct_shadow_frame *ct_shadow_alloc(struct ct_thread *t, uint32_t method) CT_HIDDEN;
void ct_shadow_free(struct ct_thread *t) CT_HIDDEN;
/* A jump or a catch lands in the frame at sp: the frames below it are gone. */
void ct_shadow_land(struct ct_thread *t, uintptr_t sp) CT_HIDDEN;
/* A signal handler begins (returns the depth to restore when it ends). */
uint32_t ct_shadow_signal(struct ct_thread *t, int sig, uintptr_t sp) CT_HIDDEN;
void ct_shadow_restore(struct ct_thread *t, uint32_t depth) CT_HIDDEN;

/* How many of the thread's open calls are kept (deeper ones are only counted). */
static inline uint32_t ct_shadow_kept(const struct ct_thread *t)
{
	return t->sdepth < t->scap ? t->sdepth : t->scap;
}

static inline int ct_shadow_prunable(const struct ct_shadow_frame *f, uintptr_t sp)
{
	return f->sp < sp && f->fn < CT_PSEUDO_BASE;
}

/* fentry.S: where a hijacked return goes */
void ct_return_trampoline(void) CT_HIDDEN;

/*
 * The areas of dynamic patching's trampolines (dynpatch.c): a traced
 * function whose return address points into one returns through its
 * trampoline's landing (src/arch/x86_64/relocate.h), which the trampoline's
 * own call wrote there. Only appended to while the modules are patched (and
 * forgotten at a new attach); read by the hooks without a lock.
 */
#define CT_LANDING_AREAS 512
struct ct_landing_area {
	uintptr_t lo, len;
};
extern struct ct_landing_area ct_landing_areas[CT_LANDING_AREAS] CT_HIDDEN;
extern _Atomic uint32_t ct_nlanding_areas CT_HIDDEN;

/* Is a return address one we put there: the return trampoline, or a trampoline's landing? */
static inline __attribute__((always_inline)) int ct_is_return_landing(uintptr_t a)
{
	if (a == (uintptr_t)ct_return_trampoline)
		return 1;
	const struct ct_landing_area *p = ct_landing_areas;
	const struct ct_landing_area *end = p + __atomic_load_n(&ct_nlanding_areas, __ATOMIC_ACQUIRE);
	for (; p < end; p++)
		if (a - p->lo < p->len)
			return 1;
	return 0;
}

/*
 * An entry whose return address is at slot (its sp), with d frames open:
 * frames below the slot are gone (a jump we did not see), and so is one at
 * it, unless it is still ours: a tail call, the callee returning in the
 * caller's place (both end when it returns; asked only when a frame is at
 * the slot). The new frame keeps the real return address; the caller puts
 * where it returns to in the slot (ct_shadow_hijack). Returns the frame's
 * index. The fast hooks (built general-registers-only) and the full ones
 * share it. ct_shadow_open_at: the frame's key sp and its return address
 * apart (aarch64's -pg, whose return address is in the frame record).
 */
static inline __attribute__((always_inline)) uint32_t
ct_shadow_open_at(struct ct_thread *t, struct ct_shadow_frame *s, uint32_t d, uintptr_t sp,
		  uintptr_t ret, uintptr_t fn, uintptr_t ci)
{
	/* the common case: called by the innermost open call (or by a barrier) */
	if (ct_unlikely(d && s[d - 1].sp <= sp && s[d - 1].fn < CT_PSEUDO_BASE)) {
		while (d && s[d - 1].fn < CT_PSEUDO_BASE && s[d - 1].sp < sp)
			d--;
		if (d && s[d - 1].fn < CT_PSEUDO_BASE && s[d - 1].sp == sp &&
		    !ct_is_return_landing(ret))
			while (d && s[d - 1].fn < CT_PSEUDO_BASE && s[d - 1].sp <= sp)
				d--;
	}
	t->sdepth = d + 1;
	__asm__ volatile("" ::: "memory");
	s[d].fn = fn;
	s[d].sp = sp;
	s[d].ret = ret;
	s[d].ci = ci;
	return d;
}

static inline __attribute__((always_inline)) uint32_t
ct_shadow_open(struct ct_thread *t, struct ct_shadow_frame *s, uint32_t d, uintptr_t *slot,
	       uintptr_t fn, uintptr_t ci)
{
	return ct_shadow_open_at(t, s, d, (uintptr_t)slot, *slot, fn, ci);
}

/* ct_shadow_open, the slot then going to the return trampoline. */
static inline __attribute__((always_inline)) uint32_t
ct_shadow_hijack(struct ct_thread *t, struct ct_shadow_frame *s, uint32_t d, uintptr_t *slot,
		 uintptr_t fn, uintptr_t ci)
{
	d = ct_shadow_open(t, s, d, slot, fn, ci);
	*slot = (uintptr_t)ct_return_trampoline;
	return d;
}

/* A call begins: returns its depth. */
static inline __attribute__((always_inline)) uint32_t
ct_shadow_enter(struct ct_thread *t, uintptr_t fn, uintptr_t sp)
{
	struct ct_shadow_frame *s = t->shadow;
	if (ct_unlikely(!s) && !(s = ct_shadow_alloc(t, CT_METHOD_FINSTRUMENT)))
		return 0;
	/*
	 * The frames it holds: a thread's own (CT_SHADOW_CAP), or the few in TLS
	 * that a method which replaces return addresses was given after the
	 * thread's end (shadow.c), which our pushes must not run past either.
	 */
	uint32_t d = t->sdepth, cap = t->scap;
	if (ct_likely(d <= cap))
		while (d && ct_shadow_prunable(&s[d - 1], sp))
			d--;
	/* depth first: a handler that interrupts us must not write our slot */
	t->sdepth = d + 1;
	__asm__ volatile("" ::: "memory");
	if (ct_likely(d < cap)) {
		s[d].fn = fn;
		s[d].sp = sp;
		s[d].ret = 0;
	}
	return d;
}

/*
 * The stack pointer an exit hook that the compiler tail-called records. The
 * function's frame is gone, so the hook runs at its caller's stack pointer,
 * where its return would not pair with its call: not in the recorder's
 * encoding (a return that is not the newest open call's costs a code), nor
 * at once for the builder (which matches it by its parent's stack pointer).
 * It takes the stack pointer of the call it ends instead, as the exit hook
 * of a function that kept its frame would have: the newest open call of the
 * function whose parent's stack pointer is at or above the hook's (the
 * builder's rule), among the frames the hook's is above. A tail call is
 * certain: the hook then returns where the function would have (its return
 * address is call_site), which a hook called in the function's body never
 * does.
 */
uintptr_t ct_shadow_tail_sp_below(const struct ct_thread *t, uintptr_t fn, uintptr_t sp) CT_HIDDEN;

static inline __attribute__((always_inline)) uintptr_t
ct_shadow_tail_sp(const struct ct_thread *t, uintptr_t fn, uintptr_t sp)
{
	const struct ct_shadow_frame *s = t->shadow;
	uint32_t d = t->sdepth;

	if (ct_unlikely(!s || d - 1 >= t->scap)) /* none open, or the newest not kept */
		return sp;
	/* most often the newest, its caller's frame at or above the hook's */
	const struct ct_shadow_frame *f = &s[d - 1];
	if (ct_likely(f->fn == fn && f->sp < sp && (d == 1 || f[-1].sp >= sp)))
		return f->sp;
	return ct_shadow_tail_sp_below(t, fn, sp);
}

/* A call ends: returns the depth left. */
static inline __attribute__((always_inline)) uint32_t
ct_shadow_exit(struct ct_thread *t, uintptr_t fn, uintptr_t sp)
{
	struct ct_shadow_frame *s = t->shadow;
	if (ct_unlikely(!s))
		return 0;
	uint32_t d = t->sdepth;
	if (ct_unlikely(d > t->scap)) { /* a frame that was counted, not kept */
		t->sdepth = d - 1;
		return d - 1;
	}
	while (d && ct_shadow_prunable(&s[d - 1], sp))
		d--;
	if (d && s[d - 1].fn == fn)
		d--;
	t->sdepth = d;
	return d;
}

#endif
