/* SPDX-License-Identifier: MIT */
/*
 * What the export formats (export_perfetto.c, export_chrome.c,
 * export_folded.c) share: the export's state, buffered output, progress on a
 * terminal, the names of processes, threads and marks. export_kit.c calls
 * none of the formats: ct_export() (export.c) sits above both.
 */
#ifndef CT_OUTPUT_EXPORT_KIT_H
#define CT_OUTPUT_EXPORT_KIT_H

#include <stdint.h>
#include <string.h>

#include "export.h"
#include "out.h"

/* Progress on stderr: "export: 42%", only on a terminal, only after a second. */
struct ct_xprogress {
	int enabled, shown, last;
	unsigned count;
	double start;
	uint64_t total, done; /* records of the selected threads; of those done */
	const struct ct_thread_info *th;
};

struct ct_export {
	struct ct_trace *t;
	struct ct_symbols *sym;
	struct ct_walk *w;
	const struct ct_export_opts *o;
	struct ct_out out;
	struct ct_xprogress prog;
};

void ct_xprogress_thread(struct ct_xprogress *p, const struct ct_thread_info *th);
void ct_xprogress_update(struct ct_xprogress *p, uint64_t clock);

/* Called at every event: looks at the time now and then only. */
static inline void ct_xprogress_tick(struct ct_xprogress *p, uint64_t clock)
{
	if (__builtin_expect(!(++p->count & 0xffff), 0) && p->enabled)
		ct_xprogress_update(p, clock);
}

/* Nanoseconds since the start of the recording, rounded, never negative. */
static inline uint64_t ct_xns(const struct ct_trace *t, uint64_t clock)
{
	double ns = ct_trace_ns(t, clock);
	return ct_sat_u64(ns + 0.5);
}

/* The name of a mark (lost events, a crash) in buf; 0 if it is not one to show. */
int ct_export_mark_name(struct ct_export *x, const struct ct_thread_info *th,
			const struct ct_event *ev, char *buf, size_t len);
/*
 * A process's name (its executable's basename) and a thread's. A flight
 * recorder's trace may hold a thread several times, once per snapshot, with
 * calls that overlap: the first one exported is the thread, the others get
 * tracks of their own. ct_export_thread_key() tells them apart.
 */
static inline uint64_t ct_export_thread_key(const struct ct_thread_info *th)
{
	return ((uint64_t)th->instance << 32 | (uint32_t)th->tid) + 1;
}
const char *ct_export_process_name(const struct ct_trace *t, uint32_t instance);
void ct_export_thread_name(const struct ct_trace *t, const struct ct_thread_info *th, char *buf,
			   size_t len);

/* Set up x's output and progress for a walk into f; ct_export_kit_finish() ends them. */
void ct_export_kit_init(struct ct_export *x, FILE *f);
/* Clear the progress line and flush the output (f too): 0, or the errno of a failed write. */
int ct_export_kit_finish(struct ct_export *x);

/*
 * Each format (export_<format>.c), called by ct_export(): walk the trace
 * into x->out. 0, or -1 if the trace could not be read.
 */
int ct_export_perfetto(struct ct_export *x);
int ct_export_chrome(struct ct_export *x);
int ct_export_folded(struct ct_export *x);

#endif
