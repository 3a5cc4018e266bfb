/* NTHREADS threads (2 here, 8 in threads8.c), each doing a known number of
 * calls while the main thread does some of its own.
 * Checks: exact counts; one replay section per thread (NTHREADS + 1).
 *
 * CT-THREADS: 3
 */
#include <pthread.h>
#ifndef NTHREADS
#define NTHREADS 2
#endif
#ifndef ITERS
#define ITERS 20000
#endif

#define FUNCS(X)                                                                                   \
	X(main, "main") X(worker, "worker") X(step, "step") X(leaf_a, "leaf_a") X(leaf_b, "leaf_b")  \
		X(main_work, "main_work")
#include "truth.h"

static volatile long sink;

NOINL void leaf_a(long i)
{
	HIT(leaf_a);
	sink += i;
}

NOINL void leaf_b(long i)
{
	HIT(leaf_b);
	sink ^= i;
}

NOINL void step(long i)
{
	HIT(step);
	leaf_a(i);
	if (i % 3 == 0)
		leaf_b(i);
}

NOINL void *worker(void *arg)
{
	HIT(worker);
	long id = (long)arg;
	/* Thread k does ITERS + k steps: the counts are exact but differ. */
	for (long i = 0; i < ITERS + id; i++)
		step(i);
	return NULL;
}

NOINL void main_work(void)
{
	HIT(main_work);
	for (long i = 0; i < 1000; i++)
		leaf_b(i);
}

int main(void)
{
	HIT(main);
	pthread_t t[NTHREADS];
	for (long k = 0; k < NTHREADS; k++)
		if (pthread_create(&t[k], NULL, worker, (void *)k) != 0)
			return 1;
	main_work();
	for (int k = 0; k < NTHREADS; k++)
		pthread_join(t[k], NULL);
	printf("%d threads done\n", NTHREADS);
	return 0;
}
