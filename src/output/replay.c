/* SPDX-License-Identifier: MIT */
/*
 * calltrace replay: the call tree of each thread, one thread after another.
 *
 *   # DURATION     TID     FUNCTION
 *               [  4711] | main() {
 *      0.123 us [  4711] |   leaf();
 *     12.345 us [  4711] | }  (a comment naming main follows the brace)
 *
 * A walker sink. A call is printed when the next call shows whether it has
 * children: a leaf takes one line, a call with children opens a block closed
 * with its duration. So one call is held back at a time, never more.
 *
 * With captured values (record -a) a call shows its arguments and return
 * value, "parse(line="a", len=1) = 0;"; with --srcline, where the function
 * is defined and where it was called from.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_text.h"
#include "out.h"
#include "output.h"
#include "values.h"
#include "../analysis/kwalk.h"
#include "../analysis/protomap.h"
#include "../analysis/walk.h"

/* What all threads share: the output. */
struct ct_replay_out {
	struct ct_out out;
	const struct ct_trace *t;
	struct ct_symbols *sym;
	const struct ct_replay_opts *o;
	size_t threads;
	int live;		 /* threads' lines interleave as they come */
	struct ct_replay *last; /* live: the thread that printed last */
};

/* One thread's part. */
struct ct_replay {
	struct ct_replay_out *ro;
	struct ct_out *out_; /* &ro->out */
	const struct ct_trace *t;
	struct ct_symbols *sym;
	const struct ct_replay_opts *o;
	const struct ct_thread_info *th;
	int held; /* a call entered but not printed yet */
	struct ct_call held_call;
	char held_args[1024]; /* its arguments, as text */
	uint64_t held_site;   /* its return address (0: unknown) */
	struct ct_values_cache values;
	char tid_col[16]; /* " [  4711] | " */
	size_t tid_col_len;
	/*
	 * The "# thread" line of an image that recorded no call (a shell that
	 * ran no traced code: info counts it, lists it not) waits for a line
	 * to head: its marks (an exec, a spawn) show, an empty section not.
	 */
	char header[4200];
	int header_due;
};

static void ct_flush_held(struct ct_replay *r);

static void ct_put_header(struct ct_replay *r)
{
	r->header_due = 0;
	if (r->ro->threads++ && !r->ro->live)
		ct_out_char(r->out_, '\n');
	ct_out_str(r->out_, r->header);
}

/* Live: before a thread prints, the one that printed last shows what it holds back. */
static void ct_take_turn(struct ct_replay *r)
{
	struct ct_replay_out *ro = r->ro;
	if (ro->live && ro->last != r) {
		if (ro->last)
			ct_flush_held(ro->last);
		ro->last = r;
	}
}

static void ct_line_start(struct ct_replay *r, uint64_t clock, const uint64_t *ticks)
{
	if (r->header_due)
		ct_put_header(r);
	struct ct_out *o = r->out_;

	if (r->o->timestamps) {
		ct_out_str(o, ct_c_dim);
		ct_out_seconds(o, ct_trace_ns(r->t, clock));
		ct_out_str(o, ct_c_reset);
		ct_out_char(o, ' ');
	}
	if (ticks) {
		double ns = (double)*ticks * r->t->ns_per_tick;
		const char *c = ns >= 1e6 ? ct_c_red : ns >= 1e4 ? ct_c_yellow : "";
		ct_out_str(o, c);
		ct_out_duration(o, ns);
		if (*c)
			ct_out_str(o, ct_c_reset);
	} else {
		ct_out_spaces(o, 10);
	}
	ct_out_mem(o, r->tid_col, r->tid_col_len);
}

static const char *ct_name(struct ct_replay *r, uint32_t func)
{
	return ct_symbols_func(r->sym, func)->name;
}

/* "name(args)", or "name()" (a pseudo frame's name alone). */
static void ct_out_call(struct ct_replay *r, const char *name, const char *args)
{
	ct_out_str(r->out_, name);
	if (name[0] == '[')
		return;
	ct_out_char(r->out_, '(');
	ct_out_str(r->out_, args);
	ct_out_char(r->out_, ')');
}

/* " = value" of a call that returned one. */
static void ct_out_retval(struct ct_replay *r, const struct ct_call *c)
{
	char buf[1024];
	if (!ct_call_ret_text(&r->values, c->values, buf, sizeof(buf)))
		return;
	ct_out_mem(r->out_, " = ", 3);
	ct_out_str(r->out_, buf);
}

