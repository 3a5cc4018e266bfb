/* SPDX-License-Identifier: MIT */
/*
 * What the encoder must carry exactly (tests/encoder/run.sh):
 *   work threads T N   T threads, each calling twice() N times (2 calls of once() each)
 *   work gaps N        N calls 200 us apart: clock deltas past the byte planes' 16 bits
 *   work frames N      recursion N deep through 4 KiB frames: stack deltas past 8 bits
 *   work burst DIR N   N calls of twice() in this thread, then DIR/done (and waits for
 *                      DIR/go before it exits): the test stops the recorder meanwhile
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long n;

__attribute__((noinline)) static long once(long x)
{
	return x * 3 + 1;
}
__attribute__((noinline)) static long twice(long x)
{
	return once(x) + once(x + 1);
}

static void *run(void *p)
{
	long s = (long)p;
	for (long i = 0; i < n; i++)
		s += twice(i);
	return (void *)s;
}

__attribute__((noinline)) static void pause_200us(void)
{
	struct timespec ts = { 0, 200 * 1000 };
	nanosleep(&ts, NULL);
}

__attribute__((noinline)) static long deep(long k)
{
	volatile char frame[4096];
	memset((char *)frame, (int)k, sizeof(frame));
	return k ? deep(k - 1) + frame[k % 4096] : 0;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	n = atol(argv[argc - 1]);
	if (!strcmp(argv[1], "threads") && argc == 4) {
		int t = atoi(argv[2]);
		pthread_t *tid = calloc((size_t)t, sizeof(*tid));
		for (int i = 0; i < t; i++)
			pthread_create(&tid[i], NULL, run, (void *)(long)i);
		for (int i = 0; i < t; i++)
			pthread_join(tid[i], NULL);
		free(tid);
	} else if (!strcmp(argv[1], "gaps")) {
		for (long i = 0; i < n; i++)
			pause_200us();
	} else if (!strcmp(argv[1], "frames")) {
		printf("%ld\n", deep(n));
	} else if (!strcmp(argv[1], "burst") && argc == 4) {
		char path[4096];
		run(NULL);
		snprintf(path, sizeof(path), "%s/done", argv[2]);
		fclose(fopen(path, "w"));
		snprintf(path, sizeof(path), "%s/go", argv[2]);
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		for (int i = 0; i < 3000 && access(path, F_OK); i++)
			nanosleep(&ts, NULL);
	} else {
		return 2;
	}
	return 0;
}
