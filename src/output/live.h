/* SPDX-License-Identifier: MIT */
/* calltrace live: printing the tree of a trace while it is being recorded. */
#ifndef CT_OUTPUT_LIVE_H
#define CT_OUTPUT_LIVE_H

#include <stdint.h>
#include <stdio.h>

struct ct_filter;
struct ct_replay_opts;
struct ct_live;

struct ct_live *ct_live_new(const char *trace_path, FILE *out, const struct ct_filter *f,
			    const struct ct_replay_opts *o, int demangle);
/*
 * live --kernel: complete(arg, tid) tells the time (trace clock) before which
 * every kernel record of thread tid is in the trace; the thread's blocks are
 * shown once their calls are all before it, with its system calls and
 * off-CPU intervals in place.
 */
void ct_live_kernel(struct ct_live *l, uint64_t (*complete)(void *arg, int32_t tid), void *arg);
/* Print what the trace has gained since the last tick. */
void ct_live_tick(struct ct_live *l);
/* The recording is over: print the rest, close what is open, free; -1 if output failed. */
int ct_live_end(struct ct_live *l);

#endif
