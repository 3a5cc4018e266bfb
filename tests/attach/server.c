/* SPDX-License-Identifier: MIT */
/*
 * A program that keeps running, for tests/attach: main -> serve_forever ->
 * handle_request -> work, on one core, and a second thread that wakes every
 * 10 ms (ticker -> tick). Every handle_request is counted in the file
 * argv[1] (a shared mapping), so the test knows how many ran in a window.
 * With argv[2] > 0 it exits with status argv[3] after that many ms.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t *requests;
static volatile uint64_t sink;

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

__attribute__((noinline)) static uint64_t work(uint64_t x)
{
	for (int i = 0; i < 20000; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

__attribute__((noinline)) static uint64_t handle_request(uint64_t x)
{
	__atomic_add_fetch(requests, 1, __ATOMIC_RELAXED);
	return work(x) ^ work(x + 1);
}

__attribute__((noinline)) static void serve_forever(uint64_t stop_after_ms, int status)
{
	uint64_t x = 1, start = now_ms();
	for (;;) {
		x = handle_request(x);
		sink = x;
		if (stop_after_ms && now_ms() - start >= stop_after_ms)
			exit(status);
	}
}

__attribute__((noinline)) static void tick(void)
{
	sink = sink + 1;
}

__attribute__((noinline)) static void *ticker(void *arg)
{
	(void)arg;
	for (;;) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		tick();
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int fd = open(argv[1], O_RDWR | O_CREAT, 0644);
	if (fd < 0 || ftruncate(fd, 4096) < 0)
		return 2;
	requests = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (requests == MAP_FAILED)
		return 2;
	pthread_t th;
	pthread_create(&th, NULL, ticker, NULL);
	serve_forever(argc > 2 ? strtoull(argv[2], NULL, 10) : 0, argc > 3 ? atoi(argv[3]) : 0);
	return 0;
}
