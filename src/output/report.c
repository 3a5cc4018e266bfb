/* SPDX-License-Identifier: MIT */
/*
 * calltrace report: per function, the calls, total, self, average, minimum
 * and maximum time. A walker sink, so every filter applies.
 *
 * "Total" counts a recursive function's time once, at its outermost call, so
 * it never exceeds the run; average, minimum and maximum are over individual
 * calls that finished (returned, or were unwound by a jump or an exception).
 * A call still running when its thread's records end counts in calls, total
 * and self, with the time it was seen running. Self time is a call's time
 * less the time of the calls shown under it.
 *
 * With record --kernel, off-CPU time too: a call's (the intervals its thread
 * was off the CPU while it ran, counted once for a recursive function, like
 * total) and its own (those not under a call shown under it); on-CPU is total
 * less off-CPU. --syscalls adds a row per system call (report_kernel.c).
 */
#include <math.h>
#include <stdlib.h>

#include "output.h"
#include "report_kernel.h"
#include "syscalls.h"
#include "text.h"
#include "../analysis/kwalk.h"
#include "../analysis/walk.h"

struct ct_fstat {
	uint64_t calls, finished;
	uint64_t total, self, sum, min, max; /* in clock ticks */
	uint64_t off_total, off_self;	     /* off the CPU (record --kernel) */
	uint32_t active;		     /* calls of it open now */
};

/* By row (ct_func.row: a function and its clones share one), and calls by symbol. */
struct ct_stats {
	struct ct_fstat *st;
	size_t nst;
	uint64_t *sym_calls; /* by ct_symbols_func id */
	size_t nsym;
};

struct ct_report {
	struct ct_stats all, thread;
	int per_thread;
	FILE *out;
	const struct ct_report_opts *o;
	struct ct_trace *t;
	struct ct_symbols *sym;
	int kernel; /* off-CPU columns: the trace has kernel records, shown */
	struct ct_report_kernel k;
};

static struct ct_fstat *ct_stat_grow(struct ct_stats *s, uint32_t id)
{
	s->st = ct_table_fit(s->st, &s->nst, id, sizeof(*s->st));
	return &s->st[id];
}

static inline struct ct_fstat *ct_stat_for(struct ct_stats *s, uint32_t id)
{
	return id < s->nst ? &s->st[id] : ct_stat_grow(s, id);
}

static void ct_count_symbol(struct ct_stats *s, uint32_t id)
{
	if (id >= s->nsym)
		s->sym_calls = ct_table_fit(s->sym_calls, &s->nsym, id, sizeof(*s->sym_calls));
	s->sym_calls[id]++;
}

static void ct_stats_enter(struct ct_stats *s, const struct ct_symbols *sym,
			   const struct ct_call *c)
{
	struct ct_fstat *f = ct_stat_for(s, ct_symbols_func(sym, c->func)->row);
	f->calls++;
	f->active++;
	ct_count_symbol(s, c->func);
}

static void ct_stats_exit(struct ct_stats *s, const struct ct_symbols *sym, const struct ct_call *c)
{
	if (c->how == CT_CLOSE_NO_ENTRY)
		return;
	struct ct_fstat *f = ct_stat_for(s, ct_symbols_func(sym, c->func)->row);
	uint64_t ticks = c->exit_clock - c->enter_clock;
	f->active--;
	if (!f->active)
		f->total += ticks;
	f->self += ticks > c->child_ticks ? ticks - c->child_ticks : 0;
	if (c->how == CT_CLOSE_UNFINISHED || c->before_attach) /* partly seen: no whole duration */
		return;
	if (!f->finished || ticks < f->min)
		f->min = ticks;
	if (ticks > f->max)
		f->max = ticks;
	f->sum += ticks;
	f->finished++;
}

static void ct_report_enter(void *ctx, const struct ct_call *c)
{
	struct ct_report *r = ctx;
	if (r->kernel)
		ct_rk_enter(&r->k, ct_symbols_func(r->sym, c->func)->row);
	ct_stats_enter(&r->all, r->sym, c);
	if (r->per_thread)
		ct_stats_enter(&r->thread, r->sym, c);
}

