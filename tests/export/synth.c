/* SPDX-License-Identifier: MIT */
/*
 * The exporters fed a made-up walk, with the cases a recording rarely gives
 * on demand: calls that start in the same ns as their parent (Chrome's
 * viewers nest those by file order), zero-length calls, a return whose call
 * was not seen, unwound and unfinished calls, lost events, a crash, names
 * with ';', a line break, quotes, UTF-8 and bytes that are not UTF-8, a
 * thread twice (a flight recorder's snapshots), two processes.
 *
 * Linked with calltrace's export_*.o and util.o; the walker, the reader and
 * the symbols are stubbed here. Usage: synth perfetto|chrome|folded|calls OUT
 * (calls: folded with --weight calls).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/analysis/kwalk.h"
#include "../../src/output/export.h"

struct ct_walk {
	int unused;
};

static const char *const names[] = {
	"main",	       "a", "b", "c", "weird;name\n\"q\"\\", "caf\xc3\xa9::\xe2\x82\xac",
	"bad\xff\xfe", "x",
};
enum { MAIN, A, B, C, WEIRD, UTF8, BAD, X, NFUNCS };

static struct ct_func funcs[NFUNCS];

const struct ct_func *ct_symbols_func(const struct ct_symbols *s, uint32_t id)
{
	(void)s;
	return id < NFUNCS ? &funcs[id] : NULL;
}

void ct_symbols_describe(struct ct_symbols *s, uint32_t instance, uint64_t addr, uint64_t clock,
			 char *buf, size_t len)
{
	(void)s;
	(void)instance;
	(void)clock;
	snprintf(buf, len, "a+0x%llx", (unsigned long long)addr);
}

int ct_symbols_srcline(struct ct_symbols *s, uint32_t instance, uint64_t addr, uint64_t clock,
		       char *buf, size_t len)
{
	(void)s, (void)instance, (void)addr, (void)clock, (void)buf, (void)len;
	return 0;
}

double ct_trace_ns(const struct ct_trace *t, uint64_t clock)
{
	return (double)(int64_t)(clock - t->clock_origin) * t->ns_per_tick;
}

static struct ct_process_info procs[2];

const struct ct_process_info *ct_trace_process(const struct ct_trace *t, uint32_t instance)
{
	(void)t;
	return instance >= 1 && instance <= 2 ? &procs[instance - 1] : NULL;
}

const char *ct_trace_meta(const struct ct_trace *t, const char *key)
{
	(void)t;
	return !strcmp(key, "command") ? "./synth \"quoted\"" : NULL;
}

int ct_walk_selects(const struct ct_walk *w, const struct ct_thread_info *th)
{
	(void)w;
	(void)th;
	return 1;
}

static struct ct_thread_info threads[4] = {
	{ .instance = 1,
	  .pid = 100,
	  .tid = 100,
	  .nrecords = 20,
	  .first_clock = 1000,
	  .last_clock = 1050 },
	{ .instance = 1,
	  .pid = 100,
	  .tid = 101,
	  .nrecords = 4,
	  .first_clock = 500,
	  .last_clock = 700 },
	{ .instance = 2,
	  .pid = 200,
	  .tid = 200,
	  .nrecords = 2,
	  .first_clock = 0,
	  .last_clock = 10,
	  .snapshot = 1 },
	{ .instance = 1,
	  .pid = 100,
	  .tid = 100,
	  .nrecords = 2,
	  .first_clock = 1000,
	  .last_clock = 1003,
	  .snapshot = 2 },
};

static void call(const struct ct_sink *s, void *ctx, int enter, uint32_t func, uint32_t depth,
		 uint64_t in, uint64_t out, uint64_t child, enum ct_close how)
{
	struct ct_call c = { .func = func, .depth = depth, .enter_clock = in };
	if (enter) {
		s->enter(ctx, &c);
		return;
	}
	c.exit_clock = out;
	c.child_ticks = child;
	c.how = how;
	s->exit(ctx, &c);
}

#define IN(f, d, t)		  call(s, ctx, 1, f, d, t, 0, 0, 0)
#define OUT(f, d, t0, t, ch, how) call(s, ctx, 0, f, d, t0, t, ch, how)

int ct_walk_run(struct ct_walk *w, const struct ct_sink *s, void *ctx);

/* The made-up trace: an x86_64 one, with nothing read behind system calls' pointers. */
const char *ct_trace_arch(const struct ct_trace *t)
{
	(void)t;
	return "x86_64";
}

const struct ct_karg_rec *ct_trace_karg(const struct ct_trace *t, int32_t tid, uint64_t start,
					const uint8_t **data)
{
	(void)t, (void)tid, (void)start, (void)data;
	return NULL;
}

/* The made-up walk's filters: none. */
const struct ct_filter *ct_walk_filter(const struct ct_walk *w)
{
	static const struct ct_filter none;
	(void)w;
	return &none;
}

/* The made-up walk has no kernel records (record --kernel): tests/kernel has those. */
int ct_walk_run_kernel(struct ct_walk *w, const struct ct_sink *sink, void *ctx,
		       ct_kernel_cb kernel)
{
	(void)kernel;
	return ct_walk_run(w, sink, ctx);
}

