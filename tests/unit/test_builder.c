/* SPDX-License-Identifier: MIT */
/*
 * The call-tree builder on synthetic records: each case is a list of records
 * (E enter, X exit, J jump, C catch, T throw) with function letters and stack
 * pointers, and the tree it must produce, one "depth name how" per close.
 */
#include <stdlib.h>

#include "unit.h"
#include "../../src/analysis/builder.h"

struct out {
	char buf[4096];
	size_t len;
};

static void on_open(void *ctx, struct ct_frame *f, uint32_t depth)
{
	(void)ctx;
	(void)f;
	(void)depth;
}

static void on_close(void *ctx, struct ct_frame *f, uint32_t depth, uint64_t clock, uint64_t ticks,
		     enum ct_close how)
{
	struct out *o = ctx;
	static const char *const names[] = { "ret", "unwound", "unfinished", "noentry" };
	(void)clock;
	(void)ticks;
	o->len += (size_t)snprintf(o->buf + o->len, sizeof(o->buf) - o->len, "%u%c:%s ", depth,
				   (char)f->addr, names[how]);
}

static const struct ct_builder_ops ops = { .enter = on_open, .exit = on_close };

/*
 * "Ea100" = enter a at sp 100; "Xa100"; "J90" = jump to sp 90 ("J0" unknown); "C90"; "T80";
 * "La90" = a landing pad runs in the frame of a at sp 90
 */
static const char *run(const char *script)
{
	static struct out o;
	struct ct_builder b;
	uint64_t clock = 1;

	memset(&o, 0, sizeof(o));
	ct_builder_init(&b, &ops, &o);
	for (const char *p = script; *p;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		struct ct_event ev = { .clock = clock++ };
		char op = *p++;
		uint64_t sp_val;
		if (op == 'E' || op == 'X') {
			ev.kind = op == 'E' ? CT_EV_ENTER : CT_EV_EXIT;
			ev.addr = (uint64_t)*p++;
			ev.sp = strtoull(p, (char **)&p, 10);
		} else if (op == 'L') {
			static uint64_t where[2];
			ev.kind = CT_EV_EXT;
			ev.ext_type = CT_EXT_LANDING;
			where[1] = (uint64_t)*p++;
			where[0] = strtoull(p, (char **)&p, 10) << 4;
			ev.ext = (const uint8_t *)where;
			ev.ext_len = 16;
		} else {
			ev.kind = CT_EV_EXT;
			ev.ext_type = op == 'J'	  ? CT_EXT_JUMP
				      : op == 'C' ? CT_EXT_CATCH
						  : CT_EXT_THROW;
			sp_val = strtoull(p, (char **)&p, 10);
			ev.ext = (const uint8_t *)&sp_val;
			ev.ext_len = 8;
		}
		ct_builder_event(&b, &ev);
	}
	ct_builder_finish(&b);
	ct_builder_free(&b);
	if (o.len)
		o.buf[o.len - 1] = 0;
	return o.buf;
}

#define TREE(script, want)                                                                         \
	do {                                                                                       \
		const char *got = run(script);                                                     \
		if (strcmp(got, want)) {                                                           \
			fprintf(stderr, "  %s\n    want %s\n    got  %s\n", script, want, got);    \
			ct_unit_failed = 1;                                                        \
		}                                                                                  \
	} while (0)

static void test_nesting(void)
{
	TREE("Em100 Ea90 Xa90 Eb90 Ec80 Xc80 Xb90 Xm100", "1a:ret 2c:ret 1b:ret 0m:ret");
	/* an inlined callee runs its hooks in its caller's frame: same stack pointer */
	TREE("Em100 Ea90 Eb90 Xb90 Eb90 Xb90 Xa90 Xm100", "2b:ret 2b:ret 1a:ret 0m:ret");
	/* exit hooks tail-called at -O2 see the caller's stack pointer */
	TREE("Em100 Ea90 Xa100 Eb90 Xb100 Xm110", "1a:ret 1b:ret 0m:ret");
	/* recursion with tail-called exits */
	TREE("Ef100 Ef90 Ef80 Xf90 Xf100 Xf110", "2f:ret 1f:ret 0f:ret");
}

