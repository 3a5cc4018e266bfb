/* A library loaded at run time with dlopen (after tracing started), called
 * through dlsym, unloaded with dlclose, loaded again. Its constructor and
 * destructor run inside dlopen/dlclose, so they nest under main; its last
 * destructor runs after main returns.
 * Checks: exact counts and modules (the library's counters are written at
 * each unload and added up), the call tree.
 *
 * CT-DLOPEN: libctplugin.so parts/plugin.c
 * CT-LDLIBS: -ldl
 *
 * CT-METHODS: finstrument fentry
 * (patchable: the plugin's constructor runs inside dlopen, before calltrace
 * can patch the library)
 */
#include <dlfcn.h>
#define FUNCS(X) X(main, "main") X(load_and_run, "load_and_run")
#include "truth.h"

NOINL int load_and_run(const char *path, int x, int do_close)
{
	HIT(load_and_run);
	void *h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return -1;
	}
	int (*run)(int) = (int (*)(int))dlsym(h, "plugin_run");
	int r = run ? run(x) : -1;
	if (do_close)
		dlclose(h);
	return r;
}

int main(void)
{
	HIT(main);
	char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof path - 64);
	if (n <= 0)
		return 1;
	path[n] = 0;
	strcpy(strrchr(path, '/') + 1, "libctplugin.so");
	int a = load_and_run(path, 4, 1);
	int b = load_and_run(path, 5, 0);
	printf("dlopen: %d %d\n", a, b);
	return a == 17 && b == 26 ? 0 : 1;
}
