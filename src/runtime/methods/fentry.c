/* SPDX-License-Identifier: MIT */
/*
 * Code built with -pg -mfentry: __fentry__ (src/arch/x86_64/fentry.S) runs
 * first thing in every function and calls ct_fentry_enter with the address
 * of the function's return address (with -pg alone, mcount runs after the
 * prologue and finds it through the frame pointer). We record the entry, keep that return
 * address in the shadow stack and put our return trampoline in its place;
 * when the function returns, ct_fentry_exit records the return and gives the
 * trampoline the real address to go back to.
 *
 * The shadow frame is found again by the address of the return-address slot,
 * which is also the frame's stack pointer in the records, so frames left by
 * longjmp are simply skipped (the jump wrapper cuts them too). C++ unwinding
 * reads return addresses from the stack: before it starts (a throw, a
 * rethrow, a forced unwind) every slot gets its real address back, and after
 * a catch the frames still alive get the trampoline again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../runtime.h"
#include "../hotpath/hotpath.h"
#include "methods.h"
#include "../hotpath/shadow.h"
#include "../args/args.h"
#include "../../arch/relocate.h"
#include "../../arch/patch.h"
#if defined(__aarch64__)
#include "../../arch/aarch64/prologue.h"
#include "../../arch/aarch64/unwind.h"
#endif

void ct_fentry_enter(uintptr_t *slot, uintptr_t call_site, const uint64_t *regs) CT_HIDDEN;
void ct_mcount_enter(uintptr_t *slot, uintptr_t call_site, const uint64_t *regs) CT_HIDDEN;
void ct_patch_enter(uintptr_t *slot, uintptr_t call_site, const uint64_t *regs) CT_HIDDEN;
uintptr_t ct_fentry_exit(uintptr_t *slot, const uint64_t *regs) CT_HIDDEN;
void ct_hook_finish(uint64_t status, uintptr_t *slot, uint64_t w1) CT_HIDDEN;

/*
 * The entry of the function at fn whose return address is at slot, its frame
 * known by key (the slot itself but on aarch64's -pg); ci: what to capture
 * of its arguments (args.h), from the registers at regs.
 */
static void ct_hijack_enter_at(uintptr_t *key, uintptr_t *slot, uintptr_t ret, uintptr_t hook,
			       uintptr_t fn, uint32_t method, uint16_t ci, const uint64_t *regs)
{
	struct ct_thread *t = &ct_self;
	uintptr_t sp = (uintptr_t)key;
	struct ct_shadow_frame *s = t->shadow;

	if (ct_unlikely(!s) && !(s = ct_shadow_alloc(t, method)))
		return;
	int gated = ct_gated(t);
	uint32_t d = t->sdepth;
	if (ct_unlikely(d >= t->scap))
		return; /* nowhere to keep the return address: this call is not traced */
	d = ct_shadow_open_at(t, s, d, sp, ret, fn, ci);
	*slot = hook;
	if (gated) /* off: kept in the shadow stack only, for when it comes back on */
		ct_paused_at(t, d);
	else if (ci)
		ct_emit_enter_args(fn, sp, ci, regs, (const uint64_t *)(slot + 1), s[d].ret);
	else
		ct_emit_event(CT_EV_ENTER, fn, sp);
}

static void ct_hijack_enter(uintptr_t *slot, uintptr_t fn, uint32_t method, uint16_t ci,
			    const uint64_t *regs)
{
	ct_hijack_enter_at(slot, slot, *slot, (uintptr_t)ct_return_trampoline, fn, method, ci, regs);
}

void ct_fentry_enter(uintptr_t *slot, uintptr_t call_site, const uint64_t *regs)
{
	uintptr_t fn = ct_arch_entry_function(call_site);
	uint16_t ci = ct_unlikely(ct_args_mode) ? ct_args_find(fn) : 0;
	ct_hijack_enter(slot, fn, CT_METHOD_FENTRY, ci, regs);
}

/*
 * -pg alone: the call site is after the prologue; the reader finds the
 * function around it. Arguments are not captured: the prologue ran. On
 * aarch64 the slot is in the function's frame record (src/arch/aarch64/
 * mcount.S), and the frame is known by its entry sp, as the patchable
 * entries' (16 bytes below it), which its prologue says (prologue.c). A
 * function that signed its return address (pac-ret) with that sp gets the
 * trampoline signed alike, for its epilogue's autiasp.
 */
void ct_mcount_enter(uintptr_t *slot, uintptr_t call_site, const uint64_t *regs)
{
#if defined(__aarch64__)
	unsigned pac;
	uintptr_t key = ct_a64_mcount_key(slot, ct_a64_mcount_frame(call_site, &pac));
	uintptr_t ret = *slot, hook = (uintptr_t)ct_return_trampoline;
	if (!key)
		return; /* a prologue we cannot read: not traced */
	if (pac) {
		ret = ct_a64_pac_strip(ret);
		hook = ct_a64_pac_sign(hook, key + 16, pac);
	}
	ct_hijack_enter_at((uintptr_t *)key, slot, ret, hook, call_site, CT_METHOD_MCOUNT, 0, regs);
#else
	ct_hijack_enter(slot, call_site, CT_METHOD_MCOUNT, 0, regs);
#endif
}

/*
 * A function we patched: its trampoline starts with its address, and above
 * it the index of its capture (src/arch/x86_64/relocate.h, args.h).
 */
