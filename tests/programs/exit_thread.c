/* A thread blocked 6 frames deep when the program ends (main returns, exit
 * ends the process): that thread's frames never return and show as
 * unfinished; main's thread returned normally. The main thread's first event
 * comes first, so its section comes first in the replay.
 * Checks: exact counts, the call tree of both threads (sections separated
 * by a `--` line in the .tree file), with unfinished markers.
 *
 * CT-THREADS: 2
 */
#include <pthread.h>
#include <semaphore.h>
#define FUNCS(X)                                                                                   \
	X(main, "main") X(worker, "worker") X(sink_deep, "sink_deep") X(block_forever, "block_forever") \
	X(start, "start") X(wait_ready, "wait_ready")
#include "truth.h"

static sem_t ready, never;

NOINL void block_forever(void)
{
	HIT(block_forever);
	sem_post(&ready);
	while (sem_wait(&never) != 0)
		;
}

/*
 * Recursion that is not a tail call: every method sees the same calls (gcc
 * makes a loop of tail recursion, and fentry sees only its first call).
 */
static volatile int after_call;

NOINL void sink_deep(int n)
{
	HIT(sink_deep);
	if (n <= 1)
		block_forever();
	else
		sink_deep(n - 1);
	after_call++;
}

NOINL void *worker(void *arg)
{
	HIT(worker);
	(void)arg;
	sink_deep(4);
	return NULL;
}

NOINL void start(pthread_t *t)
{
	HIT(start);
	pthread_create(t, NULL, worker, NULL);
}

NOINL void wait_ready(void)
{
	HIT(wait_ready);
	while (sem_wait(&ready) != 0)
		;
}

int main(void)
{
	HIT(main);
	sem_init(&ready, 0, 0);
	sem_init(&never, 0, 0);
	pthread_t t;
	start(&t);
	wait_ready();
	printf("exit_thread: leaving with a thread blocked\n");
	return 0;
}
