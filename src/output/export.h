/* SPDX-License-Identifier: MIT */
/*
 * calltrace export: the walker's calls written for other tools.
 *
 *   perfetto   Perfetto's protobuf trace (TrackEvent slices), export_perfetto.c
 *   chrome     Chrome's trace event JSON (complete events), export_chrome.c
 *   folded     folded stacks for flame graphs, export_folded.c
 *
 * export.c dispatches to the formats; what they share is export_kit.h.
 * Each format is a walker sink writing as the calls come: memory is bounded
 * by the stack depth, the number of threads and the distinct functions (the
 * distinct stacks for folded), never by the length of the trace.
 */
#ifndef CT_OUTPUT_EXPORT_H
#define CT_OUTPUT_EXPORT_H

#include <stdio.h>

#include "../analysis/walk.h"
#include "../format/reader.h"
#include "../symbols/symbols.h"

enum ct_export_format { CT_EXPORT_PERFETTO, CT_EXPORT_CHROME, CT_EXPORT_FOLDED };
enum ct_fold_weight { CT_FOLD_TIME, CT_FOLD_CALLS };

struct ct_export_opts {
	enum ct_export_format format;
	enum ct_fold_weight weight; /* folded: self time in ns, or calls */
	int progress;		    /* "export: 42%" on stderr once it takes over a second */
};

/*
 * Export the trace into f (flushed, not closed): 0, or -1 if the trace could
 * not be read (message printed); *werr is the errno of a failed write, 0 if none.
 */
int ct_export(struct ct_trace *t, struct ct_symbols *sym, struct ct_walk *w, FILE *f,
	      const struct ct_export_opts *o, int *werr);

#endif
