/* The library dlopen.c loads at run time. */
#define CT_MODULE "libctplugin.so"
#define FUNCS(X)                                                                                   \
	X(plugin_run, "plugin_run") X(plugin_helper, "plugin_helper") X(plugin_init, "plugin_init")  \
		X(plugin_fini, "plugin_fini")
#include "../truth.h"

static int bias;

__attribute__((constructor)) NOINL static void plugin_init(void)
{
	HIT(plugin_init);
	bias = 1;
}

__attribute__((destructor)) NOINL static void plugin_fini(void)
{
	HIT(plugin_fini);
	bias = 0;
}

NOINL static int plugin_helper(int x)
{
	HIT(plugin_helper);
	return x * x;
}

NOINL int plugin_run(int x)
{
	HIT(plugin_run);
	return plugin_helper(x) + bias;
}
