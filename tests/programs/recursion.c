/* Deep recursion (6000 frames: a replay of it is 70 MB of indentation) and fib(20) (21891 calls).
 * Checks: exact counts; the deepest `deep` call is at depth 6000 (main is 0).
 *
 * CT-MAXDEPTH: deep 6000
 */
#define FUNCS(X) X(main, "main") X(deep, "deep") X(fib, "fib")
#include "truth.h"

static volatile int after_call;

NOINL int deep(int n)
{
	HIT(deep);
	if (n > 1) {
		int r = 1 + deep(n - 1);
		after_call++; /* not a tail call: gcc would make a loop of it, which fentry sees once */
		return r;
	}
	return 1;
}

NOINL int fib(int n)
{
	HIT(fib);
	if (n < 2)
		return n;
	int r = fib(n - 1) + fib(n - 2);
	after_call++; /* as in deep */
	return r;
}

int main(void)
{
	HIT(main);
	int d = deep(6000);
	int f = fib(20);
	printf("deep(6000) = %d, fib(20) = %d\n", d, f);
	return d == 6000 && f == 6765 ? 0 : 1;
}
