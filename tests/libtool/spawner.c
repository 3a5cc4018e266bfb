/* SPDX-License-Identifier: MIT */
/*
 * Processes started without fork: posix_spawn of /bin/true and of this
 * program as an instrumented child, posix_spawnp of it by name with a
 * 3,000-character argument, system() running it through the shell, and
 * system() running a shell builtin. A child calls work() 7 times.
 */
#include <libgen.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static volatile int sink;

__attribute__((noinline)) void work(int i)
{
	sink += i;
}

__attribute__((noinline)) int child_main(void)
{
	for (int i = 0; i < 7; i++)
		work(i);
	return 0;
}

__attribute__((noinline)) void parent_done(void)
{
	sink++;
}

/* r: what posix_spawn returned; *pid: the child it made (read after the call) */
static int spawned(int r, const pid_t *pid)
{
	int st = -1;
	return r == 0 && waitpid(*pid, &st, 0) == *pid && st == 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child"))
		return child_main();

	char self[4096], dir[4096], path[8192], *long_arg = malloc(3001);
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0 || !long_arg)
		return 1;
	self[n] = 0;
	strcpy(dir, self);
	snprintf(path, sizeof(path), "%s:%s", dirname(dir), getenv("PATH") ? getenv("PATH") : "");
	setenv("PATH", path, 1);
	setenv("SPAWNER", self, 1);
	memset(long_arg, 'x', 3000);
	long_arg[3000] = 0;

	pid_t pid;
	char *t_argv[] = { "/bin/true", NULL };
	char *c_argv[] = { self, "child", NULL };
	char *p_argv[] = { "spawner", "child", long_arg, NULL };
	int ok = spawned(posix_spawn(&pid, "/bin/true", NULL, NULL, t_argv, environ), &pid);
	ok &= spawned(posix_spawn(&pid, self, NULL, NULL, c_argv, environ), &pid);
	ok &= spawned(posix_spawnp(&pid, "spawner", NULL, NULL, p_argv, environ), &pid);
	ok &= system("exec \"$SPAWNER\" child") == 0;
	ok &= system("true") == 0;
	parent_done();
	free(long_arg);
	return ok ? 0 : 2;
}
