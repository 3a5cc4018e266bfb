/* SPDX-License-Identifier: MIT */
/*
 * calltrace flame: the walked calls merged into a tree of call stacks (one
 * node per distinct stack, so memory follows the number of stacks, never the
 * length of the trace), written as one self-contained HTML page that draws it
 * as a flame graph or an icicle.
 */
#ifndef CT_OUTPUT_FLAME_H
#define CT_OUTPUT_FLAME_H

#include <stdio.h>

#include "../analysis/walk.h"
#include "../format/reader.h"
#include "../symbols/symbols.h"

/* What a frame's width is: its calls' time, or (record --kernel) the part on or off the CPU. */
enum ct_flame_weight { CT_FLAME_WALL, CT_FLAME_ONCPU, CT_FLAME_OFFCPU };

struct ct_flame_opts {
	const char *title; /* NULL: the recorded command */
	int per_thread;	   /* one subtree per thread under the root, not merged */
	enum ct_flame_weight weight;
};

struct ct_flame;

/* Walk the trace into a tree of stacks; *rc is -1 if part of the trace could not be read. */
struct ct_flame *ct_flame_build(struct ct_trace *t, struct ct_symbols *sym, struct ct_walk *w,
				const struct ct_flame_opts *o, int *rc);
/* --weight: "wall", "oncpu", "offcpu"; -1 (said so) for anything else. */
int ct_flame_weight_parse(const char *arg, enum ct_flame_weight *out);
/* The page; -1 if out reports an error. */
int ct_flame_write(struct ct_flame *fl, FILE *out);
void ct_flame_free(struct ct_flame *fl);

/* flame_page.c: the page, with @@TITLE@@ and @@DATA@@ where they go */
extern const char ct_flame_page[];

#endif
