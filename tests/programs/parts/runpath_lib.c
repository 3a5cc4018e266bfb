/* The library dlopen_runpath.c loads by its bare name, found through the program's RUNPATH. */
#define CT_MODULE "libctrunpath.so"
#define FUNCS(X) X(rp_square, "rp_square") X(rp_add, "rp_add")
#include "../truth.h"

NOINL static int rp_add(int a, int b)
{
	HIT(rp_add);
	return a + b;
}

NOINL int rp_square(int x)
{
	HIT(rp_square);
	return rp_add(x * x, 0);
}