/* --srcline: "  file.c:88  <- main.c:41" after a call's line. */
static void ct_out_srcline(struct ct_replay *r, uint32_t func, uint64_t site, uint64_t clock)
{
	char def[512], from[512];
	int has_def = ct_symbols_defline(r->sym, func, def, sizeof(def));
	int has_from = site && ct_symbols_callline(r->sym, r->th->instance, site, clock, from,
						   sizeof(from));
	if (!has_def && !has_from)
		return;
	ct_out_str(r->out_, ct_c_dim);
	ct_out_mem(r->out_, "  ", 2);
	ct_out_str(r->out_, has_def ? def : "?");
	if (has_from) {
		ct_out_mem(r->out_, "  <- ", 5);
		ct_out_str(r->out_, from);
	}
	ct_out_str(r->out_, ct_c_reset);
}

static void ct_flush_held(struct ct_replay *r)
{
	if (!r->held)
		return;
	r->held = 0;
	ct_line_start(r, r->held_call.enter_clock, NULL);
	ct_out_spaces(r->out_, 2 * r->held_call.depth);
	ct_out_call(r, ct_name(r, r->held_call.func), r->held_args);
	ct_out_mem(r->out_, " {", 2);
	if (r->o->srcline)
		ct_out_srcline(r, r->held_call.func, r->held_site, r->held_call.enter_clock);
	ct_out_char(r->out_, '\n');
}

static void ct_replay_enter(void *ctx, const struct ct_call *c)
{
	struct ct_replay *r = ctx;
	ct_take_turn(r);
	ct_flush_held(r);
	r->held = 1;
	r->held_call = *c;
	r->held_site = c->values && c->values->args ? c->values->args->call_site : 0;
	ct_call_args_text(&r->values, c->values, r->held_args, sizeof(r->held_args));
}

static const char *ct_close_note(const struct ct_replay *r, const struct ct_call *c)
{
	const char *started = ct_trace_meta(r->t, "started");
	switch (c->how) {
	case CT_CLOSE_UNWOUND:
		return "unwound";
	case CT_CLOSE_UNFINISHED: /* attach: the process went on without us */
		return r->t->has_end && (r->t->end.flags & CT_END_DETACHED) ?
			       "still running at detach" :
			       "unfinished";
	case CT_CLOSE_RETURN:
		return c->before_attach ? "entered before attach" : NULL;
	case CT_CLOSE_NO_ENTRY: /* the process ran before calltrace attached to it */
		return started && !strcmp(started, "attach") ? "entered before attach" :
							       "entered before tracing";
	default:
		return NULL;
	}
}

static void ct_replay_exit(void *ctx, const struct ct_call *c)
{
	struct ct_replay *r = ctx;
	struct ct_out *o = r->out_;
	const char *note = ct_close_note(r, c);
	ct_take_turn(r);
	const char *name = ct_name(r, c->func);
	uint64_t ticks = c->exit_clock - c->enter_clock;
	/* under way at the attach: its time before it is not known */
	int timed = (c->how == CT_CLOSE_RETURN || c->how == CT_CLOSE_UNWOUND) && !c->before_attach;

	if (r->held && r->held_call.depth == c->depth && r->held_call.func == c->func &&
	    r->held_call.enter_clock == c->enter_clock && c->how != CT_CLOSE_NO_ENTRY) {
		r->held = 0;
		ct_line_start(r, c->enter_clock, timed ? &ticks : NULL);
		ct_out_spaces(o, 2 * c->depth);
		ct_out_call(r, name, r->held_args);
		ct_out_retval(r, c);
		ct_out_char(o, ';');
		if (note) {
			ct_out_char(o, ' ');
			ct_out_str(o, ct_c_magenta);
			ct_out_mem(o, "/* ", 3);
			ct_out_str(o, note);
			ct_out_mem(o, " */", 3);
			ct_out_str(o, ct_c_reset);
		}
		if (r->o->srcline)
			ct_out_srcline(r, c->func, r->held_site, c->enter_clock);
		ct_out_char(o, '\n');
		return;
	}
	ct_flush_held(r);
	ct_line_start(r, c->exit_clock, timed ? &ticks : NULL);
	ct_out_spaces(o, 2 * c->depth);
	ct_out_char(o, '}');
	ct_out_retval(r, c);
	ct_out_char(o, ' ');
	ct_out_str(o, note ? ct_c_magenta : ct_c_dim);
	ct_out_mem(o, "/* ", 3);
	ct_out_str(o, name);
	if (note) {
		ct_out_mem(o, ": ", 2);
		ct_out_str(o, note);
	}
	ct_out_mem(o, " */", 3);
	ct_out_str(o, ct_c_reset);
	ct_out_char(o, '\n');
}

