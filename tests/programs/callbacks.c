/* Static functions called back by uninstrumented code (libc's qsort and
 * bsearch): each comparator call is a call, nested under the function that
 * called qsort. The number of comparisons depends on libc, so there is no
 * tree file; the program counts them itself.
 * Checks: exact counts. (glibc's bsearch is an inline function in its
 * header: clang -O2 compiles it into the program, instrumented.)
 *
 * CT-IGNORE: ^bsearch$
 */
#define FUNCS(X) X(main, "main") X(cmp_int, "cmp_int") X(cmp_rev, "cmp_rev") X(sort_all, "sort_all")
#include "truth.h"

NOINL static int cmp_int(const void *a, const void *b)
{
	HIT(cmp_int);
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

NOINL static int cmp_rev(const void *a, const void *b)
{
	HIT(cmp_rev);
	return cmp_int(b, a);
}

NOINL static int sort_all(int *v, int n)
{
	HIT(sort_all);
	qsort(v, n, sizeof *v, cmp_int);
	int found = 0;
	for (int k = 0; k < n; k += 7)
		found += bsearch(&k, v, n, sizeof *v, cmp_int) != NULL;
	qsort(v, n, sizeof *v, cmp_rev);
	return found;
}

int main(void)
{
	HIT(main);
	int v[500];
	for (int i = 0; i < 500; i++)
		v[i] = (i * 7919) % 500;
	int found = sort_all(v, 500);
	printf("callbacks: %d found, first %d\n", found, v[0]);
	return found == 72 && v[0] == 499 ? 0 : 1;
}
