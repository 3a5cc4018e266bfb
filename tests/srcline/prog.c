/* SPDX-License-Identifier: MIT */
/*
 * srcline test program: each function's definition line is marked DEF:name,
 * each call whose return address the callee prints CALL:site; run.sh finds
 * them with grep. Every call is followed by more work: no tail calls.
 */
#include "report.h"
#include "hdr.h"
#include "libsl.h"

volatile int sink;

int asm_func(void);

static NOINL int leaf(const char *site, int x) /* DEF:leaf */
{
	SL_RET(site);
	return x * 3 + 1;
}

NOINL int twice(const char *site, int x) /* DEF:twice */
{
	SL_RET(site);
	int r = leaf("twice.first", x); /* CALL:twice.first */
	sink = r;
	r += leaf("twice.second", r); /* CALL:twice.second */
	sink = r;
	return r;
}

/* inlined (always): the call's line is the one here, not main's */
static inline __attribute__((always_inline)) int wrapped(int x)
{
	int r = leaf("wrapped", x); /* CALL:wrapped */
	sink = r;
	return r + 1;
}

static NOINL int callback(const char *site, int x) /* DEF:callback */
{
	SL_RET(site);
	return x - 2;
}

int main(void) /* DEF:main */
{
	sl_modules();
	int r = twice("main.twice", 2); /* CALL:main.twice */
	sink = r;
	r = wrapped(r);
	sink = r;
	r = hdr_func("main.hdr", r); /* CALL:main.hdr */
	sink = r;
	r = lib_func("main.lib", r); /* CALL:main.lib */
	sink = r;
	r = lib_apply("main.apply", callback, r); /* CALL:main.apply */
	sink = r;
	r += asm_func();
	sink = r;
	return r == 0;
}
