/* SPDX-License-Identifier: MIT */
/*
 * calltrace replay: the call tree of each thread, one thread after another.
 *
 *   # DURATION     TID     FUNCTION
 *               [  4711] | main() {
 *      0.123 us [  4711] |   leaf();
 *     12.345 us [  4711] | }  (a comment naming main follows the brace)
 *
 * A call is printed when the next record shows whether it has children: a
 * leaf takes one line, a call with children opens a block closed with its
 * duration. So one call is held back at a time, never more.
 */
#include <signal.h>
#include <stdlib.h>

#include "output.h"
#include "../analysis/builder.h"

struct ct_replay {
	FILE *out;
	const struct ct_trace *t;
	struct ct_symbols *sym;
	const struct ct_thread_info *th;
	const struct ct_replay_opts *o;
	int held; /* a call entered but not printed yet */
	struct ct_frame held_frame;
	uint32_t held_depth;
	int failed;
};

static const char *ct_name(struct ct_replay *r, uint64_t addr)
{
	return ct_symbols_func(r->sym, ct_symbols_lookup(r->sym, r->th->instance, addr))->name;
}

static void ct_line_start(struct ct_replay *r, uint64_t clock, const uint64_t *ticks)
{
	char dur[32] = "          ";

	if (r->o->timestamps)
		fprintf(r->out, "%s%14.9f%s ", ct_c_dim, ct_trace_ns(r->t, clock) / 1e9,
			ct_c_reset);
	if (ticks) {
		double ns = (double)*ticks * r->t->ns_per_tick;
		ct_fmt_duration(dur, sizeof(dur), ns);
		const char *c = ns >= 1e6 ? ct_c_red : ns >= 1e4 ? ct_c_yellow : "";
		fprintf(r->out, "%s%s%s", c, dur, *c ? ct_c_reset : "");
	} else {
		fputs(dur, r->out);
	}
	fprintf(r->out, " [%6d] | ", r->th->tid);
}

static void ct_indent(struct ct_replay *r, uint32_t depth)
{
	for (uint32_t i = 0; i < depth; i++)
		fputs("  ", r->out);
}

static void ct_flush_held(struct ct_replay *r)
{
	if (!r->held)
		return;
	r->held = 0;
	ct_line_start(r, r->held_frame.enter_clock, NULL);
	ct_indent(r, r->held_depth);
	fprintf(r->out, "%s() {\n", ct_name(r, r->held_frame.addr));
}

static void ct_replay_enter(void *ctx, struct ct_frame *f, uint32_t depth)
{
	struct ct_replay *r = ctx;
	ct_flush_held(r);
	r->held = 1;
	r->held_frame = *f;
	r->held_depth = depth;
}

static const char *ct_close_note(enum ct_close how)
{
	switch (how) {
	case CT_CLOSE_UNWOUND:
		return "unwound";
	case CT_CLOSE_UNFINISHED:
		return "unfinished";
	case CT_CLOSE_NO_ENTRY:
		return "entered before tracing";
	default:
		return NULL;
	}
}

static void ct_replay_exit(void *ctx, struct ct_frame *f, uint32_t depth, uint64_t exit_clock,
			   uint64_t ticks, enum ct_close how)
{
	struct ct_replay *r = ctx;
	const char *note = ct_close_note(how);
	const char *name = ct_name(r, f->addr);
	int timed = how == CT_CLOSE_RETURN || how == CT_CLOSE_UNWOUND;

	if (r->held && r->held_depth == depth && how != CT_CLOSE_NO_ENTRY) {
		r->held = 0;
		ct_line_start(r, f->enter_clock, timed ? &ticks : NULL);
		ct_indent(r, depth);
		if (note)
			fprintf(r->out, "%s(); %s/* %s */%s\n", name, ct_c_magenta, note,
				ct_c_reset);
		else
			fprintf(r->out, "%s();\n", name);
		return;
	}
	ct_flush_held(r);
	ct_line_start(r, exit_clock, timed ? &ticks : NULL);
	ct_indent(r, depth);
	if (note)
		fprintf(r->out, "} %s/* %s: %s */%s\n", ct_c_magenta, name, note, ct_c_reset);
	else
		fprintf(r->out, "} %s/* %s */%s\n", ct_c_dim, name, ct_c_reset);
}

