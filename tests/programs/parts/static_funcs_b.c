/* Second translation unit of static_funcs.c: its own static `helper`. */
#define FUNCS(X) X(helper, "helper") X(run_b, "run_b")
#include "../truth.h"

NOINL static int helper(int x)
{
	HIT(helper);
	return x * 10;
}

NOINL int run_b(int n)
{
	HIT(run_b);
	int s = 0;
	for (int i = 0; i < n; i++)
		s += helper(1);
	return s + 1;
}
