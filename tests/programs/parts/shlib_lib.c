/* The shared library of shlib.c. */
#define CT_MODULE "libctshlib.so"
#define FUNCS(X) X(lib_compute, "lib_compute") X(lib_inner, "lib_inner") X(lib_leaf, "lib_leaf")
#include "../truth.h"

NOINL int lib_leaf(int x)
{
	HIT(lib_leaf);
	return x;
}

NOINL static int lib_inner(int i, int (*cb)(int))
{
	HIT(lib_inner);
	return cb(i);
}

NOINL int lib_compute(int n, int (*cb)(int))
{
	HIT(lib_compute);
	int s = 0;
	for (int i = 0; i < n; i++)
		s += lib_inner(i, cb);
	return s + lib_leaf(n * 100);
}
