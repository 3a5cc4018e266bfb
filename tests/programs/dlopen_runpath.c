/* dlopen("libctrunpath.so"): a bare name, found only through the program's
 * own DT_RUNPATH ($ORIGIN). glibc searches the RUNPATH of the object that
 * calls dlopen: calltrace's dlopen wrapper must search as if the program
 * called, or the library is not found. Twice, with a dlclose between.
 * Checks: exact counts (the library counts itself), the call tree.
 *
 * CT-DLOPEN: libctrunpath.so parts/runpath_lib.c
 * CT-LDLIBS: -ldl -Wl,--enable-new-dtags,-rpath,$ORIGIN
 */
#include <dlfcn.h>
#define FUNCS(X) X(main, "main") X(use_library, "use_library")
#include "truth.h"

NOINL int use_library(int x)
{
	HIT(use_library);
	void *h = dlopen("libctrunpath.so", RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return -1;
	}
	int (*square)(int) = (int (*)(int))dlsym(h, "rp_square");
	int r = square ? square(x) : -1;
	dlclose(h);
	return r;
}

int main(void)
{
	HIT(main);
	int a = use_library(3), b = use_library(4);
	return a == 9 && b == 16 ? 0 : 1;
}