static void test_unfinished_and_orphans(void)
{
	TREE("Em100 Ea90 Eb80", "2b:unfinished 1a:unfinished 0m:unfinished");
	TREE("Ea90 Xa90 Xm100", "0a:ret 0m:noentry");
	/* a return from a function entered before tracing closes the deeper frames it left */
	TREE("Ea80 Xm100", "0a:unwound 0m:noentry");
}

static void test_longjmp(void)
{
	/* resume(100) -> gen(90) -> deep(80) -> deep(70); longjmp back to resume; again */
	TREE("Er100 Eg90 Ed80 Ed70 J100 Ea90 Xa90 Eg90 Ed80 J100 Ea90 Xa90 Xr100",
	     "3d:unwound 2d:unwound 1g:unwound 1a:ret 2d:unwound 1g:unwound 1a:ret 0r:ret");
	/* a jump whose target is unknown: the next call settles it, equal included */
	TREE("Er100 Eg90 Ed80 J0 Eg90 Xg90 Xr100", "2d:unwound 1g:unwound 1g:ret 0r:ret");
	/* without any mark, a call from higher up still closes what it left */
	TREE("Er100 Eg90 Ed80 Ea85 Xa85 Xr100", "2d:unwound 2a:ret 1g:unwound 0r:ret");
}

static void test_exceptions(void)
{
	/* clang: no exit hooks while unwinding; the catch in a(90) closes b and c */
	TREE("Em100 Ea90 Eb80 Ec70 Ec60 T60 C90 Ez80 Xz80 Xa90 Xm100",
	     "4c:unwound 3c:unwound 2b:unwound 2z:ret 1a:ret 0m:ret");
	/* gcc: exit hooks run as the exception passes, they are unwinds all the same */
	TREE("Em100 Ea90 Eb80 Ec70 T70 Xc70 Xb80 C90 Ez80 Xz80 Xa90 Xm100",
	     "3c:unwound 2b:unwound 2z:ret 1a:ret 0m:ret");
	/* clang: a cleanup in f2 (sp 80) destroys a local while the exception passes */
	TREE("Em100 Ef90 Eg80 Eh70 Et60 T60 Lg80 Ed70 Xd80 C90 Xf90 Xm100",
	     "4t:unwound 3h:unwound 3d:ret 2g:unwound 1f:ret 0m:ret");
	/* clang: a callee i inlined into the catching g (same sp) was running: gone at the catch */
	TREE("Em100 Eg80 Ei80 Et60 T60 Lg80 Ed70 Xd80 C80 Ea70 Xa80 Xg80 Xm100",
	     "3t:unwound 3d:ret 2i:unwound 2a:ret 1g:ret 0m:ret");
	/* gcc: the landing pad in g runs the exit hooks of what was inlined into it */
	TREE("Em100 Eg80 Eb80 Ec80 Et60 T60 Lt60 Xt60 Lg80 Xc80 Xb80 C80 Xg80 Xm100",
	     "4t:unwound 3c:unwound 2b:unwound 1g:ret 0m:ret");
	/* a destructor run during unwinding returns normally */
	TREE("Ea90 Eb80 T80 Ed70 Xd70 Xb80 C90 Xa90", "2d:ret 1b:unwound 0a:ret");
}

static void test_other_stacks(void)
{
	/* a signal handler on an alternate stack far away: nested, nothing unwound */
	TREE("Em100 Ea90 Eh900000000 Xh900000000 Xa90 Xm100", "2h:ret 1a:ret 0m:ret");
	/* ... that siglongjmps back to a: the handler's frames close too */
	TREE("Em100 Ea90 Eb80 Eh900000000 Eg899999990 J90 Ec80 Xc80 Xa90 Xm100",
	     "4g:unwound 3h:unwound 2b:unwound 2c:ret 1a:ret 0m:ret");
}

int main(void)
{
	int failures = 0;
	RUN(test_nesting);
	RUN(test_unfinished_and_orphans);
	RUN(test_longjmp);
	RUN(test_exceptions);
	RUN(test_other_stacks);
	return failures != 0;
}
