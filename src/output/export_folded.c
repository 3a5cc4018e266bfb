/* SPDX-License-Identifier: MIT */
/*
 * calltrace export --format folded: folded stacks, the input of
 * flamegraph.pl, inferno and speedscope.
 *
 *   main;parse;lex 12345
 *
 * One line per distinct stack (all threads together), weighted by the self
 * time in ns of the calls at that stack (the time not spent in the children
 * shown), or with --weight calls by their number. Summing the lines a
 * function is the leaf of gives its self time (or calls), as report says.
 * Stacks are kept as a tree of (parent, function) nodes (stacks.h): memory
 * grows with the distinct stacks, not with the trace. Lines are written depth first,
 * siblings sorted by name. A ';' in a name becomes ':', a line break a space,
 * a byte that is not UTF-8 U+FFFD, as in the other formats (text.h).
 */
#include <stdlib.h>

#include "export_kit.h"
#include "stacks.h"
#include "text.h"

struct ct_fd {
	struct ct_export *x;
	int calls;
	struct ct_stacks tree; /* a node's func is a row of ct_symbols_func */
	uint32_t *stack;       /* the current thread's open calls: their nodes */
	uint32_t open, scap;
	char **names; /* per function, sanitised */
	size_t nnames;
};

static void ct_fd_thread_begin(void *ctx, const struct ct_thread_info *th)
{
	struct ct_fd *d = ctx;
	d->open = 0;
	ct_xprogress_thread(&d->x->prog, th);
}

static void ct_fd_enter(void *ctx, const struct ct_call *c)
{
	struct ct_fd *d = ctx;

	ct_xprogress_tick(&d->x->prog, c->enter_clock);
	if (d->open == d->scap) {
		d->scap = d->scap ? d->scap * 2 : 64;
		d->stack = ct_realloc(d->stack, d->scap * sizeof(*d->stack));
	}
	/* a function's clones (f.constprop.0 ...) are one frame with it */
	uint32_t row = ct_symbols_func(d->x->sym, c->func)->row;
	uint32_t id = ct_stacks_child(&d->tree, d->open ? d->stack[d->open - 1] : 0, row);
	d->stack[d->open++] = id;
	d->tree.nodes[id].calls++;
}

static void ct_fd_exit(void *ctx, const struct ct_call *c)
{
	struct ct_fd *d = ctx;

	ct_xprogress_tick(&d->x->prog, c->exit_clock);
	/* a return whose call was not seen has no time of its own */
	if (!d->open || (c->how == CT_CLOSE_NO_ENTRY && c->depth >= d->open))
		return;
	uint32_t id = d->stack[--d->open];
	uint64_t ticks = c->exit_clock > c->enter_clock ? c->exit_clock - c->enter_clock : 0;
	d->tree.nodes[id].self += ticks > c->child_ticks ? ticks - c->child_ticks : 0;
}

static void ct_fd_mark(void *ctx, const struct ct_event *ev, uint32_t depth)
{
	(void)ctx;
	(void)ev;
	(void)depth;
}

static void ct_fd_thread_end(void *ctx, const struct ct_thread_info *th)
{
	struct ct_fd *d = ctx;
	(void)th;
	d->open = 0;
}

static const struct ct_sink ct_fd_sink = {
	.thread_begin = ct_fd_thread_begin,
	.enter = ct_fd_enter,
	.exit = ct_fd_exit,
	.mark = ct_fd_mark,
	.thread_end = ct_fd_thread_end,
};

static const char *ct_fd_name(struct ct_fd *d, uint32_t func)
{
	if (func >= d->nnames)
		d->names = ct_table_fit(d->names, &d->nnames, func, sizeof(*d->names));
	if (!d->names[func]) {
		const struct ct_func *fn = ct_symbols_func(d->x->sym, func);
		const char *name = fn && fn->name && *fn->name ? fn->name : "?";
		struct ct_buf b = { 0 };
		ct_utf8_append(&b, name, strlen(name) + 1); /* the NUL too */
		for (uint8_t *p = b.data; *p; p++) {
			if (*p == ';')
				*p = ':';
			else if (*p == '\n' || *p == '\r')
				*p = ' ';
		}
		d->names[func] = (char *)b.data;
	}
	return d->names[func];
}

/* Siblings by name, then by row (two functions may share a name). */
static int ct_fd_cmp(const void *a, const void *b, void *ctx)
{
	struct ct_fd *d = ctx;
	const struct ct_stack_node *x = &d->tree.nodes[*(const uint32_t *)a];
	const struct ct_stack_node *y = &d->tree.nodes[*(const uint32_t *)b];
	int c = strcmp(ct_fd_name(d, x->func), ct_fd_name(d, y->func));
	return c ? c : x->func < y->func ? -1 : x->func > y->func;
}

/*
 * Depth first from the root, siblings by name. A node's path is its
 * parent's and its name: in that order the path of the parent is still at
 * the start of the buffer when a child comes.
 */
static void ct_fd_write(struct ct_fd *d)
{
	struct ct_out *o = &d->x->out;
	uint32_t *order = ct_stacks_order(&d->tree, ct_fd_cmp, d);
	size_t *plen = ct_malloc(d->tree.nnodes * sizeof(*plen)); /* each node's path length */
	struct ct_buf path = { 0 };
	double k = d->x->t->ns_per_tick;

	plen[0] = 0;
	for (size_t i = 1; i < d->tree.nnodes; i++) {
		uint32_t id = order[i];
		const struct ct_stack_node *nd = &d->tree.nodes[id];
		path.len = plen[nd->parent];
		if (nd->parent)
			ct_buf_append(&path, ";", 1);
		const char *name = ct_fd_name(d, nd->func);
		ct_buf_append(&path, name, strlen(name));
		plen[id] = path.len;

		uint64_t w = d->calls ? nd->calls : ct_sat_u64((double)nd->self * k + 0.5);
		if (!w)
			continue;
		uint8_t *p = ct_out_room(o, path.len + 24);
		memcpy(p, path.data, path.len);
		p += path.len;
		*p++ = ' ';
		p = ct_put_u64(p, w);
		*p++ = '\n';
		ct_out_commit(o, p);
	}
	ct_buf_free(&path);
	free(plen);
	free(order);
}

int ct_export_folded(struct ct_export *x)
{
	struct ct_fd d = { .x = x, .calls = x->o->weight == CT_FOLD_CALLS };
	int rc;

	ct_stacks_init(&d.tree, 0);
	rc = ct_walk_run(x->w, &ct_fd_sink, &d);
	if (rc >= 0)
		ct_fd_write(&d);
	for (size_t i = 0; i < d.nnames; i++)
		free(d.names[i]);
	free(d.names);
	free(d.stack);
	ct_stacks_free(&d.tree);
	return rc < 0 ? -1 : 0;
}
