/* SPDX-License-Identifier: MIT */
/*
 * The common case of the entry and return stubs (src/arch/x86_64/fentry.S),
 * in code that touches no vector or x87 register: this file is built with
 * -mgeneral-regs-only and calls nothing, so the stubs save only the general
 * call-clobbered registers around it. Only when it says it cannot finish (a
 * capture, tracing off, no shadow stack yet, a full chunk, a nested hook
 * to tell) do the stubs save the vector registers too
 * and call fentry.c, which may run libc. A caller built with -fipa-ra keeps
 * its vector registers across the traced function either way.
 *
 * A "slow" answer is given before anything changed (but the frames of a
 * tail call already popped), so fentry.c does the rest; a "finish" answer after the shadow stack and the event's slot
 * are done, for ct_hook_finish to complete the event as ct_emit (hooks.c) would.
 */
#include "../runtime.h"
#include "hotpath.h"
#include "shadow.h"
#include "../args/args.h"
#include "../../arch/relocate.h"
#include "../../arch/patch.h"
#if defined(__aarch64__)
#include "../../arch/aarch64/prologue.h"
#endif

#if defined(__SSE__) || defined(__x87__) || defined(__MMX__)
#error "fasthook.c must be built with -mgeneral-regs-only (see the Makefile)"
#endif


/* What the stubs are told (kept in step with fentry.S). */
#define CT_HOOK_DONE	  0 /* the event is written */
#define CT_HOOK_SLOW	  1 /* nothing done: call fentry.c for the whole call */
#define CT_HOOK_RECORD	  2 /* the chunk was full: ct_slow_record the word at regs[9] */
#define CT_HOOK_NESTED	  3 /* written; a hook we interrupted has something to finish */
#define CT_HOOK_SPARE_REG 9 /* the unused word of the stubs' save area */
#define CT_HOOK_BY_SLOT	  4 /* or'ed in: the slot has the return trampoline (attach) */

struct ct_hook_answer {
	uint64_t status;
	uintptr_t ret; /* the return stub: the real return address */
};

uint64_t ct_fentry_enter_fast(uintptr_t *slot, uintptr_t call_site, uint64_t *regs) CT_HIDDEN;
uint64_t ct_mcount_enter_fast(uintptr_t *slot, uintptr_t call_site, uint64_t *regs) CT_HIDDEN;
uint64_t ct_patch_enter_fast(uintptr_t *slot, uintptr_t call_site, uint64_t *regs) CT_HIDDEN;
uint64_t ct_patch_call_enter_fast(uintptr_t *slot, uintptr_t call_site, uint64_t *regs) CT_HIDDEN;
struct ct_hook_answer ct_fentry_exit_fast(uintptr_t *slot, uint64_t *regs) CT_HIDDEN;
struct ct_hook_answer ct_patch_exit_fast(uintptr_t *slot, uint64_t *regs) CT_HIDDEN;

/* Tracing is on, with the clock we read inline: else the slow path decides. */
static inline __attribute__((always_inline)) int ct_fast_usable(const struct ct_thread *t)
{
	return !(t->gate | __atomic_load_n(&ct_paused_all, __ATOMIC_RELAXED)) && ct_clock_tsc;
}

/* ct_emit (hooks.c) up to where it would call out. */
static inline __attribute__((always_inline)) uint64_t ct_fast_emit(struct ct_thread *t, uint64_t w1,
								     uintptr_t sp, uint64_t *regs)
{
	ct_arch_inc(&t->nest);
	uint64_t clock = ct_arch_clock();
	uint64_t *p = ct_arch_reserve(&t->pos, 16);
	if (ct_unlikely((uintptr_t)p + 16 > (uintptr_t)t->end)) {
		regs[CT_HOOK_SPARE_REG] = w1;
		return CT_HOOK_RECORD; /* nest still held: ct_hook_finish lets it go */
	}
	p[0] = ct_ev_word0(clock, sp);
	p[1] = w1;
	return ct_unlikely(ct_arch_dec(&t->nest)) ? CT_HOOK_NESTED : CT_HOOK_DONE;
}

/*
 * ct_hijack_enter (fentry.c) for a call without a capture, tracing on; the
 * slot gets the return trampoline, or (by_call) is left to the caller: a
 * trampoline whose call puts its landing there (relocate.h).
 */
static inline __attribute__((always_inline)) uint64_t ct_fast_enter(uintptr_t *slot, uintptr_t fn,
								      uint64_t *regs, int by_call)
{
	struct ct_thread *t = &ct_self;
	uintptr_t sp = (uintptr_t)slot;
	struct ct_shadow_frame *s = t->shadow;
	uint32_t d = t->sdepth;

	if (ct_unlikely(!s || d >= t->scap || !ct_fast_usable(t)))
		return CT_HOOK_SLOW;
	if (by_call)
		ct_shadow_open(t, s, d, slot, fn, 0);
	else
		ct_shadow_hijack(t, s, d, slot, fn, 0);
	return ct_fast_emit(t, ct_ev_word1(CT_EV_ENTER, fn, sp), sp, regs);
}

uint64_t ct_fentry_enter_fast(uintptr_t *slot, uintptr_t call_site, uint64_t *regs)
{
	if (ct_unlikely(ct_args_mode))
		return CT_HOOK_SLOW;
	return ct_fast_enter(slot, ct_arch_entry_function(call_site), regs, 0);
}

#if defined(__aarch64__)
#define CT_HOOK_KEY_REG 19 /* mcount.S: where the frame's key goes, for ct_hook_finish */

