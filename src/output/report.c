/* SPDX-License-Identifier: MIT */
/*
 * calltrace report: per function, the calls, total, self, average, minimum
 * and maximum time.
 *
 * "Total" counts a recursive function's time once, at its outermost call, so
 * it never exceeds the run; average, minimum and maximum are over individual
 * calls that finished (returned, or were unwound by a jump or an exception).
 * A call still running when its thread's records end counts in calls, total
 * and self, with the time it was seen running.
 */
#include <stdlib.h>

#include "output.h"
#include "../analysis/builder.h"

struct ct_fstat {
	uint64_t calls, finished;
	uint64_t total, self, sum, min, max; /* in clock ticks */
	uint32_t active;		     /* calls of it on the stack now */
};

struct ct_report {
	struct ct_symbols *sym;
	const struct ct_thread_info *th;
	struct ct_fstat *st;
	size_t nst;
};

static struct ct_fstat *ct_stat_for(struct ct_report *r, uint32_t id)
{
	if (id >= r->nst) {
		size_t n = r->nst ? r->nst : 256;
		while (n <= id)
			n *= 2;
		r->st = ct_realloc(r->st, n * sizeof(*r->st));
		memset(r->st + r->nst, 0, (n - r->nst) * sizeof(*r->st));
		r->nst = n;
	}
	return &r->st[id];
}

static void ct_report_enter(void *ctx, struct ct_frame *f, uint32_t depth)
{
	struct ct_report *r = ctx;
	(void)depth;
	f->user = ct_symbols_lookup(r->sym, r->th->instance, f->addr);
	struct ct_fstat *s = ct_stat_for(r, f->user);
	s->calls++;
	s->active++;
}

static void ct_report_exit(void *ctx, struct ct_frame *f, uint32_t depth, uint64_t exit_clock,
			   uint64_t ticks, enum ct_close how)
{
	struct ct_report *r = ctx;
	(void)depth;
	(void)exit_clock;
	if (how == CT_CLOSE_NO_ENTRY)
		return;
	struct ct_fstat *s = ct_stat_for(r, f->user);
	s->active--;
	if (!s->active)
		s->total += ticks;
	s->self += ticks > f->child_ticks ? ticks - f->child_ticks : 0;
	if (how == CT_CLOSE_UNFINISHED)
		return;
	if (!s->finished || ticks < s->min)
		s->min = ticks;
	if (ticks > s->max)
		s->max = ticks;
	s->sum += ticks;
	s->finished++;
}

static const struct ct_builder_ops ct_report_ops = {
	.enter = ct_report_enter,
	.exit = ct_report_exit,
};

static enum ct_sort ct_sort_key;
static const struct ct_report *ct_sort_report;

static double ct_avg(const struct ct_fstat *s)
{
	return s->finished ? (double)s->sum / (double)s->finished : 0;
}

static int ct_row_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct ct_fstat *p = &ct_sort_report->st[x], *q = &ct_sort_report->st[y];
	double u = 0, v = 0;

	switch (ct_sort_key) {
	case CT_SORT_TOTAL:
		u = (double)p->total;
		v = (double)q->total;
		break;
	case CT_SORT_SELF:
		u = (double)p->self;
		v = (double)q->self;
		break;
	case CT_SORT_CALLS:
		u = (double)p->calls;
		v = (double)q->calls;
		break;
	case CT_SORT_AVG:
		u = ct_avg(p);
		v = ct_avg(q);
		break;
	case CT_SORT_MAX:
		u = (double)p->max;
		v = (double)q->max;
		break;
	case CT_SORT_NAME:
		break;
	}
	if (u != v)
		return u > v ? -1 : 1;
	return strcmp(ct_symbols_func(ct_sort_report->sym, x)->name,
		      ct_symbols_func(ct_sort_report->sym, y)->name);
}

