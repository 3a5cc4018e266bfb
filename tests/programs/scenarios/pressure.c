/* SPDX-License-Identifier: MIT */
/*
 * tests/faults.sh, back-pressure: 8 threads (and the main thread) call as
 * fast as they can; recorded losslessly with a tiny pool, they must wait for
 * chunks and lose nothing. Thread t makes 20000 * (t + 1) steps of 4 calls, main 50000.
 * Counts in $CT_TRUTH (truth.h).
 */
#include <pthread.h>
#include <stdint.h>
#define FUNCS(X) X(main, "main") X(worker, "worker") X(step, "step") X(inner, "inner") X(leaf, "leaf")
#include "truth.h"

static volatile unsigned sink;

NOINL void leaf(int k)
{
	HIT(leaf);
	sink += (unsigned)k;
}

NOINL void inner(int k)
{
	HIT(inner);
	leaf(k);
}

NOINL void step(int i)
{
	HIT(step);
	inner(i);
	leaf(i);
}

NOINL void *worker(void *arg)
{
	HIT(worker);
	long n = 20000 * ((long)(intptr_t)arg + 1);
	for (long i = 0; i < n; i++)
		step((int)i);
	return NULL;
}

int main(void)
{
	HIT(main);
	pthread_t th[8];
	for (int t = 0; t < 8; t++)
		pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
	for (int i = 0; i < 50000; i++)
		step(i);
	for (int t = 0; t < 8; t++)
		pthread_join(th[t], NULL);
	long want = 50000 + 20000L * 36;
	return ct_counts[F_step] == want && ct_counts[F_leaf] == 2 * want ? 0 : 1;
}
