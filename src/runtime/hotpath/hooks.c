/* SPDX-License-Identifier: MIT */
/*
 * The hot path: the hooks gcc and clang call at every function entry and exit
 * of code built with -finstrument-functions.
 *
 * Per call: the clock, one xadd to reserve 16 bytes in this thread's chunk,
 * a bounds check, two stores; and the shadow stack's push or pop (shadow.h).
 * The nest counter around it lets a signal handler that interrupts a hook
 * write events of its own safely (see thread.c). No lock, no syscall, no
 * malloc. While tracing is off (calltrace_disable) only the shadow stack moves.
 *
 * This file is built with -fno-omit-frame-pointer: the hooks read their
 * caller's stack pointer from their own frame.
 */
#include "../runtime.h"
#include "hotpath.h"
#include "shadow.h"
#include "../args/args.h"

__thread struct ct_thread ct_self __attribute__((tls_model("initial-exec")));

static inline __attribute__((always_inline)) void ct_emit(uint64_t w1, uintptr_t sp)
{
	struct ct_thread *t = &ct_self;

	/*
	 * The clock first: a signal handler that jumps out between the
	 * reservation and the stores leaves an empty slot, so keep them close.
	 */
	ct_arch_inc(&t->nest);
	uint64_t clock = ct_clock();
	uint64_t *p = ct_arch_reserve(&t->pos, 16);
	if (ct_likely((uintptr_t)p + 16 <= (uintptr_t)t->end)) {
		p[0] = ct_ev_word0(clock, sp);
		p[1] = w1;
	} else {
		ct_slow_record(t, w1, sp);
	}
	if (ct_unlikely(ct_arch_dec(&t->nest)))
		ct_after_nested(t);
}

CT_EXPORT void __cyg_profile_func_enter(void *fn, void *call_site)
{
	struct ct_thread *t = &ct_self;
	uintptr_t sp = CT_ARCH_CALLER_SP();
	if (ct_gated(t)) {
		ct_paused_at(t, ct_shadow_enter(t, (uintptr_t)fn, sp));
		return;
	}
	ct_shadow_enter(t, (uintptr_t)fn, sp);
	if (ct_unlikely(ct_args_mode & CT_ARGS_CALLSITES)) /* --srcline: where it was called */
		ct_emit_enter_args((uintptr_t)fn, sp, CT_CAPTURE_CALLSITE, NULL, NULL,
				   (uintptr_t)call_site);
	else
		ct_emit(ct_ev_word1(CT_EV_ENTER, (uintptr_t)fn, sp), sp);
}

CT_EXPORT void __cyg_profile_func_exit(void *fn, void *call_site)
{
	struct ct_thread *t = &ct_self;
	uintptr_t sp = CT_ARCH_CALLER_SP();
	/* tail-called: we return where the function would have (shadow.h) */
	if (ct_unlikely((uintptr_t)__builtin_return_address(0) == (uintptr_t)call_site))
		sp = ct_shadow_tail_sp(t, (uintptr_t)fn, sp);
	if (ct_gated(t)) {
		ct_paused_at(t, ct_shadow_exit(t, (uintptr_t)fn, sp));
		return;
	}
	ct_shadow_exit(t, (uintptr_t)fn, sp);
	ct_emit(ct_ev_word1(CT_EV_EXIT, (uintptr_t)fn, sp), sp);
}

void ct_emit_event(uint64_t kind, uintptr_t fn, uintptr_t sp)
{
	ct_emit(ct_ev_word1(kind, fn, sp), sp);
}

void ct_mark_always(uint32_t type, uintptr_t sp)
{
	ct_emit(ct_ev_mark_word1(type, sp), sp);
}

void ct_mark(uint32_t type, uintptr_t sp)
{
	if (!ct_gated(&ct_self))
		ct_emit(ct_ev_mark_word1(type, sp), sp);
}

void ct_mark_arg(uint32_t type, uint32_t arg, uintptr_t sp)
{
	uint64_t what = type | (uint64_t)(arg & 0x7fff) << CT_EV_MARK_ARG_SHIFT;
	if (!ct_gated(&ct_self))
		ct_emit(ct_ev_word1(CT_EV_EXT, what, sp), sp);
}
