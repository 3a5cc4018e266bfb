/* SPDX-License-Identifier: MIT */
/*
 * Library calls, counted by the program itself: calls into libc (lazily
 * bound, or not, or through the GOT with -fno-plt), into a library of its
 * own without symbol versions, a callback from qsort, a longjmp out of
 * that callback (qsort's frame must close there), and threads. Prints
 * "name@library count" for each call it makes (its printf calls are not
 * counted: the compiler may make some puts).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int lc_twice(int x);

#define NTHREADS 2
#define PER_THREAD 3

/* a function of its own, not a copy specialised for its arguments */
#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

static int n_strlen, n_strtol, n_snprintf, n_lc_twice, n_qsort, n_malloc, n_free, n_getpid;
static int n_cmp, n_cmp_jump, n_setjmp;
static jmp_buf escape;
static char word[32] = "after the jump";
static void *volatile keep;

NOINLINE static int cmp(const void *a, const void *b)
{
	n_cmp++;
	return *(const int *)a - *(const int *)b;
}

NOINLINE static int cmp_jump(const void *a, const void *b)
{
	(void)a;
	(void)b;
	n_cmp_jump++;
	longjmp(escape, 1);
}

NOINLINE static long parse(const char *s)
{
	n_strtol++;
	return strtol(s, NULL, 10);
}

NOINLINE static void *worker(void *arg)
{
	long sum = 0;
	for (int i = 0; i < PER_THREAD; i++)
		sum += (long)strlen((const char *)arg + i); /* not hoisted: a new string each time */
	return (void *)sum;
}

NOINLINE static void sort_twice(int *v, int n)
{
	n_qsort++;
	qsort(v, (size_t)n, sizeof(*v), cmp);
	n_setjmp++;
	if (!setjmp(escape)) {
		n_qsort++;
		qsort(v, (size_t)n, sizeof(*v), cmp_jump);
	}
	n_strlen++;
	keep = (void *)strlen(word);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? (int)parse(argv[1]) : 20;
	char buf[32];
	long total = 0;
	int v[4];

	for (int i = 0; i < n; i++) {
		n_snprintf++;
		snprintf(buf, sizeof(buf), "%d", i * 7);
		n_strlen++;
		total += (long)strlen(buf) + parse(buf);
		n_lc_twice++;
		total += lc_twice(i);
	}
	for (int i = 0; i < 4; i++)
		v[i] = (i * 3) % 4;
	sort_twice(v, 4);
	n_malloc++;
	keep = malloc(64);
	n_free++;
	free(keep);
	n_getpid++;
	total += getpid() > 0;

	pthread_t t[NTHREADS];
	for (int i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, worker, argv[0]);
	for (int i = 0; i < NTHREADS; i++) {
		void *r;
		pthread_join(t[i], &r);
		total += (long)r;
	}
	printf("strlen@libc.so.6 %d\n", n_strlen + NTHREADS * PER_THREAD);
	printf("strtol@libc.so.6 %d\n", n_strtol);
	printf("snprintf@libc.so.6 %d\n", n_snprintf);
	printf("lc_twice@liblcdep.so %d\n", n_lc_twice);
	printf("qsort@libc.so.6 %d\n", n_qsort);
	printf("malloc@libc.so.6 %d\n", n_malloc);
	printf("free@libc.so.6 %d\n", n_free);
	printf("getpid@libc.so.6 %d\n", n_getpid);
	printf("pthread_create@libc.so.6 %d\n", NTHREADS);
	printf("pthread_join@libc.so.6 %d\n", NTHREADS);
	printf("main 1\nparse %d\nsort_twice 1\nworker %d\n", n_strtol, NTHREADS);
	printf("cmp %d\n", n_cmp);
	printf("cmp_jump %d\n", n_cmp_jump);
	printf("# total %ld, setjmp %d\n", total, n_setjmp);
	return 0;
}
