/* SPDX-License-Identifier: MIT */
/*
 * calltrace flame: calls merged by call stack, as a page that draws them.
 *
 * Every visible call lands in the node of its stack (stacks.h): the node of
 * its caller's stack plus its function. A node adds up the time of the calls at its position (total),
 * the part of it not spent in visible children (self) and their number, so
 * memory follows the number of distinct stacks, never the number of calls.
 * Under the root, threads are merged (one tree for the whole run) or, with
 * per_thread, each thread gets a node of its own.
 *
 * The page (flame_page.c) gets the tree as JSON: a table of modules, a table
 * of functions [name, module (-1: none, -2: the root or a thread, not a
 * function), full symbol or ""], and a flat array of nodes, five numbers
 * each: parent, function, total, self, calls, with times in clock ticks and
 * nsPerTick to turn them into time. Nodes come in depth-first
 * order, siblings sorted by name, so a parent precedes its children and a
 * subtree is a contiguous range: the page lays the tree out in one pass.
 */
#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "stacks.h"
#include "text.h"
#include "../analysis/kwalk.h"
#include "../util/util.h"

#define CT_NONE UINT32_MAX

struct ct_ffn {
	char *name;
	char *symbol;	/* NULL when it is the name */
	int32_t module; /* index into mods, -1 for none, -2 for the root and threads */
};

struct ct_flame {
	struct ct_trace *t;
	struct ct_symbols *sym;
	int per_thread;
	char *title;

	struct ct_stacks tree; /* a node's func is an index into fns */

	struct ct_ffn *fns;
	size_t nfns, capfns;
	uint32_t *fn_of; /* ct_symbols_func id -> fn + 1 (0: not yet) */
	size_t nfn_of;
	char **mods;
	size_t nmods, capmods;

	/* the walk: open calls by depth, under base (the root or the thread's node) */
	uint32_t *stack;
	size_t sp, capstack;
	uint32_t base;
	uint32_t nthreads;
	uint64_t lost;
	/* --weight oncpu/offcpu: per open call, ticks off the CPU, its own and with its children */
	enum ct_flame_weight weight;
	uint64_t *off_own, *off_all;
};

static uint32_t ct_flame_module(struct ct_flame *fl, const char *m)
{
	if (!m || !*m)
		return CT_NONE;
	for (size_t i = 0; i < fl->nmods; i++)
		if (!strcmp(fl->mods[i], m))
			return (uint32_t)i;
	if (fl->nmods == fl->capmods) {
		fl->capmods = fl->capmods ? fl->capmods * 2 : 16;
		fl->mods = ct_realloc(fl->mods, fl->capmods * sizeof(*fl->mods));
	}
	fl->mods[fl->nmods] = ct_strdup(m);
	return (uint32_t)fl->nmods++;
}

/* module NULL: a frame that is not a function (the root, a thread) */
static uint32_t ct_flame_add_fn(struct ct_flame *fl, const char *name, const char *symbol,
				const char *module)
{
	if (fl->nfns == fl->capfns) {
		fl->capfns = fl->capfns ? fl->capfns * 2 : 256;
		fl->fns = ct_realloc(fl->fns, fl->capfns * sizeof(*fl->fns));
	}
	struct ct_ffn *f = &fl->fns[fl->nfns];
	f->name = ct_strdup(name ? name : "?");
	f->symbol = symbol && name && strcmp(symbol, name) ? ct_strdup(symbol) : NULL;
	uint32_t m = module ? ct_flame_module(fl, module) : CT_NONE;
	f->module = !module ? -2 : m == CT_NONE ? -1 : (int32_t)m;
	return (uint32_t)fl->nfns++;
}

/* The function table's entry for a ct_symbols_func id. */
static uint32_t ct_flame_fn(struct ct_flame *fl, uint32_t id)
{
	if (id >= fl->nfn_of)
		fl->fn_of = ct_table_fit(fl->fn_of, &fl->nfn_of, id, sizeof(*fl->fn_of));
	if (!fl->fn_of[id]) {
		const struct ct_func *f = ct_symbols_func(fl->sym, id);
		uint32_t fn;
		if (f && f->row != id) /* a clone (f.constprop.0 ...): its function's frame */
			fn = ct_flame_fn(fl, f->row);
		else
			fn = ct_flame_add_fn(fl, f ? f->name : NULL, f ? f->symbol : NULL,
					     f && f->module ? f->module : "");
		fl->fn_of[id] = fn + 1;
	}
	return fl->fn_of[id] - 1;
}

static void ct_flame_thread_begin(void *ctx, const struct ct_thread_info *th)
{
	struct ct_flame *fl = ctx;

	fl->nthreads++;
	fl->lost += th->lost;
	fl->sp = 0;
	fl->base = 0;
	if (!fl->per_thread)
		return;
	const struct ct_process_info *p = ct_trace_process(fl->t, th->instance);
	const char *exe = p && p->exe ? ct_basename(p->exe) : NULL;
	char *label;
	if (th->snapshot)
		label = ct_printf("thread %d (%s), snapshot %u", th->tid, exe ? exe : "?",
				  th->snapshot);
	else
		label = ct_printf("thread %d (%s)", th->tid, exe ? exe : "?");
	/* one node per thread record (instance, tid, snapshot): a label of its own */
	fl->base = ct_stacks_child(&fl->tree, 0, ct_flame_add_fn(fl, label, NULL, NULL));
	free(label);
}

