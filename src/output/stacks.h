/* SPDX-License-Identifier: MIT */
/*
 * Calls merged by call stack (export --format folded, flame): one node per
 * distinct stack, the node of the caller's stack plus a function, found in a
 * hash map keyed by (parent node, function). Memory follows the number of
 * distinct stacks, never the length of the trace. What a node adds up, and
 * what a function is, is the user's: the tree only merges.
 */
#ifndef CT_OUTPUT_STACKS_H
#define CT_OUTPUT_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "../util/util.h"

#define CT_STACK_NONE UINT32_MAX

struct ct_stack_node {
	uint32_t parent; /* CT_STACK_NONE for the root */
	uint32_t func;	 /* the user's id of the function (or thread...) at this position */
	uint64_t total;	 /* ticks of the calls at this stack position */
	uint64_t self;	 /* the part of total not in the children counted */
	uint64_t calls;
};

struct ct_stacks {
	struct ct_stack_node *nodes; /* 0 is the root */
	size_t nnodes, cap;
	struct ct_map index; /* (parent << 32 | func) + 1 -> node */
};

/* A tree of the root alone, with func root_func. */
void ct_stacks_init(struct ct_stacks *s, uint32_t root_func);
void ct_stacks_free(struct ct_stacks *s);

/* The node of func called from parent, made (all counts 0) on first sight. */
uint32_t ct_stacks_child(struct ct_stacks *s, uint32_t parent, uint32_t func);

/*
 * The nodes in depth-first order from the root, siblings sorted by cmp (it
 * compares two node ids, given as const uint32_t *): a parent comes before
 * its children and a subtree is a contiguous range. Freed by the caller.
 */
uint32_t *ct_stacks_order(const struct ct_stacks *s,
			  int (*cmp)(const void *a, const void *b, void *ctx), void *ctx);

#endif
