/* Functions of the shapes dynamic patching must handle or leave alone, each
 * counting its own calls: a switch (a jump table), a tail call through a
 * function pointer, a call in the first instructions, a tiny leaf (too short
 * to patch at -O2), recursion, a loop. Prints "name count" per function. */
#include <stdio.h>
#include <stdlib.h>

#define NOINL __attribute__((noinline))
static long n_dispatch, n_tail, n_early, n_tiny, n_rec, n_loop, n_a, n_b;
static volatile long sink;

NOINL int tiny(int x) { n_tiny++; return x + 1; }
NOINL int op_a(int x) { n_a++; sink += x; return x * 3; }
NOINL int op_b(int x) { n_b++; sink -= x; return x - 7; }

NOINL int dispatch(int k, int x)
{
	n_dispatch++;
	switch (k) {
	case 0: return x + 11;
	case 1: return op_a(x) + 2;
	case 2: return op_b(x) * 5;
	case 3: return x ^ 0x55;
	case 4: return tiny(x) - 1;
	case 5: return x * x;
	case 6: return -x;
	default: return 0;
	}
}

typedef int (*op_fn)(int);
NOINL int tail(op_fn f, int x) { n_tail++; sink++; return f(x); }
NOINL int early(int x) { n_early++; return op_a(x) + op_b(x); }
NOINL long rec(int n) { n_rec++; return n <= 0 ? 0 : n + rec(n - 1) * 2 % 1000003; }
NOINL long loop(int n)
{
	long s = 0;
	n_loop++;
	for (int i = 0; i < n; i++)
		s += dispatch(i % 8, i);
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	long total = loop(n);
	for (int i = 0; i < n; i++)
		total += tail(i & 1 ? op_a : op_b, i) + early(i) + rec(i % 20);
	fprintf(stderr, "total %ld\n", total);
	printf("dispatch %ld\ntail %ld\nearly %ld\ntiny %ld\nrec %ld\nloop %ld\nop_a %ld\nop_b %ld\nmain 1\n",
		n_dispatch, n_tail, n_early, n_tiny, n_rec, n_loop, n_a, n_b);
	return 0;
}
