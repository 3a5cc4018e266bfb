/* A function in an instrumented shared library, linked with an rpath of
 * $ORIGIN: calls from the program into the library (through the PLT), a
 * static function of the library, a call back from the library into the
 * program. The truth file names the module of each function, and the
 * report's module must match (program basename, or libctshlib.so).
 * Checks: exact counts and modules, the call tree.
 *
 * CT-SHLIB: libctshlib.so parts/shlib_lib.c
 */
#define FUNCS(X) X(main, "main") X(square, "square") X(after, "after")
#include "truth.h"

int lib_compute(int n, int (*cb)(int));
int lib_leaf(int x);

NOINL int square(int x)
{
	HIT(square);
	return x * x;
}

NOINL int after(int x)
{
	HIT(after);
	return lib_leaf(x) + 1;
}

int main(void)
{
	HIT(main);
	int r = lib_compute(3, square); /* 0 + 1 + 4 + 3*100 */
	int s = after(r);
	printf("shlib: %d %d\n", r, s);
	return r == 305 && s == 306 ? 0 : 1;
}