static void ct_flame_enter(void *ctx, const struct ct_call *c)
{
	struct ct_flame *fl = ctx;
	size_t d = ct_min((size_t)c->depth, fl->sp); /* a gap cannot happen; stay inside */
	uint32_t parent = d ? fl->stack[d - 1] : fl->base;

	if (d >= fl->capstack) {
		fl->capstack = fl->capstack ? fl->capstack * 2 : 256;
		fl->stack = ct_realloc(fl->stack, fl->capstack * sizeof(*fl->stack));
		fl->off_own = ct_realloc(fl->off_own, fl->capstack * sizeof(*fl->off_own));
		fl->off_all = ct_realloc(fl->off_all, fl->capstack * sizeof(*fl->off_all));
	}
	fl->stack[d] = ct_stacks_child(&fl->tree, parent, ct_flame_fn(fl, c->func));
	fl->off_own[d] = fl->off_all[d] = 0;
	fl->sp = d + 1;
}

static void ct_flame_exit(void *ctx, const struct ct_call *c)
{
	struct ct_flame *fl = ctx;
	size_t d = c->depth;

	/*
	 * An exit closes the call entered at its depth. A return whose call was never
	 * seen (no enter, no time) is not a call here, as in report.
	 */
	if (c->how == CT_CLOSE_NO_ENTRY || d >= fl->sp)
		return;
	struct ct_stack_node *n = &fl->tree.nodes[fl->stack[d]];
	if (c->func >= fl->nfn_of || fl->fn_of[c->func] != n->func + 1)
		return;
	uint64_t dur = c->exit_clock > c->enter_clock ? c->exit_clock - c->enter_clock : 0;
	uint64_t self = dur > c->child_ticks ? dur - c->child_ticks : 0;
	if (fl->weight != CT_FLAME_WALL) {
		uint64_t all = fl->off_all[d], own = fl->off_own[d];
		if (d)
			fl->off_all[d - 1] += all;
		dur = fl->weight == CT_FLAME_OFFCPU ? all : dur > all ? dur - all : 0;
		self = fl->weight == CT_FLAME_OFFCPU ? own : self > own ? self - own : 0;
	}
	n->total += dur;
	n->self += self;
	n->calls++;
	if (d == 0) {
		fl->tree.nodes[fl->base].total += dur;
		if (fl->base)
			fl->tree.nodes[0].total += dur;
	}
	fl->sp = d;
}

static void ct_flame_thread_end(void *ctx, const struct ct_thread_info *th)
{
	struct ct_flame *fl = ctx;
	(void)th;
	fl->sp = 0;
}

/* record --kernel: an off-CPU interval is the innermost open call's own */
static void ct_flame_kernel(void *ctx, const struct ct_kernel_rec *k, uint32_t depth)
{
	struct ct_flame *fl = ctx;
	(void)depth;
	if (k->kind != CT_KREC_OFFCPU || !fl->sp)
		return;
	fl->off_own[fl->sp - 1] += k->end - k->start;
	fl->off_all[fl->sp - 1] += k->end - k->start;
}

static const struct ct_sink ct_flame_sink = {
	.thread_begin = ct_flame_thread_begin,
	.enter = ct_flame_enter,
	.exit = ct_flame_exit,
	.thread_end = ct_flame_thread_end,
};

int ct_flame_weight_parse(const char *arg, enum ct_flame_weight *out)
{
	static const char *const names[] = { "wall", "oncpu", "offcpu" };
	for (size_t i = 0; i < CT_ARRAY_SIZE(names); i++)
		if (!strcmp(arg, names[i])) {
			*out = (enum ct_flame_weight)i;
			return 0;
		}
	ct_error("flame: --weight takes wall, oncpu or offcpu, not '%s'", arg);
	return -1;
}

struct ct_flame *ct_flame_build(struct ct_trace *t, struct ct_symbols *sym, struct ct_walk *w,
				const struct ct_flame_opts *o, int *rc)
{
	struct ct_flame *fl = ct_calloc(1, sizeof(*fl));
	const char *cmd = ct_trace_meta(t, "command");

	fl->t = t;
	fl->sym = sym;
	fl->per_thread = o->per_thread;
	fl->title = ct_strdup(o->title ? o->title : cmd && *cmd ? cmd : "calltrace flame graph");
	fl->weight = o->weight;
	if (fl->weight != CT_FLAME_WALL && !t->nkrecs)
		ct_warn("flame: --weight=%s: the trace has no kernel records (record --kernel): "
			"every frame is as wide as its time",
			fl->weight == CT_FLAME_ONCPU ? "oncpu" : "offcpu");
	if (!t->nkrecs)
		fl->weight = CT_FLAME_WALL;
	ct_stacks_init(&fl->tree, ct_flame_add_fn(fl, "all", NULL, NULL));
	*rc = ct_walk_run_kernel_time(w, &ct_flame_sink, fl, ct_flame_kernel) < 0 ? -1 : 0;
	free(fl->stack);
	free(fl->off_own);
	free(fl->off_all);
	fl->off_own = fl->off_all = NULL;
	fl->stack = NULL;
	fl->sp = fl->capstack = 0;
	return fl;
}

