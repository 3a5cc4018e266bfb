/* SPDX-License-Identifier: MIT */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"

/*
 * Stack pointers are kept in 16-byte units, 31 bits wide. A difference beyond
 * this window is another stack (a signal's alternate stack, a coroutine's):
 * that is a switch, not an unwind, so nothing is closed for it.
 */
#define CT_SP_WINDOW ((int64_t)(64 << 20) / 16)

/* b - a, sign-extended from 31 bits */
static int64_t ct_sp_diff(uint64_t b, uint64_t a)
{
	return (int64_t)((b - a) << 33) >> 33;
}

void ct_builder_init(struct ct_builder *b, const struct ct_builder_ops *ops, void *ctx)
{
	memset(b, 0, sizeof(*b));
	b->ops = ops;
	b->ctx = ctx;
}

void ct_builder_free(struct ct_builder *b)
{
	free(b->stack);
	b->stack = NULL;
}

static void ct_pop(struct ct_builder *b, uint64_t clock, enum ct_close how)
{
	struct ct_frame *f = &b->stack[--b->depth];
	uint64_t ticks = clock > f->enter_clock ? clock - f->enter_clock : 0;

	if (b->depth) {
		b->stack[b->depth - 1].child_ticks += ticks;
		b->stack[b->depth - 1].children++;
	}
	if (how == CT_CLOSE_UNWOUND)
		b->unwound++;
	b->ops->exit(b->ctx, f, b->depth, clock, ticks, how);
}

/* Close the frames below stack pointer sp (and at it too, if inclusive). */
static void ct_unwind_to(struct ct_builder *b, uint64_t sp, uint64_t clock, int inclusive)
{
	while (b->depth) {
		int64_t d = ct_sp_diff(sp, b->stack[b->depth - 1].sp);
		if (d < !inclusive || d > CT_SP_WINDOW)
			break;
		ct_pop(b, clock, CT_CLOSE_UNWOUND);
	}
}

/*
 * A jump or a catch lands in the frame at sp: close everything above it, on
 * this stack or on another (a handler on an alternate stack that siglongjmps).
 */
static void ct_land_at(struct ct_builder *b, uint64_t sp, uint64_t clock)
{
	while (b->depth) {
		int64_t d = ct_sp_diff(sp, b->stack[b->depth - 1].sp);
		if (d <= 0 && d >= -CT_SP_WINDOW)
			break;
		ct_pop(b, clock, CT_CLOSE_UNWOUND);
	}
}

/*
 * A landing pad is about to run in the frame whose stack pointer at its call
 * site is sp (what libgcc calls the context's CFA) and whose function starts
 * at fn: frames below sp are gone, and the cleanup's calls (destructors) are
 * children of that frame. Frames at sp are that function and callees inlined
 * into it: gcc runs their exit hooks in this very landing pad, clang never
 * does, so those still open are closed only when the catch comes.
 */
static void ct_on_landing(struct ct_builder *b, const struct ct_event *ev)
{
	uint64_t w[2];
	ct_event_payload(ev, w, sizeof(w));
	b->landing_sp = ct_ev_sp_units(w[0]);
	b->landing_fn = w[1];
	ct_land_at(b, b->landing_sp, ev->clock);
}

/* The catch lands in the last landing frame: callees inlined into it are gone. */
static void ct_on_catch(struct ct_builder *b, uint64_t sp, uint64_t clock)
{
	ct_land_at(b, sp, clock);
	if (sp != b->landing_sp)
		return;
	for (uint32_t i = b->depth; i-- > 0 && b->stack[i].sp == sp;) {
		if (b->stack[i].addr == b->landing_fn) {
			while (b->depth > i + 1)
				ct_pop(b, clock, CT_CLOSE_UNWOUND);
			break;
		}
	}
}

/* The slot of the next frame pushed. */
static inline struct ct_frame *ct_top_slot(struct ct_builder *b)
{
	if (b->depth == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 64;
		b->stack = ct_realloc(b->stack, b->cap * sizeof(*b->stack));
	}
	return &b->stack[b->depth];
}

static void ct_push(struct ct_builder *b, const struct ct_frame *frame)
{
	struct ct_frame *f = ct_top_slot(b);
	*f = *frame;
	b->ops->enter(b->ctx, f, b->depth++);
}

