/* SPDX-License-Identifier: MIT */
/*
 * tests/faults.sh, SIGKILL salvage: the main thread and 3 workers call
 * functions and count their calls, per thread and per function, in a
 * MAP_SHARED mapping of the file named by $CT_COUNTS, so the counts survive
 * the kill.
 *
 *   kill9 self      after every worker has made at least 20000 calls, the
 *                   main thread makes a known number of calls and kills the
 *                   process with SIGKILL while the workers are still running
 *   kill9 outside   every thread calls until the process is killed; the pid
 *                   is written to $CT_PIDFILE once the counters are set up
 *
 * The counts file (native endian):
 *   int64 nthreads, int64 nfuncs, char name[nfuncs][32],
 *   int64 count[nthreads][nfuncs]     (thread 0 is the main thread)
 * Each function's counter is incremented first thing in its body, i.e. after
 * its enter hook: a thread killed in between has one more call in the trace.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define NOINL __attribute__((noinline, noclone))
#ifdef __clang__
#undef NOINL
#define NOINL __attribute__((noinline))
#endif
#define NOTRACE __attribute__((no_instrument_function))

#define NTHREADS 4
enum { F_main, F_m_work, F_m_leaf, F_m_die, F_worker, F_w_step, F_w_leaf_a, F_w_leaf_b, NFUNCS };
static const char *const names[NFUNCS] = { "main",   "m_work", "m_leaf",   "m_die",
					   "worker", "w_step", "w_leaf_a", "w_leaf_b" };

struct counts {
	int64_t nthreads, nfuncs;
	char name[NFUNCS][32];
	int64_t count[NTHREADS][NFUNCS];
};
static struct counts *C;
static __thread int self_index;
static volatile unsigned sink;
static int cost = 150; /* spin per leaf call: 600 in outside mode (a smaller trace) */

#define HIT(f)                                                                           \
	__atomic_store_n(&C->count[self_index][F_##f], C->count[self_index][F_##f] + 1, \
			 __ATOMIC_RELAXED)

NOTRACE static void spin(int n)
{
	for (int i = 0; i < n; i++)
		sink += (unsigned)i;
}

NOINL void w_leaf_a(int k)
{
	HIT(w_leaf_a);
	spin(cost + k);
}

NOINL void w_leaf_b(int k)
{
	HIT(w_leaf_b);
	spin(cost + 10 - k);
}

NOINL void w_step(int i)
{
	HIT(w_step);
	w_leaf_a(i & 7);
	if (i % 3 == 0)
		w_leaf_b(i & 7);
}

NOINL void *worker(void *arg)
{
	self_index = (int)(intptr_t)arg;
	HIT(worker);
	for (int i = 0;; i++)
		w_step(i);
	return NULL;
}

NOINL void m_leaf(int k)
{
	HIT(m_leaf);
	spin(cost + k);
}

NOINL void m_work(int i)
{
	HIT(m_work);
	m_leaf(i & 3);
	if (i & 1)
		m_leaf(1);
}

NOINL void m_die(void)
{
	HIT(m_die);
	kill(getpid(), SIGKILL);
}

NOTRACE static int64_t worker_calls(int t)
{
	return __atomic_load_n(&C->count[t][F_w_step], __ATOMIC_RELAXED);
}

int main(int argc, char **argv)
{
	int self = argc > 1 && !strcmp(argv[1], "self");
	if (!self)
		cost = 600;
	const char *path = getenv("CT_COUNTS");
	if (!path) {
		fprintf(stderr, "kill9: set CT_COUNTS\n");
		return 2;
	}
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, sizeof(struct counts)) < 0) {
		perror(path);
		return 2;
	}
	C = mmap(NULL, sizeof(struct counts), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (C == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	C->nthreads = NTHREADS;
	C->nfuncs = NFUNCS;
	for (int f = 0; f < NFUNCS; f++)
		snprintf(C->name[f], sizeof C->name[f], "%s", names[f]);

	HIT(main);
	pthread_t th[NTHREADS];
	for (int t = 1; t < NTHREADS; t++)
		pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);

	if (!self) {
		const char *pidfile = getenv("CT_PIDFILE");
		if (pidfile) {
			char tmp[4096];
			snprintf(tmp, sizeof tmp, "%s.tmp", pidfile);
			FILE *f = fopen(tmp, "w");
			if (f) {
				fprintf(f, "%d\n", (int)getpid());
				fclose(f);
				rename(tmp, pidfile);
			}
		}
		for (int i = 0;; i++)
			m_work(i);
	}

	/* Wait (no traced call) until every worker is well under way. */
	for (;;) {
		int ready = 1;
		for (int t = 1; t < NTHREADS; t++)
			ready &= worker_calls(t) >= 20000;
		if (ready)
			break;
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	for (int i = 0; i < 30000; i++)
		m_work(i);
	m_die();
	return 1; /* not reached */
}
