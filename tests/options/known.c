/* SPDX-License-Identifier: MIT */
/*
 * tests/options: a program with a known call tree that counts its own calls
 * (truth.h: $CT_TRUTH). Exit status 5.
 *
 *   known            main: setup; a thread (worker -> work(2)), joined;
 *                    work(3); nap (sleeps 200 ms); finish      known.tree
 *   known fork       the same, then fork: the child calls child -> work(1)
 *                    and exits 0 (its truth in $CT_TRUTH.child, its pid on
 *                    stdout as "child PID"); the parent waits for it
 *   known busy N     work(4) N times (events to lose), then finish
 *
 * work(n) calls mid(1) .. mid(n); mid(i) calls leaf i times.
 * With $KNOWN_SHOW_RUNTIME set, it prints the libcalltrace lines of its
 * /proc/self/maps (which runtime is loaded).
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

#define FUNCS(X)                                                                                   \
	X(main, "main") X(setup, "setup") X(worker, "worker") X(work, "work") X(mid, "mid")         \
		X(leaf, "leaf") X(nap, "nap") X(finish, "finish") X(child, "child")
#include "../programs/truth.h"

static volatile long sink;

NOINL void leaf(long i)
{
	HIT(leaf);
	sink += i;
}

NOINL void mid(long n)
{
	HIT(mid);
	for (long i = 0; i < n; i++)
		leaf(i);
}

NOINL void work(long n)
{
	HIT(work);
	for (long i = 1; i <= n; i++)
		mid(i);
}

NOINL void setup(void)
{
	HIT(setup);
	sink = 0;
}

NOINL void nap(void)
{
	HIT(nap);
	struct timespec ts = {0, 200 * 1000 * 1000};
	while (nanosleep(&ts, &ts))
		;
}

NOINL void finish(void)
{
	HIT(finish);
	sink++;
}

NOINL void *worker(void *arg)
{
	HIT(worker);
	work(2);
	return arg;
}

NOINL void child(void)
{
	HIT(child);
	work(1);
}

NOTRACE static void show_runtime(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	while (f && fgets(line, sizeof line, f))
		if (strstr(line, "libcalltrace"))
			fputs(strchr(line, '/') ? strchr(line, '/') : line, stdout);
	if (f)
		fclose(f);
}

NOTRACE static void fork_child(void)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		/* the child's own truth: only what it calls after the fork */
		static char path[4096];
		snprintf(path, sizeof path, "%s.child", getenv("CT_TRUTH") ? getenv("CT_TRUTH") : "");
		setenv("CT_TRUTH", path, 1);
		memset(ct_counts, 0, sizeof ct_counts);
		child();
		exit(0);
	}
	printf("child %d\n", (int)pid);
	int st = 0;
	if (pid < 0 || waitpid(pid, &st, 0) != pid || st != 0)
		exit(1);
}

NOINL int main(int argc, char **argv)
{
	HIT(main);
	if (getenv("KNOWN_SHOW_RUNTIME"))
		show_runtime();
	if (argc > 2 && !strcmp(argv[1], "busy")) {
		for (long i = atol(argv[2]); i > 0; i--)
			work(4);
		finish();
		return 5;
	}
	setup();
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL) || pthread_join(t, NULL))
		return 1;
	work(3);
	nap();
	finish();
	if (argc > 1 && !strcmp(argv[1], "fork"))
		fork_child();
	return sink == 6 ? 5 : 1; /* 1 (worker) + 4 (work(3)) + 1 (finish) */
}
