/* SPDX-License-Identifier: MIT */
/*
 * tests/faults.sh, recorder killed: the main thread and a worker call
 * functions for about 1.5 s (measured by the program), then it writes its
 * counts ($CT_TRUTH, truth.h format) and "done STEPS" to the file named by
 * $CT_DONE. Its pid goes to $CT_PIDFILE first, so the test can find it.
 * The test kills calltrace (the recorder) with SIGKILL after ~300 ms: the
 * program must go on to its normal end, untraced.
 * Exit status 0 when its own counts agree with each other, 1 otherwise.
 */
#include <pthread.h>
#include <time.h>
#define FUNCS(X) X(main, "main") X(worker, "worker") X(step, "step") X(leaf, "leaf")
#include "truth.h"

static volatile unsigned sink;

NOTRACE static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

NOINL void leaf(int k)
{
	HIT(leaf);
	for (int i = 0; i < 2000 + k; i++)
		sink += (unsigned)i;
}

NOINL void step(int i)
{
	HIT(step);
	leaf(i & 3);
	leaf(1);
}

static double end_at;

NOINL void *worker(void *arg)
{
	HIT(worker);
	long n = 0;
	while (now() < end_at)
		for (int k = 0; k < 100; k++)
			step((int)n++);
	*(long *)arg = n;
	return NULL;
}

int main(void)
{
	HIT(main);
	const char *pidfile = getenv("CT_PIDFILE");
	if (pidfile) {
		FILE *f = fopen(pidfile, "w");
		if (f) {
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
		}
	}
	end_at = now() + 1.5;
	long wn = 0, n = 0;
	pthread_t th;
	pthread_create(&th, NULL, worker, &wn);
	while (now() < end_at)
		for (int k = 0; k < 100; k++)
			step((int)n++);
	pthread_join(th, NULL);

	long steps = ct_counts[F_step], leaves = ct_counts[F_leaf];
	int good = steps == n + wn && leaves == 2 * steps && ct_counts[F_worker] == 1;
	ct_truth_write();
	const char *done = getenv("CT_DONE");
	if (done) {
		FILE *f = fopen(done, "w");
		if (f) {
			fprintf(f, good ? "done %ld\n" : "wrong counts %ld\n", steps);
			fclose(f);
		}
	}
	return good ? 0 : 1;
}
