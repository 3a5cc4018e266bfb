/* SPDX-License-Identifier: MIT */
/*
 * Functions whose exit hook gcc and clang tail-call at -O2 (they return
 * nothing, so the hook is their last act): the hook runs in the caller's
 * frame. A signal handler's too, under the runtime's barrier. main 1,
 * middle N, on_usr1 N/10, rec and leaf as N says (tests/encoder/run.sh).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void leaf(int *out, int x)
{
	*out = x * 3;
}

__attribute__((noinline)) static void middle(int *out, int x)
{
	int a, b;
	leaf(&a, x);
	leaf(&b, x + 1);
	*out = a + b;
}

__attribute__((noinline)) static void rec(int *out, int n)
{
	if (n == 0) {
		leaf(out, n);
		return;
	}
	rec(out, n - 1);
	*out += 1;
}

static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
	int x;
	leaf(&x, sig);
	handled += x;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	long s = 0;
	signal(SIGUSR1, on_usr1);
	for (int i = 0; i < n; i++) {
		int a, b;
		if (i % 10 == 0)
			raise(SIGUSR1);
		middle(&a, i);
		rec(&b, i % 8);
		s += a + b;
	}
	printf("%ld\n", s);
	return 0;
}
