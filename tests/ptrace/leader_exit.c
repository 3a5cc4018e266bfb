/* The main thread leaves with pthread_exit after MAIN_MS while two workers go on for SECONDS:
 * the thread group's leader is then a zombie that reports nothing until the others are gone.
 * The workers check their own results: the last prints "bad=0", exit 0 when all were right. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static time_t end;
static atomic_long bad;
static atomic_int left = 2;
__attribute__((noinline)) long spin(long n) { volatile long x = 0; for (long i = 0; i < n; i++) x += i; return x; }
static void *worker(void *a)
{
	(void)a;
	long n = 0;
	while (time(NULL) < end)
		n += spin(1000) != 499500;
	atomic_fetch_add(&bad, n);
	if (atomic_fetch_sub(&left, 1) == 1) {
		printf("bad=%ld\n", atomic_load(&bad));
		fflush(stdout);
		exit(atomic_load(&bad) != 0);
	}
	return NULL;
}
int main(int argc, char **argv)
{
	pthread_t t;
	end = time(NULL) + (argc > 2 ? atoi(argv[2]) : 3);
	for (int i = 0; i < 2; i++)
		pthread_create(&t, NULL, worker, NULL);
	usleep((argc > 1 ? atoi(argv[1]) : 300) * 1000);
	pthread_exit(NULL);
}
