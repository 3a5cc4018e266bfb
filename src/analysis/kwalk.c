// SPDX-License-Identifier: MIT
/* Kernel records in the tree (see kwalk.h). */
#include "kwalk.h"

/*
 * The records of th: those of its tid from the last call of any earlier
 * thread of that tid on, and, if a later one follows (an exec keeps the tid,
 * in a new process image), before its own last call: what comes between two
 * is the later one's (the execve itself, the loader's calls), once.
 */
static void ct_kwrap_range(struct ct_kwrap *kw, const struct ct_thread_info *th)
{
	size_t n;
	const struct ct_kernel_rec *r = ct_trace_kernel(kw->t, th->tid, &n);
	uint64_t lo = 0, hi = UINT64_MAX;
	for (size_t i = 0; i < kw->t->nthreads; i++) {
		const struct ct_thread_info *o = &kw->t->threads[i];
		if (o == th || o->tid != th->tid || o->snapshot != th->snapshot)
			continue;
		if (o->first_clock < th->first_clock && o->last_clock > lo)
			lo = o->last_clock;
		if (o->first_clock > th->first_clock && th->last_clock < hi)
			hi = th->last_clock;
	}
	if (th->snapshot) { /* a flight recorder's snapshot: its window only */
		lo = ct_max(lo, th->first_clock);
		hi = ct_min(hi, th->last_clock + 1);
	}
	kw->next = r;
	kw->end = r ? r + n : NULL;
	while (kw->next < kw->end && kw->next->start < lo)
		kw->next++;
	while (kw->end > kw->next && kw->end[-1].start >= hi)
		kw->end--;
}

static int ct_kwrap_shows(const struct ct_kwrap *kw, const struct ct_kernel_rec *r)
{
	const struct ct_filter *f = &kw->f;
	/* a command counting time counts off-CPU time where the dropped calls' time goes */
	int counted = kw->keep_dropped && r->kind == CT_KREC_OFFCPU;
	if (f->only && f->only[0] && !kw->nopen)
		return 0; /* -F: outside every match */
	if (f->max_depth && kw->depth >= f->max_depth && !counted)
		return 0;
	if (f->min_ns && (double)(r->end - r->start) < kw->min_ticks && !counted)
		return 0;
	if (f->since_ns || f->until_ns) {
		double ns = ct_trace_ns(kw->t, r->start);
		if (ns < f->since_ns || (f->until_ns && ns >= f->until_ns))
			return 0;
	}
	return 1;
}

/* Pass the records that started before clock. */
static void ct_kwrap_to(struct ct_kwrap *kw, uint64_t clock)
{
	for (; kw->next < kw->end && kw->next->start < clock; kw->next++)
		if (ct_kwrap_shows(kw, kw->next))
			kw->kernel(kw->ictx, kw->next, kw->depth);
}

static void ct_kwrap_thread_begin(void *ctx, const struct ct_thread_info *th)
{
	struct ct_kwrap *kw = ctx;
	if (!kw->fed)
		ct_kwrap_range(kw, th);
	kw->depth = kw->nopen = 0;
	if (kw->inner->thread_begin)
		kw->inner->thread_begin(kw->ictx, th);
}

static void ct_kwrap_enter(void *ctx, const struct ct_call *c)
{
	struct ct_kwrap *kw = ctx;
	ct_kwrap_to(kw, c->enter_clock);
	kw->depth = c->depth + 1;
	kw->nopen++;
	kw->inner->enter(kw->ictx, c);
}

static void ct_kwrap_exit(void *ctx, const struct ct_call *c)
{
	struct ct_kwrap *kw = ctx;
	ct_kwrap_to(kw, c->exit_clock);
	if (c->how != CT_CLOSE_NO_ENTRY) {
		kw->depth = c->depth;
		if (kw->nopen)
			kw->nopen--;
	}
	kw->inner->exit(kw->ictx, c);
}

