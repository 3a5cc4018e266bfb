/* SPDX-License-Identifier: MIT */
/*
 * What the export formats share: their output, progress on a terminal,
 * the names of processes, threads and marks (export_kit.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "export_kit.h"
#include "output.h"

/* ---- progress ---------------------------------------------------------------- */

static double ct_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void ct_xprogress_init(struct ct_xprogress *p, struct ct_export *x)
{
	memset(p, 0, sizeof(*p));
	p->last = -1;
	if (!x->o->progress || !isatty(STDERR_FILENO))
		return;
	for (size_t i = 0; i < x->t->nthreads; i++)
		if (ct_walk_selects(x->w, &x->t->threads[i]))
			p->total += x->t->threads[i].nrecords;
	p->enabled = p->total > 0;
	p->start = ct_now();
}

void ct_xprogress_thread(struct ct_xprogress *p, const struct ct_thread_info *th)
{
	if (!p->enabled)
		return;
	if (p->th)
		p->done += p->th->nrecords;
	p->th = th;
	ct_xprogress_update(p, th ? th->first_clock : 0);
}

void ct_xprogress_update(struct ct_xprogress *p, uint64_t clock)
{
	double done = (double)p->done;
	const struct ct_thread_info *th = p->th;

	if (th && th->last_clock > th->first_clock && clock > th->first_clock) {
		double f = (double)(clock - th->first_clock) /
			   (double)(th->last_clock - th->first_clock);
		done += (f < 1 ? f : 1) * (double)th->nrecords;
	}
	int pct = (int)(done * 100 / (double)p->total);
	if (pct > 99)
		pct = 99;
	if (pct == p->last)
		return;
	if (!p->shown && ct_now() - p->start < 1.0)
		return;
	p->last = pct;
	p->shown = 1;
	fprintf(stderr, "\rexport: %d%%", pct);
}

static void ct_xprogress_done(struct ct_xprogress *p)
{
	if (p->shown)
		fputs("\r            \r", stderr);
}

/* ---- names ------------------------------------------------------------------- */

const char *ct_export_process_name(const struct ct_trace *t, uint32_t instance)
{
	const struct ct_process_info *p = ct_trace_process(t, instance);
	return p && p->exe && *p->exe ? ct_basename(p->exe) : NULL;
}

void ct_export_thread_name(const struct ct_trace *t, const struct ct_thread_info *th, char *buf,
			   size_t len)
{
	const char *exe = ct_export_process_name(t, th->instance);

	if (!exe)
		snprintf(buf, len, "%s %d", th->tid == th->pid ? "process" : "thread", th->tid);
	else if (th->tid == th->pid)
		snprintf(buf, len, "%s", exe);
	else
		snprintf(buf, len, "%s/%d", exe, th->tid);
}

int ct_export_mark_name(struct ct_export *x, const struct ct_thread_info *th,
			const struct ct_event *ev, char *buf, size_t len)
{
	return ct_mark_text(x->sym, th->instance, ev, buf, len) != CT_MARK_NONE;
}

/* ---- the export's output and progress ---------------------------------------- */

void ct_export_kit_init(struct ct_export *x, FILE *f)
{
	ct_out_init(&x->out, f);
	ct_xprogress_init(&x->prog, x);
}

int ct_export_kit_finish(struct ct_export *x)
{
	ct_xprogress_done(&x->prog);
	return ct_out_finish(&x->out);
}
