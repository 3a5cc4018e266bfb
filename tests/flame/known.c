/* SPDX-License-Identifier: MIT */
/*
 * calltrace flame's known tree. Alone:
 *
 *   main 1
 *     other 1
 *       leaf_a 1
 *     work 3
 *       leaf_a 6
 *       leaf_b 3
 *
 * With the argument "threads", main also starts two threads, each:
 *
 *   worker 1
 *     work 2
 *       leaf_a 4
 *       leaf_b 2
 *
 * Every function spins a little so that each takes measurable time.
 */
#include <pthread.h>
#include <string.h>

#define NOINL __attribute__((noinline))

static volatile unsigned long sink;

/* not traced: its time is its caller's self time */
static NOINL __attribute__((no_instrument_function)) void spin(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sink += i;
}

NOINL void leaf_a(void)
{
	spin(20000);
}

NOINL void leaf_b(void)
{
	spin(50000);
}

NOINL void work(void)
{
	spin(5000);
	leaf_a();
	leaf_b();
	leaf_a();
}

NOINL void other(void)
{
	leaf_a();
	spin(10000);
}

NOINL void *worker(void *arg)
{
	(void)arg;
	work();
	work();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[2];
	int threads = argc > 1 && !strcmp(argv[1], "threads");

	if (threads)
		for (int i = 0; i < 2; i++)
			pthread_create(&th[i], NULL, worker, NULL);
	other();
	for (int i = 0; i < 3; i++)
		work();
	if (threads)
		for (int i = 0; i < 2; i++)
			pthread_join(th[i], NULL);
	return 0;
}
