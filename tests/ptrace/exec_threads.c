/*
 * Execs itself ("again", with the first image's counts), and the new image's
 * threads call leaf() and mid() at the same time, so that a breakpoint
 * stepped over in place there (lifted for a step) would let calls pass
 * unseen. Prints the calls both images made: "leaf N", "mid N".
 */
#include <pthread.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define THREADS 4
#define ROUNDS	5000

static atomic_long leaf_calls, mid_calls;

__attribute__((noinline)) long leaf(long x)
{
	atomic_fetch_add(&leaf_calls, 1);
	return x + 1;
}

__attribute__((noinline)) long mid(long x)
{
	atomic_fetch_add(&mid_calls, 1);
	return leaf(x) + leaf(x + 1);
}

static void *worker(void *arg)
{
	long s = 0;
	for (long i = 0; i < ROUNDS; i++)
		s += mid(i + (long)arg);
	return (void *)s;
}

int main(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "again")) {
		leaf(mid(1)); /* the first image's calls */
		char leafs[32], mids[32];
		snprintf(leafs, sizeof(leafs), "%ld", atomic_load(&leaf_calls));
		snprintf(mids, sizeof(mids), "%ld", atomic_load(&mid_calls));
		char *args[] = { argv[0], "again", leafs, mids, NULL };
		execv("/proc/self/exe", args);
		perror("execv");
		return 1;
	}
	if (argc == 4) {
		leaf_calls = atol(argv[2]);
		mid_calls = atol(argv[3]);
	}
	pthread_t th[THREADS];
	for (long i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	printf("leaf %ld\nmid %ld\n", atomic_load(&leaf_calls), atomic_load(&mid_calls));
	return 0;
}
