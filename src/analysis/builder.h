/* SPDX-License-Identifier: MIT */
/*
 * The call-tree builder: the one place that turns a thread's records into
 * calls. Every output (replay, report, exports) consumes its callbacks, so
 * they all agree on nesting, on frames abandoned by longjmp or exceptions, on
 * calls that never returned, and on returns whose call was never seen.
 *
 * Abandoned frames are found with the stack pointer each record carries.
 * The runtime marks every longjmp with the stack pointer of the frame it
 * lands in, and every catch with the frame that catches: frames below it were
 * left without their exit hooks running (always for longjmp, in clang builds
 * for exceptions). Without a mark, a call whose stack pointer is above a
 * frame's cannot be that frame's callee (equal is an inlined callee, whose
 * hooks run in its caller's frame). A return is matched to the frame of its
 * function at its stack position, whatever is above it.
 */
#ifndef CT_ANALYSIS_BUILDER_H
#define CT_ANALYSIS_BUILDER_H

#include <stdint.h>

#include "../format/events.h"

enum ct_close {
	CT_CLOSE_RETURN,     /* returned normally */
	CT_CLOSE_UNWOUND,    /* abandoned by a jump or an exception */
	CT_CLOSE_UNFINISHED, /* still open when the thread's records end */
	CT_CLOSE_NO_ENTRY,   /* a return whose call was never seen */
};

/* Marks the builder's stream may carry that the runtime never writes. */
#define CT_EXT_FORKED_FROM 0x100 /* a forked child's tree goes on: struct ct_ext_fork (parent) */

/* The frame a CT_EXT_SIGNAL record opens: its address and stack pointer. */
static inline uint64_t ct_signal_frame(const struct ct_event *ev, uint64_t *sp)
{
	uint64_t pl[2];
	ct_event_payload(ev, pl, sizeof(pl));
	*sp = pl[0];
	return CT_PSEUDO_SIGNAL + (pl[1] & 0xff);
}

struct ct_frame {
	uint64_t addr;
	uint64_t enter_clock;
	uint64_t sp;
	uint64_t child_ticks; /* time spent in its children */
	uint32_t children;
	uint32_t user; /* for the consumer (a function id, say) */
	uint32_t before_attach; /* under way when calltrace attached: entered at the attach's clock */
};

struct ct_builder_ops {
	/* f is on the stack at depth (0 = outermost) */
	void (*enter)(void *ctx, struct ct_frame *f, uint32_t depth);
	/* f leaves the stack; ticks is its duration (0 for NO_ENTRY) */
	void (*exit)(void *ctx, struct ct_frame *f, uint32_t depth, uint64_t exit_clock,
		     uint64_t ticks, enum ct_close how);
	/* an extended record (lost events, thread end ...) at the current depth */
	void (*ext)(void *ctx, const struct ct_event *ev, uint32_t depth);
	/* optional: ct_frame.user of a frame a resume record opens */
	uint32_t (*user_of)(void *ctx, uint64_t addr, uint64_t clock);
};

struct ct_builder {
	struct ct_frame *stack;
	uint32_t depth, cap;
	uint64_t last_clock;
	uint64_t unwound, no_entry; /* counts, for info */
	int jumped;		    /* a jump to an unknown frame: the next call settles where */
	int unwinding;		    /* an exception is in flight since throw_clock */
	uint64_t throw_clock;
	uint64_t landing_sp, landing_fn; /* where the last landing pad ran */
	uint64_t paused_clock;		 /* tracing went off for the thread then (0: it is on) */
	uint32_t next_user;		 /* ct_frame.user of the next frame pushed */
	const struct ct_builder_ops *ops;
	void *ctx;
};

void ct_builder_init(struct ct_builder *b, const struct ct_builder_ops *ops, void *ctx);
void ct_builder_free(struct ct_builder *b);
void ct_builder_event(struct ct_builder *b, const struct ct_event *ev);
/*
 * Start from frames already open (a forked child's, inherited from its
 * parent at the fork): each is entered as it was, outermost first.
 */
void ct_builder_seed(struct ct_builder *b, const struct ct_frame *frames, uint32_t n);
/* The thread's records ended: close what is open as unfinished. */
void ct_builder_finish(struct ct_builder *b);

#endif
