/* The fork sample of tracef's documentation (seed 004): the child prints and
 * returns 1, the parent returns 0. The child's tree starts inside main, where
 * fork returned, and goes on from there; the parent's shows the fork.
 * Counts: main is open in both processes (the child's counter starts from
 * its parent's), hello runs in the child only.
 * Checks: exact counts, the trees of both processes.
 *
 * CT-THREADS: 2
 */
#include <sys/wait.h>
#define FUNCS(X) X(main, "main") X(hello, "hello")
#include "truth.h"

NOINL void hello(void)
{
	HIT(hello);
	printf("hello world\n");
	fflush(stdout);
}

int main(void)
{
	HIT(main);
	pid_t pid = fork();
	if (pid == 0) {
		hello();
		return 1;
	}
	waitpid(pid, NULL, 0);
	return 0;
}