static void ct_on_enter(struct ct_builder *b, const struct ct_event *ev)
{
	/* frames below the caller's stack pointer are not its ancestors */
	ct_unwind_to(b, ev->sp, ev->clock, b->jumped);
	b->jumped = 0;
	/*
	 * Written in place, field by field: a frame built on the stack and
	 * copied with 16-byte loads stalls on store forwarding, the most
	 * expensive instruction of a read (a quarter of the builder's time).
	 */
	struct ct_frame *f = ct_top_slot(b);
	f->addr = ev->addr;
	f->enter_clock = ev->clock;
	f->sp = ev->sp;
	f->child_ticks = 0;
	f->children = 0;
	f->user = b->next_user;
	f->before_attach = 0;
	b->ops->enter(b->ctx, f, b->depth++);
}

void ct_builder_seed(struct ct_builder *b, const struct ct_frame *frames, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct ct_frame f = frames[i];
		f.child_ticks = 0;
		f.children = 0;
		ct_push(b, &f);
	}
}

/*
 * A signal handler begins: its frame holds the handler's calls. It ends at
 * the mark at the same stack pointer; calls the handler left open end with
 * it. A handler that jumps out never ends: the jump closes its frame.
 */
static void ct_on_signal(struct ct_builder *b, const struct ct_event *ev)
{
	uint64_t sp;
	struct ct_frame f = { .enter_clock = ev->clock, .user = b->next_user };
	f.addr = ct_signal_frame(ev, &sp);
	f.sp = sp;
	ct_push(b, &f);
}

static void ct_on_signal_end(struct ct_builder *b, uint64_t sp, uint64_t clock)
{
	for (uint32_t i = b->depth; i-- > 0;) {
		const struct ct_frame *f = &b->stack[i];
		if (f->sp == sp && ct_is_signal_frame(f->addr)) {
			while (b->depth > i + 1)
				ct_pop(b, clock, CT_CLOSE_UNWOUND);
			ct_pop(b, clock, CT_CLOSE_RETURN);
			return;
		}
	}
}

/* The first frame (from the top) of this function at this stack pointer, or -1. */
static int64_t ct_find_frame(const struct ct_builder *b, uint64_t addr, uint64_t sp)
{
	for (uint32_t i = b->depth; i-- > 0;)
		if (b->stack[i].addr == addr && b->stack[i].sp == sp)
			return i;
	return -1;
}

/*
 * Tracing comes back on (calltrace_enable): the calls above the last one we
 * saw open returned meanwhile (they end when tracing went off: all we know),
 * and the runtime lists those entered meanwhile and still open.
 */
static void ct_on_resume(struct ct_builder *b, const struct ct_event *ev)
{
	struct ct_ext_resume r;
	struct ct_ext_frame f;

	ct_event_payload(ev, &r, sizeof(r));
	uint64_t n = (ev->ext_len - ct_min(ev->ext_len, sizeof(r))) / sizeof(f);
	n = n < r.nframes ? n : r.nframes;
	uint64_t end = b->paused_clock ? b->paused_clock : ev->clock;
	int64_t keep = r.keep.fn ? ct_find_frame(b, r.keep.fn, r.keep.sp) : -1;
	if (keep >= 0) {
		while (b->depth > (uint64_t)keep + 1)
			ct_pop(b, ct_max(end, b->stack[b->depth - 1].enter_clock),
			       CT_CLOSE_RETURN);
	} else {
		uint64_t sp = r.sp;
		if (n)
			memcpy(&sp, ev->ext + sizeof(r) + offsetof(struct ct_ext_frame, sp), 8);
		ct_unwind_to(b, sp, ev->clock, 0);
	}
	b->paused_clock = 0;
	if (b->ops->ext)
		b->ops->ext(b->ctx, ev, b->depth);
	for (uint64_t i = 0; i < n; i++) {
		memcpy(&f, ev->ext + sizeof(r) + i * sizeof(f), sizeof(f));
		struct ct_frame fr = { .addr = f.fn, .enter_clock = ev->clock, .sp = f.sp };
		if (b->ops->user_of)
			fr.user = b->ops->user_of(b->ctx, f.fn, ev->clock);
		ct_push(b, &fr);
	}
}

/*
 * attach: the calls under way when calltrace attached (as the tracer unwound
 * the thread) open here, at the attach's clock, outermost first: the
 * window's calls nest in them, and those that never return end unfinished.
 */
static void ct_on_attached(struct ct_builder *b, const struct ct_event *ev)
{
	uint64_t n;
	struct ct_ext_frame f;

	ct_event_payload(ev, &n, sizeof(n));
	n = ct_min(n, (ev->ext_len - ct_min(ev->ext_len, sizeof(n))) / sizeof(f));
	for (uint64_t i = 0; i < n; i++) {
		memcpy(&f, ev->ext + sizeof(n) + i * sizeof(f), sizeof(f));
		struct ct_frame fr = { .addr = f.fn, .enter_clock = ev->clock, .sp = f.sp,
				       .before_attach = 1 };
		if (b->ops->user_of)
			fr.user = b->ops->user_of(b->ctx, f.fn, ev->clock);
		ct_push(b, &fr);
	}
}

