/* SPDX-License-Identifier: MIT */
/*
 * Processes started in a crowd (issue 21 item 7):
 *   starts race    two threads call system() 5 times each while two others
 *                  posix_spawn /bin/true as fast as they can: each system
 *                  mark must name the shell that ran the instrumented child
 *                  (which execs in it, same pid), never another thread's child
 *   starts burst N the recorder (our parent) stopped, N /bin/true started
 *                  and waited for, the recorder let go: more starts than its
 *                  ring of 1,024 holds within one pass, all of them counted
 *   starts child   the instrumented child: work() 7 times
 */
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static volatile int sink;
static atomic_int done;
static atomic_int failed;

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

static int spawn_true(pid_t *pid)
{
	char *argv[] = { "/bin/true", NULL };
	return posix_spawn(pid, "/bin/true", NULL, NULL, argv, environ);
}

static void *noise(void *unused)
{
	(void)unused;
	while (!atomic_load(&done)) {
		pid_t pid;
		int st;
		if (spawn_true(&pid) || waitpid(pid, &st, 0) != pid)
			atomic_fetch_add(&failed, 1);
	}
	return NULL;
}

__attribute__((noinline)) void *run_system(void *unused)
{
	(void)unused;
	for (int i = 0; i < 5; i++)
		if (system("exec \"$STARTS\" child") != 0)
			atomic_fetch_add(&failed, 1);
	return NULL;
}

static int race(void)
{
	pthread_t t[4];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, noise, NULL);
	for (int i = 2; i < 4; i++)
		pthread_create(&t[i], NULL, run_system, NULL);
	for (int i = 2; i < 4; i++)
		pthread_join(t[i], NULL);
	atomic_store(&done, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return atomic_load(&failed) ? 2 : 0;
}

static int burst(int n)
{
	pid_t *pids = calloc((size_t)n, sizeof(*pids)), recorder = getppid();
	int ok = pids != NULL;
	kill(recorder, SIGSTOP);
	for (int i = 0; ok && i < n; i++) {
		int st;
		ok = spawn_true(&pids[i]) == 0 && waitpid(pids[i], &st, 0) == pids[i];
	}
	kill(recorder, SIGCONT);
	free(pids);
	return ok ? 0 : 2;
}

int main(int argc, char **argv)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = 0;
	setenv("STARTS", self, 1);
	if (argc > 1 && !strcmp(argv[1], "child"))
		return child_main();
	if (argc > 1 && !strcmp(argv[1], "race"))
		return race();
	if (argc > 2 && !strcmp(argv[1], "burst"))
		return burst(atoi(argv[2]));
	return 1;
}
