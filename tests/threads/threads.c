/* SPDX-License-Identifier: MIT */
/*
 * Many threads and processes for tests/threads/run.sh. Each mode counts its
 * own calls and writes them to $CT_TRUTH ("name count" lines, as truth.h), so
 * the test compares them with the trace:
 *
 *   barrier N K   N threads each call leaf() K times, meet at a
 *                 pthread_barrier, and call it K times more (threads holding
 *                 chunks wait on threads that still need one)
 *   short N       N short-lived threads, 50 at a time, K = 3 calls each
 *   fork N        N processes forked at once, each calls leaf() 3 times and
 *                 leaves with _exit (the parent counts for them)
 *   spin N        leaf() N times in one thread (fills the pool faster than a
 *                 recorder empties it)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__clang__)
#define NOINL __attribute__((noinline))
#else
#define NOINL __attribute__((noinline, noclone))
#endif
#define NOTRACE __attribute__((no_instrument_function))

static long n_main = 1, n_leaf, n_worker, n_child;
static pthread_barrier_t meet;
static int per_thread;
static volatile long sink;

#define HIT(c) __atomic_fetch_add(&(c), 1, __ATOMIC_RELAXED)

NOINL void leaf(int i)
{
	HIT(n_leaf);
	sink += i;
}

NOINL void *barrier_worker(void *arg)
{
	(void)arg;
	HIT(n_worker);
	for (int i = 0; i < per_thread; i++)
		leaf(i);
	pthread_barrier_wait(&meet);
	for (int i = 0; i < per_thread; i++)
		leaf(i);
	return NULL;
}

NOINL void *short_worker(void *arg)
{
	(void)arg;
	HIT(n_worker);
	for (int i = 0; i < 3; i++)
		leaf(i);
	return NULL;
}

NOINL void child(void)
{
	for (int i = 0; i < 3; i++)
		leaf(i);
}

NOTRACE static pthread_t *start(int n, void *(*fn)(void *))
{
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], &attr, fn, NULL)) {
			perror("pthread_create");
			exit(3);
		}
	pthread_attr_destroy(&attr);
	return t;
}

NOTRACE static void join(pthread_t *t, int n)
{
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
}

NOTRACE static void write_truth(void)
{
	const char *path = getenv("CT_TRUTH");
	FILE *f = path && *path ? fopen(path, "w") : NULL;
	if (!f)
		return;
	fprintf(f, "main %ld\nleaf %ld\n", n_main, n_leaf);
	if (n_worker)
		fprintf(f, "%s %ld\n", per_thread ? "barrier_worker" : "short_worker", n_worker);
	if (n_child)
		fprintf(f, "child %ld\n", n_child);
	fclose(f);
}

/* not atoi: an inline function of glibc's headers, traced by clang */
NOTRACE static int num(const char *s)
{
	return (int)strtol(s, NULL, 10);
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	int n = num(argv[2]);
	if (!strcmp(argv[1], "barrier")) {
		per_thread = argc > 3 ? num(argv[3]) : 10;
		pthread_barrier_init(&meet, NULL, (unsigned)n);
		join(start(n, barrier_worker), n);
	} else if (!strcmp(argv[1], "short")) {
		for (int done = 0; done < n; done += 50) {
			int k = n - done < 50 ? n - done : 50;
			join(start(k, short_worker), k);
		}
	} else if (!strcmp(argv[1], "spin")) {
		for (int i = 0; i < n; i++)
			leaf(i);
	} else if (!strcmp(argv[1], "fork")) {
		for (int i = 0; i < n; i++) {
			pid_t p = fork();
			if (p == 0) {
				child();
				_exit(0);
			}
			if (p < 0) {
				perror("fork");
				return 3;
			}
		}
		int ok = 0, st;
		while (wait(&st) > 0)
			ok += WIFEXITED(st) && WEXITSTATUS(st) == 0;
		if (ok != n)
			return 4;
		/* the children's calls, counted here: their memory is theirs; main is
		 * open in each child too (its tree starts inside it) */
		n_child += n;
		n_leaf += 3L * n;
		n_main += n;
	} else {
		return 2;
	}
	write_truth();
	return 0;
}