/* After an exec: the new image ran untraced (it could not join), if it did. */
static void ct_replay_untraced(struct ct_replay *r, uint64_t clock, uint32_t depth)
{
	for (size_t i = 0; i < r->t->nuntraced; i++) {
		const struct ct_untraced_info *u = &r->t->untraced[i];
		char text[4400];
		if (u->rec.instance != r->th->instance || u->rec.pid != r->th->pid ||
		    u->rec.reason >= CT_UNTRACED_UNMAPPED)
			continue;
		ct_untraced_line(u, text, sizeof(text));
		ct_line_start(r, clock, NULL);
		ct_out_spaces(r->out_, 2 * depth);
		ct_out_str(r->out_, ct_c_red);
		ct_out_str(r->out_, "+++ ");
		ct_out_str(r->out_, text);
		ct_out_str(r->out_, " +++");
		ct_out_str(r->out_, ct_c_reset);
		ct_out_char(r->out_, '\n');
	}
}

/* Marks: a crash, lost events, an exec, a fork, at the depth they happened. */
static void ct_replay_mark(void *ctx, const struct ct_event *ev, uint32_t depth)
{
	static const char *const open[] = { "", "/* ", "*** ", "=== ", "+++ ", "/* ", "// " };
	static const char *const close[] = { "", " */", " ***", " ===", " +++", " */", "" };
	struct ct_replay *r = ctx;
	char text[1024];

	enum ct_mark_kind k = ct_mark_text(r->sym, r->th->instance, ev, text, sizeof(text));
	if (k == CT_MARK_NONE)
		return;
	ct_take_turn(r);
	ct_flush_held(r);
	ct_line_start(r, ev->clock, NULL);
	ct_out_spaces(r->out_, 2 * depth);
	ct_out_str(r->out_, k == CT_MARK_LOST || k == CT_MARK_CRASH ? ct_c_red :
			   k == CT_MARK_USER			   ? ct_c_green :
								     ct_c_magenta);
	ct_out_str(r->out_, open[k]);
	ct_out_str(r->out_, text);
	ct_out_str(r->out_, close[k]);
	ct_out_str(r->out_, ct_c_reset);
	ct_out_char(r->out_, '\n');
	if (ev->ext_type == CT_EXT_EXEC)
		ct_replay_untraced(r, ev->clock, depth);
}

/* record --kernel: a system call or an off-CPU interval, in the call that made it */
void ct_replay_kernel(void *ctx, const struct ct_kernel_rec *k, uint32_t depth)
{
	struct ct_replay *r = ctx;
	char text[1600]; /* a path read from the program: up to 256 bytes, escaped */
	ct_take_turn(r);
	ct_flush_held(r);
	ct_line_start(r, k->start, NULL);
	ct_out_spaces(r->out_, 2 * depth);
	ct_kernel_text(text, sizeof(text), k, r->t);
	ct_out_str(r->out_, k->kind == CT_KREC_OFFCPU ? ct_c_yellow : ct_c_dim);
	ct_out_str(r->out_, text);
	ct_out_str(r->out_, ct_c_reset);
	ct_out_char(r->out_, '\n');
}

void ct_process_origin(const struct ct_trace *t, const struct ct_process_info *p, char *buf,
		       size_t len)
{
	buf[0] = 0;
	if (p->rec.flags & CT_PROC_FORKED) {
		/* its ppid may be the recorder's already, if the parent ended first */
		const struct ct_process_info *from = ct_trace_process(t, p->rec.parent_instance);
		snprintf(buf, len, "forked from pid %d", from ? from->rec.pid : p->rec.ppid);
	} else if (p->rec.flags & CT_PROC_EXECED) {
		snprintf(buf, len, "after exec");
	} else {
		/* spawned (posix_spawn, system): its parent is a traced process */
		for (size_t i = 0; i < t->nprocs; i++)
			if (t->procs[i].rec.pid == p->rec.ppid) {
				snprintf(buf, len, "started by pid %d", p->rec.ppid);
				break;
			}
	}
}

