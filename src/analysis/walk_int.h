/* SPDX-License-Identifier: MIT */
/*
 * The walker's insides, shared by walk.c (one thread at a time, records fed
 * straight through the builder) and walk_par.c (the builder on worker threads,
 * the filters and the sink on the caller's thread, in order).
 */
#ifndef CT_ANALYSIS_WALK_INT_H
#define CT_ANALYSIS_WALK_INT_H

#include <regex.h>

#include "progress.h"
#include "walk.h"

/* Below this many records, a walk runs on one thread unless --jobs says otherwise. */
#define CT_WALK_PARALLEL_MIN (1u << 17)

enum ct_vis { CT_SHOWN, CT_PENDING, CT_ELIDED, CT_DROPPED };

/* What a function is to the filters, computed once per function. */
#define CT_F_KNOWN 1u
#define CT_F_ONLY  2u /* matches -F */
#define CT_F_HIDE  4u /* matches -N */
#define CT_F_STD   8u /* standard library or system header */

struct ct_wframe {
	uint32_t func;
	uint8_t vis;
	uint8_t in_scope;     /* under a -F match (always, without -F) */
	uint8_t shown_child;  /* some visible call was shown under it */
	uint32_t depth;	      /* as shown, if shown */
	uint32_t child_depth; /* where what it calls is shown */
	uint64_t enter_clock;
	uint64_t child_ticks; /* time in visible children */
	struct ct_buf args;   /* PENDING: the payload of its captured arguments */
	const char *proto;    /* and its prototype */
	size_t proto_len;
};

struct ct_walk {
	struct ct_trace *t;
	struct ct_symbols *sym;
	struct ct_filter f;
	regex_t *only_re, *hide_re;
	size_t nonly, nhide;
	uint8_t *fclass;
	size_t nfclass;
	double min_ticks;
	int plain;		    /* no filter at all: every call is shown as it is */
	struct ct_inherit *inherit; /* forked children's inherited calls, made when needed */
	struct ct_protomap *protos; /* prototypes of the captured functions */
	size_t nprotos_seen;	    /* the trace's PROTOS blocks when it was made */
	int captures;		    /* the trace has captured values: look for them */
	struct ct_progress progress;
};

/* One thread being walked: its builder and what each open call is to the filters. */
struct ct_walker {
	struct ct_walk *w;
	const struct ct_thread_info *th;
	const struct ct_sink *sink;
	void *ctx;
	struct ct_builder b;
	struct ct_wframe *stack;
	uint32_t cap;
	uint32_t npending; /* PENDING frames on the stack */
	uint32_t *fcache;  /* function ids of the current block's table */
	uint32_t fcache_len, fcache_block;
	uint64_t next_unload; /* names cached before a dlclose are not good after it */
	/*
	 * A call event is held until the next record, which may carry what
	 * it was given or returned (CT_EXT_ARGS, CT_EXT_RETVAL).
	 */
	struct ct_event held;
	uint32_t held_block, held_nfuncs;
	int holding;
	const struct ct_event *cur; /* the call event being built, if its values came */
	struct ct_call_values values;
	struct ct_captured captured;
	/*
	 * The payload captured points into: a copy, because in a block an extended
	 * record's payload has any alignment and the decoded values are read as u64.
	 */
	struct ct_buf captured_payload;
};

/* A walker without the calls a forked child inherits (walk_par.c sends them as records). */
struct ct_walker *ct_walker_create(struct ct_walk *w, const struct ct_thread_info *th,
				   const struct ct_sink *sink, void *ctx);
/* thread_end and free, the builder left as it is. */
void ct_walker_close(struct ct_walker *tw);

/* The builder's callbacks into the filters and the sink. */
void ct_walk_enter(void *ctx, struct ct_frame *bf, uint32_t depth);
void ct_walk_exit(void *ctx, struct ct_frame *bf, uint32_t depth, uint64_t exit_clock,
		  uint64_t ticks, enum ct_close how);
void ct_walk_ext(void *ctx, const struct ct_event *ev, uint32_t depth);
/* Is this extended record shown where it happened (ct_sink.mark)? */
int ct_shown_ext(uint32_t type);

/*
 * Captured values: does ev (CT_EXT_ARGS or CT_EXT_RETVAL) carry those of the
 * call event held (kind, sp)? Then they are decoded into *captured, from an
 * aligned copy kept in payload.
 */
int ct_values_match(const struct ct_event *held, const struct ct_event *ev, struct ct_buf *payload,
		    struct ct_captured *captured);
/* The values decoded in tw->captured belong to the call held (tw->held): fill tw->values. */
void ct_walker_values_ready(struct ct_walker *tw);

/*
 * The calls a forked child's main thread starts in (copied into *frames, to
 * free, their user left as the parent's walk had it) and the mark that says
 * the child goes on (*ev, its payload in *from); -1 if th is not such a thread.
 */
int64_t ct_walk_forked(struct ct_walk *w, const struct ct_thread_info *th, struct ct_frame **frames,
		       struct ct_event *ev, struct ct_ext_fork *from);

uint32_t ct_walker_func_slow(struct ct_walker *tw, uint32_t block, const struct ct_event *ev,
			     uint32_t nfuncs);
void ct_walker_passed_unload(struct ct_walker *tw, uint64_t clock);

/* The function id of a record, through the block's table: one lookup per function per block. */
static inline uint32_t ct_walker_func(struct ct_walker *tw, uint32_t block,
				      const struct ct_event *ev, uint32_t nfuncs)
{
	if (__builtin_expect(ev->clock >= tw->next_unload, 0))
		ct_walker_passed_unload(tw, ev->clock);
	if (__builtin_expect(tw->fcache_block == block && tw->fcache[ev->fidx] != UINT32_MAX, 1))
		return tw->fcache[ev->fidx];
	return ct_walker_func_slow(tw, block, ev, nfuncs);
}

/*
 * Walk the selected threads with jobs threads (jobs >= 2): the same calls to
 * sink, in order. 0, -1 if the trace could not be read, 1 if no thread could
 * be started (nothing done).
 */
int ct_walk_run_parallel(struct ct_walk *w, const struct ct_sink *sink, void *ctx, unsigned jobs);

#endif
