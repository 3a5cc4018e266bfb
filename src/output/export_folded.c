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
 * Stacks are kept as a tree of (parent, function) nodes: memory grows with the
 * distinct stacks, not with the trace. Lines are written depth first,
 * siblings sorted by name. A ';' in a name becomes ':', a line break a space,
 * a byte that is not UTF-8 U+FFFD, as in the other formats (text.h).
 */
#include <stdlib.h>

#include "export_kit.h"
#include "text.h"

struct ct_fnode {
	uint32_t func, parent, depth;
	uint32_t child, next; /* first child, next sibling (0: none) */
	uint64_t weight;      /* clock ticks of self time, or calls */
};

struct ct_fd {
	struct ct_export *x;
	int calls;
	struct ct_fnode *nodes; /* 0 is the root */
	uint32_t nnodes, cap;
	struct ct_map index; /* (parent << 32 | func) + 1 -> node */
	uint32_t *stack;     /* the current thread's open calls: their nodes */
	uint32_t open, scap;
	char **names; /* per function, sanitised */
	size_t nnames;
};

static uint32_t ct_fd_node(struct ct_fd *d, uint32_t parent, uint32_t func)
{
	int added;
	uint64_t *slot = ct_map_put(&d->index, ((uint64_t)parent << 32 | func) + 1, &added);

	if (!added)
		return (uint32_t)*slot;
	if (d->nnodes == d->cap) {
		d->cap *= 2;
		d->nodes = ct_realloc(d->nodes, d->cap * sizeof(*d->nodes));
	}
	uint32_t id = d->nnodes++;
	struct ct_fnode *n = &d->nodes[id], *p = &d->nodes[parent];
	n->func = func;
	n->parent = parent;
	n->depth = parent ? p->depth + 1 : 0;
	n->child = 0;
	n->next = p->child;
	n->weight = 0;
	p->child = id;
	*slot = id;
	return id;
}

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
	uint32_t id = ct_fd_node(d, d->open ? d->stack[d->open - 1] : 0, row);
	d->stack[d->open++] = id;
	if (d->calls)
		d->nodes[id].weight++;
}

static void ct_fd_exit(void *ctx, const struct ct_call *c)
{
	struct ct_fd *d = ctx;

	ct_xprogress_tick(&d->x->prog, c->exit_clock);
	/* a return whose call was not seen has no time of its own */
	if (!d->open || (c->how == CT_CLOSE_NO_ENTRY && c->depth >= d->open))
		return;
	uint32_t id = d->stack[--d->open];
	if (d->calls)
		return;
	uint64_t ticks = c->exit_clock > c->enter_clock ? c->exit_clock - c->enter_clock : 0;
	d->nodes[id].weight += ticks > c->child_ticks ? ticks - c->child_ticks : 0;
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
	if (func >= d->nnames) {
		size_t n = d->nnames ? d->nnames : 256;
		while (n <= func)
			n *= 2;
		d->names = ct_realloc(d->names, n * sizeof(*d->names));
		memset(d->names + d->nnames, 0, (n - d->nnames) * sizeof(*d->names));
		d->nnames = n;
	}
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

static struct ct_fd *ct_fd_sorting;

static int ct_fd_cmp(const void *a, const void *b)
{
	const struct ct_fnode *x = &ct_fd_sorting->nodes[*(const uint32_t *)a];
	const struct ct_fnode *y = &ct_fd_sorting->nodes[*(const uint32_t *)b];
	int c = strcmp(ct_fd_name(ct_fd_sorting, x->func), ct_fd_name(ct_fd_sorting, y->func));
	return c ? c : x->func < y->func ? -1 : x->func > y->func;
}

/* Depth first from the root, siblings by name; the path is kept as we go. */
static void ct_fd_write(struct ct_fd *d)
{
	struct ct_xout *o = &d->x->out;
	uint32_t *todo = ct_malloc(d->nnodes * sizeof(*todo)); /* nodes yet to visit */
	uint32_t *kids = ct_malloc(d->nnodes * sizeof(*kids));
	size_t *plen = NULL; /* path length up to each depth */
	size_t ntodo = 0, pcap = 0;
	struct ct_buf path = { 0 };
	double k = d->x->t->ns_per_tick;

	ct_fd_sorting = d;
	for (uint32_t id = 0;;) {
		/* queue id's children, first by name on top */
		size_t n = 0;
		for (uint32_t c = d->nodes[id].child; c; c = d->nodes[c].next)
			kids[n++] = c;
		qsort(kids, n, sizeof(*kids), ct_fd_cmp);
		while (n)
			todo[ntodo++] = kids[--n];
		if (!ntodo)
			break;
		id = todo[--ntodo];

		const struct ct_fnode *nd = &d->nodes[id];
		if (nd->depth >= pcap) {
			pcap = pcap ? pcap * 2 : 64;
			while (pcap <= nd->depth)
				pcap *= 2;
			plen = ct_realloc(plen, pcap * sizeof(*plen));
		}
		path.len = nd->depth ? plen[nd->depth - 1] : 0;
		if (nd->depth)
			ct_buf_append(&path, ";", 1);
		const char *name = ct_fd_name(d, nd->func);
		ct_buf_append(&path, name, strlen(name));
		plen[nd->depth] = path.len;

		uint64_t w = d->calls ? nd->weight : ct_sat_u64((double)nd->weight * k + 0.5);
		if (!w)
			continue;
		uint8_t *p = ct_xout_room(o, path.len + 24);
		memcpy(p, path.data, path.len);
		p += path.len;
		*p++ = ' ';
		p = ct_put_u64(p, w);
		*p++ = '\n';
		ct_xout_commit(o, p);
	}
	ct_buf_free(&path);
	free(plen);
	free(kids);
	free(todo);
}

int ct_export_folded(struct ct_export *x)
{
	struct ct_fd d = { .x = x, .calls = x->o->weight == CT_FOLD_CALLS };
	int rc;

	d.cap = 1024;
	d.nodes = ct_calloc(d.cap, sizeof(*d.nodes));
	d.nnodes = 1;
	ct_map_init(&d.index, 1024);
	rc = ct_walk_run(x->w, &ct_fd_sink, &d);
	if (rc >= 0)
		ct_fd_write(&d);
	for (size_t i = 0; i < d.nnames; i++)
		free(d.names[i]);
	free(d.names);
	free(d.stack);
	free(d.nodes);
	ct_map_free(&d.index);
	return rc < 0 ? -1 : 0;
}