int ct_walk_run(struct ct_walk *w, const struct ct_sink *s, void *ctx)
{
	struct ct_event ev = { .kind = CT_EV_EXT };
	uint64_t lost = 7;
	struct ct_ext_crash crash = {
		.signo = SIGSEGV, .code = 1, .pid = 100, .tid = 101, .pc = 0x10
	};
	(void)w;

	/* thread 100: main { a { b, c }, lost, weird, x returns, utf8 { bad } } unfinished */
	s->thread_begin(ctx, &threads[0]);
	IN(MAIN, 0, 1000);
	IN(A, 1, 1000); /* starts with main */
	IN(B, 2, 1000); /* and with a */
	OUT(B, 2, 1000, 1005, 0, CT_CLOSE_RETURN);
	IN(C, 2, 1005);
	OUT(C, 2, 1005, 1005, 0, CT_CLOSE_RETURN); /* zero length */
	OUT(A, 1, 1000, 1010, 5, CT_CLOSE_RETURN);
	ev.clock = 1012;
	ev.ext_type = CT_EXT_LOST;
	ev.ext = (const uint8_t *)&lost;
	ev.ext_len = sizeof(lost);
	s->mark(ctx, &ev, 1);
	IN(WEIRD, 1, 1020);
	OUT(WEIRD, 1, 1020, 1030, 0, CT_CLOSE_UNWOUND);
	OUT(X, 1, 1035, 1035, 0, CT_CLOSE_NO_ENTRY); /* a return whose call was not seen */
	IN(UTF8, 1, 1036);
	IN(BAD, 2, 1036);
	OUT(BAD, 2, 1036, 1040, 0, CT_CLOSE_RETURN);
	OUT(UTF8, 1, 1036, 1042, 4, CT_CLOSE_RETURN);
	OUT(MAIN, 0, 1000, 1050, 26, CT_CLOSE_UNFINISHED);
	s->thread_end(ctx, &threads[0]);

	/* thread 101: a, then a crash in main */
	s->thread_begin(ctx, &threads[1]);
	IN(A, 0, 500);
	OUT(A, 0, 500, 600, 0, CT_CLOSE_RETURN);
	IN(MAIN, 0, 650);
	ev.clock = 700;
	ev.ext_type = CT_EXT_CRASH;
	ev.ext = (const uint8_t *)&crash;
	ev.ext_len = sizeof(crash);
	s->mark(ctx, &ev, 1);
	OUT(MAIN, 0, 650, 700, 0, CT_CLOSE_UNFINISHED);
	s->thread_end(ctx, &threads[1]);

	/* process 200, a flight recorder's snapshot 1 */
	s->thread_begin(ctx, &threads[2]);
	IN(MAIN, 0, 0);
	OUT(MAIN, 0, 0, 10, 0, CT_CLOSE_RETURN);
	s->thread_end(ctx, &threads[2]);

	/* thread 100 again, in snapshot 2: overlaps its calls above */
	s->thread_begin(ctx, &threads[3]);
	IN(A, 0, 1000);
	OUT(A, 0, 1000, 1003, 0, CT_CLOSE_RETURN);
	s->thread_end(ctx, &threads[3]);
	return 0;
}

int main(int argc, char **argv)
{
	static char args1[] = "./synth\0\"quoted\"", args2[] = "child";
	struct ct_trace t = { .ns_per_tick = 1.0, .threads = threads, .nthreads = 4 };
	struct ct_walk w;
	struct ct_export_opts o = { 0 };
	int werr;

	if (argc != 3) {
		fprintf(stderr, "usage: synth perfetto|chrome|folded|calls OUT\n");
		return 2;
	}
	for (int i = 0; i < NFUNCS; i++)
		funcs[i] = (struct ct_func){ .name = (char *)names[i],
					     .symbol = (char *)names[i],
					     .module = "synth",
					     .row = (uint32_t)i }; /* each its own row: no clones */
	procs[0] = (struct ct_process_info){
		.rec = { .instance = 1, .pid = 100, .args_len = sizeof(args1) },
		.exe = "/bin/synth",
		.args = args1
	};
	procs[1] = (struct ct_process_info){
		.rec = { .instance = 2, .pid = 200, .args_len = sizeof(args2) },
		.exe = "/bin/other",
		.args = args2
	};
	if (!strcmp(argv[1], "perfetto"))
		o.format = CT_EXPORT_PERFETTO;
	else if (!strcmp(argv[1], "chrome"))
		o.format = CT_EXPORT_CHROME;
	else if (!strcmp(argv[1], "folded") || !strcmp(argv[1], "calls"))
		o.format = CT_EXPORT_FOLDED;
	else
		return 2;
	o.weight = !strcmp(argv[1], "calls") ? CT_FOLD_CALLS : CT_FOLD_TIME;
	FILE *f = fopen(argv[2], "w");
	if (!f)
		return 2;
	if (ct_export(&t, NULL, &w, f, &o, &werr) < 0 || werr)
		return 1;
	return fclose(f) != 0;
}
