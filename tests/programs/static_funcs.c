/* Static functions in C: local symbols (not in the dynamic symbol table),
 * two static functions with the same name in two translation units (the
 * report has two entries named `helper`: their calls are added up), a
 * static recursive function, a static function called through a pointer.
 * Checks: exact counts and the call tree.
 *
 * CT-SOURCES: parts/static_funcs_b.c
 */
#define FUNCS(X) X(main, "main") X(helper, "helper") X(walk, "walk") X(apply, "apply") X(twice, "twice")
#include "truth.h"

int run_b(int n); /* parts/static_funcs_b.c: calls its own static helper */

NOINL static int helper(int x)
{
	HIT(helper);
	return x + 1;
}

NOINL static int walk(int n)
{
	HIT(walk);
	return n == 0 ? 0 : helper(walk(n - 1));
}

NOINL static int twice(int x)
{
	HIT(twice);
	return 2 * x;
}

NOINL static int apply(int (*volatile f)(int), int x)
{
	HIT(apply);
	return f(f(x));
}

int main(void)
{
	HIT(main);
	int ok = walk(3) == 3;
	ok &= apply(twice, 5) == 20;
	ok &= apply(helper, 1) == 3;
	ok &= run_b(2) == 2 * 10 + 1;
	ok &= helper(0) == 1;
	printf("static_funcs %s\n", ok ? "ok" : "WRONG");
	return ok ? 0 : 1;
}
