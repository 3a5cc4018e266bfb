/* A fork four calls deep; the child calls a function, then execs this very
 * program in "child" mode, which does some work and exits with 3. The parent
 * waits and exits with the child's status. The forked child's tree starts
 * inside the four calls, its exec ends them; the exec'd image is a tree of
 * its own, then the parent's calls return.
 * Counts: the forked child writes its counters just before the exec (they
 * start from its parent's: main and the four open calls).
 *
 * CT-ARGS: parent
 * CT-EXIT: 3
 * CT-THREADS: 3
 */
#include <sys/wait.h>
#define FUNCS(X)                                                                                   \
	X(main, "main") X(deep, "deep") X(before_exec, "before_exec") X(child_work, "child_work")    \
		X(after_wait, "after_wait")
#include "truth.h"

static volatile int sink;

NOINL void before_exec(void)
{
	HIT(before_exec);
	sink++;
}

NOINL int child_work(int n)
{
	HIT(child_work);
	if (n <= 0)
		return 0;
	int r = child_work(n - 1) + 1;
	sink++; /* not a tail call (see deep) */
	return r;
}

NOINL void after_wait(void)
{
	HIT(after_wait);
	sink++;
}

NOINL int deep(int n)
{
	HIT(deep);
	if (n > 1) {
		int r = deep(n - 1);
		sink++; /* not a tail call: fentry would see the loop gcc makes of it */
		return r;
	}
	pid_t pid = fork();
	if (pid == 0) {
		before_exec();
		ct_truth_write();
		execl("/proc/self/exe", "fork_deep_exec", "child", (char *)NULL);
		_exit(127);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	after_wait();
	return WIFEXITED(st) ? WEXITSTATUS(st) : 100;
}

int main(int argc, char **argv)
{
	HIT(main);
	if (argc > 1 && !strcmp(argv[1], "child"))
		return child_work(2) + 1;
	return deep(4);
}
