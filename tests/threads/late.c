/* SPDX-License-Identifier: MIT */
/*
 * Calls after a thread's end, two methods mixed (tests/threads/run.sh): this
 * file is built -pg -mfentry, late_deep.c -finstrument-functions. A pthread
 * key made after the runtime's has its destructor run after the runtime's
 * end of the thread: there, an fentry call is given the few shadow frames
 * kept in TLS, and the finstrument calls under it go DEPTH deep, past them.
 * deep's calls: 2 DEPTH + 9 (main 3 + DEPTH + 1, the thread 4, the
 * destructor DEPTH + 1).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

void deep(int n);

static pthread_key_t later;
static int depth;

__attribute__((noinline)) void from_fentry(void)
{
	deep(depth);
}

static void later_end(void *p)
{
	(void)p;
	from_fentry();
}

static void *run(void *p)
{
	(void)p;
	pthread_setspecific(later, (void *)1);
	deep(3);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	depth = argc > 1 ? atoi(argv[1]) : 40;
	deep(2); /* the runtime starts, and makes its key first */
	from_fentry();
	if (pthread_key_create(&later, later_end) || pthread_create(&t, NULL, run, NULL))
		return 1;
	pthread_join(t, NULL);
	puts("done");
	return 0;
}
