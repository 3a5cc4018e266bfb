/*
 * The program chooses its children's environment. "empty": it clears it and
 * execs itself; "one": only ONLY=this; "preload": only LD_PRELOAD=argv[2].
 * The child prints what it finds, which must be what it was given.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
extern char **environ;
__attribute__((noinline)) int count_env(void)
{
	int n = 0;
	while (environ[n])
		n++;
	return n;
}
int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child")) {
		int n = count_env();
		printf("env empty=%d\n", n == 0);
		for (int i = 0; environ[i]; i++)
			printf("  %s\n", environ[i]);
		return 0;
	}
	clearenv();
	setenv("ONLY", "this", 1);
	if (argc > 1 && !strcmp(argv[1], "empty"))
		clearenv();
	if (argc > 2 && !strcmp(argv[1], "preload")) {
		clearenv();
		setenv("LD_PRELOAD", argv[2], 1);
	}
	execl("/proc/self/exe", "envexec", "child", (char *)NULL);
	return 1;
}
