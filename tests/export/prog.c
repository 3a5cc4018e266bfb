/* SPDX-License-Identifier: MIT */
/*
 * The program the export tests record: a known call tree in two threads.
 *
 *   main
 *     setup
 *     (starts worker: worker -> work(4))
 *     work(3)
 *       mid(1) mid(2) mid(3)         mid(i) calls leaf i times
 *     finish
 *
 * Counts: main 1, setup 1, worker 1, work 2, mid 3 + 4 = 7,
 * leaf (1+2+3) + (1+2+3+4) = 16, finish 1.
 *
 * With the argument "crash", main calls crash_outer -> crash_inner, which
 * dereferences a null pointer (SIGSEGV, status 139) after the above.
 */
#include <pthread.h>
#include <string.h>

#define NOINL __attribute__((noinline, noclone))

static volatile long sink;
static int *volatile nowhere;

NOINL void leaf(long i)
{
	sink += i;
}

NOINL void mid(long n)
{
	for (long i = 0; i < n; i++)
		leaf(i);
}

NOINL void work(long n)
{
	for (long i = 1; i <= n; i++)
		mid(i);
}

NOINL void setup(void)
{
	sink = 0;
}

NOINL void finish(void)
{
	sink++;
}

NOINL void *worker(void *arg)
{
	(void)arg;
	work(4);
	return NULL;
}

NOINL void crash_inner(int *p)
{
	*(volatile int *)p = 1;
}

NOINL void crash_outer(void)
{
	crash_inner(nowhere);
}

int main(int argc, char **argv)
{
	pthread_t t;

	setup();
	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	pthread_join(t, NULL); /* the worker first: thread order is fixed */
	work(3);
	finish();
	if (argc > 1 && !strcmp(argv[1], "crash"))
		crash_outer();
	return 0;
}
