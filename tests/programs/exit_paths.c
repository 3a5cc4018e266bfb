/* The ways out that skip the usual end: quick_exit from three calls deep
 * (its at_quick_exit handler is traced), and _exit from a forked child two
 * calls deep. Nothing of either is lost; the calls they leave open show as
 * unfinished.
 * Counts: the child and the handler write their counters themselves.
 *
 * CT-EXIT: 4
 * CT-THREADS: 2
 */
#include <sys/wait.h>
#define FUNCS(X)                                                                                   \
	X(main, "main") X(level, "level") X(on_quick_exit, "on_quick_exit") X(in_child, "in_child")
#include "truth.h"

NOINL void on_quick_exit(void)
{
	HIT(on_quick_exit);
	ct_truth_write();
}

/*
 * Recursion that is not a tail call: every method sees the same calls (gcc
 * makes a loop of tail recursion, and fentry sees only its first call).
 */
static volatile int after_call;

NOINL void in_child(int n)
{
	HIT(in_child);
	if (n > 1) {
		in_child(n - 1);
		after_call++;
		return;
	}
	ct_truth_write();
	_exit(0);
}

NOINL void level(int n)
{
	HIT(level);
	if (n > 1)
		level(n - 1);
	else
		quick_exit(4);
	after_call++;
}

int main(void)
{
	HIT(main);
	at_quick_exit(on_quick_exit);
	pid_t pid = fork();
	if (pid == 0)
		in_child(2);
	waitpid(pid, NULL, 0);
	level(3);
	return 0;
}