void ct_patch_enter(uintptr_t *slot, uintptr_t call_site, const uint64_t *regs)
{
	uint64_t head;
	__builtin_memcpy(&head, (const void *)(call_site - CT_TRAMP_HEAD), sizeof(head));
	ct_hijack_enter(slot, head & ((UINT64_C(1) << CT_CAPTURE_SHIFT) - 1), CT_METHOD_PATCH,
			(uint16_t)(head >> CT_CAPTURE_SHIFT), regs);
}

static __attribute__((noreturn)) void ct_lost_return(void)
{
	static const char msg[] = "calltrace: a traced function returned to a frame the "
				  "shadow stack does not know (the stack was switched?)\n";
	if (write(2, msg, sizeof(msg) - 1) < 0)
		abort();
	abort();
}

/* The return of the innermost frame at this slot; its real return address. */
static uintptr_t ct_fentry_pop(struct ct_thread *t, uintptr_t sp, const uint64_t *regs)
{
	struct ct_shadow_frame *s = t->shadow;
	uint32_t d = ct_shadow_kept(t);

	while (d && !(s[d - 1].sp == sp && s[d - 1].ret))
		d--;
	if (ct_unlikely(!d))
		ct_lost_return();
	struct ct_shadow_frame *f = &s[d - 1];
	uintptr_t ret = f->ret, fn = f->fn, ci = f->ci;
	f->ret = 0;
	t->sdepth = d - 1;
	if (ct_gated(t))
		ct_paused_at(t, d - 1);
	else if (ct_unlikely(ci) && ct_captures[ci].ret)
		ct_emit_exit_retval(fn, sp, (uint16_t)ci, regs);
	else
		ct_emit_event(CT_EV_EXIT, fn, sp);
	return ret;
}

uintptr_t ct_fentry_exit(uintptr_t *slot, const uint64_t *regs)
{
	uintptr_t ret;
	/* a tail-called function returns for its caller too */
	while ((ret = ct_fentry_pop(&ct_self, (uintptr_t)slot, regs)) ==
	       (uintptr_t)ct_return_trampoline)
		;
	return ret;
}

/*
 * The end of an event fasthook.c could not finish without calling out (the
 * stubs saved the vector registers first): status CT_HOOK_RECORD (2), the
 * chunk was full, w1 is the event's word and the nest counter still held;
 * CT_HOOK_NESTED (3), a hook this one interrupted has something to finish.
 */
void ct_hook_finish(uint64_t status, uintptr_t *slot, uint64_t w1)
{
	struct ct_thread *t = &ct_self;
	if (status == 2) {
		ct_slow_record(t, w1, (uintptr_t)slot);
		if (!ct_arch_dec(&t->nest))
			return;
	}
	ct_after_nested(t);
}

/* Unwinding is about to read the stack: every traced frame's real return address. */
#if defined(__aarch64__)
void ct_fentry_unhook(struct ct_thread *t)
{
	struct ct_shadow_frame *s = t->shadow;
	struct ct_arch_hooked f[512];
	size_t n = 0;
	/* innermost first; a tail call's frame keeps the trampoline: its caller's, at the same slot, is real */
	for (uint32_t i = ct_shadow_kept(t); s && i-- > 0 && n < 512;) {
		uintptr_t size;
		unsigned pac = 0; /* -pg's frames (fn their call site) may have signed theirs */
		if (s[i].ret && s[i].ret != (uintptr_t)ct_return_trampoline) {
			if (!ct_a64_frame_cached(s[i].fn, &size, &pac))
				pac = 0;
			f[n++] = (struct ct_arch_hooked){ s[i].sp, s[i].ret, pac };
		}
	}
	if (ct_arch_unhook((uintptr_t)ct_return_trampoline, f, n))
		t->unhooked = 1; /* and stays so until the catch: an earlier unwind's places are kept */
}

/* A catch: the frames still alive return through the trampoline again. */
void ct_fentry_rehook(struct ct_thread *t)
{
	struct ct_shadow_frame *s = t->shadow;
	uintptr_t live[512];
	size_t n = 0;
	if (!t->unhooked)
		return;
	t->unhooked = 0;
	for (uint32_t i = ct_shadow_kept(t); s && i-- > 0 && n < 512;)
		if (s[i].ret && s[i].ret != (uintptr_t)ct_return_trampoline)
			live[n++] = s[i].sp;
	ct_arch_rehook((uintptr_t)ct_return_trampoline, live, n);
}
#else
void ct_fentry_unhook(struct ct_thread *t)
{
	struct ct_shadow_frame *s = t->shadow;
	uint32_t kept = ct_shadow_kept(t);
	int any = 0;
	for (uint32_t i = 0; s && i < kept; i++) {
		/* a tail call's frame keeps the trampoline or its caller's landing: the caller's
		 * frame, at the same slot, has the real address */
		if (s[i].ret && !ct_is_return_landing(s[i].ret)) {
			*(uintptr_t *)s[i].sp = s[i].ret;
			any = 1;
		}
	}
	t->unhooked = (uint8_t)any;
}

/* A catch: the frames still alive return through the trampoline again. */
void ct_fentry_rehook(struct ct_thread *t)
{
	struct ct_shadow_frame *s = t->shadow;
	uint32_t kept = ct_shadow_kept(t);
	if (!t->unhooked)
		return;
	t->unhooked = 0;
	for (uint32_t i = 0; s && i < kept; i++)
		if (s[i].ret)
			*(uintptr_t *)s[i].sp = (uintptr_t)ct_return_trampoline;
}
#endif