static void ct_report_exit(void *ctx, const struct ct_call *c)
{
	struct ct_report *r = ctx;
	ct_stats_exit(&r->all, r->sym, c);
	if (r->per_thread)
		ct_stats_exit(&r->thread, r->sym, c);
	if (r->kernel && c->how != CT_CLOSE_NO_ENTRY) {
		uint32_t row = ct_symbols_func(r->sym, c->func)->row;
		uint64_t off = ct_rk_exit(&r->k);
		if (!r->all.st[row].active) /* the outermost call of a recursion */
			r->all.st[row].off_total += off;
		if (r->per_thread && !r->thread.st[row].active)
			r->thread.st[row].off_total += off;
	}
}

/* record --kernel: an off-CPU interval is its innermost open call's own */
static void ct_report_kernel(void *ctx, const struct ct_kernel_rec *k, uint32_t depth)
{
	struct ct_report *r = ctx;
	(void)depth;
	uint32_t row;
	uint64_t off = ct_rk_record(&r->k, k, &row);
	if (!off)
		return;
	ct_stat_for(&r->all, row)->off_self += off;
	if (r->per_thread)
		ct_stat_for(&r->thread, row)->off_self += off;
}

static uint64_t ct_oncpu(const struct ct_fstat *s)
{
	return s->total > s->off_total ? s->total - s->off_total : 0;
}

static uint64_t ct_oncpu_self(const struct ct_fstat *s)
{
	return s->self > s->off_self ? s->self - s->off_self : 0;
}

static double ct_avg(const struct ct_fstat *s)
{
	return s->finished ? (double)s->sum / (double)s->finished : 0;
}

static enum ct_sort ct_sort_key;
static const struct ct_fstat *ct_sort_st;
static const struct ct_symbols *ct_sort_sym;

static double ct_key_of(const struct ct_fstat *s)
{
	switch (ct_sort_key) {
	case CT_SORT_TOTAL: return (double)s->total;
	case CT_SORT_SELF: return (double)s->self;
	case CT_SORT_CALLS: return (double)s->calls;
	case CT_SORT_AVG: return ct_avg(s);
	case CT_SORT_MAX: return (double)s->max;
	case CT_SORT_OFFCPU: return (double)s->off_total;
	default: return 0;
	}
}

static int ct_row_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	double u = ct_key_of(&ct_sort_st[x]), v = ct_key_of(&ct_sort_st[y]);
	if (u != v)
		return u > v ? -1 : 1;
	return strcmp(ct_symbols_func(ct_sort_sym, x)->name, ct_symbols_func(ct_sort_sym, y)->name);
}

/* The functions called at least once, in the order asked for. */
static uint32_t *ct_rows(const struct ct_stats *s, const struct ct_symbols *sym, enum ct_sort key,
			 size_t *n)
{
	uint32_t *rows = ct_malloc(s->nst * sizeof(uint32_t) + 1);
	*n = 0;
	for (size_t i = 0; i < s->nst; i++)
		if (s->st[i].calls)
			rows[(*n)++] = (uint32_t)i;
	ct_sort_key = key;
	ct_sort_st = s->st;
	ct_sort_sym = sym;
	qsort(rows, *n, sizeof(*rows), ct_row_cmp);
	return rows;
}