/*
 * -pg (src/arch/aarch64/mcount.S): the slot is in the function's frame
 * record, the frame known by a key from its entry sp (fentry.c's
 * ct_mcount_enter), whose prologue was read before (else the slow path
 * reads it), and which did not sign its return address. A call not traced
 * is done.
 */
uint64_t ct_mcount_enter_fast(uintptr_t *slot, uintptr_t call_site, uint64_t *regs)
{
	struct ct_thread *t = &ct_self;
	struct ct_shadow_frame *s = t->shadow;
	uint32_t d = t->sdepth;
	uintptr_t size, key;
	unsigned pac;

	/* a signed return address: fentry.c strips it and signs the trampoline */
	if (ct_unlikely(!ct_a64_frame_cached(call_site, &size, &pac) || pac || !s ||
			d >= t->scap || !ct_fast_usable(t)))
		return CT_HOOK_SLOW;
	if (!(key = ct_a64_mcount_key(slot, size)))
		return CT_HOOK_DONE;
	regs[CT_HOOK_KEY_REG] = key;
	ct_shadow_open_at(t, s, d, key, *slot, call_site, 0);
	*slot = (uintptr_t)ct_return_trampoline;
	return ct_fast_emit(t, ct_ev_word1(CT_EV_ENTER, call_site, key), key, regs);
}
#else
uint64_t ct_mcount_enter_fast(uintptr_t *slot, uintptr_t call_site, uint64_t *regs)
{
	return ct_fast_enter(slot, call_site, regs, 0);
}
#endif

uint64_t ct_patch_enter_fast(uintptr_t *slot, uintptr_t call_site, uint64_t *regs)
{
	uint64_t head;
	__builtin_memcpy(&head, (const void *)(call_site - CT_TRAMP_HEAD), sizeof(head));
	if (ct_unlikely(head >> CT_CAPTURE_SHIFT))
		return CT_HOOK_SLOW;
	return ct_fast_enter(slot, head, regs, 0);
}

/*
 * A function patched dynamically: its trampoline hijacks the slot by a call.
 * Not under attach (a detach cannot yet be made safe for it): there the slot
 * gets the return trampoline, as with __fentry__, and the answer says so
 * (CT_HOOK_BY_SLOT): the trampoline then goes straight to the body.
 */
uint64_t ct_patch_call_enter_fast(uintptr_t *slot, uintptr_t call_site, uint64_t *regs)
{
	uint64_t head;
	__builtin_memcpy(&head, (const void *)(call_site - CT_TRAMP_HEAD), sizeof(head));
	if (ct_unlikely(head >> CT_CAPTURE_SHIFT))
		return CT_HOOK_SLOW;
	if (ct_unlikely(ct_attached))
		return ct_fast_enter(slot, head, regs, 0) | CT_HOOK_BY_SLOT;
	return ct_fast_enter(slot, head, regs, 1);
}

/*
 * ct_fentry_pop (fentry.c) while no return value is to be kept: the
 * innermost frame at this slot (the top one but after a jump we did not
 * see), popped and recorded. Slow: nothing done, fentry.c pops it.
 */
static inline __attribute__((always_inline)) struct ct_hook_answer
ct_fast_pop(struct ct_thread *t, struct ct_shadow_frame *s, uintptr_t sp, uint64_t *regs)
{
	struct ct_hook_answer a = { CT_HOOK_SLOW, 0 };
	uint32_t d = ct_shadow_kept(t);
	if (ct_unlikely(!ct_fast_usable(t)))
		return a;
	while (d && !(s[d - 1].sp == sp && s[d - 1].ret))
		d--;
	if (ct_unlikely(!d))
		return a; /* lost: fentry.c says so */
	struct ct_shadow_frame *f = &s[d - 1];
	if (ct_unlikely(f->ci && ct_captures[f->ci].ret))
		return a;
	uintptr_t fn = f->fn;
	a.ret = f->ret;
	f->ret = 0;
	t->sdepth = d - 1;
	a.status = ct_fast_emit(t, ct_ev_word1(CT_EV_EXIT, fn, sp), sp, regs);
	return a;
}

/*
 * The return trampoline: the frames at this slot, a tail-called function's
 * and its caller's (the callee's holds the trampoline as its return
 * address), each popped and recorded. Slow, with frames left at the slot,
 * lets fentry.c pop those; an event to finish with the trampoline as return
 * address, the same after it.
 */
struct ct_hook_answer ct_fentry_exit_fast(uintptr_t *slot, uint64_t *regs)
{
	struct ct_hook_answer a = { CT_HOOK_SLOW, 0 };
	struct ct_thread *t = &ct_self;
	struct ct_shadow_frame *s = t->shadow;

	if (ct_unlikely(!s))
		return a;
	for (;;) {
		a = ct_fast_pop(t, s, (uintptr_t)slot, regs);
		if (a.status != CT_HOOK_DONE || a.ret != (uintptr_t)ct_return_trampoline)
			return a;
		a.status = CT_HOOK_SLOW; /* its caller's frame, at the same slot: not begun */
	}
}

/*
 * A trampoline's landing (relocate.h): the one frame at this slot. A tail
 * call's caller has its own landing as the callee's return address, and
 * the return stub's ret goes there next.
 */
struct ct_hook_answer ct_patch_exit_fast(uintptr_t *slot, uint64_t *regs)
{
	struct ct_hook_answer a = { CT_HOOK_SLOW, 0 };
	struct ct_thread *t = &ct_self;
	struct ct_shadow_frame *s = t->shadow;

	if (ct_unlikely(!s))
		return a;
	return ct_fast_pop(t, s, (uintptr_t)slot, regs);
}
