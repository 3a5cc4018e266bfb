/* CT-EXIT: 4
 * CT-ARGS: one two three
 * Arguments reach the program through calltrace record: main sees argc 4
 * and returns it.
 * Checks: exit status, exact counts, the call tree.
 */
#define FUNCS(X) X(main, "main") X(arg_seen, "arg_seen")
#include "truth.h"

NOINL int arg_seen(const char *a)
{
	HIT(arg_seen);
	return (int)strlen(a);
}

int main(int argc, char **argv)
{
	HIT(main);
	int len = 0;
	for (int i = 1; i < argc; i++)
		len += arg_seen(argv[i]);
	return len == 11 ? argc : 100;
}