static void ct_csv_field(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static const char *const ct_kind_names[] = { "function", "signal", "pseudo" };

static const char *ct_kind_name(const struct ct_func *fn)
{
	size_t n = sizeof(ct_kind_names) / sizeof(ct_kind_names[0]);
	return fn->kind < n ? ct_kind_names[fn->kind] : "pseudo";
}

/*
 * The symbols called in each row, as chains: first[row], then next[id]; a row
 * of one symbol has a chain of one.
 */
struct ct_members {
	uint32_t *first, *next, *count; /* UINT32_MAX ends a chain */
};

static void ct_members_build(struct ct_members *m, const struct ct_stats *s,
			     const struct ct_symbols *sym)
{
	size_t n = ct_max(s->nst, s->nsym) + 1;
	m->first = ct_malloc(n * sizeof(uint32_t));
	m->next = ct_malloc(n * sizeof(uint32_t));
	m->count = ct_calloc(n, sizeof(uint32_t));
	memset(m->first, 0xff, n * sizeof(uint32_t));
	for (size_t i = s->nsym; i-- > 0;) {
		if (!s->sym_calls[i])
			continue;
		uint32_t row = ct_symbols_func(sym, (uint32_t)i)->row;
		m->next[i] = m->first[row];
		m->first[row] = (uint32_t)i;
		m->count[row]++;
	}
}

static void ct_members_free(struct ct_members *m)
{
	free(m->first);
	free(m->next);
	free(m->count);
}

/* A row that merges a function's clones names each symbol with its calls. */
static void ct_print_json_symbols(struct ct_report *r, const struct ct_stats *s,
				  const struct ct_members *m, uint32_t row)
{
	if (m->count[row] < 2)
		return;
	fputs(", \"symbols\": [", r->out);
	for (uint32_t id = m->first[row]; id != UINT32_MAX; id = m->next[id]) {
		fputs(id == m->first[row] ? "{\"symbol\": " : ", {\"symbol\": ", r->out);
		ct_json_fput(r->out, ct_symbols_func(r->sym, id)->symbol, 0);
		fprintf(r->out, ", \"calls\": %llu}", (unsigned long long)s->sym_calls[id]);
	}
	fputc(']', r->out);
}

static void ct_print_json(struct ct_report *r, const struct ct_stats *s, const uint32_t *rows,
			  size_t n, double k)
{
	FILE *out = r->out;
	struct ct_members m;
	ct_members_build(&m, s, r->sym);
	fputs("[", out);
	for (size_t i = 0; i < n; i++) {
		const struct ct_fstat *f = &s->st[rows[i]];
		const struct ct_func *fn = ct_symbols_func(r->sym, rows[i]);
		fputs(i ? ",\n  {" : "\n  {", out);
		fputs("\"name\": ", out);
		ct_json_fput(out, fn->name, 0);
		fputs(", \"symbol\": ", out);
		ct_json_fput(out, fn->symbol, 0);
		fputs(", \"module\": ", out);
		ct_json_fput(out, fn->module, 0);
		fprintf(out, ", \"kind\": \"%s\"", ct_kind_name(fn));
		fprintf(out,
			", \"calls\": %llu, \"total_ns\": %.0f, \"self_ns\": %.0f, \"avg_ns\": %.0f, "
			"\"min_ns\": %.0f, \"max_ns\": %.0f",
			(unsigned long long)f->calls, (double)f->total * k, (double)f->self * k,
			ct_avg(f) * k, (double)f->min * k, (double)f->max * k);
		if (r->kernel)
			fprintf(out,
				", \"oncpu_ns\": %.0f, \"offcpu_ns\": %.0f, \"oncpu_self_ns\": %.0f, "
				"\"offcpu_self_ns\": %.0f",
				(double)ct_oncpu(f) * k, (double)f->off_total * k,
				(double)ct_oncpu_self(f) * k, (double)f->off_self * k);
		ct_print_json_symbols(r, s, &m, rows[i]);
		fputc('}', out);
	}
	if (r->o->syscalls && s == &r->all)
		ct_rk_print_json(&r->k, out, k, n);
	fputs(n || (r->o->syscalls && r->k.nsys) ? "\n]\n" : "]\n", out);
	ct_members_free(&m);
}

static void ct_print_csv(struct ct_report *r, const struct ct_stats *s, const uint32_t *rows,
			 size_t n, double k, int header)
{
	FILE *out = r->out;
	if (header)
		fputs(r->kernel ? "name,symbol,module,calls,total_ns,self_ns,avg_ns,min_ns,max_ns,kind,"
				  "oncpu_ns,offcpu_ns\n" :
				  "name,symbol,module,calls,total_ns,self_ns,avg_ns,min_ns,max_ns,kind\n",
		      out);
	for (size_t i = 0; i < n; i++) {
		const struct ct_fstat *f = &s->st[rows[i]];
		const struct ct_func *fn = ct_symbols_func(r->sym, rows[i]);
		ct_csv_field(out, fn->name);
		fputc(',', out);
		ct_csv_field(out, fn->symbol);
		fputc(',', out);
		ct_csv_field(out, fn->module);
		fprintf(out, ",%llu,%.0f,%.0f,%.0f,%.0f,%.0f,%s", (unsigned long long)f->calls,
			(double)f->total * k, (double)f->self * k, ct_avg(f) * k, (double)f->min * k,
			(double)f->max * k, ct_kind_name(fn));
		if (r->kernel)
			fprintf(out, ",%.0f,%.0f", (double)ct_oncpu(f) * k, (double)f->off_total * k);
		fputc('\n', out);
	}
}

/*
 * One table: the functions, or the frames that are none (a signal handler
 * running) under their own heading, so that no one reads "[signal SIGCHLD]"
 * as a function.
 */
static void ct_print_table(struct ct_report *r, const struct ct_stats *s, const uint32_t *rows,
			   size_t n, double k, int functions)
{
	FILE *out = r->out;
	char c[6][32];
	int headed = 0;
	for (size_t i = 0; i <= n; i++) {
		const struct ct_func *fn = i < n ? ct_symbols_func(r->sym, rows[i]) : NULL;
		if (fn && (fn->kind == CT_KIND_FUNCTION) != functions)
			continue;
		/* the functions' heading even over no rows; the others' only over some */
		if (!headed && (fn || functions)) {
			headed = 1;
			if (!functions)
				fputc('\n', out);
			fprintf(out,
				"%s  Total time   Self time       Calls     Average     Minimum     "
				"Maximum  %s%s%s\n",
				ct_c_bold, r->kernel ? "    On-CPU     Off-CPU  " : "",
				functions ? "Function" : "Not a function", ct_c_reset);
			fprintf(out, "  ==========  ==========  ==========  ==========  ==========  "
				     "==========  %s%s\n",
				r->kernel ? "==========  ==========  " : "",
				functions ? "========" : "==============");
		}
		if (!fn)
			break;
		const struct ct_fstat *f = &s->st[rows[i]];
		ct_fmt_duration(c[0], sizeof(c[0]), (double)f->total * k);
		ct_fmt_duration(c[1], sizeof(c[1]), (double)f->self * k);
		ct_fmt_duration(c[3], sizeof(c[3]), ct_avg(f) * k);
		ct_fmt_duration(c[4], sizeof(c[4]), (double)f->min * k);
		ct_fmt_duration(c[5], sizeof(c[5]), (double)f->max * k);
		fprintf(out, "  %s  %s  %10llu  %s  %s  %s  ", c[0], c[1],
			(unsigned long long)f->calls, c[3], c[4], c[5]);
		if (r->kernel) {
			ct_fmt_duration(c[0], sizeof(c[0]), (double)ct_oncpu(f) * k);
			ct_fmt_duration(c[1], sizeof(c[1]), (double)f->off_total * k);
			fprintf(out, "%s  %s  ", c[0], c[1]);
		}
		fprintf(out, "%s\n", fn->name);
	}
}

static void ct_print_text(struct ct_report *r, const struct ct_stats *s, const uint32_t *rows,
			  size_t n, double k)
{
	ct_print_table(r, s, rows, n, k, 1);
	ct_print_table(r, s, rows, n, k, 0);
	if (r->o->syscalls && s == &r->all)
		ct_rk_print_text(&r->k, r->out, k);
}

static void ct_print(struct ct_report *r, const struct ct_stats *s, int first)
{
	size_t n;
	uint32_t *rows = ct_rows(s, r->sym, r->o->sort, &n);
	double k = r->t->ns_per_tick;
	if (r->o->json)
		ct_print_json(r, s, rows, n, k);
	else if (r->o->csv)
		ct_print_csv(r, s, rows, n, k, first);
	else
		ct_print_text(r, s, rows, n, k);
	free(rows);
}

static void ct_report_thread_begin(void *ctx, const struct ct_thread_info *th)
{
	struct ct_report *r = ctx;
	(void)th;
	r->k.depth = 0;
	if (r->per_thread && r->thread.nst) /* none yet before the first thread: st is NULL */
		memset(r->thread.st, 0, r->thread.nst * sizeof(*r->thread.st));
	if (r->per_thread && r->thread.nsym)
		memset(r->thread.sym_calls, 0, r->thread.nsym * sizeof(*r->thread.sym_calls));
}

static void ct_report_thread_end(void *ctx, const struct ct_thread_info *th)
{
	struct ct_report *r = ctx;
	if (!r->per_thread)
		return;
	if (!r->o->json && !r->o->csv)
		fprintf(r->out, "%s# thread %d, process %d%s\n", ct_c_dim, th->tid, th->pid,
			ct_c_reset);
	ct_print(r, &r->thread, 0);
	if (!r->o->json && !r->o->csv)
		fputc('\n', r->out);
}

static const struct ct_sink ct_report_sink = {
	.thread_begin = ct_report_thread_begin,
	.enter = ct_report_enter,
	.exit = ct_report_exit,
	.thread_end = ct_report_thread_end,
};

/* Counts from a lossy recording are short: say by how much, per thread. */
static void ct_report_losses(const struct ct_trace *t, struct ct_walk *w, FILE *out, int quiet)
{
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct ct_thread_info *th = &t->threads[i];
		char n[32];
		if (!th->lost || !ct_walk_selects(w, th))
			continue;
		ct_fmt_count(n, sizeof(n), th->lost);
		if (quiet)
			ct_warn("%s events lost in thread %d (pid %d): its counts and times are short",
				n, th->tid, th->pid);
		else
			fprintf(out,
				"# %s events lost in thread %d (pid %d): its counts and times are "
				"short\n",
				n, th->tid, th->pid);
	}
}

