// SPDX-License-Identifier: MIT
/*
 * report with record --kernel: the off-CPU time of each call, found by
 * keeping the thread's open calls (an interval is its innermost call's own
 * and every enclosing call's), and the system calls' own rows (--syscalls):
 * "read [syscall]", count, total, average, maximum, errors.
 */
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "report_kernel.h"
#include "syscalls.h"
#include "text.h"

void ct_rk_enter(struct ct_report_kernel *k, uint32_t row)
{
	if (k->depth == k->cap) {
		k->cap = k->cap ? k->cap * 2 : 64;
		k->stack = ct_realloc(k->stack, k->cap * sizeof(*k->stack));
	}
	k->stack[k->depth++] = (struct ct_rk_frame){ .row = row };
}

uint64_t ct_rk_exit(struct ct_report_kernel *k)
{
	if (!k->depth)
		return 0;
	uint64_t off = k->stack[--k->depth].off;
	if (k->depth)
		k->stack[k->depth - 1].off += off;
	return off;
}

static void ct_rk_syscall(struct ct_report_kernel *k, const struct ct_kernel_rec *r)
{
	if (r->nr >= CT_RK_SYSCALLS)
		return;
	if (!k->sys)
		k->sys = ct_calloc(CT_RK_SYSCALLS, sizeof(*k->sys));
	struct ct_rk_sys *s = &k->sys[r->nr];
	uint64_t d = r->end - r->start;
	k->nsys += !s->calls;
	s->calls++;
	s->total += d;
	if (d > s->max)
		s->max = d;
	s->errors += r->ret < 0 && r->ret >= -4095;
}

uint64_t ct_rk_record(struct ct_report_kernel *k, const struct ct_kernel_rec *r, uint32_t *row)
{
	if (r->kind == CT_KREC_SYSCALL) {
		ct_rk_syscall(k, r);
		return 0;
	}
	if (!k->depth) /* outside every call shown */
		return 0;
	struct ct_rk_frame *f = &k->stack[k->depth - 1];
	f->off += r->end - r->start;
	*row = f->row;
	return r->end - r->start;
}

static const struct ct_rk_sys *ct_rk_sort_sys;

static int ct_rk_cmp(const void *a, const void *b)
{
	uint64_t x = ct_rk_sort_sys[*(const uint32_t *)a].total;
	uint64_t y = ct_rk_sort_sys[*(const uint32_t *)b].total;
	return x != y ? (x > y ? -1 : 1)
		      : (*(const uint32_t *)a > *(const uint32_t *)b) -
				(*(const uint32_t *)a < *(const uint32_t *)b);
}

/* The numbers called, the longest total first. */
static uint32_t *ct_rk_rows(const struct ct_report_kernel *k, size_t *n)
{
	uint32_t *rows = ct_malloc(CT_RK_SYSCALLS * sizeof(*rows));
	*n = 0;
	for (uint32_t i = 0; k->sys && i < CT_RK_SYSCALLS; i++)
		if (k->sys[i].calls)
			rows[(*n)++] = i;
	ct_rk_sort_sys = k->sys;
	qsort(rows, *n, sizeof(*rows), ct_rk_cmp);
	return rows;
}

static void ct_rk_name(char *buf, size_t len, const struct ct_report_kernel *k, uint32_t nr)
{
	const char *name = ct_syscall_name((enum ct_sys_abi)k->abi, nr);
	if (name)
		snprintf(buf, len, "%s [syscall]", name);
	else
		snprintf(buf, len, "syscall_%u [syscall]", nr);
}

void ct_rk_print_text(const struct ct_report_kernel *k, FILE *out, double ns_per_tick)
{
	size_t n;
	uint32_t *rows = ct_rk_rows(k, &n);
	char c[3][32], name[64];
	fprintf(out,
		"\n%s  Total time       Calls     Average     Maximum      Errors  System call%s\n",
		ct_c_bold, ct_c_reset);
	fputs("  ==========  ==========  ==========  ==========  ==========  ===========\n", out);
	for (size_t i = 0; i < n; i++) {
		const struct ct_rk_sys *s = &k->sys[rows[i]];
		ct_fmt_duration(c[0], sizeof(c[0]), (double)s->total * ns_per_tick);
		ct_fmt_duration(c[1], sizeof(c[1]),
				(double)s->total / (double)s->calls * ns_per_tick);
		ct_fmt_duration(c[2], sizeof(c[2]), (double)s->max * ns_per_tick);
		ct_rk_name(name, sizeof(name), k, rows[i]);
		fprintf(out, "  %s  %10llu  %s  %s  %10llu  %s\n", c[0],
			(unsigned long long)s->calls, c[1], c[2], (unsigned long long)s->errors,
			name);
	}
	free(rows);
}

void ct_rk_print_json(const struct ct_report_kernel *k, FILE *out, double ns_per_tick, size_t nrows)
{
	size_t n;
	uint32_t *rows = ct_rk_rows(k, &n);
	char name[64];
	for (size_t i = 0; i < n; i++) {
		const struct ct_rk_sys *s = &k->sys[rows[i]];
		ct_rk_name(name, sizeof(name), k, rows[i]);
		fprintf(out,
			"%s{\"name\": \"%s\", \"kind\": \"syscall\", \"nr\": %u, \"calls\": %llu, "
			"\"total_ns\": %.0f, \"avg_ns\": %.0f, \"max_ns\": %.0f, \"errors\": %llu}",
			nrows + i ? ",\n  " : "\n  ", name, rows[i], (unsigned long long)s->calls,
			(double)s->total * ns_per_tick,
			(double)s->total / (double)s->calls * ns_per_tick,
			(double)s->max * ns_per_tick, (unsigned long long)s->errors);
	}
	free(rows);
}

void ct_rk_free(struct ct_report_kernel *k)
{
	free(k->stack);
	free(k->sys);
}
