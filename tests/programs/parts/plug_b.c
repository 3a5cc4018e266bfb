/* The plugin plugin_swap.c loads in the first one's place. */
#define CT_MODULE "libctplug_b.so"
#define FUNCS(X)                                                                                   \
	X(plugin_b_run, "plugin_b_run") X(plugin_b_twice, "plugin_b_twice")                          \
		X(plugin_b_pad, "plugin_b_pad")
#include "../truth.h"

static volatile int sink;

/* first in the file, so that plugin_b_run is not at plugin_a_run's offset */
NOINL void plugin_b_pad(void)
{
	HIT(plugin_b_pad);
	sink++;
}

NOINL int plugin_b_twice(int x)
{
	HIT(plugin_b_twice);
	return 2 * x;
}

int plugin_b_run(int x)
{
	HIT(plugin_b_run);
	plugin_b_pad();
	return plugin_b_twice(x);
}
