/* SPDX-License-Identifier: MIT */
/* The progress line of long reads (see progress.h). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

static double ct_progress_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * When the line may appear: after a second by default. The tests set
 * CALLTRACE_PROGRESS_AFTER=0 to see it on a small trace.
 */
static double ct_progress_after(void)
{
	const char *e = getenv("CALLTRACE_PROGRESS_AFTER");
	char *end;
	double v = e && *e ? strtod(e, &end) : 1.0;
	return e && *e && !*end && v >= 0 ? v : 1.0;
}

void ct_progress_begin(struct ct_progress *p, uint64_t total)
{
	p->enabled = p->shown = 0;
	p->last = -1;
	p->done = 0;
	p->total = total;
	if (!p->what || !total || !isatty(STDERR_FILENO))
		return;
	if (p->streams && isatty(STDOUT_FILENO))
		return; /* its own lines show it going, and ours would cut into them */
	p->after = ct_progress_after();
	p->start = ct_progress_now();
	p->enabled = 1;
	ct_progress_update(p);
}

void ct_progress_update(struct ct_progress *p)
{
	if (!p->enabled)
		return;
	double spent = ct_progress_now() - p->start;
	if (!p->shown) {
		if (spent < p->after)
			return;
		/* at the rate so far, less than a second to go: not worth a line */
		if (p->after > 0 && p->done &&
		    spent * (double)(p->total - (p->done < p->total ? p->done : p->total)) /
				    (double)p->done <
			    1.0)
			return;
	}
	int pct = (int)((double)p->done * 100 / (double)p->total);
	if (pct > 99)
		pct = 99;
	if (pct == p->last)
		return;
	p->last = pct;
	p->shown = 1;
	fprintf(stderr, "\r%s: %d%%", p->what, pct);
	fflush(stderr);
}

void ct_progress_end(struct ct_progress *p)
{
	if (p->shown)
		fputs("\r                    \r", stderr);
	p->enabled = p->shown = 0;
}
