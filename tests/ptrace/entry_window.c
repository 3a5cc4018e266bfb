/* SPDX-License-Identifier: MIT */
/*
 * Threads that spend their time a few bytes into a function: slow_entry's
 * first five bytes (the jump dynamic patching writes over them on x86-64)
 * are a push and two CPUIDs, slow in a virtual machine. An attach stops
 * them there, mostly; the patch must not leave one to go on in the middle
 * of its jump. Runs until SIGUSR1; prints its calls and exits 0.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

long slow_entry(long x);
__asm__(".text\n"
	".globl slow_entry\n"
	".type slow_entry, @function\n"
	"slow_entry:\n"
	"	push %rbx\n"
	"	cpuid\n"
	"	cpuid\n"
	"	pop %rbx\n"
	"	lea 1(%rdi), %rax\n"
	"	ret\n"
	".size slow_entry, .-slow_entry\n");

static atomic_int stop;
static atomic_long bad;

static void *spin(void *arg)
{
	long n = 0;
	(void)arg;
	while (!atomic_load(&stop)) {
		if (slow_entry(n) != n + 1)
			atomic_fetch_add(&bad, 1);
		n++;
	}
	return NULL;
}

static void on_usr1(int sig)
{
	(void)sig;
	atomic_store(&stop, 1);
}

int main(void)
{
	pthread_t t[2];
	signal(SIGUSR1, on_usr1);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, spin, NULL);
	while (!atomic_load(&stop))
		usleep(10000);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("bad=%ld\n", atomic_load(&bad));
	return 0;
}