void ct_flame_free(struct ct_flame *fl)
{
	if (!fl)
		return;
	for (size_t i = 0; i < fl->nfns; i++) {
		free(fl->fns[i].name);
		free(fl->fns[i].symbol);
	}
	for (size_t i = 0; i < fl->nmods; i++)
		free(fl->mods[i]);
	free(fl->fns);
	free(fl->mods);
	free(fl->fn_of);
	ct_stacks_free(&fl->tree);
	free(fl->stack);
	free(fl->title);
	free(fl);
}

/* ---- the page ------------------------------------------------------------------- */

static void ct_flame_html_str(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				fputc(*s, out);
			else
				fputc(' ', out);
		}
	}
}

static int ct_flame_sib_cmp(const void *a, const void *b, void *ctx)
{
	const struct ct_flame *fl = ctx;
	const struct ct_stack_node *p = &fl->tree.nodes[*(const uint32_t *)a];
	const struct ct_stack_node *q = &fl->tree.nodes[*(const uint32_t *)b];
	const struct ct_ffn *x = &fl->fns[p->func], *y = &fl->fns[q->func];

	/* threads in the order they started, functions by name */
	if (!(fl->per_thread && p->parent == 0)) {
		int r = strcmp(x->name, y->name);
		if (r)
			return r;
		if (x->module != y->module)
			return x->module < y->module ? -1 : 1;
	}
	return p->func < q->func ? -1 : p->func > q->func;
}

static void ct_flame_data(struct ct_flame *fl, FILE *out)
{
	const struct ct_trace *t = fl->t;
	const char *cmd = ct_trace_meta(t, "command");
	/* depth first, siblings by name: order[i] is an old index */
	uint32_t *order = ct_stacks_order(&fl->tree, ct_flame_sib_cmp, fl);
	uint32_t *newidx = ct_malloc(fl->tree.nnodes * sizeof(uint32_t) + 1);

	fputs("{\"version\":1,\"title\":", out);
	ct_json_fput(out, fl->title, CT_JSON_SCRIPT);
	fputs(",\"command\":", out);
	ct_json_fput(out, cmd ? cmd : "", CT_JSON_SCRIPT);
	static const char *const weights[] = { "wall", "oncpu", "offcpu" };
	fprintf(out,
		",\"nsPerTick\":%.17g,\"perThread\":%s,\"threads\":%u,\"lost\":%llu,"
		"\"weight\":\"%s\"",
		t->ns_per_tick, fl->per_thread ? "true" : "false", fl->nthreads,
		(unsigned long long)fl->lost, weights[fl->weight]);
	fputs(",\n\"modules\":[", out);
	for (size_t i = 0; i < fl->nmods; i++) {
		if (i)
			fputc(',', out);
		ct_json_fput(out, fl->mods[i], CT_JSON_SCRIPT);
	}
	fputs("],\n\"funcs\":[", out);
	for (size_t i = 0; i < fl->nfns; i++) {
		const struct ct_ffn *f = &fl->fns[i];
		fputs(i ? ",\n[" : "\n[", out);
		ct_json_fput(out, f->name, CT_JSON_SCRIPT);
		fprintf(out, ",%d,", f->module);
		ct_json_fput(out, f->symbol ? f->symbol : "", CT_JSON_SCRIPT);
		fputc(']', out);
	}
	fputs("],\n\"nodes\":[", out);
	for (size_t i = 0; i < fl->tree.nnodes; i++)
		newidx[order[i]] = (uint32_t)i;
	for (size_t i = 0; i < fl->tree.nnodes; i++) {
		const struct ct_stack_node *n = &fl->tree.nodes[order[i]];
		long long parent = n->parent == CT_STACK_NONE ? -1 : (long long)newidx[n->parent];
		fprintf(out, "%s%lld,%u,%llu,%llu,%llu", i ? (i % 8 ? "," : ",\n") : "\n", parent,
			n->func, (unsigned long long)n->total, (unsigned long long)n->self,
			(unsigned long long)n->calls);
	}
	fputs("]}", out);
	free(order);
	free(newidx);
}

int ct_flame_write(struct ct_flame *fl, FILE *out)
{
	const char *p = ct_flame_page;

	for (;;) {
		const char *at = strstr(p, "@@");
		if (!at) {
			fputs(p, out);
			break;
		}
		fwrite(p, 1, at - p, out);
		if (!strncmp(at, "@@TITLE@@", 9)) {
			ct_flame_html_str(out, fl->title);
			p = at + 9;
		} else if (!strncmp(at, "@@DATA@@", 8)) {
			ct_flame_data(fl, out);
			p = at + 8;
		} else {
			fputs("@@", out);
			p = at + 2;
		}
	}
	return fflush(out) != 0 || ferror(out) ? -1 : 0;
}
