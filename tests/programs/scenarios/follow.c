/* For faults.sh's follow scenarios: forks a child that calls child_work,
 * waits for it, and exits 0. With --no-follow only the parent is traced. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) void child_work(void)
{
	sink++;
}

int main(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		child_work();
		return 0;
	}
	waitpid(pid, NULL, 0);
	return 0;
}
