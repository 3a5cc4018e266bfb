/* SPDX-License-Identifier: MIT */
/* The shared library of the srcline test: definitions, and calls made from inside it. */
#include "report.h"
#include "libsl.h"

static volatile int lib_sink;

static NOINL int lib_leaf(const char *site, int x) /* DEF:lib_leaf */
{
	SL_RET(site);
	return x + 7;
}

NOINL int lib_func(const char *site, int x) /* DEF:lib_func */
{
	SL_RET(site);
	int r = lib_leaf("lib.leaf", x); /* CALL:lib.leaf */
	lib_sink = r;
	return r * 2;
}

/* calls back into the program */
NOINL int lib_apply(const char *site, int (*fn)(const char *, int), int x) /* DEF:lib_apply */
{
	SL_RET(site);
	int r = fn("lib.callback", x); /* CALL:lib.callback */
	lib_sink = r;
	return r + 1;
}
