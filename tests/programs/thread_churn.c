/* Thread churn: 120 short threads, created and joined four at a time, each
 * doing a known number of calls; thread-local buffers are reused again and
 * again. Every call of every thread must be counted exactly.
 * Checks: exact counts; one replay section per thread (120 + main).
 *
 * CT-THREADS: 121
 */
#include <pthread.h>
#define FUNCS(X) X(main, "main") X(short_life, "short_life") X(tick, "tick") X(batch, "batch")
#include "truth.h"

static volatile long sink;

NOINL void tick(long i)
{
	HIT(tick);
	sink += i;
}

NOINL void *short_life(void *arg)
{
	HIT(short_life);
	long n = 100 + (long)arg * 10;
	for (long i = 0; i < n; i++)
		tick(i);
	return NULL;
}

NOINL void batch(long first)
{
	HIT(batch);
	pthread_t t[4];
	for (long k = 0; k < 4; k++)
		pthread_create(&t[k], NULL, short_life, (void *)(first + k));
	for (int k = 0; k < 4; k++)
		pthread_join(t[k], NULL);
}

int main(void)
{
	HIT(main);
	for (long b = 0; b < 30; b++)
		batch(4 * b);
	printf("thread_churn done\n");
	return 0;
}
