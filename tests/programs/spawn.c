/* Processes made every other way: vfork then exec, posix_spawn, system()
 * (through /bin/sh). Each child runs this program in "child" mode. All are
 * traced: the vfork child's short tree ends with its exec, and each child
 * image is a tree of its own. The parent waits for each in turn.
 * Counts: the vfork child writes no counters (it shares its parent's memory
 * when run without calltrace), so main may be seen once more than counted.
 *
 * CT-THREADS: 5
 * CT-AT-LEAST: ^main$
 * CT-METHODS: finstrument fentry patchable mcount patch
 * (ptrace also sees posix_spawn's and the shell's children before they exec:
 * tests/ptrace checks its tree)
 */
#include <spawn.h>
#include <sys/wait.h>
#define FUNCS(X) X(main, "main") X(child_work, "child_work") X(parent_done, "parent_done")
#include "truth.h"

extern char **environ;
static volatile int sink;

NOINL int child_work(int n)
{
	HIT(child_work);
	return n;
}

NOINL void parent_done(void)
{
	HIT(parent_done);
	sink++;
}

int main(int argc, char **argv)
{
	HIT(main);
	if (argc > 2 && !strcmp(argv[1], "child"))
		return child_work((int)strtol(argv[2], NULL, 10)) == 0;

	char self[4096], cmd[4200];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = 0;

	pid_t pid = vfork();
	if (pid == 0) {
		execl(self, "spawn", "child", "1", (char *)NULL);
		_exit(127);
	}
	int st1 = -1, st2 = -1;
	waitpid(pid, &st1, 0);

	char *args[] = { "spawn", "child", "2", NULL };
	if (posix_spawn(&pid, self, NULL, NULL, args, environ) == 0)
		waitpid(pid, &st2, 0);

	/* the command names no path: the parent's spawn marks are the same in every build */
	setenv("SPAWN_SELF", self, 1);
	snprintf(cmd, sizeof(cmd), "\"$SPAWN_SELF\" child 3");
	int st3 = system(cmd);
	parent_done();
	return st1 == 0 && st2 == 0 && st3 == 0 ? 0 : 2;
}
