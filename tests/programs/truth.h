/* SPDX-License-Identifier: MIT */
/*
 * truth.h: lets a test program count its own calls, independently of
 * calltrace (nothing here includes or links anything of calltrace).
 *
 * Usage, in each translation unit that defines functions to count:
 *
 *     #define FUNCS(X) X(main, "main") X(fib, "fib") X(Circle_ctor, "ns::Circle::Circle")
 *     #include "truth.h"
 *     NOINL int fib(int n) { HIT(fib); ... }
 *
 * The first argument is an identifier (F_<id> indexes the counter), the second
 * the name calltrace displays: demangled, without parameter list, without a
 * template function's return type.
 *
 * At exit (a destructor of priority 101, so it runs after every atexit
 * handler, every C++ static destructor and every default-priority destructor
 * of this module), each translation unit appends one line per function to the
 * file named by $CT_TRUTH:
 *
 *     <name> <count> <module>
 *
 * where module is the basename of the executable, or CT_MODULE when the
 * translation unit is part of a shared library (define it before including).
 * A program that will not reach its destructors (killed by a signal) calls
 * ct_truth_write() itself first.
 *
 * Counters are updated atomically: threads may call counted functions.
 */
#ifndef CT_TEST_TRUTH_H
#define CT_TEST_TRUTH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Keep every counted function a real, separate function at -O2 as at -O0,
 * under gcc and clang alike: not inlined, not cloned into foo.constprop.0. */
#if defined(__clang__)
#define NOINL __attribute__((noinline))
#else
#define NOINL __attribute__((noinline, noclone))
#endif
/* out of every method's reach: the hooks, -pg, and patchable entries */
#define NOTRACE __attribute__((no_instrument_function, patchable_function_entry(0, 0)))

#ifndef FUNCS
#error "define FUNCS(X) before including truth.h"
#endif

#define CT_ENUM_(id, name) F_##id,
#define CT_NAME_(id, name) name,
enum { FUNCS(CT_ENUM_) CT_NFUNCS };
static const char *const ct_names[CT_NFUNCS] = {FUNCS(CT_NAME_)};
static long ct_counts[CT_NFUNCS];

#define HIT(id) HIT_AT(F_##id)
/* By index, for templates that pick their counter from a template argument. */
#define HIT_AT(index) ((void)__atomic_fetch_add(&ct_counts[(index)], 1, __ATOMIC_RELAXED))

NOTRACE static void ct_truth_write(void)
{
	static int written;
	const char *path = getenv("CT_TRUTH");
	if (written || !path || !*path)
		return;
	written = 1;

	char module[4096];
#ifdef CT_MODULE
	snprintf(module, sizeof module, "%s", CT_MODULE);
#else
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n < 0)
		n = 0;
	exe[n] = 0;
	const char *slash = strrchr(exe, '/');
	snprintf(module, sizeof module, "%s", slash ? slash + 1 : exe);
#endif
	FILE *f = fopen(path, "a");
	if (!f) {
		perror(path);
		return;
	}
	for (int i = 0; i < CT_NFUNCS; i++)
		fprintf(f, "%s %ld %s\n", ct_names[i], __atomic_load_n(&ct_counts[i], __ATOMIC_RELAXED),
			module);
	fclose(f);
}

__attribute__((destructor(101), used)) NOTRACE static void ct_truth_at_exit(void)
{
	ct_truth_write();
}

#endif
