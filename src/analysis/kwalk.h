/* SPDX-License-Identifier: MIT */
/*
 * record --kernel's system calls and off-CPU intervals placed in the tree: a
 * sink that stands between the walker and a command's sink. Before it passes
 * on each call it is given, it passes the thread's kernel records that came
 * before, at the depth of the calls shown open then: a record made inside a
 * call lands inside it. The filters treat a record like a call made there:
 * -F (only under a match), -D (its depth), -t (its duration), --since and
 * --until. A record made under a call -N (or -D) drops is dropped with it,
 * like the calls under it. The commands that count time (report, flame) take
 * such an off-CPU interval in the nearest shown call instead, where the
 * dropped call's time goes too (its caller's own time), so that on-CPU +
 * off-CPU stays the wall time: for them -D and -t drop no off-CPU interval
 * either, as they drop no call's time. System calls (report --syscalls rows)
 * are filtered as calls are.
 */
#ifndef CT_ANALYSIS_KWALK_H
#define CT_ANALYSIS_KWALK_H

#include "walk.h"

typedef void (*ct_kernel_cb)(void *ctx, const struct ct_kernel_rec *r, uint32_t depth);

struct ct_kwrap {
	const struct ct_sink *inner;
	void *ictx;
	ct_kernel_cb kernel;
	struct ct_trace *t;
	struct ct_filter f;
	double min_ticks;
	const struct ct_kernel_rec *next, *end; /* the thread's records not passed yet */
	uint32_t depth;				/* where a record made now is shown */
	uint32_t nopen;				/* shown calls open */
	int keep_dropped; /* off-CPU intervals -N, -D or -t drop: passed in the nearest shown call */
	int fed;	  /* live: the records come from ct_kwrap_feed, not from the trace */
	int superseded;	  /* fed: a later thread took the tid (an exec): leave it the rest */
};

extern const struct ct_sink ct_kwrap_sink;

/*
 * Set kw up to pass inner's calls and, through kernel, the trace's kernel
 * records (f: the walk's filters). 0 if the trace has none or f->no_kernel:
 * walk into inner directly.
 */
int ct_kwrap_init(struct ct_kwrap *kw, struct ct_trace *t, const struct ct_filter *f,
		  const struct ct_sink *inner, void *ictx, ct_kernel_cb kernel);
/*
 * live: kw set up to pass the records it is fed (ct_kwrap_feed), the trace
 * growing under it.
 */
void ct_kwrap_init_fed(struct ct_kwrap *kw, struct ct_trace *t, const struct ct_filter *f,
		       const struct ct_sink *inner, void *ictx, ct_kernel_cb kernel);
/*
 * The thread's records not passed yet, in time order, from [recs, end): the
 * records of its tid before the next calls given to kw must be there.
 * kw->next tells where it got to.
 */
void ct_kwrap_feed(struct ct_kwrap *kw, const struct ct_kernel_rec *recs,
		   const struct ct_kernel_rec *end);
/* ct_walk_run through kw when the trace has kernel records, else into sink directly. */
int ct_walk_run_kernel(struct ct_walk *w, const struct ct_sink *sink, void *ctx,
		       ct_kernel_cb kernel);
/*
 * The same for a command that counts time: the off-CPU intervals of a call
 * -N, -D or -t drops (and those deeper than -D or shorter than -t) are passed
 * in the nearest shown call, as the dropped call's time is counted there.
 */
int ct_walk_run_kernel_time(struct ct_walk *w, const struct ct_sink *sink, void *ctx,
			    ct_kernel_cb kernel);

#endif
