/* SPDX-License-Identifier: MIT */
/* The calls a forked child's main thread inherits from the thread that forked it. */
#ifndef CT_ANALYSIS_INHERIT_H
#define CT_ANALYSIS_INHERIT_H

#include "builder.h"
#include "../format/reader.h"

struct ct_cursor;

struct ct_inherit {
	struct ct_trace *t;
	struct ct_cursor **cursors;
	size_t n;
};

struct ct_inherit *ct_inherit_new(struct ct_trace *t);
void ct_inherit_free(struct ct_inherit *in);

/*
 * The frames open in th's parent thread when it forked th's process, if th
 * is the main thread of a forked child (else 0), outermost first; valid until
 * the next call. parent (if not NULL) is set to the parent's process.
 */
uint32_t ct_inherited(struct ct_inherit *in, const struct ct_thread_info *th,
		      const struct ct_frame **frames, const struct ct_process_info **parent,
		      int hops);

/* The frames open in thread th just before clock, outermost first; valid until the next call. */
uint32_t ct_open_frames_at(struct ct_inherit *in, const struct ct_thread_info *th, uint64_t clock,
			   const struct ct_frame **frames);

#endif
