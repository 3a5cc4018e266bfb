/* record -a --libcalls: the built-in prototypes of the C library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	char *p = malloc(32);
	strcpy(p, "calltrace");
	char *volatile opaque = p; /* no strlen folded at compile time */
	size_t n = strlen(opaque);
	int c = strcmp(p, "calltrace");
	printf("%zu %d %s\n", n, c, getenv("CT_ARGS_TEST") ? "set" : "unset");
	free(p);
	return 0;
}
