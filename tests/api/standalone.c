/* SPDX-License-Identifier: MIT */
/*
 * Standalone mode: run with libcalltrace.so and no recorder (linked with
 * -lcalltrace, or LD_PRELOAD), the program writes its own trace. The
 * recorder the runtime starts must stay invisible: wait() sees only the
 * program's own child, and the exit status is the program's.
 *
 *   standalone          fork a child (exit 3), wait for it, exit 5
 *   standalone crash    the same, then a NULL dereference
 *   standalone sleep    the same, then sleep until killed
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINL __attribute__((noinline))

NOINL int count(int n)
{
	return n ? count(n - 1) + 1 : 0;
}

NOINL void child(void)
{
	count(2);
	_exit(3);
}

NOINL int crash(int *p)
{
	return *p;
}

int main(int argc, char **argv)
{
	int st = 0;
	pid_t pid = fork();
	if (pid == 0)
		child();
	pid_t w = waitpid(-1, &st, 0);
	pid_t again = waitpid(-1, NULL, WNOHANG);
	printf("count %d, waited for the child: %s, status %d, no other child: %s\n", count(4),
	       w == pid ? "yes" : "no", WEXITSTATUS(st), again < 0 && errno == ECHILD ? "yes" : "no");
	fflush(stdout);
	if (argc > 1 && !strcmp(argv[1], "crash"))
		return crash(NULL);
	if (argc > 1 && !strcmp(argv[1], "sleep"))
		for (;;)
			pause();
	return 5;
}