int ct_report(struct ct_trace *t, struct ct_symbols *sym, struct ct_walk *w, FILE *out,
	      const struct ct_report_opts *o)
{
	struct ct_report r = { .out = out, .o = o, .t = t, .sym = sym, .per_thread = o->per_thread };

	r.kernel = t->nkrecs && !ct_walk_filter(w)->no_kernel;
	r.k.abi = ct_trace_sys_abi(t);
	if (o->per_thread && o->json)
		fputs("[\n", out); /* one array per thread, in an array */
	int rc = ct_walk_run_kernel_time(w, &ct_report_sink, &r, ct_report_kernel);
	if (!o->per_thread)
		ct_print(&r, &r.all, 1);
	else if (o->json)
		fputs("]\n", out);
	ct_report_losses(t, w, out, o->json || o->csv);
	free(r.all.st);
	free(r.thread.st);
	free(r.all.sym_calls);
	free(r.thread.sym_calls);
	ct_rk_free(&r.k);
	return rc;
}

/* --diff: the same statistics for two traces, side by side, by function name. */
struct ct_diff_row {
	const char *name;
	const struct ct_fstat *a, *b;
	double key;
};

static int ct_diff_cmp(const void *x, const void *y)
{
	const struct ct_diff_row *p = x, *q = y;
	if (p->key != q->key)
		return p->key > q->key ? -1 : 1;
	return strcmp(p->name, q->name);
}