static void ct_kwrap_mark(void *ctx, const struct ct_event *ev, uint32_t depth)
{
	struct ct_kwrap *kw = ctx;
	ct_kwrap_to(kw, ev->clock);
	if (kw->inner->mark)
		kw->inner->mark(kw->ictx, ev, depth);
}

/* A call dropped with all under it (-N, -D): its records go with it. */
static void ct_kwrap_dropped(void *ctx, uint64_t enter_clock, uint64_t exit_clock)
{
	struct ct_kwrap *kw = ctx;
	ct_kwrap_to(kw, enter_clock);
	for (; kw->next < kw->end && kw->next->start < exit_clock; kw->next++)
		if (kw->keep_dropped && kw->next->kind == CT_KREC_OFFCPU &&
		    ct_kwrap_shows(kw, kw->next))
			kw->kernel(kw->ictx, kw->next, kw->depth);
	if (kw->inner->dropped)
		kw->inner->dropped(kw->ictx, enter_clock, exit_clock);
}

static void ct_kwrap_thread_end(void *ctx, const struct ct_thread_info *th)
{
	struct ct_kwrap *kw = ctx;
	if (!kw->superseded)
		ct_kwrap_to(kw, UINT64_MAX);
	if (kw->inner->thread_end)
		kw->inner->thread_end(kw->ictx, th);
}

const struct ct_sink ct_kwrap_sink = {
	.thread_begin = ct_kwrap_thread_begin,
	.enter = ct_kwrap_enter,
	.exit = ct_kwrap_exit,
	.mark = ct_kwrap_mark,
	.thread_end = ct_kwrap_thread_end,
	.dropped = ct_kwrap_dropped,
};

int ct_kwrap_init(struct ct_kwrap *kw, struct ct_trace *t, const struct ct_filter *f,
		  const struct ct_sink *inner, void *ictx, ct_kernel_cb kernel)
{
	if (!t->nkrecs || f->no_kernel)
		return 0;
	*kw = (struct ct_kwrap){ .inner = inner,
				 .ictx = ictx,
				 .kernel = kernel,
				 .t = t,
				 .f = *f,
				 .min_ticks = f->min_ns / t->ns_per_tick };
	return 1;
}

void ct_kwrap_init_fed(struct ct_kwrap *kw, struct ct_trace *t, const struct ct_filter *f,
		       const struct ct_sink *inner, void *ictx, ct_kernel_cb kernel)
{
	*kw = (struct ct_kwrap){ .inner = inner,
				 .ictx = ictx,
				 .kernel = kernel,
				 .t = t,
				 .f = *f,
				 .min_ticks = f->min_ns / t->ns_per_tick,
				 .fed = 1 };
}

void ct_kwrap_feed(struct ct_kwrap *kw, const struct ct_kernel_rec *recs,
		   const struct ct_kernel_rec *end)
{
	kw->next = recs;
	kw->end = end;
}

static int ct_walk_run_kwrap(struct ct_walk *w, const struct ct_sink *sink, void *ctx,
			     ct_kernel_cb kernel, int keep_dropped)
{
	struct ct_kwrap kw;
	if (!ct_kwrap_init(&kw, ct_walk_trace(w), ct_walk_filter(w), sink, ctx, kernel))
		return ct_walk_run(w, sink, ctx);
	kw.keep_dropped = keep_dropped;
	return ct_walk_run(w, &ct_kwrap_sink, &kw);
}

int ct_walk_run_kernel(struct ct_walk *w, const struct ct_sink *sink, void *ctx,
		       ct_kernel_cb kernel)
{
	return ct_walk_run_kwrap(w, sink, ctx, kernel, 0);
}

int ct_walk_run_kernel_time(struct ct_walk *w, const struct ct_sink *sink, void *ctx,
			    ct_kernel_cb kernel)
{
	return ct_walk_run_kwrap(w, sink, ctx, kernel, 1);
}
