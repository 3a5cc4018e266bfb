/* SPDX-License-Identifier: MIT */
/*
 * What calltrace record says when the program crashed: which thread died of
 * which signal, where (function, file:line), and the calls open at that
 * moment, innermost first, as a debugger's backtrace would show them.
 */
#include <signal.h>
#include <stdio.h>

#include "output.h"
#include "../analysis/inherit.h"

static void ct_print_frames(FILE *out, struct ct_symbols *sym, const struct ct_thread_info *th,
			    const struct ct_frame *frames, uint32_t n)
{
	for (uint32_t i = n; i-- > 0;) {
		const struct ct_func *f =
			ct_symbols_func(sym, ct_symbols_lookup(sym, th->instance, frames[i].addr,
							       frames[i].enter_clock));
		char line[256];
		int known = frames[i].addr < CT_PSEUDO_BASE &&
			    ct_symbols_srcline(sym, th->instance, frames[i].addr,
					       frames[i].enter_clock, line, sizeof(line));
		fprintf(out, "calltrace:     #%-2u %s%s%s%s\n", n - 1 - i, f->name,
			f->name[0] == '[' ? "" : "()", known ? "  " : "", known ? line : "");
	}
}

static void ct_print_crash(FILE *out, struct ct_trace *t, struct ct_symbols *sym,
			   struct ct_inherit *in, const struct ct_crash_rec *c)
{
	const struct ct_process_info *p = ct_trace_process(t, c->instance);
	const struct ct_thread_info *th = ct_trace_thread(t, 0, c->instance, c->tid);
	struct ct_event ev = { .clock = c->clock, .kind = CT_EV_EXT, .ext_type = CT_EXT_CRASH };
	struct ct_ext_crash x = { .signo = c->signo, .code = c->code, .pid = c->pid,
				  .tid = c->tid, .addr = c->addr, .pc = c->pc, .sp = c->sp };
	char what[1024];

	ev.ext = (const uint8_t *)&x;
	ev.ext_len = sizeof(x);
	ct_mark_text(sym, c->instance, &ev, what, sizeof(what));
	fprintf(out, "calltrace: thread %d of process %d (%s) died of %s\n", c->tid, c->pid,
		p ? ct_basename(p->exe) : "?", what);
	if (!th)
		return;
	const struct ct_frame *frames;
	uint32_t n = ct_open_frames_at(in, th, c->clock + 1, &frames);
	ct_print_frames(out, sym, th, frames, n);
}

void ct_print_crashes(const char *path, FILE *out)
{
	char err[512];
	struct ct_trace *t = ct_trace_open(path, err, sizeof(err));
	if (!t)
		return;
	struct ct_symbols *sym = ct_symbols_open(t, 1);
	struct ct_inherit *in = ct_inherit_new(t);
	for (size_t i = 0; i < t->ncrashes; i++)
		ct_print_crash(out, t, sym, in, &t->crashes[i]);
	ct_inherit_free(in);
	ct_symbols_close(sym);
	ct_trace_close(t);
}
