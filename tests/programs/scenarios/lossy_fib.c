/* SPDX-License-Identifier: MIT */
/*
 * tests/faults.sh, lossy mode: a single thread computes fib(27) recursively:
 * 635621 calls of fib and main's, so 1271244 call and return events.
 * Counts in $CT_TRUTH (truth.h); exit 0 iff fib(27) = 196418.
 */
#define FUNCS(X) X(main, "main") X(fib, "fib")
#include "truth.h"

NOINL int fib(int n)
{
	HIT(fib);
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int main(void)
{
	HIT(main);
	int r = fib(27);
	return r == 196418 && ct_counts[F_fib] == 635621 ? 0 : 1;
}