static void ct_collect_stats(struct ct_trace *t, struct ct_symbols *sym, struct ct_walk *w,
			     struct ct_stats *s, int *rc)
{
	struct ct_report r = { .t = t, .sym = sym };
	if (ct_walk_run(w, &ct_report_sink, &r) < 0)
		*rc = -1;
	*s = r.all;
}

static const struct ct_fstat *ct_find_by_name(const struct ct_stats *s,
					      const struct ct_symbols *sym, const char *name)
{
	for (size_t i = 0; i < s->nst; i++)
		if (s->st[i].calls && !strcmp(ct_symbols_func(sym, (uint32_t)i)->name, name))
			return &s->st[i];
	return NULL;
}

static void ct_fmt_change(char *buf, size_t len, double before, double after)
{
	if (before == after)
		snprintf(buf, len, "%9s", "=");
	else if (before == 0)
		snprintf(buf, len, "%9s", "new");
	else if (after == 0)
		snprintf(buf, len, "%9s", "gone");
	else
		snprintf(buf, len, "%+8.1f%%", (after - before) / before * 100);
}

int ct_report_diff(struct ct_trace *old_t, struct ct_symbols *old_sym, struct ct_walk *old_w,
		   struct ct_trace *t, struct ct_symbols *sym, struct ct_walk *w, FILE *out,
		   const struct ct_report_opts *o)
{
	struct ct_stats a = { 0 }, b = { 0 };
	int rc = 0;
	ct_collect_stats(old_t, old_sym, old_w, &a, &rc);
	ct_collect_stats(t, sym, w, &b, &rc);

	/* every name of either trace, once */
	struct ct_diff_row *rows = ct_malloc((a.nst + b.nst) * sizeof(*rows) + 1);
	size_t n = 0;
	for (int side = 0; side < 2; side++) {
		const struct ct_stats *s = side ? &b : &a;
		const struct ct_symbols *y = side ? sym : old_sym;
		for (size_t i = 0; i < s->nst; i++) {
			if (!s->st[i].calls)
				continue;
			const char *name = ct_symbols_func(y, (uint32_t)i)->name;
			if (side && ct_find_by_name(&a, old_sym, name))
				continue; /* listed from the old side */
			struct ct_diff_row *row = &rows[n++];
			row->name = name;
			row->a = side ? NULL : &s->st[i];
			row->b = side ? &s->st[i] : ct_find_by_name(&b, sym, name);
		}
	}
	static const struct ct_fstat none;
	double ka = old_t->ns_per_tick, kb = t->ns_per_tick;
	ct_sort_key = o->sort;
	for (size_t i = 0; i < n; i++) {
		const struct ct_fstat *x = rows[i].a ? rows[i].a : &none;
		const struct ct_fstat *y = rows[i].b ? rows[i].b : &none;
		double before = ct_key_of(x) * (o->sort == CT_SORT_CALLS ? 1 : ka);
		double after = ct_key_of(y) * (o->sort == CT_SORT_CALLS ? 1 : kb);
		rows[i].key = fabs(after - before); /* the biggest changes first */
	}
	qsort(rows, n, sizeof(*rows), ct_diff_cmp);

	if (o->json || o->csv) {
		if (o->csv)
			fputs("name,calls_old,calls_new,total_ns_old,total_ns_new,self_ns_old,"
			      "self_ns_new,avg_ns_old,avg_ns_new\n",
			      out);
		else
			fputs("[", out);
		for (size_t i = 0; i < n; i++) {
			const struct ct_fstat *x = rows[i].a ? rows[i].a : &none;
			const struct ct_fstat *y = rows[i].b ? rows[i].b : &none;
			if (o->csv) {
				ct_csv_field(out, rows[i].name);
			} else {
				fputs(i ? ",\n  {\"name\": " : "\n  {\"name\": ", out);
				ct_json_fput(out, rows[i].name, 0);
			}
			fprintf(out,
				o->csv ? ",%llu,%llu,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f\n" :
					 ", \"calls_old\": %llu, \"calls_new\": %llu, "
					 "\"total_ns_old\": %.0f, \"total_ns_new\": %.0f, "
					 "\"self_ns_old\": %.0f, \"self_ns_new\": %.0f, "
					 "\"avg_ns_old\": %.0f, \"avg_ns_new\": %.0f}",
				(unsigned long long)x->calls, (unsigned long long)y->calls,
				(double)x->total * ka, (double)y->total * kb, (double)x->self * ka,
				(double)y->self * kb, ct_avg(x) * ka, ct_avg(y) * kb);
		}
		if (o->json)
			fputs(n ? "\n]\n" : "]\n", out);
	} else {
		char c[8][32];
		fprintf(out,
			"%s  Total (old)  Total (new)     Change   Calls (old)  Calls (new)     Change  "
			"Self (new)  Function%s\n",
			ct_c_bold, ct_c_reset);
		for (size_t i = 0; i < n; i++) {
			const struct ct_fstat *x = rows[i].a ? rows[i].a : &none;
			const struct ct_fstat *y = rows[i].b ? rows[i].b : &none;
			ct_fmt_duration(c[0], sizeof(c[0]), (double)x->total * ka);
			ct_fmt_duration(c[1], sizeof(c[1]), (double)y->total * kb);
			ct_fmt_change(c[2], sizeof(c[2]), (double)x->total * ka,
				      (double)y->total * kb);
			ct_fmt_change(c[3], sizeof(c[3]), (double)x->calls, (double)y->calls);
			ct_fmt_duration(c[4], sizeof(c[4]), (double)y->self * kb);
			fprintf(out, "   %s   %s  %s  %12llu %12llu  %s  %s  %s\n", c[0], c[1], c[2],
				(unsigned long long)x->calls, (unsigned long long)y->calls, c[3],
				c[4], rows[i].name);
		}
	}
	free(rows);
	free(a.st);
	free(b.st);
	free(a.sym_calls);
	free(b.sym_calls);
	return rc;
}
