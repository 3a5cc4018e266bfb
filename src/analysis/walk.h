/* SPDX-License-Identifier: MIT */
/*
 * The walker: every output's way into a trace. It streams each selected
 * thread through the call-tree builder, resolves functions, applies the
 * filters every command shares (-F, -N, -D, -t, --tid, --pid, --since,
 * --until, --no-std), and hands the calls that remain to a sink, in order:
 *
 *   thread_begin
 *     enter(call) ... enter(child) ... exit(child) ... exit(call)   properly nested
 *     mark(...)   lost events, crashes, at the depth they happened
 *   thread_end
 *
 * One exception to the nesting: a return whose call was never seen (tracing
 * began mid-stack, events were lost) comes as an exit with how ==
 * CT_CLOSE_NO_ENTRY and no enter before it.
 *
 * A call is given to the sink only if it is visible: an enter is held back
 * until the walker knows the call will be shown (with -t, when it lasted long
 * enough or a visible child appears), so a sink never has to undo anything.
 * Depths are the depths shown: relative to the -F match, with hidden
 * (--no-std) calls taken out.
 */
#ifndef CT_ANALYSIS_WALK_H
#define CT_ANALYSIS_WALK_H

#include <stdint.h>

#include "builder.h"
#include "../common/proto.h"
#include "../format/reader.h"
#include "../symbols/symbols.h"

/*
 * What a call was given and returned, when the trace captured it (record -a,
 * --srcline): its prototype (src/common/proto.h) and the captured values.
 */
struct ct_call_values {
	const char *proto; /* NULL: no prototype known */
	size_t proto_len;
	const struct ct_captured *args; /* enter(): what it was given, or NULL */
	const struct ct_captured *ret;	/* exit(): what it returned, or NULL */
};

/* One call, as renderers see it. */
struct ct_call {
	uint32_t func;	      /* ct_symbols_func() id */
	uint32_t depth;	      /* as shown */
	uint64_t enter_clock; /* trace clock ticks; ct_trace_ns() turns them into ns */
	uint64_t exit_clock;  /* 0 in enter() */
	uint64_t child_ticks; /* time in its visible children (exit() only) */
	enum ct_close how;    /* exit() only */
	int has_children;     /* exit() only: some visible child was shown */
	int before_attach;    /* exit() only: under way at the attach; enter_clock is the attach's */
	const struct ct_call_values *values; /* NULL: nothing captured */
};

struct ct_sink {
	void (*thread_begin)(void *ctx, const struct ct_thread_info *th);
	void (*enter)(void *ctx, const struct ct_call *c);
	void (*exit)(void *ctx, const struct ct_call *c);
	/* an extended record worth showing (CT_EXT_LOST, CT_EXT_CRASH) */
	void (*mark)(void *ctx, const struct ct_event *ev, uint32_t depth);
	void (*thread_end)(void *ctx, const struct ct_thread_info *th);
	/*
	 * A call dropped with everything under it (-N, -D) closed: the outermost
	 * of such, from its enter to its exit (kwalk.c hides its kernel records)
	 */
	void (*dropped)(void *ctx, uint64_t enter_clock, uint64_t exit_clock);
};

struct ct_filter {
	const char **only;   /* -F: only calls under a match (NULL-terminated, or NULL) */
	const char **hide;   /* -N: a match and everything under it */
	int regex;	     /* patterns are extended regexes, not globs */
	uint32_t max_depth;  /* -D: 0 = no limit */
	uint64_t min_ns;     /* -t: calls shorter than this are not shown */
	const int32_t *tids; /* --tid (0-terminated, or NULL) */
	const int32_t *pids; /* --pid (0-terminated, or NULL) */
	double since_ns, until_ns; /* --since/--until, from the start; until 0 = no limit */
	int no_std;	     /* --no-std: hide the C++ standard library and system headers' functions,
			      * showing what they call (callbacks) in their place */
	int no_kernel;	     /* --no-kernel: no system calls nor off-CPU intervals (kwalk.h) */
	unsigned jobs;	     /* --jobs: threads that read (0: the online cores, for a long trace) */
};

struct ct_walk;

/* Compile the patterns; NULL with a message in err on a bad pattern. */
struct ct_walk *ct_walk_new(struct ct_trace *t, struct ct_symbols *sym, const struct ct_filter *f,
			    char *err, size_t errlen);
void ct_walk_free(struct ct_walk *w);
/*
 * Walk every selected thread into sink; -1 if the trace could not be read.
 * With several jobs, worker threads decode the records and build the calls
 * ahead (several traced threads at once) while this thread filters them and
 * calls sink: the calls are the same, in the same order, and sink is only ever
 * called from here.
 */
int ct_walk_run(struct ct_walk *w, const struct ct_sink *sink, void *ctx);
/*
 * Have ct_walk_run show a progress line on stderr when it is a terminal and
 * the read is long ("what: 42%"); streams: the command writes stdout as it
 * reads, so none when stdout is a terminal too.
 */
void ct_walk_progress(struct ct_walk *w, const char *what, int streams);
/* Is this thread selected by --tid/--pid? */
int ct_walk_selects(const struct ct_walk *w, const struct ct_thread_info *th);
/* The trace and the filters it walks with. */
struct ct_trace *ct_walk_trace(const struct ct_walk *w);
const struct ct_filter *ct_walk_filter(const struct ct_walk *w);

/*
 * One thread at a time, record by record, for those who read a trace while it
 * grows (live): several walkers can be fed in any interleaving.
 */
struct ct_walker;
struct ct_walker *ct_walker_new(struct ct_walk *w, const struct ct_thread_info *th,
				const struct ct_sink *sink, void *ctx);
/* block: any number that changes with the block (its function table); nfuncs: its size */
void ct_walker_event(struct ct_walker *tw, const struct ct_event *ev, uint32_t block,
		     uint32_t nfuncs);
/* The thread's records ended: close what is open, thread_end, free. */
void ct_walker_end(struct ct_walker *tw);

#endif
