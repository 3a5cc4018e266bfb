/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "stacks.h"

static uint32_t ct_stacks_new_node(struct ct_stacks *s, uint32_t parent, uint32_t func)
{
	if (s->nnodes == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->nodes = ct_realloc(s->nodes, s->cap * sizeof(*s->nodes));
	}
	struct ct_stack_node *n = &s->nodes[s->nnodes];
	memset(n, 0, sizeof(*n));
	n->parent = parent;
	n->func = func;
	return (uint32_t)s->nnodes++;
}

void ct_stacks_init(struct ct_stacks *s, uint32_t root_func)
{
	memset(s, 0, sizeof(*s));
	ct_map_init(&s->index, 1024);
	ct_stacks_new_node(s, CT_STACK_NONE, root_func);
}

void ct_stacks_free(struct ct_stacks *s)
{
	free(s->nodes);
	ct_map_free(&s->index);
	memset(s, 0, sizeof(*s));
}

uint32_t ct_stacks_child(struct ct_stacks *s, uint32_t parent, uint32_t func)
{
	int added;
	uint64_t *v = ct_map_put(&s->index, ((uint64_t)parent << 32 | func) + 1, &added);
	if (added)
		*v = ct_stacks_new_node(s, parent, func);
	return (uint32_t)*v;
}

uint32_t *ct_stacks_order(const struct ct_stacks *s,
			  int (*cmp)(const void *a, const void *b, void *ctx), void *ctx)
{
	size_t n = s->nnodes;
	/* the children of i are kids[first[i]] .. kids[first[i + 1] - 1] */
	uint32_t *first = ct_calloc(n + 1, sizeof(uint32_t));
	uint32_t *kids = ct_malloc(n * sizeof(uint32_t) + 1);
	uint32_t *fill = ct_malloc(n * sizeof(uint32_t) + 1);
	uint32_t *order = ct_malloc(n * sizeof(uint32_t) + 1);
	uint32_t *stack = ct_malloc(n * sizeof(uint32_t) + 1);
	size_t no = 0, sp = 0;

	for (size_t i = 1; i < n; i++)
		first[s->nodes[i].parent + 1]++;
	for (size_t i = 0; i < n; i++)
		first[i + 1] += first[i];
	memcpy(fill, first, n * sizeof(uint32_t));
	for (size_t i = 1; i < n; i++)
		kids[fill[s->nodes[i].parent]++] = (uint32_t)i;
	for (size_t i = 0; i < n; i++)
		if (first[i + 1] - first[i] > 1)
			qsort_r(kids + first[i], first[i + 1] - first[i], sizeof(uint32_t), cmp,
				ctx);
	/* pre-order: push children last-first so the first is visited first */
	stack[sp++] = 0;
	while (sp) {
		uint32_t v = stack[--sp];
		order[no++] = v;
		for (uint32_t k = first[v + 1]; k > first[v]; k--)
			stack[sp++] = kids[k - 1];
	}
	free(first);
	free(kids);
	free(fill);
	free(stack);
	return order;
}