static void ct_on_exit(struct ct_builder *b, const struct ct_event *ev)
{
	b->jumped = 0;
	/* the common case: the call on top returns, in its frame or its caller's */
	if (b->depth && !b->unwinding) {
		const struct ct_frame *top = &b->stack[b->depth - 1];
		int64_t d = ct_sp_diff(top->sp, ev->sp);
		int64_t up = b->depth > 1 ? ct_sp_diff(b->stack[b->depth - 2].sp, ev->sp) : 0;
		if (top->addr == ev->addr && d >= -CT_SP_WINDOW && d <= CT_SP_WINDOW &&
		    (up >= 0 || up < -CT_SP_WINDOW)) {
			ct_pop(b, ev->clock, CT_CLOSE_RETURN);
			return;
		}
	}
	/*
	 * The frame of this function at this stack position returns. The exit
	 * hook runs in the function's frame, or, tail-called at -O2, in its
	 * caller's: so its stack pointer is at most the parent frame's.
	 */
	for (uint32_t i = b->depth; i-- > 0;) {
		const struct ct_frame *f = &b->stack[i];
		int64_t d = ct_sp_diff(f->sp, ev->sp);
		if (d > CT_SP_WINDOW || d < -CT_SP_WINDOW)
			break; /* another stack: look no further */
		int64_t up = i ? ct_sp_diff(b->stack[i - 1].sp, ev->sp) : 0;
		if (f->addr == ev->addr && (up >= 0 || up < -CT_SP_WINDOW)) {
			while (b->depth > i + 1)
				ct_pop(b, ev->clock, CT_CLOSE_UNWOUND);
			/* gcc runs exit hooks as an exception passes: entered before the throw, left by it */
			int left = b->unwinding && f->enter_clock <= b->throw_clock;
			ct_pop(b, ev->clock, left ? CT_CLOSE_UNWOUND : CT_CLOSE_RETURN);
			return;
		}
	}
	/* a return whose call we never saw: deeper frames it left are gone too */
	ct_unwind_to(b, ev->sp, ev->clock, 0);
	struct ct_frame f = { .addr = ev->addr, .enter_clock = ev->clock, .sp = ev->sp };
	b->no_entry++;
	b->ops->exit(b->ctx, &f, b->depth, ev->clock, 0, CT_CLOSE_NO_ENTRY);
}

void ct_builder_event(struct ct_builder *b, const struct ct_event *ev)
{
	b->last_clock = ev->clock;
	switch (ev->kind) {
	case CT_EV_ENTER:
		ct_on_enter(b, ev);
		break;
	case CT_EV_EXIT:
		ct_on_exit(b, ev);
		break;
	default:
		if (ev->ext_type == CT_EXT_SIGNAL) {
			ct_on_signal(b, ev);
			break; /* the frame is the mark */
		} else if (ev->ext_type == CT_EXT_RESUME) {
			ct_on_resume(b, ev);
			break; /* it told ext itself, between closing and opening */
		} else if (ev->ext_type == CT_EXT_ATTACHED) {
			ct_on_attached(b, ev);
			break;
		} else if (ev->ext_type == CT_EXT_PAUSE) {
			b->paused_clock = ev->clock;
		} else if (ev->ext_type == CT_EXT_SIGNAL_END) {
			uint64_t sp;
			ct_event_payload(ev, &sp, sizeof(sp));
			ct_on_signal_end(b, sp, ev->clock);
			break;
		} else if (ev->ext_type == CT_EXT_LANDING) {
			ct_on_landing(b, ev);
		} else if (ev->ext_type == CT_EXT_THROW) {
			b->unwinding = 1;
			b->throw_clock = ev->clock;
		} else if (ev->ext_type == CT_EXT_JUMP || ev->ext_type == CT_EXT_CATCH) {
			uint64_t sp;
			ct_event_payload(ev, &sp, sizeof(sp));
			if (!sp)
				b->jumped = 1;
			else if (ev->ext_type == CT_EXT_CATCH)
				ct_on_catch(b, sp, ev->clock);
			else
				ct_land_at(b, sp, ev->clock);
			if (ev->ext_type == CT_EXT_CATCH)
				b->unwinding = 0;
		}
		if (b->ops->ext)
			b->ops->ext(b->ctx, ev, b->depth);
		break;
	}
}

void ct_builder_finish(struct ct_builder *b)
{
	while (b->depth)
		ct_pop(b, b->last_clock, CT_CLOSE_UNFINISHED);
}
