/* A plugin is loaded, called and unloaded; another is loaded, most likely at
 * the same address, and called. Each plugin's functions must be named as
 * its own: a trace that kept the first plugin's names for that address
 * would show plugin_a_run where plugin_b_run ran.
 * Checks: exact counts and modules, the call tree.
 *
 * CT-DLOPEN: libctplug_a.so parts/plug_a.c
 * CT-DLOPEN: libctplug_b.so parts/plug_b.c
 * CT-LDLIBS: -ldl
 */
#include <dlfcn.h>
#define FUNCS(X) X(main, "main") X(use_plugin, "use_plugin")
#include "truth.h"

NOINL int use_plugin(const char *path, const char *sym)
{
	HIT(use_plugin);
	void *h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return -1;
	}
	int (*run)(int) = (int (*)(int))dlsym(h, sym);
	int r = run ? run(3) : -1;
	dlclose(h);
	return r;
}

int main(int argc, char **argv)
{
	HIT(main);
	char dir[4096], a[4200], b[4200];
	(void)argc;
	snprintf(dir, sizeof(dir), "%s", argv[0]);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	else
		strcpy(dir, ".");
	snprintf(a, sizeof(a), "%s/libctplug_a.so", dir);
	snprintf(b, sizeof(b), "%s/libctplug_b.so", dir);
	int ra = use_plugin(a, "plugin_a_run");
	int rb = use_plugin(b, "plugin_b_run");
	printf("a=%d b=%d\n", ra, rb);
	return ra == 4 && rb == 6 ? 0 : 1;
}
