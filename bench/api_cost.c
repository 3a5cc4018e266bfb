/* SPDX-License-Identifier: MIT */
/*
 * What the API costs a program that keeps its calls and runs without
 * calltrace (libcalltrace-api.so's stubs): ns per call of calltrace_enable()
 * and calltrace_backtrace(), against a call of an empty function of its own.
 */
#include <calltrace.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) void own_empty(void)
{
	__asm__ volatile("");
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000000L;
	void *buf[8];
	double t0 = now();
	for (long i = 0; i < n; i++)
		own_empty();
	double t1 = now();
	for (long i = 0; i < n; i++)
		calltrace_enable();
	double t2 = now();
	for (long i = 0; i < n; i++)
		calltrace_backtrace(buf, 8);
	double t3 = now();
	printf("own empty function   %.2f ns/call\n", (t1 - t0) * 1e9 / n);
	printf("calltrace_enable     %.2f ns/call (stub)\n", (t2 - t1) * 1e9 / n);
	printf("calltrace_backtrace  %.2f ns/call (stub)\n", (t3 - t2) * 1e9 / n);
	return 0;
}