static void ct_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void ct_print_json(struct ct_report *r, const uint32_t *rows, size_t n, FILE *out, double k)
{
	fputs("[", out);
	for (size_t i = 0; i < n; i++) {
		const struct ct_fstat *s = &r->st[rows[i]];
		const struct ct_func *f = ct_symbols_func(r->sym, rows[i]);
		fputs(i ? ",\n  {" : "\n  {", out);
		fputs("\"name\": ", out);
		ct_json_string(out, f->name);
		fputs(", \"symbol\": ", out);
		ct_json_string(out, f->symbol);
		fputs(", \"module\": ", out);
		ct_json_string(out, f->module);
		fprintf(out,
			", \"calls\": %llu, \"total_ns\": %.0f, \"self_ns\": %.0f, \"avg_ns\": "
			"%.0f, "
			"\"min_ns\": %.0f, \"max_ns\": %.0f}",
			(unsigned long long)s->calls, (double)s->total * k, (double)s->self * k,
			ct_avg(s) * k, (double)s->min * k, (double)s->max * k);
	}
	fputs(n ? "\n]\n" : "]\n", out);
}

static void ct_print_text(struct ct_report *r, const uint32_t *rows, size_t n, FILE *out, double k)
{
	char c[6][32];
	fprintf(out,
		"%s  Total time   Self time       Calls     Average     Minimum     Maximum  "
		"Function%s\n",
		ct_c_bold, ct_c_reset);
	fprintf(out, "  ==========  ==========  ==========  ==========  ==========  ==========  "
		     "========\n");
	for (size_t i = 0; i < n; i++) {
		const struct ct_fstat *s = &r->st[rows[i]];
		ct_fmt_duration(c[0], sizeof(c[0]), (double)s->total * k);
		ct_fmt_duration(c[1], sizeof(c[1]), (double)s->self * k);
		ct_fmt_duration(c[3], sizeof(c[3]), ct_avg(s) * k);
		ct_fmt_duration(c[4], sizeof(c[4]), (double)s->min * k);
		ct_fmt_duration(c[5], sizeof(c[5]), (double)s->max * k);
		fprintf(out, "  %s  %s  %10llu  %s  %s  %s  %s\n", c[0], c[1],
			(unsigned long long)s->calls, c[3], c[4], c[5],
			ct_symbols_func(r->sym, rows[i])->name);
	}
}

/* Counts from a lossy recording are short: say by how much, per thread. */
static void ct_report_losses(const struct ct_trace *t, FILE *out, int json)
{
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct ct_thread_info *th = &t->threads[i];
		char n[32];
		if (!th->lost)
			continue;
		ct_fmt_count(n, sizeof(n), th->lost);
		if (json)
			ct_warn("%s events lost in thread %d (pid %d): its counts and times are short",
				n, th->tid, th->pid);
		else
			fprintf(out, "# %s events lost in thread %d (pid %d): its counts and times are short\n",
				n, th->tid, th->pid);
	}
}

int ct_report(struct ct_trace *t, struct ct_symbols *sym, FILE *out, const struct ct_report_opts *o)
{
	struct ct_report r = { .sym = sym };
	int rc = 0;

	for (size_t i = 0; i < t->nthreads; i++) {
		struct ct_builder b;
		struct ct_stream s;
		struct ct_event ev;
		int got;

		r.th = &t->threads[i];
		ct_builder_init(&b, &ct_report_ops, &r);
		ct_stream_open(&s, t, r.th);
		while ((got = ct_stream_next(&s, &ev)) > 0)
			ct_builder_event(&b, &ev);
		if (got < 0)
			rc = -1;
		ct_builder_finish(&b);
		ct_stream_close(&s);
		ct_builder_free(&b);
	}

	uint32_t *rows = ct_malloc(r.nst * sizeof(uint32_t) + 1);
	size_t n = 0;
	for (size_t i = 0; i < r.nst; i++)
		if (r.st[i].calls)
			rows[n++] = (uint32_t)i;
	ct_sort_key = o->sort;
	ct_sort_report = &r;
	qsort(rows, n, sizeof(*rows), ct_row_cmp);
	if (o->json)
		ct_print_json(&r, rows, n, out, t->ns_per_tick);
	else
		ct_print_text(&r, rows, n, out, t->ns_per_tick);
	ct_report_losses(t, out, o->json);
	free(rows);
	free(r.st);
	return rc;
}
