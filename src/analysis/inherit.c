/* SPDX-License-Identifier: MIT */
/*
 * What a forked child inherits: the calls open in the thread that called
 * fork, at the moment it did. The child's main thread starts inside them, as
 * the real child did, so its tree starts where fork returned and its returns
 * find their calls.
 *
 * They are found by running the parent thread's records through a builder
 * up to the fork, itself seeded the same way if the parent was forked too.
 * A cursor per parent thread is kept and moved forward, so the children of
 * one thread, taken in fork order, cost one pass over it.
 */
#include <stdlib.h>

#include "inherit.h"

struct ct_cursor {
	uint32_t snapshot, instance;
	int32_t tid;
	struct ct_stream s;
	struct ct_builder b;
	struct ct_event ev;
	int have_ev, done;
	uint64_t at; /* the clock it stands at */
};

static void ct_nop_enter(void *ctx, struct ct_frame *f, uint32_t depth)
{
	(void)ctx, (void)f, (void)depth;
}

static void ct_nop_exit(void *ctx, struct ct_frame *f, uint32_t depth, uint64_t clock,
			uint64_t ticks, enum ct_close how)
{
	(void)ctx, (void)f, (void)depth, (void)clock, (void)ticks, (void)how;
}

static const struct ct_builder_ops ct_nop_ops = { .enter = ct_nop_enter, .exit = ct_nop_exit };

struct ct_inherit *ct_inherit_new(struct ct_trace *t)
{
	struct ct_inherit *in = ct_calloc(1, sizeof(*in));
	in->t = t;
	return in;
}

static void ct_cursor_free(struct ct_cursor *c)
{
	ct_stream_close(&c->s);
	ct_builder_free(&c->b);
	free(c);
}

void ct_inherit_free(struct ct_inherit *in)
{
	if (!in)
		return;
	for (size_t i = 0; i < in->n; i++)
		ct_cursor_free(in->cursors[i]);
	free(in->cursors);
	free(in);
}

static struct ct_cursor *ct_cursor_new(struct ct_inherit *in, const struct ct_thread_info *th,
				       int hops)
{
	struct ct_cursor *c = ct_calloc(1, sizeof(*c));
	const struct ct_frame *frames;

	c->snapshot = th->snapshot;
	c->instance = th->instance;
	c->tid = th->tid;
	ct_stream_open(&c->s, in->t, th);
	ct_builder_init(&c->b, &ct_nop_ops, NULL);
	uint32_t n = ct_inherited(in, th, &frames, NULL, hops + 1);
	ct_builder_seed(&c->b, frames, n);
	return c;
}

/* The cursor of a thread, standing at or before clock. */
static struct ct_cursor *ct_cursor_for(struct ct_inherit *in, const struct ct_thread_info *th,
				       uint64_t clock, int hops)
{
	for (size_t i = 0; i < in->n; i++) {
		struct ct_cursor *c = in->cursors[i];
		if (c->snapshot != th->snapshot || c->instance != th->instance || c->tid != th->tid)
			continue;
		if (c->at <= clock)
			return c;
		ct_cursor_free(c); /* asked about an earlier time: start again */
		c = ct_cursor_new(in, th, hops); /* may grow in->cursors */
		in->cursors[i] = c;
		return c;
	}
	struct ct_cursor *c = ct_cursor_new(in, th, hops);
	in->cursors = ct_realloc(in->cursors, (in->n + 1) * sizeof(*in->cursors));
	in->cursors[in->n++] = c;
	return c;
}

static void ct_cursor_advance(struct ct_cursor *c, uint64_t clock)
{
	while (!c->done) {
		if (!c->have_ev) {
			if (ct_stream_next(&c->s, &c->ev) <= 0) {
				c->done = 1;
				break;
			}
			c->have_ev = 1;
		}
		if (c->ev.clock >= clock)
			break;
		ct_builder_event(&c->b, &c->ev);
		c->have_ev = 0;
	}
	c->at = clock;
}

uint32_t ct_open_frames_at(struct ct_inherit *in, const struct ct_thread_info *th, uint64_t clock,
			   const struct ct_frame **frames)
{
	struct ct_cursor *c = ct_cursor_for(in, th, clock, 0);
	ct_cursor_advance(c, clock);
	*frames = c->b.stack;
	return c->b.depth;
}

uint32_t ct_inherited(struct ct_inherit *in, const struct ct_thread_info *th,
		      const struct ct_frame **frames, const struct ct_process_info **parent,
		      int hops)
{
	const struct ct_process_info *p = ct_trace_process(in->t, th->instance);
	if (parent)
		*parent = NULL;
	if (!p || !(p->rec.flags & CT_PROC_FORKED) || th->tid != th->pid || hops > 64)
		return 0;
	if (parent)
		*parent = ct_trace_process(in->t, p->rec.parent_instance);
	const struct ct_thread_info *pt =
		ct_trace_thread(in->t, th->snapshot, p->rec.parent_instance, p->rec.parent_tid);
	if (!pt)
		return 0; /* the parent thread made no call we saw */
	struct ct_cursor *c = ct_cursor_for(in, pt, p->rec.fork_clock, hops);
	ct_cursor_advance(c, p->rec.fork_clock);
	*frames = c->b.stack;
	return c->b.depth;
}
