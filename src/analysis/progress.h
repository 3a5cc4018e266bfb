/* SPDX-License-Identifier: MIT */
/*
 * A long read's progress on stderr ("report: 42%"), updated in place and
 * cleared at the end: only when stderr is a terminal, and only once the read
 * has run a second and looks like running more than another.
 */
#ifndef CT_ANALYSIS_PROGRESS_H
#define CT_ANALYSIS_PROGRESS_H

#include <stdint.h>

struct ct_progress {
	const char *what; /* the command's name; NULL: no line wanted */
	int streams;	  /* the command writes stdout as it reads: none if that is a terminal */
	int enabled, shown, last;
	uint64_t total, done; /* records */
	double start, after;  /* seconds */
};

/* The work is total records; nothing is shown unless what was set. */
void ct_progress_begin(struct ct_progress *p, uint64_t total);
void ct_progress_update(struct ct_progress *p);
void ct_progress_end(struct ct_progress *p);

/* One more record read: cheap, looks at the clock every few thousand. */
static inline void ct_progress_tick(struct ct_progress *p)
{
	if (__builtin_expect(p->enabled, 0) && !(++p->done & 0xfff))
		ct_progress_update(p);
}

#endif