static void ct_replay_thread_begin(void *ctx, const struct ct_thread_info *th)
{
	struct ct_replay *r = ctx;
	const struct ct_process_info *p = ct_trace_process(r->t, th->instance);
	char *line = r->header;
	const size_t room = sizeof(r->header);
	int n;

	ct_take_turn(r);
	r->th = th;
	r->held = 0;
	r->tid_col_len = (size_t)snprintf(r->tid_col, sizeof(r->tid_col), " [%6d] | ", th->tid);
	n = snprintf(line, room, "%s# thread %d, process %d", ct_c_dim, th->tid, th->pid);
	if (p)
		n += snprintf(line + n, room - (size_t)n, " (%s)", p->exe);
	const char *name = ct_trace_thread_name(r->t, th);
	if (name)
		n += snprintf(line + n, room - (size_t)n, ", \"%s\"", name);
	if (p && th->tid == th->pid) {
		char origin[128];
		ct_process_origin(r->t, p, origin, sizeof(origin));
		if (origin[0])
			n += snprintf(line + n, room - (size_t)n, ", %s", origin);
	}
	if (th->snapshot)
		n += snprintf(line + n, room - (size_t)n, ", snapshot %u", th->snapshot);
	if (th->lost) {
		char cnt[32];
		ct_fmt_count(cnt, sizeof(cnt), th->lost);
		/* the recorder had to let waiting threads drop: say what would keep them */
		const char *why = r->t->end.starved ? " (buffer full: raise --buffer-size)" : "";
		n += snprintf(line + n, room - (size_t)n, "%s, %s events lost%s%s", ct_c_red,
			      cnt, why, ct_c_dim);
	}
	snprintf(line + n, room - (size_t)n, "%s\n", ct_c_reset);
	r->header_due = 1;
	if (!ct_instance_quiet(r->t, th->instance))
		ct_put_header(r);
}

static void ct_replay_thread_end(void *ctx, const struct ct_thread_info *th)
{
	struct ct_replay *r = ctx;
	(void)th;
	ct_flush_held(r);
}

const struct ct_sink ct_replay_sink = {
	.thread_begin = ct_replay_thread_begin,
	.enter = ct_replay_enter,
	.exit = ct_replay_exit,
	.mark = ct_replay_mark,
	.thread_end = ct_replay_thread_end,
};

struct ct_replay_out *ct_replay_out_new(const struct ct_trace *t, struct ct_symbols *sym,
					FILE *out, const struct ct_replay_opts *o, int live)
{
	struct ct_replay_out *ro = ct_calloc(1, sizeof(*ro));
	char line[128];

	ro->t = t;
	ro->sym = sym;
	ro->o = o;
	ro->live = live;
	ct_out_init(&ro->out, out);
	snprintf(line, sizeof(line), "%s#%s DURATION     TID     FUNCTION%s\n", ct_c_dim,
		 o->timestamps ? "      TIMESTAMP" : "", ct_c_reset);
	ct_out_str(&ro->out, line);
	const char *why = ct_args_unavailable(t);
	if (why) {
		snprintf(line, sizeof(line),
			 "%s# arguments and return values are not available with %s%s\n",
			 ct_c_dim, why, ct_c_reset);
		ct_out_str(&ro->out, line);
	}
	return ro;
}

void *ct_replay_thread_new(struct ct_replay_out *ro)
{
	struct ct_replay *r = ct_calloc(1, sizeof(*r));
	r->ro = ro;
	r->out_ = &ro->out;
	r->t = ro->t;
	r->sym = ro->sym;
	r->o = ro->o;
	return r;
}

void ct_replay_thread_free(struct ct_replay_out *ro, void *thread)
{
	if (ro->last == thread)
		ro->last = NULL;
	free(thread);
}

/* Write out what is buffered; -1 if the output failed. */
int ct_replay_out_flush(struct ct_replay_out *ro)
{
	ct_out_flush(&ro->out);
	fflush(ro->out.f);
	return ro->out.err ? -1 : 0;
}

void ct_replay_out_free(struct ct_replay_out *ro)
{
	ct_out_finish(&ro->out);
	free(ro);
}

int ct_replay(struct ct_trace *t, struct ct_symbols *sym, struct ct_walk *w, FILE *out,
	      const struct ct_replay_opts *o)
{
	struct ct_replay_out *ro = ct_replay_out_new(t, sym, out, o, 0);
	void *r = ct_replay_thread_new(ro); /* threads one after another: one part will do */
	int rc = ct_walk_run_kernel(w, &ct_replay_sink, r, ct_replay_kernel);
	if (ct_replay_out_flush(ro) < 0)
		rc = -1;
	ct_replay_thread_free(ro, r);
	ct_replay_out_free(ro);
	return rc;
}
