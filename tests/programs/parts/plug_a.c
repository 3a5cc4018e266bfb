/* The first plugin plugin_swap.c loads, then unloads. */
#define CT_MODULE "libctplug_a.so"
#define FUNCS(X) X(plugin_a_run, "plugin_a_run") X(plugin_a_step, "plugin_a_step")
#include "../truth.h"

NOINL int plugin_a_step(int x)
{
	HIT(plugin_a_step);
	return x + 1;
}

int plugin_a_run(int x)
{
	HIT(plugin_a_run);
	return plugin_a_step(x);
}
