/* A thread that dlopens, again and again, a library whose constructor is slow: it holds the
 * loader's lock most of the time, so a dlopen of ours made while it is stopped would wait for
 * it. The main thread checks its own results: "bad=0", exit 0 when all were right. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
__attribute__((noinline)) long spin(long n) { volatile long x = 0; for (long i = 0; i < n; i++) x += i; return x; }
static void *holder(void *a) { for (;;) { void *h = dlopen((char *)a, RTLD_NOW); if (h) dlclose(h); } return NULL; }
int main(int argc, char **argv) {
	pthread_t t; pthread_create(&t, NULL, holder, argv[2]);
	time_t end = time(NULL) + atoi(argv[1]); long n = 0;
	while (time(NULL) < end) n += spin(1000) != 499500;
	printf("bad=%ld\n", n); return n != 0;
}
