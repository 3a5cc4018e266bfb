/* SPDX-License-Identifier: MIT */
/* Renderers: each consumes calls from the builder, never raw records. */
#ifndef CT_OUTPUT_H
#define CT_OUTPUT_H

#include <stdio.h>

#include "../format/reader.h"
#include "../symbols/symbols.h"

/* Colours: only on a terminal, never with NO_COLOR. */
enum ct_color_mode { CT_COLOR_AUTO, CT_COLOR_ALWAYS, CT_COLOR_NEVER };
int ct_use_color(enum ct_color_mode mode, FILE *out);
extern const char *ct_c_reset, *ct_c_dim, *ct_c_bold, *ct_c_red, *ct_c_yellow, *ct_c_magenta,
	*ct_c_green;
void ct_set_colors(int on);

/* "   1.234 us": 10 characters */
void ct_fmt_duration(char *buf, size_t len, double ns);
/* A human-readable size: "1.2 MiB" */
void ct_fmt_size(char *buf, size_t len, uint64_t bytes);
/*
 * A command line (NUL-separated arguments) as one line: the first
 * CT_CMDLINE_SHOWN characters, then "… (3,857 characters)" if it is longer.
 */
#define CT_CMDLINE_SHOWN 200
void ct_cmdline_text(const char *args, uint32_t len, char *buf, size_t size);

/* crashes.c: each crash of a trace and the calls open at that moment, for calltrace record */
void ct_print_crashes(const char *path, FILE *out);

/* marks.c: what a mark says, and what kind of mark it is */
enum ct_mark_kind {
	CT_MARK_NONE,
	CT_MARK_LOST,
	CT_MARK_CRASH,
	CT_MARK_EXEC,
	CT_MARK_PROCESS,
	CT_MARK_NOTE, /* tracing off and on */
	CT_MARK_USER, /* calltrace_mark() */
};
/* Why a process ran untraced or stopped being traced (struct ct_untraced_rec), in words. */
const char *ct_untraced_why(uint32_t reason, int32_t err, char *buf, size_t len);
/* "process P (/path) ran untraced: why" (or "... stopped being traced: why"). */
void ct_untraced_line(const struct ct_untraced_info *u, char *buf, size_t len);
enum ct_mark_kind ct_mark_text(struct ct_symbols *sym, uint32_t instance,
			       const struct ct_event *ev, char *buf, size_t len);
/* info.c: did this image record no call (META quiet_instances)? info lists it not, replay only its marks */
int ct_instance_quiet(const struct ct_trace *t, uint32_t instance);
/* replay.c: how a process began: "forked from pid 12", "after exec", "started by pid 12", or "" */
void ct_process_origin(const struct ct_trace *t, const struct ct_process_info *p, char *buf,
		       size_t len);

struct ct_replay_opts {
	int timestamps;
	int srcline; /* --srcline: where each function is defined, and called from */
};

struct ct_walk;

int ct_replay(struct ct_trace *t, struct ct_symbols *sym, struct ct_walk *w, FILE *out,
	      const struct ct_replay_opts *o);

/* Replay's pieces, for live: one output, a sink context per thread. */
struct ct_sink;
struct ct_replay_out;
extern const struct ct_sink ct_replay_sink;
/* record --kernel: a system call or off-CPU interval as a line, ctx a replay thread (kwalk.h) */
void ct_replay_kernel(void *ctx, const struct ct_kernel_rec *k, uint32_t depth);
struct ct_replay_out *ct_replay_out_new(const struct ct_trace *t, struct ct_symbols *sym,
					FILE *out, const struct ct_replay_opts *o, int live);
void *ct_replay_thread_new(struct ct_replay_out *ro);
void ct_replay_thread_free(struct ct_replay_out *ro, void *thread);
int ct_replay_out_flush(struct ct_replay_out *ro);
void ct_replay_out_free(struct ct_replay_out *ro);

enum ct_sort { CT_SORT_TOTAL, CT_SORT_SELF, CT_SORT_CALLS, CT_SORT_AVG, CT_SORT_MAX, CT_SORT_NAME,
	       CT_SORT_OFFCPU };

struct ct_report_opts {
	enum ct_sort sort;
	int json, csv;
	int per_thread;
	const char *diff; /* --diff OLD: the trace to compare with */
	int syscalls;	  /* --syscalls: a row per system call (record --kernel) */
};

int ct_report(struct ct_trace *t, struct ct_symbols *sym, struct ct_walk *w, FILE *out,
	      const struct ct_report_opts *o);
int ct_report_diff(struct ct_trace *old_t, struct ct_symbols *old_sym, struct ct_walk *old_w,
		   struct ct_trace *t, struct ct_symbols *sym, struct ct_walk *w, FILE *out,
		   const struct ct_report_opts *o);

int ct_info(struct ct_trace *t, struct ct_symbols *sym, FILE *out);
/* info --skipped: the functions patching left alone, "name<TAB>reason" lines */
int ct_info_skipped(struct ct_trace *t, FILE *out);

int ct_dump(struct ct_trace *t, struct ct_symbols *sym, FILE *out);

#endif