static void ct_replay_crash(struct ct_replay *r, const struct ct_event *ev, uint32_t depth)
{
	struct ct_ext_crash c;
	char where[512];

	if (ev->ext_len < sizeof(c))
		return;
	memcpy(&c, ev->ext, sizeof(c));
	ct_symbols_describe(r->sym, r->th->instance, c.pc, where, sizeof(where));
	ct_flush_held(r);
	ct_line_start(r, ev->clock, NULL);
	ct_indent(r, depth);
	fprintf(r->out, "%s*** %s at %s", ct_c_red, ct_signal_name(c.signo), where);
	if (c.signo == SIGSEGV || c.signo == SIGBUS)
		fprintf(r->out, " (address 0x%llx)", (unsigned long long)c.addr);
	fprintf(r->out, " ***%s\n", ct_c_reset);
}

static void ct_replay_ext(void *ctx, const struct ct_event *ev, uint32_t depth)
{
	struct ct_replay *r = ctx;
	if (ev->ext_type == CT_EXT_CRASH) {
		ct_replay_crash(r, ev, depth);
		return;
	}
	if (ev->ext_type != CT_EXT_LOST)
		return;
	uint64_t n = 0;
	memcpy(&n, ev->ext, ev->ext_len < 8 ? ev->ext_len : 8);
	ct_flush_held(r);
	ct_line_start(r, ev->clock, NULL);
	ct_indent(r, depth);
	fprintf(r->out, "%s/* lost %llu events */%s\n", ct_c_red, (unsigned long long)n,
		ct_c_reset);
}

static const struct ct_builder_ops ct_replay_ops = {
	.enter = ct_replay_enter,
	.exit = ct_replay_exit,
	.ext = ct_replay_ext,
};

static void ct_thread_header(struct ct_replay *r, size_t index)
{
	const struct ct_process_info *p = ct_trace_process(r->t, r->th->instance);
	if (index)
		fputc('\n', r->out);
	fprintf(r->out, "%s# thread %d, process %d", ct_c_dim, r->th->tid, r->th->pid);
	if (p)
		fprintf(r->out, " (%s)", p->exe);
	if (r->th->snapshot)
		fprintf(r->out, ", snapshot %u", r->th->snapshot);
	if (r->th->lost) {
		char n[32];
		ct_fmt_count(n, sizeof(n), r->th->lost);
		fprintf(r->out, "%s, %s events lost%s", ct_c_red, n, ct_c_dim);
	}
	fprintf(r->out, "%s\n", ct_c_reset);
}

static int ct_replay_thread(struct ct_replay *r)
{
	struct ct_builder b;
	struct ct_stream s;
	struct ct_event ev;
	int rc;

	ct_builder_init(&b, &ct_replay_ops, r);
	ct_stream_open(&s, (struct ct_trace *)r->t, r->th);
	while ((rc = ct_stream_next(&s, &ev)) > 0)
		ct_builder_event(&b, &ev);
	ct_builder_finish(&b);
	ct_flush_held(r);
	ct_stream_close(&s);
	ct_builder_free(&b);
	return rc;
}

int ct_replay(struct ct_trace *t, struct ct_symbols *sym, FILE *out, const struct ct_replay_opts *o)
{
	struct ct_replay r = { .out = out, .t = t, .sym = sym, .o = o };
	int rc = 0;

	fprintf(out, "%s#%s DURATION     TID     FUNCTION%s\n", ct_c_dim,
		o->timestamps ? "      TIMESTAMP" : "", ct_c_reset);
	for (size_t i = 0; i < t->nthreads; i++) {
		r.th = &t->threads[i];
		r.held = 0;
		ct_thread_header(&r, i);
		if (ct_replay_thread(&r) < 0)
			rc = -1;
	}
	return rc;
}
